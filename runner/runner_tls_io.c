/*
 * runner_tls_io: the shim's blocking steps (runner_tls_int.h): each with a
 * deadline, on nonblocking sockets; and the TLS handshake with the checks
 * of the target's mode.
 */
#define _GNU_SOURCE
#include "runner/runner_tls_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "base/fd_pass.h"
#include "base/frame.h"

int64_t tls_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Keeps why the connection failed: what, then ": detail" when there is one. */
void tls_set_failure(struct runner_tls *t, const char *what, const char *detail)
{
	pthread_mutex_lock(&t->lock);
	snprintf(t->failure, sizeof(t->failure), "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
	pthread_mutex_unlock(&t->lock);
}

/* Waits until fd has ev, or the deadline: 0, or -1. */
int tls_wait_fd(int fd, short ev, int64_t deadline)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = ev};
		int64_t left = deadline - tls_now_ms();
		int n;

		if (left <= 0)
			return -1;
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return p.revents & (POLLERR | POLLNVAL) && !(p.revents & ev) ? -1 : 0;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

int tls_take_socket(int fd, int64_t deadline)
{
	char byte = 0;
	int got, type = 0;
	socklen_t len = sizeof(type);

	do {
		if (tls_wait_fd(fd, POLLIN, deadline) < 0)
			return -1;
		got = fd_pass_recv(fd, &byte, MSG_DONTWAIT);
	} while (got < 0 && (errno == EAGAIN || errno == EINTR));
	/* Its byte, and a stream socket: anything else is not airlockd's hand-over. */
	if (got >= 0 && (byte != FRAME_RELAY_HANDED || getsockopt(got, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
			 type != SOCK_STREAM || fcntl(got, F_SETFL, fcntl(got, F_GETFL) | O_NONBLOCK) < 0)) {
		close(got);
		got = -1;
	}
	return got;
}

int tls_write_all(int fd, const uint8_t *p, size_t n, int64_t deadline)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w > 0) {
			p += w;
			n -= (size_t)w;
		} else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (tls_wait_fd(fd, POLLOUT, deadline) < 0)
				return -1;
		} else {
			return -1;
		}
	}
	return 0;
}

/* Reads exactly n bytes, never more (what follows may be TLS). */
int tls_read_all(int fd, uint8_t *p, size_t n, int64_t deadline)
{
	while (n) {
		ssize_t r = recv(fd, p, n, 0);

		if (r > 0) {
			p += r;
			n -= (size_t)r;
		} else if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (tls_wait_fd(fd, POLLIN, deadline) < 0)
				return -1;
		} else {
			return -1;
		}
	}
	return 0;
}

/* After an SSL call returned ret: waits for what it wants. 0 to call again, -1 on failure. */
int tls_ssl_wait(struct conn *c, int ret, int64_t deadline)
{
	switch (SSL_get_error(c->ssl, ret)) {
	case SSL_ERROR_WANT_READ:
		return tls_wait_fd(c->relay, POLLIN, deadline);
	case SSL_ERROR_WANT_WRITE:
		return tls_wait_fd(c->relay, POLLOUT, deadline);
	default:
		return -1;
	}
}

int tls_ssl_write_all(struct conn *c, const uint8_t *p, size_t n, int64_t deadline)
{
	while (n) {
		int w = SSL_write(c->ssl, p, (int)n);

		if (w > 0) {
			p += w;
			n -= (size_t)w;
		} else if (tls_ssl_wait(c, w, deadline) < 0) {
			return -1;
		}
	}
	return 0;
}

int tls_ssl_read_all(struct conn *c, uint8_t *p, size_t n, int64_t deadline)
{
	while (n) {
		int r = SSL_read(c->ssl, p, (int)n);

		if (r > 0) {
			p += r;
			n -= (size_t)r;
		} else if (tls_ssl_wait(c, r, deadline) < 0) {
			return -1;
		}
	}
	return 0;
}

/* The TLS handshake on c->relay, with the checks of the target's mode. 0, or -1 with the failure set. */
int tls_handshake(struct runner_tls *t, struct conn *c, int64_t deadline)
{
	long verify;
	unsigned long err;
	int r;

	c->ssl = SSL_new(t->ctx);
	if (!c->ssl || SSL_set_fd(c->ssl, c->relay) != 1) {
		tls_set_failure(t, "TLS could not be set up (out of memory)", NULL);
		return -1;
	}
	if (!t->host_ip && SSL_set_tlsext_host_name(c->ssl, t->host) != 1) {
		tls_set_failure(t, "TLS could not be set up for host", t->host);
		return -1;
	}
	if (t->full) {
		SSL_set_hostflags(c->ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
		if ((t->host_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl), t->host)
				: SSL_set1_host(c->ssl, t->host)) != 1) {
			tls_set_failure(t, "TLS could not be set up to check the name", t->host);
			return -1;
		}
	}
	while ((r = SSL_connect(c->ssl)) != 1) {
		if (r < 0 && tls_ssl_wait(c, r, deadline) == 0)
			continue;
		verify = SSL_get_verify_result(c->ssl);
		err = ERR_peek_last_error();
		if (verify != X509_V_OK)
			tls_set_failure(t, "the database's certificate failed its check",
					X509_verify_cert_error_string(verify));
		else if (err)
			tls_set_failure(t, "the TLS handshake with the database failed", ERR_reason_error_string(err));
		else
			tls_set_failure(t, "the TLS handshake with the database failed",
					tls_now_ms() >= deadline ? "timed out" : "the connection was closed");
		ERR_clear_error();
		return -1;
	}
	return 0;
}
