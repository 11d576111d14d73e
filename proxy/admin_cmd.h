/*
 * admin_cmd: the admin console's command line (the text of one simple
 * Query on the virtual database "airlock") into a command. Pure: no
 * server, no allocation. Words are separated by spaces, tabs or newlines
 * and matched without regard to case; one trailing semicolon may follow.
 * A line longer than ADMIN_CMD_MAX bytes is refused unread.
 */
#ifndef AIRLOCK_PROXY_ADMIN_CMD_H
#define AIRLOCK_PROXY_ADMIN_CMD_H

#include <stddef.h>
#include <stdint.h>

#define ADMIN_CMD_MAX 256

/*
 * The commands, from one list so their names cannot drift: the enum's
 * tail, the tag answered, the words (a second word NULL: none; "": a number).
 */
#define ADMIN_CMDS(X)                                      \
	X(SHOW_POOLS, "SHOW POOLS", "SHOW", "POOLS")       \
	X(SHOW_STATS, "SHOW STATS", "SHOW", "STATS")       \
	X(SHOW_CLIENTS, "SHOW CLIENTS", "SHOW", "CLIENTS") \
	X(SHOW_JOBS, "SHOW JOBS", "SHOW", "JOBS")          \
	X(SHOW_CONFIG, "SHOW CONFIG", "SHOW", "CONFIG")    \
	X(SHOW_USERS, "SHOW USERS", "SHOW", "USERS")       \
	X(SHOW_PEERS, "SHOW PEERS", "SHOW", "PEERS")       \
	X(RELOAD, "RELOAD", "RELOAD", NULL)                \
	X(PAUSE, "PAUSE", "PAUSE", NULL)                   \
	X(RESUME, "RESUME", "RESUME", NULL)                \
	X(KILL_CLIENT, "KILL_CLIENT", "KILL_CLIENT", "")   \
	X(SHUTDOWN, "SHUTDOWN", "SHUTDOWN", "WAIT_FOR_CLIENTS")

enum admin_cmd_kind {
	ADMIN_CMD_UNKNOWN, /* not a command of the console */
	ADMIN_CMD_BAD,     /* a command's words, wrongly used (why says how) */
#define ADMIN_CMD_ENUM(name, tag, w1, w2) ADMIN_CMD_##name,
	ADMIN_CMDS(ADMIN_CMD_ENUM)
#undef ADMIN_CMD_ENUM
};

struct admin_cmd {
	enum admin_cmd_kind kind;
	uint32_t id;     /* KILL_CLIENT: the session's id */
	const char *why; /* ADMIN_CMD_BAD and ADMIN_CMD_UNKNOWN: a static explanation */
};

/* Parses text (NUL-terminated, borrowed) into *out; returns out->kind. */
enum admin_cmd_kind admin_cmd_parse(const char *text, struct admin_cmd *out);
/* The command's words as one tag ("SHOW POOLS", "KILL_CLIENT"); "" for UNKNOWN and BAD. Static. */
const char *admin_cmd_name(enum admin_cmd_kind kind);

#endif
