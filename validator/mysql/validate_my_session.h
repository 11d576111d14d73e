/*
 * validate_my_session: the statements the proxy answers itself: SET,
 * START TRANSACTION / BEGIN, COMMIT, ROLLBACK and USE.
 *
 * SET takes combined lists of NAMES x [COLLATE y], CHARACTER SET x,
 * [SESSION | LOCAL | @@session. | @@local. | @@] name {= | :=} literal,
 * with names from a fixed list and literal values only (the one
 * expression accepted is name = CONCAT(@@name, 'literal', ...) for
 * sql_mode and session_track_*, which connectors send). SET GLOBAL,
 * PERSIST, user variables, PASSWORD, ROLE, STATEMENT ... FOR, turning
 * read-only off, character sets other than utf8mb4 / utf8 / ascii (and
 * latin1 / binary when the policy names the connection's character set), and
 * sql_modes that change the grammar are refused.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_SESSION_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_SESSION_H

#include "validator/mysql/validate_my_parse.h"

/* Each at its first keyword; fills out (kind set, or refused). */
void vmy_set(struct vmy_parser *p);
void vmy_begin(struct vmy_parser *p);
void vmy_commit(struct vmy_parser *p, bool rollback);
void vmy_use(struct vmy_parser *p);

#endif
