/*
 * validate_pg_util: see validate_pg_util.h.
 */
#include "validator/pg/validate_pg_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void pgv_refuse(struct pgv_result *out, enum airlock_err code, enum airlock_native native, int cursor_pos,
		const char *hint, const char *fmt, ...)
{
	va_list ap;

	out->kind = PGV_REFUSED;
	snprintf(out->sqlstate, sizeof(out->sqlstate), "%s", airlock_pg_sqlstate(code, native));
	out->code = code;
	out->cursor_pos = cursor_pos;
	snprintf(out->hint, sizeof(out->hint), "%s", hint ? hint : "");
	va_start(ap, fmt);
	vsnprintf(out->message, sizeof(out->message), fmt, ap);
	va_end(ap);
}

int pgv_cursor_from_offset(const char *sql, long long offset)
{
	long long i;
	int chars = 0;

	if (offset < 0)
		return 0;
	for (i = 0; i < offset; i++) {
		if (sql[i] == '\0')
			return 0;
		/* Count UTF-8 lead bytes only, as Postgres counts characters. */
		if (((unsigned char)sql[i] & 0xC0) != 0x80)
			chars++;
		if (chars == 0x7fffffff)
			return 0;
	}
	return chars + 1;
}

int pgv_cursor_of(const char *sql, json_t *node)
{
	json_t *loc = json_object_get(node, "location");

	if (!json_is_integer(loc))
		return 0;
	return pgv_cursor_from_offset(sql, json_integer_value(loc));
}

const char *pgv_str(json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

bool pgv_lower_copy(char *dst, size_t dstsz, const char *src)
{
	size_t i;

	if (dstsz == 0)
		return false;
	for (i = 0; src[i] != '\0'; i++) {
		if (i + 1 >= dstsz) {
			dst[i] = '\0';
			return false;
		}
		dst[i] = (src[i] >= 'A' && src[i] <= 'Z') ? (char)(src[i] + 32) : src[i];
	}
	dst[i] = '\0';
	return true;
}

const char *pgv_enum_word(json_t *obj, const char *key, const struct pgv_word *words, size_t n, const char *dflt)
{
	const char *value = pgv_str(obj, key);

	for (size_t i = 0; value && i < n; i++) {
		if (strcmp(value, words[i].value) == 0)
			return words[i].word;
	}
	return dflt;
}

bool pgv_catalog_first(const struct pgv_policy *p)
{
	for (size_t i = 0; i < p->nsearch_path; i++) {
		if (p->search_path[i] && !strcmp(p->search_path[i], "pg_catalog"))
			return i == 0;
	}
	return true;
}
