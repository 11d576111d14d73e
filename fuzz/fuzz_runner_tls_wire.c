/*
 * fuzz_runner_tls_wire: libFuzzer target for what the runner's TLS shim
 * reads of a database's first messages (runner/runner_tls_wire.h): the
 * input as an AuthenticationSASL body and as a MariaDB greeting, each in
 * an exact-size heap copy (a read or write past its end is an ASan
 * error). The SASL body never grows, keeps no SCRAM-SHA-256-PLUS name and
 * is stable when done again; a greeting's capabilities lie inside it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/runner_tls_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy, *again;
	size_t len, len2, off;

	if (size > 1 << 16)
		return 0;
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	/* Offered before the PLUS variant goes is offered after. */
	if (tls_wire_pg_offers_scram(copy, size) && !tls_wire_pg_offers_scram(copy, tls_wire_pg_drop_plus(copy, size)))
		abort();
	memcpy(copy, data, size);
	len = tls_wire_pg_drop_plus(copy, size);
	if (len > size)
		abort();
	for (size_t at = 4; at + 19 <= len; at++)
		if ((at == 4 || copy[at - 1] == '\0') && memcmp(copy + at, "SCRAM-SHA-256-PLUS\0", 19) == 0)
			abort();
	again = malloc(len ? len : 1);
	if (!again)
		abort();
	memcpy(again, copy, len);
	len2 = tls_wire_pg_drop_plus(again, len);
	if (len2 > len || (len >= 4 && len2 == len && memcmp(again, copy, len) != 0))
		abort();
	free(again);
	memcpy(copy, data, size);
	if (tls_wire_my_caps_at(copy, size, &off) == 0 && off + 2 > size)
		abort();
	free(copy);
	return 0;
}
