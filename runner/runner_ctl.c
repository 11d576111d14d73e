/*
 * runner_ctl: the control socket of airlock-runner (see runner_ctl.h).
 * Writes are blocking full-buffer loops, so a slow proxy slows the runner
 * down instead of making it buffer; reads during a statement never block.
 */
#include "runner/runner_ctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/errors.h"

int runner_ctl_connect(struct runner_ctl *c, const char *path)
{
	struct sockaddr_un sa;
	size_t plen = strlen(path);

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	wbuf_init(&c->out);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (plen == 0 || plen >= sizeof(sa.sun_path)) {
		fprintf(stderr, "airlock-runner: control socket path too long\n");
		return -1;
	}
	memcpy(sa.sun_path, path, plen);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		perror("airlock-runner: socket");
		return -1;
	}
	while (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		if (errno == EINTR)
			continue;
		perror("airlock-runner: connect to control socket");
		close(c->fd);
		c->fd = -1;
		return -1;
	}
	return 0;
}

void runner_ctl_close(struct runner_ctl *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	wbuf_free(&c->out);
}

/* Blocking read of exactly n bytes; -1 on EOF or error. */
static int read_full(int fd, uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

int runner_ctl_read_job(struct runner_ctl *c, uint8_t **buf, struct frame *f)
{
	uint8_t hdr[FRAME_HEADER_LEN];
	size_t total = 0;
	uint8_t *b;
	enum frame_status st;

	*buf = NULL;
	if (read_full(c->fd, hdr, sizeof(hdr)) < 0) {
		fprintf(stderr, "airlock-runner: no job on the control socket\n");
		return -1;
	}
	st = frame_peek(hdr, sizeof(hdr), FRAME_MAX_PAYLOAD, f, &total);
	if (st == FRAME_ERR || (hdr[0] != FRAME_JOB && hdr[0] != FRAME_CONNECT) || total < sizeof(hdr)) {
		fprintf(stderr, "airlock-runner: bad job frame header\n");
		return -1;
	}
	b = malloc(total);
	if (!b) {
		fprintf(stderr, "airlock-runner: out of memory\n");
		return -1;
	}
	memcpy(b, hdr, sizeof(hdr));
	if (read_full(c->fd, b + sizeof(hdr), total - sizeof(hdr)) < 0) {
		fprintf(stderr, "airlock-runner: short job frame\n");
		goto out_free;
	}
	if (frame_peek(b, total, FRAME_MAX_PAYLOAD, f, NULL) != FRAME_OK)
		goto out_free;
	*buf = b;
	return 0;
out_free:
	free(b);
	return -1;
}

enum runner_ctl_event runner_ctl_on_readable(struct runner_ctl *c)
{
	struct frame f;
	size_t used;
	enum frame_status st;

	for (;;) {
		ssize_t r = recv(c->fd, c->in + c->in_len, sizeof(c->in) - c->in_len, MSG_DONTWAIT);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return RUNNER_CTL_NOTHING;
		if (r <= 0)
			return RUNNER_CTL_GONE;
		c->in_len += (size_t)r;
		break;
	}
	/* Only an empty cancel frame may arrive once the job is running. */
	st = frame_peek(c->in, c->in_len, 0, &f, &used);
	if (st == FRAME_ERR)
		return RUNNER_CTL_GONE;
	if (st == FRAME_NEED_MORE)
		return c->in_len < sizeof(c->in) ? RUNNER_CTL_NOTHING : RUNNER_CTL_GONE;
	if (frame_check_cancel(&f) != FRAME_OK)
		return RUNNER_CTL_GONE;
	memmove(c->in, c->in + used, c->in_len - used);
	c->in_len -= used;
	return RUNNER_CTL_CANCEL;
}

int runner_ctl_flush(struct runner_ctl *c)
{
	size_t off = 0;

	if (c->broken || c->out.failed) {
		c->broken = true;
		return -1;
	}
	while (off < c->out.len) {
		ssize_t w = send(c->fd, c->out.data + off, c->out.len - off, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			c->broken = true;
			return -1;
		}
		off += (size_t)w;
	}
	wbuf_reset(&c->out);
	return 0;
}

int runner_ctl_commit(struct runner_ctl *c)
{
	frame_end(&c->out);
	if (c->out.failed) {
		c->broken = true;
		return -1;
	}
	if (c->out.len >= RUNNER_CTL_FLUSH_AT)
		return runner_ctl_flush(c);
	return c->broken ? -1 : 0;
}

/* Puts s cut to RUNNER_CTL_MAX_TEXT bytes, never inside a UTF-8 sequence. */
static void put_text(struct wbuf *b, const char *s)
{
	size_t n;

	if (!s)
		s = "";
	n = strlen(s);
	if (n > RUNNER_CTL_MAX_TEXT) {
		n = RUNNER_CTL_MAX_TEXT;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	frame_put_str(b, s, n);
}

int runner_ctl_error(struct runner_ctl *c, uint8_t type, const char *sqlstate, const char *code, const char *message,
		     const char *detail, const char *hint)
{
	/* The frame format requires five characters; anything else is internal. */
	if (!sqlstate || strlen(sqlstate) != 5)
		sqlstate = airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_INTERNAL_ERROR);
	frame_begin(&c->out, type);
	frame_put_str(&c->out, sqlstate, 5);
	put_text(&c->out, code);
	put_text(&c->out, message);
	put_text(&c->out, detail);
	put_text(&c->out, hint);
	return runner_ctl_commit(c);
}

int runner_ctl_error_at(struct runner_ctl *c, const char *sqlstate, const char *message, const char *detail,
			const char *hint, const char *position)
{
	if (!sqlstate || strlen(sqlstate) != 5)
		sqlstate = airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_INTERNAL_ERROR);
	frame_begin(&c->out, FRAME_ERROR);
	frame_put_str(&c->out, sqlstate, 5);
	put_text(&c->out, "");
	put_text(&c->out, message);
	put_text(&c->out, detail);
	put_text(&c->out, hint);
	put_text(&c->out, position && strspn(position, "0123456789") == strlen(position) && strlen(position) <= 9
				  ? position
				  : "");
	return runner_ctl_commit(c);
}

int runner_ctl_error_my(struct runner_ctl *c, uint8_t type, const char *sqlstate, const char *code, unsigned my_errno,
			const char *message, const char *hint)
{
	char num[16];

	if (!sqlstate || strlen(sqlstate) != 5)
		sqlstate = airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_ERROR);
	if (my_errno == 0 || my_errno > 65535)
		my_errno = airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_ERROR);
	snprintf(num, sizeof(num), "%u", my_errno);
	frame_begin(&c->out, type);
	frame_put_str(&c->out, sqlstate, 5);
	put_text(&c->out, code);
	put_text(&c->out, message);
	put_text(&c->out, "");
	put_text(&c->out, hint);
	put_text(&c->out, "");
	put_text(&c->out, num);
	return runner_ctl_commit(c);
}

int runner_ctl_backend(struct runner_ctl *c, uint32_t pid, const char *salt_b64, uint32_t iterations)
{
	frame_begin(&c->out, FRAME_BACKEND);
	frame_put_u32(&c->out, pid);
	if (salt_b64) {
		put_text(&c->out, salt_b64);
		frame_put_u32(&c->out, iterations);
	}
	return runner_ctl_commit(c);
}

int runner_ctl_complete(struct runner_ctl *c, uint64_t rows, enum frame_trunc trunc, const char *tag)
{
	frame_begin(&c->out, FRAME_COMPLETE);
	frame_put_u64(&c->out, rows);
	frame_put_u8(&c->out, (uint8_t)trunc);
	put_text(&c->out, tag);
	return runner_ctl_commit(c);
}

int runner_ctl_complete_my(struct runner_ctl *c, uint64_t rows, enum frame_trunc trunc, const char *tag,
			   unsigned warnings)
{
	frame_begin(&c->out, FRAME_COMPLETE);
	frame_put_u64(&c->out, rows);
	frame_put_u8(&c->out, (uint8_t)trunc);
	put_text(&c->out, tag);
	frame_put_u16(&c->out, warnings > 65535 ? 65535 : (uint16_t)warnings);
	return runner_ctl_commit(c);
}
