/*
 * airlock-validator: the sandboxed worker that parses, validates, scopes
 * and deparses agent text for airlockd (the rule of two: airlockd holds
 * the sessions, the backend passwords and the TLS key, so the large C
 * parser that reads what an attacker wrote runs here, where a bug costs
 * one statement).
 *
 * airlockd starts a few of these (proxy/validator_pool.c) as an
 * unprivileged uid of their own, with no descriptor but the channel on
 * VW_CHANNEL_FD and an empty environment:
 *
 *   airlock-validator MEMORY_MB CPU_SECONDS
 *
 * The worker warms the validators up, enters its sandbox
 * (vw_sandbox.h), then answers requests (vw_codec.h) one at a time until
 * the channel closes. Anything unexpected ends the process: airlockd
 * fails the statement in flight and starts another worker.
 */
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/wbuf.h"
#include "validator/channel/vw_codec.h"
#include "validator/vw_sandbox.h"
#include "validator/vw_serve.h"

/* Reads exactly n bytes; 1 done, 0 the channel closed before the first byte, -1 anything else. */
static int read_all(uint8_t *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(VW_CHANNEL_FD, p + got, n - got);

		if (r > 0)
			got += (size_t)r;
		else if (r == 0)
			return got == 0 ? 0 : -1;
		else if (errno != EINTR)
			return -1;
	}
	return 1;
}

static int write_all(const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t r = write(VW_CHANNEL_FD, p, n);

		if (r > 0) {
			p += r;
			n -= (size_t)r;
		} else if (r < 0 && errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

static uint32_t arg(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	return *end || v > UINT32_MAX ? 0 : (uint32_t)v;
}

/*
 * After some answers the next request follows at once (a read's
 * validation, then its scoping): for VW_SPIN_US the worker looks for it
 * without sleeping, since waking a sleeping process on an idle CPU costs
 * more than most requests take. After the others the next request waits
 * for the next statement, and looking would only burn a CPU that
 * airlockd and the clients need.
 */
#define VW_SPIN_US 100

static void spin_for_request(void)
{
	struct pollfd pfd = {.fd = VW_CHANNEL_FD, .events = POLLIN};
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (poll(&pfd, 1, 0) != 0)
			return;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < VW_SPIN_US * 1000L);
}

/* Answers requests until the channel closes. */
static int serve(struct vw_cache *cache)
{
	struct wbuf w;
	uint8_t head[4];
	int rc;
	bool follows = false;

	wbuf_init(&w);
	for (;;) {
		uint32_t len;
		uint8_t *body;
		bool ok;

		if (follows)
			spin_for_request();
		follows = false;
		rc = read_all(head, sizeof(head));
		if (rc <= 0)
			break;
		len = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
		if (len > VW_MAX_BODY) {
			rc = -1;
			break;
		}
		body = malloc(len ? len : 1);
		if (!body || read_all(body, len) != 1) {
			free(body);
			rc = -1;
			break;
		}
		wbuf_reset(&w);
		ok = vw_serve_body(cache, body, len, &w, &follows);
		free(body);
		if (!ok || write_all(w.data, w.len) < 0) {
			rc = -1;
			break;
		}
	}
	wbuf_free(&w);
	return rc;
}

/* The answers kept (vw_cache.h): 16 MB, or an eighth of the worker's memory cap when that is less. */
static size_t cache_bytes(uint32_t memory_mb)
{
	size_t cap = (size_t)16 << 20;

	return memory_mb && ((size_t)memory_mb << 20) / 8 < cap ? ((size_t)memory_mb << 20) / 8 : cap;
}

int main(int argc, char **argv)
{
	struct vw_limits lim = {0};
	char err[256];
	size_t seed = 0;

	if (argc != 3)
		_exit(2);
	lim.memory_mb = arg(argv[1]);
	lim.cpu_seconds = arg(argv[2]);
	/* What reads a file or the clock on first use does so now, before the filter forbids it. */
	if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
		_exit(2);
	json_object_seed(seed | 1);
	vw_serve_warm_up();
	if (vw_sandbox_enter(&lim, err, sizeof(err)) < 0) {
		/* Nothing to write to: airlockd sees the channel close at once and says so. */
		_exit(3);
	}
	/* _exit: no exit handler runs (a sanitizer's leak check would need system calls the filter forbids). */
	_exit(serve(vw_cache_new(cache_bytes(lim.memory_mb))) < 0 ? 1 : 0);
}
