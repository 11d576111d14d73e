/*
 * fuzz_audit_append: libFuzzer target for the supervisor's side of
 * workers = N: any bytes as one worker's record (audit_append), written
 * into a log as the supervisor writes it. A record taken must leave the
 * log one intact line longer, chained to the one before; a refused one
 * must leave it as it was. Never a crash, a read out of bounds or a leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proxy/audit.h"
#include "proxy/audit_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char first[] = "{\"ts\":\"2026-12-05T00:00:00.000Z\",\"user\":\"agent\"}";
	struct audit_verify v;
	struct audit *a;
	struct stat before, after;
	int rc;
	FILE *f;

	if (!path[0]) {
		int fd;

		snprintf(path, sizeof(path), "/tmp/fuzz_audit_append.XXXXXX");
		fd = mkstemp(path);
		if (fd < 0)
			abort();
		close(fd);
	}
	if (truncate(path, 0) < 0 || !(a = audit_open(path)))
		abort();
	/* One record first: what the input adds must chain to it. */
	if (audit_append(a, first, sizeof(first) - 1) != 0 || stat(path, &before) < 0)
		abort();
	rc = audit_append(a, (const char *)data, size);
	audit_close(a);
	if (stat(path, &after) < 0)
		abort();
	if (rc != 0 && after.st_size != before.st_size) {
		fprintf(stderr, "fuzz_audit_append: a refused record changed the log\n");
		abort();
	}
	f = fopen(path, "r");
	if (!f)
		abort();
	audit_verify_init(&v);
	if (audit_verify_file(&v, f) != AUDIT_VERIFY_INTACT || v.lines != (rc == 0 ? 2u : 1u)) {
		fprintf(stderr, "fuzz_audit_append: %s after %s record: %s\n", "the log is not intact",
			rc == 0 ? "a taken" : "a refused", v.msg);
		abort();
	}
	fclose(f);
	return 0;
}
