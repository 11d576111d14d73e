/* Tests for admin_cmd: the admin console's command line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proxy/admin_cmd.h"

static enum admin_cmd_kind kind_of(const char *text)
{
	struct admin_cmd c;

	return admin_cmd_parse(text, &c);
}

static void every_command(void **state)
{
	assert_int_equal(kind_of("SHOW POOLS"), ADMIN_CMD_SHOW_POOLS);
	assert_int_equal(kind_of("SHOW STATS"), ADMIN_CMD_SHOW_STATS);
	assert_int_equal(kind_of("SHOW CLIENTS"), ADMIN_CMD_SHOW_CLIENTS);
	assert_int_equal(kind_of("SHOW JOBS"), ADMIN_CMD_SHOW_JOBS);
	assert_int_equal(kind_of("SHOW CONFIG"), ADMIN_CMD_SHOW_CONFIG);
	assert_int_equal(kind_of("SHOW USERS"), ADMIN_CMD_SHOW_USERS);
	assert_int_equal(kind_of("show peers;"), ADMIN_CMD_SHOW_PEERS);
	assert_int_equal(kind_of("RELOAD"), ADMIN_CMD_RELOAD);
	assert_int_equal(kind_of("PAUSE"), ADMIN_CMD_PAUSE);
	assert_int_equal(kind_of("RESUME"), ADMIN_CMD_RESUME);
	assert_int_equal(kind_of("SHUTDOWN WAIT_FOR_CLIENTS"), ADMIN_CMD_SHUTDOWN);
}

static void case_space_and_semicolons(void **state)
{
	assert_int_equal(kind_of("show pools"), ADMIN_CMD_SHOW_POOLS);
	assert_int_equal(kind_of("Show Clients;"), ADMIN_CMD_SHOW_CLIENTS);
	assert_int_equal(kind_of("  \tSHOW\n\n  users  ;  "), ADMIN_CMD_SHOW_USERS);
	assert_int_equal(kind_of("reload;"), ADMIN_CMD_RELOAD);
	assert_int_equal(kind_of("shutdown\twait_for_clients ;"), ADMIN_CMD_SHUTDOWN);
	/* One semicolon only, and nothing after it. */
	assert_int_equal(kind_of("RELOAD;;"), ADMIN_CMD_UNKNOWN);
	assert_int_equal(kind_of("RELOAD; RELOAD"), ADMIN_CMD_UNKNOWN);
}

static void kill_client_ids(void **state)
{
	struct admin_cmd c;

	assert_int_equal(admin_cmd_parse("KILL_CLIENT 42", &c), ADMIN_CMD_KILL_CLIENT);
	assert_int_equal(c.id, 42);
	assert_int_equal(admin_cmd_parse("kill_client   4294967295;", &c), ADMIN_CMD_KILL_CLIENT);
	assert_int_equal(c.id, 4294967295u);
	assert_int_equal(admin_cmd_parse("KILL_CLIENT 4294967296", &c), ADMIN_CMD_BAD);
	assert_non_null(c.why);
	assert_int_equal(kind_of("KILL_CLIENT"), ADMIN_CMD_BAD);
	assert_int_equal(kind_of("KILL_CLIENT -1"), ADMIN_CMD_BAD);
	assert_int_equal(kind_of("KILL_CLIENT +1"), ADMIN_CMD_BAD);
	assert_int_equal(kind_of("KILL_CLIENT 1x"), ADMIN_CMD_BAD);
	assert_int_equal(kind_of("KILL_CLIENT 00000000001"), ADMIN_CMD_BAD);
	assert_int_equal(kind_of("KILL_CLIENT 1 2"), ADMIN_CMD_BAD);
}

static void garbage(void **state)
{
	struct admin_cmd c;

	assert_int_equal(admin_cmd_parse("", &c), ADMIN_CMD_BAD);
	assert_non_null(c.why);
	assert_int_equal(kind_of("   ;  "), ADMIN_CMD_BAD);
	assert_int_equal(admin_cmd_parse("SELECT 1", &c), ADMIN_CMD_UNKNOWN);
	assert_non_null(c.why);
	assert_int_equal(kind_of("SHOW"), ADMIN_CMD_UNKNOWN);
	assert_int_equal(kind_of("SHOW POOLS EXTRA"), ADMIN_CMD_UNKNOWN);
	assert_int_equal(kind_of("SHOW POOLS EXTRA MORE WORDS"), ADMIN_CMD_UNKNOWN);
	assert_int_equal(kind_of("SHOWPOOLS"), ADMIN_CMD_UNKNOWN);
	assert_int_equal(kind_of("RELOAD NOW"), ADMIN_CMD_UNKNOWN);
	assert_int_equal(kind_of("SHUTDOWN"), ADMIN_CMD_UNKNOWN);
	assert_int_equal(kind_of("SHOW\0POOLS"), ADMIN_CMD_UNKNOWN);
	assert_int_equal(kind_of("SHOW POOLS\xff"), ADMIN_CMD_UNKNOWN);
}

static void overlong(void **state)
{
	char text[ADMIN_CMD_MAX + 64];
	struct admin_cmd c;

	/* Spaces pad a real command to the limit: still read. */
	memset(text, ' ', sizeof(text));
	memcpy(text, "RELOAD", 6);
	text[ADMIN_CMD_MAX] = '\0';
	assert_int_equal(admin_cmd_parse(text, &c), ADMIN_CMD_RELOAD);
	/* One byte more: refused unread. */
	text[ADMIN_CMD_MAX] = ' ';
	text[ADMIN_CMD_MAX + 1] = '\0';
	assert_int_equal(admin_cmd_parse(text, &c), ADMIN_CMD_BAD);
	assert_string_equal(c.why, "the command is too long");
}

static void names(void **state)
{
	assert_string_equal(admin_cmd_name(ADMIN_CMD_SHOW_POOLS), "SHOW POOLS");
	assert_string_equal(admin_cmd_name(ADMIN_CMD_KILL_CLIENT), "KILL_CLIENT");
	assert_string_equal(admin_cmd_name(ADMIN_CMD_SHUTDOWN), "SHUTDOWN");
	assert_string_equal(admin_cmd_name(ADMIN_CMD_UNKNOWN), "");
	assert_string_equal(admin_cmd_name(ADMIN_CMD_BAD), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_command),   cmocka_unit_test(case_space_and_semicolons),
		cmocka_unit_test(kill_client_ids), cmocka_unit_test(garbage),
		cmocka_unit_test(overlong),        cmocka_unit_test(names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
