/*
 * frame: the binary job/result frames exchanged between airlockd and
 * airlock-runner over the job's control socket. Pure codec, no I/O.
 *
 * Every frame is: u8 type, u32 big-endian payload length, payload.
 * Integers are big-endian. A "str" is u32 length + bytes (no NUL on the wire).
 *
 *  'J' job (proxy -> runner): u16 npairs, then npairs x (str key, str value).
 *      Keys: engine ("postgres" or "mariadb"), dbname, user, password,
 *      sql, timeout_ms, max_rows, max_bytes, and "set.<guc>" for session
 *      settings the runner applies with set_config(name, value, true)
 *      inside its transaction, and optionally backend_memory_mb, the
 *      user's budget for the database backend's memory in MiB, from which
 *      the runner derives the engine's per-statement memory settings
 *      (runner/runner_mem.h). Postgres only: "formats", the result
 *      format codes a client asked for in Bind ('0' text, '1' binary),
 *      one per column or one for all (absent: all text). "describe" = "1"
 *      for a describe job, which prepares the statement instead of running
 *      it and answers 'S', 'T', 'C' (Postgres) or 'K' when it has columns,
 *      then 'C' (MariaDB). "type_check": a read the runner runs first in
 *      the transaction; a row from it is the oid of a parameter type the
 *      user may not see, and the job fails as for a type that does not
 *      exist (runner_job.h). "guard": a read the runner runs after the
 *      settings and before the statement; its error refuses the
 *      statement (validator/pg/validate_pg_guard.h).
 *      For engine "mariadb" the keys are the same but for param.<i>,
 *      which it does not take (its max_cost is checked with
 *      Last_query_cost: runner/runner_my_cost.h), and set.* is limited to
 *      set.names, set.sql_mode (required) and set.time_zone (see
 *      runner_job.h).
 *  'P' connect (proxy -> runner): same layout as 'J', holding only engine,
 *      dbname, user and password, and for a target reached over TLS
 *      "tls" (require, verify-ca or verify-full: the target's sslmode)
 *      and "tls_host" (the name its certificate must carry); the CA
 *      file of verify-ca and verify-full is FRAME_TLS_CA_FILE in the
 *      job's directory (runner/runner_tls.h). A 'J' may carry them too. When it comes first, the runner connects
 *      to the database at once and then waits for a 'J' with the rest (how
 *      warm runners are ready before their statement exists). A 'J' holding
 *      everything also works on its own.
 *  'X' cancel (proxy -> runner): empty payload. The runner cancels the
 *      running statement and answers with an 'E' frame (57014; for
 *      mariadb 70100 with my_errno 1317).
 *  'B' backend (runner -> proxy): u32 pid, the process id the database
 *      gave the runner's connection (Postgres' BackendKeyData), sent once
 *      the statement has come, before it runs. Untrusted like every frame
 *      from a runner: the proxy watches that process's memory only after
 *      checking that it holds the other end of the job's own relay.
 *      Optionally then str salt and u32 iterations: the SCRAM salt (the
 *      base64 the server sent, 4 to FRAME_SCRAM_SALT_MAX characters) and
 *      iteration count (1 or more) of the runner's login, when its TLS
 *      shim logged in with SCRAM; from them the proxy salts the target's
 *      password itself, once, for its later runners ('P' keys
 *      scram_salt, scram_iterations, scram_key: runner/runner_tls.h).
 *  'T' row description (runner -> proxy): u16 ncols, then per column:
 *      str name, u32 table_oid, i16 attnum, u32 type_oid, i16 typlen,
 *      i32 typmod, i16 format (0 text, 1 binary: what the values of the
 *      'D' frames that follow are in).
 *  'S' parameter description (runner -> proxy), for a describe job: u16
 *      nparams, then one u32 type OID per parameter (as the backend
 *      inferred them); a 'T' frame follows (no columns: the statement
 *      returns no rows), then 'C'.
 *  'D' data row (runner -> proxy): exactly the body of a Postgres DataRow:
 *      u16 ncols, then per value i32 length (-1 = NULL) + bytes. The proxy
 *      forwards it as 'D' + u32 (4 + payload length) + payload.
 *  'O' copy out (runner -> proxy): the statement is a COPY TO STDOUT: u8
 *      format (0 text, 1 binary), u16 ncols, then one i16 format per
 *      column; 'd' frames follow, then 'C' (tag "COPY n").
 *  'd' copy data (runner -> proxy): one CopyData message's bytes as the
 *      backend sent them (a row); counted against max_rows and max_bytes.
 *  'K' MySQL column definitions (runner -> proxy): u16 ncols, then per
 *      column: str schema, str table, str org_table, str name, str org_name,
 *      u16 charset, u32 length, u8 type, u16 flags, u8 decimals (the fields
 *      of a MySQL ColumnDefinition41, as the backend sent them).
 *  'C' complete (runner -> proxy): u64 rows, u8 truncated (enum
 *      frame_trunc), str command tag (e.g. "SELECT 3"), and optionally
 *      u16 warnings (the MySQL backend's warning count; 0 when absent).
 *  'E' error (runner -> proxy): str sqlstate (5 chars), str code (airlock
 *      code such as "TIMEOUT" or "" for a backend error), str message,
 *      str detail, str hint, and optionally str position (the backend's
 *      1-based character position in the statement, in decimal), then
 *      optionally str my_errno (the MySQL error number in decimal, 1 to 5
 *      digits, at most 65535; it needs the position before it, which a
 *      MySQL runner always sends empty).
 *  'N' notice (runner -> proxy): same layout as 'E'. From a MySQL runner
 *      it is one row of SHOW WARNINGS: code holds the Level ("Note",
 *      "Warning" or "Error"), my_errno the Code.
 *
 * A frame's payload may not exceed FRAME_MAX_PAYLOAD; decoders reject
 * longer lengths before buffering anything.
 */
#ifndef AIRLOCK_BASE_FRAME_H
#define AIRLOCK_BASE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rbuf.h"
#include "base/wbuf.h"

#define FRAME_HEADER_LEN 5
#define FRAME_MAX_PAYLOAD (16u * 1024u * 1024u)
#define FRAME_MAX_PAIRS 256
/* The guard's error text (PG_INVALID_TEXT_REPRESENTATION) holds this, then what it refused, in double quotes. */
#define FRAME_GUARD_PREFIX "airlock-guard:"
/* The CA certificates of a TLS target, written by airlockd into the job's directory. */
#define FRAME_TLS_CA_FILE "ca.pem"
/*
 * For a TLS target, each connection the runner makes to the job's
 * database socket is answered with this one byte and, with it
 * (SCM_RIGHTS), the TCP socket airlockd connected to the backend
 * (proxy/job/relay.h); the unix connection then closes. Without TLS the
 * socket itself carries the bytes.
 */
#define FRAME_RELAY_HANDED 'F'
/*
 * With keep_sessions, a runner airlockd could not give a backend session
 * gets a FATAL (08006) whose message is this prefix and why
 * (proxy/job/relay_kept.h); the runner reports it as the connection
 * failure it is, the reason as its detail.
 */
#define FRAME_KEPT_REFUSED "airlock-kept: "
#define FRAME_MAX_COLS 1664 /* Postgres' own column limit */
/* The longest SCRAM salt a 'B' frame names: base64 of SCRAM_MAX_SALT (64) bytes. */
#define FRAME_SCRAM_SALT_MAX 88

enum frame_type {
	FRAME_JOB = 'J',
	FRAME_CONNECT = 'P',
	FRAME_CANCEL = 'X',
	FRAME_BACKEND = 'B',
	FRAME_ROWDESC = 'T',
	FRAME_PARAMDESC = 'S',
	FRAME_COPY_START = 'O',
	FRAME_COPY_DATA = 'd',
	FRAME_MYCOLS = 'K',
	FRAME_ROW = 'D',
	FRAME_COMPLETE = 'C',
	FRAME_ERROR = 'E',
	FRAME_NOTICE = 'N',
};

enum frame_trunc {
	FRAME_TRUNC_NONE = 0,
	FRAME_TRUNC_MAX_ROWS = 1,
	FRAME_TRUNC_MAX_BYTES = 2,
};

enum frame_status {
	FRAME_OK = 0,
	FRAME_NEED_MORE = 1,
	FRAME_ERR = -1,
};

/* A view of bytes inside a caller-owned buffer; never NUL-terminated. */
struct frame_str {
	const char *ptr;
	uint32_t len;
};

/* One whole frame located in a buffer; payload points into that buffer. */
struct frame {
	uint8_t type;
	uint32_t len;
	const uint8_t *payload;
};

/*
 * Locate one frame at the start of buf. FRAME_NEED_MORE when more bytes are
 * needed (*needed says how many in total, when known), FRAME_ERR on an
 * unknown type or a length above max_payload. On FRAME_OK, *consumed is the
 * frame's total size; out->payload points into buf.
 */
enum frame_status frame_peek(const uint8_t *buf, size_t len, uint32_t max_payload, struct frame *out, size_t *consumed);

/* Job frame. */
struct frame_pair {
	struct frame_str key;
	struct frame_str value;
};
struct frame_job {
	uint16_t npairs;
	struct frame_pair pairs[FRAME_MAX_PAIRS];
};
/* For both 'J' and 'P'. */
enum frame_status frame_decode_job(const struct frame *f, struct frame_job *out);
/* Returns the value of key (NUL-free key compare) or NULL. */
const struct frame_str *frame_job_get(const struct frame_job *job, const char *key);

/*
 * Row description. Columns are decoded one at a time with a cursor (an
 * rbuf over the frame's payload, so borrowing it): begin checks every
 * column and leaves cur at the first; on FRAME_ERR cur is empty, and a
 * next that fails empties it too, so every later next fails.
 */
struct frame_column {
	struct frame_str name;
	uint32_t table_oid;
	int16_t attnum;
	uint32_t type_oid;
	int16_t typlen;
	int32_t typmod;
	int16_t format;
};
enum frame_status frame_rowdesc_begin(const struct frame *f, uint16_t *ncols, struct rbuf *cur);
enum frame_status frame_rowdesc_next(struct rbuf *cur, struct frame_column *col);

/*
 * Parameter description: begin checks the layout (exactly nparams OIDs)
 * and leaves cur (borrowing the payload) at the first; next reads one.
 */
enum frame_status frame_paramdesc_begin(const struct frame *f, uint16_t *nparams, struct rbuf *cur);
enum frame_status frame_paramdesc_next(struct rbuf *cur, uint32_t *type_oid);

/* Copy out: the overall format and column count; cur (borrowing the payload) at the first column's format. */
enum frame_status frame_copy_start_begin(const struct frame *f, uint8_t *format, uint16_t *ncols, struct rbuf *cur);
enum frame_status frame_copy_start_next(struct rbuf *cur, int16_t *format);

/* MySQL column definitions, decoded like the row description. */
struct frame_mycol {
	struct frame_str schema;
	struct frame_str table;
	struct frame_str org_table;
	struct frame_str name;
	struct frame_str org_name;
	uint16_t charset;
	uint32_t length;
	uint8_t type;
	uint16_t flags;
	uint8_t decimals;
};
/* At most FRAME_MAX_COLS columns, so every 'D' frame of the result passes frame_row_check. */
enum frame_status frame_mycols_begin(const struct frame *f, uint16_t *ncols, struct rbuf *cur);
enum frame_status frame_mycols_next(struct rbuf *cur, struct frame_mycol *col);

/* Cancel: FRAME_OK only for an 'X' frame with an empty payload. */
enum frame_status frame_check_cancel(const struct frame *f);

struct frame_backend {
	uint32_t pid;
	struct frame_str salt; /* len 0: no SCRAM login named */
	uint32_t iterations;
};
/*
 * Backend: FRAME_OK only for a 'B' frame of a u32 pid above 0, then
 * nothing or a salt of 4 to FRAME_SCRAM_SALT_MAX characters (not checked
 * as base64 here) and iterations above 0.
 */
enum frame_status frame_decode_backend(const struct frame *f, struct frame_backend *out);

/* Data row: validates the layout (counts and lengths) without copying. */
enum frame_status frame_row_check(const struct frame *f, uint16_t *ncols);
/*
 * A data row's values, one at a time (cur borrows the frame's payload):
 * begin reads the column count, next one value, *value NULL for SQL NULL.
 * Either fails on a layout frame_row_check would refuse.
 */
enum frame_status frame_row_begin(const struct frame *f, uint16_t *ncols, struct rbuf *cur);
enum frame_status frame_row_next(struct rbuf *cur, const uint8_t **value, uint32_t *len);

struct frame_complete {
	uint64_t rows;
	uint8_t truncated;
	struct frame_str tag;
	uint16_t warnings; /* 0 when absent */
};
enum frame_status frame_decode_complete(const struct frame *f, struct frame_complete *out);

struct frame_error {
	struct frame_str sqlstate;
	struct frame_str code;
	struct frame_str message;
	struct frame_str detail;
	struct frame_str hint;
	struct frame_str position; /* empty when absent */
	struct frame_str my_errno; /* empty when absent */
};
/*
 * The code of the 'N' frame a write's dry run sends its plan in (the
 * message; job key sample). A notice the database sent has no code.
 */
#define FRAME_PLAN_CODE "AIRLOCK_PLAN"
/*
 * The code of the 'N' frames a MySQL write's dry run sends its sample in:
 * each message one row the write touches, a JSON object of its columns
 * (runner/runner_my_sample.h).
 */
#define FRAME_SAMPLE_CODE "AIRLOCK_SAMPLE"
/*
 * The code of the 'N' frames a MySQL UPDATE's dry run sends its sample
 * in: each one row it touches, the message its columns before the write
 * and the detail after it (both JSON objects), or an empty detail when
 * the row could not be read again (runner/runner_my_pairs.h).
 */
#define FRAME_SAMPLE_PAIR_CODE "AIRLOCK_SAMPLE_PAIR"
/*
 * The code of the 'N' frame a write's dry run sends when it cannot read
 * the rows of its sample (the write itself goes on): the message says why.
 */
#define FRAME_SAMPLE_FAILED_CODE "AIRLOCK_SAMPLE_FAILED"
/*
 * The row count of a Postgres command tag: its last number ("INSERT 0 3",
 * "UPDATE 3", "DELETE 3"). False when tag is NULL or does not end in a
 * space and digits that fit in 64 bits.
 */
bool frame_tag_rows(const char *tag, uint64_t *rows);
/* For both 'E' and 'N'. */
enum frame_status frame_decode_error(const struct frame *f, struct frame_error *out);
/* Does e carry exactly this code (one of the FRAME_*_CODE above)? */
bool frame_error_coded(const struct frame_error *e, const char *code);

/*
 * Writer: frames are appended to a wbuf the caller owns (base/wbuf.h).
 * A failed allocation or a payload above FRAME_MAX_PAYLOAD sets the sticky
 * failed bit; check it once after building a frame.
 */
void frame_begin(struct wbuf *b, uint8_t type);
void frame_put_str(struct wbuf *b, const char *s, size_t len);
void frame_put_cstr(struct wbuf *b, const char *s); /* NULL writes "" */
/* Patches the length of the frame begun last; sets failed if too long. */
void frame_end(struct wbuf *b);

/* Big-endian integers: the codec's names for the wbuf puts. */
static inline void frame_put_u8(struct wbuf *b, uint8_t v)
{
	wbuf_put_u8(b, v);
}
static inline void frame_put_u16(struct wbuf *b, uint16_t v)
{
	wbuf_put_be16(b, v);
}
static inline void frame_put_i16(struct wbuf *b, int16_t v)
{
	wbuf_put_be16(b, (uint16_t)v);
}
static inline void frame_put_u32(struct wbuf *b, uint32_t v)
{
	wbuf_put_be32(b, v);
}
static inline void frame_put_i32(struct wbuf *b, int32_t v)
{
	wbuf_put_be32(b, (uint32_t)v);
}
static inline void frame_put_u64(struct wbuf *b, uint64_t v)
{
	wbuf_put_be64(b, v);
}
static inline void frame_put_bytes(struct wbuf *b, const void *p, size_t len)
{
	wbuf_put_bytes(b, p, len);
}

#endif
