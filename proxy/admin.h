/*
 * admin: what the admin console's commands (admin_cmd.h) do and answer,
 * whatever the wire: each SHOW as columns and rows of text handed to the
 * caller's struct admin_out, each action on the server (reload, pause,
 * kill a client, shut down) through the server's own functions. The
 * protocol's session (proxy/pg/pg_admin.c) writes what it is handed.
 *
 * Nothing here shows a secret: no verifier, password, webhook secret or
 * predicate leaves this file.
 */
#ifndef AIRLOCK_PROXY_ADMIN_H
#define AIRLOCK_PROXY_ADMIN_H

#include <stdbool.h>
#include <stddef.h>

#include <stdint.h>

#include "base/errors.h"
#include "proxy/admin_cmd.h"

struct server;
struct session;

/* Where a command's result set goes; every string is borrowed for the call. */
struct admin_out {
	void (*columns)(void *arg, const char *const *names, size_t n); /* once, before any row */
	void (*row)(void *arg, const char *const *cells, size_t n);
	void *arg;
};

/* Why a command was refused (the one error table's code, or a native one). */
struct admin_error {
	enum airlock_err code;
	enum airlock_native native;
	char message[256];
};

/*
 * The result set of a SHOW (kind one of ADMIN_CMD_SHOW_*) handed to out,
 * whoever asks (the console, the operator's page); returns its rows. Any
 * other kind hands nothing.
 */
uint64_t admin_show(struct server *srv, enum admin_cmd_kind kind, const struct admin_out *out);
/*
 * Runs cmd for the admin session s (s->admin). true: done, its result
 * (if any) handed to out and the command tag in tag; false: refused, err
 * says why. SHUTDOWN only answers here: admin_after stops the server,
 * once the answer is on its way.
 */
bool admin_run(struct session *s, const struct admin_cmd *cmd, const struct admin_out *out, char *tag, size_t taglen,
	       struct admin_error *err);
/* What a command does after its answer was sent (SHUTDOWN's drain, which closes s too). */
void admin_after(struct session *s, const struct admin_cmd *cmd);

#endif
