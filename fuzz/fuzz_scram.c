/*
 * libFuzzer target for the SCRAM server: the input is split into a
 * client-first and a client-final message, both fed to a server holding a
 * fixed verifier. The final message is also tried after a well-formed
 * first step, so the final parser is reached whatever the first part is.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "protocol/scram.h"

/* The verifier of password "pencil" with RFC 7677's salt and 4096 iterations. */
static const char fuzz_verifier[] = "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$"
				    "WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY=:"
				    "wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU=";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char good_first[] = "n,,n=,r=rOprNGfwEbeRWgbNEkqO";
	static struct scram_verifier v;
	static int loaded;
	struct scram_state st;
	char out[SCRAM_MAX_MSG];
	size_t outlen, split;
	const char *err;
	const uint8_t *nl;

	if (!loaded) {
		if (scram_parse_verifier(fuzz_verifier, &v) != 0)
			__builtin_trap();
		loaded = 1;
	}
	/* The verifier parser gets the whole input as text too. */
	if (size < 2048) {
		char text[2048];
		struct scram_verifier tmp;

		memcpy(text, data, size);
		text[size] = 0;
		scram_parse_verifier(text, &tmp);
	}

	nl = memchr(data, '\n', size);
	split = nl ? (size_t)(nl - data) : size;
	if (scram_server_first(&st, &v, data, split, "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0", out, sizeof(out), &outlen,
			       &err) == 0) {
		if (outlen != strlen(out))
			__builtin_trap();
		if (nl)
			scram_server_final(&st, nl + 1, size - split - 1, out, sizeof(out), &outlen, &err);
	}
	if (scram_server_first(&st, &v, (const uint8_t *)good_first, strlen(good_first),
			       "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0", out, sizeof(out), &outlen, &err) != 0)
		__builtin_trap();
	if (scram_server_final(&st, nl ? nl + 1 : data, nl ? size - split - 1 : size, out, sizeof(out), &outlen,
			       &err) == 0 &&
	    outlen != strlen(out))
		__builtin_trap();
	return 0;
}
