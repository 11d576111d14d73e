#include "proxy/approval_decide.h"

#include <time.h>

#include "proxy/approval_run.h"
#include "proxy/approvals.h"
#include "proxy/audit.h"
#include "proxy/log.h"
#include "proxy/server.h"
#include "proxy/timeval.h"

enum approval_result approval_decide(struct server *srv, const char *id, bool approve, const char *approver,
				     const char *reason)
{
	struct approval_store *st = srv->approvals;
	struct approval a = {0};
	struct approval_move m = {.id = id, .from = APPROVAL_PENDING, .now = wall_ms(), .by = approver};
	struct audit_entry e = {.decision = approve ? "approved" : "rejected"};
	enum approval_result r;

	approvals_expire(st, srv->audit, m.now);
	m.to = approve ? APPROVAL_APPROVED : APPROVAL_REJECTED;
	m.reason = reason && reason[0] ? reason : NULL;
	r = st->ops->move(st, &m);
	if (r != APPROVAL_OK)
		return r;
	if (st->ops->get(st, id, &a) == APPROVAL_OK) {
		e.user = a.user;
		e.rows = a.rows > 0 ? (uint64_t)a.rows : 0;
		e.approval = id;
		e.by = approver;
		e.reason = reason ? reason : "";
		audit_record(srv->audit, &e);
		log_info("approval %s: %s by %s", id, approve ? "approved" : "rejected", approver);
		if (a.status == APPROVAL_APPROVED)
			approval_run_start(srv, id);
	}
	approval_free(&a);
	return APPROVAL_OK;
}
