/*
 * libFuzzer target for the SCRAM client (protocol/scram_client.h), as the
 * runner's TLS shim drives it: the input is split at the first newline
 * into a server-first and a server-final message, answered for password
 * "pencil" after RFC 7677's client-first. Iteration counts above 4096 are
 * parsed but not computed here (the salting would take the fuzzer's time,
 * not test the parser).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/scram_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The value of the first "i=" in [data, data + size), or 0. */
static long iterations_asked(const uint8_t *data, size_t size)
{
	for (size_t k = 0; k + 2 < size; k++) {
		if (data[k] == 'i' && data[k + 1] == '=') {
			long v = 0;

			for (k += 2; k < size && data[k] >= '0' && data[k] <= '9' && v < 100000000; k++)
				v = v * 10 + (data[k] - '0');
			return v;
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scram_client c;
	char out[SCRAM_MAX_MSG];
	const uint8_t *nl = memchr(data, '\n', size);
	size_t split = nl ? (size_t)(nl - data) : size, outlen;
	const char *err = NULL;

	if (scram_client_first(&c, "rOprNGfwEbeRWgbNEkqO", out, sizeof(out), &outlen, &err) != 0 ||
	    outlen != strlen(out))
		__builtin_trap();
	if (iterations_asked(data, split) > 4096)
		return 0;
	if (scram_client_final(&c, "pencil", data, split, out, sizeof(out), &outlen, &err) == 0) {
		if (outlen != strlen(out) || strncmp(out, "c=biws,r=rOprNGfwEbeRWgbNEkqO", 29) != 0)
			__builtin_trap();
	} else if (!err) {
		__builtin_trap();
	}
	err = NULL;
	if (scram_client_verify(&c, nl ? nl + 1 : data, nl ? size - split - 1 : size, &err) != 0 && !err)
		__builtin_trap();
	return 0;
}
