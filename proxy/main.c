/*
 * airlockd: the entry point. Runs the proxy, checks a config file, checks
 * an audit log's hash chain, or makes a SCRAM verifier for the config
 * from a password on stdin.
 *
 * proxy/ is airlockd. What both protocols share lives here: server.c (the
 * event loop, the listeners from one table of protocols, signals, reload),
 * gen.c (a config generation and the per-user counters under it),
 * session.c (the session core: a connection's life, the framed read loop,
 * back-pressure, jobs under max_jobs; session_audit.c its audit records),
 * the job layers (jobs.c the manager, job_pool.c the warm runners, job.c
 * one statement in one container, with job_dir.c, job_ctl.c and
 * job_frame.c below it), relay.c (a job's socket to the database) and
 * audit.c (with its hash chain in audit_chain.c and the chain's checker in
 * audit_verify.c). With workers = N, supervisor.c forks N servers that
 * share the listeners and keeps their one audit log. Each protocol is a folder below: proxy/pg/ and
 * proxy/mysql/, each with its validator in validate/. The server owns the
 * loop, the generations, the launcher, the job manager and every session;
 * a session owns its protocol state and holds its generation; a job is
 * owned by the manager and borrowed by the session that runs it until its
 * final event.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>

#include <curl/curl.h>
#include <event2/event.h>
#include <openssl/crypto.h>

#include "conf/config.h"
#include "protocol/scram.h"
#include "proxy/audit_verify.h"
#include "proxy/log.h"
#include "proxy/policy_check.h"
#include "proxy/server.h"
#include "proxy/supervisor.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: airlockd -c FILE            run in the foreground\n"
		     "       airlockd --check-config FILE validate FILE and explain each problem\n"
		     "       airlockd --verify-audit FILE... check the audit log's hash chain through each FILE\n"
		     "                                    in order, rotated ones first (exit 0 intact, 1 at the\n"
		     "                                    first broken record, 2 when a FILE cannot be read)\n"
		     "       airlockd --version           print the version and the libraries'\n"
		     "       airlockd --make-verifier     read a password on stdin, print a SCRAM verifier\n");
}

static int check_config(const char *path, bool quiet_ok)
{
	struct config_errors errs = {0};
	struct airlock_config *cfg = config_load(path, &errs);

	if (!cfg) {
		fprintf(stderr, "%s: %zu problem%s:\n", path, errs.n, errs.n == 1 ? "" : "s");
		for (size_t i = 0; i < errs.n; i++)
			fprintf(stderr, "  %s\n", errs.msg[i]);
		return 1;
	}
	if (!policy_check(cfg, &errs)) {
		fprintf(stderr, "%s: %zu problem%s:\n", path, errs.n, errs.n == 1 ? "" : "s");
		for (size_t i = 0; i < errs.n; i++)
			fprintf(stderr, "  %s\n", errs.msg[i]);
		config_free(cfg);
		return 1;
	}
	if (!quiet_ok) {
		struct config_errors w = {0};

		policy_warnings(cfg, &w);
		for (size_t i = 0; i < w.n; i++)
			fprintf(stderr, "%s: warning: %s\n", path, w.msg[i]);
		printf("%s: ok (%zu user%s, %zu target%s)\n", path, cfg->nusers, cfg->nusers == 1 ? "" : "s",
		       cfg->ntargets, cfg->ntargets == 1 ? "" : "s");
		policy_print(cfg, stdout);
	}
	config_free(cfg);
	return 0;
}

/* Checks the chain through paths in order (a log and the files rotated out of it, oldest first). */
static int verify_audit(char **paths, int n)
{
	struct audit_verify v;

	audit_verify_init(&v);
	for (int i = 0; i < n; i++) {
		enum audit_verify_result r;
		FILE *f = fopen(paths[i], "r");

		if (!f) {
			fprintf(stderr, "%s: %s\n", paths[i], strerror(errno));
			return 2;
		}
		v.lines = 0; /* line numbers are each file's own; the chain goes on */
		r = audit_verify_file(&v, f);
		fclose(f);
		if (r != AUDIT_VERIFY_INTACT) {
			fprintf(stderr, "%s:%s%s\n", paths[i], r == AUDIT_VERIFY_IO ? " " : "", v.msg);
			if (r == AUDIT_VERIFY_BROKEN && i == 0 && v.lines == 0)
				fprintf(stderr,
					"%s: a log rotated (SIGUSR1) starts where the file before it ended: name "
					"that file first\n",
					paths[i]);
			return r == AUDIT_VERIFY_IO ? 2 : 1;
		}
		printf("%s: %llu record%s, chain intact\n", paths[i], (unsigned long long)v.lines,
		       v.lines == 1 ? "" : "s");
	}
	return 0;
}

static int make_verifier(void)
{
	char pw[1024], out[512];
	uint8_t salt[16];
	size_t n;

	if (!fgets(pw, sizeof(pw), stdin)) {
		fprintf(stderr, "airlockd: no password on stdin\n");
		return 1;
	}
	n = strcspn(pw, "\r\n");
	pw[n] = '\0';
	if (n == 0) {
		fprintf(stderr, "airlockd: empty password\n");
		return 1;
	}
	if (getrandom(salt, sizeof(salt), 0) != sizeof(salt) ||
	    scram_make_verifier(pw, salt, sizeof(salt), 4096, out, sizeof(out)) < 0) {
		fprintf(stderr, "airlockd: could not make a verifier\n");
		return 1;
	}
	explicit_bzero(pw, sizeof(pw));
	printf("%s\n", out);
	return 0;
}

static int run(const char *path)
{
	static const struct rlimit no_core = {0, 0};
	struct config_errors errs = {0};
	struct airlock_config *cfg;

	/* Soft and hard: a crash must not write memory holding backend passwords into a core file. */
	if (setrlimit(RLIMIT_CORE, &no_core) != 0) {
		fprintf(stderr, "airlockd: could not turn core files off: %s\n", strerror(errno));
		return 1;
	}
	cfg = config_load(path, &errs);
	struct server srv;
	int rc;

	if (!cfg || !policy_check(cfg, &errs)) {
		config_free(cfg);
		check_config(path, true);
		return 1;
	}
	/* Once, before any thread: the webhook and the Docker launcher both use curl. */
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "airlockd: curl could not be initialised\n");
		config_free(cfg);
		return 1;
	}
	/* workers = N: a supervisor forks N servers, each owning its copy of the config. */
	if (cfg->workers > 1) {
		rc = supervisor_run(cfg);
		curl_global_cleanup();
		return rc ? 1 : 0;
	}
	/* The server owns the config from here on (and reloads it on SIGHUP). */
	if (server_init(&srv, path, cfg, NULL) < 0) {
		server_fini(&srv);
		curl_global_cleanup();
		return 1;
	}
	rc = server_run(&srv);
	server_fini(&srv);
	curl_global_cleanup();
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-c"))
		return run(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--check-config"))
		return check_config(argv[2], false);
	if (argc >= 3 && !strcmp(argv[1], "--verify-audit"))
		return verify_audit(argv + 2, argc - 2);
	if (argc == 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"))) {
		printf("airlockd %s (libevent %s, %s)\n", AIRLOCK_VERSION, event_get_version(),
		       OpenSSL_version(OPENSSL_VERSION));
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--make-verifier"))
		return make_verifier();
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
