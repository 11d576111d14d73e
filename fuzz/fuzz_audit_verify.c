/*
 * fuzz_audit_verify: libFuzzer target for the audit log's verifier: any
 * bytes as a log file must be judged intact or broken at a named line,
 * never crash, read out of bounds or leak. A log judged intact has one
 * record per newline and ends with one.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/audit_verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct audit_verify v;
	enum audit_verify_result r;
	uint64_t newlines = 0;
	char *copy;
	FILE *f;

	if (size == 0)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	f = fmemopen(copy, size, "r");
	if (!f) {
		free(copy);
		return 0;
	}
	audit_verify_init(&v);
	r = audit_verify_file(&v, f);
	fclose(f);
	for (size_t i = 0; i < size; i++)
		newlines += data[i] == '\n';
	if (r == AUDIT_VERIFY_INTACT && (v.lines != newlines || data[size - 1] != '\n')) {
		fprintf(stderr, "fuzz_audit_verify: intact with %llu records for %llu lines\n",
			(unsigned long long)v.lines, (unsigned long long)newlines);
		abort();
	}
	if (r == AUDIT_VERIFY_BROKEN && (!isdigit((unsigned char)v.msg[0]) || !strchr(v.msg, ':'))) {
		fprintf(stderr, "fuzz_audit_verify: a break that names no line: %s\n", v.msg);
		abort();
	}
	free(copy);
	return 0;
}
