/*
 * admin_cmd: the console's command line, split into at most three words
 * in a fixed buffer, then matched against the one list of commands.
 */
#include "proxy/admin_cmd.h"

#include <stdbool.h>
#include <string.h>
#include <strings.h>

#define ADMIN_CMD_WORDS 3

struct cmd_def {
	enum admin_cmd_kind kind;
	const char *tag;
	const char *w1, *w2; /* w2 NULL: one word; "": one word and a number */
};

static const struct cmd_def defs[] = {
#define ADMIN_CMD_DEF(name, tag, w1, w2) {ADMIN_CMD_##name, tag, w1, w2},
	ADMIN_CMDS(ADMIN_CMD_DEF)
#undef ADMIN_CMD_DEF
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* A decimal id without sign: 1 to 10 digits, at most UINT32_MAX. */
static bool parse_id(const char *w, uint32_t *id)
{
	uint64_t v = 0;
	size_t n = 0;

	for (; w[n]; n++) {
		if (w[n] < '0' || w[n] > '9' || n >= 10)
			return false;
		v = v * 10 + (uint64_t)(w[n] - '0');
	}
	if (n == 0 || v > UINT32_MAX)
		return false;
	*id = (uint32_t)v;
	return true;
}

/* Splits text into words (in buf, NUL-separated); false when it has more than ADMIN_CMD_WORDS. */
static bool split(char *buf, char *words[ADMIN_CMD_WORDS], size_t *nwords)
{
	char *p = buf;

	*nwords = 0;
	for (;;) {
		while (is_space(*p))
			p++;
		if (!*p)
			return true;
		if (*nwords == ADMIN_CMD_WORDS)
			return false;
		words[(*nwords)++] = p;
		while (*p && !is_space(*p))
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static enum admin_cmd_kind result(struct admin_cmd *out, enum admin_cmd_kind kind, const char *why)
{
	out->kind = kind;
	out->why = why;
	return kind;
}

enum admin_cmd_kind admin_cmd_parse(const char *text, struct admin_cmd *out)
{
	char buf[ADMIN_CMD_MAX + 1], *words[ADMIN_CMD_WORDS];
	size_t len = strnlen(text, ADMIN_CMD_MAX + 1), nwords;

	memset(out, 0, sizeof(*out));
	if (len > ADMIN_CMD_MAX)
		return result(out, ADMIN_CMD_BAD, "the command is too long");
	memcpy(buf, text, len);
	buf[len] = '\0';
	/* One trailing semicolon, whitespace on either side of it. */
	while (len && is_space(buf[len - 1]))
		buf[--len] = '\0';
	if (len && buf[len - 1] == ';')
		buf[--len] = '\0';
	if (!split(buf, words, &nwords))
		return result(out, ADMIN_CMD_UNKNOWN, "unknown admin command");
	if (nwords == 0)
		return result(out, ADMIN_CMD_BAD, "empty command");
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		const struct cmd_def *d = &defs[i];

		if (strcasecmp(words[0], d->w1) != 0)
			continue;
		if (!d->w2) {
			if (nwords == 1)
				return result(out, d->kind, NULL);
			continue;
		}
		if (!*d->w2) {
			if (nwords != 2 || !parse_id(words[1], &out->id))
				return result(out, ADMIN_CMD_BAD,
					      "expected KILL_CLIENT <id>, the id as SHOW CLIENTS lists it");
			return result(out, d->kind, NULL);
		}
		if (nwords == 2 && strcasecmp(words[1], d->w2) == 0)
			return result(out, d->kind, NULL);
	}
	return result(out, ADMIN_CMD_UNKNOWN, "unknown admin command");
}

const char *admin_cmd_name(enum admin_cmd_kind kind)
{
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (defs[i].kind == kind)
			return defs[i].tag;
	return "";
}
