/*
 * validate_my_versioned: the text inside versioned comments, as the server
 * would read it. See validate_my_versioned.h.
 *
 * One pass over the bytes, never past len, output in place and of the
 * same length: a comment's markers become spaces, its content stays where
 * it was (or becomes spaces too when its version is above the server's),
 * so every offset the validator reports still points into what the client
 * sent.
 */
#include "validator/mysql/validate_my_versioned.h"

#include <string.h>

/* Blanks n bytes at p, keeping line breaks (a "--" comment ends at one). */
static void blank(char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\n')
			p[i] = ' ';
	}
}

/* The end of a quoted run that starts at i (sql[i] is the quote), one past the closing quote; 0 when open. */
static size_t quoted_end(const char *sql, size_t len, size_t i, bool backslash)
{
	char q = sql[i];

	for (i++; i < len; i++) {
		if (backslash && sql[i] == '\\') {
			i++;
			continue;
		}
		if (sql[i] == q) {
			if (i + 1 < len && sql[i + 1] == q) {
				i++;
				continue;
			}
			return i + 1;
		}
	}
	return 0;
}

/* Digits of a version right after the marker: 5 or 6 of them, else none is read (n 0) or it is bad. */
static bool version_at(const char *sql, size_t len, size_t at, size_t *n, unsigned long *version)
{
	size_t k = 0;

	*version = 0;
	while (at + k < len && k < 7 && sql[at + k] >= '0' && sql[at + k] <= '9') {
		*version = *version * 10 + (unsigned long)(sql[at + k] - '0');
		k++;
	}
	*n = k;
	return k == 0 || k == 5 || k == 6;
}

enum vmy_versioned vmy_expand_versioned(char *sql, size_t len, bool ansi_quotes, bool no_backslash_escapes)
{
	size_t i = 0;
	bool inside = false, dropped = false, any = false;

	while (i < len) {
		char c = sql[i];

		if (c == '\'' || c == '"' || c == '`') {
			/* Backslash escapes strings only: not an identifier (backticks, or "..." under ANSI_QUOTES). */
			bool ident = c == '`' || (c == '"' && ansi_quotes);
			size_t end = quoted_end(sql, len, i, !ident && !no_backslash_escapes);

			if (!end)
				return VMY_VERSIONED_UNSURE;
			if (dropped)
				blank(sql + i, end - i);
			i = end;
			continue;
		}
		if (c == '/' && i + 1 < len && sql[i + 1] == '*') {
			size_t mark = 2;
			unsigned long version;
			size_t digits;

			if (i + 2 < len && sql[i + 2] == '!')
				mark = 3;
			else if (i + 3 < len && (sql[i + 2] == 'M' || sql[i + 2] == 'm') && sql[i + 3] == '!')
				mark = 4;
			/* A comment in a versioned one: where it ends is not certain. */
			if (inside)
				return VMY_VERSIONED_UNSURE;
			if (mark == 2) {
				const char *end = NULL;

				for (size_t k = i + 2; k + 1 < len; k++) {
					if (sql[k] == '*' && sql[k + 1] == '/') {
						end = sql + k + 2;
						break;
					}
				}
				if (!end)
					return VMY_VERSIONED_UNSURE;
				i = (size_t)(end - sql);
				continue;
			}
			if (!version_at(sql, len, i + mark, &digits, &version))
				return VMY_VERSIONED_UNSURE;
			any = true;
			inside = true;
			dropped = digits > 0 && version > VMY_VERSIONED_SERVER;
			blank(sql + i, mark + digits);
			i += mark + digits;
			continue;
		}
		if (inside && c == '*' && i + 1 < len && sql[i + 1] == '/') {
			blank(sql + i, 2);
			inside = false;
			dropped = false;
			i += 2;
			continue;
		}
		/* "--" and "#" comments run to the line's end, past a closing marker: not certain either. */
		if (c == '#' || (c == '-' && i + 2 < len && sql[i + 1] == '-' &&
				 (sql[i + 2] == ' ' || sql[i + 2] == '\t' || sql[i + 2] == '\n'))) {
			if (inside)
				return VMY_VERSIONED_UNSURE;
			while (i < len && sql[i] != '\n')
				i++;
			continue;
		}
		if (dropped)
			blank(sql + i, 1);
		i++;
	}
	if (inside)
		return VMY_VERSIONED_UNSURE;
	return any ? VMY_VERSIONED_EXPANDED : VMY_VERSIONED_NONE;
}
