/*
 * session_audit: a statement's end in the audit log and the metrics: its
 * time since session_statement_begin, and where it came from (the
 * protocol, the client's address, the program the client named).
 */
#include "proxy/session.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <time.h>

#include "proxy/audit.h"
#include "proxy/budget.h"
#include "proxy/ops_history.h"
#include "proxy/server.h"
#include "proxy/stats.h"
#include "proxy/timeval.h"

void session_statement_begin(struct session *s, uint64_t fingerprint)
{
	/* Begun by the message being read: from its arrival (session_process); else (a job's end began it) now. */
	if (!s->in_message)
		clock_gettime(CLOCK_MONOTONIC, &s->t0);
	s->fingerprint = fingerprint;
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) * 1000.0 + (double)(now.tv_nsec - t0->tv_nsec) / 1e6;
}

/* The user label of the metrics: a configured user's name, never one a client typed that no user has. */
static const char *stats_user(const struct session *s)
{
	return s->u ? s->u->name : "";
}

/* Where a statement's record says it came from: the protocol, the client's address and program. */
static void audit_origin(struct session *s, struct audit_entry *e, char client[INET6_ADDRSTRLEN])
{
	session_client(s, client, INET6_ADDRSTRLEN);
	e->protocol = s->proto->name;
	e->client = client;
	e->application = s->proto->application ? s->proto->application(s) : "";
}

/* One more statement of decision in the server's counts; returns its index there. */
static unsigned count_decision(struct server *srv, const char *decision)
{
	static const char *const names[] = {
#define SERVER_DECISION_NAME(name) #name,
		SERVER_DECISIONS(SERVER_DECISION_NAME)
#undef SERVER_DECISION_NAME
	};
	size_t i;

	for (i = 0; i < SERVER_DECISION_other; i++)
		if (strcmp(names[i], decision) == 0)
			break;
	srv->statements[i]++;
	return (unsigned)i;
}

/* The statement's end in the operator page's history: its decision, code, total and validator time. */
static void history(struct session *s, unsigned decision, enum airlock_err code, double ms)
{
	int64_t now_s = (int64_t)(monotonic_ns() / 1000000000u);

	if (!s->srv->ops)
		return;
	ops_statement(s->srv->ops, now_s, decision, code, ms / 1000.0);
	if (s->validate_ns)
		ops_phase(s->srv->ops, now_s, STATS_PHASE_VALIDATION, (double)s->validate_ns / 1e9);
}

void session_audit(struct session *s, const char *decision, const char *sqlstate, enum airlock_err code, uint64_t rows,
		   uint64_t bytes, uint8_t truncated)
{
	char client[INET6_ADDRSTRLEN];
	struct audit_entry e = {
		.user = s->user,
		.session = s->id,
		.fingerprint = s->fingerprint,
		.decision = decision,
		.sqlstate = sqlstate,
		.code = code,
		.rows = rows,
		.bytes = bytes,
		.truncated = truncated,
		.ms = elapsed_ms(&s->t0),
	};

	audit_origin(s, &e, client);
	audit_record(s->srv->audit, &e);
	history(s, count_decision(s->srv, decision), code, e.ms);
	stats_statement(s->srv->stats, s->proto->name, stats_user(s), decision, code, e.ms / 1000.0, rows, bytes,
			truncated != 0);
	stats_validation(s->srv->stats, s->validate_ns);
	s->validate_ns = 0;
	/* What reached the client counts against the user's budgets (budget.h), after the fact. */
	if (s->budget && (rows || bytes)) {
		uint64_t now = monotonic_ns();

		budget_charge(s->budget, AIRLOCK_BUDGET_ROWS, (double)rows, now);
		budget_charge(s->budget, AIRLOCK_BUDGET_BYTES, (double)bytes, now);
	}
}

void session_audit_held(struct session *s, const char *approval, uint64_t rows)
{
	char client[INET6_ADDRSTRLEN];
	struct audit_entry e = {
		.user = s->user,
		.session = s->id,
		.fingerprint = s->fingerprint,
		.decision = "held",
		.sqlstate = airlock_err_pg_sqlstate(AIRLOCK_E_APPROVAL_REQUIRED),
		.code = AIRLOCK_E_APPROVAL_REQUIRED,
		.rows = rows,
		.ms = elapsed_ms(&s->t0),
		.approval = approval,
	};

	audit_origin(s, &e, client);
	audit_record(s->srv->audit, &e);
	history(s, count_decision(s->srv, e.decision), e.code, e.ms);
	/* The dry run's rows went to no client: not in airlock_rows_total. */
	stats_statement(s->srv->stats, s->proto->name, stats_user(s), e.decision, e.code, e.ms / 1000.0, 0, 0, false);
	stats_validation(s->srv->stats, s->validate_ns);
	s->validate_ns = 0;
}
