/*
 * policy_check: the row filters and column policies of a loaded
 * configuration, checked by the validators the statements go through: a
 * rule's table must be one the user may read, and each filter and mask
 * must be one expression that reads only what the user's policy allows
 * (tables, functions, catalogs) over its protocol. Run at start-up, by
 * --check-config and before a reload takes effect.
 */
#ifndef AIRLOCK_PROXY_POLICY_CHECK_H
#define AIRLOCK_PROXY_POLICY_CHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "conf/config.h"

/* Appends one message per problem to errs; true when there was none. */
bool policy_check(const struct airlock_config *cfg, struct config_errors *errs);

/*
 * Appends one message per combination that loads but refuses what it
 * seems to allow (docs/limits.md): a user with max_cost and MySQL rules,
 * whose every MySQL read of a ruled table MariaDB gives no cost for.
 * Returns how many it appended; airlockd logs them as warnings.
 */
size_t policy_warnings(const struct airlock_config *cfg, struct config_errors *out);

/* Prints each user's rules (tables, filters, columns, which are masked) to out. */
void policy_print(const struct airlock_config *cfg, FILE *out);

#endif
