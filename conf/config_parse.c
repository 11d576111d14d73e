/*
 * config_parse: the INI text into struct airlock_config, through inih.
 *
 * inih (Debian's libinih) does the line syntax: it splits key = value (or
 * key: value), trims both, cuts comments (";" or "#" starting a line or
 * following whitespace), skips a BOM and CRs, and hands an indented line to
 * on_key as a continuation of the key before it. line_reader feeds it the
 * text one line at a time and adds only what that build cannot do or does
 * differently from airlock's rules: it counts lines (handlers get no line
 * number); it reads section headers itself, because inih reports no empty
 * section, cannot tell two [user x] sections apart and cuts names at 49
 * characters; it refuses a line that says more than CONF_MAX_LINE
 * characters (comments aside); it reports a line with no key before its
 * '=' (inih would pass an empty name and end the list around it); and it
 * lets an indented line continue only a list key (tables, allow), handing
 * any other indented line on without its indent. on_key finds the key's
 * row in the table (config_keys.c) and stores the value (config_store.c).
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
	case SECT_APPROVER:
		snprintf(buf, cap, "[approver %s]", ctx->cfg->approvers[ctx->cur_index].name);
		return buf;
	case SECT_ADMIN:
		snprintf(buf, cap, "[admin %s]", ctx->cfg->admins[ctx->cur_index].name);
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

/*
 * The named sections ([target NAME], [user NAME]): where each keeps its
 * entries (an array and its count in struct airlock_config) and the load's
 * parallel array holding each entry's struct conf_seen (in struct
 * conf_ctx); the two arrays grow together and share one capacity.
 */
struct named_section {
	const char *kind;
	enum conf_section sect;
	size_t entries_off, count_off; /* in struct airlock_config */
	size_t entry_size, name_off;   /* an entry, and its char *name */
	size_t meta_off, cap_off;      /* in struct conf_ctx */
	size_t meta_size, seen_off;    /* a meta element, and its struct conf_seen */
};

static const struct named_section named_sections[] = {
	{"target", SECT_TARGET, offsetof(struct airlock_config, targets), offsetof(struct airlock_config, ntargets),
	 sizeof(struct airlock_target), offsetof(struct airlock_target, name), offsetof(struct conf_ctx, target_seen),
	 offsetof(struct conf_ctx, cap_targets), sizeof(struct conf_seen), 0},
	{"user", SECT_USER, offsetof(struct airlock_config, users), offsetof(struct airlock_config, nusers),
	 sizeof(struct airlock_user), offsetof(struct airlock_user, name), offsetof(struct conf_ctx, user_meta),
	 offsetof(struct conf_ctx, cap_users), sizeof(struct conf_user_meta), offsetof(struct conf_user_meta, seen)},
	{"approver", SECT_APPROVER, offsetof(struct airlock_config, approvers),
	 offsetof(struct airlock_config, napprovers), sizeof(struct airlock_approver),
	 offsetof(struct airlock_approver, name), offsetof(struct conf_ctx, approver_seen),
	 offsetof(struct conf_ctx, cap_approvers), sizeof(struct conf_seen), 0},
	{"admin", SECT_ADMIN, offsetof(struct airlock_config, admins), offsetof(struct airlock_config, nadmins),
	 sizeof(struct airlock_admin), offsetof(struct airlock_admin, name), offsetof(struct conf_ctx, admin_seen),
	 offsetof(struct conf_ctx, cap_admins), sizeof(struct conf_seen), 0},
};

#define MEMBER(base, off, type) ((type *)(void *)((char *)(base) + (off)))

/* Opens [kind name] as a new entry of s, unless that name has one already. */
static void begin_named(struct conf_ctx *ctx, const struct named_section *s, const char *name, unsigned line)
{
	void **entries = MEMBER(ctx->cfg, s->entries_off, void *), **meta = MEMBER(ctx, s->meta_off, void *);
	size_t *count = MEMBER(ctx->cfg, s->count_off, size_t), *ctx_cap = MEMBER(ctx, s->cap_off, size_t);
	size_t cap = *ctx_cap, i;
	char **entry_name;

	for (i = 0; i < *count; i++) {
		if (strcmp(*MEMBER(*entries, i * s->entry_size + s->name_off, char *), name) == 0) {
			conf_err(ctx, line, "[%s %s] is defined twice (first on line %u)", s->kind, name,
				 MEMBER(*meta, i * s->meta_size + s->seen_off, struct conf_seen)->header_line);
			return;
		}
	}
	if (grow(entries, &cap, *count, s->entry_size) < 0 || grow(meta, ctx_cap, *count, s->meta_size) < 0)
		goto out_oom;
	*ctx_cap = cap;
	i = *count;
	entry_name = MEMBER(*entries, i * s->entry_size + s->name_off, char *);
	*entry_name = strdup(name);
	if (!*entry_name)
		goto out_oom;
	MEMBER(*meta, i * s->meta_size + s->seen_off, struct conf_seen)->header_line = line;
	(*count)++;
	ctx->cur = s->sect;
	ctx->cur_index = i;
	conf_apply_defaults(ctx, s->sect, MEMBER(*entries, i * s->entry_size, char));
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
	for (size_t i = 0; i < sizeof(named_sections) / sizeof(named_sections[0]); i++) {
		const struct named_section *ns = &named_sections[i];

		if (strcasecmp(kind, ns->kind) != 0)
			continue;
		if (!name || extra || !conf_valid_name(name)) {
			conf_err(ctx, line,
				 "expected [%s NAME] where NAME is 1 to %d characters from "
				 "A-Z a-z 0-9 _ . @ -",
				 ns->kind, CONF_MAX_NAME);
			return;
		}
		begin_named(ctx, ns, name, line);
		return;
	}
out_unknown:
	conf_err(ctx, line,
		 "unknown section [%.40s]; expected [server], [hosts], [target NAME], [user NAME], [approver NAME] or "
		 "[admin NAME]",
		 kind ? kind : "");
}

/* ---- inih glue ----------------------------------------------------------- */

/* inih's comment rule: where in s[0..n) a ';' or '#' starts one (at 0 or after whitespace), else n. */
static size_t comment_at(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((s[i] == ';' || s[i] == '#') && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t'))
			return i;
	return n;
}

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
	case SECT_APPROVER:
		*seen = &ctx->approver_seen[ctx->cur_index];
		return &ctx->cfg->approvers[ctx->cur_index];
	case SECT_ADMIN:
		*seen = &ctx->admin_seen[ctx->cur_index];
		return &ctx->cfg->admins[ctx->cur_index];
	default:
		*seen = NULL;
		return NULL;
	}
}

/* An indented line continuing ctx->list_key: more entries. */
static void on_continuation(struct conf_ctx *ctx, const char *value)
{
	char lbuf[96], entries[CONF_INI_BUFFER];
	struct conf_seen *seen;
	size_t n = strlen(value);
	void *base = section_base(ctx, &seen);

	/* This inih cuts inline comments from key lines only. */
	n = comment_at(value, n);
	while (n && isspace((unsigned char)value[n - 1]))
		n--;
	memcpy(entries, value, n);
	entries[n] = '\0';
	conf_set(ctx, ctx->list_key, base, section_label(ctx, lbuf, sizeof(lbuf)), entries);
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
#ifdef AIRLOCK_VALIDATOR_BYPASS
	/* Test builds only, so outside the key table and its documentation: see CMakeLists.txt. */
	if (ctx->cur == SECT_SERVER && strcasecmp(name, "validator_bypass") == 0) {
		if (strcasecmp(value, "on") != 0 && strcasecmp(value, "off") != 0)
			conf_err(ctx, ctx->line, "validator_bypass must be on or off");
		ctx->cfg->validator_bypass = strcasecmp(value, "on") == 0;
		return 1;
	}
#endif
	k = conf_find_key(ctx->cur, name);
	if (!k) {
		conf_key_names(ctx->cur, names, sizeof(names));
		conf_err(ctx, ctx->line, "%s has no key \"%.40s\"; known keys: %s", label, name, names);
		return 1;
	}
	i = (size_t)(k - conf_keys);
	if (k->flags & CONF_PREFIX) {
		/* Set once per table or column: config_rules.c keeps track. */
		ctx->key_suffix = name + strlen(k->name);
		conf_set_rule(ctx, k, base, label, value);
		ctx->key_suffix = NULL;
		return 1;
	}
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

/* Copies prefix, s[0..n) and a newline into str, which has room for them. */
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
	const char *s, *nl, *lead, *t;
	size_t n, rest, said;
	bool indented;

	if (ctx->pos >= ctx->len || num < 4)
		return NULL;
	s = ctx->text + ctx->pos;
	nl = memchr(s, '\n', ctx->len - ctx->pos);
	n = nl ? (size_t)(nl - s) : ctx->len - ctx->pos;
	ctx->pos += n + (nl ? 1 : 0);
	ctx->line++;

	lead = s;
	if (ctx->line == 1 && n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
		lead += 3;
	for (t = lead; t < s + n && isspace((unsigned char)*t); t++)
		;
	rest = (size_t)(s + n - t);
	while (rest && isspace((unsigned char)t[rest - 1]))
		rest--;
	/* The limit is on what a line says; a comment may run on. */
	said = comment_at(t, rest);
	while (said && isspace((unsigned char)t[said - 1]))
		said--;
	indented = said && t > lead;
	/* An indented line continues only a list key, and only with entries (no '='). */
	ctx->continuation = indented && ctx->list_key && !memchr(t, '=', said);
	if (said > CONF_MAX_LINE) {
		conf_err(ctx, ctx->line,
			 "line is longer than %d characters; continue a long list on "
			 "indented lines",
			 CONF_MAX_LINE);
		ctx->continuation = false;
		return emit(str, "", "", 0);
	}
	if (said && t[0] == '[') {
		begin_section(ctx, t, said);
		return emit(str, "", "[]", 2); /* inih forgets the key a continuation would follow */
	}
	if (!ctx->continuation && said && (t[0] == '=' || t[0] == ':')) {
		/* inih would pass an empty name and forget the list this line sits in. */
		conf_err(ctx, ctx->line, "a key name is missing before '%c'", t[0]);
		return emit(str, "", "", 0);
	}
	/* Too long for inih's buffer only because of its comment: what it says is enough. */
	if (n + 3 > (size_t)num)
		return emit(str, ctx->continuation ? " " : "", t, said);
	/* Any other indented line is a line of its own, not a continuation. */
	if (indented && !ctx->continuation)
		return emit(str, "", t, rest);
	return emit(str, "", s, n);
}

void conf_parse(struct conf_ctx *ctx)
{
	static char comment_chars[] = ";#";
	int r;

	/*
	 * Debian's libinih keeps its options in process-wide variables; set the
	 * ones this parser relies on every time (airlock has no other inih user).
	 */
	ini_allow_bom = true;
	ini_allow_multiline = true;
	ini_allow_inline_comments = true;
	ini_inline_comment_prefixes = comment_chars;
	ini_start_comment_prefixes = comment_chars;
	ini_allow_no_value = true; /* a line without '=' reaches on_key, which names it */
	ini_stop_on_first_error = false;
	ini_use_stack = true;
	ini_max_line = CONF_INI_BUFFER;
	r = ini_parse_stream(line_reader, ctx, on_key, ctx);
	/* on_key accepts every line and the reader never hands on a bad header: a backstop. */
	if (r > 0)
		conf_err(ctx, (unsigned)r, "not a valid INI line");
	else if (r < 0)
		conf_err(ctx, 0, "the config could not be parsed (out of memory)");
}
