/* star_hint: see star_hint.h. */
#include "proxy/star_hint.h"

#include <stdio.h>
#include <string.h>

#define LEAD "name the columns you need: "

void star_refusal_hold(struct star_refusal *r, const char *message, const char *hint, int cursor_pos)
{
	snprintf(r->message, sizeof(r->message), "%s", message ? message : "");
	snprintf(r->hint, sizeof(r->hint), "%s", hint ? hint : "");
	r->cursor_pos = cursor_pos;
	r->described = false;
}

/* Whether the list (names separated by ", ") holds name already. */
static bool listed(const char *list, const char *name, size_t n)
{
	const char *p = list;

	while (*p) {
		const char *end = strstr(p, ", ");
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == n && memcmp(p, name, n) == 0)
			return true;
		if (!end)
			break;
		p = end + 2;
	}
	return false;
}

/* Appends name to list (cap bytes); false when it does not fit (list then ends with "..."). */
static bool append(char *list, size_t cap, const char *name, size_t n)
{
	size_t used = strlen(list), sep = used ? 2 : 0;

	if (n == 0 || memchr(name, '\0', n) || listed(list, name, n))
		return true;
	if (used + sep + n + sizeof(", ...") > cap) {
		if (used + sizeof(", ...") <= cap)
			memcpy(list + used, used ? ", ..." : "...", used ? sizeof(", ...") : sizeof("..."));
		return false;
	}
	memcpy(list + used, ", ", sep);
	memcpy(list + used + sep, name, n);
	list[used + sep + n] = '\0';
	return true;
}

void star_refusal_columns(struct star_refusal *r, const struct frame *f)
{
	char list[sizeof(r->hint) - sizeof(LEAD) + 1] = "";
	struct rbuf cur;
	uint16_t n, i;

	if (f->type == FRAME_ROWDESC) {
		struct frame_column col;

		if (frame_rowdesc_begin(f, &n, &cur) != FRAME_OK)
			return;
		for (i = 0; i < n && frame_rowdesc_next(&cur, &col) == FRAME_OK; i++)
			if (!append(list, sizeof(list), col.name.ptr, col.name.len))
				break;
	} else if (f->type == FRAME_MYCOLS) {
		struct frame_mycol col;

		if (frame_mycols_begin(f, &n, &cur) != FRAME_OK)
			return;
		for (i = 0; i < n && frame_mycols_next(&cur, &col) == FRAME_OK; i++)
			if (!append(list, sizeof(list), col.name.ptr, col.name.len))
				break;
	}
	if (!list[0])
		return;
	snprintf(r->hint, sizeof(r->hint), LEAD "%s", list);
	r->described = true;
}
