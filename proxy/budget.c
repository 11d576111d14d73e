/*
 * budget: the users' token buckets (budget.h).
 */
#include "proxy/budget.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys[AIRLOCK_BUDGET_NKINDS] = {
	[AIRLOCK_BUDGET_STATEMENTS] = "budget_statements_per_minute",
	[AIRLOCK_BUDGET_ROWS] = "budget_rows_per_minute",
	[AIRLOCK_BUDGET_BYTES] = "budget_bytes_per_minute",
	[AIRLOCK_BUDGET_RUNNER_SECONDS] = "budget_runner_seconds_per_hour",
};

static const char *const names[AIRLOCK_BUDGET_NKINDS] = {
	[AIRLOCK_BUDGET_STATEMENTS] = "statements",
	[AIRLOCK_BUDGET_ROWS] = "rows",
	[AIRLOCK_BUDGET_BYTES] = "bytes",
	[AIRLOCK_BUDGET_RUNNER_SECONDS] = "runner_seconds",
};

double budget_period(enum airlock_budget_kind k)
{
	return k == AIRLOCK_BUDGET_RUNNER_SECONDS ? 3600.0 : 60.0;
}

const char *budget_key(enum airlock_budget_kind k)
{
	return (unsigned)k < AIRLOCK_BUDGET_NKINDS ? keys[k] : "";
}

const char *budget_name(enum airlock_budget_kind k)
{
	return (unsigned)k < AIRLOCK_BUDGET_NKINDS ? names[k] : "";
}

/* What flows back into k's bucket each second. */
static double rate(const struct budget *b, enum airlock_budget_kind k)
{
	return (double)b->amount[k] / budget_period(k);
}

bool budget_any(const struct budget *b)
{
	for (int k = 0; k < AIRLOCK_BUDGET_NKINDS; k++)
		if (b->amount[k])
			return true;
	return false;
}

void budget_refill(struct budget *b, uint64_t now_ns)
{
	double secs;

	if (now_ns <= b->at_ns)
		return;
	secs = (double)(now_ns - b->at_ns) / 1e9;
	b->at_ns = now_ns;
	for (int k = 0; k < AIRLOCK_BUDGET_NKINDS; k++) {
		if (!b->amount[k])
			continue;
		b->level[k] += rate(b, k) * secs;
		if (b->level[k] > (double)b->amount[k])
			b->level[k] = (double)b->amount[k];
	}
}

enum airlock_budget_kind budget_admit(struct budget *b, uint64_t now_ns, uint64_t *retry_ms)
{
	enum airlock_budget_kind worst = AIRLOCK_BUDGET_NKINDS;
	double longest = 0.0;

	budget_refill(b, now_ns);
	for (int k = 0; k < AIRLOCK_BUDGET_NKINDS; k++) {
		/* A statement needs a whole token; the buckets charged afterwards need only not be overdrawn. */
		double need = k == AIRLOCK_BUDGET_STATEMENTS ? 1.0 : 0.0, wait;

		if (!b->amount[k] || b->level[k] >= need)
			continue;
		wait = (need - b->level[k]) / rate(b, k);
		if (worst == AIRLOCK_BUDGET_NKINDS || wait > longest) {
			worst = (enum airlock_budget_kind)k;
			longest = wait;
		}
	}
	if (worst != AIRLOCK_BUDGET_NKINDS) {
		/* Rounded up, and a millisecond more, so a retry at that time is never refused for rounding. */
		double ms = ceil(longest * 1000.0) + 1.0;

		*retry_ms = ms < 1e15 ? (uint64_t)ms : UINT64_C(1000000000000000);
		b->refused[worst]++;
		return worst;
	}
	*retry_ms = 0;
	if (b->amount[AIRLOCK_BUDGET_STATEMENTS])
		b->level[AIRLOCK_BUDGET_STATEMENTS] -= 1.0;
	return AIRLOCK_BUDGET_NKINDS;
}

void budget_charge(struct budget *b, enum airlock_budget_kind k, double amount, uint64_t now_ns)
{
	if ((unsigned)k >= AIRLOCK_BUDGET_NKINDS || !b->amount[k] || !(amount > 0.0))
		return;
	budget_refill(b, now_ns);
	b->level[k] -= amount;
}

void budget_message(const struct budget *b, enum airlock_budget_kind k, uint64_t retry_ms, char *msg, size_t msglen,
		    char *hint, size_t hintlen)
{
	snprintf(msg, msglen, "user \"%s\" is past its %s (%" PRIu64 "); its next statement can start in %.1f s",
		 b->user, budget_key(k), b->amount[k], (double)retry_ms / 1000.0);
	snprintf(hint, hintlen, "retry after %" PRIu64 " ms", retry_ms);
}

struct budget *budgets_find(const struct budgets *reg, const char *user)
{
	for (size_t i = 0; i < reg->n; i++)
		if (strcmp(reg->b[i]->user, user) == 0)
			return reg->b[i];
	return NULL;
}

/* A new entry for user, every bucket full; NULL when out of memory or the name does not fit. */
static struct budget *add(struct budgets *reg, const char *user, uint64_t now_ns)
{
	struct budget *b;

	if (strlen(user) >= sizeof(b->user))
		return NULL;
	if (reg->n == reg->cap) {
		size_t cap = reg->cap ? reg->cap * 2 : 8;
		struct budget **grown = realloc(reg->b, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		reg->b = grown;
		reg->cap = cap;
	}
	if (!(b = calloc(1, sizeof(*b))))
		return NULL;
	memcpy(b->user, user, strlen(user) + 1);
	b->at_ns = now_ns;
	reg->b[reg->n++] = b;
	return b;
}

bool budgets_sync(struct budgets *reg, const struct airlock_config *cfg, uint64_t now_ns)
{
	/* Every entry first (the only step that allocates), so a failure changes no amount. */
	for (size_t i = 0; i < cfg->nusers; i++)
		if (!budgets_find(reg, cfg->users[i].name) && !add(reg, cfg->users[i].name, now_ns))
			return false;
	for (size_t i = 0; i < cfg->nusers; i++) {
		const struct airlock_user *u = &cfg->users[i];
		struct budget *b = budgets_find(reg, u->name);

		/* Up to now under the amounts it had, then the new ones: a new budget starts full. */
		budget_refill(b, now_ns);
		for (int k = 0; k < AIRLOCK_BUDGET_NKINDS; k++) {
			uint64_t was = b->amount[k];

			b->amount[k] = u->budget[k];
			if (!b->amount[k])
				b->level[k] = 0.0;
			else if (!was || b->level[k] > (double)b->amount[k])
				b->level[k] = (double)b->amount[k];
		}
	}
	return true;
}

void budgets_free(struct budgets *reg)
{
	for (size_t i = 0; i < reg->n; i++)
		free(reg->b[i]);
	free(reg->b);
	*reg = (struct budgets){0};
}
