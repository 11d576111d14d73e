/*
 * config_parse: the INI text into struct airlock_config, one key at a time.
 *
 * inih splits lines into key = value and calls on_key. It is fed through
 * line_reader, which counts lines (this inih build does not pass line
 * numbers to handlers), sees section headers itself (inih reports empty
 * sections to nobody), cuts "#" and ";" comments, refuses lines inih would
 * truncate, and lets an indented line continue only a list key (tables,
 * allow). Each section's keys are one table: name, kind, where it goes,
 * range, whether it is required, and what a valid value looks like.
 */
#define _GNU_SOURCE
#include "conf/config_internal.h"

#include <ctype.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "protocol/scram.h"

enum key_kind {
	K_U16,
	K_U32,
	K_U64,
	K_CPUS,        /* decimal CPUs into nano-CPUs (uint64_t) */
	K_TEXT,        /* non-empty string */
	K_HOST,        /* host name or IP literal */
	K_PATH,        /* relative paths resolve against the config file's directory */
	K_AUDIT,       /* "-" or a path */
	K_LISTEN,      /* host:port into pg_listen_host/pg_listen_port */
	K_MY_LISTEN,   /* host:port into mysql_listen_host/mysql_listen_port */
	K_IMAGE,       /* pinned by digest */
	K_RUNNER_USER, /* numeric uid:gid, uid not 0 */
	K_ENGINE,
	K_PASSWORD_FILE,
	K_SCRAM,
	K_TARGET_REF,  /* a target name, resolved at the end */
	K_HOST_LIST,
	K_TABLE_LIST,
	K_MY_NATIVE,     /* "*" + 40 hex */
	K_MY_TARGET_REF, /* a target name with engine mariadb, resolved at the end */
	K_MY_TABLE_LIST,
	K_MY_FUNC_LIST,  /* sleep, benchmark */
};

struct conf_key {
	const char *name;
	enum key_kind kind;
	size_t off;           /* offset in the section's struct */
	uint64_t min, max;    /* numbers only */
	bool required;
	const char *expect;   /* what a valid value looks like (numbers: built from min/max) */
};

#define CFG(field) offsetof(struct airlock_config, field)
#define TGT(field) offsetof(struct airlock_target, field)
#define USR(field) offsetof(struct airlock_user, field)
#define MIB (1024ull * 1024)
#define NANO 1000000000ull

static const struct conf_key server_keys[] = {
	{ "pg_listen", K_LISTEN, 0, 0, 0, true,
	  "host:port with an IPv4 address, localhost or [IPv6 address], e.g. 127.0.0.1:6432" },
	{ "mysql_listen", K_MY_LISTEN, 0, 0, 0, false,
	  "host:port with an IPv4 address, localhost or [IPv6 address], e.g. 127.0.0.1:3307" },
	{ "max_connections", K_U32, CFG(max_connections), 1, 1000000, false, NULL },
	{ "max_message_bytes", K_U32, CFG(max_message_bytes), 1024, 64 * MIB, false, NULL },
	{ "job_dir", K_PATH, CFG(job_dir), 0, 0, false, "a directory path" },
	{ "docker_socket", K_PATH, CFG(docker_socket), 0, 0, false, "the Docker engine's unix socket path" },
	{ "runner_image", K_IMAGE, CFG(runner_image), 0, 0, true,
	  "an image pinned by digest: sha256:<64 hex> or NAME@sha256:<64 hex>" },
	{ "runner_user", K_RUNNER_USER, CFG(runner_user), 0, 0, false,
	  "a numeric uid:gid other than root, e.g. 65534:65534" },
	{ "kill_margin_ms", K_U32, CFG(kill_margin_ms), 100, 600000, false, NULL },
	{ "pool_size", K_U32, CFG(pool_size), 0, 1024, false, NULL },
	{ "max_jobs", K_U32, CFG(max_jobs), 1, 4096, false, NULL },
	{ "audit_log", K_AUDIT, CFG(audit_log), 0, 0, false, "\"-\" for stderr, or a file path" },
};

static const struct conf_key hosts_keys[] = {
	{ "allow", K_HOST_LIST, 0, 0, 0, false,
	  "a comma-separated list of host names or IP addresses (empty denies every target)" },
};

static const struct conf_key target_keys[] = {
	{ "engine", K_ENGINE, TGT(engine), 0, 0, false, "postgres or mariadb" },
	{ "host", K_HOST, TGT(host), 0, 0, true, "a host name or IP address listed in [hosts] allow" },
	{ "port", K_U16, TGT(port), 1, 65535, true, NULL },
	{ "database", K_TEXT, TGT(database), 0, 0, true, "the backend database name" },
	{ "user", K_TEXT, TGT(user), 0, 0, true, "the backend role name" },
	{ "password_file", K_PASSWORD_FILE, TGT(password_file), 0, 0, true,
	  "the path of a file holding the backend password" },
};

static const struct conf_key user_keys[] = {
	{ "scram", K_SCRAM, USR(scram), 0, 0, true,
	  "a SCRAM-SHA-256 verifier; make one with `airlockd --make-verifier`" },
	{ "target", K_TARGET_REF, 0, 0, 0, false, "the NAME of a [target NAME] section with engine postgres" },
	{ "database", K_TEXT, USR(database), 0, 0, false, "the database name clients connect to" },
	{ "tables", K_TABLE_LIST, 0, 0, 0, false,
	  "a comma-separated list of schema.table, table or schema.*" },
	{ "timeout_ms", K_U32, USR(limits.timeout_ms), 1, 3600000, false, NULL },
	{ "memory_mb", K_U32, USR(limits.memory_mb), 16, 65536, false, NULL },
	{ "cpus", K_CPUS, USR(limits.nano_cpus), NANO / 100, 64 * NANO, false,
	  "a number of CPUs from 0.01 to 64, e.g. 0.5" },
	{ "pids", K_U32, USR(limits.pids), 8, 4096, false, NULL },
	{ "max_rows", K_U32, USR(limits.max_rows), 1, 10000000, false, NULL },
	{ "max_bytes", K_U64, USR(limits.max_bytes), 1, 1024 * MIB, false, NULL },
	{ "max_cost", K_U64, USR(limits.max_cost), 0, UINT64_C(1000000000000000), false, NULL },
	{ "max_connections", K_U32, USR(max_connections), 1, 1000000, false, NULL },
	{ "max_jobs", K_U32, USR(max_jobs), 1, 4096, false, NULL },
	{ "mysql_native", K_MY_NATIVE, USR(mysql_native), 0, 0, false,
	  "a mysql_native_password hash: * and 40 hex digits, as MariaDB's PASSWORD() prints" },
	{ "mysql_target", K_MY_TARGET_REF, 0, 0, 0, false,
	  "the NAME of a [target NAME] section with engine mariadb" },
	{ "mysql_database", K_TEXT, USR(mysql_database), 0, 0, false, "the database name MySQL clients start in" },
	{ "mysql_tables", K_MY_TABLE_LIST, 0, 0, 0, false, "a comma-separated list of db.table or db.*" },
	{ "mysql_allow_functions", K_MY_FUNC_LIST, 0, 0, 0, false, "a comma-separated list of sleep, benchmark" },
};

#define NKEYS(a) (sizeof(a) / sizeof((a)[0]))
_Static_assert(NKEYS(server_keys) <= CONF_MAX_KEYS, "server keys fit conf_seen");
_Static_assert(NKEYS(target_keys) <= CONF_MAX_KEYS, "target keys fit conf_seen");
_Static_assert(NKEYS(user_keys) <= CONF_MAX_KEYS, "user keys fit conf_seen");

void conf_err(struct conf_ctx *ctx, unsigned line, const char *fmt, ...)
{
	struct config_errors *e = ctx->errs;
	char *msg;
	int off = 0;
	va_list ap;

	if (e->n >= CONFIG_MAX_ERRORS)
		return;
	msg = e->msg[e->n];
	if (e->n == CONFIG_MAX_ERRORS - 1) {
		snprintf(msg, sizeof(e->msg[0]), "too many problems; only the first %d are listed",
			 CONFIG_MAX_ERRORS - 1);
		e->n++;
		return;
	}
	if (line)
		off = snprintf(msg, sizeof(e->msg[0]), "line %u: ", line);
	va_start(ap, fmt);
	vsnprintf(msg + off, sizeof(e->msg[0]) - (size_t)off, fmt, ap);
	va_end(ap);
	e->n++;
}

/* "[server]", "[target shop]", ... for the current section. */
static const char *section_label(const struct conf_ctx *ctx, char *buf, size_t cap)
{
	switch (ctx->cur) {
	case SECT_SERVER:
		return "[server]";
	case SECT_HOSTS:
		return "[hosts]";
	case SECT_TARGET:
		snprintf(buf, cap, "[target %s]", ctx->cfg->targets[ctx->cur_index].name);
		return buf;
	case SECT_USER:
		snprintf(buf, cap, "[user %s]", ctx->cfg->users[ctx->cur_index].name);
		return buf;
	default:
		return "[?]";
	}
}

static void key_table(enum conf_section s, const struct conf_key **keys, size_t *n)
{
	switch (s) {
	case SECT_SERVER:
		*keys = server_keys;
		*n = NKEYS(server_keys);
		break;
	case SECT_HOSTS:
		*keys = hosts_keys;
		*n = NKEYS(hosts_keys);
		break;
	case SECT_TARGET:
		*keys = target_keys;
		*n = NKEYS(target_keys);
		break;
	case SECT_USER:
		*keys = user_keys;
		*n = NKEYS(user_keys);
		break;
	default:
		*keys = NULL;
		*n = 0;
	}
}

/* Writes what a valid value of k looks like into buf. */
static const char *expect_text(const struct conf_key *k, char *buf, size_t cap)
{
	if (k->expect)
		return k->expect;
	snprintf(buf, cap, "a whole number from %llu to %llu",
		 (unsigned long long)k->min, (unsigned long long)k->max);
	return buf;
}

void conf_check_required(struct conf_ctx *ctx, enum conf_section s, const struct conf_seen *seen,
			 const char *label)
{
	const struct conf_key *keys;
	char ebuf[64];
	size_t n, i;

	key_table(s, &keys, &n);
	for (i = 0; i < n; i++)
		if (keys[i].required && !seen->key_line[i])
			conf_err(ctx, seen->header_line, "%s is missing %s; expected %s", label,
				 keys[i].name, expect_text(&keys[i], ebuf, sizeof(ebuf)));
}

unsigned conf_key_line(enum conf_section s, const struct conf_seen *seen, const char *key)
{
	const struct conf_key *keys;
	size_t n, i;

	key_table(s, &keys, &n);
	for (i = 0; i < n; i++)
		if (strcmp(keys[i].name, key) == 0)
			return seen->key_line[i] ? seen->key_line[i] : seen->header_line;
	return seen->header_line;
}

/* ---- sections ------------------------------------------------------------ */

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 4;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -1;
	memset((char *)p + *cap * size, 0, (ncap - *cap) * size);
	*arr = p;
	*cap = ncap;
	return 0;
}

static void begin_target(struct conf_ctx *ctx, const char *name, unsigned line)
{
	struct airlock_config *cfg = ctx->cfg;
	size_t cap = ctx->cap_targets, i;

	for (i = 0; i < cfg->ntargets; i++) {
		if (strcmp(cfg->targets[i].name, name) == 0) {
			conf_err(ctx, line, "[target %s] is defined twice (first on line %u)", name,
				 ctx->target_seen[i].header_line);
			return;
		}
	}
	if (grow((void **)&cfg->targets, &cap, cfg->ntargets, sizeof(*cfg->targets)) < 0 ||
	    grow((void **)&ctx->target_seen, &ctx->cap_targets, cfg->ntargets, sizeof(*ctx->target_seen)) < 0)
		goto out_oom;
	ctx->cap_targets = cap;
	i = cfg->ntargets;
	cfg->targets[i].name = strdup(name);
	if (!cfg->targets[i].name)
		goto out_oom;
	ctx->target_seen[i].header_line = line;
	cfg->ntargets++;
	ctx->cur = SECT_TARGET;
	ctx->cur_index = i;
	return;
out_oom:
	conf_err(ctx, line, "out of memory");
}

static void begin_user(struct conf_ctx *ctx, const char *name, unsigned line)
{
	struct airlock_config *cfg = ctx->cfg;
	size_t cap = ctx->cap_users, i;
	struct airlock_user *u;

	for (i = 0; i < cfg->nusers; i++) {
		if (strcmp(cfg->users[i].name, name) == 0) {
			conf_err(ctx, line, "[user %s] is defined twice (first on line %u)", name,
				 ctx->user_meta[i].seen.header_line);
			return;
		}
	}
	if (grow((void **)&cfg->users, &cap, cfg->nusers, sizeof(*cfg->users)) < 0 ||
	    grow((void **)&ctx->user_meta, &ctx->cap_users, cfg->nusers, sizeof(*ctx->user_meta)) < 0)
		goto out_oom;
	ctx->cap_users = cap;
	i = cfg->nusers;
	u = &cfg->users[i];
	u->name = strdup(name);
	if (!u->name)
		goto out_oom;
	u->limits.timeout_ms = 10000;
	u->limits.memory_mb = 128;
	u->limits.nano_cpus = NANO / 2;
	u->limits.pids = 64;
	u->limits.max_rows = 1000;
	u->limits.max_bytes = 1000000;
	u->max_connections = 100;
	u->max_jobs = 8;
	ctx->user_meta[i].seen.header_line = line;
	cfg->nusers++;
	ctx->cur = SECT_USER;
	ctx->cur_index = i;
	return;
out_oom:
	conf_err(ctx, line, "out of memory");
}

/* s[0..n) is a trimmed line starting with '['. */
static void begin_section(struct conf_ctx *ctx, const char *s, size_t n)
{
	const char *close = memchr(s, ']', n);
	char inner[128], *kind, *name, *extra, *save;
	unsigned line = ctx->line;
	size_t len;

	ctx->cur = SECT_BAD;
	ctx->list_open = false;
	if (!close) {
		conf_err(ctx, line, "section header has no closing ']'");
		return;
	}
	if ((size_t)(close - s) + 1 != n) {
		conf_err(ctx, line, "unexpected text after ']' in a section header");
		return;
	}
	len = (size_t)(close - s) - 1;
	if (len >= sizeof(inner)) {
		conf_err(ctx, line, "section header is too long");
		return;
	}
	memcpy(inner, s + 1, len);
	inner[len] = '\0';
	kind = strtok_r(inner, " \t", &save);
	name = kind ? strtok_r(NULL, " \t", &save) : NULL;
	extra = name ? strtok_r(NULL, " \t", &save) : NULL;
	if (!kind)
		goto out_unknown;
	if (strcasecmp(kind, "server") == 0 || strcasecmp(kind, "hosts") == 0) {
		bool server = strcasecmp(kind, "server") == 0;
		struct conf_seen *seen = server ? &ctx->server_seen : &ctx->hosts_seen;

		if (name) {
			conf_err(ctx, line, "[%s] takes no name", server ? "server" : "hosts");
			return;
		}
		if (seen->header_line) {
			conf_err(ctx, line, "[%s] appears twice (first on line %u); put all its keys in one section",
				 server ? "server" : "hosts", seen->header_line);
			return;
		}
		seen->header_line = line;
		ctx->cur = server ? SECT_SERVER : SECT_HOSTS;
		return;
	}
	if (strcasecmp(kind, "target") == 0 || strcasecmp(kind, "user") == 0) {
		bool target = strcasecmp(kind, "target") == 0;

		if (!name || extra || !conf_valid_name(name)) {
			conf_err(ctx, line, "expected [%s NAME] where NAME is 1 to %d characters from "
				 "A-Z a-z 0-9 _ . @ -", target ? "target" : "user", CONF_MAX_NAME);
			return;
		}
		if (target)
			begin_target(ctx, name, line);
		else
			begin_user(ctx, name, line);
		return;
	}
out_unknown:
	conf_err(ctx, line, "unknown section [%.40s]; expected [server], [hosts], [target NAME] or [user NAME]",
		 kind ? kind : "");
}

/* ---- values -------------------------------------------------------------- */

static char *host_entry(const char *entry, bool *oom)
{
	char *out;

	*oom = false;
	if (!conf_valid_host(entry))
		return NULL;
	out = strdup(entry);
	*oom = !out;
	return out;
}

/* mysql_allow_functions: each entry turns on one function the MySQL validator refuses by default. */
static void set_functions(struct conf_ctx *ctx, struct airlock_user *u, const char *label, const char *value)
{
	char **items = NULL, *bad = NULL;
	size_t n = 0, i;
	int r = conf_list_append(value, &items, &n, NULL, &bad);

	if (r == -2)
		conf_err(ctx, ctx->line, "out of memory");
	else if (r < 0)
		conf_err(ctx, ctx->line, "%s mysql_allow_functions has an empty entry; expected sleep, benchmark",
			 label);
	for (i = 0; r == 0 && i < n; i++) {
		if (strcasecmp(items[i], "sleep") == 0)
			u->mysql_allow_sleep = true;
		else if (strcasecmp(items[i], "benchmark") == 0)
			u->mysql_allow_benchmark = true;
		else
			conf_err(ctx, ctx->line, "%s mysql_allow_functions: \"%.40s\" is not one of sleep, benchmark",
				 label, items[i]);
	}
	conf_free_list(items, n);
	free(bad);
}

static void set_list(struct conf_ctx *ctx, const struct conf_key *k, const char *label,
		     const char *value)
{
	char ebuf[64], *bad = NULL;
	char ***items;
	size_t *n;
	int r;

	if (k->kind == K_HOST_LIST) {
		items = &ctx->cfg->host_allow;
		n = &ctx->cfg->nhost_allow;
		r = conf_list_append(value, items, n, host_entry, &bad);
	} else if (k->kind == K_MY_TABLE_LIST) {
		struct airlock_user *u = &ctx->cfg->users[ctx->cur_index];

		r = conf_list_append(value, &u->mysql_tables, &u->nmysql_tables, conf_mysql_table, &bad);
	} else if (k->kind == K_MY_FUNC_LIST) {
		set_functions(ctx, &ctx->cfg->users[ctx->cur_index], label, value);
		return;
	} else {
		struct airlock_user *u = &ctx->cfg->users[ctx->cur_index];

		r = conf_list_append(value, &u->tables, &u->ntables, conf_normalise_table, &bad);
	}
	if (r == -2)
		conf_err(ctx, ctx->line, "out of memory");
	else if (r < 0 && !*bad)
		conf_err(ctx, ctx->line, "%s %s has an empty entry (two commas, or one at the end); expected %s",
			 label, k->name, expect_text(k, ebuf, sizeof(ebuf)));
	else if (r < 0)
		conf_err(ctx, ctx->line, "%s %s: \"%.40s\" is not valid; expected %s", label, k->name, bad,
			 expect_text(k, ebuf, sizeof(ebuf)));
	free(bad);
}

static void set_password_file(struct conf_ctx *ctx, struct airlock_target *t, const char *label,
			      const char *value)
{
	const char *why = NULL;

	t->password_file = conf_resolve_path(ctx->base_dir, value);
	if (!t->password_file) {
		conf_err(ctx, ctx->line, "out of memory");
		return;
	}
	t->password = conf_read_password(t->password_file, &why);
	if (!t->password)
		conf_err(ctx, ctx->line, "%s password_file %.120s %s", label, t->password_file, why);
}

static void set_scram(struct conf_ctx *ctx, char **dst, const char *label, const char *value)
{
	struct scram_verifier v;

	/* The value is never echoed: it might be a password typed in by mistake. */
	if (scram_parse_verifier(value, &v) != 0) {
		conf_err(ctx, ctx->line, "%s scram is not a SCRAM-SHA-256 verifier (SCRAM-SHA-256$<iterations>:"
			 "<salt>$<StoredKey>:<ServerKey>); never a password: make one with "
			 "`airlockd --make-verifier`", label);
		return;
	}
	explicit_bzero(&v, sizeof(v));
	*dst = strdup(value);
	if (!*dst)
		conf_err(ctx, ctx->line, "out of memory");
}

static void set_engine(struct conf_ctx *ctx, char **dst, const char *label, const char *value)
{
	if (strcasecmp(value, "postgres") == 0 || strcasecmp(value, "postgresql") == 0) {
		*dst = strdup("postgres");
		if (!*dst)
			conf_err(ctx, ctx->line, "out of memory");
	} else if (strcasecmp(value, "mysql") == 0 || strcasecmp(value, "mariadb") == 0) {
		*dst = strdup("mariadb");
		if (!*dst)
			conf_err(ctx, ctx->line, "out of memory");
	} else {
		conf_err(ctx, ctx->line, "%s engine \"%.40s\" is unknown; expected postgres or mariadb", label, value);
	}
}

/* Stores value into the field k names inside base. */
static void set_value(struct conf_ctx *ctx, const struct conf_key *k, void *base, const char *label,
		      const char *value)
{
	char *field = (char *)base + k->off;
	char ebuf[64];
	uint32_t uid, gid;
	uint64_t v;
	char *s = NULL;

	switch (k->kind) {
	case K_U16:
	case K_U32:
	case K_U64:
		if (conf_parse_u64(value, k->min, k->max, &v) < 0)
			goto out_bad;
		if (k->kind == K_U16)
			*(uint16_t *)(void *)field = (uint16_t)v;
		else if (k->kind == K_U32)
			*(uint32_t *)(void *)field = (uint32_t)v;
		else
			*(uint64_t *)(void *)field = v;
		return;
	case K_CPUS:
		if (conf_parse_cpus(value, k->min, k->max, &v) < 0)
			goto out_bad;
		*(uint64_t *)(void *)field = v;
		return;
	case K_TEXT:
		if (!conf_valid_text(value))
			goto out_bad;
		s = strdup(value);
		break;
	case K_HOST:
		if (!conf_valid_host(value))
			goto out_bad;
		s = strdup(value);
		break;
	case K_PATH:
	case K_AUDIT:
		if (!conf_valid_text(value))
			goto out_bad;
		s = k->kind == K_AUDIT && strcmp(value, "-") == 0 ? strdup(value) :
		    conf_resolve_path(ctx->base_dir, value);
		break;
	case K_LISTEN:
		if (conf_parse_listen(value, &s, &ctx->cfg->pg_listen_port) < 0)
			goto out_bad;
		free(ctx->cfg->pg_listen_host);
		ctx->cfg->pg_listen_host = s;
		return;
	case K_MY_LISTEN:
		if (conf_parse_listen(value, &s, &ctx->cfg->mysql_listen_port) < 0)
			goto out_bad;
		free(ctx->cfg->mysql_listen_host);
		ctx->cfg->mysql_listen_host = s;
		return;
	case K_MY_NATIVE:
		/* Never echoed: a password typed in by mistake would land in a log. */
		if (!conf_valid_mysql_native(value)) {
			conf_err(ctx, ctx->line, "%s mysql_native is not a mysql_native_password hash (* and 40 hex "
				 "digits); never a password", label);
			return;
		}
		s = strdup(value);
		break;
	case K_MY_TARGET_REF:
		if (!conf_valid_name(value))
			goto out_bad;
		s = strdup(value);
		if (s)
			ctx->user_meta[ctx->cur_index].mysql_target_name = s;
		break;
	case K_IMAGE:
		if (!config_image_pinned(value)) {
			conf_err(ctx, ctx->line, "%s runner_image: IMAGE_UNPINNED: \"%.40s\" is not pinned by digest; "
				 "use sha256:<64 hex> or NAME@sha256:<64 hex>, from "
				 "docker inspect --format '{{.Id}}' IMAGE", label, value);
			return;
		}
		s = strdup(value);
		break;
	case K_RUNNER_USER:
		if (conf_parse_uid_gid(value, &uid, &gid) < 0)
			goto out_bad;
		if (uid == 0) {
			conf_err(ctx, ctx->line, "%s runner_user: the runner must not run as root (uid 0); "
				 "expected %s", label, k->expect);
			return;
		}
		s = strdup(value);
		if (s) {
			ctx->cfg->runner_uid = uid;
			ctx->cfg->runner_gid = gid;
		}
		break;
	case K_ENGINE:
		set_engine(ctx, (char **)(void *)field, label, value);
		return;
	case K_PASSWORD_FILE:
		if (!conf_valid_text(value))
			goto out_bad;
		set_password_file(ctx, base, label, value);
		return;
	case K_SCRAM:
		set_scram(ctx, (char **)(void *)field, label, value);
		return;
	case K_TARGET_REF:
		if (!conf_valid_name(value))
			goto out_bad;
		s = strdup(value);
		if (s)
			ctx->user_meta[ctx->cur_index].target_name = s;
		break;
	case K_HOST_LIST:
	case K_TABLE_LIST:
	case K_MY_TABLE_LIST:
	case K_MY_FUNC_LIST:
		set_list(ctx, k, label, value);
		return;
	}
	if (!s) {
		conf_err(ctx, ctx->line, "out of memory");
		return;
	}
	if (k->kind != K_TARGET_REF && k->kind != K_MY_TARGET_REF) {
		free(*(char **)(void *)field);
		*(char **)(void *)field = s;
	}
	return;
out_bad:
	conf_err(ctx, ctx->line, "%s %s: expected %s, got \"%.40s\"", label, k->name,
		 expect_text(k, ebuf, sizeof(ebuf)), value);
}

/* ---- inih glue ----------------------------------------------------------- */

static void *section_base(struct conf_ctx *ctx, struct conf_seen **seen)
{
	switch (ctx->cur) {
	case SECT_SERVER:
		*seen = &ctx->server_seen;
		return ctx->cfg;
	case SECT_HOSTS:
		*seen = &ctx->hosts_seen;
		return ctx->cfg;
	case SECT_TARGET:
		*seen = &ctx->target_seen[ctx->cur_index];
		return &ctx->cfg->targets[ctx->cur_index];
	case SECT_USER:
		*seen = &ctx->user_meta[ctx->cur_index].seen;
		return &ctx->cfg->users[ctx->cur_index];
	default:
		*seen = NULL;
		return NULL;
	}
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct conf_ctx *ctx = user;
	const struct conf_key *keys;
	struct conf_seen *seen;
	char lbuf[96], names[200];
	const char *label;
	size_t n, i, off = 0;
	void *base;

	(void)section; /* the reader tracks sections itself */
	if (ctx->cur == SECT_NONE) {
		conf_err(ctx, ctx->line, "key \"%.40s\" comes before any [section]", name);
		return 1;
	}
	if (ctx->cur == SECT_BAD)
		return 1; /* the header was already reported */
	label = section_label(ctx, lbuf, sizeof(lbuf));
	base = section_base(ctx, &seen);
	key_table(ctx->cur, &keys, &n);
	for (i = 0; i < n; i++)
		if (strcasecmp(keys[i].name, name) == 0)
			break;
	if (ctx->continuation) {
		/* The reader only lets a list key continue. */
		if (i < n)
			set_list(ctx, &keys[i], label, value);
		return 1;
	}
	ctx->list_open = false;
	if (i == n) {
		names[0] = '\0';
		for (i = 0; i < n && off < sizeof(names); i++)
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s", i ? ", " : "",
						keys[i].name);
		conf_err(ctx, ctx->line, "%s has no key \"%.40s\"; known keys: %s", label, name, names);
		return 1;
	}
	if (seen->key_line[i]) {
		conf_err(ctx, ctx->line, "%s %s is set twice (first on line %u)", label, keys[i].name,
			 seen->key_line[i]);
		return 1;
	}
	seen->key_line[i] = ctx->line;
	ctx->list_open = keys[i].kind == K_HOST_LIST || keys[i].kind == K_TABLE_LIST ||
			 keys[i].kind == K_MY_TABLE_LIST || keys[i].kind == K_MY_FUNC_LIST;
	set_value(ctx, &keys[i], base, label, value);
	return 1;
}

/* Copies s[0..n) plus a newline into str (room checked by the caller). */
static char *emit(char *str, const char *prefix, const char *s, size_t n)
{
	size_t p = strlen(prefix);

	memcpy(str, prefix, p);
	memcpy(str + p, s, n);
	str[p + n] = '\n';
	str[p + n + 1] = '\0';
	return str;
}

/* Hands inih one line of ctx->text at a time (an fgets-style reader). */
static char *line_reader(char *str, int num, void *stream)
{
	struct conf_ctx *ctx = stream;
	const char *s, *nl;
	size_t n, i;
	bool indented;

	if (ctx->pos >= ctx->len || num < 4)
		return NULL;
	s = ctx->text + ctx->pos;
	nl = memchr(s, '\n', ctx->len - ctx->pos);
	n = nl ? (size_t)(nl - s) : ctx->len - ctx->pos;
	ctx->pos += n + (nl ? 1 : 0);
	ctx->line++;
	ctx->continuation = false;

	if (ctx->line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
		s += 3;
		n -= 3;
	}
	indented = n && (s[0] == ' ' || s[0] == '\t');
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	if (n && (s[0] == ';' || s[0] == '#'))
		n = 0;
	/* Inline comments: ';' or '#' after whitespace. */
	for (i = 1; i < n; i++) {
		if ((s[i] == ';' || s[i] == '#') && (s[i - 1] == ' ' || s[i - 1] == '\t')) {
			n = i;
			break;
		}
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n == 0)
		return emit(str, "", "", 0);
	if (n + 3 > (size_t)num) {
		conf_err(ctx, ctx->line, "line is longer than %d characters; continue a long list on "
			 "indented lines", num - 3);
		return emit(str, "", "", 0);
	}
	if (s[0] == '[') {
		begin_section(ctx, s, n);
		return emit(str, "", "[section]", 9);
	}
	if (indented && ctx->list_open && !memchr(s, '=', n)) {
		ctx->continuation = true;
		return emit(str, " ", s, n);
	}
	if (!memchr(s, '=', n) && !memchr(s, ':', n)) {
		conf_err(ctx, ctx->line, "expected \"key = value\" or a [section] header");
		return emit(str, "", "", 0);
	}
	if (s[0] == '=' || s[0] == ':') {
		conf_err(ctx, ctx->line, "a key name is missing before '%c'", s[0]);
		return emit(str, "", "", 0);
	}
	return emit(str, "", s, n);
}

void conf_parse(struct conf_ctx *ctx)
{
	int r = ini_parse_stream(line_reader, ctx, on_key, ctx);

	/* The reader forwards only lines inih accepts; this is a backstop. */
	if (r > 0)
		conf_err(ctx, (unsigned)r, "not a valid INI line");
	else if (r < 0)
		conf_err(ctx, 0, "the config could not be parsed (out of memory)");
}
