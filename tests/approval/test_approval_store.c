/*
 * The approval store's records and moves (the SQLite store; built as
 * test_approval_store_pg.c, the Postgres one): round trips of hostile
 * bytes, bounds refused with nothing written, every transition allowed and
 * refused, compare-and-set between two handles on one file, two
 * approvers, expiry, recovery and listing. test_approval_store_file.c
 * covers the file itself (durability, foreign and damaged files, mode).
 */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "approval/approval_store.h"
#include "tests/approval/store_fixture.h"

#define NOW 1700000000000LL
#define LATER (NOW + 3600 * 1000LL)

static int setup(void **state)
{
	*state = fixture_open("/tmp/approval_store_XXXXXX");
	return 0;
}

static int teardown(void **state)
{
	fixture_close(*state);
	return 0;
}

/* A new record (strings borrowed from literals: never approval_free'd). */
static void record_init(struct approval *a, int needed)
{
	memset(a, 0, sizeof(*a));
	assert_true(approval_new_id(a->id));
	a->status = APPROVAL_PENDING;
	a->user = "alice";
	a->protocol = "postgres";
	a->client_addr = "10.0.0.7:51234";
	a->application_name = "psql";
	a->statement = "UPDATE t SET x = $1 WHERE id = 3";
	a->params = "[\"1\", null]";
	a->rewritten = "UPDATE public.t SET x = $1 WHERE id = 3";
	a->plan = "Update on t\n  -> Seq Scan on t";
	a->sample = "{\"columns\":[\"x\"],\"rows\":[[\"0\"]]}";
	a->rows = 1;
	a->executed_rows = -1;
	a->created_at = NOW;
	a->expires_at = LATER;
	a->approvals_needed = needed;
	a->approved_by = "";
	a->decided_by = "";
	a->reason = "";
	a->policy_checksum = "sha256:0123";
}

static struct approval_store *store(void **state)
{
	return ((struct fixture *)*state)->s;
}

/* A pending record, stored; its id in id. */
static void put_new(struct approval_store *s, int needed, int64_t created, int64_t expires,
		    char id[APPROVAL_ID_LEN + 1])
{
	struct approval a;

	record_init(&a, needed);
	a.created_at = created;
	a.expires_at = expires;
	if (s->ops->put(s, &a) != APPROVAL_OK)
		fail_msg("put: %s", s->ops->error(s));
	memcpy(id, a.id, APPROVAL_ID_LEN + 1);
}

static enum approval_result move(struct approval_store *s, const char *id, enum approval_status from,
				 enum approval_status to, const char *by, const char *reason)
{
	struct approval_move m = {.id = id, .from = from, .to = to, .now = NOW + 1000, .by = by, .reason = reason};

	if (to == APPROVAL_EXECUTED)
		m.executed_rows = 4;
	return s->ops->move(s, &m);
}

static enum approval_status status_of(struct approval_store *s, const char *id)
{
	struct approval a;
	enum approval_status st;

	assert_int_equal(s->ops->get(s, id, &a), APPROVAL_OK);
	st = a.status;
	approval_free(&a);
	return st;
}

static bool count_one(void *arg, const struct approval *a)
{
	(*(size_t *)arg)++;
	return true;
}

static size_t count(struct approval_store *s, enum approval_status st)
{
	size_t n = 0;

	assert_int_equal(s->ops->each(s, st, SIZE_MAX, count_one, &n), APPROVAL_OK);
	return n;
}

static void test_round_trip_hostile_bytes(void **state)
{
	struct approval_store *s = store(state);
	static const char hostile[] = "'; DROP TABLE approvals; -- \"q\" \\ \x01\x02\x1b[31m\x7f"
				      "\xff\xfe\xc0\x80\xed\xa0\x80\xf8\x88\x80\x80\x80 end";
	size_t big_len = 200 * 1024;
	char *big = malloc(big_len + 1);
	struct approval a, b;

	assert_non_null(big);
	for (size_t i = 0; i < big_len; i++)
		big[i] = hostile[i % (sizeof(hostile) - 1)];
	big[big_len] = '\0';
	record_init(&a, 2);
	a.statement = big;
	a.rewritten = (char *)hostile;
	a.plan = "\t\r\n\x01\x1f plan";
	a.user = "\xff\xfe user";
	a.client_addr = "[::1]:5432";
	a.application_name = "it's \"quoted\"";
	a.params = "[\"it's\", \"\\\"x\\\"\", null, \"\\u00e9\"]";
	a.sample = "[[\"\\u0001\", null]]";
	a.rows = INT64_MAX;
	a.created_at = NOW - 1;
	a.expires_at = LATER + 7;
	a.policy_checksum = "\x80\x81";
	assert_int_equal(s->ops->put(s, &a), APPROVAL_OK);
	assert_int_equal(s->ops->get(s, a.id, &b), APPROVAL_OK);
	assert_string_equal(b.id, a.id);
	assert_int_equal(b.status, APPROVAL_PENDING);
	assert_int_equal(strlen(b.statement), big_len);
	assert_memory_equal(b.statement, big, big_len + 1);
	assert_string_equal(b.rewritten, hostile);
	assert_string_equal(b.plan, a.plan);
	assert_string_equal(b.user, a.user);
	assert_string_equal(b.protocol, "postgres");
	assert_string_equal(b.client_addr, a.client_addr);
	assert_string_equal(b.application_name, a.application_name);
	assert_string_equal(b.params, a.params);
	assert_string_equal(b.sample, a.sample);
	assert_true(b.rows == INT64_MAX);
	assert_true(b.executed_rows == -1);
	assert_true(b.created_at == NOW - 1);
	assert_true(b.expires_at == LATER + 7);
	assert_true(b.decided_at == 0);
	assert_int_equal(b.approvals_needed, 2);
	assert_string_equal(b.approved_by, "");
	assert_string_equal(b.decided_by, "");
	assert_string_equal(b.reason, "");
	assert_string_equal(b.policy_checksum, a.policy_checksum);
	approval_free(&b);

	/* A reason and an approver's name with hostile bytes come back exactly. */
	assert_int_equal(move(s, a.id, APPROVAL_PENDING, APPROVAL_APPROVED, "b\xffob'", hostile), APPROVAL_OK);
	assert_int_equal(s->ops->get(s, a.id, &b), APPROVAL_OK);
	assert_string_equal(b.approved_by, "b\xffob'");
	assert_string_equal(b.reason, hostile);
	approval_free(&b);
	free(big);
}

static void test_null_strings_read_back_empty(void **state)
{
	struct approval_store *s = store(state);
	struct approval a, b;

	record_init(&a, 1);
	a.application_name = NULL;
	a.plan = NULL;
	a.approved_by = NULL;
	a.decided_by = NULL;
	a.reason = NULL;
	assert_int_equal(s->ops->put(s, &a), APPROVAL_OK);
	assert_int_equal(s->ops->get(s, a.id, &b), APPROVAL_OK);
	assert_string_equal(b.application_name, "");
	assert_string_equal(b.plan, "");
	assert_string_equal(b.approved_by, "");
	assert_string_equal(b.reason, "");
	approval_free(&b);
}

/* The text members and their bounds. */
static const struct {
	size_t offset;
	size_t max;
} text_bounds[] = {
	{offsetof(struct approval, user), APPROVAL_MAX_NAME},
	{offsetof(struct approval, protocol), APPROVAL_MAX_NAME},
	{offsetof(struct approval, client_addr), APPROVAL_MAX_NAME},
	{offsetof(struct approval, application_name), APPROVAL_MAX_NAME},
	{offsetof(struct approval, statement), APPROVAL_MAX_TEXT},
	{offsetof(struct approval, rewritten), APPROVAL_MAX_TEXT},
	{offsetof(struct approval, plan), APPROVAL_MAX_TEXT},
	{offsetof(struct approval, reason), APPROVAL_MAX_REASON},
	{offsetof(struct approval, policy_checksum), APPROVAL_MAX_NAME},
};

static void expect_refused(struct approval_store *s, const struct approval *a)
{
	struct approval b;

	assert_int_equal(s->ops->put(s, a), APPROVAL_INVALID);
	assert_true(s->ops->error(s)[0] != '\0');
	assert_int_equal(s->ops->get(s, a->id, &b), APPROVAL_NOT_FOUND);
}

static void test_bounds_refused_nothing_written(void **state)
{
	struct approval_store *s = store(state);
	size_t len = APPROVAL_MAX_TEXT + 1;
	char *long_text = malloc(len + 1);
	struct approval a;

	assert_non_null(long_text);
	for (size_t i = 0; i < sizeof(text_bounds) / sizeof(text_bounds[0]); i++) {
		record_init(&a, 1);
		memset(long_text, 'x', len);
		long_text[text_bounds[i].max + 1] = '\0';
		*(char **)((char *)&a + text_bounds[i].offset) = long_text;
		expect_refused(s, &a);
		/* Exactly at the bound is fine. */
		long_text[text_bounds[i].max] = '\0';
		assert_true(approval_new_id(a.id));
		assert_int_equal(s->ops->put(s, &a), APPROVAL_OK);
	}
	record_init(&a, 1);
	memset(long_text, ' ', len);
	memcpy(long_text, "[1", 2);
	long_text[APPROVAL_MAX_SAMPLE - 1] = ']';
	long_text[APPROVAL_MAX_SAMPLE] = '\0';
	a.sample = long_text;
	assert_int_equal(s->ops->put(s, &a), APPROVAL_OK);
	record_init(&a, 1);
	long_text[APPROVAL_MAX_SAMPLE] = ']';
	long_text[APPROVAL_MAX_SAMPLE - 1] = ' ';
	long_text[APPROVAL_MAX_SAMPLE + 1] = '\0';
	a.sample = long_text;
	expect_refused(s, &a);
	free(long_text);
	assert_int_equal(count(s, APPROVAL_PENDING), sizeof(text_bounds) / sizeof(text_bounds[0]) + 1);

	assert_int_equal(s->ops->put(s, NULL), APPROVAL_INVALID);
	record_init(&a, 1);
	strcpy(a.id, "wAAAAAAAAAAAAAAAAAAAA");
	assert_int_equal(s->ops->put(s, &a), APPROVAL_INVALID);
	memset(a.id, 'a', sizeof(a.id)); /* no NUL inside the array */
	assert_int_equal(s->ops->put(s, &a), APPROVAL_INVALID);
	record_init(&a, 1);
	a.status = APPROVAL_APPROVED;
	expect_refused(s, &a);
	record_init(&a, 0);
	expect_refused(s, &a);
	record_init(&a, 3);
	expect_refused(s, &a);
	record_init(&a, 2);
	a.approved_by = "mallory";
	expect_refused(s, &a);
	record_init(&a, 1);
	a.decided_by = "mallory";
	expect_refused(s, &a);
	record_init(&a, 1);
	a.executed_rows = 0;
	expect_refused(s, &a);
	record_init(&a, 1);
	a.decided_at = NOW;
	expect_refused(s, &a);
	record_init(&a, 1);
	a.rows = -1;
	expect_refused(s, &a);
	record_init(&a, 1);
	a.expires_at = a.created_at - 1;
	expect_refused(s, &a);

	static const char *const bad_params[] = {NULL,        "",      "[",  "{}", "[1]", "[\"a\", true]",
						 "[[\"a\"]]", "\"a\"", "[]x"};
	for (size_t i = 0; i < sizeof(bad_params) / sizeof(bad_params[0]); i++) {
		record_init(&a, 1);
		a.params = (char *)bad_params[i];
		expect_refused(s, &a);
	}
	static const char *const bad_samples[] = {NULL, "", "{", "[1,]", "{\"a\":}", "nul"};
	for (size_t i = 0; i < sizeof(bad_samples) / sizeof(bad_samples[0]); i++) {
		record_init(&a, 1);
		a.sample = (char *)bad_samples[i];
		expect_refused(s, &a);
	}
	static const char *const bad_settings[] = {"{", "[]", "{\"a\": 1}", "{\"a\": \"x\", \"a\": \"y\"}", "\"a\""};
	for (size_t i = 0; i < sizeof(bad_settings) / sizeof(bad_settings[0]); i++) {
		record_init(&a, 1);
		a.settings = (char *)bad_settings[i];
		expect_refused(s, &a);
	}
	static const char *const bad_types[] = {"[", "{}", "[-1]", "[4294967296]", "[\"25\"]", "[1.5]"};
	for (size_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++) {
		record_init(&a, 1);
		a.param_types = (char *)bad_types[i];
		expect_refused(s, &a);
	}
	record_init(&a, 1);
	a.params = "[]";
	a.sample = "null";
	a.settings = "{\"search_path\": \"write_probe\", \"datestyle\": \"SQL, DMY\"}";
	a.param_types = "[0, 25, 4294967295]";
	assert_int_equal(s->ops->put(s, &a), APPROVAL_OK);
	assert_int_equal(count(s, APPROVAL_PENDING), sizeof(text_bounds) / sizeof(text_bounds[0]) + 2);
}

static void test_duplicate_id(void **state)
{
	struct approval_store *s = store(state);
	struct approval a, b;

	record_init(&a, 1);
	assert_int_equal(s->ops->put(s, &a), APPROVAL_OK);
	a.statement = "DELETE FROM secret_marker_table";
	a.user = "mallory";
	assert_int_equal(s->ops->put(s, &a), APPROVAL_CONFLICT);
	assert_null(strstr(s->ops->error(s), "secret_marker"));
	assert_non_null(strstr(s->ops->error(s), a.id));
	assert_int_equal(s->ops->get(s, a.id, &b), APPROVAL_OK);
	assert_string_equal(b.user, "alice");
	approval_free(&b);
}

/* Drives a new record to st along allowed moves. */
static void drive_to(struct approval_store *s, const char *id, enum approval_status st)
{
	switch (st) {
	case APPROVAL_PENDING:
		return;
	case APPROVAL_REJECTED:
	case APPROVAL_EXPIRED:
		assert_int_equal(move(s, id, APPROVAL_PENDING, st, "carol", NULL), APPROVAL_OK);
		return;
	case APPROVAL_APPROVED:
		assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "carol", NULL), APPROVAL_OK);
		return;
	case APPROVAL_RUNNING:
	case APPROVAL_EXECUTED:
		drive_to(s, id, APPROVAL_APPROVED);
		assert_int_equal(move(s, id, APPROVAL_APPROVED, APPROVAL_RUNNING, NULL, NULL), APPROVAL_OK);
		if (st == APPROVAL_EXECUTED)
			assert_int_equal(move(s, id, APPROVAL_RUNNING, APPROVAL_EXECUTED, NULL, NULL), APPROVAL_OK);
		return;
	case APPROVAL_DRIFTED:
	case APPROVAL_FAILED:
		drive_to(s, id, APPROVAL_APPROVED);
		assert_int_equal(move(s, id, APPROVAL_APPROVED, st, NULL, NULL), APPROVAL_OK);
		return;
	}
	fail();
}

static void test_every_transition(void **state)
{
	struct approval_store *s = store(state);
	static const struct {
		enum approval_status from, to;
	} allowed[] = {
		{APPROVAL_PENDING, APPROVAL_APPROVED}, {APPROVAL_PENDING, APPROVAL_REJECTED},
		{APPROVAL_PENDING, APPROVAL_EXPIRED},  {APPROVAL_APPROVED, APPROVAL_RUNNING},
		{APPROVAL_APPROVED, APPROVAL_DRIFTED}, {APPROVAL_APPROVED, APPROVAL_FAILED},
		{APPROVAL_RUNNING, APPROVAL_EXECUTED}, {APPROVAL_RUNNING, APPROVAL_FAILED},
		{APPROVAL_RUNNING, APPROVAL_DRIFTED},
	};
	char id[APPROVAL_ID_LEN + 1];

	for (int from = APPROVAL_PENDING; from <= APPROVAL_FAILED; from++) {
		for (int to = APPROVAL_PENDING; to <= APPROVAL_FAILED; to++) {
			bool ok = false;

			for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
				ok = ok || (allowed[i].from == (enum approval_status)from &&
					    allowed[i].to == (enum approval_status)to);
			put_new(s, 1, NOW, LATER, id);
			drive_to(s, id, (enum approval_status)from);
			assert_int_equal(move(s, id, from, to, "dave", NULL), ok ? APPROVAL_OK : APPROVAL_INVALID);
			assert_int_equal(status_of(s, id), ok ? to : from);
		}
	}
	/* Statuses outside the enum. */
	put_new(s, 1, NOW, LATER, id);
	assert_int_equal(move(s, id, APPROVAL_PENDING, (enum approval_status)99, "dave", NULL), APPROVAL_INVALID);
	assert_int_equal(move(s, id, (enum approval_status) - 1, APPROVAL_APPROVED, "dave", NULL), APPROVAL_INVALID);
	assert_int_equal(s->ops->move(s, NULL), APPROVAL_INVALID);
}

static void test_move_effects_and_refusals(void **state)
{
	struct approval_store *s = store(state);
	struct approval_move m = {.from = APPROVAL_RUNNING, .to = APPROVAL_EXECUTED, .now = NOW + 9};
	char id[APPROVAL_ID_LEN + 1], other[APPROVAL_ID_LEN + 1];
	struct approval a;

	put_new(s, 1, NOW, LATER, id);
	/* The record is pending: a move from approved conflicts; unknown and malformed ids. */
	assert_int_equal(move(s, id, APPROVAL_APPROVED, APPROVAL_RUNNING, NULL, NULL), APPROVAL_CONFLICT);
	assert_int_equal(move(s, "waaaaaaaaaaaaaaaaaaaa", APPROVAL_PENDING, APPROVAL_APPROVED, "x", NULL),
			 APPROVAL_NOT_FOUND);
	assert_int_equal(move(s, "w'; --", APPROVAL_PENDING, APPROVAL_APPROVED, "x", NULL), APPROVAL_INVALID);
	assert_int_equal(move(s, NULL, APPROVAL_PENDING, APPROVAL_APPROVED, "x", NULL), APPROVAL_INVALID);
	/* A decision needs a name without a comma; a reason within its bound. */
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, NULL, NULL), APPROVAL_INVALID);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "", NULL), APPROVAL_INVALID);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_REJECTED, "a,b", NULL), APPROVAL_INVALID);
	char long_reason[APPROVAL_MAX_REASON + 2];
	memset(long_reason, 'r', sizeof(long_reason) - 1);
	long_reason[sizeof(long_reason) - 1] = '\0';
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "x", long_reason), APPROVAL_INVALID);
	assert_int_equal(status_of(s, id), APPROVAL_PENDING);

	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "erin", "looks right"), APPROVAL_OK);
	assert_int_equal(s->ops->get(s, id, &a), APPROVAL_OK);
	assert_int_equal(a.status, APPROVAL_APPROVED);
	assert_string_equal(a.approved_by, "erin");
	assert_string_equal(a.decided_by, "erin");
	assert_true(a.decided_at == NOW + 1000);
	assert_string_equal(a.reason, "looks right");
	approval_free(&a);
	/* A second approval of an approved record conflicts. */
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "frank", NULL), APPROVAL_CONFLICT);
	assert_int_equal(move(s, id, APPROVAL_APPROVED, APPROVAL_RUNNING, NULL, NULL), APPROVAL_OK);
	m.id = id;
	m.executed_rows = -1;
	assert_int_equal(s->ops->move(s, &m), APPROVAL_INVALID);
	m.executed_rows = 12;
	m.result = long_reason; /* within the result's bound */
	assert_int_equal(s->ops->move(s, &m), APPROVAL_OK);
	assert_int_equal(s->ops->get(s, id, &a), APPROVAL_OK);
	assert_int_equal(a.status, APPROVAL_EXECUTED);
	assert_true(a.executed_rows == 12);
	assert_string_equal(a.result, long_reason);
	assert_true(a.decided_at == NOW + 1000); /* kept from the decision */
	assert_string_equal(a.reason, "looks right");
	approval_free(&a);

	put_new(s, 1, NOW, LATER, other);
	assert_int_equal(move(s, other, APPROVAL_PENDING, APPROVAL_REJECTED, "grace", "no"), APPROVAL_OK);
	assert_int_equal(s->ops->get(s, other, &a), APPROVAL_OK);
	assert_int_equal(a.status, APPROVAL_REJECTED);
	assert_string_equal(a.decided_by, "grace");
	assert_string_equal(a.approved_by, "");
	assert_true(a.decided_at == NOW + 1000);
	assert_string_equal(a.reason, "no");
	approval_free(&a);
}

static void test_two_handles_compare_and_set(void **state)
{
	struct fixture *f = *state;
	struct approval_store *s1 = f->s, *s2;
	char id[APPROVAL_ID_LEN + 1];

	s2 = fixture_other(f, 2);
	put_new(s1, 1, NOW, LATER, id);
	assert_int_equal(status_of(s2, id), APPROVAL_PENDING);
	assert_int_equal(move(s1, id, APPROVAL_PENDING, APPROVAL_APPROVED, "heidi", NULL), APPROVAL_OK);
	assert_int_equal(move(s2, id, APPROVAL_PENDING, APPROVAL_REJECTED, "ivan", NULL), APPROVAL_CONFLICT);
	assert_non_null(strstr(s2->ops->error(s2), id));
	/* Run at most once: the second runner's compare-and-set fails. */
	assert_int_equal(move(s2, id, APPROVAL_APPROVED, APPROVAL_RUNNING, NULL, NULL), APPROVAL_OK);
	assert_int_equal(move(s1, id, APPROVAL_APPROVED, APPROVAL_RUNNING, NULL, NULL), APPROVAL_CONFLICT);
	assert_int_equal(status_of(s1, id), APPROVAL_RUNNING);
	/* Two second approvers on two handles: one wins. */
	put_new(s1, 2, NOW, LATER, id);
	assert_int_equal(move(s1, id, APPROVAL_PENDING, APPROVAL_APPROVED, "judy", NULL), APPROVAL_OK);
	assert_int_equal(move(s2, id, APPROVAL_PENDING, APPROVAL_APPROVED, "ken", NULL), APPROVAL_OK);
	assert_int_equal(move(s1, id, APPROVAL_PENDING, APPROVAL_APPROVED, "leo", NULL), APPROVAL_CONFLICT);
	s2->ops->close(s2);
}

static void test_two_approvers(void **state)
{
	struct approval_store *s = store(state);
	char id[APPROVAL_ID_LEN + 1];
	struct approval a;

	put_new(s, 2, NOW, LATER, id);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "x,y", NULL), APPROVAL_INVALID);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "xavier", NULL), APPROVAL_OK);
	assert_int_equal(s->ops->get(s, id, &a), APPROVAL_OK);
	assert_int_equal(a.status, APPROVAL_PENDING);
	assert_string_equal(a.approved_by, "xavier");
	assert_string_equal(a.decided_by, "");
	assert_true(a.decided_at == 0);
	approval_free(&a);
	/* Still pending: it cannot run yet. */
	assert_int_equal(move(s, id, APPROVAL_APPROVED, APPROVAL_RUNNING, NULL, NULL), APPROVAL_CONFLICT);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "xavier", NULL), APPROVAL_CONFLICT);
	assert_int_equal(status_of(s, id), APPROVAL_PENDING);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "yolanda", "fine"), APPROVAL_OK);
	assert_int_equal(s->ops->get(s, id, &a), APPROVAL_OK);
	assert_int_equal(a.status, APPROVAL_APPROVED);
	assert_string_equal(a.approved_by, "xavier,yolanda");
	assert_string_equal(a.decided_by, "xavier,yolanda");
	assert_true(a.decided_at == NOW + 1000);
	assert_string_equal(a.reason, "fine");
	approval_free(&a);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "zed", NULL), APPROVAL_CONFLICT);

	/* A rejection after one approval: the rejecter decides. */
	put_new(s, 2, NOW, LATER, id);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, "xavier", NULL), APPROVAL_OK);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_REJECTED, "zed", "too broad"), APPROVAL_OK);
	assert_int_equal(s->ops->get(s, id, &a), APPROVAL_OK);
	assert_int_equal(a.status, APPROVAL_REJECTED);
	assert_string_equal(a.approved_by, "xavier");
	assert_string_equal(a.decided_by, "zed");
	approval_free(&a);

	/* Names at the bound fit twice in approved_by. */
	char n1[APPROVAL_MAX_NAME + 1], n2[APPROVAL_MAX_NAME + 1];
	memset(n1, 'p', APPROVAL_MAX_NAME);
	memset(n2, 'q', APPROVAL_MAX_NAME);
	n1[APPROVAL_MAX_NAME] = n2[APPROVAL_MAX_NAME] = '\0';
	put_new(s, 2, NOW, LATER, id);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, n1, NULL), APPROVAL_OK);
	assert_int_equal(move(s, id, APPROVAL_PENDING, APPROVAL_APPROVED, n2, NULL), APPROVAL_OK);
	assert_int_equal(s->ops->get(s, id, &a), APPROVAL_OK);
	assert_int_equal(strlen(a.approved_by), 2 * APPROVAL_MAX_NAME + 1);
	approval_free(&a);
}

static void test_expire(void **state)
{
	struct approval_store *s = store(state);
	char early[APPROVAL_ID_LEN + 1], edge[APPROVAL_ID_LEN + 1], late[APPROVAL_ID_LEN + 1];
	char approved[APPROVAL_ID_LEN + 1], first[APPROVAL_ID_LEN + 1];
	size_t n = 99;

	put_new(s, 1, 0, NOW - 10, early);
	put_new(s, 1, 0, NOW, edge);
	put_new(s, 1, 0, NOW + 10, late);
	put_new(s, 1, 0, NOW + 5000, approved);
	put_new(s, 2, 0, NOW - 5, first);
	assert_int_equal(move(s, approved, APPROVAL_PENDING, APPROVAL_APPROVED, "oscar", NULL), APPROVAL_OK);
	/* Past its expiry but not yet swept: no decision is taken on it. */
	assert_int_equal(move(s, early, APPROVAL_PENDING, APPROVAL_APPROVED, "oscar", NULL), APPROVAL_CONFLICT);
	assert_int_equal(move(s, early, APPROVAL_PENDING, APPROVAL_REJECTED, "oscar", NULL), APPROVAL_CONFLICT);
	assert_int_equal(move(s, first, APPROVAL_PENDING, APPROVAL_APPROVED, "oscar", NULL), APPROVAL_CONFLICT);
	assert_int_equal(s->ops->expire(s, NOW, &n), APPROVAL_OK);
	assert_int_equal(n, 3);
	assert_int_equal(status_of(s, early), APPROVAL_EXPIRED);
	assert_int_equal(status_of(s, edge), APPROVAL_EXPIRED);
	assert_int_equal(status_of(s, first), APPROVAL_EXPIRED);
	assert_int_equal(status_of(s, late), APPROVAL_PENDING);
	assert_int_equal(status_of(s, approved), APPROVAL_APPROVED);
	assert_int_equal(s->ops->expire(s, NOW, &n), APPROVAL_OK);
	assert_int_equal(n, 0);
	assert_int_equal(s->ops->expire(s, NOW + 100000, NULL), APPROVAL_OK);
	assert_int_equal(status_of(s, late), APPROVAL_EXPIRED);
	assert_int_equal(status_of(s, approved), APPROVAL_APPROVED);
}

static void test_recover(void **state)
{
	struct approval_store *s = store(state);
	char r1[APPROVAL_ID_LEN + 1], r2[APPROVAL_ID_LEN + 1], ap[APPROVAL_ID_LEN + 1], pe[APPROVAL_ID_LEN + 1];
	struct approval a;
	size_t n = 99;

	put_new(s, 1, NOW, LATER, r1);
	put_new(s, 1, NOW, LATER, r2);
	put_new(s, 1, NOW, LATER, ap);
	put_new(s, 1, NOW, LATER, pe);
	drive_to(s, r1, APPROVAL_RUNNING);
	drive_to(s, r2, APPROVAL_RUNNING);
	drive_to(s, ap, APPROVAL_APPROVED);
	assert_int_equal(s->ops->recover(s, NOW + 5, &n), APPROVAL_OK);
	assert_int_equal(n, 2);
	assert_int_equal(s->ops->get(s, r1, &a), APPROVAL_OK);
	assert_int_equal(a.status, APPROVAL_FAILED);
	assert_non_null(strstr(a.reason, "never run again"));
	assert_true(a.executed_rows == -1);
	approval_free(&a);
	assert_int_equal(status_of(s, r2), APPROVAL_FAILED);
	assert_int_equal(status_of(s, ap), APPROVAL_APPROVED);
	assert_int_equal(status_of(s, pe), APPROVAL_PENDING);
	assert_int_equal(s->ops->recover(s, NOW + 6, &n), APPROVAL_OK);
	assert_int_equal(n, 0);
}

#ifdef STORE_PG
/* Nodes sharing the store: a node starting again fails only the writes it was running itself. */
static void test_recover_per_node(void **state)
{
	struct fixture *f = *state;
	struct approval_store *s1 = f->s, *s2 = fixture_other(f, 2);
	char mine[APPROVAL_ID_LEN + 1], theirs[APPROVAL_ID_LEN + 1];
	size_t n = 99;

	put_new(s1, 1, NOW, LATER, mine);
	put_new(s1, 1, NOW, LATER, theirs);
	drive_to(s1, mine, APPROVAL_RUNNING);
	drive_to(s2, theirs, APPROVAL_RUNNING);
	assert_int_equal(s2->ops->recover(s2, NOW + 5, &n), APPROVAL_OK);
	assert_int_equal(n, 1);
	assert_int_equal(status_of(s1, theirs), APPROVAL_FAILED);
	assert_int_equal(status_of(s1, mine), APPROVAL_RUNNING);
	assert_int_equal(s1->ops->recover(s1, NOW + 6, &n), APPROVAL_OK);
	assert_int_equal(n, 1);
	assert_int_equal(status_of(s2, mine), APPROVAL_FAILED);
	s2->ops->close(s2);
}

/* A table of another shape in the schema is refused, naming what is wrong. */
static void test_foreign_table_refused(void **state)
{
	struct fixture *f = *state;
	char sql[256], err[512];

	f->s->ops->close(f->s);
	f->s = NULL;
	snprintf(sql, sizeof(sql),
		 "DROP TABLE \"%s\".airlock_approvals; CREATE TABLE \"%s\".airlock_approvals (id text)", f->schema,
		 f->schema);
	fixture_sql(sql);
	assert_null(approval_store_pg_open(f->dsn, 1, err, sizeof(err)));
	assert_non_null(strstr(err, "airlock_approvals"));
}

/* Rows edited in the database by hand: each damage is reported by record and column, never handed on. */
static void test_damaged_rows_refused(void **state)
{
	static const struct {
		const char *set;
		const char *column;
	} damage[] = {
		{"\"statement\" = '\\x610062'::bytea", "statement holds a NUL byte"},
		{"\"status\" = 'bogus'", "status is not a status"},
		{"\"approvals_needed\" = 3", "approvals_needed is neither 1 nor 2"},
		{"\"user\" = convert_to(repeat('u', 300), 'UTF8')", "user is too long"},
	};
	struct fixture *f = *state;
	struct approval_store *s = f->s;
	char id[APPROVAL_ID_LEN + 1], sql[512];
	struct approval a;

	for (size_t i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
		put_new(s, 1, NOW, LATER, id);
		snprintf(sql, sizeof(sql), "UPDATE \"%s\".airlock_approvals SET %s WHERE id = '%s'", f->schema,
			 damage[i].set, id);
		fixture_sql(sql);
		assert_int_equal(s->ops->get(s, id, &a), APPROVAL_IO);
		assert_non_null(strstr(s->ops->error(s), id));
		if (!strstr(s->ops->error(s), damage[i].column))
			fail_msg("%s: %s", damage[i].column, s->ops->error(s));
	}
}

/* The server ends the store's connection: a read is sent again on a new one; a put is not, and the next one works. */
static void test_connection_lost(void **state)
{
	struct fixture *f = *state;
	struct approval_store *s = f->s;
	char id[APPROVAL_ID_LEN + 1], sql[256];
	struct approval a;

	put_new(s, 1, NOW, LATER, id);
	snprintf(sql, sizeof(sql),
		 "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = '%s'",
		 f->schema);
	fixture_sql(sql);
	assert_int_equal(status_of(s, id), APPROVAL_PENDING);
	fixture_sql(sql);
	record_init(&a, 1);
	assert_int_equal(s->ops->put(s, &a), APPROVAL_IO);
	assert_non_null(strstr(s->ops->error(s), "cannot store a record"));
	put_new(s, 1, NOW, LATER, id);
	assert_int_equal(status_of(s, id), APPROVAL_PENDING);
}

struct racer {
	struct approval_store *s;
	const char *id;
	enum approval_result r;
};

static void *race_approve(void *arg)
{
	struct racer *x = arg;

	x->r = move(x->s, x->id, APPROVAL_PENDING, APPROVAL_APPROVED, "amy", NULL);
	return NULL;
}

/*
 * Another node decides between this node's read and its write: the
 * other's UPDATE holds the row, this one's waits on it, and once the other
 * commits, this one's compare-and-set finds the record moved and changes
 * nothing. Without the compare both would have decided it.
 */
static void test_moved_between_read_and_write(void **state)
{
	struct fixture *f = *state;
	char id[APPROVAL_ID_LEN + 1], sql[512];
	struct racer x = {.s = f->s, .id = id, .r = APPROVAL_OK};
	PGconn *other = PQconnectdb(getenv("AIRLOCK_TEST_STATE_DSN"));
	PGresult *held;
	pthread_t th;
	bool waiting = false;
	struct approval a;

	put_new(f->s, 1, NOW, LATER, id);
	PQclear(PQexec(other, "BEGIN"));
	snprintf(sql, sizeof(sql),
		 "UPDATE \"%s\".airlock_approvals SET status = 'approved', approved_by = 'zed', decided_by = 'zed' "
		 "WHERE id = '%s'",
		 f->schema, id);
	held = PQexec(other, sql);
	assert_int_equal(PQresultStatus(held), PGRES_COMMAND_OK);
	PQclear(held);
	assert_int_equal(pthread_create(&th, NULL, race_approve, &x), 0);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM pg_stat_activity WHERE application_name = '%s' AND wait_event_type = 'Lock'",
		 f->schema);
	for (int i = 0; i < 500 && !waiting; i++) {
		PGconn *c = PQconnectdb(getenv("AIRLOCK_TEST_STATE_DSN"));
		PGresult *r = PQexec(c, sql);

		waiting = PQresultStatus(r) == PGRES_TUPLES_OK && strcmp(PQgetvalue(r, 0, 0), "1") == 0;
		PQclear(r);
		PQfinish(c);
		if (!waiting)
			usleep(10000);
	}
	PQclear(PQexec(other, "COMMIT"));
	PQfinish(other);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_true(waiting);
	assert_int_equal(x.r, APPROVAL_CONFLICT);
	assert_int_equal(f->s->ops->get(f->s, id, &a), APPROVAL_OK);
	assert_string_equal(a.approved_by, "zed");
	approval_free(&a);
}

/* The approval page's logins, shared: one node's login is another's, its end ends it there, old ones are swept. */
static void test_logins_shared(void **state)
{
	struct fixture *f = *state;
	struct approval_store *s1 = f->s, *s2 = fixture_other(f, 2);
	struct approval_login l = {.created_ms = 1000, .last_ms = 1000}, got;
	unsigned char k1[APPROVAL_LOGIN_KEY_LEN], k2[APPROVAL_LOGIN_KEY_LEN];
	char sql[256];

	memset(k1, 0xa1, sizeof(k1));
	memset(k2, 0xb2, sizeof(k2));
	memset(l.csrf, 'c', APPROVAL_LOGIN_CSRF_LEN);
	snprintf(l.approver, sizeof(l.approver), "grace");
	memset(l.binding, 0x07, sizeof(l.binding));
	assert_int_equal(s1->ops->login_get(s1, k1, &got), APPROVAL_NOT_FOUND);
	assert_int_equal(s1->ops->login_put(s1, k1, &l), APPROVAL_OK);
	assert_int_equal(s2->ops->login_get(s2, k1, &got), APPROVAL_OK);
	assert_memory_equal(&got, &l, sizeof(l));
	assert_int_equal(s2->ops->login_touch(s2, k1, 5000), APPROVAL_OK);
	assert_int_equal(s1->ops->login_touch(s1, k1, 3000), APPROVAL_OK);
	assert_int_equal(s1->ops->login_get(s1, k1, &got), APPROVAL_OK);
	assert_true(got.last_ms == 5000 && got.created_ms == 1000);
	assert_int_equal(s2->ops->login_end(s2, k1), APPROVAL_OK);
	assert_int_equal(s1->ops->login_get(s1, k1, &got), APPROVAL_NOT_FOUND);
	/* Swept: idle since before 2000, or made before 500. */
	assert_int_equal(s1->ops->login_put(s1, k1, &l), APPROVAL_OK);
	l.created_ms = 400;
	l.last_ms = 9000;
	assert_int_equal(s1->ops->login_put(s1, k2, &l), APPROVAL_OK);
	assert_int_equal(s1->ops->login_sweep(s1, 999, 300), APPROVAL_OK);
	assert_int_equal(s1->ops->login_get(s1, k1, &got), APPROVAL_OK);
	assert_int_equal(s1->ops->login_get(s1, k2, &got), APPROVAL_OK);
	assert_int_equal(s1->ops->login_sweep(s1, 2000, 500), APPROVAL_OK);
	assert_int_equal(s1->ops->login_get(s1, k1, &got), APPROVAL_NOT_FOUND);
	assert_int_equal(s1->ops->login_get(s1, k2, &got), APPROVAL_NOT_FOUND);
	/* A malformed login is refused; a damaged row is no login. */
	l.csrf[3] = 'X';
	assert_int_equal(s1->ops->login_put(s1, k1, &l), APPROVAL_INVALID);
	l.csrf[3] = 'c';
	assert_int_equal(s1->ops->login_put(s1, k1, &l), APPROVAL_OK);
	snprintf(sql, sizeof(sql), "UPDATE \"%s\".airlock_approval_logins SET csrf = 'short'", f->schema);
	fixture_sql(sql);
	assert_int_equal(s1->ops->login_get(s1, k1, &got), APPROVAL_IO);
	s2->ops->close(s2);
}

/* A conninfo that names no sslmode gets verify-full: with no CA to check against, the store does not open. */
static void test_tls_checked_by_default(void **state)
{
	PQconninfoOption *opts = PQconninfoParse(getenv("AIRLOCK_TEST_STATE_DSN"), NULL);
	char dsn[1024], err[512];
	size_t len = 0;

	(void)state;
	assert_non_null(opts);
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (o->val && o->val[0] && strcmp(o->keyword, "sslmode") && strcmp(o->keyword, "sslrootcert"))
			len += (size_t)snprintf(dsn + len, sizeof(dsn) - len, "%s='%s' ", o->keyword, o->val);
		assert_true(len < sizeof(dsn));
	}
	PQconninfoFree(opts);
	snprintf(dsn + len, sizeof(dsn) - len, "sslrootcert=/nonexistent/ca.pem");
	assert_null(approval_store_pg_open(dsn, 1, err, sizeof(err)));
	if (!strstr(err, "root certificate file"))
		fail_msg("not refused for want of a CA: %s", err);
}

/* A server that is not there: a clear error within the connect bound, never the password. */
static void test_unreachable(void **state)
{
	char err[512];

	(void)state;
	assert_null(approval_store_pg_open("host=127.0.0.1 port=1 password=hunter2-secret connect_timeout=2", 1, err,
					   sizeof(err)));
	assert_non_null(strstr(err, "state database"));
	assert_null(strstr(err, "hunter2"));
}
#endif

struct seen {
	struct approval_store *s;
	char ids[8][APPROVAL_ID_LEN + 1];
	int64_t created[8];
	size_t n;
	size_t stop_after;
	bool approve;
};

static bool see(void *arg, const struct approval *a)
{
	struct seen *v = arg;

	assert_true(v->n < 8);
	memcpy(v->ids[v->n], a->id, sizeof(a->id));
	v->created[v->n++] = a->created_at;
	if (v->approve)
		assert_int_equal(move(v->s, a->id, APPROVAL_PENDING, APPROVAL_APPROVED, "pat", NULL), APPROVAL_OK);
	return v->n != v->stop_after;
}

static void test_each_order_limit_stop(void **state)
{
	struct approval_store *s = store(state);
	char ids[5][APPROVAL_ID_LEN + 1];
	static const int64_t created[5] = {NOW + 3, NOW + 1, NOW + 2, NOW + 1, NOW};
	struct seen v = {.s = s};

	for (int i = 0; i < 5; i++)
		put_new(s, 1, created[i], LATER, ids[i]);
	drive_to(s, ids[4], APPROVAL_REJECTED);
	assert_int_equal(s->ops->each(s, APPROVAL_PENDING, 10, see, &v), APPROVAL_OK);
	assert_int_equal(v.n, 4);
	for (size_t i = 1; i < v.n; i++) {
		assert_true(v.created[i - 1] <= v.created[i]);
		if (v.created[i - 1] == v.created[i])
			assert_true(strcmp(v.ids[i - 1], v.ids[i]) < 0);
	}
	assert_string_equal(v.ids[3], ids[0]);
	memset(&v, 0, sizeof(v));
	assert_int_equal(s->ops->each(s, APPROVAL_PENDING, 2, see, &v), APPROVAL_OK);
	assert_int_equal(v.n, 2);
	memset(&v, 0, sizeof(v));
	v.stop_after = 1;
	assert_int_equal(s->ops->each(s, APPROVAL_PENDING, 10, see, &v), APPROVAL_OK);
	assert_int_equal(v.n, 1);
	memset(&v, 0, sizeof(v));
	assert_int_equal(s->ops->each(s, APPROVAL_PENDING, 0, see, &v), APPROVAL_OK);
	assert_int_equal(v.n, 0);
	assert_int_equal(s->ops->each(s, APPROVAL_REJECTED, 10, see, &v), APPROVAL_OK);
	assert_int_equal(v.n, 1);
	assert_string_equal(v.ids[0], ids[4]);
	assert_int_equal(s->ops->each(s, (enum approval_status)42, 10, see, &v), APPROVAL_INVALID);
	assert_int_equal(s->ops->each(s, APPROVAL_PENDING, 10, NULL, NULL), APPROVAL_INVALID);
	/* fn may move the records it is handed. */
	memset(&v, 0, sizeof(v));
	v.s = s;
	v.approve = true;
	assert_int_equal(s->ops->each(s, APPROVAL_PENDING, SIZE_MAX, see, &v), APPROVAL_OK);
	assert_int_equal(v.n, 4);
	assert_int_equal(count(s, APPROVAL_PENDING), 0);
	assert_int_equal(count(s, APPROVAL_APPROVED), 4);
}

static void test_get_refusals(void **state)
{
	struct approval_store *s = store(state);
	struct approval a;

	assert_int_equal(s->ops->get(s, "waaaaaaaaaaaaaaaaaaaa", &a), APPROVAL_NOT_FOUND);
	assert_int_equal(s->ops->get(s, "waaaaaaaaaaaaaaaaaaaa' OR 1=1 --", &a), APPROVAL_INVALID);
	assert_int_equal(s->ops->get(s, NULL, &a), APPROVAL_INVALID);
	assert_null(a.user);
	approval_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip_hostile_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_strings_read_back_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounds_refused_nothing_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_transition, setup, teardown),
		cmocka_unit_test_setup_teardown(test_move_effects_and_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_handles_compare_and_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_approvers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expire, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recover, setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_order_limit_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_get_refusals, setup, teardown),
#ifdef STORE_PG
		cmocka_unit_test_setup_teardown(test_recover_per_node, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_table_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_rows_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_connection_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_moved_between_read_and_write, setup, teardown),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_tls_checked_by_default),
		cmocka_unit_test_setup_teardown(test_logins_shared, setup, teardown),
#endif
	};

#ifdef STORE_PG
	if (!getenv("AIRLOCK_TEST_STATE_DSN")) {
		printf("skipped: AIRLOCK_TEST_STATE_DSN names no database (integration/tests/test_state_store.py runs "
		       "this with one)\n");
		return 77;
	}
#endif
	return cmocka_run_group_tests(tests, NULL, NULL);
}
