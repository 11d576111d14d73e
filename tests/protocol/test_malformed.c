/*
 * test_malformed: the list of malformed inputs every decoder in protocol/
 * must refuse, one line a case, each named for what is wrong with it; and
 * valid inputs whose every truncation must be refused or reported
 * incomplete. Every input is decoded from a heap copy of exactly its size,
 * so a read one byte past the end is an ASan error, not a quiet pass. A
 * new bug found in a decoder gets its input added here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/frame.h"
#include "protocol/my_codec.h"
#include "protocol/my_stmt.h"
#include "protocol/pg_codec.h"

#define PG_MAX_MSG (1024u * 1024u)
#define MY_MAX_PACKET (1024u * 1024u)

enum kind {
	PG_STARTUP,   /* pg_decode_startup */
	PG_MSG,       /* pg_decode_msg */
	PG_BODY,      /* the body parser for message type arg */
	MY_PACKET,    /* my_packet_peek */
	MY_HANDSHAKE, /* my_decode_handshake_response */
	MY_COMMAND,   /* my_decode_command */
	MY_EXECUTE,   /* my_stmt_decode_execute for arg parameters */
	FRAME,        /* frame_peek, then the decoder for the frame's type */
};

struct sample {
	enum kind kind;
	const char *name;
	const uint8_t *data;
	size_t len;
	unsigned arg;
	int exact; /* valid samples: every proper prefix is refused */
};

#define CASE(k, n, b, ...)                                             \
	{                                                              \
		k, n, (const uint8_t *)(b), sizeof(b) - 1, __VA_ARGS__ \
	}
/* A HandshakeResponse41's capability flags (little-endian), then max packet, charset and filler, all zero. */
#define HS_FIXED(caps) caps "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"

static const struct sample bad[] = {
	CASE(PG_STARTUP, "length below 8", "\x00\x00\x00\x04\x00\x03\x00\x00", 0),
	CASE(PG_STARTUP, "length above the cap (refused before it is all there)", "\x00\x00\x27\x11\x00\x03\x00\x00",
	     0),
	CASE(PG_STARTUP, "unknown protocol version", "\x00\x00\x00\x08\x00\x02\x00\x00", 0),
	CASE(PG_STARTUP, "SSLRequest with a body",
	     "\x00\x00\x00\x0c\x04\xd2\x16\x2f"
	     "\x00\x00\x00\x00",
	     0),
	CASE(PG_STARTUP, "CancelRequest of 12 bytes",
	     "\x00\x00\x00\x0c\x04\xd2\x16\x2e"
	     "\x00\x00\x00\x00",
	     0),
	CASE(PG_STARTUP, "no parameter list at all", "\x00\x00\x00\x08\x00\x03\x00\x00", 0),
	CASE(PG_STARTUP, "last byte is not NUL",
	     "\x00\x00\x00\x0c\x00\x03\x00\x00"
	     "user",
	     0),
	CASE(PG_STARTUP, "parameter without a value",
	     "\x00\x00\x00\x0d\x00\x03\x00\x00"
	     "user\x00",
	     0),
	CASE(PG_STARTUP, "list not terminated",
	     "\x00\x00\x00\x11\x00\x03\x00\x00"
	     "user\x00"
	     "bob\x00",
	     0),
	CASE(PG_STARTUP, "data after the terminator",
	     "\x00\x00\x00\x0b\x00\x03\x00\x00"
	     "\x00x\x00",
	     0),
	CASE(PG_STARTUP, "protocol extension _pq_",
	     "\x00\x00\x00\x12\x00\x03\x00\x00"
	     "_pq_.x\x00y\x00\x00",
	     0),
	CASE(PG_STARTUP, "duplicate parameter",
	     "\x00\x00\x00\x17\x00\x03\x00\x00"
	     "user\x00"
	     "a\x00user\x00"
	     "b\x00\x00",
	     0),
	CASE(PG_MSG, "length below 4",
	     "Q"
	     "\x00\x00\x00\x03",
	     0),
	CASE(PG_MSG, "length above the maximum",
	     "Q"
	     "\x7f\xff\xff\xff",
	     0),
	CASE(PG_MSG, "length of 2^32 - 1",
	     "Q"
	     "\xff\xff\xff\xff",
	     0),
	CASE(PG_BODY, "Query: empty body", "", 'Q'),
	CASE(PG_BODY, "Query: no terminator", "select 1", 'Q'),
	CASE(PG_BODY, "Query: NUL inside",
	     "sel\x00"
	     "ect\x00",
	     'Q'),
	CASE(PG_BODY, "SASLInitialResponse: no mechanism terminator", "SCRAM", 'p'),
	CASE(PG_BODY, "SASLInitialResponse: empty mechanism", "\x00\x00\x00\x00\x00", 'p'),
	CASE(PG_BODY, "SASLInitialResponse: truncated data length", "M\x00\x00\x00", 'p'),
	CASE(PG_BODY, "SASLInitialResponse: negative data length", "M\x00\x80\x00\x00\x00", 'p'),
	CASE(PG_BODY, "SASLInitialResponse: data past the end",
	     "M\x00\x00\x00\x00\x05"
	     "abc",
	     'p'),
	CASE(PG_BODY, "SASLInitialResponse: bytes after the data",
	     "M\x00\x00\x00\x00\x01"
	     "ab",
	     'p'),
	CASE(PG_BODY, "SASLInitialResponse: bytes after absent data", "M\x00\xff\xff\xff\xffx", 'p'),
	CASE(PG_BODY, "Parse: no name terminator", "s", 'P'),
	CASE(PG_BODY, "Parse: truncated type count", "\x00q\x00\x00", 'P'),
	CASE(PG_BODY, "Parse: two types, one present", "\x00q\x00\x00\x02\x00\x00\x00\x17", 'P'),
	CASE(PG_BODY, "Parse: type count of 65535", "\x00q\x00\xff\xff", 'P'),
	CASE(PG_BODY, "Bind: truncated formats", "\x00\x00\x00\x02\x00\x00", 'B'),
	CASE(PG_BODY, "Bind: two formats for one parameter",
	     "\x00\x00\x00\x02\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00", 'B'),
	CASE(PG_BODY, "Bind: parameter past the end",
	     "\x00\x00\x00\x00\x00\x01\x00\x00\x00\x05"
	     "ab\x00\x00",
	     'B'),
	CASE(PG_BODY, "Bind: parameter length -2", "\x00\x00\x00\x00\x00\x01\xff\xff\xff\xfe\x00\x00", 'B'),
	CASE(PG_BODY, "Bind: parameter count past the end", "\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00", 'B'),
	CASE(PG_BODY, "Bind: format code 2", "\x00\x00\x00\x01\x00\x02\x00\x00\x00\x00", 'B'),
	CASE(PG_BODY, "Bind: result formats past the end", "\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00", 'B'),
	CASE(PG_BODY, "Bind: result format code 7", "\x00\x00\x00\x00\x00\x00\x00\x01\x00\x07", 'B'),
	CASE(PG_BODY, "Describe: truncated", "S", 'D'),
	CASE(PG_BODY, "Describe: target X", "Xname\x00", 'D'),
	CASE(PG_BODY, "Close: bytes after the name", "Sname\x00x", 'C'),
	CASE(PG_BODY, "Execute: no portal terminator", "portal", 'E'),
	CASE(PG_BODY, "Execute: short row limit", "\x00\x00\x00\x00", 'E'),
	CASE(PG_BODY, "Execute: negative row limit", "\x00\x80\x00\x00\x00", 'E'),
	CASE(MY_PACKET, "length 0xffffff (a split payload)", "\xff\xff\xff\x00", 0),
	CASE(MY_PACKET, "length above the maximum, known from 3 bytes", "\x00\x00\x20", 0),
	CASE(MY_HANDSHAKE, "truncated capability flags", "\x00\x02", 0),
	CASE(MY_HANDSHAKE, "no CLIENT_PROTOCOL_41", HS_FIXED("\x00\x00\x00\x00"), 0),
	CASE(MY_HANDSHAKE, "truncated fixed fields", "\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 0),
	CASE(MY_HANDSHAKE, "ends before the user name (no CLIENT_SSL)", HS_FIXED("\x00\x02\x00\x00"), 0),
	CASE(MY_HANDSHAKE, "user name without NUL", HS_FIXED("\x00\x02\x00\x00") "root", 0),
	CASE(MY_HANDSHAKE, "lenenc auth response past the end",
	     HS_FIXED("\x00\x02\x20\x00") "u\x00\x05"
					  "ab",
	     0),
	CASE(MY_HANDSHAKE, "lenenc auth response length 0xfb", HS_FIXED("\x00\x02\x20\x00") "u\x00\xfb", 0),
	CASE(MY_HANDSHAKE, "lenenc auth response length truncated", HS_FIXED("\x00\x02\x20\x00") "u\x00\xfc\x01", 0),
	CASE(MY_HANDSHAKE, "one-byte auth response past the end",
	     HS_FIXED("\x00\x82\x00\x00") "u\x00\x14"
					  "abc",
	     0),
	CASE(MY_HANDSHAKE, "NUL-terminated auth response without NUL",
	     HS_FIXED("\x00\x02\x00\x00") "u\x00"
					  "abc",
	     0),
	CASE(MY_HANDSHAKE, "database name without NUL",
	     HS_FIXED("\x08\x82\x00\x00") "u\x00\x00"
					  "db",
	     0),
	CASE(MY_HANDSHAKE, "plugin name without NUL", HS_FIXED("\x00\x82\x08\x00") "u\x00\x00plugin", 0),
	CASE(MY_HANDSHAKE, "connection attributes past the end",
	     HS_FIXED("\x00\x82\x10\x00") "u\x00\x00\x09"
					  "ab",
	     0),
	CASE(MY_HANDSHAKE, "attribute key past its block",
	     HS_FIXED("\x00\x82\x10\x00") "u\x00\x00\x03\x05"
					  "ab",
	     0),
	CASE(MY_HANDSHAKE, "attribute without a value", HS_FIXED("\x00\x82\x10\x00") "u\x00\x00\x02\x01k", 0),
	CASE(MY_HANDSHAKE, "trailing bytes", HS_FIXED("\x00\x82\x00\x00") "u\x00\x00x", 0),
	CASE(MY_COMMAND, "empty packet", "", 0),
	CASE(MY_COMMAND, "COM_FIELD_LIST: table without NUL", "\x04tbl", 0),
	CASE(MY_COMMAND, "COM_FIELD_LIST: empty table", "\x04\x00", 0),
	CASE(MY_COMMAND, "COM_FIELD_LIST: NUL inside the wildcard",
	     "\x04t\x00"
	     "a\x00"
	     "b",
	     0),
	CASE(MY_EXECUTE, "truncated fixed fields", "\x17\x01\x00\x00\x00\x00", 0),
	CASE(MY_EXECUTE, "not COM_STMT_EXECUTE", "\x16\x01\x00\x00\x00\x00\x01\x00\x00\x00", 0),
	CASE(MY_EXECUTE, "trailing bytes without parameters", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00x", 0),
	CASE(MY_EXECUTE, "no NULL bitmap", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00", 1),
	CASE(MY_EXECUTE, "no new_params_bound byte", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00", 1),
	CASE(MY_EXECUTE, "new_params_bound of 2", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x02", 1),
	CASE(MY_EXECUTE, "types never sent", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00", 1),
	CASE(MY_EXECUTE, "truncated types", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x03", 1),
	CASE(MY_EXECUTE, "unknown type 0x99", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x99\x00", 1),
	CASE(MY_EXECUTE, "LONG value of 2 bytes", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x03\x00\x01\x02",
	     1),
	CASE(MY_EXECUTE, "DATE of length 5",
	     "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x0a\x00\x05"
	     "abcde",
	     1),
	CASE(MY_EXECUTE, "DATE length byte missing", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x0a\x00", 1),
	CASE(MY_EXECUTE, "TIME of length 7",
	     "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x0b\x00\x07"
	     "abcdefg",
	     1),
	CASE(MY_EXECUTE, "string past the end",
	     "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\xfd\x00\x05"
	     "ab",
	     1),
	CASE(MY_EXECUTE, "string length 0xfb", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\xfd\x00\xfb", 1),
	CASE(MY_EXECUTE, "string length truncated",
	     "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\xfd\x00\xfe\x01\x02", 1),
	CASE(MY_EXECUTE, "trailing bytes after the values",
	     "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x01\x00\x07x", 1),
	CASE(MY_EXECUTE, "more parameters than allowed", "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00", 1025),
	CASE(FRAME, "unknown type",
	     "Z"
	     "\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "payload above the maximum",
	     "D"
	     "\x01\x00\x00\x01",
	     0),
	CASE(FRAME, "job: 257 pairs",
	     "J"
	     "\x00\x00\x00\x02"
	     "\x01\x01",
	     0),
	CASE(FRAME, "job: fewer bytes than the pairs need",
	     "J"
	     "\x00\x00\x00\x06"
	     "\x00\x01\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "job: key past the end",
	     "J"
	     "\x00\x00\x00\x0a"
	     "\x00\x01\x00\x00\x00\x09\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "job: repeated key",
	     "J"
	     "\x00\x00\x00\x14"
	     "\x00\x02\x00\x00\x00\x01"
	     "a\x00\x00\x00\x00\x00\x00\x00\x01"
	     "a\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "job: trailing bytes",
	     "P"
	     "\x00\x00\x00\x0b"
	     "\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00x",
	     0),
	CASE(FRAME, "backend: pid 0",
	     "B"
	     "\x00\x00\x00\x04"
	     "\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "backend: trailing byte",
	     "B"
	     "\x00\x00\x00\x05"
	     "\x00\x00\x00\x01\x00",
	     0),
	CASE(FRAME, "row: value past the end",
	     "D"
	     "\x00\x00\x00\x08"
	     "\x00\x01\x00\x00\x00\x09"
	     "ab",
	     0),
	CASE(FRAME, "row: value length -2",
	     "D"
	     "\x00\x00\x00\x06"
	     "\x00\x01\xff\xff\xff\xfe",
	     0),
	CASE(FRAME, "row: more columns than bytes",
	     "D"
	     "\x00\x00\x00\x06"
	     "\x00\x03\xff\xff\xff\xff",
	     0),
	CASE(FRAME, "row: trailing bytes",
	     "D"
	     "\x00\x00\x00\x07"
	     "\x00\x01\xff\xff\xff\xffx",
	     0),
	CASE(FRAME, "rowdesc: format code 2",
	     "T"
	     "\x00\x00\x00\x18"
	     "\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02",
	     0),
	CASE(FRAME, "paramdesc: count past the OIDs",
	     "S"
	     "\x00\x00\x00\x06"
	     "\x00\x02\x00\x00\x00\x17",
	     0),
	CASE(FRAME, "paramdesc: a partial OID",
	     "S"
	     "\x00\x00\x00\x05"
	     "\x00\x01\x00\x00\x17",
	     0),
	CASE(FRAME, "copy start: format 2",
	     "O"
	     "\x00\x00\x00\x03"
	     "\x02\x00\x00",
	     0),
	CASE(FRAME, "copy start: column format 2",
	     "O"
	     "\x00\x00\x00\x05"
	     "\x00\x00\x01\x00\x02",
	     0),
	CASE(FRAME, "copy start: count past the formats",
	     "O"
	     "\x00\x00\x00\x05"
	     "\x00\x00\x02\x00\x00",
	     0),
	CASE(FRAME, "paramdesc: no count",
	     "S"
	     "\x00\x00\x00\x01"
	     "\x00",
	     0),
	CASE(FRAME, "rowdesc: more columns than bytes",
	     "T"
	     "\x00\x00\x00\x02"
	     "\x00\x05",
	     0),
	CASE(FRAME, "rowdesc: trailing bytes",
	     "T"
	     "\x00\x00\x00\x19"
	     "\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00x",
	     0),
	CASE(FRAME, "mycols: truncated column",
	     "K"
	     "\x00\x00\x00\x18"
	     "\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "complete: truncated of 3",
	     "C"
	     "\x00\x00\x00\x0d"
	     "\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "complete: tag past the end",
	     "C"
	     "\x00\x00\x00\x10"
	     "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04SEL",
	     0),
	CASE(FRAME, "complete: half a warning count",
	     "C"
	     "\x00\x00\x00\x0e"
	     "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "error: sqlstate of 4 characters",
	     "E"
	     "\x00\x00\x00\x18"
	     "\x00\x00\x00\x04"
	     "1234\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "error: lower-case sqlstate",
	     "N"
	     "\x00\x00\x00\x19"
	     "\x00\x00\x00\x05"
	     "4200a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "error: position not a number",
	     "E"
	     "\x00\x00\x00\x1f"
	     "\x00\x00\x00\x05"
	     "42000\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02"
	     "1x",
	     0),
	CASE(FRAME, "error: empty my_errno",
	     "E"
	     "\x00\x00\x00\x21"
	     "\x00\x00\x00\x05"
	     "42000\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
	     0),
	CASE(FRAME, "error: my_errno above 65535",
	     "E"
	     "\x00\x00\x00\x26"
	     "\x00\x00\x00\x05"
	     "42000\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05"
	     "65536",
	     0),
	CASE(FRAME, "cancel with a payload",
	     "X"
	     "\x00\x00\x00\x01"
	     "x",
	     0),
};

static const struct sample good[] = {
	CASE(PG_STARTUP, "startup packet",
	     "\x00\x00\x00\x1d\x00\x03\x00\x00"
	     "user\x00"
	     "bob\x00"
	     "database\x00"
	     "d\x00\x00",
	     0, 1),
	CASE(PG_MSG, "Query message",
	     "Q"
	     "\x00\x00\x00\x0d"
	     "select 1\x00",
	     0, 1),
	CASE(PG_BODY, "Bind", "p\x00s\x00\x00\x01\x00\x01\x00\x02\x00\x00\x00\x02hi\xff\xff\xff\xff\x00\x01\x00\x00",
	     'B', 1),
	CASE(PG_BODY, "Parse", "s\x00select $1\x00\x00\x01\x00\x00\x00\x17", 'P', 1),
	CASE(PG_BODY, "SASLInitialResponse", "SCRAM-SHA-256\x00\x00\x00\x00\x03n,,", 'p', 1),
	CASE(PG_BODY, "Execute", "portal\x00\x00\x00\x00\x0a", 'E', 1),
	CASE(MY_PACKET, "packet",
	     "\x03\x00\x00\x00"
	     "\x03"
	     "ab",
	     0, 1),
	CASE(MY_HANDSHAKE, "HandshakeResponse41 with every field",
	     HS_FIXED("\x08\x82\x3a\x00") "root\x00\x03"
					  "abcdb\x00"
					  "caching_sha2_password\x00\x06\x01k\x03val",
	     0, 0),
	CASE(MY_EXECUTE, "COM_STMT_EXECUTE of four types",
	     "\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x03\x00\x0a\x00\xfd\x00\x08\x80\x07\x00\x00\x00\x04\xe8"
	     "\x07\x01\x02\x02hi\x01\x02\x03\x04\x05\x06\x07\x08",
	     4, 1),
	CASE(FRAME, "job frame",
	     "J"
	     "\x00\x00\x00\x15"
	     "\x00\x01\x00\x00\x00\x03sql\x00\x00\x00\x08select 1",
	     0, 1),
	CASE(FRAME, "row frame",
	     "D"
	     "\x00\x00\x00\x0b"
	     "\x00\x02\x00\x00\x00\x01"
	     "1\xff\xff\xff\xff",
	     0, 1),
	CASE(FRAME, "rowdesc frame",
	     "T"
	     "\x00\x00\x00\x1a"
	     "\x00\x01\x00\x00\x00\x02id\x00\x00\x00\x00\x00\x00\x00\x00\x00\x17\x00\x04\xff\xff\xff\xff\x00\x00",
	     0, 1),
	CASE(FRAME, "error frame with position and my_errno",
	     "E"
	     "\x00\x00\x00\x26"
	     "\x00\x00\x00\x05"
	     "42000\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01"
	     "7\x00\x00\x00\x04"
	     "1064",
	     0, 0),
};

static struct my_stmt_execute exec_out;

/* What a decoder said about one input. */
enum verdict { V_OK, V_MORE, V_ERR };

static enum verdict pg_body(uint8_t type, const uint8_t *p, size_t len)
{
	struct pg_msg m = {.type = type, .body_len = (uint32_t)len, .body = p};
	const char *err = NULL, *s;
	const uint8_t *d;
	struct pg_parse parse;
	struct pg_bind bind;
	struct pg_bind_value vals[8];
	enum pg_status st;
	int32_t dlen;
	uint32_t rows;
	char kind;

	switch (type) {
	case 'Q':
		st = pg_parse_query(&m, &s, &err);
		break;
	case 'p':
		st = pg_parse_sasl_initial(&m, &s, &d, &dlen, &err);
		break;
	case 'P':
		st = pg_parse_parse(&m, &parse, &err);
		if (st == PG_OK)
			(void)pg_parse_type_at(&parse, 0);
		break;
	case 'B':
		st = pg_parse_bind(&m, &bind, &err);
		if (st == PG_OK)
			assert_int_equal(pg_bind_values(&bind, vals, 8), PG_OK);
		break;
	case 'D':
	case 'C':
		st = pg_parse_describe(&m, &kind, &s, &err);
		break;
	default:
		st = pg_parse_execute(&m, &s, &rows, &err);
		break;
	}
	if (st == PG_ERR)
		assert_non_null(err);
	return st == PG_OK ? V_OK : V_ERR;
}

static enum verdict frame_body(const struct frame *f)
{
	struct frame_job job;
	struct frame_complete c;
	struct frame_error e;
	struct rbuf cur;
	uint16_t n;
	enum frame_status st;

	switch (f->type) {
	case FRAME_JOB:
	case FRAME_CONNECT:
		st = frame_decode_job(f, &job);
		break;
	case FRAME_ROWDESC:
		st = frame_rowdesc_begin(f, &n, &cur);
		break;
	case FRAME_MYCOLS:
		st = frame_mycols_begin(f, &n, &cur);
		break;
	case FRAME_PARAMDESC:
		st = frame_paramdesc_begin(f, &n, &cur);
		break;
	case FRAME_COPY_START: {
		uint8_t format;

		st = frame_copy_start_begin(f, &format, &n, &cur);
		break;
	}
	case FRAME_ROW:
		st = frame_row_check(f, &n);
		break;
	case FRAME_COMPLETE:
		st = frame_decode_complete(f, &c);
		break;
	case FRAME_ERROR:
	case FRAME_NOTICE:
		st = frame_decode_error(f, &e);
		break;
	case FRAME_BACKEND: {
		struct frame_backend be;

		st = frame_decode_backend(f, &be);
		break;
	}
	default:
		st = frame_check_cancel(f);
		break;
	}
	return st == FRAME_OK ? V_OK : V_ERR;
}

static enum verdict decode(enum kind kind, unsigned arg, const uint8_t *p, size_t len)
{
	struct pg_startup startup;
	struct pg_msg msg;
	struct my_packet pkt;
	struct my_handshake_response hs;
	struct my_command cmd;
	struct frame f;
	const char *err = NULL;
	size_t used, needed;
	int st;

	switch (kind) {
	case PG_STARTUP:
		st = pg_decode_startup(p, len, PG_MAX_MSG, &startup, &used, &err);
		return st == PG_OK ? V_OK : st == PG_NEED_MORE ? V_MORE : V_ERR;
	case PG_MSG:
		st = pg_decode_msg(p, len, PG_MAX_MSG, &msg, &used, &err);
		return st == PG_OK ? V_OK : st == PG_NEED_MORE ? V_MORE : V_ERR;
	case PG_BODY:
		return pg_body((uint8_t)arg, p, len);
	case MY_PACKET:
		st = my_packet_peek(p, len, MY_MAX_PACKET, &pkt, &used, &needed);
		return st == MY_OK ? V_OK : st == MY_NEED_MORE ? V_MORE : V_ERR;
	case MY_HANDSHAKE:
		st = my_decode_handshake_response(p, len, &hs, &err);
		if (st != MY_OK)
			assert_non_null(err);
		return st == MY_OK ? V_OK : V_ERR;
	case MY_COMMAND:
		st = my_decode_command(p, len, &cmd, &err);
		return st == MY_OK ? V_OK : V_ERR;
	case MY_EXECUTE:
		st = my_stmt_decode_execute(p, len, (uint16_t)arg, NULL, &exec_out, NULL, &err);
		return st == MY_OK ? V_OK : V_ERR;
	default:
		st = frame_peek(p, len, FRAME_MAX_PAYLOAD, &f, &used);
		if (st != FRAME_OK)
			return st == FRAME_NEED_MORE ? V_MORE : V_ERR;
		return frame_body(&f);
	}
}

/* Decodes n bytes of data from a heap copy of exactly n bytes. */
static enum verdict decode_copy(enum kind kind, unsigned arg, const uint8_t *data, size_t n)
{
	uint8_t *copy = malloc(n ? n : 1);
	enum verdict v;

	assert_non_null(copy);
	memcpy(copy, data, n);
	v = decode(kind, arg, copy, n);
	free(copy);
	return v;
}

static void test_malformed_refused(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (decode_copy(bad[i].kind, bad[i].arg, bad[i].data, bad[i].len) != V_ERR)
			fail_msg("malformed case #%zu not refused: %s", i, bad[i].name);
}

/* A row frame of 1665 columns, one more than FRAME_MAX_COLS (too long for the table). */
static void test_frame_too_many_columns(void **state)
{
	size_t n = 1665, len = 2 + 4 * n, i;
	uint8_t *buf = malloc(FRAME_HEADER_LEN + len);

	(void)state;
	assert_non_null(buf);
	buf[0] = FRAME_ROW;
	buf[1] = 0;
	buf[2] = 0;
	buf[3] = (uint8_t)(len >> 8);
	buf[4] = (uint8_t)len;
	buf[5] = (uint8_t)(n >> 8);
	buf[6] = (uint8_t)n;
	for (i = 0; i < n; i++)
		memset(buf + 7 + 4 * i, 0xff, 4);
	assert_int_equal(decode_copy(FRAME, 0, buf, FRAME_HEADER_LEN + len), V_ERR);
	free(buf);
}

/*
 * Each valid sample decodes; every proper prefix of it is incomplete (for
 * the decoders that find a message's end) or refused (for those given a
 * whole body, when every field is required).
 */
static void test_truncations(void **state)
{
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		const struct sample *g = &good[i];
		bool framed = g->kind == PG_STARTUP || g->kind == PG_MSG || g->kind == MY_PACKET || g->kind == FRAME;

		if (decode_copy(g->kind, g->arg, g->data, g->len) != V_OK)
			fail_msg("valid sample #%zu refused: %s", i, g->name);
		for (n = 0; n < g->len; n++) {
			enum verdict v = decode_copy(g->kind, g->arg, g->data, n);

			if (framed && v != V_MORE)
				fail_msg("%s: a prefix of %zu bytes is not incomplete", g->name, n);
			if (!framed && g->exact && v != V_ERR)
				fail_msg("%s: a prefix of %zu bytes is not refused", g->name, n);
		}
		/* A frame's payload cut short, with the header still claiming the rest. */
		if (g->kind == FRAME) {
			for (n = 0; n + FRAME_HEADER_LEN < g->len; n++) {
				uint8_t *copy = malloc(n ? n : 1);
				struct frame f = {.type = g->data[0], .len = (uint32_t)n, .payload = copy};

				assert_non_null(copy);
				memcpy(copy, g->data + FRAME_HEADER_LEN, n);
				if (frame_body(&f) != V_ERR && g->exact)
					fail_msg("%s: a payload of %zu bytes is not refused", g->name, n);
				free(copy);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malformed_refused),
		cmocka_unit_test(test_frame_too_many_columns),
		cmocka_unit_test(test_truncations),
	};

	return cmocka_run_group_tests_name("malformed", tests, NULL, NULL);
}
