/*
 * pg_settings: the session settings a Postgres session keeps in the proxy
 * (SET / RESET / SHOW answered locally), which of them are reported to the
 * client as ParameterStatus, and which are applied to every job with
 * set_config(). Settings not in the table cannot be changed.
 *
 * Compact, since every idle session holds one: a value equal to its
 * default is not stored (the table's default is read instead), others are
 * heap strings the struct owns. So a copy (BEGIN's snapshot) is made with
 * pgs_dup, and every struct pgs_init or pgs_dup filled is let go with
 * pgs_free; a plain struct assignment moves ownership.
 */
#ifndef AIRLOCK_PROXY_PG_SETTINGS_H
#define AIRLOCK_PROXY_PG_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "proxy/job/job.h"

#define PGS_VALUE_MAX 256
#define PGS_MAX_PATH 16

enum pgs_flags {
	PGS_REPORT = 1 << 0,  /* sent as ParameterStatus at start-up and on change */
	PGS_FORWARD = 1 << 1, /* applied to each job when set (search_path: always) */
	PGS_FIXED = 1 << 2,   /* only its one value is accepted */
	PGS_MS = 1 << 3,      /* a duration (ms when no unit), checked and shown as Postgres does */
};

struct pgs_def {
	const char *name;    /* lower-case, as SET/SHOW name it */
	const char *display; /* as ParameterStatus and SHOW's column name spell it */
	const char *default_value;
	unsigned flags;
};

extern const struct pgs_def pgs_defs[];
extern const size_t pgs_ndefs;

/* The values that differ from their defaults; NULL where a setting has its default. */
struct pgs_slots {
	char *value[32]; /* owned */
	char *reset[32]; /* value RESET returns to (start-up value or default); owned */
};

struct pg_settings {
	struct pgs_slots *slots; /* owned; NULL while every setting has its default */
	const char *user;        /* session_authorization's value (borrowed: the session's user name) */
	uint32_t changed;        /* bit i: differs from the backend default, so it is forwarded */
	/* search_path as schema names, for the validator: npath of them, each NUL-terminated, one after another */
	char *path; /* owned; NULL when npath is 0 */
	size_t npath;
};

/*
 * Defaults; user is the session's user name (session_authorization),
 * borrowed for s's life. -1 when out of memory (s is then empty).
 */
int pgs_init(struct pg_settings *s, const char *user);
/* A copy of src in dst (not initialised before). -1 when out of memory (dst is then empty). */
int pgs_dup(struct pg_settings *dst, const struct pg_settings *src);
/* Frees what s owns; s is then empty (every value its default, no search path). */
void pgs_free(struct pg_settings *s);
/* The value of setting i (pgs_defs order). */
const char *pgs_value(const struct pg_settings *s, size_t i);
/* Index of name in pgs_defs (case-insensitive), or -1. */
int pgs_find(const char *name);

/*
 * SET name = value. Returns 0, or -1 with code, its SQLSTATE and an actionable
 * message that starts with the code's name. *reported is set when a ParameterStatus must be sent.
 * at_startup: a start-up packet parameter (also sets the RESET value).
 */
int pgs_set(struct pg_settings *s, const char *name, const char *value, bool at_startup, bool *reported,
	    const char **sqlstate, enum airlock_err *code, char *msg, size_t msglen);
/*
 * The end of a transaction block that began with begin: each setting whose
 * bit is in local (SET LOCAL, pgs_defs order) takes its value at begin
 * again; the others keep theirs. reverted receives the bits that changed.
 */
void pgs_end_local(struct pg_settings *s, const struct pg_settings *begin, uint32_t local, uint32_t *reverted);
/* RESET name (or "all"). Returns 0 or -1 (unknown name, or out of memory; message in msg). */
int pgs_reset(struct pg_settings *s, const char *name, char *msg, size_t msglen);
/* Value for SHOW, or NULL when the proxy does not keep name. */
const char *pgs_show(const struct pg_settings *s, const char *name, const char **display);

/* Settings to apply in a job; out must hold pgs_ndefs entries; pointers into s. */
size_t pgs_job_settings(const struct pg_settings *s, struct job_setting *out);
/* Search path for the validator; out must hold PGS_MAX_PATH pointers into s. */
size_t pgs_search_path(const struct pg_settings *s, const char **out);

/*
 * A duration setting (PGS_MS) in ms, 0 meaning none. statement_timeout
 * bounds each job within the user's timeout_ms; the idle timeouts are
 * airlock's own to enforce.
 */
uint64_t pgs_ms(const struct pg_settings *s, const char *name);
/* Postgres' reading of a duration: a number and an optional unit (us, ms, s, min, h, d). -1 when invalid. */
int pgs_parse_ms(const char *value, uint64_t *ms);

/* The allowed setting names, comma-separated, for hints. */
const char *pgs_allowed_names(void);

#endif
