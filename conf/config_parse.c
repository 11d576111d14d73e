/*
 * config_parse: the INI text into struct airlock_config, one key at a time.
 *
 * inih splits lines into key = value and calls on_key. It is fed through
 * line_reader, which counts lines (this inih build does not pass line
 * numbers to handlers), sees section headers itself (inih reports empty
 * sections to nobody), cuts "#" and ";" comments, refuses lines inih would
 * truncate, and lets an indented line continue only a list key (tables,
 * allow). on_key finds the key's row in the table (config_keys.c) and
 * stores the value (config_store.c).
 */
#define _GNU_SOURCE
#include "conf/config_internal.h"

#include <ctype.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	conf_apply_defaults(ctx, SECT_TARGET, &cfg->targets[i]);
	return;
out_oom:
	conf_err(ctx, line, "out of memory");
}

static void begin_user(struct conf_ctx *ctx, const char *name, unsigned line)
{
	struct airlock_config *cfg = ctx->cfg;
	size_t cap = ctx->cap_users, i;

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
	cfg->users[i].name = strdup(name);
	if (!cfg->users[i].name)
		goto out_oom;
	ctx->user_meta[i].seen.header_line = line;
	cfg->nusers++;
	ctx->cur = SECT_USER;
	ctx->cur_index = i;
	conf_apply_defaults(ctx, SECT_USER, &cfg->users[i]);
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
	ctx->list_key = NULL;
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

/* An indented line continuing ctx->list_key: more entries. */
static void on_continuation(struct conf_ctx *ctx, const char *value)
{
	struct conf_seen *seen;
	char lbuf[96];
	void *base = section_base(ctx, &seen);

	conf_set(ctx, ctx->list_key, base, section_label(ctx, lbuf, sizeof(lbuf)), value);
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct conf_ctx *ctx = user;
	const struct conf_key *k;
	struct conf_seen *seen;
	char lbuf[96], names[200];
	const char *label;
	size_t i;
	void *base;

	(void)section; /* line_reader reads the headers: see the top of the file */
	if (ctx->continuation && value && strcasecmp(name, ctx->list_key->name) == 0) {
		on_continuation(ctx, value);
		return 1;
	}
	if (!value) {
		conf_err(ctx, ctx->line, "expected \"key = value\" or a [section] header");
		return 1;
	}
	if (!*name) {
		/* line_reader keeps these lines from inih: a backstop */
		conf_err(ctx, ctx->line, "a key name is missing");
		ctx->list_key = NULL;
		return 1;
	}
	if (ctx->cur == SECT_NONE) {
		conf_err(ctx, ctx->line, "key \"%.40s\" comes before any [section]", name);
		return 1;
	}
	if (ctx->cur == SECT_BAD)
		return 1; /* the header was already reported */
	label = section_label(ctx, lbuf, sizeof(lbuf));
	base = section_base(ctx, &seen);
	ctx->list_key = NULL;
	k = conf_find_key(ctx->cur, name);
	if (!k) {
		conf_key_names(ctx->cur, names, sizeof(names));
		conf_err(ctx, ctx->line, "%s has no key \"%.40s\"; known keys: %s", label, name, names);
		return 1;
	}
	i = (size_t)(k - conf_keys);
	if (seen->key_line[i]) {
		conf_err(ctx, ctx->line, "%s %s is set twice (first on line %u)", label, k->name, seen->key_line[i]);
		return 1;
	}
	seen->key_line[i] = ctx->line;
	if (conf_type_is_list(k->type))
		ctx->list_key = k;
	conf_set(ctx, k, base, label, value);
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
	if (indented && ctx->list_key && !memchr(s, '=', n)) {
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
