/*
 * ctl_args: airlockctl's command line into one struct ctl_args. Pure: no
 * I/O, no allocation, no environment read (the caller passes the two
 * variables it reads in a struct ctl_env), so every form is unit-tested.
 *
 *	airlockctl [options] pending [--status NAME] [--json]
 *	airlockctl [options] show ID [--json]
 *	airlockctl [options] approve ID [--reason TEXT] [--json]
 *	airlockctl [options] reject ID --reason TEXT [--json]
 *
 * Options may come before or after the command and its id, as "--name
 * value" or "--name=value"; "--" ends them. An option given twice, one the
 * command does not take, or a value that could not be sent as given (a
 * URL other than https://, an id approval_id_valid refuses, a reason too
 * long or holding a character a person cannot see) is a usage error,
 * caught before any request. There is no option for the password: it
 * comes from AIRLOCK_APPROVER_PASSWORD only.
 *
 * Ownership: a struct ctl_args borrows its strings from argv and from the
 * struct ctl_env's strings, which must outlive it; url and id are copies
 * it holds itself.
 */
#ifndef AIRLOCK_CTL_CTL_ARGS_H
#define AIRLOCK_CTL_CTL_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "approval/approval.h"

#define CTL_DEFAULT_URL "https://127.0.0.1:8443"
#define CTL_ENV_USER "AIRLOCK_APPROVER_USER"
#define CTL_ENV_PASSWORD "AIRLOCK_APPROVER_PASSWORD"
#define CTL_URL_MAX 2048 /* bytes of --url */

enum ctl_command {
	CTL_HELP, /* -h or --help: the usage text, no request */
	CTL_PENDING,
	CTL_SHOW,
	CTL_APPROVE,
	CTL_REJECT,
};

/* What the environment gave: each NULL when unset. Borrowed. */
struct ctl_env {
	const char *user;     /* AIRLOCK_APPROVER_USER */
	const char *password; /* AIRLOCK_APPROVER_PASSWORD */
};

struct ctl_args {
	enum ctl_command command;
	char url[CTL_URL_MAX + 1];    /* https://host[:port][/path], no trailing '/' */
	const char *user;             /* --user, else the environment's */
	const char *password;         /* the environment's; never NULL or "" after a parse */
	const char *cacert;           /* --cacert; NULL: the system's CA certificates */
	const char *reason;           /* --reason; NULL when not given or "" */
	char id[APPROVAL_ID_LEN + 1]; /* show, approve, reject: a valid id; "" otherwise */
	enum approval_status status;  /* pending: the status listed (--status, default pending) */
	bool json;                    /* --json */
};

/*
 * Parses argv[1..argc-1] into *out with env's defaults. 0 on success
 * (out->command CTL_HELP when help was asked for; then nothing else is
 * checked); -1 on a usage error, with one line in err (errlen bytes; it may
 * quote the command line, so print it escaped) and *out unspecified.
 */
int ctl_args_parse(int argc, char *const argv[], const struct ctl_env *env, struct ctl_args *out, char *err,
		   size_t errlen);

/* The usage text (static, several lines, ends in '\n'). */
const char *ctl_args_usage(void);

#endif
