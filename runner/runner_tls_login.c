/*
 * runner_tls_login: how each engine's connection gets into TLS through
 * the shim (runner_tls.h says what and why): Postgres' SSLRequest and its
 * first exchange after it, MariaDB's SSL request and its renumbered login.
 */
#define _GNU_SOURCE
#include "runner/runner_tls_int.h"
#include "runner/runner_tls_wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "protocol/scram_client.h"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* One whole Postgres message from the server into c->down: its length field (type not counted), or -1. */
static long read_pg_message(struct conn *c, int64_t deadline)
{
	uint8_t *m = c->down;
	size_t mlen;

	if (tls_ssl_read_all(c, m, 5, deadline) < 0 || (mlen = be32(m + 1)) < 4 || mlen > BUF_LEN - 1 ||
	    tls_ssl_read_all(c, m + 5, mlen - 4, deadline) < 0)
		return -1;
	return (long)mlen;
}

/* An authentication request of type code with at least 4 bytes (and data) in c->down. */
static bool is_auth(const struct conn *c, long mlen, uint32_t code)
{
	return c->down[0] == 'R' && mlen >= 8 && be32(c->down + 5) == code;
}

/* Sends 'p' with body (n bytes) after head (hn bytes) over TLS. */
static int send_sasl(struct conn *c, const void *head, size_t hn, const char *body, size_t n, int64_t deadline)
{
	uint8_t *p = c->up;

	if (1 + 4 + hn + n > BUF_LEN)
		return -1;
	p[0] = 'p';
	put_be32(p + 1, (uint32_t)(4 + hn + n));
	memcpy(p + 5, head, hn);
	memcpy(p + 5 + hn, body, n);
	return tls_ssl_write_all(c, p, 1 + 4 + hn + n, deadline);
}

/*
 * SCRAM-SHA-256 done by the shim for libpq (protocol/scram_client.h says
 * why: libpq salts the password three times slower): the library gets the
 * server's AuthenticationOk, or its ErrorResponse, as the answer to its
 * startup packet, and what follows goes through pump. The server's
 * signature is checked before anything reaches the library. 0, or -1
 * with the failure kept.
 */
static int pg_scram(struct runner_tls *t, struct conn *c, int64_t deadline)
{
	uint8_t raw[18], head[4 + 14];
	char nonce[32], msg[SCRAM_MAX_MSG];
	struct scram_client sc;
	const char *err = NULL;
	size_t n;
	long mlen;
	int rc = -1;

	if (RAND_bytes(raw, sizeof(raw)) != 1 || EVP_EncodeBlock((unsigned char *)nonce, raw, sizeof(raw)) != 24 ||
	    scram_client_first(&sc, nonce, msg, sizeof(msg), &n, &err) < 0) {
		tls_set_failure(t, "the login could not be started", err);
		return -1;
	}
	sc.known = t->have_known ? &t->known : NULL;
	memcpy(head, "SCRAM-SHA-256", 14);
	put_be32(head + 14, (uint32_t)n);
	if (send_sasl(c, head, sizeof(head), msg, n, deadline) < 0 || (mlen = read_pg_message(c, deadline)) < 0)
		goto out_closed;
	if (c->down[0] == 'E')
		goto out_pass;
	if (!is_auth(c, mlen, PG_AUTH_SASL_CONTINUE) ||
	    scram_client_final(&sc, t->password, c->down + 9, (size_t)mlen - 8, msg, sizeof(msg), &n, &err) < 0) {
		tls_set_failure(t, "the database's SCRAM challenge was refused", err);
		goto out;
	}
	if (send_sasl(c, "", 0, msg, n, deadline) < 0 || (mlen = read_pg_message(c, deadline)) < 0)
		goto out_closed;
	if (c->down[0] == 'E')
		goto out_pass;
	if (!is_auth(c, mlen, PG_AUTH_SASL_FINAL) ||
	    scram_client_verify(&sc, c->down + 9, (size_t)mlen - 8, &err) < 0) {
		tls_set_failure(t, "the database did not prove it knows the password", err);
		goto out;
	}
	pthread_mutex_lock(&t->lock);
	t->seen = sc.seen;
	t->have_seen = true;
	pthread_mutex_unlock(&t->lock);
	if ((mlen = read_pg_message(c, deadline)) < 0)
		goto out_closed;
	if (c->down[0] != 'E' && !is_auth(c, mlen, PG_AUTH_OK)) {
		tls_set_failure(t, "the database answered the login with something else", NULL);
		goto out;
	}
out_pass:
	if (tls_write_all(c->plain, c->down, 1 + (size_t)mlen, deadline) < 0) {
		tls_set_failure(t, "the client library closed the connection", NULL);
		goto out;
	}
	rc = 0;
	goto out;
out_closed:
	tls_set_failure(t, "the database closed the connection during the login over TLS", NULL);
out:
	OPENSSL_cleanse(&sc, sizeof(sc));
	OPENSSL_cleanse(msg, sizeof(msg));
	return rc;
}

/*
 * After the handshake: the library's first packet (its startup packet, or
 * a cancel request) goes over as it is. When the server answers a startup
 * packet with SCRAM-SHA-256 and the shim has the password, the shim logs
 * in (pg_scram). Otherwise the answer has SCRAM-SHA-256-PLUS dropped
 * (tls_wire_pg_drop_plus): libpq, seeing no TLS of its own, refuses a
 * server that offers channel binding. The rest goes through pump
 * untouched.
 */
static int pg_first_exchange(struct runner_tls *t, struct conn *c, int64_t deadline)
{
	uint8_t *p = c->up, *m = c->down;
	size_t len, mlen;
	long ml;

	if (tls_read_all(c->plain, p, 4, deadline) < 0 || (len = be32(p)) < 8 || len > BUF_LEN ||
	    tls_read_all(c->plain, p + 4, len - 4, deadline) < 0 || tls_ssl_write_all(c, p, len, deadline) < 0) {
		tls_set_failure(t, "the connection closed before the login over TLS", NULL);
		return -1;
	}
	if (be32(p + 4) == PG_CANCEL_REQUEST)
		return 0;
	if ((ml = read_pg_message(c, deadline)) < 0) {
		tls_set_failure(t, "the database closed the connection during the login over TLS", NULL);
		return -1;
	}
	mlen = (size_t)ml;
	if (t->password && is_auth(c, ml, PG_AUTH_SASL) && tls_wire_pg_offers_scram(m + 5, mlen - 4))
		return pg_scram(t, c, deadline);
	if (is_auth(c, ml, PG_AUTH_SASL)) {
		mlen = 4 + tls_wire_pg_drop_plus(m + 5, mlen - 4);
		put_be32(m + 1, (uint32_t)mlen);
	}
	if (tls_write_all(c->plain, m, 1 + mlen, deadline) < 0) {
		tls_set_failure(t, "the client library closed the connection", NULL);
		return -1;
	}
	return 0;
}

int tls_pg_negotiate(struct runner_tls *t, struct conn *c, int64_t deadline)
{
	uint8_t req[8] = {0, 0, 0, 8};
	uint8_t answer;
	uint32_t code = htonl(PG_SSL_REQUEST);

	memcpy(req + 4, &code, 4);
	if (tls_write_all(c->relay, req, sizeof(req), deadline) < 0 ||
	    tls_read_all(c->relay, &answer, 1, deadline) < 0) {
		tls_set_failure(t, "the database closed the connection before TLS", NULL);
		return -1;
	}
	if (answer != 'S') {
		tls_set_failure(t,
				answer == 'N' ? "the database does not offer TLS"
					      : "the database answered the TLS request with something else",
				NULL);
		return -1;
	}
	return tls_handshake(t, c, deadline) < 0 ? -1 : pg_first_exchange(t, c, deadline);
}

/* A MySQL packet's payload length. */
static size_t my_len(const uint8_t *h)
{
	return (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16;
}

/* Reads one whole MySQL packet from a plain socket into buf (BUF_LEN): its payload length, or -1. */
static long read_my_packet(int fd, uint8_t *buf, int64_t deadline)
{
	size_t len;

	if (tls_read_all(fd, buf, MY_HEADER, deadline) < 0)
		return -1;
	len = my_len(buf);
	if (len > BUF_LEN - MY_HEADER || tls_read_all(fd, buf + MY_HEADER, len, deadline) < 0)
		return -1;
	return (long)len;
}

/*
 * The login after the TLS handshake: packets are read whole on both
 * sides, renumbered (one more toward the server) and passed on, until the
 * server's OK (0x00) or ERR (0xff). Neither side's packet is waited for
 * alone: after a server packet either side may speak next.
 */
static int my_login(struct runner_tls *t, struct conn *c, int64_t deadline)
{
	size_t have_s = 0, have_c = 0;

	for (;;) {
		struct pollfd p[2] = {{.fd = c->relay, .events = POLLIN}, {.fd = c->plain, .events = POLLIN}};
		size_t need_s = have_s < MY_HEADER ? MY_HEADER : MY_HEADER + my_len(c->down);
		size_t need_c = have_c < MY_HEADER ? MY_HEADER : MY_HEADER + my_len(c->up);
		bool progress = false;
		int64_t left;
		ssize_t r;
		int n;

		if (need_s > BUF_LEN || need_c > BUF_LEN)
			goto out_bad;
		n = have_s < need_s ? SSL_read(c->ssl, c->down + have_s, (int)(need_s - have_s)) : 0;
		if (n > 0) {
			have_s += (size_t)n;
			progress = true;
		} else if (have_s < need_s && SSL_get_error(c->ssl, n) == SSL_ERROR_WANT_WRITE) {
			p[0].events = POLLOUT;
		} else if (have_s < need_s && SSL_get_error(c->ssl, n) != SSL_ERROR_WANT_READ) {
			goto out_closed;
		}
		if (have_s >= MY_HEADER && have_s == MY_HEADER + my_len(c->down)) {
			uint8_t first = have_s > MY_HEADER ? c->down[MY_HEADER] : 0xff;

			if (c->down[3] == 0)
				goto out_bad;
			c->down[3]--;
			if (tls_write_all(c->plain, c->down, have_s, deadline) < 0)
				goto out_closed;
			have_s = 0;
			if (first == 0x00 || first == 0xff)
				return 0;
		}
		need_c = have_c < MY_HEADER ? MY_HEADER : MY_HEADER + my_len(c->up);
		r = have_c < need_c ? recv(c->plain, c->up + have_c, need_c - have_c, 0) : -1;
		if (r > 0) {
			have_c += (size_t)r;
			progress = true;
		} else if (have_c < need_c && (r == 0 || (errno != EAGAIN && errno != EINTR))) {
			goto out_closed;
		}
		if (need_c > BUF_LEN)
			goto out_bad;
		if (have_c >= MY_HEADER && have_c == MY_HEADER + my_len(c->up)) {
			c->up[3]++;
			if (tls_ssl_write_all(c, c->up, have_c, deadline) < 0)
				goto out_closed;
			have_c = 0;
		}
		if (progress)
			continue;
		left = deadline - tls_now_ms();
		if (left <= 0)
			goto out_closed;
		if (poll(p, 2, (int)left) < 0 && errno != EINTR)
			goto out_closed;
	}
out_bad:
	tls_set_failure(t, "the database's login over TLS went wrong (a packet out of bounds or order)", NULL);
	return -1;
out_closed:
	tls_set_failure(t, "the connection closed or timed out during the login over TLS", NULL);
	return -1;
}

int tls_my_negotiate(struct runner_tls *t, struct conn *c, int64_t deadline)
{
	uint8_t *g = c->down, *resp = c->up, req[MY_HEADER + 32];
	long glen, rlen;
	size_t off;
	uint32_t caps;

	glen = read_my_packet(c->relay, g, deadline);
	if (glen < 1) {
		tls_set_failure(t, "the database closed the connection before its greeting", NULL);
		return -1;
	}
	/* The server refused the connection (too many, host blocked): the library shows its error. */
	if (g[MY_HEADER] == 0xff) {
		tls_write_all(c->plain, g, MY_HEADER + (size_t)glen, deadline);
		return -1;
	}
	if (tls_wire_my_caps_at(g + MY_HEADER, (size_t)glen, &off) < 0) {
		tls_set_failure(t, "the database's greeting is not one of protocol 10", NULL);
		return -1;
	}
	off += MY_HEADER;
	if (!((g[off] | (unsigned)g[off + 1] << 8) & TLS_WIRE_MY_CLIENT_SSL)) {
		tls_set_failure(t, "the database does not offer TLS", NULL);
		return -1;
	}
	/* The library must not try TLS itself: it talks to the shim. */
	g[off + 1] &= (uint8_t) ~(TLS_WIRE_MY_CLIENT_SSL >> 8);
	if (tls_write_all(c->plain, g, MY_HEADER + (size_t)glen, deadline) < 0) {
		tls_set_failure(t, "the client library closed the connection", NULL);
		return -1;
	}
	rlen = read_my_packet(c->plain, resp, deadline);
	if (rlen < 32 || resp[3] != 1) {
		tls_set_failure(t, "the client library's login is not one the shim can carry", NULL);
		return -1;
	}
	caps = (uint32_t)resp[4] | (uint32_t)resp[5] << 8 | (uint32_t)resp[6] << 16 | (uint32_t)resp[7] << 24;
	if (!(caps & MY_CLIENT_PROTOCOL_41)) {
		tls_set_failure(t, "the client library's login is not one of protocol 4.1", NULL);
		return -1;
	}
	resp[MY_HEADER + 1] |= (uint8_t)(TLS_WIRE_MY_CLIENT_SSL >> 8);
	/* The SSL request: the response's first 32 bytes (capabilities, packet size, charset, filler). */
	memcpy(req, (const uint8_t[]){32, 0, 0, 1}, MY_HEADER);
	memcpy(req + MY_HEADER, resp + MY_HEADER, 32);
	if (tls_write_all(c->relay, req, sizeof(req), deadline) < 0) {
		tls_set_failure(t, "the database closed the connection before TLS", NULL);
		return -1;
	}
	if (tls_handshake(t, c, deadline) < 0)
		return -1;
	resp[3] = 2;
	if (tls_ssl_write_all(c, resp, MY_HEADER + (size_t)rlen, deadline) < 0) {
		tls_set_failure(t, "the connection closed during the login over TLS", NULL);
		return -1;
	}
	return my_login(t, c, deadline);
}
