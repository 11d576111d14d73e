/*
 * config_internal: what the conf/ files share while one load is running.
 * Nothing here is part of the module's API (tests read the key table).
 * A struct conf_ctx lives on the loader's stack for one load; the struct
 * airlock_config it fills is owned by the loader until it is handed to the
 * caller or freed on failure.
 */
#ifndef AIRLOCK_CONF_CONFIG_INTERNAL_H
#define AIRLOCK_CONF_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"

/* Largest config file and password file accepted. */
#define CONF_MAX_FILE (1024 * 1024)
#define CONF_MAX_PASSWORD 4096
/* Longest target/user name, host name and identifier. */
#define CONF_MAX_NAME 63
#define CONF_MAX_HOST 253
/* Longest line, comments aside (the documented rule); inih's line buffer. */
#define CONF_MAX_LINE 197
#define CONF_INI_BUFFER 4096
/* Rows the key table may have (struct conf_seen keeps a line per row). */
#define CONF_MAX_KEYS 128

enum conf_section {
	SECT_NONE, /* before the first header */
	SECT_BAD,  /* after a header that was refused: its keys are skipped */
	SECT_SERVER,
	SECT_HOSTS,
	SECT_TARGET,
	SECT_USER,
	SECT_APPROVER,
	SECT_ADMIN,
};

/*
 * How a key's value is checked and where it goes. off is the field in the
 * section's struct (struct airlock_config for [server] and [hosts]);
 * types that fill more than one field say what off2 and off3 are.
 */
enum conf_type {
	CT_U16,
	CT_U32,
	CT_U64,
	CT_CPUS,          /* decimal CPUs into nano-CPUs (uint64_t) */
	CT_TEXT,          /* non-empty string */
	CT_HOST,          /* host name or IP literal */
	CT_PATH,          /* relative paths resolve against the config file's directory */
	CT_AUDIT,         /* "-" or a path */
	CT_IMAGE,         /* pinned by digest */
	CT_ROOTFS,        /* /path@sha256:<64 hex>, an OCI root filesystem archive pinned by digest */
	CT_RUNTIME,       /* "docker" or "oci" */
	CT_ENGINE,        /* "postgres" or "mariadb" (synonyms accepted) */
	CT_WRITES,        /* "deny" or "approve" */
	CT_SCRAM,         /* a SCRAM-SHA-256 verifier */
	CT_MY_NATIVE,     /* "*" + 40 hex */
	CT_LISTEN,        /* host:port: host (char *) at off, port (uint16_t) at off2 */
	CT_UID_RANGE,     /* FIRST-LAST, not 0, no host account: text at off, first and last (uint32_t) at off2, off3 */
	CT_PASSWORD_FILE, /* resolved path at off, the password read from it at off2 */
	CT_TARGET_REF,    /* a target name, kept at off in struct conf_user_meta, resolved at the end */
	CT_HOST_LIST,     /* lists: char ** at off, size_t count at off2 */
	CT_TABLE_LIST,
	CT_MY_TABLE_LIST,
	CT_MY_FUNCS, /* sleep sets the bool at off, benchmark the bool at off2 */
	CT_BOOL,     /* on/off, true/false, yes/no, 1/0 into a bool at off */
	/* Prefix keys ("filter public.orders"): the rest of the name says which table (and column). Rules at off,
	 * count at off2; off3 is 1 for MySQL names (db.table, case kept). */
	CT_RULE_FILTER,
	CT_RULE_COLUMNS,
	CT_RULE_MASK,
	CT_WEBHOOK_URL, /* an https URL (http only to a loopback address), parsed with curl's URL parser */
	CT_SECRET_FILE, /* like CT_PASSWORD_FILE, and the file must be open to its owner only */
	CT_SSLMODE,     /* disable, require, verify-ca, verify-full (MySQL's ssl-mode names accepted) */
	CT_CA_FILE,     /* resolved path at off, the PEM certificates read from it at off2 */
	CT_PEER_LIST,   /* "ID=ADDRESS:PORT" entries: char ** at off, size_t count at off2 */
	CT_CONNINFO,    /* a libpq connection string that holds no password */
};

#define CONF_REQUIRED 0x1u  /* the section is incomplete without it */
#define CONF_NO_RELOAD 0x2u /* bound at start-up: a reload that changes it is refused */
#define CONF_PREFIX 0x4u    /* the name is a prefix ending in a space; it may be set once per suffix */

/* One row per key: everything about it lives here and nowhere else. */
struct conf_key {
	const char *name;
	enum conf_section sect;
	enum conf_type type;
	size_t off, off2, off3; /* where it is stored: see enum conf_type */
	unsigned flags;         /* CONF_REQUIRED, CONF_NO_RELOAD */
	const char *def;        /* the default, written as in the file; NULL: none */
	uint64_t min, max;      /* numbers only */
	const char *expect;     /* what a valid value looks like (numbers: built from min/max) */
};

/* The table (config_keys.c), in the order keys are listed in messages. */
extern const struct conf_key conf_keys[];
extern const size_t conf_nkeys;

/* Where each key of one section was set (0 = not set), for messages and duplicates. */
struct conf_seen {
	unsigned header_line;
	unsigned key_line[CONF_MAX_KEYS]; /* indexed like conf_keys */
};

/* Per-user state that only lives during the load. */
struct conf_user_meta {
	struct conf_seen seen;
	char *target_name;             /* owned; resolved into user->target at the end */
	char *mysql_target_name;       /* owned; resolved into user->mysql_target at the end */
	char *write_target_name;       /* owned; resolved into user->write_target at the end */
	char *mysql_write_target_name; /* owned; resolved into user->mysql_write_target at the end */
};

struct conf_ctx {
	struct airlock_config *cfg; /* being filled */
	struct config_errors *errs;
	const char *base_dir; /* relative paths resolve against it */

	/* the text and the reader's cursor */
	const char *text;
	size_t len;
	size_t pos;
	unsigned line;                   /* physical line last handed to inih */
	bool continuation;               /* that line was handed on as a continuation of list_key */
	const struct conf_key *list_key; /* the list key set last: indented lines continue it */

	enum conf_section cur;
	size_t cur_index;       /* index into targets/users for SECT_TARGET/SECT_USER */
	const char *key_suffix; /* a CONF_PREFIX key: what follows the prefix in the name being set */

	struct conf_seen server_seen;
	struct conf_seen hosts_seen;
	struct conf_seen *target_seen;    /* parallel to cfg->targets */
	struct conf_user_meta *user_meta; /* parallel to cfg->users */
	struct conf_seen *approver_seen;  /* parallel to cfg->approvers */
	size_t cap_targets;
	size_t cap_users;
	size_t cap_approvers;
	struct conf_seen *admin_seen; /* parallel to cfg->admins */
	size_t cap_admins;
};

/* Records one problem; line 0 means "no line". */
void conf_err(struct conf_ctx *ctx, unsigned line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- row filters and column policies (config_rules.c) ---- */

/* Stores one filter / columns / mask key (ctx->key_suffix names the table or table.column). */
void conf_set_rule(struct conf_ctx *ctx, const struct conf_key *k, void *base, const char *label, const char *value);
/* Frees count rules at *rules. */
void conf_free_rules(struct airlock_rule *rules, size_t count);

/* Runs inih over ctx->text, filling ctx->cfg and recording problems (config_parse.c). */
void conf_parse(struct conf_ctx *ctx);

/* ---- the key table (config_keys.c) ---- */

/* The row for name (case-insensitive) in section s, or NULL. */
const struct conf_key *conf_find_key(enum conf_section s, const char *name);
/* Stores every default of section s into base (the section's struct). */
void conf_apply_defaults(struct conf_ctx *ctx, enum conf_section s, void *base);
/* Reports each required key of section s that seen says was never set. */
void conf_check_required(struct conf_ctx *ctx, enum conf_section s, const struct conf_seen *seen, const char *label);
/* The line key was set on in a section of kind s, else the section's header line. */
unsigned conf_key_line(enum conf_section s, const struct conf_seen *seen, const char *key);
/* "engine, host, port, ..." into buf: the keys section s knows. */
void conf_key_names(enum conf_section s, char *buf, size_t cap);
/* Frees what every key of section s stored in base (not base itself). */
void conf_free_fields(enum conf_section s, void *base);

/* ---- storing one value (config_store.c) ---- */

/* Checks value against k and stores it into base, the section's struct. */
void conf_set(struct conf_ctx *ctx, const struct conf_key *k, void *base, const char *label, const char *value);
/* True when k's value in a and in b (two structs of k's section) is the same. */
bool conf_field_equal(const struct conf_key *k, const void *a, const void *b);
/* Frees what k stored in base. */
void conf_field_free(const struct conf_key *k, void *base);
/* True for list types: an indented line continues them. */
bool conf_type_is_list(enum conf_type t);
/* Writes what a valid value of k looks like into buf (or returns k->expect). */
const char *conf_expect_text(const struct conf_key *k, char *buf, size_t cap);

/* ---- value parsers (config_value.c); each returns 0, or -1 when s is not valid ---- */

/* Decimal digits only, no sign, within [min, max]. */
int conf_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* "0.5", "2", "1.25" (up to 9 decimals) into nano-CPUs within [min, max]. */
int conf_parse_cpus(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* "host:port" or "[ipv6]:port"; *host is allocated (caller frees). */
int conf_parse_listen(const char *s, char **host, uint16_t *port);
/*
 * Reads the regular file at path (open to its owner only when
 * private_only) into buf, which holds max + 1 bytes: 0 with its length in
 * *len (at most max; buf is not NUL-terminated), or -1 with *why set, the
 * message too_big for a file of more than max bytes. On -1 buf may hold
 * part of the file: a caller reading a secret wipes it.
 */
int conf_read_file(const char *path, bool private_only, char *buf, size_t max, size_t *len, const char *too_big,
		   const char **why);
/* peer_id and peers together: ids distinct, none the node's own (config_peers.c). */
struct conf_ctx;
void conf_finish_peers(struct conf_ctx *ctx);
/* "ID=ADDRESS:PORT" (ID 1-255, ADDRESS an IPv4 or [IPv6] literal); *host is allocated (caller frees). */
int conf_parse_peer(const char *s, uint32_t *id, char **host, uint16_t *port);
/* NULL when s is a libpq connection string (key=value or URI) without a password; else why not. */
const char *conf_check_conninfo(const char *s);
/* "uid:gid", numeric; *uid receives the uid so the caller can refuse 0. */
int conf_parse_uid_range(const char *s, uint32_t *first, uint32_t *last);
/* A host account (passwd) or group whose id is in [first, last]: its name in who, and true. */
bool conf_host_id_in_range(uint32_t first, uint32_t last, char *who, size_t wholen);
/* A host name or IP literal: 1..253 characters from [A-Za-z0-9.:_-]. */
bool conf_valid_host(const char *s);
/* A target/user name: 1..63 characters from [A-Za-z0-9_.@-]. */
bool conf_valid_name(const char *s);
/* True when s is non-empty and has no control characters. */
bool conf_valid_text(const char *s);

/*
 * Normalises one table allowlist entry: identifier[.identifier|.*], lower
 * case, "public." added when unqualified. Returns an allocated string, or
 * NULL when the entry is malformed (or memory ran out: *oom is set).
 */
char *conf_normalise_table(const char *entry, bool *oom);

/*
 * Checks one MySQL allowlist entry: db.table or db.* with identifiers of
 * [A-Za-z0-9_$] (case kept: MariaDB compares names case-sensitively).
 * Returns an allocated copy, or NULL (see conf_normalise_table).
 */
char *conf_mysql_table(const char *entry, bool *oom);
/* "*" followed by 40 hex digits: a mysql_native_password hash. */
bool conf_valid_mysql_native(const char *s);

/*
 * Splits a comma-separated list and appends each trimmed entry to *items,
 * passing it through map when map is not NULL. One trailing comma is
 * allowed. Returns 0; -1 with *bad set to the offending entry (allocated,
 * caller frees) when an entry is empty or refused by map; -2 when memory
 * ran out. Entries appended before a failure stay in *items.
 */
int conf_list_append(const char *value, char ***items, size_t *n, char *(*map)(const char *entry, bool *oom),
		     char **bad);

/* Joins base_dir and path unless path is absolute. Allocated, or NULL. */
char *conf_resolve_path(const char *base_dir, const char *path);

/*
 * Reads a password file: one line, trailing CR/LF stripped. Returns an
 * allocated string, or NULL with *why set to a static reason. The reason
 * never contains the file's content.
 */
char *conf_read_password(const char *path, const char **why);

/* Same, for a key (e.g. a signing key): the file must also be open to its owner only. */
char *conf_read_secret(const char *path, const char **why);

/*
 * Reads a CA file (config_ca.c): PEM certificates only, at most
 * CONF_MAX_CA_BYTES. Returns its text (allocated), or NULL with *why set
 * to a static reason.
 */
char *conf_read_ca(const char *path, const char **why);

/*
 * Checks an approval_webhook URL: absolute, https (http only to a loopback
 * address literal), a host, no user name or password. NULL with *host set
 * (allocated, caller frees; an IPv6 address without its brackets), or a
 * static reason and *host NULL.
 */
const char *conf_parse_webhook_url(const char *s, char **host);

/* Frees a counted string array and the array itself. */
void conf_free_list(char **items, size_t n);

#endif
