/*
 * test_job_ctl: the proxy's end of a runner's control connection, over a
 * socketpair on a real event loop. Nothing is delivered before reading is
 * resumed; frames split across writes or packed into one arrive whole and
 * in order; a frame the owner keeps (on_frame false) is delivered again by
 * job_ctl_process; pausing inside on_frame stops delivery after that
 * frame; an oversized length or an unknown type ends the stream with
 * on_bad; EOF is on_closed; what the owner writes reaches the runner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "base/frame.h"
#include "proxy/job/job_ctl.h"

struct t {
	struct event_base *base;
	struct job_ctl *c;
	int runner;     /* the runner's end of the socketpair */
	char types[64]; /* types of the frames delivered, in order */
	uint32_t lens[64];
	unsigned n;
	unsigned keep_at;  /* on_frame returns false for frame number keep_at (1-based) */
	unsigned pause_at; /* on_frame pauses at frame number pause_at */
	const char *bad;
	int closed;
};

static bool on_frame(void *arg, const struct frame *f)
{
	struct t *t = arg;

	if (t->keep_at && t->n + 1 == t->keep_at) {
		t->keep_at = 0;
		return false;
	}
	t->types[t->n] = (char)f->type;
	t->lens[t->n] = f->len;
	t->n++;
	if (t->pause_at && t->n == t->pause_at)
		job_ctl_pause(t->c, true);
	return true;
}

static void on_bad(void *arg, const char *reason)
{
	struct t *t = arg;

	t->bad = reason;
}

static void on_closed(void *arg)
{
	struct t *t = arg;

	t->closed++;
}

static const struct job_ctl_events events = {
	.on_frame = on_frame,
	.on_bad = on_bad,
	.on_closed = on_closed,
};

static int setup(void **state)
{
	struct t *t = calloc(1, sizeof(*t));
	int sv[2];

	assert_non_null(t);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	t->base = event_base_new();
	assert_non_null(t->base);
	t->c = job_ctl_new(t->base, sv[0], &events, t);
	assert_non_null(t->c);
	t->runner = sv[1];
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct t *t = *state;

	job_ctl_free(t->c);
	if (t->runner >= 0)
		close(t->runner);
	event_base_free(t->base);
	free(t);
	return 0;
}

/* Lets the loop read what is there. */
static void spin(struct t *t)
{
	for (int i = 0; i < 5; i++)
		event_base_loop(t->base, EVLOOP_NONBLOCK);
}

static size_t put_frame(uint8_t *p, uint8_t type, uint32_t plen)
{
	p[0] = type;
	p[1] = (uint8_t)(plen >> 24);
	p[2] = (uint8_t)(plen >> 16);
	p[3] = (uint8_t)(plen >> 8);
	p[4] = (uint8_t)plen;
	memset(p + FRAME_HEADER_LEN, 'x', plen);
	return FRAME_HEADER_LEN + plen;
}

static void send_all(int fd, const void *p, size_t len)
{
	assert_int_equal(write(fd, p, len), (ssize_t)len);
}

static void test_paused_until_resumed(void **state)
{
	struct t *t = *state;
	uint8_t buf[64];
	size_t n = put_frame(buf, FRAME_ROW, 3);

	send_all(t->runner, buf, n);
	spin(t);
	assert_int_equal(t->n, 0);
	job_ctl_pause(t->c, false);
	assert_int_equal(t->n, 0); /* resuming never calls back from inside */
	spin(t);
	assert_int_equal(t->n, 1);
	assert_int_equal(t->types[0], FRAME_ROW);
	assert_int_equal(t->lens[0], 3);
}

static void test_split_and_packed(void **state)
{
	struct t *t = *state;
	uint8_t buf[256];
	size_t n = 0;

	job_ctl_pause(t->c, false);
	n += put_frame(buf + n, FRAME_ROWDESC, 10);
	n += put_frame(buf + n, FRAME_ROW, 0);
	n += put_frame(buf + n, FRAME_COMPLETE, 7);
	/* A header cut in two, then the rest in one go. */
	send_all(t->runner, buf, 3);
	spin(t);
	assert_int_equal(t->n, 0);
	send_all(t->runner, buf + 3, 9);
	spin(t);
	assert_int_equal(t->n, 0);
	send_all(t->runner, buf + 12, n - 12);
	spin(t);
	assert_int_equal(t->n, 3);
	assert_memory_equal(t->types, "TDC", 3);
	assert_int_equal(t->lens[0], 10);
	assert_int_equal(t->lens[1], 0);
	assert_int_equal(t->lens[2], 7);
	assert_null(t->bad);
}

static void test_keep_and_pause(void **state)
{
	struct t *t = *state;
	uint8_t buf[256];
	size_t n = 0;

	for (int i = 0; i < 4; i++)
		n += put_frame(buf + n, FRAME_ROW, (uint32_t)i);
	t->keep_at = 2;
	job_ctl_pause(t->c, false);
	send_all(t->runner, buf, n);
	spin(t);
	/* The second frame was kept: delivery stopped there until asked again. */
	assert_int_equal(t->n, 1);
	t->pause_at = 2;
	job_ctl_process(t->c);
	assert_int_equal(t->n, 2);
	assert_int_equal(t->lens[1], 1);
	spin(t);
	assert_int_equal(t->n, 2);
	job_ctl_pause(t->c, false);
	job_ctl_process(t->c);
	assert_int_equal(t->n, 4);
	assert_int_equal(t->lens[3], 3);
}

static void test_oversized(void **state)
{
	struct t *t = *state;
	uint8_t hdr[FRAME_HEADER_LEN];
	uint32_t plen = FRAME_MAX_PAYLOAD + 1;

	hdr[0] = FRAME_ROW;
	hdr[1] = (uint8_t)(plen >> 24);
	hdr[2] = (uint8_t)(plen >> 16);
	hdr[3] = (uint8_t)(plen >> 8);
	hdr[4] = (uint8_t)plen;
	job_ctl_pause(t->c, false);
	send_all(t->runner, hdr, sizeof(hdr));
	spin(t);
	assert_non_null(t->bad);
	assert_non_null(strstr(t->bad, "oversized"));
	assert_int_equal(t->n, 0);
}

static void test_unknown_type(void **state)
{
	struct t *t = *state;
	uint8_t buf[64];
	size_t n = put_frame(buf, '?', 2);

	job_ctl_pause(t->c, false);
	send_all(t->runner, buf, n);
	spin(t);
	assert_non_null(t->bad);
	assert_non_null(strstr(t->bad, "malformed"));
	assert_int_equal(t->n, 0);
}

static void test_eof_and_write(void **state)
{
	struct t *t = *state;
	char got[8] = {0};

	job_ctl_write(t->c, "hello", 5);
	spin(t);
	assert_int_equal(read(t->runner, got, sizeof(got)), 5);
	assert_string_equal(got, "hello");
	job_ctl_pause(t->c, false);
	close(t->runner);
	t->runner = -1;
	spin(t);
	assert_int_equal(t->closed, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_paused_until_resumed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_and_packed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keep_and_pause, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eof_and_write, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
