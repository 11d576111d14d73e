/*
 * pg_codec: the Postgres v3 wire protocol, frontend messages in and backend
 * messages out. Pure: bytes to structs, structs to bytes, no I/O.
 *
 * Decoders never read past len, check every length against what is there
 * and against the caller's maximum before anything is buffered, and return
 * pointers into the caller's buffer (valid while that buffer is).
 */
#ifndef AIRLOCK_PROTOCOL_PG_CODEC_H
#define AIRLOCK_PROTOCOL_PG_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/wbuf.h"

enum pg_status {
	PG_OK = 0,
	PG_NEED_MORE = 1,
	PG_ERR = -1,
};

#define PG_PROTOCOL_3_0 196608u
#define PG_SSL_REQUEST_CODE 80877103u
#define PG_GSSENC_REQUEST_CODE 80877104u
#define PG_CANCEL_REQUEST_CODE 80877102u
#define PG_PEER_REQUEST_CODE 80877125u /* protocol/peer_msg.h's PEER_MSG_KILL_CODE */
#define PG_PEER_REQUEST_MAX 160u       /* at least PEER_MSG_MAX_LEN */
#define PG_STARTUP_MAX_PARAMS 64

enum pg_startup_kind {
	PG_STARTUP_NORMAL,
	PG_STARTUP_SSL,
	PG_STARTUP_GSSENC,
	PG_STARTUP_CANCEL,
	PG_STARTUP_PEER, /* another airlockd node's signed message (protocol/peer_msg.h): raw, raw_len */
};

struct pg_param {
	const char *name; /* NUL-terminated, inside the caller's buffer */
	const char *value;
};

struct pg_startup {
	enum pg_startup_kind kind;
	uint32_t protocol;
	size_t nparams;
	struct pg_param params[PG_STARTUP_MAX_PARAMS];
	uint32_t cancel_pid;
	uint32_t cancel_key;
	const uint8_t *raw; /* PG_STARTUP_PEER: the whole packet, inside the caller's buffer */
	size_t raw_len;
};

/*
 * The first message of a connection (no type byte). PG_NEED_MORE until the
 * whole message is in buf; PG_ERR (with *err set to a static reason) on a
 * length below 8 or above max_len, an unknown protocol, a missing
 * terminator, or too many parameters.
 */
enum pg_status pg_decode_startup(const uint8_t *buf, size_t len, uint32_t max_len, struct pg_startup *out,
				 size_t *consumed, const char **err);
/* Value of a startup parameter or NULL. */
const char *pg_startup_get(const struct pg_startup *s, const char *name);

/* One typed frontend message: type byte, u32 length (including itself), body. */
struct pg_msg {
	uint8_t type;
	uint32_t body_len;
	const uint8_t *body;
};
enum pg_status pg_decode_msg(const uint8_t *buf, size_t len, uint32_t max_len, struct pg_msg *out, size_t *consumed,
			     const char **err);

/* 'Q': the query string (must be NUL-terminated at the body's end, no NUL before it). */
enum pg_status pg_parse_query(const struct pg_msg *m, const char **sql, const char **err);
/* 'p' SASLInitialResponse: mechanism name and the initial response (may be empty; NULL when length -1). */
enum pg_status pg_parse_sasl_initial(const struct pg_msg *m, const char **mechanism, const uint8_t **data,
				     int32_t *data_len, const char **err);
/* 'p' SASLResponse: the whole body is the data. */
enum pg_status pg_parse_sasl_response(const struct pg_msg *m, const uint8_t **data, size_t *data_len, const char **err);

/* ---- extended query protocol (frontend) ---- */

/* 'P' Parse: statement name, query, and ntypes parameter type OIDs. */
struct pg_parse {
	const char *name;
	const char *query;
	uint16_t ntypes;
	const uint8_t *types; /* ntypes big-endian u32, inside the message */
};
enum pg_status pg_parse_parse(const struct pg_msg *m, struct pg_parse *out, const char **err);
/* Type OID of parameter i (0 when unspecified or beyond ntypes). */
uint32_t pg_parse_type_at(const struct pg_parse *p, uint16_t i);

/* 'B' Bind: the whole layout is checked by pg_parse_bind; values are read with pg_bind_values. */
struct pg_bind {
	const char *portal;
	const char *stmt;
	uint16_t nformats;
	const uint8_t *formats;
	uint16_t nparams;
	const uint8_t *params; /* nparams x (i32 length, bytes), inside the message */
	size_t params_len;     /* bytes of params */
	uint16_t nresult_formats;
	const uint8_t *result_formats;
};
struct pg_bind_value {
	const uint8_t *data; /* NULL for SQL NULL */
	int32_t len;         /* -1 for SQL NULL */
	int16_t format;      /* 0 text, 1 binary */
};
enum pg_status pg_parse_bind(const struct pg_msg *m, struct pg_bind *out, const char **err);
/* Fills out[0..nparams); PG_ERR when nparams > max. */
enum pg_status pg_bind_values(const struct pg_bind *b, struct pg_bind_value *out, size_t max);
/* Result format the client asked for column col (0 text, 1 binary). */
int16_t pg_bind_result_format(const struct pg_bind *b, uint16_t col);

/* 'D' Describe and 'C' Close: kind 'S' (statement) or 'P' (portal), and a name. */
enum pg_status pg_parse_describe(const struct pg_msg *m, char *kind, const char **name, const char **err);
/* 'E' Execute: portal name and row limit (0 = all). */
enum pg_status pg_parse_execute(const struct pg_msg *m, const char **portal, uint32_t *max_rows, const char **err);

/*
 * Writers: each pg_put_* appends one whole backend message to a wbuf the
 * caller owns (see base/wbuf.h); check w->failed once at the end.
 */
void pg_put_auth_ok(struct wbuf *w);
void pg_put_auth_sasl(struct wbuf *w, const char *mechanism); /* one mechanism */
void pg_put_auth_sasl_continue(struct wbuf *w, const void *data, size_t len);
void pg_put_auth_sasl_final(struct wbuf *w, const void *data, size_t len);
void pg_put_parameter_status(struct wbuf *w, const char *name, const char *value);
void pg_put_backend_key(struct wbuf *w, uint32_t pid, uint32_t key);
/* A CancelRequest (no type byte: a startup-phase packet), as a client sends it. */
void pg_put_cancel_request(struct wbuf *w, uint32_t pid, uint32_t key);
void pg_put_ready(struct wbuf *w, char status); /* 'I', 'T' or 'E' */
void pg_put_command_complete(struct wbuf *w, const char *tag);
void pg_put_empty_query(struct wbuf *w);

/* Error and notice fields; NULL fields are omitted. */
struct pg_error_fields {
	const char *severity; /* "ERROR", "FATAL", "NOTICE", ... (also sent as 'V') */
	const char *sqlstate;
	const char *message;
	const char *detail;
	const char *hint;
	int position; /* 'P' when > 0 */
};
void pg_put_error(struct wbuf *w, const struct pg_error_fields *e);
void pg_put_notice(struct wbuf *w, const struct pg_error_fields *e);

/* RowDescription, built column by column. */
struct pg_column_desc {
	const char *name;
	size_t name_len;
	uint32_t table_oid;
	int16_t attnum;
	uint32_t type_oid;
	int16_t typlen;
	int32_t typmod;
	int16_t format;
};
void pg_put_rowdesc_begin(struct wbuf *w, uint16_t ncols);
void pg_put_rowdesc_column(struct wbuf *w, const struct pg_column_desc *c);
void pg_put_rowdesc_end(struct wbuf *w);
void pg_put_parse_complete(struct wbuf *w);
void pg_put_bind_complete(struct wbuf *w);
void pg_put_close_complete(struct wbuf *w);
void pg_put_no_data(struct wbuf *w);
void pg_put_portal_suspended(struct wbuf *w);
void pg_put_parameter_description(struct wbuf *w, const uint32_t *oids, uint16_t n);

/* A DataRow whose body (u16 count + values) is already encoded. */
void pg_put_datarow_raw(struct wbuf *w, const void *body, size_t len);
/* COPY TO STDOUT: CopyOutResponse (overall format, one format per column), CopyData, CopyDone. */
void pg_put_copy_out_response(struct wbuf *w, uint8_t format, const int16_t *formats, uint16_t n);
void pg_put_copy_data(struct wbuf *w, const void *data, size_t len);
void pg_put_copy_done(struct wbuf *w);

#endif
