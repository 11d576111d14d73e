/*
 * libFuzzer target for the SCRAM client (protocol/scram_client.h), as the
 * runner's TLS shim drives it: the input is split at the first newline
 * into a server-first and a server-final message, answered for password
 * "pencil" after RFC 7677's client-first. Iteration counts above 4096 are
 * parsed but not computed here (the salting would take the fuzzer's time,
 * not test the parser). A salted password for RFC 7677's salt is offered,
 * as airlockd offers one; and the input's first three lines are decoded as
 * the 'P' frame's scram_salt, scram_iterations and scram_key.
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

/* The input's first three lines as the text form of a salted password: what decodes is in range. */
static void salted_text(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *fields[3], *p;
	struct scram_salted s;

	if (!copy)
		return;
	memcpy(copy, data, size);
	copy[size] = '\0';
	p = copy;
	for (int i = 0; i < 3; i++) {
		fields[i] = p;
		p = strchr(p, '\n');
		if (!p) {
			if (i < 2) {
				free(copy);
				return;
			}
			break;
		}
		*p++ = '\0';
	}
	if (scram_salted_decode(fields[0], fields[1], fields[2], &s) == 0 &&
	    (s.salt_len == 0 || s.salt_len > SCRAM_MAX_SALT || s.iterations < 1 ||
	     s.iterations > SCRAM_CLIENT_MAX_ITERATIONS))
		__builtin_trap();
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct scram_salted known;
	static int made;
	struct scram_client c;
	char out[SCRAM_MAX_MSG];
	const uint8_t *nl = memchr(data, '\n', size);
	size_t split = nl ? (size_t)(nl - data) : size, outlen;
	const char *err = NULL;

	if (scram_client_first(&c, "rOprNGfwEbeRWgbNEkqO", out, sizeof(out), &outlen, &err) != 0 ||
	    outlen != strlen(out))
		__builtin_trap();
	salted_text(data, size);
	if (!made)
		made = scram_salted_make("pencil", "W22ZaJ0SNY7soEsUEjb6gQ==", 24, 4096, 4096, &known) == 0 ? 1 : -1;
	if (made < 0)
		__builtin_trap();
	c.known = &known;
	if (iterations_asked(data, split) > 4096)
		return 0;
	if (scram_client_final(&c, "pencil", data, split, out, sizeof(out), &outlen, &err) == 0) {
		if (outlen != strlen(out) || strncmp(out, "c=biws,r=rOprNGfwEbeRWgbNEkqO", 29) != 0)
			__builtin_trap();
		/* The offered key is used exactly when the server's salt and count are its own. */
		if (c.reused != (c.seen.iterations == known.iterations && c.seen.salt_len == known.salt_len &&
				 memcmp(c.seen.salt, known.salt, known.salt_len) == 0))
			__builtin_trap();
	} else if (!err) {
		__builtin_trap();
	}
	err = NULL;
	if (scram_client_verify(&c, nl ? nl + 1 : data, nl ? size - split - 1 : size, &err) != 0 && !err)
		__builtin_trap();
	return 0;
}
