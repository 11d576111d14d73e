/*
 * my_scrub: SHOW CREATE TABLE's definition as the user's world shows it
 * (validator/mysql/validate_my_create.h). The read's validation names the
 * shown table's database; the result's column definitions say which
 * column holds the definition; each row then goes on with that value
 * scrubbed, in the text protocol, the binary one and a cursor's fetches
 * alike.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "base/wbuf.h"
#include "conf/config.h"
#include "proxy/mysql/my_session_int.h"
#include "validator/mysql/validate_my_create.h"

void mys_create_begin(const struct my_session *s, const struct frame *f, struct mys_create *c)
{
	struct frame_mycol col;
	struct rbuf cur;
	uint16_t n;

	memset(c, 0, sizeof(*c));
	if (!s->create_db[0] || frame_mycols_begin(f, &n, &cur) != FRAME_OK || n != 2 ||
	    frame_mycols_next(&cur, &col) != FRAME_OK || frame_mycols_next(&cur, &col) != FRAME_OK)
		return;
	/* SHOW CREATE VIEW's columns differ; a view's body is what the operator chose to show. */
	if (col.name.len != 12 || memcmp(col.name.ptr, "Create Table", 12) != 0)
		return;
	c->col = 2;
	memcpy(c->db, s->create_db, sizeof(c->db));
}

const struct frame *mys_create_row(const struct my_session *s, const struct mys_create *c, const struct frame *f,
				   struct wbuf *buf, struct frame *out)
{
	const struct airlock_user *u = s->core.u;
	const struct vmy_policy pol = {
		.user = s->core.user,
		.tables = (const char *const *)u->mysql_tables,
		.ntables = u->nmysql_tables,
		.rules = u->mysql_rules,
		.nrules = u->nmysql_rules,
	};
	struct rbuf cur;
	uint16_t n;

	if (!c->col)
		return f;
	if (frame_row_begin(f, &n, &cur) != FRAME_OK)
		return NULL;
	frame_begin(buf, FRAME_ROW);
	frame_put_u16(buf, n);
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *v;
		uint32_t len;
		size_t scrubbed_len;
		char *scrubbed;

		if (frame_row_next(&cur, &v, &len) != FRAME_OK)
			return NULL;
		if (!v) {
			frame_put_i32(buf, -1);
			continue;
		}
		if (i + 1 != c->col) {
			frame_put_u32(buf, len);
			frame_put_bytes(buf, v, len);
			continue;
		}
		scrubbed = vmy_create_scrub(&pol, c->db, (const char *)v, len, &scrubbed_len);
		if (!scrubbed)
			return NULL;
		frame_put_u32(buf, (uint32_t)scrubbed_len);
		frame_put_bytes(buf, scrubbed, scrubbed_len);
		free(scrubbed);
	}
	frame_end(buf);
	if (buf->failed || buf->len < FRAME_HEADER_LEN)
		return NULL;
	*out = (struct frame){.type = FRAME_ROW,
			      .len = (uint32_t)(buf->len - FRAME_HEADER_LEN),
			      .payload = buf->data + FRAME_HEADER_LEN};
	return out;
}
