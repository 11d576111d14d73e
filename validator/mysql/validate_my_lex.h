/*
 * validate_my_lex: a lexer for MySQL/MariaDB statement text that cuts
 * tokens exactly where the server's lexer (sql_lex.cc, utf8mb4 client
 * character set) cuts them, so that a string, comment or identifier
 * boundary can never be seen differently by airlock and by the server.
 *
 * Followed rules: '...' and "..." strings with backslash escapes (unless
 * NO_BACKSLASH_ESCAPES) and doubled quotes; "..." is an identifier under
 * ANSI_QUOTES; `...` identifiers with `` for a backtick; N'..', X'..',
 * B'..'; numbers (1, 1.5, .5, 1e5, 0x1F, 0b01) and the server's odd
 * number/identifier split (1e5x is 1e5 then x, 1ex and 0x1g are
 * identifiers); a word right before ".ident" and the word after a "."
 * are identifiers, never keywords; @var, @'q', @`q`, @@name; '#' comments
 * to the end of the line; "--" comments only when the next byte is
 * whitespace, a control character or the end; C-style comments, not
 * nested.
 *
 * Refused (as a lexical error) where the server would run something we do
 * not look at, or where servers and character sets disagree: executable
 * comments (slash-star followed by "!", "M!", and "m!" to be safe) and
 * optimizer hints (slash-star-plus),
 * unterminated strings, identifiers and comments, NUL bytes, control
 * characters and backslashes outside strings, '$' at the start of a token
 * (MySQL 9 dollar-quoted text), invalid UTF-8 outside strings, "--"
 * followed by a non-ASCII byte (a comment under latin1), malformed hex,
 * binary and exponent literals.
 *
 * Tokens refer to the text by offset; the lexer holds a borrowed pointer
 * to it and never allocates. Copying a struct vmy_lexer saves its state.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_LEX_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_LEX_H

#include <stdbool.h>
#include <stddef.h>

enum vmy_tok_kind {
	VMY_T_END = 0, /* end of the text */
	VMY_T_ERROR,   /* lexical error: see vmy_lexer.err / err_at */
	VMY_T_WORD,    /* unquoted identifier or keyword (see kw) */
	VMY_T_QIDENT,  /* `quoted` identifier, or "quoted" under ANSI_QUOTES */
	VMY_T_STRING,  /* '...', "..." (no ANSI_QUOTES), N'...' */
	VMY_T_HEXSTR,  /* X'0A' */
	VMY_T_BINSTR,  /* B'01' */
	VMY_T_NUMBER,  /* 1, 1.5, .5, 1e5, 0x1F, 0b01 */
	VMY_T_USERVAR, /* @name (unquoted): the token includes the '@' */
	VMY_T_AT,      /* a lone '@' before a quoted name: @'x', @"x", @`x` */
	VMY_T_ATAT,    /* "@@" before a system variable name */
	VMY_T_SEMI,    /* ; */
	VMY_T_PUNCT,   /* operator or punctuation: ( ) , . * = <=> := && etc. */
};

enum vmy_lex_err {
	VMY_LEX_OK = 0,
	VMY_LEX_NUL,              /* NUL byte */
	VMY_LEX_UNTERM_STRING,    /* string literal without its closing quote */
	VMY_LEX_UNTERM_IDENT,     /* quoted identifier without its closing quote */
	VMY_LEX_UNTERM_COMMENT,   /* C-style comment without its end */
	VMY_LEX_EXEC_COMMENT,     /* executable comment: slash-star-bang, slash-star-M-bang */
	VMY_LEX_HINT_COMMENT,     /* optimizer hint: slash-star-plus */
	VMY_LEX_BAD_HEX,          /* X'..' with a non-hex digit or an odd count */
	VMY_LEX_BAD_BIN,          /* B'..' with a digit other than 0/1 */
	VMY_LEX_BAD_NUMBER,       /* 1.5e without exponent digits */
	VMY_LEX_BAD_UTF8,         /* non-ASCII byte that is not valid UTF-8, outside strings */
	VMY_LEX_BAD_CHAR,         /* control character or backslash outside strings */
	VMY_LEX_DOLLAR,           /* '$' starting a token */
	VMY_LEX_AMBIGUOUS_DASHES, /* "--" followed by a non-ASCII byte */
	VMY_LEX_BAD_SYSVAR,       /* "@@" not followed by a name */
	VMY_LEX_HIGH_BYTE,        /* byte >= 0x80 outside quotes under quoted_high_bytes_only */
};

struct vmy_token {
	enum vmy_tok_kind kind;
	size_t start; /* offset of the first byte */
	size_t len;   /* bytes, quotes and prefixes included */
	bool kw;      /* VMY_T_WORD that may be a keyword: false for the word
		       * right before ".ident", the word after a ".", and
		       * words that start with a digit */
	char quote;   /* VMY_T_STRING / VMY_T_QIDENT: the quote character */
};

struct vmy_lexer {
	const char *sql; /* borrowed */
	size_t len;
	size_t pos;
	bool ansi_quotes;
	bool no_backslash_escapes;
	bool quoted_high_bytes_only; /* single-byte client character set (latin1,
				      * binary): bytes >= 0x80 only inside quotes
				      * and comments. Set after vmy_lex_init. */
	int state;                   /* internal: what the next token must be */
	enum vmy_lex_err err;
	size_t err_at; /* offset the error refers to */
};

void vmy_lex_init(struct vmy_lexer *lx, const char *sql, size_t len, bool ansi_quotes, bool no_backslash_escapes);

/* Fills t with the next token; returns t->kind. After VMY_T_END or
 * VMY_T_ERROR every further call returns the same kind again. */
enum vmy_tok_kind vmy_lex_next(struct vmy_lexer *lx, struct vmy_token *t);

/* A one-line description of err, for hints ("unterminated string literal"). */
const char *vmy_lex_err_text(enum vmy_lex_err err);

/* Whether the token is the punctuation p (e.g. "(", ":=", "<=>"). */
bool vmy_tok_punct(const char *sql, const struct vmy_token *t, const char *p);

/*
 * The name a VMY_T_WORD or VMY_T_QIDENT stands for, quotes removed and
 * doubled quotes undone, copied into buf (NUL-terminated). Returns the
 * length, or -1 when it does not fit in size - 1 bytes, the token is of
 * another kind, or the name contains a NUL.
 */
int vmy_tok_ident(const char *sql, const struct vmy_token *t, char *buf, size_t size);

/*
 * The value of a VMY_T_STRING, unescaped as the server does (\n \t \r \b
 * \0 \Z, \% and \_ kept with their backslash, other \x as x, doubled
 * quotes), appended to buf at *used. Returns false when it does not fit
 * in size - 1 bytes or holds a NUL byte. buf stays NUL-terminated.
 */
bool vmy_tok_string(const char *sql, const struct vmy_token *t, bool no_backslash_escapes, char *buf, size_t size,
		    size_t *used);

#endif
