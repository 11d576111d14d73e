/*
 * validate_my_local: recognises the SELECTs a driver sends on connect
 * that the proxy answers itself: only DATABASE(), SCHEMA(), VERSION(),
 * USER(), SESSION_USER(), SYSTEM_USER(), CURRENT_USER[()],
 * CONNECTION_ID() and @@[session.|local.]name of a readable system
 * variable (or one only the session answers, see vmy_sysvar_local), each
 * with an optional [AS] alias, then an optional LIMIT n.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_LOCAL_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_LOCAL_H

#include <stdbool.h>

#include "validator/mysql/validate_my_parse.h"

/*
 * At a SELECT: when the whole statement is a local select, fills out
 * (VMY_LOCAL_SELECT, items, limit) and returns true. Otherwise leaves the
 * parser where it was and returns false; never refuses.
 */
bool vmy_local_select(struct vmy_parser *p);

#endif
