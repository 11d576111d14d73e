/*
 * validate_my_parse: the token cursor the MySQL validator's parsers share,
 * and the helpers that fill a refusal. The parser reads tokens from a
 * validate_my_lex lexer with a few tokens of lookahead; a ';' reads as
 * the end of the statement (validate_my has already checked that nothing
 * but ';' and comments follows it). Everything lives in the struct: no
 * allocation. The parser borrows the policy, the text and the result.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_PARSE_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "validator/mysql/validate_my.h"
#include "validator/mysql/validate_my_lex.h"

#define VMY_LOOKAHEAD 4
#define VMY_MAX_DEPTH 128 /* nested parentheses and subqueries */
#define VMY_MAX_CTES 256  /* CTE names visible at once */
#define VMY_CTE_POOL 8192 /* bytes of CTE names visible at once */
#define VMY_NAME_MAX 256  /* bytes of one unquoted name, NUL included */

struct vmy_la {
	struct vmy_token tok;
	struct vmy_lexer before; /* lexer state before this token */
};

struct vmy_parser {
	const struct vmy_policy *pol;
	struct vmy_result *out;
	const char *sql;
	size_t len;
	struct vmy_lexer lx; /* position after the lookahead tokens */
	struct vmy_la la[VMY_LOOKAHEAD];
	unsigned nla;
	size_t last_end; /* end offset of the last token consumed */
	int depth;
	bool failed; /* out holds a refusal: unwind */
	/* CTE names in scope, innermost last */
	struct {
		uint32_t off;
		uint16_t len;
	} cte[VMY_MAX_CTES];
	size_t ncte;
	char cte_pool[VMY_CTE_POOL];
	size_t cte_used;
	/* forbid_select_star (validate_my_star.h): the query read now gives the result's columns; the
	 * first star found in them, as its offset + 1 (0: none). */
	bool star_output;
	size_t star_at;
};

/* A saved position, to try one reading and fall back to another. */
struct vmy_mark {
	struct vmy_lexer lx;
	struct vmy_la la[VMY_LOOKAHEAD];
	unsigned nla;
	size_t last_end;
	size_t nscoped; /* out->scope.nrefs */
};

void vmy_parser_init(struct vmy_parser *p, const struct vmy_policy *pol, const char *sql, size_t len,
		     struct vmy_result *out);

/* The k-th token ahead (0: the current one); a ';' reads as VMY_T_END. */
const struct vmy_token *vmy_peek(struct vmy_parser *p, unsigned k);

/* Consumes the current token. */
void vmy_next(struct vmy_parser *p);

void vmy_save(const struct vmy_parser *p, struct vmy_mark *m);
void vmy_restore(struct vmy_parser *p, const struct vmy_mark *m);

/* Lexer state at the current token, for scanning further ahead by hand. */
struct vmy_lexer vmy_lexer_here(struct vmy_parser *p);

/* Whether t is the keyword kw (upper-case ASCII), case-insensitively. */
bool vmy_is_kw(const struct vmy_parser *p, const struct vmy_token *t, const char *kw);
/* Same for the k-th token ahead. */
bool vmy_kw_at(struct vmy_parser *p, unsigned k, const char *kw);
/* Consumes the current token when it is the keyword kw. */
bool vmy_accept_kw(struct vmy_parser *p, const char *kw);
/* Whether the k-th token ahead is the punctuation s. */
bool vmy_punct_at(struct vmy_parser *p, unsigned k, const char *s);
bool vmy_accept_punct(struct vmy_parser *p, const char *s);
/* Whether the current token ends the statement. */
bool vmy_at_end(struct vmy_parser *p);

/* Whether t is a word (either case) equal to name, ignoring kw. */
bool vmy_word_is(const struct vmy_parser *p, const struct vmy_token *t, const char *name);

/*
 * Name of a WORD or QIDENT token, unquoted, into buf (VMY_NAME_MAX).
 * Refuses (SYNTAX) and returns false for other tokens, empty names and
 * names too long.
 */
bool vmy_take_name(struct vmy_parser *p, const struct vmy_token *t, char *buf, size_t size);
/* The same for the current token, passed over when it is a name. */
bool vmy_accept_name(struct vmy_parser *p, char *buf, size_t size);

/*
 * A NUMBER token of plain decimal digits at the current token, its value
 * (LONG_MAX when it does not fit) in *v, passed over. False, with
 * nothing refused or passed over, for anything else.
 */
bool vmy_accept_number(struct vmy_parser *p, long *v);

/* Enter a nesting level; refuses (TOO_COMPLEX) past VMY_MAX_DEPTH. */
bool vmy_enter(struct vmy_parser *p);
void vmy_leave(struct vmy_parser *p);

/*
 * Fills out with a refusal (first one wins) and marks the parser failed:
 * code and native as the proxy's replies take them (base/errors.h).
 */
__attribute__((format(printf, 5, 6))) void vmy_refuse(struct vmy_parser *p, enum airlock_err code,
						      enum airlock_native native, const char *hint, const char *fmt,
						      ...);

/* A 1064 refusal "... near '<text at offset>' at line N" with the given code and hint. */
void vmy_refuse_near(struct vmy_parser *p, size_t at, enum airlock_err code, const char *hint);

/* Same for the current token, code SYNTAX. */
void vmy_syntax(struct vmy_parser *p, const char *hint);
/* ok; when it is false, first vmy_syntax(p, hint). */
bool vmy_expect(struct vmy_parser *p, bool ok, const char *hint);

/* NOT_READ_ONLY (1792, 25006) for a statement or clause described by what. */
void vmy_refuse_write(struct vmy_parser *p, const char *what);

/* Result-level variants of vmy_refuse / vmy_refuse_near (no parser). */
__attribute__((format(printf, 5, 6))) void vmy_result_refuse(struct vmy_result *out, enum airlock_err code,
							     enum airlock_native native, const char *hint,
							     const char *fmt, ...);
void vmy_result_near(struct vmy_result *out, const char *sql, size_t len, size_t at, enum airlock_err code,
		     const char *hint);

/* Copies src (n bytes) into dst of size dsz, lower-cased; false if it does not fit. */
bool vmy_lower_copy(char *dst, size_t dsz, const char *src, size_t n);

#endif
