/*
 * server: process-wide set-up, the listeners (one per protocol), signals, reload.
 */
#define _GNU_SOURCE
#include "proxy/server.h"
#include "proxy/peer.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/dns.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "proxy/approval_http.h"
#include "proxy/approval_notify.h"
#include "proxy/approvals.h"
#include "proxy/audit.h"
#include "proxy/gen.h"
#include "proxy/job/job_dir.h"
#include "proxy/job/job.h"
#include "proxy/log.h"
#include "proxy/login_guard.h"
#include "proxy/metrics_http.h"
#include "proxy/ops_history.h"
#include "proxy/ops_page.h"
#include "proxy/runtime_sweep.h"
#include "proxy/stats.h"
#include "proxy/tls.h"
#include "proxy/validator_client.h"
#include "proxy/validator_pool.h"
#include "proxy/timeval.h"
#include "protocol/my_auth.h"
#include "proxy/mysql/my_session.h"
#include "proxy/pg/pg_session.h"
#include "proxy/policy_check.h"
#include "proxy/job/runner_uids.h"
#include "proxy/server_ctl.h"
#include "proxy/session.h"
#include "proxy/worker_dirs.h"
#include "launch/launcher.h"
#include "launch/oci_rootfs.h"

static void server_accept_cb(struct evconnlistener *lst, evutil_socket_t fd, struct sockaddr *sa, int salen, void *arg)
{
	struct server_listener *l = arg;

	session_accept(l->srv, l->proto, fd);
}

static void server_accept_error_cb(struct evconnlistener *lst, void *arg)
{
	int err = EVUTIL_SOCKET_ERROR();

	/* Out of descriptors and friends: keep serving the connections we have. */
	log_warn("accept failed: %s", evutil_socket_error_to_string(err));
}

/*
 * The signals server_signal_cb answers: SIGINT and SIGTERM drain and stop,
 * SIGHUP reloads, SIGUSR1 opens the audit log again (logrotate).
 */
static const int server_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1};

static void server_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;

	if (sig == SIGUSR1) {
		if (audit_reopen(srv->audit, srv->cfg->audit_log) < 0)
			log_warn("audit log %s: could not open it again (%s); records still go to the file open before",
				 srv->cfg->audit_log, strerror(errno));
		else
			log_info("audit log %s opened again", srv->cfg->audit_log);
		return;
	}
	if (sig == SIGHUP) {
		if (!srv->stopping)
			server_reload(srv, NULL, 0);
		return;
	}
	log_info("signal %d: %s", (int)sig, srv->stopping ? "again" : "shutting down");
	server_shutdown(srv);
}

/* What another worker's console asked of every worker, through the supervisor: pause or resume. */
static void server_sibling_signal_cb(evutil_socket_t sig, short what, void *arg)
{
	struct server *srv = arg;

	(void)what;
	if (sig == SIGRTMIN) {
		log_info("another worker's console paused every worker");
		srv->paused = true;
	} else {
		log_info("another worker's console resumed every worker");
		server_resume(srv);
	}
}

/* Binds host:port for one protocol; NULL (logged) on failure. */
static struct evconnlistener *server_listen(struct server_listener *l, const char *key, const char *host, uint16_t port)
{
	struct evutil_addrinfo hints = {0}, *ai = NULL;
	struct evconnlistener *lst;
	char portstr[8];
	int rc;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = evutil_getaddrinfo(host, portstr, &hints, &ai);
	if (rc != 0) {
		log_error("%s %s: %s", key, host, evutil_gai_strerror(rc));
		return NULL;
	}
	lst = evconnlistener_new_bind(l->srv->base, server_accept_cb, l,
				      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC, 512,
				      ai->ai_addr, (int)ai->ai_addrlen);
	evutil_freeaddrinfo(ai);
	if (!lst) {
		log_error("cannot listen on %s:%u: %s", host, port, strerror(errno));
		return NULL;
	}
	evconnlistener_set_error_cb(lst, server_accept_error_cb);
	return lst;
}

/* Makes dir 0711, searchable by the runners cfg's runtime needs; -1 logged. */
static int server_make_job_dir(const struct airlock_config *cfg, const char *dir)
{
	struct stat st;

	/* Searchable by all: a runner reaches its own directory's sockets by name, nothing else. */
	if (mkdir(dir, 0711) < 0 && errno != EEXIST) {
		log_error("job_dir %s: %s", dir, strerror(errno));
		return -1;
	}
	/* A user namespace's root (the host's nobody) mounts the root filesystem and /job from these paths. */
	if (strcmp(cfg->runtime, "oci") == 0 && cfg->oci_userns && (stat(dir, &st) < 0 || !(st.st_mode & S_IXOTH))) {
		/* airlockd's own directory, made 0700 by an older release: search is all it lacks. */
		if (st.st_uid != geteuid() || chmod(dir, (st.st_mode & 07777) | 0011) < 0) {
			log_error("job_dir %s must be searchable by others (mode 0711) for oci_userns = on", dir);
			return -1;
		}
		log_info("job_dir %s: made searchable by others (0711) for oci_userns = on", dir);
	}
	return 0;
}

/* A listener on a socket the supervisor bound and made listen; takes fd. NULL (logged) on failure. */
static struct evconnlistener *server_listen_fd(struct server_listener *l, const char *key, int fd)
{
	struct evconnlistener *lst = evconnlistener_new(l->srv->base, server_accept_cb, l,
							LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, -1, fd);

	if (!lst) {
		log_error("%s: cannot listen: %s", key, strerror(errno));
		close(fd);
		return NULL;
	}
	evconnlistener_set_error_cb(lst, server_accept_error_cb);
	return lst;
}

static int server_runtime_sweep(const struct airlock_config *cfg, struct runtime_sweep *rs);

int server_take_job_dir(const struct airlock_config *cfg, struct runtime_sweep *rs)
{
	char err[256];
	int lock, swept;

	if (server_make_job_dir(cfg, cfg->job_dir) < 0)
		return -1;
	/* Before anything in job_dir is swept or unpacked: a second instance on it must touch nothing. */
	lock = job_dir_lock(cfg->job_dir, err, sizeof(err));
	if (lock < 0) {
		log_error("%s", err);
		return -1;
	}
	swept = jobs_sweep_dir(cfg->job_dir);
	if (swept > 0)
		log_info("removed %d job directories left from an earlier run", swept);
	if (server_runtime_sweep(cfg, rs) < 0) {
		close(lock);
		return -1;
	}
	return lock;
}

/* Fail closed but keep serving: the engine may come back later. Leftover containers go first. */
static int server_runtime_sweep(const struct airlock_config *cfg, struct runtime_sweep *rs)
{
	char err[256], state[4096];
	bool oci = strcmp(cfg->runtime, "oci") == 0;
	int swept;

	if (oci) {
		snprintf(state, sizeof(state), "%s/" SERVER_OCI_STATE, cfg->job_dir);
		if (mkdir(state, 0711) < 0 && errno != EEXIST) {
			log_error("job_dir %s: cannot make %s: %s", cfg->job_dir, state, strerror(errno));
			return -1;
		}
	}
	if (!runtime_sweep_ask(rs, cfg)) {
		if (oci)
			log_warn("RUNTIME_UNAVAILABLE: %s; statements will fail until it can be run", rs->err);
		else
			log_warn("DOCKER_UNAVAILABLE: %s; statements will fail until the engine is reachable", rs->err);
		return 0;
	}
	if (!oci && launcher_image_present_sync(cfg->docker_socket, cfg->runner_image, 3000, err, sizeof(err)) < 0)
		log_warn("IMAGE_UNAVAILABLE: %s", err);
	if (runtime_sweep_dir(rs, cfg, cfg->job_dir, &swept) != RUNTIME_SWEPT)
		log_warn("job_dir %s: %s", cfg->job_dir, rs->err);
	if (swept > 0)
		log_info("removed %d runner containers left from an earlier run", swept);
	return 0;
}

/* The launcher of cfg's runtime; an OCI root filesystem that fails its check leaves every launch failing. */
static struct launcher *server_launcher(struct event_base *base, const struct airlock_config *cfg)
{
	char err[512], state[4096], rootfs[4096];
	struct oci_options o;

	if (strcmp(cfg->runtime, "oci") != 0)
		return launcher_new_docker(base, cfg->docker_socket);
	snprintf(state, sizeof(state), "%s/" SERVER_OCI_STATE, cfg->job_dir);
	o = (struct oci_options){.runtime = cfg->oci_runtime, .state_dir = state, .userns = cfg->oci_userns};
	if (oci_rootfs_prepare_sync(cfg->runner_rootfs, state, rootfs, sizeof(rootfs), err, sizeof(err)) < 0)
		log_warn("%s", err);
	else
		o.rootfs = rootfs;
	o.rootfs_ref = cfg->runner_rootfs;
	if (o.rootfs)
		log_info("runtime oci: %s, root filesystem %s%s", cfg->oci_runtime, rootfs,
			 cfg->oci_userns ? ", a user namespace per container" : "");
	return launcher_new_oci(base, &o);
}

int server_check_validator_uid(const struct airlock_config *cfg)
{
	char who[160];

	if (geteuid() != 0) {
		log_warn("validator: airlockd is not root, so its workers run as its own uid (sandboxed all the same)");
		return 0;
	}
	if (getpwuid(cfg->validator_uid) || getgrgid(cfg->validator_uid)) {
		log_error("validator_uid %u is a host account or group; pick an id nothing on this host uses",
			  cfg->validator_uid);
		return -1;
	}
	/* The workers of an airlockd that was just killed die with it: give them a moment. */
	for (int i = 0; i < 40 && runner_uids_busy(cfg->validator_uid, cfg->validator_uid, who, sizeof(who)); i++)
		usleep(50000);
	if (runner_uids_busy(cfg->validator_uid, cfg->validator_uid, who, sizeof(who))) {
		log_error("validator_uid %u: %s; pick an id nothing on this host runs as", cfg->validator_uid, who);
		return -1;
	}
	return 0;
}

/*
 * The validator workers: started before any listener, checked to answer,
 * and refused to start at all rather than validate inside airlockd.
 */
static int server_validators(struct server *srv, const struct airlock_config *cfg)
{
	struct vpool_options o = {
		.workers = cfg->validator_workers,
		.uid = cfg->validator_uid,
		.gid = cfg->validator_uid,
		.timeout_ms = cfg->validator_timeout_ms,
		.memory_mb = cfg->validator_memory_mb,
		.cpu_seconds = 3600,
	};
	char exe[4096], path[4200], err[512];
	ssize_t n;

	if (cfg->validator_path) {
		o.path = cfg->validator_path;
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0) {
			log_error("validator: cannot find airlockd's own program: %s", strerror(errno));
			return -1;
		}
		exe[n] = '\0';
		snprintf(path, sizeof(path), "%.*s/airlock-validator", (int)(strrchr(exe, '/') - exe), exe);
		o.path = path;
	}
	/* With workers = N the supervisor checked validator_uid, before any worker started a validator. */
	if (srv->worker.count == 1 && server_check_validator_uid(cfg) < 0)
		return -1;
#ifdef AIRLOCK_VALIDATOR_BYPASS
	o.bypass = cfg->validator_bypass;
	if (o.bypass)
		log_warn("validator_bypass = on: statements go to the runner unvalidated (a test build's switch)");
#endif
	srv->validators = vpool_new(&o, err, sizeof(err));
	if (!srv->validators || !vcl_check(srv->validators, err, sizeof(err))) {
		log_error("validator: %s", err);
		return -1;
	}
	log_info("validator: %u workers (%s) as uid %u, %u ms and %u MB each", o.workers, o.path,
		 geteuid() == 0 ? cfg->validator_uid : (unsigned)geteuid(), o.timeout_ms, o.memory_mb);
	return 0;
}

/* A phase to the metrics and the operator page's history. */
static void observe_phase(struct server *srv, enum stats_phase phase, double seconds)
{
	stats_phase(srv->stats, phase, seconds);
	ops_phase(srv->ops, (int64_t)(monotonic_ns() / 1000000000u), phase, seconds);
}

/* A job's phase (job.h) into the metrics, container starts and failures labelled with the runtime in force. */
static void observe_job(void *arg, enum job_phase phase, double seconds)
{
	struct server *srv = arg;

	switch (phase) {
	case JOB_PHASE_QUEUE_WAIT:
		observe_phase(srv, STATS_PHASE_QUEUE_WAIT, seconds);
		break;
	case JOB_PHASE_RUNNER_WAIT:
		observe_phase(srv, STATS_PHASE_RUNNER_WAIT, seconds);
		break;
	case JOB_PHASE_BACKEND:
		observe_phase(srv, STATS_PHASE_BACKEND, seconds);
		break;
	case JOB_PHASE_CONTAINER_START:
		observe_phase(srv, STATS_PHASE_CONTAINER_START, seconds);
		break;
	case JOB_PHASE_CONTAINER_OK:
	case JOB_PHASE_CONTAINER_FAILED:
		stats_container(srv->stats, srv->cfg->runtime, phase == JOB_PHASE_CONTAINER_OK);
		break;
	}
}

/* Seconds between samples of what is live for the operator page. */
#define OPS_TICK_S 5

static void ops_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	ops_sample(arg, (int64_t)(monotonic_ns() / 1000000000u));
}

int server_init(struct server *srv, const char *path, struct airlock_config *cfg, const struct server_worker *worker)
{
	struct runtime_sweep rs = {0};
	char err[256], who[160];

	memset(srv, 0, sizeof(*srv));
	srv->job_dir_lock = -1;
	srv->worker = (struct server_worker){
		.count = 1, .listen_fd = {-1, -1}, .sibling_fd = -1, .audit_fd = -1, .control_fd = -1};
	if (worker) {
		srv->worker = *worker;
		srv->worker.control_fd =
			fcntl(worker->audit_fd, F_DUPFD_CLOEXEC, 0); /* -1: the console's asks reach no other worker */
	}
	(void)path; /* cfg->path holds it */
	if (srv->worker.count > 1 && !config_worker_share(cfg, srv->worker.index)) {
		config_free(cfg);
		log_error("out of memory");
		return -1;
	}
	srv->gen = gen_new(cfg);
	if (!srv->gen)
		return -1;
	srv->cfg = srv->gen->cfg;
	srv->started = time(NULL);
	signal(SIGPIPE, SIG_IGN);
	srv->job_dir_lock = server_take_job_dir(cfg, &rs);
	if (srv->job_dir_lock < 0)
		return -1;
	/* One process: every worker directory is an earlier run's (a worker's own has none below it). */
	if (!worker)
		worker_dirs_sweep(cfg, 1, &rs);
	/* After the sweep, nothing may run as a runner uid: such a process could reach a runner. */
	if (runner_uids_busy(cfg->runner_uid_first, cfg->runner_uid_last, who, sizeof(who))) {
		log_error("runner_uids %s: %s; pick a range that nothing on this host runs as", cfg->runner_uids, who);
		return -1;
	}
	if (server_validators(srv, cfg) < 0)
		return -1;
	srv->base = event_base_new();
	if (!srv->base)
		return -1;
	srv->dns = evdns_base_new(srv->base, EVDNS_BASE_INITIALIZE_NAMESERVERS);
	if (!srv->dns)
		srv->dns = evdns_base_new(srv->base, 0);
	srv->launcher = server_launcher(srv->base, cfg);
	srv->jobs = srv->launcher ? jobs_new(srv->base, srv->dns, srv->launcher, cfg) : NULL;
	if (srv->jobs && (cfg->pool_min > 0 || cfg->pool_max > 0))
		jobs_start_pool(srv->jobs);
	if (srv->worker.count > 1) {
		srv->audit = audit_open_remote(srv->worker.audit_fd, srv->base);
		srv->worker.audit_fd = -1; /* the audit's now, even when NULL: closed below */
	} else {
		srv->audit = audit_open(cfg->audit_log);
	}
	audit_set_config(srv->audit, cfg->checksum_hex);
	srv->guard = login_guard_new();
	srv->peers = peers_new();
	if (!srv->peers || !budgets_sync(&srv->budgets, cfg, monotonic_ns())) {
		log_error("out of memory");
		return -1;
	}
	server_warn_policy(cfg);
	if (cfg->tls_cert_file) {
		srv->tls = tls_new(cfg->tls_cert_file, cfg->tls_key_file, err, sizeof(err));
		if (!srv->tls) {
			log_error("TLS: %s", err);
			return -1;
		}
		log_info("TLS: offered on both listeners%s", cfg->tls_required ? ", required for every login" : "");
	}
	if (cfg->approval_listen_host && !(srv->ops = ops_history_new())) {
		log_error("approval_listen: out of memory");
		return -1;
	}
	if (cfg->approval_listen_host && !(srv->approval_http = approval_http_new(srv, err, sizeof(err)))) {
		log_error("approval_listen: %s", err);
		return -1;
	}
	if (cfg->metrics_listen_host) {
		srv->stats = stats_new();
		if (!srv->stats || !(srv->metrics_http = metrics_http_new(srv, err, sizeof(err)))) {
			log_error("metrics_listen: %s", srv->stats ? err : "out of memory");
			return -1;
		}
		audit_count_approvals(srv->audit, srv->stats);
		if (srv->validators)
			vpool_observe(srv->validators, stats_validator_call, srv->stats);
	}
	/* The phases go to the metrics and to the operator page's history, whichever there are. */
	if (srv->jobs && (srv->stats || srv->ops))
		jobs_observe(srv->jobs, observe_job, srv);
	if (srv->ops) {
		struct timeval every = {OPS_TICK_S, 0};

		if (!(srv->ops_tick = event_new(srv->base, -1, EV_PERSIST, ops_tick_cb, srv)) ||
		    event_add(srv->ops_tick, &every) < 0) {
			log_error("approval_listen: out of memory");
			return -1;
		}
	}
	if (cfg->approval_webhook) {
		srv->notify = approval_notify_new(srv->base, cfg, err, sizeof(err));
		if (!srv->notify) {
			log_error("approval_webhook: %s", err);
			return -1;
		}
		log_info("approval webhook: each new held write is announced to %s, %s",
			 approval_notify_host(srv->notify), cfg->approval_webhook_secret ? "signed" : "unsigned");
	}
	if (!srv->dns || !srv->jobs || !srv->guard) {
		log_error("out of memory");
		return -1;
	}
	if (!srv->audit) {
		log_error("audit_log %s: %s", cfg->audit_log, strerror(errno));
		return -1;
	}
	/* The writes a stop left running were failed by the supervisor, before any worker could run one. */
	if (approvals_needed(cfg) &&
	    !(srv->approvals = approvals_open(cfg, srv->worker.count == 1, err, sizeof(err)))) {
		log_error("%s", err);
		return -1;
	}
	if (cfg->mysql_listen_host) {
		/* caching_sha2_password without TLS needs an RSA key pair; one per process run. */
		srv->my_rsa = my_rsa_generate(2048);
		if (!srv->my_rsa) {
			log_error("cannot make the RSA key for caching_sha2_password");
			return -1;
		}
	}
	const struct {
		const char *key, *what, *host;
		uint16_t port;
		const struct session_proto *proto;
	} protos[] = {
		{"pg_listen", "Postgres", cfg->pg_listen_host, cfg->pg_listen_port, &pg_session_proto},
		{"mysql_listen", "MySQL", cfg->mysql_listen_host, cfg->mysql_listen_port, &my_session_proto},
	};
	_Static_assert(sizeof(protos) / sizeof(protos[0]) == sizeof(srv->listeners) / sizeof(srv->listeners[0]),
		       "one listener per protocol");
	for (size_t i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		struct server_listener *l = &srv->listeners[i];

		l->srv = srv;
		l->proto = protos[i].proto;
		if (!protos[i].host)
			continue;
		if (srv->worker.count > 1) {
			l->lst = server_listen_fd(l, protos[i].key, srv->worker.listen_fd[i]);
			srv->worker.listen_fd[i] = -1;
		} else {
			l->lst = server_listen(l, protos[i].key, protos[i].host, protos[i].port);
		}
		if (!l->lst)
			return -1;
		log_info("listening for %s clients on %s:%u", protos[i].what, protos[i].host, protos[i].port);
	}
	if (srv->worker.count > 1) {
		srv->sibling.srv = srv;
		srv->sibling.proto = &pg_session_proto;
		srv->sibling.lst = server_listen_fd(&srv->sibling, "worker socket", srv->worker.sibling_fd);
		srv->worker.sibling_fd = -1;
		if (!srv->sibling.lst)
			return -1;
	}
	_Static_assert(sizeof(server_signals) / sizeof(server_signals[0]) ==
			       sizeof(srv->signals) / sizeof(srv->signals[0]),
		       "one event per signal");
	for (size_t i = 0; i < sizeof(server_signals) / sizeof(server_signals[0]); i++) {
		srv->signals[i] = evsignal_new(srv->base, server_signals[i], server_signal_cb, srv);
		event_add(srv->signals[i], NULL);
	}
	for (size_t i = 0; srv->worker.count > 1 && i < 2; i++) {
		srv->sibling_signals[i] = evsignal_new(srv->base, SIGRTMIN + (int)i, server_sibling_signal_cb, srv);
		event_add(srv->sibling_signals[i], NULL);
	}
	return 0;
}

int server_run(struct server *srv)
{
	return event_base_dispatch(srv->base) < 0 ? -1 : 0;
}

void server_fini(struct server *srv)
{
	for (size_t i = 0; i < sizeof(srv->listeners) / sizeof(srv->listeners[0]); i++)
		if (srv->listeners[i].lst)
			evconnlistener_free(srv->listeners[i].lst);
	if (srv->sibling.lst)
		evconnlistener_free(srv->sibling.lst);
	/* What a failed start left untaken. */
	for (size_t i = 0; i < 2; i++)
		if (srv->worker.listen_fd[i] >= 0)
			close(srv->worker.listen_fd[i]);
	if (srv->worker.sibling_fd >= 0)
		close(srv->worker.sibling_fd);
	if (srv->worker.audit_fd >= 0)
		close(srv->worker.audit_fd);
	session_close_all(srv);
	/* Removes every container still alive, then job directories go with the jobs. */
	if (srv->launcher)
		launcher_free(srv->launcher);
	if (srv->jobs)
		jobs_free(srv->jobs);
	for (size_t i = 0; i < sizeof(srv->signals) / sizeof(srv->signals[0]); i++)
		if (srv->signals[i])
			event_free(srv->signals[i]);
	for (size_t i = 0; i < 2; i++)
		if (srv->sibling_signals[i])
			event_free(srv->sibling_signals[i]);
	if (srv->worker.control_fd >= 0)
		close(srv->worker.control_fd);
	if (srv->drain)
		event_free(srv->drain);
	if (srv->dns)
		evdns_base_free(srv->dns, 0);
	audit_close(srv->audit);
	approval_http_free(srv->approval_http);
	metrics_http_free(srv->metrics_http);
	if (srv->ops_tick)
		event_free(srv->ops_tick);
	free(srv->ops);
	srv->ops = NULL;
	if (srv->validators)
		vpool_observe(srv->validators, NULL, NULL);
	stats_free(srv->stats);
	srv->stats = NULL;
	approval_notify_free(srv->notify);
	if (srv->approvals)
		srv->approvals->ops->close(srv->approvals);
	login_guard_free(srv->guard);
	peers_free(srv->peers); /* forwards still in flight are dropped */
	srv->peers = NULL;
	budgets_free(&srv->budgets); /* after the jobs and sessions that charged them */
	tls_free(srv->tls);
	if (srv->my_rsa)
		my_rsa_free(srv->my_rsa);
	if (srv->gen) {
		struct server_gen *gen = srv->gen;

		srv->gen = NULL;
		gen_release(gen);
	}
	if (srv->base)
		event_base_free(srv->base);
	vpool_free(srv->validators);
	if (srv->job_dir_lock >= 0)
		close(srv->job_dir_lock);
}
