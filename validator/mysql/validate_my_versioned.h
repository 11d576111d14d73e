/*
 * validate_my_versioned: versioned ("executable") comments read as the
 * server reads them. A comment opened with "/" "*!" or "/" "*M!" holds text
 * the server runs when its version (5 or 6 digits after the marker, or
 * none) is at most its own: DBD::mysql sends SHOW, the comment
 * "!50002 FULL", then TABLES; mysqldump "!40101 SET ...". The comment's
 * markers become spaces, and so does
 * a newer version's content, so the validator judges (and the runner runs)
 * the statement the server would have run, with no comment left for it to
 * read otherwise. Pure: no allocation, no I/O.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_VERSIONED_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_VERSIONED_H

#include <stdbool.h>
#include <stddef.h>

/* The server whose reading is followed: MariaDB 10.11 (a 5-digit MySQL version is always below it). */
#define VMY_VERSIONED_SERVER 101199UL

enum vmy_versioned {
	VMY_VERSIONED_NONE,     /* no versioned comment: sql is as it was */
	VMY_VERSIONED_EXPANDED, /* sql (len bytes, in place, same length) is the text the server would read */
	VMY_VERSIONED_UNSURE,   /* a form whose reading is not certain (a comment inside one, an
				 * unterminated one, a version of other than 5 or 6 digits): sql is
				 * partly rewritten and must be dropped; the original is refused */
};

/* Rewrites sql in place under the session's lexing modes. */
enum vmy_versioned vmy_expand_versioned(char *sql, size_t len, bool ansi_quotes, bool no_backslash_escapes);

#endif
