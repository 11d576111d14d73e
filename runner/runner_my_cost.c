/*
 * runner_my_cost: see runner_my_cost.h.
 */
#include "runner/runner_my_cost.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"

#define EXPLAIN_PREFIX "EXPLAIN "
#define COST_STATUS "SHOW SESSION STATUS LIKE 'Last_query_cost'"
#define MAX_ID_DIGITS 9

static bool value_is(const char *v, size_t len, const char *want)
{
	return v && len == strlen(want) && memcmp(v, want, len) == 0;
}

/* A select id: 1 to MAX_ID_DIGITS digits. */
static bool parse_id(const char *v, size_t len, unsigned *id)
{
	unsigned n = 0;

	if (!v || len == 0 || len > MAX_ID_DIGITS)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		n = n * 10 + (unsigned)(v[i] - '0');
	}
	*id = n;
	return true;
}

static bool add_id(unsigned *ids, size_t *n, unsigned id)
{
	if (*n >= MY_COST_MAX_IDS)
		return false;
	ids[(*n)++] = id;
	return true;
}

/* The N of a table printed "<subqueryN>", the result of a materialized select. */
static bool subquery_table(const struct my_cost_row *r, unsigned *id)
{
	static const char head[] = "<subquery";
	size_t h = sizeof(head) - 1;

	return r->table && r->table_len > h + 1 && memcmp(r->table, head, h) == 0 &&
	       r->table[r->table_len - 1] == '>' && parse_id(r->table + h, r->table_len - h - 1, id);
}

void my_cost_plan_row(struct my_cost_plan *p, const struct my_cost_row *r)
{
	unsigned id;

	p->rows++;
	if (value_is(r->select_type, r->select_type_len, "SIMPLE")) {
		p->simple = true;
		if (r->type && !value_is(r->type, r->type_len, "system") && !value_is(r->type, r->type_len, "const"))
			p->reads_more = true;
	} else if (value_is(r->select_type, r->select_type_len, "PRIMARY")) {
		p->primary = true;
		if (subquery_table(r, &id) && !add_id(p->joined, &p->njoined, id))
			p->other = true;
	} else if (value_is(r->select_type, r->select_type_len, "MATERIALIZED")) {
		p->primary = true;
		if (!parse_id(r->id, r->id_len, &id) || !add_id(p->materialized, &p->nmaterialized, id))
			p->other = true;
	} else {
		p->other = true;
	}
}

int my_cost_parse(const char *text, size_t len, double *cost)
{
	char buf[MY_COST_TEXT_MAX + 1];
	size_t digits = 0, i = 0;

	if (!text || len == 0 || len > MY_COST_TEXT_MAX)
		return -1;
	while (i < len && text[i] >= '0' && text[i] <= '9')
		i++, digits++;
	if (i < len && text[i] == '.') {
		i++;
		while (i < len && text[i] >= '0' && text[i] <= '9')
			i++, digits++;
	}
	if (i != len || digits == 0)
		return -1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	*cost = strtod(buf, NULL);
	return 0;
}

/* Every MATERIALIZED select is read by the join as its <subqueryN> table. */
static bool materialized_joined(const struct my_cost_plan *p)
{
	for (size_t i = 0; i < p->nmaterialized; i++) {
		size_t j = 0;

		while (j < p->njoined && p->joined[j] != p->materialized[i])
			j++;
		if (j == p->njoined)
			return false;
	}
	return true;
}

enum my_cost_verdict my_cost_judge(const struct my_cost_plan *p, bool have_cost, double cost, uint64_t max_cost)
{
	/* Not a number below 2^64 (an infinity cannot come from the digits my_cost_parse takes). */
	if (!have_cost || p->rows == 0 || !(cost >= 0))
		return MY_COST_UNKNOWN;
	if (p->other || (p->simple && p->primary))
		return MY_COST_UNKNOWN;
	if (cost > (double)max_cost)
		return MY_COST_OVER;
	if (p->simple)
		return cost > 0 || !p->reads_more ? MY_COST_UNDER : MY_COST_UNKNOWN;
	return cost > 0 && materialized_joined(p) ? MY_COST_UNDER : MY_COST_UNKNOWN;
}

/* The index of the result's column named name, or -1. */
static int column(MYSQL_RES *res, const char *name)
{
	MYSQL_FIELD *f = mysql_fetch_fields(res);
	unsigned n = mysql_num_fields(res);

	for (unsigned i = 0; f && i < n; i++)
		if (f[i].name && strcmp(f[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* EXPLAIN's rows into p; false on the connection's error. */
static bool read_plan(MYSQL *conn, const char *sql, struct my_cost_plan *p, bool *no_memory)
{
	size_t len = strlen(sql);
	char *text = malloc(sizeof(EXPLAIN_PREFIX) + len);
	MYSQL_RES *res;
	MYSQL_ROW row;
	int c[4];
	int rc;

	if (!text) {
		*no_memory = true;
		return false;
	}
	memcpy(text, EXPLAIN_PREFIX, sizeof(EXPLAIN_PREFIX) - 1);
	memcpy(text + sizeof(EXPLAIN_PREFIX) - 1, sql, len + 1);
	rc = mysql_real_query(conn, text, (unsigned long)(sizeof(EXPLAIN_PREFIX) - 1 + len));
	free(text);
	if (rc != 0 || !(res = mysql_store_result(conn)))
		return false;
	c[0] = column(res, "id");
	c[1] = column(res, "select_type");
	c[2] = column(res, "table");
	c[3] = column(res, "type");
	if (c[0] < 0 || c[1] < 0 || c[2] < 0 || c[3] < 0)
		p->other = true;
	while (!p->other && (row = mysql_fetch_row(res)) != NULL) {
		unsigned long *l = mysql_fetch_lengths(res);
		struct my_cost_row r;

		if (!l) {
			p->other = true;
			break;
		}
		r = (struct my_cost_row){row[c[0]], row[c[1]], row[c[2]], row[c[3]],
					 l[c[0]],   l[c[1]],   l[c[2]],   l[c[3]]};
		my_cost_plan_row(p, &r);
	}
	mysql_free_result(res);
	/* A result that did not end cleanly leaves the plan unread. */
	if (mysql_errno(conn))
		return false;
	if (mysql_more_results(conn))
		p->other = true;
	return true;
}

/* Last_query_cost, as EXPLAIN left it; false on the connection's error. */
static bool read_cost(MYSQL *conn, double *cost, bool *have)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	unsigned long *l;

	if (mysql_real_query(conn, COST_STATUS, sizeof(COST_STATUS) - 1) != 0 || !(res = mysql_store_result(conn)))
		return false;
	if (mysql_num_fields(res) == 2 && mysql_num_rows(res) == 1 && (row = mysql_fetch_row(res)) != NULL &&
	    (l = mysql_fetch_lengths(res)) != NULL && value_is(row[0], l[0], "Last_query_cost"))
		*have = my_cost_parse(row[1], row[1] ? l[1] : 0, cost) == 0;
	mysql_free_result(res);
	return true;
}

struct my_cost my_cost_check(MYSQL *conn, const char *sql, uint64_t max_cost)
{
	struct my_cost_plan p;
	struct my_cost c = {.verdict = MY_COST_FAILED, .cost = 0};
	bool no_memory = false, have = false;

	memset(&p, 0, sizeof(p));
	if (!read_plan(conn, sql, &p, &no_memory)) {
		c.verdict = no_memory ? MY_COST_NO_MEMORY : MY_COST_FAILED;
		return c;
	}
	if (!read_cost(conn, &c.cost, &have))
		return c;
	c.verdict = my_cost_judge(&p, have, c.cost, max_cost);
	return c;
}

int my_cost_refuse(struct runner_ctl *ctl, const struct my_cost *c, uint64_t max_cost)
{
	char msg[200];

	if (c->verdict == MY_COST_NO_MEMORY)
		return runner_ctl_error_my(
			ctl, FRAME_ERROR,
			airlock_my_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_MY_NOT_SUPPORTED_YET),
			airlock_err_name(AIRLOCK_E_EXECUTION_FAILED),
			airlock_my_errno(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_MY_NOT_SUPPORTED_YET), "out of memory",
			"");
	if (c->verdict == MY_COST_OVER)
		snprintf(msg, sizeof(msg), "COST_LIMIT: the estimated cost %.0f is above max_cost=%" PRIu64, c->cost,
			 max_cost);
	else
		snprintf(msg, sizeof(msg),
			 "COST_LIMIT: MariaDB gives no cost estimate for this statement, so max_cost=%" PRIu64
			 " cannot be checked",
			 max_cost);
	return runner_ctl_error_my(
		ctl, FRAME_ERROR, airlock_err_my_sqlstate(AIRLOCK_E_COST_LIMIT), airlock_err_name(AIRLOCK_E_COST_LIMIT),
		airlock_err_my_errno(AIRLOCK_E_COST_LIMIT), msg,
		c->verdict == MY_COST_OVER ? "filter on an indexed column, add a LIMIT, or join fewer rows"
					   : "write it as one SELECT: a join, or IN / EXISTS, instead of a UNION, a "
					     "subquery in the select list or a derived table or WITH clause");
}
