/*
 * validate_my_lock: LOCK TABLES and UNLOCK TABLES, which dump tools send
 * around their reads (mysqldump's default). airlock takes no lock: each
 * statement runs in a runner of its own, in its own snapshot, as a
 * transaction block's statements do. A read lock is answered OK once
 * every table it names passes the allowlist (a hidden one is refused as a
 * SELECT of it is); a WRITE lock is a write, refused.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_LOCK_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_LOCK_H

#include "validator/mysql/validate_my_parse.h"

/*
 * At LOCK or UNLOCK: LOCK {TABLE | TABLES} [db.]t [[AS] alias] READ [LOCAL]
 * [, ...] | UNLOCK {TABLE | TABLES}. Sets p->out->kind VMY_LOCK_TABLES or
 * refuses.
 */
void vmy_lock(struct vmy_parser *p);

#endif
