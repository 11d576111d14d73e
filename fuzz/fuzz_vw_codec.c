/*
 * fuzz_vw_codec: libFuzzer target for the validator worker's channel, as
 * each side reads it: the input is read as a request body (the worker's
 * side) and as a response body to each operation (airlockd's side, which
 * must survive whatever a compromised worker writes). A request that reads
 * is written again and must read back the same way; a response that reads
 * must hold only what its checks allow: terminated strings within their
 * fields, kinds and codes in range, offsets inside the text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "validator/channel/vw_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_request(const uint8_t *data, size_t size)
{
	struct vw_request req, again;
	struct wbuf w;

	if (!vw_get_request(data, size, &req))
		return;
	wbuf_init(&w);
	if (!vw_put_request(&w, req.op, &req.pg, &req.my, req.sql, req.sql_len, req.my_read, req.split_max) ||
	    !vw_get_request(w.data + 4, w.len - 4, &again))
		abort();
	if (again.op != req.op || again.sql_len != req.sql_len || memcmp(again.sql, req.sql, req.sql_len) != 0 ||
	    again.pg.ntables != req.pg.ntables || again.my.nrules != req.my.nrules || !again.my_read != !req.my_read)
		abort();
	vw_request_free(&again);
	vw_request_free(&req);
	wbuf_free(&w);
}

static void check_response(const uint8_t *data, size_t size, enum vw_op op)
{
	const size_t sql_len = 64, nrules = 2;
	struct vw_response res;

	if (!vw_get_response(data, size, op, sql_len, nrules, &res))
		return;
	if (res.pg.kind >= PGV_NKINDS || res.pg.code >= AIRLOCK_E_COUNT || strlen(res.pg.sqlstate) > 5 ||
	    res.pg.query_offset + res.pg.query_len > sql_len)
		abort();
	/* A write's variant only beside its text. */
	if (res.sample && ((op != VW_PG_WRITE && op != VW_MY_SCOPE) || (op == VW_MY_SCOPE && !res.text)))
		abort();
	/* A read's scope only beside a read, its text only where the scope let it through. */
	if (res.scoped && (op != VW_PG_READ || res.pg.kind != PGV_READ || res.scope.kind >= PGV_NKINDS ||
			   res.scope.query_offset + res.scope.query_len > sql_len ||
			   (res.scope.kind != PGV_READ && (res.text || res.guard))))
		abort();
	for (size_t i = 0; i < res.nsplit; i++)
		if (res.split_off[i] + res.split_len[i] > sql_len)
			abort();
	if (res.my) {
		if (res.my->kind >= VMY_NKINDS || res.my->nassigns > VMY_MAX_ASSIGNS ||
		    res.my->nitems > VMY_MAX_ITEMS || res.my->scope.nrefs > VMY_MAX_SCOPED)
			abort();
		for (size_t i = 0; i < res.my->scope.nrefs; i++)
			if (res.my->scope.refs[i].rule >= (int16_t)nrules)
				abort();
	}
	vw_response_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_request(data, size);
	for (int op = VW_PG_VALIDATE; op < VW_NOPS; op++)
		check_response(data, size, (enum vw_op)op);
	return 0;
}
