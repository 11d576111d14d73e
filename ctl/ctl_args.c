/*
 * ctl_args: see ctl_args.h. One pass over argv fills a table of option
 * values and at most two positional arguments (the command and its id);
 * the checks that depend on the command run after it. The first error is
 * kept and the pass goes on, so -h anywhere still gets the usage text.
 *
 * An error message quotes no option's value and no positional argument
 * but the command's name (cut short); of an unknown option it quotes the
 * name before any '=' (of a short one, its one letter), so a secret typed
 * in the wrong place is not echoed back.
 */
#include "ctl/ctl_args.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "approval/approval_text.h"

enum opt_id {
	OPT_URL,
	OPT_USER,
	OPT_CACERT,
	OPT_REASON,
	OPT_STATUS,
	OPT_JSON,
	OPT_HELP,
	N_OPTS,
};

/* One row per option: its name after "--" and whether it takes a value. */
static const struct {
	const char *name;
	bool takes_value;
} opts[N_OPTS] = {
	[OPT_URL] = {"url", true},       [OPT_USER] = {"user", true},     [OPT_CACERT] = {"cacert", true},
	[OPT_REASON] = {"reason", true}, [OPT_STATUS] = {"status", true}, [OPT_JSON] = {"json", false},
	[OPT_HELP] = {"help", false},
};

/* Names that look like a way to pass the password, answered with where it comes from instead. */
static const char *const password_opts[] = {"password", "pass", "passwd", "pw"};

static const struct {
	const char *name;
	enum ctl_command command;
	bool takes_id;
} commands[] = {
	{"pending", CTL_PENDING, false},
	{"show", CTL_SHOW, true},
	{"approve", CTL_APPROVE, true},
	{"reject", CTL_REJECT, true},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define NAME_SHOWN 32 /* most bytes of an option or command name an error quotes */

struct parse {
	const char *val[N_OPTS]; /* the option's value; "" for a flag given */
	const char *pos[2];      /* the command, the id */
	size_t npos;
	bool help;
	bool failed;
	char *err;
	size_t errlen;
};

static void fail(struct parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
}

static int find_opt(const char *name, size_t len)
{
	for (int i = 0; i < N_OPTS; i++)
		if (strlen(opts[i].name) == len && memcmp(opts[i].name, name, len) == 0)
			return i;
	return -1;
}

static bool is_password_opt(const char *name, size_t len)
{
	for (size_t i = 0; i < COUNT(password_opts); i++)
		if (strlen(password_opts[i]) == len && memcmp(password_opts[i], name, len) == 0)
			return true;
	return false;
}

/* One argument starting with "--" (not "--" itself); *i moves past a value taken from the next argument. */
static void take_long(struct parse *p, int argc, char *const argv[], int *i)
{
	const char *name = argv[*i] + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	int shown = len > NAME_SHOWN ? NAME_SHOWN : (int)len;
	int o = find_opt(name, len);
	const char *v = "";

	if (o < 0) {
		if (is_password_opt(name, len))
			fail(p, "the password is read from %s only, never from the command line", CTL_ENV_PASSWORD);
		else
			fail(p, "unknown option --%.*s", shown, name);
		return;
	}
	if (opts[o].takes_value && !eq && *i + 1 >= argc) {
		fail(p, "--%s needs a value", opts[o].name);
		return;
	}
	if (!opts[o].takes_value && eq) {
		fail(p, "--%s takes no value", opts[o].name);
		return;
	}
	if (opts[o].takes_value)
		v = eq ? eq + 1 : argv[++*i];
	if (o == OPT_HELP)
		p->help = true;
	else if (p->val[o])
		fail(p, "--%s given twice", opts[o].name);
	else
		p->val[o] = v;
}

static void take_all(struct parse *p, int argc, char *const argv[])
{
	bool options = true;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (options && strcmp(a, "--") == 0) {
			options = false;
		} else if (options && (strcmp(a, "-h") == 0)) {
			p->help = true;
		} else if (options && a[0] == '-' && a[1] == '-') {
			take_long(p, argc, argv, &i);
		} else if (options && a[0] == '-' && a[1] != '\0') {
			fail(p, "unknown option -%c", a[1]);
		} else if (p->npos < COUNT(p->pos)) {
			p->pos[p->npos++] = a;
		} else {
			fail(p, "too many arguments");
		}
	}
}

/*
 * https://host[:port][/path], printable ASCII, with no user name or
 * password in it, no query and no fragment. Copied to out without its
 * trailing slashes.
 */
static bool url_take(const char *url, char out[CTL_URL_MAX + 1])
{
	static const char scheme[] = "https://";
	size_t len = strlen(url), host_len;
	const char *host;

	if (len > CTL_URL_MAX || strncasecmp(url, scheme, strlen(scheme)) != 0)
		return false;
	for (const unsigned char *c = (const unsigned char *)url; *c; c++)
		if (*c <= ' ' || *c >= 0x7f || strchr("?#@\\", *c))
			return false;
	host = url + strlen(scheme);
	host_len = strcspn(host, "/");
	if (host_len == 0 || host[0] == ':')
		return false;
	while (len > strlen(scheme) + host_len && url[len - 1] == '/')
		len--;
	memcpy(out, url, len);
	out[len] = '\0';
	return true;
}

/* A name HTTP Basic can carry (no ':') that a person can read. */
static bool user_ok(const char *user)
{
	size_t len = strlen(user);

	return len > 0 && len <= APPROVAL_MAX_NAME && !strchr(user, ':') && !approval_text_suspicious(user, len);
}

static int command_checks(struct parse *p, bool takes_id, enum ctl_command cmd, struct ctl_args *out)
{
	const char *reason = p->val[OPT_REASON];

	if (takes_id && p->npos < 2)
		return fail(p, "%s needs the id of a write", p->pos[0]), -1;
	if (!takes_id && p->npos > 1)
		return fail(p, "too many arguments"), -1;
	if (takes_id && !approval_id_valid(p->pos[1]))
		return fail(p, "not the id of a write (w and 20 characters of a-z and 2-7)"), -1;
	if (takes_id)
		memcpy(out->id, p->pos[1], APPROVAL_ID_LEN + 1);
	if (p->val[OPT_STATUS] && cmd != CTL_PENDING)
		return fail(p, "--status is for pending only"), -1;
	if (p->val[OPT_STATUS] && !approval_status_parse(p->val[OPT_STATUS], &out->status))
		return fail(p, "--status takes one of pending, approved, running, executed, rejected, expired, "
			       "drifted, failed"),
		       -1;
	if (reason && cmd != CTL_APPROVE && cmd != CTL_REJECT)
		return fail(p, "--reason is for approve and reject only"), -1;
	if (cmd == CTL_REJECT && (!reason || !*reason))
		return fail(p, "reject needs a --reason"), -1;
	if (reason && strlen(reason) > APPROVAL_MAX_REASON)
		return fail(p, "--reason is longer than %d bytes", APPROVAL_MAX_REASON), -1;
	if (reason && approval_text_suspicious(reason, strlen(reason)))
		return fail(p, "--reason holds a control or invisible character, or bytes that are not UTF-8"), -1;
	out->reason = reason && *reason ? reason : NULL;
	return 0;
}

/* What every command shares: where, who and how. */
static int common_checks(struct parse *p, const struct ctl_env *env, struct ctl_args *out)
{
	const char *url = p->val[OPT_URL] ? p->val[OPT_URL] : CTL_DEFAULT_URL;

	if (!url_take(url, out->url))
		return fail(p, "--url takes https://HOST[:PORT][/PATH] (no user name, query or fragment)"), -1;
	out->user = p->val[OPT_USER] ? p->val[OPT_USER] : (env->user && *env->user ? env->user : NULL);
	if (!out->user)
		return fail(p, "no approver: give --user or set %s", CTL_ENV_USER), -1;
	if (!user_ok(out->user))
		return fail(p, "the approver's name is empty, too long, or holds ':' or a control character"), -1;
	if (p->val[OPT_CACERT] && !*p->val[OPT_CACERT])
		return fail(p, "--cacert needs a file"), -1;
	out->cacert = p->val[OPT_CACERT];
	if (!env->password || !*env->password)
		return fail(p, "set %s to the approver's password", CTL_ENV_PASSWORD), -1;
	out->password = env->password;
	out->json = p->val[OPT_JSON] != NULL;
	return 0;
}

int ctl_args_parse(int argc, char *const argv[], const struct ctl_env *env, struct ctl_args *out, char *err,
		   size_t errlen)
{
	struct parse p = {.err = err, .errlen = errlen};
	size_t c;

	memset(out, 0, sizeof(*out));
	out->status = APPROVAL_PENDING;
	take_all(&p, argc, argv);
	if (p.help) {
		out->command = CTL_HELP;
		return 0;
	}
	if (p.failed)
		return -1;
	if (p.npos == 0)
		return fail(&p, "no command"), -1;
	for (c = 0; c < COUNT(commands) && strcmp(commands[c].name, p.pos[0]); c++)
		;
	if (c == COUNT(commands))
		return fail(&p, "unknown command %.*s", NAME_SHOWN, p.pos[0]), -1;
	out->command = commands[c].command;
	if (command_checks(&p, commands[c].takes_id, out->command, out) < 0 || common_checks(&p, env, out) < 0)
		return -1;
	return 0;
}

const char *ctl_args_usage(void)
{
	return "usage: airlockctl [OPTIONS] pending [--status NAME] [--json]\n"
	       "       airlockctl [OPTIONS] show ID [--json]\n"
	       "       airlockctl [OPTIONS] approve ID [--reason TEXT] [--json]\n"
	       "       airlockctl [OPTIONS] reject ID --reason TEXT [--json]\n"
	       "\n"
	       "Lists, shows, approves and rejects the writes airlock holds for approval.\n"
	       "\n"
	       "options (before or after the command):\n"
	       "  --url URL      the approval listener, https only (default " CTL_DEFAULT_URL ")\n"
	       "  --user NAME    the approver (default $" CTL_ENV_USER ")\n"
	       "  --cacert FILE  trust the CA certificates in FILE (PEM) instead of the system's\n"
	       "  --json         print the server's JSON instead of text\n"
	       "  --reason TEXT  why (required by reject; at most 1024 bytes)\n"
	       "  --status NAME  pending lists the writes in this status instead: approved,\n"
	       "                 running, executed, rejected, expired, drifted or failed\n"
	       "  -h, --help     this text\n"
	       "\n"
	       "The password is read from $" CTL_ENV_PASSWORD ", never from the command line.\n"
	       "Exit status: 0 done, 1 the server refused, 2 usage error, 3 connection or TLS failure.\n";
}
