/*
 * test_config_keys: what the key table in conf/config_keys.c guarantees,
 * checked row by row so a new key is covered the day it is added: its
 * default parses with its own type and is what a file that leaves it out
 * gets; a reload that changes a no-reload key is refused and one that
 * changes any other key is not; the example file shows every key, and
 * the key table of docs/configuration.md gives every key in its section
 * with its default and its reload rule. Fixtures live in
 * $AIRLOCK_TEST_DATA/config; the example file and docs/ are found from it
 * two levels up.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/config_internal.h"
#include "tests/conf/conf_fixture.h"

static const char *section_header(enum conf_section s)
{
	switch (s) {
	case SECT_SERVER:
		return "[server]\n";
	case SECT_HOSTS:
		return "[hosts]\n";
	case SECT_TARGET:
		return "[target shop]\n";
	case SECT_USER:
		return "[user agent]\n";
	default:
		fail_msg("row in no real section");
		return NULL;
	}
}

/* base with key k set to value: its line replaced if base has one, else added under its header. */
/*
 * The fixture with both TLS files set (they go together) and an OCI root
 * filesystem (runtime = oci needs one), so that each [server] key, these
 * included, can be changed alone.
 */
static char *tls_base(void)
{
	static char *text;
	const char *at = strstr(base_conf, "[server]\n") + strlen("[server]\n");

	if (!text)
		assert_true(asprintf(&text,
				     "%.*stls_cert_file = /etc/airlock/tls.crt\ntls_key_file = /etc/airlock/tls.key\n"
				     "runner_rootfs = /var/lib/airlock/rootfs.tar@" DIGEST "\n"
				     "approval_webhook_hosts = 127.0.0.1\npeer_id = 1\n%s",
				     (int)(at - base_conf), base_conf, at) > 0);
	return text;
}

static char *with_key_in(const char *base, const struct conf_key *k, const char *value)
{
	const char *header = section_header(k->sect);
	const char *sect = strstr(base, header), *at, *eol;
	char prefix[64];
	char *out;

	assert_non_null(sect);
	snprintf(prefix, sizeof(prefix), "\n%s = ", k->name);
	at = strstr(sect, prefix);
	if (at && (!strstr(sect + 1, "\n[") || at < strstr(sect + 1, "\n["))) {
		eol = strchr(at + 1, '\n');
		assert_true(asprintf(&out, "%.*s\n%s = %s%s", (int)(at - base), base, k->name, value, eol) > 0);
	} else {
		at = sect + strlen(header);
		assert_true(asprintf(&out, "%.*s%s = %s\n%s", (int)(at - base), base, k->name, value, at) > 0);
	}
	return out;
}

static char *with_key(const struct conf_key *k, const char *value)
{
	return with_key_in(base_conf, k, value);
}

static struct airlock_config *load(const char *text)
{
	struct config_errors e;
	struct airlock_config *cfg = config_load_string(text, data_dir, &e);
	size_t i;

	for (i = 0; !cfg && i < e.n; i++)
		fprintf(stderr, "  config error: %s\n", e.msg[i]);
	return cfg;
}

/* The struct that holds k's value in cfg (the fixture has one target and one user). */
static const void *section_struct(const struct airlock_config *cfg, const struct conf_key *k)
{
	if (k->sect == SECT_TARGET)
		return &cfg->targets[0];
	if (k->sect == SECT_USER)
		return &cfg->users[0];
	return cfg;
}

static void test_rows_are_sound(void **state)
{
	size_t i, j;

	(void)state;
	assert_true(conf_nkeys > 0 && conf_nkeys <= CONF_MAX_KEYS);
	for (i = 0; i < conf_nkeys; i++) {
		const struct conf_key *k = &conf_keys[i];

		assert_non_null(k->name);
		assert_true(*k->name);
		assert_true(k->sect >= SECT_SERVER && k->sect <= SECT_ADMIN);
		/* a required key has nothing to default to; a list starts empty */
		if (k->flags & CONF_REQUIRED)
			assert_null(k->def);
		if (conf_type_is_list(k->type))
			assert_null(k->def);
		/* only what the process binds once can refuse a reload, and it lives in [server] */
		if (k->flags & CONF_NO_RELOAD)
			assert_int_equal(k->sect, SECT_SERVER);
		if (k->type <= CT_CPUS)
			assert_true(k->min <= k->max);
		if (k->flags & CONF_PREFIX) {
			char full[80];

			/* a prefix key ends in a space and is found by any name that goes on from it */
			assert_true(k->name[strlen(k->name) - 1] == ' ');
			assert_null(conf_find_key(k->sect, k->name));
			snprintf(full, sizeof(full), "%spublic.t", k->name);
			assert_ptr_equal(conf_find_key(k->sect, full), k);
		} else {
			assert_ptr_equal(conf_find_key(k->sect, k->name), k);
		}
		for (j = i + 1; j < conf_nkeys; j++)
			if (conf_keys[j].sect == k->sect)
				assert_true(strcasecmp(conf_keys[j].name, k->name) != 0);
	}
}

/* Writing a key's default out in the file gives exactly what leaving it out gives. */
static void test_every_default_parses_as_its_type(void **state)
{
	struct airlock_config *plain = load(base_conf), *spelled;
	size_t i, ndefaults = 0;

	(void)state;
	assert_non_null(plain);
	for (i = 0; i < conf_nkeys; i++) {
		const struct conf_key *k = &conf_keys[i];
		char *text;

		if (!k->def)
			continue;
		ndefaults++;
		text = with_key(k, k->def);
		spelled = load(text);
		if (!spelled)
			fprintf(stderr, "default of %s does not load:\n%s", k->name, text);
		assert_non_null(spelled);
		if (!conf_field_equal(k, section_struct(plain, k), section_struct(spelled, k)))
			fail_msg("%s = %s differs from leaving %s out", k->name, k->def, k->name);
		config_free(spelled);
		free(text);
	}
	assert_true(ndefaults >= 10);
	config_free(plain);
}

static char private_path[64];

static bool private_file_made(void)
{
	return private_path[0] != '\0';
}

/* A file only its owner may read (what a CT_SECRET_FILE key needs), made once. */
static const char *private_file(void)
{
	char *path = private_path;
	int fd;

	if (path[0])
		return path;
	snprintf(path, sizeof(private_path), "/tmp/airlock-test-key-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789abcdef0123456789abcdef\n", 33), 33);
	close(fd);
	return path;
}

/* A valid value of k's type that differs from the fixture's (or the default). */
static const char *other_value(const struct conf_key *k, char *buf, size_t cap)
{
	uint64_t now;

	switch (k->type) {
	case CT_U16:
	case CT_U32:
	case CT_U64:
		now = k->def ? strtoull(k->def, NULL, 10) : 0;
		snprintf(buf, cap, "%llu", (unsigned long long)(now == k->min ? k->max : k->min));
		return buf;
	case CT_BOOL:
		return k->def && strcmp(k->def, "on") == 0 ? "off" : "on";
	case CT_LISTEN:
		return "127.0.0.1:1";
	case CT_PATH:
		return "/tmp/airlock-elsewhere";
	case CT_AUDIT:
		return "/tmp/airlock-elsewhere.log";
	case CT_IMAGE:
		return "other/runner@" DIGEST;
	case CT_ROOTFS:
		return "/srv/other-rootfs.tar@" DIGEST;
	case CT_RUNTIME:
		return "oci";
	case CT_UID_RANGE:
		return "1000000-1000099";
	case CT_HOST_LIST:
		return "127.0.0.1, db.internal, db2.internal";
	case CT_PEER_LIST:
		return "2=127.0.0.2:6432, 3=[::1]:6433";
	case CT_CONNINFO:
		return "host=127.0.0.2 dbname=airlock_state sslmode=verify-full";
	case CT_WEBHOOK_URL:
		/* tls_base lists 127.0.0.1 in approval_webhook_hosts */
		return "http://127.0.0.1:1/hook";
	case CT_SECRET_FILE:
		return private_file();
	default:
		fail_msg("no other value for %s: teach other_value its type", k->name);
		return NULL;
	}
}

static void test_reload_rule_for_every_server_key(void **state)
{
	struct airlock_config *running = load(tls_base()), *same = load(tls_base());
	size_t i, nblocked = 0;

	(void)state;
	assert_non_null(running);
	assert_non_null(same);
	assert_null(config_reload_blocker(running, same));
	config_free(same);
	for (i = 0; i < conf_nkeys; i++) {
		const struct conf_key *k = &conf_keys[i];
		struct airlock_config *next;
		const char *blocker;
		char buf[32], *text;

		if (k->sect != SECT_SERVER && k->sect != SECT_HOSTS)
			continue;
		text = with_key_in(tls_base(), k, other_value(k, buf, sizeof(buf)));
		next = load(text);
		assert_non_null(next);
		assert_false(conf_field_equal(k, running, next));
		blocker = config_reload_blocker(running, next);
		if (k->flags & CONF_NO_RELOAD) {
			nblocked++;
			if (!blocker || strcmp(blocker, k->name) != 0)
				fail_msg("changing %s: reload blocker %s", k->name, blocker ? blocker : "(none)");
			/* and back: the check does not depend on which side is running */
			assert_string_equal(config_reload_blocker(next, running), k->name);
		} else if (blocker) {
			fail_msg("changing %s, which may be reloaded, is refused as %s", k->name, blocker);
		}
		config_free(next);
		free(text);
	}
	/* job_dir, the runtime's four keys and docker_socket, audit_log, approval_store, the four listeners (the TLS
	 * files reload), the validator workers' five keys, the webhook's four keys, peer_id, state_dsn, workers */
	assert_int_equal(nblocked, 24);
	config_free(running);
}

/* Targets, users and their policies always reload. */
static void test_reload_takes_sections(void **state)
{
	static const char more[] = "[target crm]\nhost = db.internal\nport = 5433\ndatabase = crm\nuser = ro\n"
				   "password_file = shop.password\n\n"
				   "[user bot]\nscram = " VERIFIER "\ntarget = crm\ntables = a, b\ntimeout_ms = 5\n";
	struct airlock_config *running = load(base_conf), *next;
	char *text;

	(void)state;
	assert_true(asprintf(&text, "%s\n%s", base_conf, more) > 0);
	next = load(text);
	assert_non_null(running);
	assert_non_null(next);
	assert_null(config_reload_blocker(running, next));
	config_free(next);
	config_free(running);
	free(text);
}

static void test_runner_ids_parsed_once(void **state)
{
	const struct conf_key *k = conf_find_key(SECT_SERVER, "runner_uids");
	struct airlock_config *cfg;
	char *text;

	(void)state;
	assert_non_null(k);
	text = with_key(k, "4000000000-4294967294");
	cfg = load(text);
	assert_non_null(cfg);
	assert_string_equal(cfg->runner_uids, "4000000000-4294967294");
	assert_int_equal(cfg->runner_uid_first, 4000000000u);
	assert_int_equal(cfg->runner_uid_last, 4294967294u);
	config_free(cfg);
	free(text);
	cfg = load(base_conf);
	assert_non_null(cfg);
	assert_int_equal(cfg->runner_uid_first, 1000000000);
	assert_int_equal(cfg->runner_uid_last, 1000065535);
	config_free(cfg);
}

/* The shipped example shows every key the table knows. */
static void test_example_shows_every_key(void **state)
{
	const char *d = getenv("AIRLOCK_TEST_DATA");
	char path[4200], want[64], *text;
	size_t i, n;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/../../conf/airlock.example.ini", d ? d : "tests/data");
	f = fopen(path, "r");
	assert_non_null(f);
	text = calloc(1, CONF_MAX_FILE + 1);
	assert_non_null(text);
	n = fread(text, 1, CONF_MAX_FILE, f);
	fclose(f);
	assert_true(n > 0);
	for (i = 0; i < conf_nkeys; i++) {
		char commented[80];

		snprintf(want, sizeof(want), conf_keys[i].flags & CONF_PREFIX ? "\n%s" : "\n%s =", conf_keys[i].name);
		/* A key with no default may be shown commented out, with an example value. */
		snprintf(commented, sizeof(commented), "\n; %s =", conf_keys[i].name);
		if (!strstr(text, want) && (conf_keys[i].def || !strstr(text, commented)))
			fail_msg("conf/airlock.example.ini does not show %s", conf_keys[i].name);
	}
	free(text);
}

/* A file of the source tree, found from $AIRLOCK_TEST_DATA (tests/data) two levels up. */
static char *read_source_file(const char *name)
{
	const char *d = getenv("AIRLOCK_TEST_DATA");
	char path[4200], *text;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/../../%s", d ? d : "tests/data", name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	text = calloc(1, CONF_MAX_FILE + 1);
	assert_non_null(text);
	n = fread(text, 1, CONF_MAX_FILE, f);
	fclose(f);
	assert_true(n > 0);
	return text;
}

/* The section a "[server]", "[hosts]", "[target NAME]" or "[user NAME]" at s names. */
static enum conf_section doc_section(const char *s)
{
	if (!strncmp(s, "[server]", 8))
		return SECT_SERVER;
	if (!strncmp(s, "[hosts]", 7))
		return SECT_HOSTS;
	if (!strncmp(s, "[target ", 8))
		return SECT_TARGET;
	if (!strncmp(s, "[user ", 6))
		return SECT_USER;
	if (!strncmp(s, "[approver ", 10))
		return SECT_APPROVER;
	if (!strncmp(s, "[admin ", 7))
		return SECT_ADMIN;
	fail_msg("docs/configuration.md: a row names the section %.20s", s);
	return SECT_NONE;
}

/* The key a name in the first cell stands for: a rule key may be named bare ("mysql_filter"). */
static const struct conf_key *doc_key(enum conf_section sect, const char *name)
{
	const struct conf_key *k = conf_find_key(sect, name);
	char with_arg[112];

	if (k)
		return k;
	snprintf(with_arg, sizeof(with_arg), "%s TABLE", name);
	k = conf_find_key(sect, with_arg);
	return k && (k->flags & CONF_PREFIX) ? k : NULL;
}

/* The default cell says what the row's key defaults to: its first word, without backticks, or "required". */
static void check_doc_default(const struct conf_key *k, const char *cell, size_t len)
{
	size_t n;

	while (len && *cell == ' ')
		cell++, len--;
	if (k->def) {
		if (*cell == '`') {
			const char *close = memchr(cell + 1, '`', len - 1);

			assert_non_null(close);
			cell++;
			n = (size_t)(close - cell);
		} else {
			n = strcspn(cell, " |");
		}
		if (n != strlen(k->def) || strncmp(cell, k->def, n) != 0)
			fail_msg("docs/configuration.md gives %s the default \"%.*s\"; conf/config_keys.c says \"%s\"",
				 k->name, (int)n, cell, k->def);
	} else if (k->flags & CONF_REQUIRED) {
		if (strncmp(cell, "required", 8) != 0)
			fail_msg("docs/configuration.md does not say %s is required", k->name);
	} else if (*cell == '`' || (*cell >= '0' && *cell <= '9')) {
		fail_msg("docs/configuration.md gives %s a default; conf/config_keys.c has none", k->name);
	}
}

/*
 * Every key is a row of docs/configuration.md's key table in its own
 * section ("[server] pg_listen" opens the [server] rows, and so on), with
 * its default, and the table names no key the code lacks; an old name,
 * stored where an earlier key of its section is, need only be named. A key
 * that needs a restart says so in its row or is named in the sentence
 * before the table that lists the others.
 */
static void test_doc_table_gives_every_key(void **state)
{
	char *text = read_source_file("docs/configuration.md");
	const char *at = strstr(text, "| Section / key | Default | Meaning |"), *line, *restart, *from;
	bool seen[CONF_MAX_KEYS] = {false}, in_sentence[CONF_MAX_KEYS] = {false}, says[CONF_MAX_KEYS] = {false};
	enum conf_section sect = SECT_NONE;
	size_t i, nrows = 0;

	(void)state;
	assert_non_null(at);
	line = strchr(strchr(at, '\n') + 1, '\n') + 1; /* past the header and the | --- | line */
	for (; *line == '|'; line = strchr(line, '\n') + 1) {
		const char *c2 = strchr(line + 1, '|'), *c3 = c2 ? strchr(c2 + 1, '|') : NULL;
		const char *eol = strchr(line, '\n');
		bool no_reload = eol && memmem(line, (size_t)(eol - line), "(not reloadable)", 16);

		assert_non_null(c3);
		nrows++;
		for (const char *p = line + 1; p < c2; p++) {
			const char *q, *name;
			const struct conf_key *k;
			char buf[96];

			if (*p != '`')
				continue;
			q = memchr(p + 1, '`', (size_t)(c2 - p - 1));
			assert_non_null(q);
			snprintf(buf, sizeof(buf), "%.*s", (int)(q - p - 1), p + 1);
			name = buf;
			if (*name == '[') {
				sect = doc_section(name);
				name = strchr(name, ']');
				assert_non_null(name);
				name += 1 + strspn(name + 1, " ");
			}
			k = doc_key(sect, name);
			if (!k)
				fail_msg("docs/configuration.md names %s, which conf/config_keys.c does not have in "
					 "that section",
					 buf);
			seen[k - conf_keys] = true;
			says[k - conf_keys] = no_reload;
			check_doc_default(k, c2 + 1, (size_t)(c3 - c2 - 1));
			p = q;
		}
	}
	assert_true(nrows >= 10);

	/* The sentence that ends "need a restart": from the ". " before it. */
	restart = strstr(text, "need a restart.");
	assert_true(restart && restart < at);
	for (from = restart; from > text + 1 && strncmp(from - 2, ". ", 2) != 0 && strncmp(from - 2, "\n\n", 2) != 0;
	     from--)
		;
	for (const char *p = from; p < restart; p++) {
		const char *q = strchr(p + 1, '`');
		const struct conf_key *k;
		char buf[96];

		if (*p != '`')
			continue;
		assert_true(q && q < restart);
		snprintf(buf, sizeof(buf), "%.*s", (int)(q - p - 1), p + 1);
		k = conf_find_key(SECT_SERVER, buf);
		if (!k || !(k->flags & CONF_NO_RELOAD))
			fail_msg("docs/configuration.md says %s needs a restart; conf/config_keys.c lets a reload "
				 "change it",
				 buf);
		in_sentence[k - conf_keys] = true;
		p = q;
	}

	for (i = 0; i < conf_nkeys; i++) {
		const struct conf_key *k = &conf_keys[i];
		bool old_name = false;
		char want[96];

		for (size_t j = 0; j < i; j++)
			if (conf_keys[j].sect == k->sect && conf_keys[j].off == k->off &&
			    conf_keys[j].type == k->type && !(k->flags & CONF_PREFIX))
				old_name = true;
		snprintf(want, sizeof(want), "`%s`", k->name);
		if (!seen[i] && !(old_name && strstr(at, want)))
			fail_msg("docs/configuration.md's key table has no row for %s", k->name);
		if ((k->flags & CONF_NO_RELOAD) && !says[i] && !in_sentence[i])
			fail_msg("docs/configuration.md does not say that changing %s needs a restart", k->name);
		if (says[i] && !(k->flags & CONF_NO_RELOAD))
			fail_msg("docs/configuration.md says %s is not reloadable; conf/config_keys.c lets a reload "
				 "change it",
				 k->name);
	}
	free(text);
}

/* A user who must use TLS needs a listener that offers it. */
static void test_user_tls_required_needs_the_files(void **state)
{
	const struct conf_key *k = NULL;
	struct airlock_config *cfg;
	char *text;

	(void)state;
	for (size_t i = 0; i < conf_nkeys; i++)
		if (conf_keys[i].sect == SECT_USER && !strcmp(conf_keys[i].name, "tls_required"))
			k = &conf_keys[i];
	assert_non_null(k);
	text = with_key(k, "on");
	assert_null(load(text));
	free(text);
	text = with_key_in(tls_base(), k, "on");
	cfg = load(text);
	assert_non_null(cfg);
	assert_true(cfg->users[0].tls_required);
	assert_false(cfg->tls_required);
	config_free(cfg);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_are_sound),
		cmocka_unit_test(test_every_default_parses_as_its_type),
		cmocka_unit_test(test_reload_rule_for_every_server_key),
		cmocka_unit_test(test_reload_takes_sections),
		cmocka_unit_test(test_runner_ids_parsed_once),
		cmocka_unit_test(test_example_shows_every_key),
		cmocka_unit_test(test_doc_table_gives_every_key),
		cmocka_unit_test(test_user_tls_required_needs_the_files),
	};

	int rc = cmocka_run_group_tests(tests, setup_data, NULL);

	if (private_file_made())
		unlink(private_file());
	return rc;
}
