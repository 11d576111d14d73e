/*
 * test_login_guard: failed logins per address and per user name, the wait
 * they call for, and a table that a flood of new keys cannot wipe.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "proxy/login_guard.h"

static const struct login_guard_cfg cfg = {.free = 3, .delay_ms = 100, .max_ms = 1000, .window_ms = 60000};
static const uint8_t a1[4] = {10, 0, 0, 1}, a2[4] = {10, 0, 0, 2};

static void fail_n(struct login_guard *g, const uint8_t *addr, const char *user, int n, uint64_t now)
{
	for (int i = 0; i < n; i++)
		login_guard_failed(g, &cfg, addr, 4, user, now);
}

static void test_wait_grows_then_caps(void **state)
{
	struct login_guard *g = login_guard_new();
	static const uint32_t want[] = {0, 0, 0, 100, 200, 400, 800, 1000, 1000, 1000};

	assert_non_null(g);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(login_guard_wait(g, &cfg, a1, 4, "agent", 1000), want[i]);
		login_guard_failed(g, &cfg, a1, 4, "agent", 1000);
	}
	login_guard_free(g);
}

static void test_address_counts_across_names(void **state)
{
	struct login_guard *g = login_guard_new();
	char name[16];

	/* A spray: one guess each at many names, from one address. */
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "user%d", i);
		login_guard_failed(g, &cfg, a1, 4, name, 1000);
	}
	assert_int_equal(login_guard_wait(g, &cfg, a1, 4, "someone", 1000), 100);
	/* Another address, a fresh name: nothing. */
	assert_int_equal(login_guard_wait(g, &cfg, a2, 4, "someone", 1000), 0);
	login_guard_free(g);
}

static void test_name_counts_across_addresses(void **state)
{
	struct login_guard *g = login_guard_new();
	uint8_t a[4] = {10, 1, 0, 0};

	for (int i = 0; i < 4; i++) {
		a[3] = (uint8_t)i;
		login_guard_failed(g, &cfg, a, 4, "agent", 1000);
	}
	/* From an address that never failed, the name still waits; a known or unknown name alike. */
	assert_int_equal(login_guard_wait(g, &cfg, a2, 4, "agent", 1000), 200);
	fail_n(g, a2, "nobody-such", 4, 1000);
	assert_int_equal(login_guard_wait(g, &cfg, a1, 4, "nobody-such", 1000), 200);
	login_guard_free(g);
}

static void test_success_clears_the_name_not_the_address(void **state)
{
	struct login_guard *g = login_guard_new();

	fail_n(g, a1, "agent", 5, 1000);
	login_guard_passed(g, "agent");
	assert_int_equal(login_guard_wait(g, &cfg, a2, 4, "agent", 1000), 0);
	/* Logging in as one's own user does not wash the address's record. */
	assert_int_equal(login_guard_wait(g, &cfg, a1, 4, "agent", 1000), 400);
	login_guard_free(g);
}

static void test_window_forgets(void **state)
{
	struct login_guard *g = login_guard_new();

	fail_n(g, a1, "agent", 5, 1000);
	assert_int_equal(login_guard_wait(g, &cfg, a1, 4, "agent", 1000 + 59999), 400);
	assert_int_equal(login_guard_wait(g, &cfg, a1, 4, "agent", 1000 + 60001), 0);
	/* A failure after the window starts over at one. */
	login_guard_failed(g, &cfg, a1, 4, "agent", 1000 + 60001);
	assert_int_equal(login_guard_wait(g, &cfg, a1, 4, "agent", 1000 + 60001), 0);
	login_guard_free(g);
}

static void test_flood_of_new_keys_keeps_the_target(void **state)
{
	struct login_guard *g = login_guard_new();
	uint8_t a[4];
	char name[24];

	fail_n(g, a1, "admin", 10, 1000);
	/* Ten times the table's size in new names from new addresses, one failure each. */
	for (uint32_t i = 0; i < 10u * LOGIN_GUARD_SLOTS; i++) {
		memcpy(a, &i, sizeof(a));
		a[0] |= 0x80;
		snprintf(name, sizeof(name), "spray%u", i);
		login_guard_failed(g, &cfg, a, 4, name, 2000);
	}
	assert_int_equal(login_guard_wait(g, &cfg, a2, 4, "admin", 2000), 1000);
	assert_int_equal(login_guard_wait(g, &cfg, a1, 4, "other", 2000), 1000);
	login_guard_free(g);
}

static void test_odd_keys(void **state)
{
	struct login_guard *g = login_guard_new();
	char longname[200];

	/* The empty name and no address count like any other key. */
	for (int i = 0; i < 3; i++)
		login_guard_failed(g, &cfg, NULL, 0, "", 1000);
	assert_int_equal(login_guard_wait(g, &cfg, a1, 4, "", 1000), 100);
	assert_int_equal(login_guard_wait(g, &cfg, NULL, 0, "x", 1000), 100);
	/* Names past LOGIN_GUARD_KEY bytes count by their start. */
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	fail_n(g, a2, longname, 3, 1000);
	longname[150] = 'b';
	assert_int_equal(login_guard_wait(g, &cfg, a1, 4, longname, 1000), 100);
	login_guard_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_grows_then_caps),
		cmocka_unit_test(test_address_counts_across_names),
		cmocka_unit_test(test_name_counts_across_addresses),
		cmocka_unit_test(test_success_clears_the_name_not_the_address),
		cmocka_unit_test(test_window_forgets),
		cmocka_unit_test(test_flood_of_new_keys_keeps_the_target),
		cmocka_unit_test(test_odd_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
