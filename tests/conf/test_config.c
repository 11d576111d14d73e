/*
 * test_config: conf/ loads a valid file with every value and default right,
 * refuses each class of mistake with a message naming it (several at once),
 * resolves password files, and answers host and image look-ups.
 * Fixtures live in $AIRLOCK_TEST_DATA/config.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "conf/config.h"
#include "tests/conf/conf_fixture.h"

/* base with the first occurrence of from replaced by to (to may add lines). */
static char *edit(const char *base, const char *from, const char *to)
{
	const char *at = strstr(base, from);
	char *out;

	assert_non_null(at);
	assert_true(asprintf(&out, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from)) > 0);
	return out;
}

static void dump(const struct config_errors *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		fprintf(stderr, "  config error: %s\n", e->msg[i]);
}

/* True when one message contains every one of the NULL-terminated substrings. */
static bool has_err(const struct config_errors *e, ...)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		const char *sub;
		bool all = true;
		va_list ap;

		va_start(ap, e);
		while ((sub = va_arg(ap, const char *)))
			if (!strstr(e->msg[i], sub))
				all = false;
		va_end(ap);
		if (all)
			return true;
	}
	return false;
}

static struct airlock_config *load(const char *text, struct config_errors *e)
{
	struct airlock_config *cfg = config_load_string(text, data_dir, e);

	if (!cfg)
		dump(e);
	return cfg;
}

/* Loads text, which must fail with one message holding a and b (b may be NULL). */
#define expect_error(text, a, b) expect_error_at(text, a, b, __LINE__)
static void expect_error_at(const char *text, const char *a, const char *b, int line)
{
	struct config_errors e;
	struct airlock_config *cfg = config_load_string(text, data_dir, &e);

	if (cfg || !has_err(&e, a, b, (const char *)NULL)) {
		fprintf(stderr, "test line %d: wanted an error with \"%s\" \"%s\"\n", line, a, b ? b : "");
		dump(&e);
	}
	assert_null(cfg);
	assert_true(e.n >= 1);
	assert_true(has_err(&e, a, b, (const char *)NULL));
}

/* Edits base once and expects an error. */
static void expect_edit_error(const char *from, const char *to, const char *a, const char *b)
{
	char *text = edit(base_conf, from, to);

	expect_error(text, a, b);
	free(text);
}

/* ---- valid configs --------------------------------------------------------- */

static void test_full_config(void **state)
{
	static const char text[] = "# a full config\n"
				   "[Server]\n"
				   "PG_LISTEN = 0.0.0.0:15432   ; mixed-case keys are fine\n"
				   "max_connections = 500\n"
				   "max_message_bytes = 65536\n"
				   "job_dir = /var/lib/airlock/jobs\n"
				   "docker_socket = /run/docker.sock\n"
				   "runner_image = airlock/runner@" DIGEST "\n"
				   "runner_uids = 3000000000-3000000999\n"
				   "kill_margin_ms = 3000\n"
				   "pool_size = 4\n"
				   "max_jobs = 32\n"
				   "audit_log = /var/log/airlock/audit.log # inline hash comment\n"
				   "\n"
				   "[hosts]\n"
				   "allow = 127.0.0.1 , db.internal,DB2.example.com\n"
				   "\n"
				   "[target shop]\n"
				   "engine = postgres\n"
				   "host = db.internal\n"
				   "port = 6543\n"
				   "database = shop\n"
				   "user = airlock_ro\n"
				   "password_file = shop.password\n"
				   "\n"
				   "[target crm]\n"
				   "host = db2.example.com\n"
				   "port = 5432\n"
				   "database = crm\n"
				   "user = reader\n"
				   "password_file = crlf.password\n"
				   "\n"
				   "[user agent]\n"
				   "scram = " VERIFIER "\n"
				   "target = shop\n"
				   "database = shop_public\n"
				   "tables = Orders, public.customers, sales.*,\n"
				   "    pg_catalog.*, information_schema.*\n"
				   "\tarchive.Old_Orders\n"
				   "timeout_ms = 2500\n"
				   "memory_mb = 256\n"
				   "backend_memory_mb = 64\n"
				   "cpus = 1.25\n"
				   "pids = 128\n"
				   "max_rows = 5000\n"
				   "max_bytes = 2000000\n"
				   "max_connections = 7\n"
				   "\n"
				   "[user bot.2]\n"
				   "scram = " VERIFIER "\n"
				   "target = crm\n";
	struct config_errors e;
	struct airlock_config *cfg = load(text, &e);
	const struct airlock_user *u;
	const struct airlock_target *t;

	(void)state;
	assert_non_null(cfg);
	assert_null(cfg->path);
	assert_string_equal(cfg->pg_listen_host, "0.0.0.0");
	assert_int_equal(cfg->pg_listen_port, 15432);
	assert_int_equal(cfg->max_connections, 500);
	assert_int_equal(cfg->max_message_bytes, 65536);
	assert_string_equal(cfg->job_dir, "/var/lib/airlock/jobs");
	assert_string_equal(cfg->docker_socket, "/run/docker.sock");
	assert_string_equal(cfg->runner_image, "airlock/runner@" DIGEST);
	assert_string_equal(cfg->runner_uids, "3000000000-3000000999");
	assert_int_equal(cfg->runner_uid_first, 3000000000u);
	assert_int_equal(cfg->runner_uid_last, 3000000999u);
	assert_int_equal(cfg->kill_margin_ms, 3000);
	assert_int_equal(cfg->pool_min, 4);
	assert_int_equal(cfg->max_jobs, 32);
	assert_string_equal(cfg->audit_log, "/var/log/airlock/audit.log");

	assert_int_equal(cfg->nhost_allow, 3);
	assert_string_equal(cfg->host_allow[0], "127.0.0.1");
	assert_string_equal(cfg->host_allow[1], "db.internal");
	assert_string_equal(cfg->host_allow[2], "DB2.example.com");

	assert_int_equal(cfg->ntargets, 2);
	t = &cfg->targets[0];
	assert_string_equal(t->name, "shop");
	assert_string_equal(t->engine, "postgres");
	assert_string_equal(t->host, "db.internal");
	assert_int_equal(t->port, 6543);
	assert_string_equal(t->database, "shop");
	assert_string_equal(t->user, "airlock_ro");
	assert_string_equal(t->password, "db-pass-123");
	assert_non_null(strstr(t->password_file, "/config/shop.password"));
	t = &cfg->targets[1];
	assert_string_equal(t->name, "crm");
	assert_string_equal(t->engine, "postgres");
	assert_string_equal(t->password, "crlf-pass");

	assert_int_equal(cfg->nusers, 2);
	u = config_find_user(cfg, "agent");
	assert_ptr_equal(u, &cfg->users[0]);
	assert_string_equal(u->scram, VERIFIER);
	assert_ptr_equal(u->target, &cfg->targets[0]);
	assert_string_equal(u->database, "shop_public");
	assert_int_equal(u->ntables, 6);
	assert_string_equal(u->tables[0], "public.orders");
	assert_string_equal(u->tables[1], "public.customers");
	assert_string_equal(u->tables[2], "sales.*");
	assert_string_equal(u->tables[3], "pg_catalog.*");
	assert_string_equal(u->tables[4], "information_schema.*");
	assert_string_equal(u->tables[5], "archive.old_orders");
	assert_int_equal(u->limits.timeout_ms, 2500);
	assert_int_equal(u->limits.memory_mb, 256);
	assert_int_equal(u->limits.backend_memory_mb, 64);
	assert_int_equal(u->limits.nano_cpus, 1250000000ull);
	assert_int_equal(u->limits.pids, 128);
	assert_int_equal(u->limits.max_rows, 5000);
	assert_int_equal(u->limits.max_bytes, 2000000);
	assert_int_equal(u->max_connections, 7);

	u = config_find_user(cfg, "bot.2");
	assert_non_null(u);
	assert_ptr_equal(u->target, &cfg->targets[1]);
	assert_string_equal(u->database, "crm");
	assert_null(config_find_user(cfg, "Agent"));
	assert_null(config_find_user(cfg, "nobody"));
	config_free(cfg);
}

static void test_defaults(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg = load(base_conf, &e);
	const struct airlock_user *u;

	(void)state;
	assert_non_null(cfg);
	assert_string_equal(cfg->pg_listen_host, "127.0.0.1");
	assert_int_equal(cfg->pg_listen_port, 6432);
	assert_int_equal(cfg->max_connections, 1000);
	assert_int_equal(cfg->max_message_bytes, 1048576);
	assert_string_equal(cfg->job_dir, "/run/airlock/jobs");
	assert_string_equal(cfg->docker_socket, "/var/run/docker.sock");
	assert_string_equal(cfg->runner_uids, "1000000000-1000065535");
	assert_int_equal(cfg->runner_uid_first, 1000000000);
	assert_int_equal(cfg->runner_uid_last, 1000065535);
	assert_int_equal(cfg->kill_margin_ms, 2000);
	assert_int_equal(cfg->pool_min, 0);
	assert_int_equal(cfg->max_jobs, 16);
	assert_string_equal(cfg->audit_log, "-");
	assert_string_equal(cfg->targets[0].engine, "postgres");

	u = config_find_user(cfg, "agent");
	assert_non_null(u);
	assert_string_equal(u->database, "shop");
	assert_int_equal(u->ntables, 0);
	assert_null(u->tables);
	assert_int_equal(u->limits.timeout_ms, 10000);
	assert_int_equal(u->limits.memory_mb, 128);
	assert_int_equal(u->limits.backend_memory_mb, 256);
	assert_int_equal(u->limits.nano_cpus, 500000000ull);
	assert_int_equal(u->limits.pids, 64);
	assert_int_equal(u->limits.max_rows, 1000);
	assert_int_equal(u->limits.max_bytes, 1000000);
	assert_int_equal(u->max_connections, 100);
	config_free(cfg);
}

static void test_listen_forms(void **state)
{
	static const char *const good[][3] = {
		{"localhost:5000", "localhost", "5000"},
		{"[::1]:6432", "::1", "6432"},
		{"[::]:1", "::", "1"},
		{"10.1.2.3:65535", "10.1.2.3", "65535"},
	};
	static const char *const bad[] = {
		"127.0.0.1", "127.0.0.1:",     "127.0.0.1:0",      "127.0.0.1:65536", "127.0.0.1:64x", "::1:6432",
		"[::1]6432", "[nothost]:6432", "example.com:6432", "300.1.1.1:5",     ":6432",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char line[128], *text;
		struct config_errors e;
		struct airlock_config *cfg;

		snprintf(line, sizeof(line), "pg_listen = %s\n", good[i][0]);
		text = edit(base_conf, "pg_listen = 127.0.0.1:6432\n", line);
		cfg = load(text, &e);
		assert_non_null(cfg);
		assert_string_equal(cfg->pg_listen_host, good[i][1]);
		assert_int_equal(cfg->pg_listen_port, atoi(good[i][2]));
		config_free(cfg);
		free(text);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char line[128];

		snprintf(line, sizeof(line), "pg_listen = %s\n", bad[i]);
		expect_edit_error("pg_listen = 127.0.0.1:6432\n", line, "line 2: [server] pg_listen", "host:port");
	}
}

static void test_load_file_resolves_relative_paths(void **state)
{
	char path[4200], want[4200];
	struct config_errors e;
	struct airlock_config *cfg;

	(void)state;
	snprintf(path, sizeof(path), "%s/etc/airlock.ini", data_dir);
	cfg = config_load(path, &e);
	if (!cfg)
		dump(&e);
	assert_non_null(cfg);
	assert_string_equal(cfg->path, path);
	assert_string_equal(cfg->pg_listen_host, "::1");
	assert_int_equal(cfg->pg_listen_port, 7432);
	snprintf(want, sizeof(want), "%s/etc/../shop.password", data_dir);
	assert_string_equal(cfg->targets[0].password_file, want);
	assert_string_equal(cfg->targets[0].password, "db-pass-123");
	snprintf(want, sizeof(want), "%s/etc/jobs", data_dir);
	assert_string_equal(cfg->job_dir, want);
	snprintf(want, sizeof(want), "%s/etc/../audit.log", data_dir);
	assert_string_equal(cfg->audit_log, want);
	/* target host matches the allowlist case-insensitively */
	assert_string_equal(cfg->targets[0].host, "DB.Internal");
	config_free(cfg);

	/* config_load_string resolves against base_dir; absolute paths stay as written */
	{
		char line[4300], *text;

		snprintf(line, sizeof(line), "password_file = %s/shop.password\n", data_dir);
		text = edit(base_conf, "password_file = shop.password\n", line);
		cfg = load(text, &e);
		assert_non_null(cfg);
		snprintf(want, sizeof(want), "%s/shop.password", data_dir);
		assert_string_equal(cfg->targets[0].password_file, want);
		config_free(cfg);
		free(text);
	}

	cfg = config_load("/nonexistent/airlock.ini", &e);
	assert_null(cfg);
	assert_int_equal(e.n, 1);
	assert_true(has_err(&e, "/nonexistent/airlock.ini", "No such file", (const char *)NULL));
	cfg = config_load(data_dir, &e);
	assert_null(cfg);
	assert_true(has_err(&e, "not a regular file", (const char *)NULL));
}

/* The shipped example must use only known keys and valid values. */
static void test_example_file(void **state)
{
	const char *d = getenv("AIRLOCK_TEST_DATA");
	char path[4200];
	struct config_errors e;
	struct airlock_config *cfg;

	(void)state;
	snprintf(path, sizeof(path), "%s/../../conf/airlock.example.ini", d ? d : "tests/data");
	cfg = config_load(path, &e);
	if (cfg) {
		/* only possible where the password files under /etc/airlock exist */
		config_free(cfg);
		return;
	}
	if (e.n != 2)
		dump(&e);
	/* the missing password files are the only problems */
	assert_int_equal(e.n, 2);
	assert_true(has_err(&e, "[target shop] password_file /etc/airlock/shop.password does not exist",
			    (const char *)NULL));
	assert_true(has_err(&e, "[target shop_maria] password_file /etc/airlock/shop_maria.password does not exist",
			    (const char *)NULL));
}

/* Row filters and column policies: one rule per table collects filter, columns and masks. */
static void test_rules(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;
	const struct airlock_user *u;
	char *conf;

	(void)state;
	conf = edit(base_conf, "target = shop\n",
		    "target = shop\n"
		    "tables = public.orders, public.customers\n"
		    "filter public.orders = customer_id <= 100\n"
		    "columns Customers = id, name, email\n"
		    "mask customers.email = left(email, 1) || '***@' || split_part(email, '@', 2)\n"
		    "mysql_filter shop.Orders = customer_id <= 100\n"
		    "mysql_columns shop.customers = id,name\n"
		    "mysql_mask shop.customers.name = LEFT(name, 1)\n");
	cfg = load(conf, &e);
	free(conf);
	assert_non_null(cfg);
	u = &cfg->users[0];
	assert_int_equal(u->nrules, 2);
	assert_string_equal(u->rules[0].table, "public.orders");
	assert_string_equal(u->rules[0].filter, "customer_id <= 100");
	assert_false(u->rules[0].has_columns);
	assert_string_equal(u->rules[1].table, "public.customers");
	assert_int_equal(u->rules[1].ncolumns, 3);
	assert_string_equal(u->rules[1].columns[2].name, "email");
	assert_string_equal(u->rules[1].columns[2].mask, "left(email, 1) || '***@' || split_part(email, '@', 2)");
	assert_null(u->rules[1].columns[0].mask);
	assert_int_equal(u->nmysql_rules, 2);
	assert_string_equal(u->mysql_rules[0].table, "shop.Orders");
	assert_string_equal(u->mysql_rules[1].columns[1].mask, "LEFT(name, 1)");
	config_free(cfg);

	expect_edit_error("target = shop\n", "target = shop\nmask public.t.c = 1\n", "c is not in the table's columns",
			  "columns public.t");
	expect_edit_error("target = shop\n", "target = shop\nfilter public.t = a\nfilter PUBLIC.T = b\n",
			  "filter public.t is set twice", NULL);
	expect_edit_error("target = shop\n", "target = shop\ncolumns t = a, b, a\n", "lists a twice", NULL);
	expect_edit_error("target = shop\n", "target = shop\ncolumns t = a, 1b\n", "\"1b\" is not a column name", NULL);
	expect_edit_error("target = shop\n", "target = shop\nfilter public.* = a\n", "is not a table", NULL);
	expect_edit_error("target = shop\n", "target = shop\nfilter a.b.c = a\n", "is not a table", NULL);
	expect_edit_error("target = shop\n", "target = shop\nmask t = a\n", "expected mask", NULL);
	expect_edit_error("target = shop\n", "target = shop\nfiltr public.t = a\n", "has no key", NULL);
}

/* ---- one error class at a time ----------------------------------------------- */

static void test_unknown_sections_and_keys(void **state)
{
	(void)state;
	expect_edit_error("[hosts]\n", "[host]\n", "unknown section [host]", "[target NAME]");
	expect_edit_error("[hosts]\n", "[hosts extra]\n", "[hosts] takes no name", NULL);
	expect_edit_error("[target shop]\n", "[target]\n", "expected [target NAME]", NULL);
	expect_edit_error("[target shop]\n", "[target shop x]\n", "expected [target NAME]", NULL);
	expect_edit_error("[user agent]\n", "[user bad/name]\n", "expected [user NAME]", NULL);
	expect_edit_error("[user agent]\n", "[user agent\n", "no closing ']'", NULL);
	expect_edit_error("[user agent]\n", "[user agent] junk\n", "unexpected text after ']'", NULL);
	expect_edit_error("port = 5432\n", "prot = 5432\n", "line 10: [target shop] has no key \"prot\"",
			  "known keys: engine, host, port");
	expect_edit_error("target = shop\n", "target = shop\ntimeout = 5\n", "[user agent] has no key \"timeout\"",
			  "timeout_ms");
	expect_edit_error("[server]\n", "max_jobs = 3\n[server]\n",
			  "line 1: key \"max_jobs\" comes before any [section]", NULL);
	expect_edit_error("port = 5432\n", "port 5432\n", "line 10: expected \"key = value\"", NULL);
	expect_edit_error("port = 5432\n", "= 5432\n", "line 10: a key name is missing", NULL);
	expect_edit_error("[hosts]\n", "[server]\n", "line 5: [server] appears twice (first on line 1)", NULL);
	expect_edit_error("port = 5432\n", "port = 5432\nPort = 5433\n",
			  "line 11: [target shop] port is set twice (first on line 10)", NULL);
	/* an indented key after a non-list key is an ordinary key; a continuation needs a list */
	expect_edit_error("port = 5432\n", "port = 5432\n   more\n", "line 11: expected \"key = value\"", NULL);
}

static void test_numbers_strict(void **state)
{
	static const struct {
		const char *from, *to, *msg;
	} cases[] = {
		{"port = 5432\n", "port = 5432x\n",
		 "[target shop] port: expected a whole number from 1 to 65535, got \"5432x\""},
		{"port = 5432\n", "port = -5432\n", "port: expected a whole number from 1 to 65535"},
		{"port = 5432\n", "port = 65536\n", "port: expected a whole number from 1 to 65535"},
		{"port = 5432\n", "port = +5432\n", "port: expected"},
		{"port = 5432\n", "port = 0x10\n", "port: expected"},
		{"port = 5432\n", "port =\n", "port: expected a whole number"},
		{"target = shop\n", "target = shop\ntimeout_ms = 0\n",
		 "timeout_ms: expected a whole number from 1 to 3600000"},
		{"target = shop\n", "target = shop\ntimeout_ms = 3600001\n",
		 "timeout_ms: expected a whole number from 1 to 3600000"},
		{"target = shop\n", "target = shop\ntimeout_ms = 10s\n", "timeout_ms: expected"},
		{"target = shop\n", "target = shop\nmemory_mb = 15\n",
		 "memory_mb: expected a whole number from 16 to 65536"},
		{"target = shop\n", "target = shop\nbackend_memory_mb = 8\n",
		 "backend_memory_mb: expected a whole number from 16 to 65536"},
		{"target = shop\n", "target = shop\nmemory_mb = 65537\n", "memory_mb: expected"},
		{"target = shop\n", "target = shop\ncpus = 0.001\n", "cpus: expected a number of CPUs from 0.01 to 64"},
		{"target = shop\n", "target = shop\ncpus = 64.5\n", "cpus: expected"},
		{"target = shop\n", "target = shop\ncpus = -1\n", "cpus: expected"},
		{"target = shop\n", "target = shop\ncpus = .5\n", "cpus: expected"},
		{"target = shop\n", "target = shop\ncpus = 1.\n", "cpus: expected"},
		{"target = shop\n", "target = shop\ncpus = 0.5x\n", "cpus: expected"},
		{"target = shop\n", "target = shop\ncpus = 0.1234567891\n", "cpus: expected"},
		{"target = shop\n", "target = shop\npids = 7\n", "pids: expected a whole number from 8 to 4096"},
		{"target = shop\n", "target = shop\npids = 4097\n", "pids: expected"},
		{"target = shop\n", "target = shop\nmax_rows = 0\n",
		 "max_rows: expected a whole number from 1 to 10000000"},
		{"target = shop\n", "target = shop\nmax_rows = 10000001\n", "max_rows: expected"},
		{"target = shop\n", "target = shop\nmax_bytes = 1073741825\n",
		 "max_bytes: expected a whole number from 1 to 1073741824"},
		{"target = shop\n", "target = shop\nmax_bytes = 99999999999999999999999\n", "max_bytes: expected"},
		{"target = shop\n", "target = shop\nmax_connections = 0\n", "[user agent] max_connections: expected"},
		{"[hosts]\n", "max_message_bytes = 1023\n[hosts]\n",
		 "[server] max_message_bytes: expected a whole number from 1024 to 67108864"},
		{"[hosts]\n", "max_message_bytes = 67108865\n[hosts]\n", "max_message_bytes: expected"},
		{"[hosts]\n", "max_jobs = 0\n[hosts]\n", "max_jobs: expected"},
		{"[hosts]\n", "max_connections = 1e3\n[hosts]\n", "[server] max_connections: expected"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_edit_error(cases[i].from, cases[i].to, cases[i].msg, NULL);
}

static void test_cpus_values(void **state)
{
	static const struct {
		const char *text;
		uint64_t nano;
	} cases[] = {
		{"0.01", 10000000ull},  {"0.5", 500000000ull},          {"2", 2000000000ull},
		{"64", 64000000000ull}, {"1.000000001", 1000000001ull}, {"0.25", 250000000ull},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char line[64], *text;
		struct config_errors e;
		struct airlock_config *cfg;

		snprintf(line, sizeof(line), "target = shop\ncpus = %s\n", cases[i].text);
		text = edit(base_conf, "target = shop\n", line);
		cfg = load(text, &e);
		assert_non_null(cfg);
		assert_int_equal(cfg->users[0].limits.nano_cpus, cases[i].nano);
		config_free(cfg);
		free(text);
	}
}

static void test_duplicates_and_references(void **state)
{
	(void)state;
	expect_edit_error("[user agent]\n",
			  "[target shop]\nhost = 127.0.0.1\nport = 1\ndatabase = x\nuser = y\n"
			  "password_file = shop.password\n[user agent]\n",
			  "line 15: [target shop] is defined twice (first on line 8)", NULL);
	{
		char *text;

		if (asprintf(&text, "%s\n[user agent]\nscram = %s\ntarget = shop\n", base_conf, VERIFIER) < 0)
			fail();
		expect_error(text, "line 19: [user agent] is defined twice (first on line 15)", NULL);
		free(text);
	}
	expect_edit_error("target = shop\n", "target = warehouse\n",
			  "line 17: [user agent] target \"warehouse\" does not exist", "[target NAME]");
	expect_edit_error("target = shop\n", "target = Shop\n", "target \"Shop\" does not exist", NULL);
}

static void test_host_not_allowed(void **state)
{
	(void)state;
	expect_edit_error("host = 127.0.0.1\n", "host = 10.0.0.9\n",
			  "line 9: HOST_NOT_ALLOWED: [target shop] host \"10.0.0.9\" is not in [hosts] allow", NULL);
	expect_edit_error("allow = 127.0.0.1, db.internal\n", "allow =\n", "HOST_NOT_ALLOWED", "[target shop]");
	expect_edit_error("allow = 127.0.0.1, db.internal\n", "allow = 127.0.0.1,,db.internal\n",
			  "[hosts] allow has an empty entry", NULL);
	expect_edit_error("allow = 127.0.0.1, db.internal\n", "allow = 127.0.0.1, db internal\n",
			  "[hosts] allow: \"db internal\" is not valid", NULL);
	expect_edit_error("host = 127.0.0.1\n", "host = db host\n", "[target shop] host: expected", NULL);
}

static void test_missing_required(void **state)
{
	static const struct {
		const char *line, *msg;
	} cases[] = {
		{"pg_listen = 127.0.0.1:6432\n", "line 1: [server] is missing pg_listen; expected host:port"},
		{"runner_image = " DIGEST "\n", "[server] runner_image is required with runtime = docker"},
		{"host = 127.0.0.1\n", "line 8: [target shop] is missing host"},
		{"port = 5432\n", "[target shop] is missing port; expected a whole number from 1 to 65535"},
		{"database = shop\n", "[target shop] is missing database"},
		{"user = airlock_ro\n", "[target shop] is missing user"},
		{"password_file = shop.password\n", "[target shop] is missing password_file"},
		{"scram = " VERIFIER "\n", "line 15: [user agent] is missing scram; expected a SCRAM-SHA-256 verifier"},
		{"target = shop\n", "[user agent] has neither target nor mysql_target"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect_edit_error(cases[i].line, "", cases[i].msg, NULL);
	expect_edit_error("[hosts]\nallow = 127.0.0.1, db.internal\n", "", "the [hosts] section is missing", NULL);
}

static void test_missing_server_section(void **state)
{
	const char *body = strstr(base_conf, "[hosts]");

	(void)state;
	expect_error(body, "the [server] section is missing", "pg_listen and runner_image");
}

static void test_no_users(void **state)
{
	char *text = strndup(base_conf, (size_t)(strstr(base_conf, "[user agent]") - base_conf));

	(void)state;
	expect_error(text, "no [user NAME] section; at least one user is needed", NULL);
	free(text);
}

static void test_empty_hosts_section_is_empty_list(void **state)
{
	char *text = edit(base_conf, "allow = 127.0.0.1, db.internal\n", "");
	struct config_errors e;

	(void)state;
	/* [hosts] without allow denies every target, so the target is refused */
	assert_null(config_load_string(text, data_dir, &e));
	assert_true(has_err(&e, "HOST_NOT_ALLOWED", (const char *)NULL));
	assert_false(has_err(&e, "[hosts] section is missing", (const char *)NULL));
	free(text);
}

static void test_image_unpinned(void **state)
{
	(void)state;
	expect_edit_error("runner_image = " DIGEST "\n", "runner_image = airlock/runner:latest\n", "IMAGE_UNPINNED",
			  "docker inspect --format '{{.Id}}' IMAGE");
	expect_edit_error("runner_image = " DIGEST "\n", "runner_image = airlock/runner\n",
			  "[server] runner_image: IMAGE_UNPINNED: \"airlock/runner\"", NULL);
}

static void test_bad_scram(void **state)
{
	struct config_errors e;
	char *text = edit(base_conf, "scram = " VERIFIER "\n", "scram = agent-secret\n");

	(void)state;
	assert_null(config_load_string(text, data_dir, &e));
	assert_true(has_err(&e, "line 16: [user agent] scram is not a SCRAM-SHA-256 verifier",
			    "airlockd --make-verifier", (const char *)NULL));
	/* a password typed in by mistake is never repeated */
	assert_false(has_err(&e, "agent-secret", (const char *)NULL));
	free(text);
	expect_edit_error("scram = " VERIFIER "\n", "scram = SCRAM-SHA-256$4096:abc$def:ghi\n",
			  "scram is not a SCRAM-SHA-256 verifier", NULL);
}

static void test_engine(void **state)
{
	(void)state;
	expect_edit_error("port = 5432\n", "port = 5432\nengine = oracle\n",
			  "[target shop] engine \"oracle\" is unknown; expected postgres or mariadb", NULL);
	/* a Postgres login may not point at a MariaDB target */
	expect_edit_error("port = 5432\n", "port = 5432\nengine = mysql\n",
			  "[user agent] target \"shop\" has engine mariadb; expected a target with engine postgres",
			  NULL);
}

/* Writes a fresh self-signed CA certificate (and its key too, when with_key) as PEM into a new file at path. */
static void ca_file(char *path, size_t cap, bool with_key, const char *extra)
{
	EVP_PKEY *key = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	FILE *f;
	int fd;

	assert_non_null(key);
	assert_non_null(x);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC, (const unsigned char *)"test CA", -1,
				   -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	X509_set_pubkey(x, key);
	assert_true(X509_sign(x, key, EVP_sha256()) > 0);
	snprintf(path, cap, "/tmp/airlock-test-ca-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_true(PEM_write_X509(f, x) == 1);
	if (with_key)
		assert_true(PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL) == 1);
	if (extra)
		fputs(extra, f);
	fclose(f);
	X509_free(x);
	EVP_PKEY_free(key);
}

/* sslmode and sslrootcert: the modes, their names, what each needs, and what a CA file may hold. */
static void test_target_tls(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;
	char ca[64], keyed[64], junk[64], keys[200], *text;

	(void)state;
	cfg = load(base_conf, &e);
	assert_non_null(cfg);
	assert_string_equal(cfg->targets[0].sslmode, "disable");
	assert_null(cfg->targets[0].sslrootcert);
	assert_null(cfg->targets[0].ca_pem);
	config_free(cfg);

	ca_file(ca, sizeof(ca), false, NULL);
	/* MySQL's names are the same modes. */
	snprintf(keys, sizeof(keys), "port = 5432\nsslmode = VERIFY_IDENTITY\nsslrootcert = %s\n", ca);
	text = edit(base_conf, "port = 5432\n", keys);
	cfg = load(text, &e);
	assert_non_null(cfg);
	assert_string_equal(cfg->targets[0].sslmode, "verify-full");
	assert_string_equal(cfg->targets[0].sslrootcert, ca);
	assert_non_null(strstr(cfg->targets[0].ca_pem, "-----BEGIN CERTIFICATE-----"));
	config_free(cfg);
	free(text);
	text = edit(base_conf, "port = 5432\n", "port = 5432\nsslmode = required\n");
	cfg = load(text, &e);
	assert_non_null(cfg);
	assert_string_equal(cfg->targets[0].sslmode, "require");
	config_free(cfg);
	free(text);

	expect_edit_error(
		"port = 5432\n", "port = 5432\nsslmode = prefer\n",
		"[target shop] sslmode \"prefer\" is unknown; expected disable, require, verify-ca or verify-full",
		NULL);
	expect_edit_error("port = 5432\n", "port = 5432\nsslmode = verify-ca\n",
			  "[target shop] sslmode verify-ca needs sslrootcert", NULL);
	snprintf(keys, sizeof(keys), "port = 5432\nsslmode = require\nsslrootcert = %s\n", ca);
	expect_edit_error("port = 5432\n", keys, "[target shop] sslrootcert is set but sslmode is require",
			  "expected sslmode verify-ca or verify-full");

	/* A CA file with a private key in it, anything else PEM, nothing PEM, or no file. */
	ca_file(keyed, sizeof(keyed), true, NULL);
	snprintf(keys, sizeof(keys), "port = 5432\nsslmode = verify-ca\nsslrootcert = %s\n", keyed);
	expect_edit_error("port = 5432\n", keys, "holds a private key; give the CA's certificates only", NULL);
	ca_file(junk, sizeof(junk), false, "-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n");
	snprintf(keys, sizeof(keys), "port = 5432\nsslmode = verify-ca\nsslrootcert = %s\n", junk);
	expect_edit_error("port = 5432\n", keys, "not a certificate", NULL);
	snprintf(keys, sizeof(keys), "port = 5432\nsslmode = verify-ca\nsslrootcert = shop.password\n");
	expect_edit_error("port = 5432\n", keys, "holds no PEM certificate", NULL);
	expect_edit_error("port = 5432\n", "port = 5432\nsslmode = verify-ca\nsslrootcert = /nonexistent/ca.pem\n",
			  "sslrootcert /nonexistent/ca.pem does not exist", NULL);
	unlink(ca);
	unlink(keyed);
	unlink(junk);
}

/* What the MySQL half of a user section adds. */
static const char mysql_conf[] = "[target maria]\n"
				 "engine = mariadb\n"
				 "host = 127.0.0.1\n"
				 "port = 3306\n"
				 "database = shop\n"
				 "user = airlock_ro\n"
				 "password_file = shop.password\n"
				 "\n"
				 "[user agent]\n";

static void test_mysql_keys(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;
	const struct airlock_user *u;
	char *text, *more;

	(void)state;
	text = edit(base_conf, "runner_image", "mysql_listen = 127.0.0.1:3307\nrunner_image");
	more = edit(text, "[user agent]\n", mysql_conf);
	free(text);
	text = edit(more, "target = shop\n",
		    "target = shop\nmysql_target = maria\nmysql_native = *2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19\n"
		    "mysql_tables = shop.orders, Shop.Customers,\n    other.*\nmysql_allow_functions = SLEEP\n");
	free(more);
	cfg = load(text, &e);
	assert_non_null(cfg);
	assert_string_equal(cfg->mysql_listen_host, "127.0.0.1");
	assert_int_equal(cfg->mysql_listen_port, 3307);
	u = config_find_user(cfg, "agent");
	assert_non_null(u);
	assert_string_equal(u->mysql_target->name, "maria");
	assert_string_equal(u->mysql_target->engine, "mariadb");
	assert_string_equal(u->mysql_database, "shop");
	assert_string_equal(u->mysql_native, "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19");
	assert_int_equal(u->nmysql_tables, 3);
	/* MySQL names keep their case: MariaDB compares them case-sensitively */
	assert_string_equal(u->mysql_tables[1], "Shop.Customers");
	assert_string_equal(u->mysql_tables[2], "other.*");
	assert_true(u->mysql_allow_sleep);
	assert_false(u->mysql_allow_benchmark);
	config_free(cfg);
	free(text);

	/* without mysql_listen there is no MySQL listener */
	cfg = load(base_conf, &e);
	assert_non_null(cfg);
	assert_null(cfg->mysql_listen_host);
	assert_null(config_find_user(cfg, "agent")->mysql_target);
	config_free(cfg);

	expect_edit_error("target = shop\n", "target = shop\nmysql_native = agent-secret\n",
			  "[user agent] mysql_native is not a mysql_native_password hash", NULL);
	text = edit(base_conf, "target = shop\n", "target = shop\nmysql_native = agent-secret\n");
	assert_null(config_load_string(text, data_dir, &e));
	assert_false(has_err(&e, "agent-secret", (const char *)NULL));
	free(text);
	expect_edit_error("target = shop\n", "target = shop\nmysql_tables = orders\n",
			  "[user agent] mysql_tables: \"orders\" is not valid", "db.table");
	expect_edit_error("target = shop\n", "target = shop\nmysql_allow_functions = load_file\n",
			  "mysql_allow_functions: \"load_file\" is not one of sleep, benchmark", NULL);
	expect_edit_error("target = shop\n", "target = shop\nmysql_target = nowhere\n",
			  "[user agent] mysql_target \"nowhere\" does not exist", NULL);
	expect_edit_error("target = shop\n", "target = shop\nmysql_target = shop\n",
			  "mysql_target \"shop\" has engine postgres; expected a target with engine mariadb", NULL);
	expect_edit_error("target = shop\n", "", "[user agent] has neither target nor mysql_target", NULL);
	expect_edit_error("runner_image", "mysql_listen = 3307\nrunner_image",
			  "[server] mysql_listen: expected host:port", NULL);
	/* a MariaDB target without its database is reported, not followed */
	text = edit(base_conf, "[user agent]\n", mysql_conf);
	more = edit(text, "database = shop\nuser = airlock_ro\npassword_file = shop.password\n\n[user agent]",
		    "user = airlock_ro\npassword_file = shop.password\n\n[user agent]");
	free(text);
	text = edit(more, "target = shop\n", "target = shop\nmysql_target = maria\n");
	free(more);
	expect_error(text, "[target maria] is missing database", NULL);
	free(text);
}

static void test_password_files(void **state)
{
	struct config_errors e;
	char *text;

	(void)state;
	expect_edit_error("password_file = shop.password\n", "password_file = empty.password\n",
			  "[target shop] password_file ", "/config/empty.password is empty");
	expect_edit_error("password_file = shop.password\n", "password_file = missing.password\n",
			  "/config/missing.password does not exist", NULL);
	expect_edit_error("password_file = shop.password\n", "password_file = etc\n",
			  "/config/etc is not a regular file", NULL);
	/* the content of a bad file never appears in a message */
	text = edit(base_conf, "password_file = shop.password\n", "password_file = twolines.password\n");
	assert_null(config_load_string(text, data_dir, &e));
	assert_true(has_err(&e, "twolines.password must hold one line", (const char *)NULL));
	assert_false(has_err(&e, "line-one", (const char *)NULL));
	free(text);
}

static void test_runner_uids(void **state)
{
	(void)state;
	expect_edit_error("[hosts]\n", "runner_uids = 0-10\n[hosts]\n", "[server] runner_uids: expected a range", NULL);
	expect_edit_error("[hosts]\n", "runner_uids = nobody\n[hosts]\n", "runner_uids: expected", NULL);
	expect_edit_error("[hosts]\n", "runner_uids = 2000000-\n[hosts]\n", "runner_uids: expected", NULL);
	expect_edit_error("[hosts]\n", "runner_uids = 2000009-2000000\n[hosts]\n", "runner_uids: expected", NULL);
	expect_edit_error("[hosts]\n", "runner_uids = 2000000-4294967295\n[hosts]\n", "runner_uids: expected", NULL);
	/* The old default is nobody's uid: a host account could reach the runners. */
	expect_edit_error("[hosts]\n", "runner_uids = 65000-65534\n[hosts]\n",
			  "uid 65534 is the host account \"nobody\"", "could reach the runners");
	/* Debian's daemon account (uid and gid 1). */
	expect_edit_error("[hosts]\n", "runner_uids = 1-1\n[hosts]\n", "runner_uids 1-1: uid 1 is the host account",
			  NULL);
}

static void test_writes(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;
	char *text;

	(void)state;
	text = edit(base_conf, "[user agent]\n",
		    "[target shop_writer]\nhost = 127.0.0.1\nport = 5432\ndatabase = shop\nuser = airlock_rw\n"
		    "password_file = shop.password\n\n[user agent]\ntables = public.orders, app.*\nwrites = approve\n"
		    "write_tables = public.orders, app.*, app.notes\nwrite_target = shop_writer\nmax_write_rows = 5\n"
		    "approval_ttl = 60\napproval_wait_ms = 30000\napprovals = 2\n");
	cfg = load(text, &e);
	free(text);
	assert_non_null(cfg);
	assert_string_equal(cfg->users[0].writes, "approve");
	assert_int_equal(cfg->users[0].nwrite_tables, 3);
	assert_non_null(cfg->users[0].write_target);
	assert_string_equal(cfg->users[0].write_target->user, "airlock_rw");
	assert_int_equal(cfg->users[0].max_write_rows, 5);
	assert_int_equal(cfg->users[0].approval_ttl, 60);
	assert_int_equal(cfg->users[0].approval_wait_ms, 30000);
	assert_int_equal(cfg->users[0].approvals, 2);
	config_free(cfg);

	/* The defaults: no writes. */
	cfg = load(base_conf, &e);
	assert_non_null(cfg);
	assert_string_equal(cfg->users[0].writes, "deny");
	assert_int_equal(cfg->users[0].nwrite_tables, 0);
	assert_null(cfg->users[0].write_target);
	assert_int_equal(cfg->users[0].max_write_rows, 100);
	assert_int_equal(cfg->users[0].approvals, 1);
	config_free(cfg);

	expect_edit_error("[user agent]\n", "[user agent]\nwrites = maybe\n",
			  "[user agent] writes \"maybe\" is unknown", "deny");
	expect_edit_error("[user agent]\n", "[user agent]\nwrites = approve\n",
			  "writes = approve needs write_tables and write_target", NULL);
	expect_edit_error("[user agent]\n", "[user agent]\nwrite_tables = public.orders\n",
			  "write tables or a write target but writes = deny", NULL);
	expect_edit_error("[user agent]\n",
			  "[user agent]\ntables = public.orders\nwrites = approve\nwrite_tables = public.customers\n"
			  "write_target = shop\n",
			  "write_tables lists public.customers, which tables does not", NULL);
	expect_edit_error("[user agent]\n",
			  "[user agent]\ntables = public.orders\nwrites = approve\nwrite_tables = public.*\n"
			  "write_target = shop\n",
			  "write_tables lists public.*, which tables does not", NULL);
	expect_edit_error("[user agent]\n",
			  "[user agent]\ntables = public.orders\nwrites = approve\nwrite_tables = public.orders\n"
			  "write_target = shop\n",
			  "write_target is the read target", NULL);
	expect_edit_error("[user agent]\n",
			  "[user agent]\ntables = public.orders\nwrites = approve\nwrite_tables = public.orders\n"
			  "write_target = nowhere\n",
			  "nowhere", NULL);
	expect_edit_error("[user agent]\n", "[user agent]\napprovals = 3\n", "approvals", NULL);
}

/* mysql_write_tables and mysql_write_target: governed writes over MySQL, alone or beside Postgres'. */
static void test_mysql_writes(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;
	const struct airlock_user *u;
	char *text;

	(void)state;
	text = edit(
		base_conf, "[user agent]\n",
		"[target maria_rw]\nengine = mariadb\nhost = 127.0.0.1\nport = 3306\ndatabase = shop\n"
		"user = airlock_rw\npassword_file = shop.password\n\n[target maria]\nengine = mariadb\n"
		"host = 127.0.0.1\nport = 3306\ndatabase = shop\nuser = airlock_ro\npassword_file = shop.password\n\n"
		"[user agent]\nmysql_target = maria\nmysql_tables = shop.orders, app.*\nwrites = approve\n"
		"mysql_write_tables = shop.orders, app.notes\nmysql_write_target = maria_rw\n");
	cfg = load(text, &e);
	free(text);
	assert_non_null(cfg);
	u = config_find_user(cfg, "agent");
	assert_int_equal(u->nmysql_write_tables, 2);
	assert_string_equal(u->mysql_write_tables[1], "app.notes");
	assert_string_equal(u->mysql_write_target->user, "airlock_rw");
	assert_null(u->write_target); /* Postgres writes stay refused */
	config_free(cfg);

	expect_edit_error("[user agent]\n", "[user agent]\nmysql_write_tables = shop.orders\n",
			  "write tables or a write target but writes = deny", NULL);
	expect_edit_error("[user agent]\n",
			  "[target maria]\nengine = mariadb\nhost = 127.0.0.1\nport = 3306\ndatabase = shop\n"
			  "user = airlock_ro\npassword_file = shop.password\n\n[user agent]\nmysql_target = maria\n"
			  "mysql_tables = shop.orders\nwrites = approve\nmysql_write_tables = shop.customers\n"
			  "mysql_write_target = maria\n",
			  "mysql_write_tables lists shop.customers, which mysql_tables does not", NULL);
	expect_edit_error("[user agent]\n",
			  "[target maria]\nengine = mariadb\nhost = 127.0.0.1\nport = 3306\ndatabase = shop\n"
			  "user = airlock_ro\npassword_file = shop.password\n\n[user agent]\nmysql_target = maria\n"
			  "mysql_tables = shop.orders\nwrites = approve\nmysql_write_tables = shop.orders\n"
			  "mysql_write_target = maria\n",
			  "mysql_write_target is the read target", NULL);
	expect_edit_error("[user agent]\n",
			  "[user agent]\nwrites = approve\nmysql_write_tables = shop.orders\n"
			  "mysql_write_target = shop\n",
			  "has engine postgres; expected a target with engine mariadb", NULL);
	expect_edit_error("[user agent]\n", "[user agent]\nwrites = approve\nmysql_write_tables = shop.orders\n",
			  "only one of mysql_write_tables and mysql_write_target", NULL);
}

/* [approver NAME]: a person with a verifier, never a user; the approval listener needs TLS. */
static void test_approvers(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;
	char *text;

	(void)state;
	text = edit(base_conf, "[hosts]\n",
		    "[approver ann]\nscram = " VERIFIER "\n\n[approver bo]\nscram = " VERIFIER "\n\n[hosts]\n");
	cfg = load(text, &e);
	free(text);
	assert_non_null(cfg);
	assert_int_equal(cfg->napprovers, 2);
	assert_string_equal(cfg->approvers[1].name, "bo");
	assert_string_equal(cfg->approvers[0].scram, VERIFIER);
	assert_null(cfg->approval_listen_host);
	config_free(cfg);
	expect_edit_error("[hosts]\n", "[approver ann]\n\n[hosts]\n", "[approver ann] is missing scram", NULL);
	expect_edit_error("[hosts]\n", "[approver ann]\nscram = secret\n\n[hosts]\n", "[approver ann] scram", NULL);
	expect_edit_error("[hosts]\n", "[approver agent]\nscram = " VERIFIER "\n\n[hosts]\n",
			  "has the name of a [user agent]", NULL);
	expect_edit_error("[hosts]\n",
			  "[approver ann]\nscram = " VERIFIER "\n[approver ann]\nscram = " VERIFIER "\n\n[hosts]\n",
			  "[approver ann] is defined twice", NULL);
	expect_edit_error("pg_listen = 127.0.0.1:6432\n",
			  "pg_listen = 127.0.0.1:6432\napproval_listen = 127.0.0.1:8443\n",
			  "approval_listen needs tls_cert_file", NULL);
}

/* [server] approval_webhook and its three companion keys, each with good and bad values. */
static char *webhook_conf(const char *keys)
{
	char *to, *text;

	assert_true(asprintf(&to, "pg_listen = 127.0.0.1:6432\n%s", keys) > 0);
	text = edit(base_conf, "pg_listen = 127.0.0.1:6432\n", to);
	free(to);
	return text;
}

static struct airlock_config *webhook_load(const char *keys)
{
	struct config_errors e;
	struct airlock_config *cfg;
	char *text = webhook_conf(keys);

	cfg = load(text, &e);
	free(text);
	return cfg;
}

static void expect_webhook_error(const char *keys, const char *a, const char *b)
{
	char *text = webhook_conf(keys);

	expect_error(text, a, b);
	free(text);
}

static void test_webhook_url(void **state)
{
	static const char *const good[][3] = {
		{"https://hooks.example.com/airlock", "hooks.example.com", NULL},
		{"https://hooks.example.com:8443/a/b?team=ops", "hooks.example.com, chat.example.com", NULL},
		{"HTTPS://Hooks.Example.COM/x", "hooks.example.com", NULL},
		{"http://127.0.0.1:9000/hook", "127.0.0.1", NULL},
		{"http://127.1.2.3/hook", "127.1.2.3", NULL},
		{"http://[::1]:9000/hook", "::1", NULL},
		{"https://10.0.0.7/hook", "10.0.0.7", NULL},
	};
	struct airlock_config *cfg;
	char keys[512];
	size_t i;

	(void)state;
	cfg = webhook_load("");
	assert_non_null(cfg);
	assert_null(cfg->approval_webhook);
	assert_int_equal(cfg->napproval_webhook_hosts, 0);
	assert_null(cfg->approval_webhook_secret);
	config_free(cfg);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(keys, sizeof(keys), "approval_webhook = %s\napproval_webhook_hosts = %s\n", good[i][0],
			 good[i][1]);
		cfg = webhook_load(keys);
		if (!cfg)
			fail_msg("%s refused", good[i][0]);
		assert_string_equal(cfg->approval_webhook, good[i][0]);
		assert_true(cfg->napproval_webhook_hosts >= 1);
		config_free(cfg);
	}
	expect_webhook_error(
		"approval_webhook = http://hooks.example.com/x\napproval_webhook_hosts = hooks.example.com\n",
		"approval_webhook", "http:// is allowed only to a loopback address");
	expect_webhook_error("approval_webhook = http://localhost:9000/x\napproval_webhook_hosts = localhost\n",
			     "approval_webhook", "only to a loopback address");
	expect_webhook_error("approval_webhook = http://10.0.0.7/x\napproval_webhook_hosts = 10.0.0.7\n",
			     "approval_webhook", "only to a loopback address");
	expect_webhook_error(
		"approval_webhook = ftp://hooks.example.com/x\napproval_webhook_hosts = hooks.example.com\n",
		"[server] approval_webhook: ", "expected https://");
	expect_webhook_error(
		"approval_webhook = https://bot:pw@hooks.example.com/x\napproval_webhook_hosts = hooks.example.com\n",
		"approval_webhook", "user name or password");
	expect_webhook_error(
		"approval_webhook = https://bot@hooks.example.com/x\napproval_webhook_hosts = hooks.example.com\n",
		"approval_webhook", "user name or password");
	expect_webhook_error("approval_webhook = hooks.example.com/x\napproval_webhook_hosts = hooks.example.com\n",
			     "approval_webhook", "not an absolute URL");
	expect_webhook_error("approval_webhook = https:///x\n", "approval_webhook", NULL);
	/* The URL is never echoed: its path may be the receiver's token. */
	{
		struct config_errors e;
		char *text = webhook_conf("approval_webhook = http://hooks.example.com/T0KEN\n"
					  "approval_webhook_hosts = hooks.example.com\n");

		assert_null(config_load_string(text, data_dir, &e));
		assert_true(has_err(&e, "approval_webhook", "loopback", (const char *)NULL));
		for (size_t m = 0; m < e.n; m++)
			assert_null(strstr(e.msg[m], "T0KEN"));
		free(text);
	}
	/* The allowlist: the URL's host exactly, never a suffix or a look-alike. */
	expect_webhook_error("approval_webhook = https://hooks.example.com/x\n",
			     "the host hooks.example.com is not in approval_webhook_hosts", NULL);
	expect_webhook_error("approval_webhook = https://evil.example.com/x\napproval_webhook_hosts = example.com\n",
			     "the host evil.example.com is not in approval_webhook_hosts", NULL);
	expect_webhook_error(
		"approval_webhook = https://hooks.example.com.evil.net/x\napproval_webhook_hosts = hooks.example.com\n",
		"is not in approval_webhook_hosts", NULL);
	expect_webhook_error("approval_webhook = http://127.0.0.1:9/x\napproval_webhook_hosts = localhost\n",
			     "the host 127.0.0.1 is not in approval_webhook_hosts", NULL);
	expect_webhook_error("approval_webhook_hosts = hooks.example.com, bad host\n", "approval_webhook_hosts",
			     "\"bad host\" is not valid");
	expect_webhook_error("approval_webhook_hosts = hooks.example.com,,x\n", "approval_webhook_hosts",
			     "empty entry");
}

static void test_webhook_cacert(void **state)
{
	struct airlock_config *cfg;
	char want[4200];

	(void)state;
	cfg = webhook_load("approval_webhook_cacert = ca.pem\n");
	assert_non_null(cfg);
	snprintf(want, sizeof(want), "%s/ca.pem", data_dir);
	assert_string_equal(cfg->approval_webhook_cacert, want);
	config_free(cfg);
	cfg = webhook_load("approval_webhook_cacert = /etc/ssl/hooks-ca.pem\n");
	assert_non_null(cfg);
	assert_string_equal(cfg->approval_webhook_cacert, "/etc/ssl/hooks-ca.pem");
	config_free(cfg);
	expect_webhook_error("approval_webhook_cacert =\n", "approval_webhook_cacert", "expected a PEM file");
}

/* A secret file of mode mode holding content; its path in path. */
static void secret_file(char *path, size_t cap, const char *content, mode_t mode)
{
	int fd;

	snprintf(path, cap, "/tmp/airlock-test-secret-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void test_webhook_secret_file(void **state)
{
	struct airlock_config *cfg;
	char path[64], keys[256];

	(void)state;
	secret_file(path, sizeof(path), "s3cret key\n", 0600);
	snprintf(keys, sizeof(keys), "approval_webhook_secret_file = %s\n", path);
	cfg = webhook_load(keys);
	assert_non_null(cfg);
	assert_string_equal(cfg->approval_webhook_secret_file, path);
	assert_string_equal(cfg->approval_webhook_secret, "s3cret key");
	config_free(cfg);
	assert_int_equal(chmod(path, 0400), 0);
	cfg = webhook_load(keys);
	assert_non_null(cfg);
	config_free(cfg);
	/* Readable (or writable) by anyone but its owner: refused, and the content is never echoed. */
	assert_int_equal(chmod(path, 0640), 0);
	expect_webhook_error(keys, "approval_webhook_secret_file", "is open to its group or others");
	assert_int_equal(chmod(path, 0604), 0);
	expect_webhook_error(keys, "approval_webhook_secret_file", "chmod 600");
	assert_int_equal(chmod(path, 0620), 0);
	expect_webhook_error(keys, "approval_webhook_secret_file", "is open to its group or others");
	unlink(path);
	expect_webhook_error(keys, "approval_webhook_secret_file", "does not exist");
	secret_file(path, sizeof(path), "", 0600);
	snprintf(keys, sizeof(keys), "approval_webhook_secret_file = %s\n", path);
	expect_webhook_error(keys, "approval_webhook_secret_file", "is empty");
	unlink(path);
	secret_file(path, sizeof(path), "one\ntwo\n", 0600);
	snprintf(keys, sizeof(keys), "approval_webhook_secret_file = %s\n", path);
	expect_webhook_error(keys, "approval_webhook_secret_file", "one line");
	unlink(path);
	expect_webhook_error("approval_webhook_secret_file = /\n", "approval_webhook_secret_file",
			     "not a regular file");
}

static void test_tables(void **state)
{
	(void)state;
	expect_edit_error("target = shop\n", "target = shop\ntables = public.orders, public.\"Weird\"\n",
			  "[user agent] tables: \"public.\"Weird\"\" is not valid", "schema.table");
	expect_edit_error("target = shop\n", "target = shop\ntables = *\n", "tables: \"*\" is not valid", NULL);
	expect_edit_error("target = shop\n", "target = shop\ntables = a.b.c\n", "tables: \"a.b.c\"", NULL);
	expect_edit_error("target = shop\n", "target = shop\ntables = 1abc\n", "tables: \"1abc\"", NULL);
	expect_edit_error("target = shop\n", "target = shop\ntables = orders,,x\n", "tables has an empty entry", NULL);
	expect_edit_error("target = shop\n", "target = shop\ntables = ,orders\n", "tables has an empty entry", NULL);
	expect_edit_error("target = shop\n", "target = shop\ntables = orders, ,\n", "tables has an empty entry", NULL);
	expect_edit_error("target = shop\n", "target = shop\ntables = orders\n    bad entry\n",
			  "line 19: [user agent] tables: \"bad entry\"", NULL);
}

static void test_long_line(void **state)
{
	char line[400], *text;

	(void)state;
	memset(line, 0, sizeof(line));
	strcpy(line, "target = shop\ntables = ");
	while (strlen(line) < 300)
		strcat(line, "public.t, ");
	strcat(line, "public.z\n");
	text = edit(base_conf, "target = shop\n", line);
	expect_error(text, "line 18: line is longer than", "indented lines");
	free(text);
}

/* Comments and continuations: inih's rules, with only list keys continuing. */
static void test_comments_and_continuations(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;
	char line[16000], *text;

	(void)state;
	/* an entry's comment may hold '='; an indented key after a list is a key */
	text = edit(base_conf, "target = shop\n",
		    "target = shop\ntables = a,\n  b # was c = d\n"
		    "  timeout_ms = 5 ; ms\nmax_rows = 9\n");
	cfg = load(text, &e);
	free(text);
	assert_non_null(cfg);
	assert_int_equal(cfg->users[0].ntables, 2);
	assert_string_equal(cfg->users[0].tables[1], "public.b");
	assert_int_equal(cfg->users[0].limits.timeout_ms, 5);
	assert_int_equal(cfg->users[0].limits.max_rows, 9);
	config_free(cfg);
	/* the line limit is on what a line says: comments may run on */
	memset(line, 0, sizeof(line));
	strcpy(line, "port = 5432 ; ");
	memset(line + strlen(line), 'c', 300);
	strcat(line, "\ndatabase = shop2 # ");
	memset(line + strlen(line), 'c', 5000);
	strcat(line, "\n;");
	memset(line + strlen(line), 'c', 4500);
	strcat(line, "\n");
	text = edit(base_conf, "port = 5432\ndatabase = shop\n", line);
	strcpy(line, "allow = 127.0.0.1,\n  db.internal ; ");
	memset(line + strlen(line), 'c', 5000);
	strcat(line, "\n");
	{
		char *more = edit(text, "allow = 127.0.0.1, db.internal\n", line);

		free(text);
		text = more;
	}
	cfg = load(text, &e);
	free(text);
	assert_non_null(cfg);
	assert_int_equal(cfg->targets[0].port, 5432);
	assert_string_equal(cfg->targets[0].database, "shop2");
	assert_int_equal(cfg->nhost_allow, 2);
	assert_string_equal(cfg->host_allow[1], "db.internal");
	config_free(cfg);
	/* an indented first key of a section is a key */
	text = edit(base_conf, "[user agent]\n", "[user agent]\n  tables = a\n");
	cfg = load(text, &e);
	free(text);
	assert_non_null(cfg);
	assert_int_equal(cfg->users[0].ntables, 1);
	config_free(cfg);
	/* a continuation of a key that is not a list, after a refused line and after a header */
	expect_edit_error("port = 5432\n", "port = 5432\nbogus\n  more\n", "line 11: expected \"key = value\"", NULL);
	text = edit(base_conf, "port = 5432\n", "port = 5432\nbogus\n  more\n");
	assert_null(config_load_string(text, data_dir, &e));
	assert_true(has_err(&e, "line 12: expected \"key = value\"", (const char *)NULL));
	free(text);
	expect_edit_error("allow = 127.0.0.1, db.internal\n", "allow = 127.0.0.1,\n[target x]\n  db.internal\n",
			  "line 8: expected \"key = value\"", NULL);
}

static void test_several_errors_at_once(void **state)
{
	static const char text[] = "[server]\n"
				   "pg_listen = 127.0.0.1:6432\n"
				   "runner_image = runner:latest\n"
				   "max_jobs = lots\n"
				   "\n"
				   "[target shop]\n"
				   "host = 10.9.9.9\n"
				   "port = 5432\n"
				   "database = shop\n"
				   "user = ro\n"
				   "password_file = shop.password\n"
				   "colour = blue\n"
				   "\n"
				   "[user agent]\n"
				   "scram = " VERIFIER "\n"
				   "target = nowhere\n"
				   "timeout_ms = -1\n";
	struct config_errors e;

	(void)state;
	assert_null(config_load_string(text, data_dir, &e));
	assert_true(has_err(&e, "line 3:", "IMAGE_UNPINNED", (const char *)NULL));
	assert_true(has_err(&e, "line 4: [server] max_jobs: expected", (const char *)NULL));
	assert_true(has_err(&e, "line 12: [target shop] has no key \"colour\"", (const char *)NULL));
	assert_true(has_err(&e, "line 17: [user agent] timeout_ms: expected", (const char *)NULL));
	assert_true(has_err(&e, "the [hosts] section is missing", (const char *)NULL));
	assert_true(has_err(&e, "target \"nowhere\" does not exist", (const char *)NULL));
	assert_int_equal(e.n, 6);
}

static void test_error_cap(void **state)
{
	char *text = NULL, *grown;
	struct config_errors e;
	size_t i;

	(void)state;
	assert_true(asprintf(&text, "%s", base_conf) > 0);
	for (i = 0; i < 200; i++) {
		assert_true(asprintf(&grown, "%sbogus%zu = 1\n", text, i) > 0);
		free(text);
		text = grown;
	}
	assert_null(config_load_string(text, data_dir, &e));
	assert_int_equal(e.n, CONFIG_MAX_ERRORS);
	assert_true(has_err(&e, "too many problems", (const char *)NULL));
	free(text);
	/* a NULL errs is allowed */
	assert_null(config_load_string("[server]\n", data_dir, NULL));
	assert_null(config_load_string(NULL, data_dir, &e));
	assert_null(config_load(NULL, &e));
}

static void test_syntax_details(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg;
	char *text;

	(void)state;
	/* BOM, CRLF line ends, colon separator, tabs, comment styles */
	text = edit(base_conf, "[server]\n", "\xEF\xBB\xBF[server]\r\n# hash comment\r\n; semicolon comment\r\n");
	cfg = load(text, &e);
	free(text);
	assert_non_null(cfg);
	config_free(cfg);
	text = edit(base_conf, "port = 5432\n", "\tport: 5432 ; colon\n");
	cfg = load(text, &e);
	free(text);
	assert_non_null(cfg);
	assert_int_equal(cfg->targets[0].port, 5432);
	config_free(cfg);
	/* '#' and ';' start a comment only after whitespace */
	text = edit(base_conf, "database = shop\n", "database = shop#1;x # comment\n");
	cfg = load(text, &e);
	free(text);
	assert_non_null(cfg);
	assert_string_equal(cfg->targets[0].database, "shop#1;x");
	config_free(cfg);
	/* the host list continues on indented lines; IPv6 literals are hosts */
	text = edit(base_conf, "allow = 127.0.0.1, db.internal\n",
		    "allow = db.internal,\n  ::1\n\n  ; a comment between\n\t127.0.0.1  # last\n");
	cfg = load(text, &e);
	free(text);
	assert_non_null(cfg);
	assert_int_equal(cfg->nhost_allow, 3);
	assert_string_equal(cfg->host_allow[1], "::1");
	assert_true(config_host_allowed(cfg, "::1"));
	assert_true(config_host_allowed(cfg, "127.0.0.1"));
	config_free(cfg);
	/* a NUL byte in a file */
	{
		char path[4200];
		FILE *f;

		snprintf(path, sizeof(path), "/tmp/airlock-test-config-%d.ini", (int)getpid());
		f = fopen(path, "w");
		assert_non_null(f);
		fwrite("[server]\n\0x\n", 1, 12, f);
		fclose(f);
		assert_null(config_load(path, &e));
		assert_true(has_err(&e, "NUL byte", (const char *)NULL));
		unlink(path);
	}
}

/* ---- look-ups ------------------------------------------------------------------ */

static void test_host_allowed(void **state)
{
	struct config_errors e;
	struct airlock_config *cfg = load(base_conf, &e);
	struct airlock_config empty;

	(void)state;
	assert_non_null(cfg);
	assert_true(config_host_allowed(cfg, "127.0.0.1"));
	assert_true(config_host_allowed(cfg, "db.internal"));
	assert_true(config_host_allowed(cfg, "DB.Internal"));
	assert_true(config_host_allowed(cfg, "  db.internal\t"));
	assert_false(config_host_allowed(cfg, "db.internal.evil.com"));
	assert_false(config_host_allowed(cfg, "db.interna"));
	assert_false(config_host_allowed(cfg, "127.0.0.2"));
	assert_false(config_host_allowed(cfg, "127.0.0.1 x"));
	assert_false(config_host_allowed(cfg, ""));
	assert_false(config_host_allowed(cfg, "   "));
	assert_false(config_host_allowed(cfg, NULL));
	assert_false(config_host_allowed(NULL, "127.0.0.1"));
	config_free(cfg);

	memset(&empty, 0, sizeof(empty));
	assert_false(config_host_allowed(&empty, "127.0.0.1"));
	assert_false(config_host_allowed(&empty, ""));
	config_free(NULL);
}

static void test_image_pinned(void **state)
{
	(void)state;
	assert_true(config_image_pinned(DIGEST));
	assert_true(config_image_pinned("runner@" DIGEST));
	assert_true(config_image_pinned("ghcr.io/acme/airlock-runner@" DIGEST));
	assert_true(config_image_pinned("localhost:5000/runner:1.2@" DIGEST));
	assert_false(config_image_pinned(NULL));
	assert_false(config_image_pinned(""));
	assert_false(config_image_pinned("runner"));
	assert_false(config_image_pinned("runner:latest"));
	assert_false(config_image_pinned("runner:1.2"));
	assert_false(config_image_pinned("sha256:"));
	assert_false(config_image_pinned("@" DIGEST));
	assert_false(config_image_pinned(DIGEST "0"));
	assert_false(config_image_pinned("sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"));
	assert_false(config_image_pinned("sha256:0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"));
	assert_false(config_image_pinned("sha256:0123456789abcdeg0123456789abcdef0123456789abcdef0123456789abcdef"));
	assert_false(config_image_pinned("sha512:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"));
	assert_false(config_image_pinned("runner@sha256:abc"));
	assert_false(config_image_pinned("run ner@" DIGEST));
	assert_false(config_image_pinned("runner@" DIGEST "@" DIGEST));
	assert_false(config_image_pinned(" " DIGEST));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_config),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_listen_forms),
		cmocka_unit_test(test_load_file_resolves_relative_paths),
		cmocka_unit_test(test_example_file),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_unknown_sections_and_keys),
		cmocka_unit_test(test_numbers_strict),
		cmocka_unit_test(test_cpus_values),
		cmocka_unit_test(test_duplicates_and_references),
		cmocka_unit_test(test_host_not_allowed),
		cmocka_unit_test(test_missing_required),
		cmocka_unit_test(test_missing_server_section),
		cmocka_unit_test(test_no_users),
		cmocka_unit_test(test_empty_hosts_section_is_empty_list),
		cmocka_unit_test(test_image_unpinned),
		cmocka_unit_test(test_bad_scram),
		cmocka_unit_test(test_engine),
		cmocka_unit_test(test_target_tls),
		cmocka_unit_test(test_mysql_keys),
		cmocka_unit_test(test_password_files),
		cmocka_unit_test(test_runner_uids),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_writes),
		cmocka_unit_test(test_mysql_writes),
		cmocka_unit_test(test_approvers),
		cmocka_unit_test(test_webhook_url),
		cmocka_unit_test(test_webhook_cacert),
		cmocka_unit_test(test_webhook_secret_file),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_comments_and_continuations),
		cmocka_unit_test(test_several_errors_at_once),
		cmocka_unit_test(test_error_cap),
		cmocka_unit_test(test_syntax_details),
		cmocka_unit_test(test_host_allowed),
		cmocka_unit_test(test_image_pinned),
	};

	return cmocka_run_group_tests(tests, setup_data, NULL);
}
