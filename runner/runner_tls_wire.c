/*
 * runner_tls_wire: the pure parts of the TLS shim (runner_tls_wire.h).
 */
#define _GNU_SOURCE
#include "runner/runner_tls_wire.h"

#include <string.h>

size_t tls_wire_pg_drop_plus(uint8_t *payload, size_t len)
{
	static const char plus[] = "SCRAM-SHA-256-PLUS";
	size_t in = 4, out = 4;

	if (len < 4)
		return len;
	/* Each name ends in a NUL; an empty name ends the list. */
	while (in < len && payload[in]) {
		size_t n = strnlen((const char *)payload + in, len - in);

		if (in + n >= len)
			break;
		if (!(n == sizeof(plus) - 1 && memcmp(payload + in, plus, n) == 0)) {
			memmove(payload + out, payload + in, n + 1);
			out += n + 1;
		}
		in += n + 1;
	}
	if (out < len)
		payload[out++] = '\0';
	return out;
}

bool tls_wire_pg_offers_scram(const uint8_t *payload, size_t len)
{
	static const char scram[] = "SCRAM-SHA-256";
	size_t in = 4;
	bool offered = false;

	if (len < 5)
		return false;
	while (in < len && payload[in]) {
		size_t n = strnlen((const char *)payload + in, len - in);

		if (in + n >= len)
			return false; /* a name without its NUL */
		offered |= n == sizeof(scram) - 1 && memcmp(payload + in, scram, n) == 0;
		in += n + 1;
	}
	return offered && in < len; /* the empty name that ends the list */
}

int tls_wire_my_caps_at(const uint8_t *payload, size_t len, size_t *off)
{
	const uint8_t *nul;
	size_t at;

	if (len < 2 || payload[0] != 10)
		return -1;
	nul = memchr(payload + 1, 0, len - 1);
	if (!nul)
		return -1;
	/* After the version's NUL: thread id (4), scramble (8), filler (1). */
	at = (size_t)(nul - payload) + 1 + 4 + 8 + 1;
	if (at + 2 > len)
		return -1;
	*off = at;
	return 0;
}
