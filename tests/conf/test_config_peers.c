/*
 * Tests for [server] peer_id and peers (the nodes a cancel may be forwarded
 * to), state_dsn (the database nodes share for held writes) and workers
 * (each worker's share of the config, and its bits in a session id).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf/config.h"
#include "proxy/peer_key.h"
#include "tests/conf/conf_fixture.h"

static char *with_server_keys(const char *keys)
{
	const char *at = strstr(base_conf, "[server]\n") + strlen("[server]\n");
	char *out;

	assert_true(asprintf(&out, "%.*s%s%s", (int)(at - base_conf), base_conf, keys, at) > 0);
	return out;
}

static struct airlock_config *load_keys(const char *keys, struct config_errors *e)
{
	char *text = with_server_keys(keys);
	struct airlock_config *cfg = config_load_string(text, data_dir, e);

	free(text);
	return cfg;
}

static void expect_error(const char *keys, const char *want)
{
	struct config_errors e;
	struct airlock_config *cfg = load_keys(keys, &e);
	bool found = false;

	assert_null(cfg);
	for (size_t i = 0; i < e.n; i++)
		found |= strstr(e.msg[i], want) != NULL;
	if (!found)
		for (size_t i = 0; i < e.n; i++)
			fprintf(stderr, "  %s\n", e.msg[i]);
	assert_true(found);
}

static void peers_load(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg = config_load_string(base_conf, data_dir, &e);
	char host[64];
	uint16_t port = 0;

	(void)state;
	assert_non_null(cfg);
	assert_int_equal(cfg->peer_id, 0);
	assert_int_equal(cfg->npeers, 0);
	assert_false(config_peer(cfg, 1, host, sizeof(host), &port));
	config_free(cfg);

	cfg = load_keys("peer_id = 1\npeers = 2=127.0.0.2:6432, 3=[::1]:6433, 255=10.0.0.9:1\n", &e);
	assert_non_null(cfg);
	assert_int_equal(cfg->peer_id, 1);
	assert_int_equal(cfg->npeers, 3);
	assert_string_equal(cfg->peers[1], "3=[::1]:6433");
	assert_true(config_peer(cfg, 2, host, sizeof(host), &port));
	assert_string_equal(host, "127.0.0.2");
	assert_int_equal(port, 6432);
	assert_true(config_peer(cfg, 3, host, sizeof(host), &port));
	assert_string_equal(host, "::1");
	assert_int_equal(port, 6433);
	assert_true(config_peer(cfg, 255, host, sizeof(host), &port));
	assert_string_equal(host, "10.0.0.9");
	assert_false(config_peer(cfg, 1, host, sizeof(host), &port));
	assert_false(config_peer(cfg, 4, host, sizeof(host), &port));
	/* a buffer too small for the address finds nothing rather than a cut address */
	assert_false(config_peer(cfg, 255, host, 5, &port));
	config_free(cfg);
}

static void peers_errors(void **state)
{
	(void)state;
	expect_error("peers = 2=127.0.0.2:6432\n", "peers needs peer_id");
	expect_error("peer_id = 1\npeers = 1=127.0.0.2:6432\n", "this node's own peer_id");
	expect_error("peer_id = 1\npeers = 2=127.0.0.2:6432, 2=127.0.0.3:6432\n", "lists id 2 twice");
	expect_error("peer_id = 256\n", "peer_id");
	expect_error("peer_id = 1\npeers = 0=127.0.0.2:6432\n", "is not valid");
	expect_error("peer_id = 1\npeers = 256=127.0.0.2:6432\n", "is not valid");
	expect_error("peer_id = 1\npeers = 2=localhost:6432\n", "is not valid");
	expect_error("peer_id = 1\npeers = 2=db.internal:6432\n", "is not valid");
	expect_error("peer_id = 1\npeers = 2=127.0.0.2\n", "is not valid");
	expect_error("peer_id = 1\npeers = 2=127.0.0.2:0\n", "is not valid");
	expect_error("peer_id = 1\npeers = =127.0.0.2:6432\n", "is not valid");
	expect_error("peer_id = 1\npeers = 2:127.0.0.2:6432\n", "is not valid");
	expect_error("peer_id = 1\npeers = 2=127.0.0.2:6432,,3=127.0.0.3:1\n", "empty entry");
}

/* The session id's layout (proxy/peer_key.h). */
static void key_layout(void **state)
{
	uint32_t id;

	(void)state;
	for (uint32_t r = 0; r < 4096; r++) {
		uint32_t rnd = r * 2654435761u;

		id = peer_key_make(7, 0, 1, rnd);
		assert_int_not_equal(id, 0);
		assert_int_equal(peer_key_node(id), 7);
		assert_int_equal(peer_key_hops(id), 0);
		assert_true(peer_key_local(7, id));
		assert_false(peer_key_local(8, id));
		/* A node without peers takes every key as its own. */
		assert_true(peer_key_local(0, id));
		id = peer_key_make(0, 0, 1, rnd);
		assert_int_not_equal(id, 0);
		assert_int_equal(peer_key_hops(id), 0);
		assert_int_equal(peer_key_session(id), id);
	}
	id = peer_key_make(255, 0, 1, 0xffffffffu);
	assert_int_equal(peer_key_node(id), 255);
	assert_int_equal(peer_key_hops(id), 0);
	/* Each hop is counted; the session it names stays the same. */
	assert_int_equal(peer_key_hops(peer_key_hop(id)), 1);
	assert_int_equal(peer_key_hops(peer_key_hop(peer_key_hop(id))), 2);
	assert_int_equal(peer_key_session(peer_key_hop(peer_key_hop(id))), id);
	assert_int_equal(peer_key_node(peer_key_hop(id)), 255);
	assert_true(PEER_KEY_MAX_HOPS < 4);
}

/* Worker bits (18-21) beside the node's: a cancel finds its node, then its worker. */
static void key_layout_workers(void **state)
{
	(void)state;
	for (uint32_t r = 0; r < 4096; r++) {
		uint32_t rnd = r * 2654435761u, w = r % PEER_KEY_MAX_WORKERS;
		uint32_t id = peer_key_make(7, w, PEER_KEY_MAX_WORKERS, rnd);

		assert_int_not_equal(id, 0);
		assert_int_equal(peer_key_node(id), 7);
		assert_int_equal(peer_key_worker(id), w);
		assert_int_equal(peer_key_hops(id), 0);
		assert_int_equal(peer_key_worker(peer_key_hop(peer_key_hop(id))), w);
		assert_int_equal(peer_key_where(7, w, PEER_KEY_MAX_WORKERS, id), PEER_KEY_HERE);
		assert_int_equal(peer_key_where(7, (w + 1) % PEER_KEY_MAX_WORKERS, PEER_KEY_MAX_WORKERS, id),
				 PEER_KEY_OTHER_WORKER);
		assert_int_equal(peer_key_where(8, w, PEER_KEY_MAX_WORKERS, id), PEER_KEY_OTHER_NODE);
		/* One process: every id of its node is its own, whatever those bits say. */
		assert_int_equal(peer_key_where(7, 0, 1, id), PEER_KEY_HERE);
		/* A node without peers: the worker bits still say which worker. */
		id = peer_key_make(0, w % 2, 2, rnd);
		assert_int_not_equal(id, 0);
		assert_int_equal(peer_key_worker(id), w % 2);
		assert_int_equal(peer_key_where(0, w % 2, 2, id), PEER_KEY_HERE);
		assert_int_equal(peer_key_where(0, 1 - w % 2, 2, id), PEER_KEY_OTHER_WORKER);
	}
}

#define WORKERS_KEYS                                                                          \
	"workers = 3\nrunner_uids = 2000000000-2000000009\nmetrics_listen = 127.0.0.1:9930\n" \
	"approval_listen = 127.0.0.1:8443\ntls_cert_file = server.crt\ntls_key_file = server.key\n"

static void workers_checked_and_shared(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;
	char *dir, sock[4200];

	(void)state;
	cfg = load_keys(WORKERS_KEYS, &e);
	for (size_t i = 0; !cfg && i < e.n; i++)
		fprintf(stderr, "  %s\n", e.msg[i]);
	assert_non_null(cfg);
	assert_int_equal(cfg->workers, 3);
	dir = strdup(cfg->job_dir);
	config_worker_socket(dir, 2, sock, sizeof(sock));
	assert_true(!strncmp(sock, dir, strlen(dir)));
	assert_string_equal(sock + strlen(dir), "/.workers/2.sock");
	uint32_t conns = cfg->max_connections, preauth = cfg->max_unauthenticated, db[16];

	assert_true(cfg->ntargets <= 16);
	for (size_t i = 0; i < cfg->ntargets; i++)
		db[i] = cfg->targets[i].max_db_connections = (uint32_t)(7 * i); /* 0: no bound, 7, 14, ... */
	/* Worker 2 of 3: the last slice takes the remainder; its metrics one port on; no approval page. */
	assert_true(config_worker_share(cfg, 2));
	/* The bounds of the whole, divided: three workers together stay within each. */
	assert_int_equal(cfg->max_connections, conns / 3);
	assert_int_equal(cfg->max_unauthenticated, preauth / 3);
	for (size_t i = 0; i < cfg->ntargets; i++)
		assert_int_equal(cfg->targets[i].max_db_connections, db[i] / 3);
	assert_int_equal(cfg->runner_uid_first, 2000000006);
	assert_int_equal(cfg->runner_uid_last, 2000000009);
	assert_string_equal(cfg->runner_uids, "2000000006-2000000009");
	assert_int_equal(cfg->metrics_listen_port, 9932);
	assert_null(cfg->approval_listen_host);
	assert_true(!strncmp(cfg->job_dir, dir, strlen(dir)));
	assert_string_equal(cfg->job_dir + strlen(dir), "/w2");
	config_free(cfg);
	/* Worker 0 keeps the approval page, the first slice and the port itself. */
	cfg = load_keys(WORKERS_KEYS, &e);
	assert_non_null(cfg);
	assert_true(config_worker_share(cfg, 0));
	assert_int_equal(cfg->runner_uid_first, 2000000000);
	assert_int_equal(cfg->runner_uid_last, 2000000002);
	assert_int_equal(cfg->metrics_listen_port, 9930);
	assert_non_null(cfg->approval_listen_host);
	config_free(cfg);
	free(dir);
	/* One process: nothing changes. */
	cfg = config_load_string(base_conf, data_dir, &e);
	assert_non_null(cfg);
	assert_int_equal(cfg->workers, 1);
	dir = strdup(cfg->job_dir);
	assert_true(config_worker_share(cfg, 0));
	assert_string_equal(cfg->job_dir, dir);
	free(dir);
	config_free(cfg);
	expect_error("workers = 4\nrunner_uids = 2000000000-2000000002\n", "runner_uids has 3 uids and workers = 4");
	expect_error("workers = 2\nmetrics_listen = 127.0.0.1:65535\n", "passes 65535");
	expect_error("workers = 2\njob_dir = /run/airlock/a-job-directory-whose-name-is-far-too-long-for-a-unix-"
		     "socket-path-under-it/jobs\n",
		     "is too long for workers = 2");
	expect_error("workers = 4\nmax_connections = 3\n", "divided among the workers");
	expect_error("workers = 17\n", "workers");
	expect_error("workers = 0\n", "workers");
}

/* Errors of one load, none of which may show the secret. */
static void expect_error_hiding(const char *keys, const char *want, const char *secret)
{
	struct config_errors e;
	struct airlock_config *cfg = load_keys(keys, &e);
	bool found = false;

	assert_null(cfg);
	for (size_t i = 0; i < e.n; i++) {
		found |= strstr(e.msg[i], want) != NULL;
		assert_null(strstr(e.msg[i], secret));
	}
	assert_true(found);
}

static void state_dsn_checked(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;

	(void)state;
	cfg = load_keys("state_dsn = host=10.0.0.5 dbname=airlock user=airlock passfile=/etc/airlock/state.pgpass "
			"sslmode=verify-full\n",
			&e);
	assert_non_null(cfg);
	assert_string_equal(cfg->state_dsn,
			    "host=10.0.0.5 dbname=airlock user=airlock passfile=/etc/airlock/state.pgpass "
			    "sslmode=verify-full");
	config_free(cfg);
	cfg = load_keys("state_dsn = postgresql://airlock@10.0.0.5/airlock?sslmode=verify-full\n", &e);
	assert_non_null(cfg);
	config_free(cfg);
	cfg = config_load_string(base_conf, data_dir, &e);
	assert_non_null(cfg);
	assert_null(cfg->state_dsn);
	config_free(cfg);
	expect_error_hiding("state_dsn = host=10.0.0.5 password=hunter2-secret\n", "holds a password", "hunter2");
	expect_error_hiding("state_dsn = postgresql://airlock:hunter2-secret@10.0.0.5/airlock\n", "holds a password",
			    "hunter2");
	expect_error_hiding("state_dsn = host='10.0.0.5 password=hunter2-secret\n", "cannot parse", "hunter2");
	expect_error_hiding("state_dsn = hunter2-secret\n", "cannot parse", "hunter2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(peers_load),
		cmocka_unit_test(peers_errors),
		cmocka_unit_test(key_layout),
		cmocka_unit_test(key_layout_workers),
		cmocka_unit_test(workers_checked_and_shared),
		cmocka_unit_test(state_dsn_checked),
	};

	return cmocka_run_group_tests(tests, setup_data, NULL);
}
