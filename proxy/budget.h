/*
 * budget: each user's budgets, token buckets shared by all of the user's
 * sessions (conf/config.h enum airlock_budget_kind, keys budget_*).
 *
 * A bucket of amount A per period P holds at most A and fills at A / P,
 * starting full. A statement is let start while the statements bucket
 * holds a whole token (it takes one) and no other bucket is overdrawn;
 * rows, bytes and runner time are only known once a statement ends, so
 * they are charged then and may overdraw their bucket. The next statement
 * then waits until the debt has flowed back: past a budget, a statement is
 * refused (BUDGET) with the time after which it would start, which is
 * exact as long as the user's other sessions take nothing meanwhile.
 *
 * Buckets are kept by user name and survive a reload: the new config's
 * amounts apply from then on (a bucket above its new amount is cut to
 * it); a user the new config lacks keeps its last amounts for the
 * sessions it still has. Entries are freed only with the registry, so a
 * struct budget pointer (a session's, a job's) stays valid as long as
 * the server. Times are CLOCK_MONOTONIC nanoseconds, passed in: nothing
 * here reads a clock or does I/O.
 */
#ifndef AIRLOCK_PROXY_BUDGET_H
#define AIRLOCK_PROXY_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"

struct budget {
	char user[64];
	uint64_t amount[AIRLOCK_BUDGET_NKINDS];  /* per period; 0: no budget of that kind */
	double level[AIRLOCK_BUDGET_NKINDS];     /* what the bucket holds (below 0: overdrawn) */
	uint64_t at_ns;                          /* when the levels were last brought up to date */
	uint64_t refused[AIRLOCK_BUDGET_NKINDS]; /* statements refused by each bucket */
};

/* The registry of every configured user's buckets; owns its entries. */
struct budgets {
	struct budget **b;
	size_t n, cap;
};

/* Seconds over which a kind's amount flows back: 60, or 3600 for runner time. */
double budget_period(enum airlock_budget_kind k);
/* The key that sets a kind, e.g. "budget_rows_per_minute". */
const char *budget_key(enum airlock_budget_kind k);
/* The kind's short name for SHOW USERS and the metrics: statements, rows, bytes, runner_seconds. */
const char *budget_name(enum airlock_budget_kind k);

/* Brings b's levels up to now_ns (before a read of them). */
void budget_refill(struct budget *b, uint64_t now_ns);
/*
 * May a statement start now? Yes: one statement is taken and
 * AIRLOCK_BUDGET_NKINDS returned. No: the bucket that holds it back (the
 * one that would keep it waiting longest) is returned, *retry_ms set to
 * the milliseconds until it would start, and the refusal counted.
 */
enum airlock_budget_kind budget_admit(struct budget *b, uint64_t now_ns, uint64_t *retry_ms);
/* Charges amount of kind k (rows, bytes, runner seconds) to b; nothing when that kind has no budget. */
void budget_charge(struct budget *b, enum airlock_budget_kind k, double amount, uint64_t now_ns);
/* The refusal's message ("user ... is past budget_...") and hint, for the error a client gets. */
void budget_message(const struct budget *b, enum airlock_budget_kind k, uint64_t retry_ms, char *msg, size_t msglen,
		    char *hint, size_t hintlen);
/* Any budget set at all? */
bool budget_any(const struct budget *b);

/*
 * Every user of cfg has an entry with cfg's amounts (levels of a new one
 * full, of an old one cut to the new amounts); false when out of memory
 * (entries made so far stay).
 */
bool budgets_sync(struct budgets *reg, const struct airlock_config *cfg, uint64_t now_ns);
/* The entry of user, or NULL (not configured when last synced). Owned by reg. */
struct budget *budgets_find(const struct budgets *reg, const char *user);
void budgets_free(struct budgets *reg);

#endif
