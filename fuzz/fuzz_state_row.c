/*
 * fuzz_state_row: libFuzzer target for the Postgres approval store's
 * reading of a row (approval/approval_store_pg_row.c), as the store reads
 * what the shared database hands back: anyone with access to that
 * database can write any bytes into it. The input is cut into the
 * table's columns (each a 2-byte big-endian length, 0xffff for NULL, and
 * that many bytes), set into a binary-format result of the columns'
 * types with libpq's own result builder, and read with pgstore_row_read.
 * A row it accepts keeps every bound approval.h sets; a refused one
 * leaves nothing allocated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "approval/approval_store_pg_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The result the store's SELECT would give, with the columns' names and types; NULL when libpq cannot. */
static PGresult *empty_result(void)
{
	PGresAttDesc att[RECORD_COL_COUNT];
	PGresult *res = PQmakeEmptyPGresult(NULL, PGRES_TUPLES_OK);

	if (!res)
		return NULL;
	memset(att, 0, sizeof(att));
	for (int i = 0; i < RECORD_COL_COUNT; i++) {
		unsigned oid;

		pgstore_type(record_columns[i].kind, &oid);
		att[i].name = (char *)record_columns[i].name;
		att[i].typid = oid;
		att[i].format = 1;
		att[i].typlen = -1;
		att[i].atttypmod = -1;
	}
	if (!PQsetResultAttrs(res, RECORD_COL_COUNT, att)) {
		PQclear(res);
		return NULL;
	}
	return res;
}

/* The record's text members all within their bounds, its id well formed, its counts as the store allows. */
static void check(const struct approval *a)
{
	if (!approval_id_valid(a->id) || (a->approvals_needed != 1 && a->approvals_needed != 2) ||
	    !approval_status_name(a->status))
		abort();
	for (int i = 0; i < RECORD_COL_COUNT; i++) {
		const struct record_column *c = &record_columns[i];
		const char *v;
		size_t n;

		if (c->kind == RECORD_TEXT &&
		    (!record_text(a, c, &v, &n) || !*(char *const *)((const char *)a + c->offset)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pgstore s;
	struct approval a;
	PGresult *res;
	size_t at = 0;

	if (size > 1 << 20)
		return 0;
	res = empty_result();
	if (!res)
		return 0;
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < RECORD_COL_COUNT; i++) {
		unsigned len = 0xffff;
		int ok;

		if (at + 2 <= size) {
			len = (unsigned)data[at] << 8 | data[at + 1];
			at += 2;
		}
		if (len == 0xffff) {
			ok = PQsetvalue(res, 0, i, NULL, -1);
		} else {
			if (len > size - at)
				len = (unsigned)(size - at);
			ok = PQsetvalue(res, 0, i, (char *)(data + at), (int)len);
			at += len;
		}
		if (!ok) {
			PQclear(res);
			return 0;
		}
	}
	if (!pgstore_check_fields(&s, res))
		abort();
	if (pgstore_row_read(&s, res, 0, &a) == APPROVAL_OK) {
		check(&a);
		approval_free(&a);
	} else if (a.user || a.statement || a.id[0]) {
		abort();
	}
	PQclear(res);
	return 0;
}
