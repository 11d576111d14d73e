/*
 * validate_pg_cursor: DECLARE ... CURSOR FOR <query>, FETCH and CLOSE.
 *
 * A cursor's query is what a runner will execute, so it is located in the
 * text (after the FOR that ends the DECLARE header) and validated on its
 * own as a complete statement: it must be a read that passes every check a
 * plain SELECT passes.
 */
#include "validator/pg/validate_pg_cursor.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "validator/pg/validate_pg_util.h"

/* Cursor option bits from Postgres' parsenodes.h. */
#define CURSOR_OPT_BINARY 0x0001
#define CURSOR_OPT_SCROLL 0x0002
#define CURSOR_OPT_HOLD 0x0020

/* Skips whitespace and comments (block comments nest, as in Postgres). */
static const char *skip_space(const char *p)
{
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			int depth = 1;

			p += 2;
			while (*p && depth) {
				if (p[0] == '/' && p[1] == '*') {
					depth++;
					p += 2;
				} else if (p[0] == '*' && p[1] == '/') {
					depth--;
					p += 2;
				} else {
					p++;
				}
			}
			continue;
		}
		return p;
	}
}

/* One identifier or keyword; quoted identifiers may hold "" pairs. Returns NULL if none. */
static const char *skip_word(const char *p, char *word, size_t wlen)
{
	size_t n = 0;

	if (*p == '"') {
		p++;
		while (*p && !(*p == '"' && p[1] != '"')) {
			if (*p == '"')
				p++;
			p++;
		}
		if (*p != '"')
			return NULL;
		word[0] = '\0';
		return p + 1;
	}
	if (!(isalpha((unsigned char)*p) || *p == '_' || (unsigned char)*p >= 0x80))
		return NULL;
	while (isalnum((unsigned char)*p) || *p == '_' || *p == '$' || (unsigned char)*p >= 0x80) {
		if (n + 1 < wlen)
			word[n++] = *p;
		p++;
	}
	word[n] = '\0';
	return p;
}

/* Offset of the query after "DECLARE name [options] CURSOR [WITH[OUT] HOLD] FOR", or -1. */
static long query_offset(const char *sql)
{
	static const char *const header_words[] = {"binary", "insensitive", "asensitive", "no",  "scroll",
						   "cursor", "with",        "without",    "hold"};
	const char *p = skip_space(sql);
	char word[32];

	p = skip_word(p, word, sizeof(word));
	if (!p || strcasecmp(word, "declare") != 0)
		return -1;
	p = skip_word(skip_space(p), word, sizeof(word)); /* the cursor's name */
	if (!p)
		return -1;
	for (;;) {
		size_t i;

		p = skip_word(skip_space(p), word, sizeof(word));
		if (!p)
			return -1;
		if (!strcasecmp(word, "for"))
			return p - sql;
		for (i = 0; i < sizeof(header_words) / sizeof(header_words[0]); i++)
			if (!strcasecmp(word, header_words[i]))
				break;
		if (i == sizeof(header_words) / sizeof(header_words[0]))
			return -1;
	}
}

enum pgv_kind pgv_cursor_declare(const char *sql, json_t *body, struct pgv_result *out)
{
	json_t *opts = json_object_get(body, "options");
	long options = json_is_integer(opts) ? (long)json_integer_value(opts) : 0;
	const char *name = pgv_str(body, "portalname");
	long off;

	if (options & (CURSOR_OPT_BINARY | CURSOR_OPT_SCROLL)) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, "declare a plain forward-only text cursor",
			   "BINARY and SCROLL cursors are not supported");
		return out->kind;
	}
	off = query_offset(sql);
	if (!name || off < 0) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0,
			   "use DECLARE name CURSOR [WITHOUT HOLD] FOR SELECT ...", "unsupported form of DECLARE");
		return out->kind;
	}
	out->kind = PGV_DECLARE;
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->hold = (options & CURSOR_OPT_HOLD) != 0;
	out->query_offset = (size_t)off;
	return out->kind;
}

enum pgv_kind pgv_cursor_fetch(json_t *body, struct pgv_result *out)
{
	const char *name = pgv_str(body, "portalname");
	const char *dir = pgv_str(body, "direction");
	json_t *count = json_object_get(body, "howMany");
	bool move = json_is_true(json_object_get(body, "ismove"));

	if ((dir && strcmp(dir, "FETCH_FORWARD") != 0) || !json_is_integer(count) || json_integer_value(count) <= 0 ||
	    !name) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0,
			   move ? "use MOVE [FORWARD] n or MOVE ALL" : "use FETCH [FORWARD] n or FETCH ALL",
			   "only forward %s of one or more rows are supported", move ? "moves" : "fetches");
		return out->kind;
	}
	out->kind = PGV_FETCH;
	out->move = move;
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->count = (uint64_t)json_integer_value(count);
	return out->kind;
}

enum pgv_kind pgv_cursor_close(json_t *body, struct pgv_result *out)
{
	const char *name = pgv_str(body, "portalname");

	out->kind = PGV_CLOSE_CURSOR;
	/* CLOSE ALL has no name. */
	snprintf(out->name, sizeof(out->name), "%s", name ? name : "");
	return out->kind;
}
