/*
 * validate_pg_bound: the nesting estimate over libpg_query's scanner
 * tokens. See validate_pg_bound.h.
 */
#include <pg_query.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "validator/pg/validate_pg_bound.h"
#include "validator/pg/validate_pg_util.h"

#include "pg_query/pg_query.pb-c.h"

/* One open bracket group. */
struct group {
	size_t chain;     /* operators and keywords since the last separator */
	size_t max_chain; /* the longest run so far */
	size_t fixed;     /* set operations and joins: they nest across separators */
	size_t child;     /* the deepest closed child group's estimate */
	bool between;     /* a BETWEEN waits for its AND, which is no separator */
};

static size_t max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

static size_t group_depth(const struct group *g)
{
	return 2 + max_size(g->chain, g->max_chain) + g->fixed + g->child;
}

static void separate(struct group *g)
{
	g->max_chain = max_size(g->max_chain, g->chain);
	g->chain = 0;
}

/* Tokens that are leaves of the tree: names, constants, parameters. */
static bool is_leaf(PgQuery__Token t)
{
	switch (t) {
	case PG_QUERY__TOKEN__IDENT:
	case PG_QUERY__TOKEN__UIDENT:
	case PG_QUERY__TOKEN__FCONST:
	case PG_QUERY__TOKEN__SCONST:
	case PG_QUERY__TOKEN__USCONST:
	case PG_QUERY__TOKEN__BCONST:
	case PG_QUERY__TOKEN__XCONST:
	case PG_QUERY__TOKEN__ICONST:
	case PG_QUERY__TOKEN__PARAM:
	case PG_QUERY__TOKEN__ASCII_46: /* '.': a qualified name is one list */
		return true;
	default:
		return false;
	}
}

static bool is_open(PgQuery__Token t)
{
	return t == PG_QUERY__TOKEN__ASCII_40 || t == PG_QUERY__TOKEN__ASCII_91 || t == PG_QUERY__TOKEN__CASE;
}

static bool is_close(PgQuery__Token t)
{
	return t == PG_QUERY__TOKEN__ASCII_41 || t == PG_QUERY__TOKEN__ASCII_93 || t == PG_QUERY__TOKEN__END_P;
}

static bool is_separator(PgQuery__Token t)
{
	switch (t) {
	case PG_QUERY__TOKEN__ASCII_44: /* ',' */
	case PG_QUERY__TOKEN__AND:
	case PG_QUERY__TOKEN__OR:
	case PG_QUERY__TOKEN__WHEN:
	case PG_QUERY__TOKEN__THEN:
	case PG_QUERY__TOKEN__ELSE:
		return true;
	default:
		return false;
	}
}

static bool nests_across(PgQuery__Token t)
{
	switch (t) {
	case PG_QUERY__TOKEN__UNION:
	case PG_QUERY__TOKEN__INTERSECT:
	case PG_QUERY__TOKEN__EXCEPT:
	case PG_QUERY__TOKEN__JOIN:
		return true;
	default:
		return false;
	}
}

/* Folds the tokens into the estimate; stops early past the limit. */
static size_t estimate(const PgQuery__ScanResult *r)
{
	const size_t limit = PGV_MAX_NESTING + 1;
	struct group *stack = calloc(limit + 1, sizeof(*stack));
	size_t sp = 0, best = 0, i;

	if (!stack)
		return PGV_NESTING_NO_MEMORY; /* refused: better than parsing what cannot be judged */
	for (i = 0; i < r->n_tokens && best < limit; i++) {
		PgQuery__Token t = r->tokens[i]->token;
		struct group *g = &stack[sp];

		if (t == PG_QUERY__TOKEN__SQL_COMMENT || t == PG_QUERY__TOKEN__C_COMMENT || is_leaf(t))
			continue;
		if (is_open(t)) {
			if (sp + 1 >= limit) {
				best = limit;
				break;
			}
			g->chain++; /* the construct the bracket belongs to */
			memset(&stack[++sp], 0, sizeof(*stack));
			continue;
		}
		if (is_close(t)) {
			if (sp == 0)
				continue; /* unbalanced: the parser will say so */
			stack[sp - 1].child = max_size(stack[sp - 1].child, group_depth(g));
			sp--;
			continue;
		}
		if (t == PG_QUERY__TOKEN__ASCII_59) { /* ';': the next statement starts afresh */
			while (sp > 0) {
				stack[sp - 1].child = max_size(stack[sp - 1].child, group_depth(&stack[sp]));
				sp--;
			}
			best = max_size(best, group_depth(&stack[0]));
			memset(&stack[0], 0, sizeof(*stack));
			continue;
		}
		if (t == PG_QUERY__TOKEN__AND && g->between) {
			g->between = false;
			g->chain++;
			continue;
		}
		if (is_separator(t)) {
			separate(g);
			continue;
		}
		if (nests_across(t)) {
			g->fixed++;
			continue;
		}
		if (t == PG_QUERY__TOKEN__BETWEEN)
			g->between = true;
		g->chain++;
		best = max_size(best, sp + g->chain);
	}
	while (sp > 0) {
		stack[sp - 1].child = max_size(stack[sp - 1].child, group_depth(&stack[sp]));
		sp--;
	}
	best = max_size(best, group_depth(&stack[0]));
	free(stack);
	return best < limit ? best : limit;
}

size_t pgv_nesting(const char *sql)
{
	PgQueryScanResult scan = pg_query_scan(sql);
	PgQuery__ScanResult *r = NULL;
	size_t depth = 0;

	if (!scan.error)
		r = pg_query__scan_result__unpack(NULL, scan.pbuf.len, (const uint8_t *)scan.pbuf.data);
	if (r) {
		depth = estimate(r);
		pg_query__scan_result__free_unpacked(r, NULL);
	} else if (!scan.error) {
		depth = PGV_NESTING_NO_MEMORY; /* refuse rather than guess */
	}
	pg_query_free_scan_result(scan);
	return depth;
}

bool pgv_bound(const char *sql, struct pgv_result *out)
{
	size_t depth;

	if (strnlen(sql, PGV_BOUND_UNSCANNED) < PGV_BOUND_UNSCANNED)
		return true;
	depth = pgv_nesting(sql);
	if (depth <= PGV_MAX_NESTING)
		return true;
	if (depth == PGV_NESTING_NO_MEMORY) {
		pgv_refuse(out, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, 0, NULL,
			   "out of memory while validating the statement");
		return false;
	}
	pgv_refuse(out, AIRLOCK_E_TOO_COMPLEX, AIRLOCK_N_NONE, 0,
		   "write long chains of one operator as a function over an array or a subquery, and nest less",
		   "statement is nested too deeply to validate (more than %d levels of operators and brackets)",
		   PGV_MAX_NESTING);
	return false;
}
