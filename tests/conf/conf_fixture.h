/*
 * conf_fixture: what the tests that load a config share: the demo
 * password's SCRAM verifier, a pinned digest, the smallest valid config
 * (one target, one user), and where the fixture files live
 * ($AIRLOCK_TEST_DATA/config, filled by setup_data).
 */
#ifndef AIRLOCK_TESTS_CONF_FIXTURE_H
#define AIRLOCK_TESTS_CONF_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

/* Password "agent-secret", salt "airlock-test-salt", 4096 iterations. */
#define VERIFIER                                       \
	"SCRAM-SHA-256$4096:YWlybG9jay10ZXN0LXNhbHQ=$" \
	"cKkZlZXmh1OEM3AP9aRO2IiCEtynl4/E0ck21FGe++Q=:triCvT67TiAu9fE9j0tqZDvEO6HWPXCOgoxs+AQnM94="
#define DIGEST "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* The [target shop] section (password_file in the fixtures) and the [user agent] that uses it. */
#define SHOP_TARGET_AND_AGENT             \
	"[target shop]\n"                 \
	"host = 127.0.0.1\n"              \
	"port = 5432\n"                   \
	"database = shop\n"               \
	"user = airlock_ro\n"             \
	"password_file = shop.password\n" \
	"\n"                              \
	"[user agent]\n"                  \
	"scram = " VERIFIER "\n"          \
	"target = shop\n"

__attribute__((unused)) static const char base_conf[] = "[server]\n"
							"pg_listen = 127.0.0.1:6432\n"
							"runner_image = " DIGEST "\n"
							"\n"
							"[hosts]\n"
							"allow = 127.0.0.1, db.internal\n"
							"\n" SHOP_TARGET_AND_AGENT;

__attribute__((unused)) static char data_dir[4096];

__attribute__((unused)) static int setup_data(void **state)
{
	const char *d = getenv("AIRLOCK_TEST_DATA");

	(void)state;
	snprintf(data_dir, sizeof(data_dir), "%s/config", d ? d : "tests/data");
	return 0;
}

#endif
