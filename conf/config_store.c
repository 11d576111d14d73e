/*
 * config_store: one value of each key type, checked and stored where its
 * row in the key table says, and the two things done to stored values
 * later: comparing them (for the reload check) and freeing them. Strings
 * stored here are allocated and belong to the struct they are stored in.
 */
#define _GNU_SOURCE
#include "conf/config_internal.h"
#include "launch/image_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "protocol/scram.h"

#define FIELD(base, off, type) ((type *)(void *)((char *)(base) + (off)))
#define CFIELD(base, off, type) ((type const *)(const void *)((const char *)(base) + (off)))

bool conf_type_is_list(enum conf_type t)
{
	return t == CT_HOST_LIST || t == CT_TABLE_LIST || t == CT_MY_TABLE_LIST || t == CT_MY_FUNCS ||
	       t == CT_PEER_LIST;
}

const char *conf_expect_text(const struct conf_key *k, char *buf, size_t cap)
{
	if (k->expect)
		return k->expect;
	snprintf(buf, cap, "a whole number from %llu to %llu", (unsigned long long)k->min, (unsigned long long)k->max);
	return buf;
}

/* Replaces the string at *dst with s (owned from now on). */
static void put_string(char **dst, char *s)
{
	free(*dst);
	*dst = s;
}

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

/* peers: each entry kept as ID=ADDRESS:PORT, the address as inet_pton read it. */
static char *peer_entry(const char *entry, bool *oom)
{
	uint32_t id;
	uint16_t port;
	char *host = NULL, *out = NULL;

	*oom = false;
	if (conf_parse_peer(entry, &id, &host, &port) < 0)
		return NULL;
	if (asprintf(&out, strchr(host, ':') ? "%u=[%s]:%u" : "%u=%s:%u", id, host, (unsigned)port) < 0) {
		out = NULL;
		*oom = true;
	}
	free(host);
	return out;
}

/* mysql_allow_functions: each entry turns on one function the MySQL validator refuses by default. */
static void set_functions(struct conf_ctx *ctx, const struct conf_key *k, void *base, const char *label,
			  const char *value)
{
	char **items = NULL, *bad = NULL;
	size_t n = 0, i;
	int r = conf_list_append(value, &items, &n, NULL, &bad);

	if (r == -2)
		conf_err(ctx, ctx->line, "out of memory");
	else if (r < 0)
		conf_err(ctx, ctx->line, "%s %s has an empty entry; expected sleep, benchmark", label, k->name);
	for (i = 0; r == 0 && i < n; i++) {
		if (strcasecmp(items[i], "sleep") == 0)
			*FIELD(base, k->off, bool) = true;
		else if (strcasecmp(items[i], "benchmark") == 0)
			*FIELD(base, k->off2, bool) = true;
		else
			conf_err(ctx, ctx->line, "%s %s: \"%.40s\" is not one of sleep, benchmark", label, k->name,
				 items[i]);
	}
	conf_free_list(items, n);
	free(bad);
}

/* Appends value's entries to the list k names (items at off, count at off2). */
static void set_list(struct conf_ctx *ctx, const struct conf_key *k, void *base, const char *label, const char *value)
{
	char *(*map)(const char *entry, bool *oom);
	char ebuf[64], *bad = NULL;
	int r;

	if (k->type == CT_HOST_LIST)
		map = host_entry;
	else if (k->type == CT_PEER_LIST)
		map = peer_entry;
	else if (k->type == CT_MY_TABLE_LIST)
		map = conf_mysql_table;
	else
		map = conf_normalise_table;
	r = conf_list_append(value, FIELD(base, k->off, char **), FIELD(base, k->off2, size_t), map, &bad);
	if (r == -2)
		conf_err(ctx, ctx->line, "out of memory");
	else if (r < 0 && !*bad)
		conf_err(ctx, ctx->line, "%s %s has an empty entry (two commas, or one at the end); expected %s", label,
			 k->name, conf_expect_text(k, ebuf, sizeof(ebuf)));
	else if (r < 0)
		conf_err(ctx, ctx->line, "%s %s: \"%.40s\" is not valid; expected %s", label, k->name, bad,
			 conf_expect_text(k, ebuf, sizeof(ebuf)));
	free(bad);
}

static void set_password_file(struct conf_ctx *ctx, const struct conf_key *k, void *base, const char *label,
			      const char *value)
{
	char **path = FIELD(base, k->off, char *), **password = FIELD(base, k->off2, char *);
	const char *why = NULL;

	put_string(path, conf_resolve_path(ctx->base_dir, value));
	if (!*path) {
		conf_err(ctx, ctx->line, "out of memory");
		return;
	}
	if (k->type == CT_CA_FILE)
		*password = conf_read_ca(*path, &why);
	else
		*password = (k->type == CT_SECRET_FILE ? conf_read_secret : conf_read_password)(*path, &why);
	if (!*password)
		conf_err(ctx, ctx->line, "%s %s %.120s %s", label, k->name, *path, why);
}

static void set_scram(struct conf_ctx *ctx, char **dst, const char *label, const char *value)
{
	struct scram_verifier v;

	/* The value is never echoed: it might be a password typed in by mistake. */
	if (scram_parse_verifier(value, &v) != 0) {
		conf_err(ctx, ctx->line,
			 "%s scram is not a SCRAM-SHA-256 verifier (SCRAM-SHA-256$<iterations>:"
			 "<salt>$<StoredKey>:<ServerKey>); never a password: make one with "
			 "`airlockd --make-verifier`",
			 label);
		return;
	}
	explicit_bzero(&v, sizeof(v));
	put_string(dst, strdup(value));
	if (!*dst)
		conf_err(ctx, ctx->line, "out of memory");
}

/* The canonical name value gives a runtime or an engine (synonyms accepted), or NULL when it names none. */
static const char *canonical_name(enum conf_type t, const char *value)
{
	if (t == CT_RUNTIME)
		return strcmp(value, "docker") == 0 || strcmp(value, "oci") == 0 ? value : NULL;
	if (t == CT_WRITES)
		return strcmp(value, "deny") == 0 || strcmp(value, "approve") == 0 ? value : NULL;
	if (t == CT_SSLMODE) {
		static const char *const modes[][2] = {
			{"disable", "disabled"},
			{"require", "required"},
			{"verify-ca", "verify_ca"},
			{"verify-full", "verify_identity"},
		};

		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (strcasecmp(value, modes[i][0]) == 0 || strcasecmp(value, modes[i][1]) == 0)
				return modes[i][0];
		return NULL;
	}
	if (strcasecmp(value, "postgres") == 0 || strcasecmp(value, "postgresql") == 0)
		return "postgres";
	if (strcasecmp(value, "mysql") == 0 || strcasecmp(value, "mariadb") == 0)
		return "mariadb";
	return NULL;
}

/* Numbers of each width, as the table stores them. */
static void put_number(const struct conf_key *k, void *base, uint64_t v)
{
	if (k->type == CT_U16)
		*FIELD(base, k->off, uint16_t) = (uint16_t)v;
	else if (k->type == CT_U32)
		*FIELD(base, k->off, uint32_t) = (uint32_t)v;
	else
		*FIELD(base, k->off, uint64_t) = v;
}

static uint64_t get_number(const struct conf_key *k, const void *base)
{
	if (k->type == CT_U16)
		return *CFIELD(base, k->off, uint16_t);
	if (k->type == CT_U32)
		return *CFIELD(base, k->off, uint32_t);
	return *CFIELD(base, k->off, uint64_t);
}

void conf_set(struct conf_ctx *ctx, const struct conf_key *k, void *base, const char *label, const char *value)
{
	char **field = FIELD(base, k->off, char *);
	uint32_t uid, gid;
	char ebuf[64];
	const char *name;
	char *s = NULL;
	uint64_t v;

	switch (k->type) {
	case CT_U16:
	case CT_U32:
	case CT_U64:
	case CT_CPUS:
		if ((k->type == CT_CPUS ? conf_parse_cpus : conf_parse_u64)(value, k->min, k->max, &v) < 0)
			goto out_bad;
		put_number(k, base, v);
		return;
	case CT_BOOL:
		if (!strcasecmp(value, "on") || !strcasecmp(value, "true") || !strcasecmp(value, "yes") ||
		    !strcmp(value, "1"))
			*FIELD(base, k->off, bool) = true;
		else if (!strcasecmp(value, "off") || !strcasecmp(value, "false") || !strcasecmp(value, "no") ||
			 !strcmp(value, "0"))
			*FIELD(base, k->off, bool) = false;
		else
			goto out_bad;
		return;
	case CT_TEXT:
	case CT_HOST:
		if (!(k->type == CT_HOST ? conf_valid_host : conf_valid_text)(value))
			goto out_bad;
		s = strdup(value);
		break;
	case CT_PATH:
	case CT_AUDIT:
		if (!conf_valid_text(value))
			goto out_bad;
		s = k->type == CT_AUDIT && strcmp(value, "-") == 0 ? strdup(value)
								   : conf_resolve_path(ctx->base_dir, value);
		break;
	case CT_LISTEN:
		if (conf_parse_listen(value, &s, FIELD(base, k->off2, uint16_t)) < 0)
			goto out_bad;
		break;
	case CT_MY_NATIVE:
		/* Never echoed: a password typed in by mistake would land in a log. */
		if (!conf_valid_mysql_native(value)) {
			conf_err(ctx, ctx->line,
				 "%s %s is not a mysql_native_password hash (* and 40 hex "
				 "digits); never a password",
				 label, k->name);
			return;
		}
		s = strdup(value);
		break;
	case CT_IMAGE:
	case CT_ROOTFS:
		if (!(k->type == CT_IMAGE ? image_ref_pinned(value) : rootfs_ref_pinned(value, NULL))) {
			conf_err(ctx, ctx->line, "%s %s: IMAGE_UNPINNED: \"%.*s\" is not pinned by digest; use %s",
				 label, k->name, k->type == CT_IMAGE ? 40 : 60, value,
				 k->type == CT_IMAGE ? "sha256:<64 hex> or NAME@sha256:<64 hex>, from "
						       "docker inspect --format '{{.Id}}' IMAGE"
						     : "/ABSOLUTE/PATH.tar@sha256:<64 hex>, from sha256sum PATH.tar");
			return;
		}
		s = strdup(value);
		break;
	case CT_UID_RANGE: {
		char who[128];

		if (conf_parse_uid_range(value, &uid, &gid) < 0)
			goto out_bad;
		/* A uid a host account or group has would let that account reach the runners. */
		if (conf_host_id_in_range(uid, gid, who, sizeof(who))) {
			conf_err(ctx, ctx->line,
				 "%s %s %.40s: %s, so it could reach the runners' sockets and memory; expected %s",
				 label, k->name, value, who, k->expect);
			return;
		}
		s = strdup(value);
		if (s) {
			*FIELD(base, k->off2, uint32_t) = uid;
			*FIELD(base, k->off3, uint32_t) = gid;
		}
		break;
	}
	case CT_RUNTIME:
	case CT_ENGINE:
	case CT_WRITES:
	case CT_SSLMODE:
		name = canonical_name(k->type, value);
		if (!name) {
			conf_err(ctx, ctx->line, "%s %s \"%.40s\" is unknown; expected %s", label, k->name, value,
				 k->expect);
			return;
		}
		s = strdup(name);
		break;
	case CT_PASSWORD_FILE:
	case CT_SECRET_FILE:
	case CT_CA_FILE:
		if (!conf_valid_text(value))
			goto out_bad;
		set_password_file(ctx, k, base, label, value);
		return;
	case CT_WEBHOOK_URL: {
		char *host = NULL;
		const char *why = conf_valid_text(value) ? conf_parse_webhook_url(value, &host) : "not a URL";

		free(host);
		/* Never echoed: a webhook's path often holds its token. */
		if (why) {
			conf_err(ctx, ctx->line, "%s %s: %s; expected %s", label, k->name, why, k->expect);
			return;
		}
		s = strdup(value);
		break;
	}
	case CT_CONNINFO: {
		const char *why = conf_check_conninfo(value);

		/* Never echoed: a value with a password in it is refused for that very reason. */
		if (why) {
			conf_err(ctx, ctx->line, "%s %s: %s; expected %s", label, k->name, why, k->expect);
			return;
		}
		s = strdup(value);
		break;
	}
	case CT_SCRAM:
		set_scram(ctx, field, label, value);
		return;
	case CT_TARGET_REF:
		if (!conf_valid_name(value))
			goto out_bad;
		/* Kept with the user's load-time state; resolved once every target is known. */
		field = FIELD(&ctx->user_meta[ctx->cur_index], k->off, char *);
		s = strdup(value);
		break;
	case CT_HOST_LIST:
	case CT_PEER_LIST:
	case CT_TABLE_LIST:
	case CT_MY_TABLE_LIST:
		set_list(ctx, k, base, label, value);
		return;
	case CT_MY_FUNCS:
		set_functions(ctx, k, base, label, value);
		return;
	case CT_RULE_FILTER:
	case CT_RULE_COLUMNS:
	case CT_RULE_MASK:
		conf_set_rule(ctx, k, base, label, value);
		return;
	}
	if (!s) {
		conf_err(ctx, ctx->line, "out of memory");
		return;
	}
	put_string(field, s);
	return;
out_bad:
	conf_err(ctx, ctx->line, "%s %s: expected %s, got \"%.40s\"", label, k->name,
		 conf_expect_text(k, ebuf, sizeof(ebuf)), value);
}

/* NULL equals only NULL. */
static bool same_string(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_string_at(const void *a, const void *b, size_t off)
{
	return same_string(*CFIELD(a, off, char *), *CFIELD(b, off, char *));
}

static bool same_list(const struct conf_key *k, const void *a, const void *b)
{
	char **ia = *CFIELD(a, k->off, char **), **ib = *CFIELD(b, k->off, char **);
	size_t n = *CFIELD(a, k->off2, size_t), i;

	if (n != *CFIELD(b, k->off2, size_t))
		return false;
	for (i = 0; i < n; i++)
		if (strcmp(ia[i], ib[i]) != 0)
			return false;
	return true;
}

/* How each type's value is kept in the section's struct (offsets as enum conf_type says). */
enum storage {
	ST_LOAD_ONLY, /* not in the section's struct, or freed through another row */
	ST_NUMBER,    /* a number at off, of the type's width */
	ST_STRING,    /* a string at off (CT_UID_RANGE: first and last follow from it) */
	ST_LISTEN,    /* a string at off, a uint16_t port at off2 */
	ST_SECRET,    /* a path at off, the secret read from it at off2 */
	ST_LIST,      /* char ** at off, size_t count at off2 */
	ST_BOOL,      /* a bool at off */
	ST_BOOLS,     /* a bool at off and one at off2 */
	ST_RULES,     /* struct airlock_rule * at off, size_t count at off2 */
};

static const enum storage storage_of[] = {
	[CT_U16] = ST_NUMBER,
	[CT_U32] = ST_NUMBER,
	[CT_U64] = ST_NUMBER,
	[CT_CPUS] = ST_NUMBER,
	[CT_TEXT] = ST_STRING,
	[CT_HOST] = ST_STRING,
	[CT_PATH] = ST_STRING,
	[CT_AUDIT] = ST_STRING,
	[CT_IMAGE] = ST_STRING,
	[CT_ROOTFS] = ST_STRING,
	[CT_RUNTIME] = ST_STRING,
	[CT_ENGINE] = ST_STRING,
	[CT_WRITES] = ST_STRING,
	[CT_SCRAM] = ST_STRING,
	[CT_MY_NATIVE] = ST_STRING,
	[CT_UID_RANGE] = ST_STRING,
	[CT_LISTEN] = ST_LISTEN,
	[CT_PASSWORD_FILE] = ST_SECRET,
	[CT_SECRET_FILE] = ST_SECRET,
	[CT_SSLMODE] = ST_STRING,
	[CT_CA_FILE] = ST_SECRET, /* not secret, but kept and compared the same way */
	[CT_WEBHOOK_URL] = ST_STRING,
	[CT_CONNINFO] = ST_STRING,
	[CT_TARGET_REF] = ST_LOAD_ONLY, /* in struct conf_user_meta, freed with the load's state */
	[CT_HOST_LIST] = ST_LIST,
	[CT_PEER_LIST] = ST_LIST,
	[CT_TABLE_LIST] = ST_LIST,
	[CT_MY_TABLE_LIST] = ST_LIST,
	[CT_MY_FUNCS] = ST_BOOLS,
	[CT_BOOL] = ST_BOOL,
	[CT_RULE_FILTER] = ST_RULES, /* the filter row holds the rules the three rows of its protocol share */
	[CT_RULE_COLUMNS] = ST_LOAD_ONLY,
	[CT_RULE_MASK] = ST_LOAD_ONLY,
};

bool conf_field_equal(const struct conf_key *k, const void *a, const void *b)
{
	switch (storage_of[k->type]) {
	case ST_NUMBER:
		return get_number(k, a) == get_number(k, b);
	case ST_STRING:
		return same_string_at(a, b, k->off);
	case ST_LISTEN:
		return same_string_at(a, b, k->off) && *CFIELD(a, k->off2, uint16_t) == *CFIELD(b, k->off2, uint16_t);
	case ST_SECRET:
		return same_string_at(a, b, k->off) && same_string_at(a, b, k->off2);
	case ST_LIST:
		return same_list(k, a, b);
	case ST_BOOL:
		return *CFIELD(a, k->off, bool) == *CFIELD(b, k->off, bool);
	case ST_BOOLS:
		return *CFIELD(a, k->off, bool) == *CFIELD(b, k->off, bool) &&
		       *CFIELD(a, k->off2, bool) == *CFIELD(b, k->off2, bool);
	case ST_LOAD_ONLY:
	case ST_RULES:
		break;
	}
	/* Not stored in the section's struct (only during the load): never the same. */
	return false;
}

void conf_field_free(const struct conf_key *k, void *base)
{
	char **password;

	switch (storage_of[k->type]) {
	case ST_SECRET:
		put_string(FIELD(base, k->off, char *), NULL);
		password = FIELD(base, k->off2, char *);
		if (*password)
			explicit_bzero(*password, strlen(*password));
		put_string(password, NULL);
		break;
	case ST_STRING:
	case ST_LISTEN:
		put_string(FIELD(base, k->off, char *), NULL);
		break;
	case ST_LIST:
		conf_free_list(*FIELD(base, k->off, char **), *FIELD(base, k->off2, size_t));
		*FIELD(base, k->off, char **) = NULL;
		*FIELD(base, k->off2, size_t) = 0;
		break;
	case ST_RULES:
		conf_free_rules(*FIELD(base, k->off, struct airlock_rule *), *FIELD(base, k->off2, size_t));
		*FIELD(base, k->off, struct airlock_rule *) = NULL;
		*FIELD(base, k->off2, size_t) = 0;
		break;
	case ST_NUMBER:
	case ST_BOOL:
	case ST_BOOLS:
	case ST_LOAD_ONLY:
		break;
	}
}
