/*
 * airlockctl: the approvers' command-line client of the approval
 * listener's JSON API (airlockd), for people and for chat bots.
 *
 *	airlockctl [--url URL] [--user NAME] [--cacert FILE] pending [--json]
 *	airlockctl ... show ID [--json]
 *	airlockctl ... approve ID [--reason TEXT] [--json]
 *	airlockctl ... reject ID --reason TEXT [--json]
 *
 * The password comes from AIRLOCK_APPROVER_PASSWORD only. Exit status: 0
 * done, 1 the server refused (its message on stderr), 2 usage error (no
 * request sent), 3 no reply (connection, TLS, timeout, a reply too big).
 *
 * ctl/ holds this program (main.c) over its library: ctl_args.c the
 * command line, ctl_api.c the API's requests and statuses, ctl_http.c the
 * one HTTPS request (the only file that calls libcurl), ctl_print.c the
 * replies as text. It links approval/ for the id's shape, the status names
 * and the terminal escaping of what an agent wrote.
 */
#include <stdio.h>
#include <stdlib.h>

#include "base/wbuf.h"
#include "ctl/ctl_api.h"
#include "ctl/ctl_args.h"
#include "ctl/ctl_http.h"
#include "ctl/ctl_print.h"

/* Writes w to f and frees it; false when the write failed. */
static bool emit(FILE *f, struct wbuf *w)
{
	bool ok = !w->failed && (w->len == 0 || fwrite(w->data, 1, w->len, f) == w->len) && fflush(f) == 0;

	wbuf_free(w);
	return ok;
}

/* msg on stderr as "airlockctl: msg"; returns code. */
static int complain(const char *msg, int code)
{
	struct wbuf w;

	wbuf_init(&w);
	ctl_print_error(&w, msg);
	emit(stderr, &w);
	return code;
}

/* A successful reply's body as the command shows it. */
static bool render(const struct ctl_args *a, const struct ctl_http_reply *r, struct wbuf *out, char *err, size_t errlen)
{
	if (a->json)
		return ctl_print_json(out, r->body, r->len,
				      a->command == CTL_PENDING ? CTL_SHAPE_LIST : CTL_SHAPE_RECORD, err, errlen);
	switch (a->command) {
	case CTL_PENDING:
		return ctl_print_list(out, r->body, r->len, a->status, err, errlen);
	case CTL_SHOW:
		return ctl_print_record(out, r->body, r->len, err, errlen);
	default:
		return ctl_print_decision(out, r->body, r->len, err, errlen);
	}
}

/* Sends the request args asks for and prints the answer; the exit status. */
static int run(const struct ctl_args *args)
{
	struct ctl_http_conn conn = {.user = args->user, .password = args->password, .cacert = args->cacert};
	struct ctl_http_reply reply;
	struct ctl_request req;
	struct wbuf out;
	char err[CTL_REQUEST_URL_MAX + 256];
	int code = CTL_EXIT_OK;

	if (!ctl_api_request(args, &req))
		return complain("cannot build the request: out of memory", CTL_EXIT_REFUSED);
	if (!ctl_http_send(&conn, req.method, req.url, req.body, &reply, err, sizeof(err))) {
		ctl_api_request_free(&req);
		return complain(err, CTL_EXIT_TRANSPORT);
	}
	ctl_api_request_free(&req);
	wbuf_init(&out);
	if (!ctl_api_success(reply.status)) {
		ctl_print_refusal(&out, reply.status, reply.body, reply.len);
		emit(stderr, &out);
		code = CTL_EXIT_REFUSED;
	} else if (!render(args, &reply, &out, err, sizeof(err))) {
		wbuf_free(&out);
		code = complain(err, CTL_EXIT_REFUSED);
	} else if (!emit(stdout, &out)) {
		code = complain("cannot write the output", CTL_EXIT_REFUSED);
	}
	ctl_http_reply_free(&reply);
	return code;
}

int main(int argc, char **argv)
{
	struct ctl_env env = {.user = getenv(CTL_ENV_USER), .password = getenv(CTL_ENV_PASSWORD)};
	struct ctl_args args;
	char err[256];
	int code;

	if (ctl_args_parse(argc, argv, &env, &args, err, sizeof(err)) < 0) {
		complain(err, CTL_EXIT_USAGE);
		fputs(ctl_args_usage(), stderr);
		return CTL_EXIT_USAGE;
	}
	if (args.command == CTL_HELP) {
		fputs(ctl_args_usage(), stdout);
		return fflush(stdout) == 0 ? CTL_EXIT_OK : CTL_EXIT_REFUSED;
	}
	if (!ctl_http_global_init())
		return complain("cannot start libcurl", CTL_EXIT_TRANSPORT);
	code = run(&args);
	ctl_http_global_cleanup();
	return code;
}
