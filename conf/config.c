/*
 * config: the conf/ module's entry points: loading a file (or a string)
 * into one struct airlock_config, the checks that need the whole file,
 * freeing, and look-ups. What lives where: the key table, one row per key
 * with its type, field, default and reload rule, is config_keys.c, and
 * everything about a key (defaults, required keys, the reload check,
 * freeing) is derived from it; config_parse.c drives inih over the text;
 * config_store.c checks and stores one value of each type; config_value.c
 * holds the value syntax; config_errors.c collects the problems found.
 * Ownership: config_load and config_load_string
 * return a struct the caller owns and frees with config_free (or NULL,
 * with every problem listed in errs); every string and array inside it
 * belongs to that struct, and pointers between its parts (user->target)
 * stay inside it. Nothing is changed after the load: a reload builds a
 * new struct and the caller swaps the pointer.
 */
#define _GNU_SOURCE
#include "conf/config_internal.h"
#include "launch/image_ref.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/sha.h>

static void finish_targets(struct conf_ctx *ctx)
{
	struct airlock_config *cfg = ctx->cfg;
	char label[96];
	size_t i;

	for (i = 0; i < cfg->ntargets; i++) {
		struct airlock_target *t = &cfg->targets[i];
		unsigned line = conf_key_line(SECT_TARGET, &ctx->target_seen[i], "host");

		snprintf(label, sizeof(label), "[target %s]", t->name);
		conf_check_required(ctx, SECT_TARGET, &ctx->target_seen[i], label);
		/* Without [hosts] every target would be refused: that one error is enough. */
		if (t->host && ctx->hosts_seen.header_line && !config_host_allowed(cfg, t->host))
			conf_err(ctx, line,
				 "HOST_NOT_ALLOWED: %s host \"%.60s\" is not in [hosts] allow; "
				 "add it there to let airlock connect to it",
				 label, t->host);
		if (t->sslmode && strncmp(t->sslmode, "verify-", 7) == 0 && !t->sslrootcert)
			conf_err(ctx, conf_key_line(SECT_TARGET, &ctx->target_seen[i], "sslmode"),
				 "%s sslmode %s needs sslrootcert: the CA file the database's certificate is "
				 "checked against",
				 label, t->sslmode);
		else if (t->sslrootcert && (!t->sslmode || strncmp(t->sslmode, "verify-", 7) != 0))
			conf_err(ctx, conf_key_line(SECT_TARGET, &ctx->target_seen[i], "sslrootcert"),
				 "%s sslrootcert is set but sslmode is %s, which checks no certificate; expected "
				 "sslmode verify-ca or verify-full",
				 label, t->sslmode ? t->sslmode : "disable");
		if (t->keep_sessions && t->engine && strcmp(t->engine, "postgres") != 0)
			conf_err(ctx, conf_key_line(SECT_TARGET, &ctx->target_seen[i], "keep_sessions"),
				 "%s keep_sessions is for Postgres targets; a MariaDB target's runners log in "
				 "themselves",
				 label);
	}
}

/*
 * The [target NAME] called want for a user's key (target or mysql_target),
 * which must have the given engine; NULL (reported) when there is none.
 */
static const struct airlock_target *resolve_target(struct conf_ctx *ctx, size_t ui, const char *key, const char *want,
						   const char *engine)
{
	struct airlock_config *cfg = ctx->cfg;
	unsigned line = conf_key_line(SECT_USER, &ctx->user_meta[ui].seen, key);
	size_t j;

	for (j = 0; j < cfg->ntargets; j++)
		if (strcmp(cfg->targets[j].name, want) == 0)
			break;
	if (j == cfg->ntargets) {
		conf_err(ctx, line, "[user %s] %s \"%s\" does not exist; expected the NAME of a [target NAME] section",
			 cfg->users[ui].name, key, want);
		return NULL;
	}
	if (cfg->targets[j].engine && strcmp(cfg->targets[j].engine, engine) != 0) {
		conf_err(ctx, line, "[user %s] %s \"%s\" has engine %s; expected a target with engine %s",
			 cfg->users[ui].name, key, want, cfg->targets[j].engine, engine);
		return NULL;
	}
	return &cfg->targets[j];
}

/* The entry e (schema.table or schema.*) is one of list (n entries) that allows reading it whole. */
static bool readable(char *const *list, size_t n, const char *e)
{
	const char *dot = strchr(e, '.');

	for (size_t i = 0; dot && i < n; i++) {
		const char *t = list[i], *tdot = strchr(t, '.');

		if (strcmp(t, e) == 0 || (tdot && tdot - t == dot - e && strncmp(t, e, (size_t)(dot - e)) == 0 &&
					  strcmp(tdot + 1, "*") == 0))
			return true;
	}
	return false;
}

/* One protocol's write keys (prefix "" or "mysql_"): each write table readable, a write target of its own. */
static const struct airlock_target *finish_write_side(struct conf_ctx *ctx, size_t i, const char *label,
						      const char *prefix, char *const *wt, size_t nwt, char *const *rt,
						      size_t nrt, const char *want, const char *engine,
						      const struct airlock_target *read)
{
	unsigned line = ctx->user_meta[i].seen.header_line;
	const struct airlock_target *t;
	char key[32];

	if (!nwt || !want) {
		conf_err(ctx, line, "%s has only one of %swrite_tables and %swrite_target; expected both or neither",
			 label, prefix, prefix);
		return NULL;
	}
	if (!read)
		conf_err(ctx, line,
			 "%s writes = approve with %swrite_tables needs %starget: a write's reads are the user's",
			 label, prefix, prefix);
	for (size_t k = 0; k < nwt; k++) {
		if (!readable(rt, nrt, wt[k]))
			conf_err(ctx, line,
				 "%s %swrite_tables lists %s, which %stables does not; expected every write "
				 "table to be readable",
				 label, prefix, wt[k], prefix);
	}
	snprintf(key, sizeof(key), "%swrite_target", prefix);
	t = resolve_target(ctx, i, key, want, engine);
	if (t && read && t == read)
		conf_err(ctx, line,
			 "%s %swrite_target is the read target; expected a target of its own, whose role may "
			 "write %swrite_tables (the read target's role reads only)",
			 label, prefix, prefix);
	return t;
}

/*
 * writes = approve needs what it writes with, on at least one protocol
 * (write_tables and write_target, mysql_write_tables and
 * mysql_write_target); those keys need writes = approve.
 */
static void finish_writes(struct conf_ctx *ctx, size_t i, const char *label)
{
	struct airlock_user *u = &ctx->cfg->users[i];
	const char *want = ctx->user_meta[i].write_target_name, *my_want = ctx->user_meta[i].mysql_write_target_name;
	unsigned line = ctx->user_meta[i].seen.header_line;
	bool pg = u->nwrite_tables || want, my = u->nmysql_write_tables || my_want;

	if (!u->writes || strcmp(u->writes, "approve") != 0) {
		if (pg || my)
			conf_err(ctx, line,
				 "%s has write tables or a write target but writes = deny; expected writes = "
				 "approve, or none of those keys",
				 label);
		return;
	}
	if (!pg && !my) {
		conf_err(ctx, line,
			 "%s writes = approve needs write_tables and write_target (Postgres), "
			 "mysql_write_tables and mysql_write_target (MySQL), or both",
			 label);
		return;
	}
	if (pg)
		u->write_target = finish_write_side(ctx, i, label, "", u->write_tables, u->nwrite_tables, u->tables,
						    u->ntables, want, "postgres", u->target);
	if (my)
		u->mysql_write_target =
			finish_write_side(ctx, i, label, "mysql_", u->mysql_write_tables, u->nmysql_write_tables,
					  u->mysql_tables, u->nmysql_tables, my_want, "mariadb", u->mysql_target);
}

static void finish_users(struct conf_ctx *ctx)
{
	struct airlock_config *cfg = ctx->cfg;
	char label[96];
	size_t i;

	for (i = 0; i < cfg->nusers; i++) {
		struct airlock_user *u = &cfg->users[i];
		const char *want = ctx->user_meta[i].target_name;
		const char *my_want = ctx->user_meta[i].mysql_target_name;

		snprintf(label, sizeof(label), "[user %s]", u->name);
		conf_check_required(ctx, SECT_USER, &ctx->user_meta[i].seen, label);
		if (!want && !my_want)
			conf_err(ctx, ctx->user_meta[i].seen.header_line,
				 "%s has neither target nor mysql_target; expected at least one", label);
		if (want && (u->target = resolve_target(ctx, i, "target", want, "postgres")) && !u->database &&
		    u->target->database && !(u->database = strdup(u->target->database)))
			conf_err(ctx, 0, "out of memory");
		if (my_want && (u->mysql_target = resolve_target(ctx, i, "mysql_target", my_want, "mariadb")) &&
		    !u->mysql_database && u->mysql_target->database &&
		    !(u->mysql_database = strdup(u->mysql_target->database)))
			conf_err(ctx, 0, "out of memory");
		finish_writes(ctx, i, label);
	}
}

/* approval_webhook's host must be one of approval_webhook_hosts, exactly (names case-insensitively). */
static void finish_webhook(struct conf_ctx *ctx)
{
	const struct airlock_config *cfg = ctx->cfg;
	char *host = NULL;
	size_t i;
	bool listed = false;

	if (!cfg->approval_webhook || conf_parse_webhook_url(cfg->approval_webhook, &host))
		return;
	for (i = 0; i < cfg->napproval_webhook_hosts; i++)
		if (strcasecmp(cfg->approval_webhook_hosts[i], host) == 0)
			listed = true;
	if (!listed)
		conf_err(ctx, conf_key_line(SECT_SERVER, &ctx->server_seen, "approval_webhook"),
			 "[server] approval_webhook: the host %.80s is not in approval_webhook_hosts; list it there "
			 "to allow it",
			 host);
	free(host);
}

/* workers = N: each worker's share of what one process had must exist (config_worker_share). */
static void finish_workers(struct conf_ctx *ctx)
{
	const struct airlock_config *cfg = ctx->cfg;
	uint64_t uids = (uint64_t)cfg->runner_uid_last - cfg->runner_uid_first + 1;

	if (uids < cfg->workers)
		conf_err(ctx, 0,
			 "[server] runner_uids has %llu uids and workers = %u; each worker runs its own share of the "
			 "range, so it needs at least one uid per worker",
			 (unsigned long long)uids, cfg->workers);
	if (cfg->metrics_listen_host && (uint32_t)cfg->metrics_listen_port + cfg->workers - 1 > 65535)
		conf_err(ctx, 0,
			 "[server] metrics_listen port %u: with workers = %u, worker K serves its metrics on the port "
			 "+ K, which passes 65535",
			 cfg->metrics_listen_port, cfg->workers);
	if (cfg->max_connections < cfg->workers || cfg->max_unauthenticated < cfg->workers)
		conf_err(ctx, 0,
			 "[server] max_connections and max_unauthenticated are divided among the workers: with "
			 "workers = %u each must be at least %u",
			 cfg->workers, cfg->workers);
	for (size_t i = 0; i < cfg->ntargets; i++)
		if (cfg->targets[i].max_db_connections && cfg->targets[i].max_db_connections < cfg->workers)
			conf_err(ctx, 0,
				 "[target %s] max_db_connections = %u is divided among the workers: with workers = %u "
				 "it must be 0 (no bound) or at least %u",
				 cfg->targets[i].name, cfg->targets[i].max_db_connections, cfg->workers, cfg->workers);
	if (cfg->job_dir && strlen(cfg->job_dir) + sizeof(CONFIG_WORKER_SOCKET_TAIL) > CONFIG_WORKER_SOCKET_MAX)
		conf_err(ctx, 0,
			 "[server] job_dir %s is too long for workers = %u: each worker's socket under it must fit "
			 "%u bytes; use a shorter path",
			 cfg->job_dir, cfg->workers, (unsigned)CONFIG_WORKER_SOCKET_MAX);
}

static void finish(struct conf_ctx *ctx)
{
	const struct airlock_config *cfg = ctx->cfg;

	if (!ctx->server_seen.header_line)
		conf_err(ctx, 0, "the [server] section is missing; it needs at least pg_listen and runner_image");
	else
		conf_check_required(ctx, SECT_SERVER, &ctx->server_seen, "[server]");
	if (ctx->server_seen.header_line && cfg->runtime && strcmp(cfg->runtime, "oci") == 0 && !cfg->runner_rootfs)
		conf_err(ctx, 0, "[server] runtime = oci needs runner_rootfs = /PATH.tar@sha256:<64 hex>");
	if (ctx->server_seen.header_line && cfg->runtime && strcmp(cfg->runtime, "docker") == 0 && !cfg->runner_image &&
	    conf_key_line(SECT_SERVER, &ctx->server_seen, "runner_image") == ctx->server_seen.header_line)
		conf_err(ctx, 0, "[server] runner_image is required with runtime = docker");
	if (ctx->server_seen.header_line &&
	    conf_key_line(SECT_SERVER, &ctx->server_seen, "pool_size") != ctx->server_seen.header_line &&
	    conf_key_line(SECT_SERVER, &ctx->server_seen, "pool_min") != ctx->server_seen.header_line)
		conf_err(ctx, 0, "[server] pool_size is the old name of pool_min; give only pool_min");
	if (cfg->pool_max && cfg->pool_max < cfg->pool_min)
		conf_err(ctx, 0,
			 "[server] pool_max = %u is below pool_min = %u; expected 0 (no growth) or at least pool_min",
			 cfg->pool_max, cfg->pool_min);
	if (cfg->validator_uid >= cfg->runner_uid_first && cfg->validator_uid <= cfg->runner_uid_last)
		conf_err(ctx, 0,
			 "[server] validator_uid = %u is one of runner_uids; give the validator workers a uid of "
			 "their own",
			 cfg->validator_uid);
	if (cfg->workers > 1)
		finish_workers(ctx);
	if (!cfg->tls_cert_file != !cfg->tls_key_file)
		conf_err(ctx, 0, "[server] tls_cert_file and tls_key_file go together; expected both or neither");
	if (cfg->tls_required && !cfg->tls_cert_file)
		conf_err(ctx, 0, "[server] tls_required = on needs tls_cert_file and tls_key_file");
	if (!ctx->hosts_seen.header_line)
		conf_err(ctx, 0,
			 "the [hosts] section is missing; add [hosts] with allow = the database hosts "
			 "targets may use (an empty list denies every target)");
	finish_targets(ctx);
	finish_users(ctx);
	for (size_t i = 0; i < cfg->nusers; i++)
		if (cfg->users[i].tls_required && !cfg->tls_cert_file)
			conf_err(ctx, 0, "[user %s] tls_required = on needs tls_cert_file and tls_key_file in [server]",
				 cfg->users[i].name);
	if (ctx->cfg->nusers == 0)
		conf_err(ctx, 0, "no [user NAME] section; at least one user is needed");
	for (size_t i = 0; i < cfg->napprovers; i++) {
		char label[96];

		snprintf(label, sizeof(label), "[approver %s]", cfg->approvers[i].name);
		conf_check_required(ctx, SECT_APPROVER, &ctx->approver_seen[i], label);
		if (config_find_user(cfg, cfg->approvers[i].name))
			conf_err(ctx, ctx->approver_seen[i].header_line,
				 "%s has the name of a [user %s]; an approver is a person, never an airlock user: "
				 "give it a name of its own",
				 label, cfg->approvers[i].name);
	}
	for (size_t i = 0; i < cfg->nadmins; i++) {
		char label[96];

		snprintf(label, sizeof(label), "[admin %s]", cfg->admins[i].name);
		conf_check_required(ctx, SECT_ADMIN, &ctx->admin_seen[i], label);
		if (config_find_user(cfg, cfg->admins[i].name))
			conf_err(ctx, ctx->admin_seen[i].header_line,
				 "%s has the name of a [user %s]; an admin is never an airlock user: "
				 "give it a name of its own",
				 label, cfg->admins[i].name);
	}
	for (size_t i = 0; i < cfg->nusers; i++)
		if (cfg->users[i].database && strcmp(cfg->users[i].database, CONFIG_ADMIN_DATABASE) == 0)
			conf_err(ctx, 0,
				 "[user %s] database = " CONFIG_ADMIN_DATABASE
				 " is the admin console's name; give the user another",
				 cfg->users[i].name);
	if (cfg->approval_listen_host && !cfg->tls_cert_file)
		conf_err(ctx, 0,
			 "[server] approval_listen needs tls_cert_file and tls_key_file: the approval page is "
			 "served over TLS only");
	finish_webhook(ctx);
	conf_finish_peers(ctx);
}

static void free_ctx(struct conf_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->cfg->nusers; i++) {
		free(ctx->user_meta[i].target_name);
		free(ctx->user_meta[i].mysql_target_name);
		free(ctx->user_meta[i].write_target_name);
		free(ctx->user_meta[i].mysql_write_target_name);
	}
	free(ctx->user_meta);
	free(ctx->target_seen);
	free(ctx->approver_seen);
	free(ctx->admin_seen);
}

static struct airlock_config *load_text(const char *text, size_t len, const char *base_dir, const char *path,
					struct config_errors *errs)
{
	struct conf_ctx ctx;
	struct airlock_config *cfg;

	cfg = calloc(1, sizeof(*cfg));
	memset(&ctx, 0, sizeof(ctx));
	ctx.cfg = cfg;
	ctx.errs = errs;
	if (!cfg || (path && !(cfg->path = strdup(path)))) {
		conf_err(&ctx, 0, "out of memory");
		config_free(cfg);
		return NULL;
	}
	ctx.base_dir = base_dir;
	conf_apply_defaults(&ctx, SECT_SERVER, cfg);
	conf_apply_defaults(&ctx, SECT_HOSTS, cfg);
	ctx.text = text;
	ctx.len = len;
	SHA256((const unsigned char *)text, len, cfg->checksum);
	for (size_t i = 0; i < sizeof(cfg->checksum); i++)
		snprintf(cfg->checksum_hex + 2 * i, 3, "%02x", cfg->checksum[i]);
	if (memchr(text, '\0', len))
		conf_err(&ctx, 0, "the config contains a NUL byte; expected a text file");
	else
		conf_parse(&ctx);
	finish(&ctx);
	free_ctx(&ctx);
	if (errs->n) {
		config_free(cfg);
		return NULL;
	}
	return cfg;
}

struct airlock_config *config_load_string(const char *text, const char *base_dir, struct config_errors *errs)
{
	struct config_errors local;

	if (!errs)
		errs = &local;
	errs->n = 0;
	if (!text) {
		snprintf(errs->msg[errs->n++], sizeof(errs->msg[0]), "no config text");
		return NULL;
	}
	return load_text(text, strlen(text), base_dir, NULL, errs);
}

/* Reads all of path (at most CONF_MAX_FILE bytes); NULL with *why on failure. */
static char *read_file(const char *path, size_t *len, const char **why)
{
	struct stat st;
	char *buf = NULL;
	ssize_t r = 0;
	size_t n = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*why = strerror(errno);
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		goto out_close;
	}
	if (st.st_size > CONF_MAX_FILE) {
		*why = "larger than 1 MiB";
		goto out_close;
	}
	buf = malloc(CONF_MAX_FILE + 1);
	if (!buf) {
		*why = "out of memory";
		goto out_close;
	}
	while (n <= CONF_MAX_FILE) {
		r = read(fd, buf + n, CONF_MAX_FILE + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (r < 0 || n > CONF_MAX_FILE) {
		*why = r < 0 ? strerror(errno) : "larger than 1 MiB";
		free(buf);
		buf = NULL;
		goto out_close;
	}
	buf[n] = '\0';
	*len = n;
out_close:
	close(fd);
	return buf;
}

struct airlock_config *config_load(const char *path, struct config_errors *errs)
{
	struct config_errors local;
	struct airlock_config *cfg;
	const char *why = NULL, *slash;
	char *text, *dir;
	size_t len = 0;

	if (!errs)
		errs = &local;
	errs->n = 0;
	if (!path || !*path) {
		snprintf(errs->msg[errs->n++], sizeof(errs->msg[0]), "no config file given");
		return NULL;
	}
	text = read_file(path, &len, &why);
	if (!text) {
		snprintf(errs->msg[errs->n++], sizeof(errs->msg[0]), "cannot read config file %.180s: %s", path, why);
		return NULL;
	}
	slash = strrchr(path, '/');
	dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	if (!dir) {
		free(text);
		snprintf(errs->msg[errs->n++], sizeof(errs->msg[0]), "out of memory");
		return NULL;
	}
	cfg = load_text(text, len, dir, path, errs);
	free(dir);
	free(text);
	return cfg;
}

void config_free(struct airlock_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	free(cfg->path);
	conf_free_fields(SECT_SERVER, cfg);
	conf_free_fields(SECT_HOSTS, cfg);
	for (i = 0; i < cfg->ntargets; i++) {
		free(cfg->targets[i].name);
		conf_free_fields(SECT_TARGET, &cfg->targets[i]);
	}
	free(cfg->targets);
	for (i = 0; i < cfg->nusers; i++) {
		free(cfg->users[i].name);
		conf_free_fields(SECT_USER, &cfg->users[i]);
	}
	free(cfg->users);
	for (i = 0; i < cfg->napprovers; i++) {
		free(cfg->approvers[i].name);
		conf_free_fields(SECT_APPROVER, &cfg->approvers[i]);
	}
	free(cfg->approvers);
	for (i = 0; i < cfg->nadmins; i++) {
		free(cfg->admins[i].name);
		conf_free_fields(SECT_ADMIN, &cfg->admins[i]);
	}
	free(cfg->admins);
	free(cfg);
}

bool config_host_allowed(const struct airlock_config *cfg, const char *host)
{
	size_t n, i;

	if (!cfg || !host)
		return false;
	while (isspace((unsigned char)*host))
		host++;
	n = strlen(host);
	while (n && isspace((unsigned char)host[n - 1]))
		n--;
	if (n == 0)
		return false;
	for (i = 0; i < cfg->nhost_allow; i++)
		if (strlen(cfg->host_allow[i]) == n && strncasecmp(cfg->host_allow[i], host, n) == 0)
			return true;
	return false;
}

const struct airlock_user *config_find_user(const struct airlock_config *cfg, const char *name)
{
	size_t i;

	if (!cfg || !name)
		return NULL;
	for (i = 0; i < cfg->nusers; i++)
		if (strcmp(cfg->users[i].name, name) == 0)
			return &cfg->users[i];
	return NULL;
}

const struct airlock_admin *config_find_admin(const struct airlock_config *cfg, const char *name)
{
	if (!cfg || !name)
		return NULL;
	for (size_t i = 0; i < cfg->nadmins; i++)
		if (strcmp(cfg->admins[i].name, name) == 0)
			return &cfg->admins[i];
	return NULL;
}

/* "sha256:" followed by exactly 64 lower-case hex digits. */
bool config_image_pinned(const char *image)
{
	return image_ref_pinned(image);
}

bool config_target_tls(const struct airlock_target *t)
{
	return t && t->sslmode && strcmp(t->sslmode, "disable") != 0;
}

bool config_target_kept(const struct airlock_target *t)
{
	return t && t->keep_sessions && t->engine && strcmp(t->engine, "postgres") == 0;
}
