/*
 * runner_tls: the TLS shim between the runner's client library and the
 * relay (see runner_tls.h).
 *
 * One thread polls the listener, a wake pipe and each connection's two
 * sockets. A new connection is negotiated on the spot (deadline
 * RUNNER_TLS_HANDSHAKE_MS, runner_tls_login.c), then its bytes are moved
 * both ways without blocking: plain text from the library is written into
 * the TLS session, what the session decrypts is written to the library.
 */
#define _GNU_SOURCE
#include "runner/runner_tls_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>

#include "base/frame.h"
#include "protocol/scram_client.h"
#include "runner/runner_job.h"

static void conn_close(struct conn *c)
{
	if (c->ssl)
		SSL_free(c->ssl);
	if (c->plain >= 0)
		close(c->plain);
	if (c->relay >= 0)
		close(c->relay);
	c->used = false;
	c->ssl = NULL;
	c->plain = c->relay = -1;
}

/* The backend's socket, asked for on the relay socket and handed over by airlockd; -1 when none came. */
static int relay_connect(const struct runner_tls *t, int64_t deadline)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int backend;

	memcpy(sun.sun_path, t->relay_path, sizeof(sun.sun_path));
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 && errno != EINPROGRESS && errno != EAGAIN) {
		close(fd);
		return -1;
	}
	backend = tls_take_socket(fd, deadline);
	close(fd);
	return backend;
}

/*
 * Moves what can be moved each way without blocking. false once the
 * connection is over (either side closed or failed).
 */
static bool pump(struct conn *c)
{
	bool progress = true;
	int n, e;

	while (progress) {
		progress = false;
		if (!c->down_len && !c->tls_eof) {
			n = SSL_read(c->ssl, c->down, BUF_LEN);
			e = n > 0 ? SSL_ERROR_NONE : SSL_get_error(c->ssl, n);
			if (n > 0) {
				c->down_len = (size_t)n;
				c->down_off = 0;
				progress = true;
			}
			c->down_want = e == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
			if (e != SSL_ERROR_NONE && e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
				c->tls_eof = true;
		}
		if (c->down_len) {
			ssize_t w = send(c->plain, c->down + c->down_off, c->down_len - c->down_off, MSG_NOSIGNAL);

			if (w > 0) {
				c->down_off += (size_t)w;
				if (c->down_off == c->down_len)
					c->down_len = 0;
				progress = true;
			} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
				return false;
			}
		}
		if (!c->up_len && !c->plain_eof) {
			ssize_t r = recv(c->plain, c->up, BUF_LEN, 0);

			if (r > 0) {
				c->up_len = (size_t)r;
				c->up_off = 0;
				progress = true;
			} else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
				c->plain_eof = true;
			}
		}
		if (c->up_len) {
			n = SSL_write(c->ssl, c->up + c->up_off, (int)(c->up_len - c->up_off));
			e = n > 0 ? SSL_ERROR_NONE : SSL_get_error(c->ssl, n);
			if (n > 0) {
				c->up_off += (size_t)n;
				if (c->up_off == c->up_len)
					c->up_len = 0;
				progress = true;
			} else if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) {
				return false;
			}
			c->up_want = e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
		}
	}
	if (c->tls_eof && !c->down_len)
		return false;
	if (c->plain_eof && !c->up_len) {
		SSL_shutdown(c->ssl);
		return false;
	}
	return true;
}

/* Is the peer of fd this process's own uid (the abstract socket is reachable from the whole netns)? */
static bool peer_is_self(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == getuid();
}

static void accept_one(struct runner_tls *t)
{
	int64_t deadline = tls_now_ms() + RUNNER_TLS_HANDSHAKE_MS;
	int fd = accept4(t->lst, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct conn *c = NULL;

	if (fd < 0)
		return;
	for (size_t i = 0; i < MAX_CONNS && !c; i++)
		if (!t->conns[i].used)
			c = &t->conns[i];
	if (!c || !peer_is_self(fd)) {
		close(fd);
		return;
	}
	memset(c, 0, offsetof(struct conn, up));
	c->up_len = c->up_off = c->down_len = c->down_off = 0;
	c->used = true;
	c->plain = fd;
	c->relay = relay_connect(t, deadline);
	if (c->relay < 0) {
		tls_set_failure(t, "the database relay is not available", NULL);
		conn_close(c);
		return;
	}
	if ((t->my ? tls_my_negotiate : tls_pg_negotiate)(t, c, deadline) < 0) {
		conn_close(c);
		return;
	}
	/* What the session already holds is passed on before the first poll. */
	if (!pump(c))
		conn_close(c);
}

static void *shim_main(void *arg)
{
	struct runner_tls *t = arg;

	for (;;) {
		struct pollfd p[2 + 2 * MAX_CONNS];
		nfds_t n = 2;

		p[0] = (struct pollfd){.fd = t->wake[0], .events = POLLIN};
		p[1] = (struct pollfd){.fd = t->lst, .events = POLLIN};
		for (size_t i = 0; i < MAX_CONNS; i++) {
			struct conn *c = &t->conns[i];
			short pe = 0, re = 0;

			if (c->used) {
				pe = (short)((!c->up_len && !c->plain_eof ? POLLIN : 0) | (c->down_len ? POLLOUT : 0));
				re = (short)((!c->down_len && !c->tls_eof ? c->down_want : 0) |
					     (c->up_len ? c->up_want : 0));
			}
			p[n++] = (struct pollfd){.fd = c->used ? c->plain : -1, .events = pe};
			p[n++] = (struct pollfd){.fd = c->used ? c->relay : -1, .events = re};
		}
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents)
			break;
		for (size_t i = 0; i < MAX_CONNS; i++) {
			struct conn *c = &t->conns[i];

			if (c->used && (p[2 + 2 * i].revents || p[3 + 2 * i].revents) && !pump(c))
				conn_close(c);
		}
		if (p[1].revents & POLLIN)
			accept_one(t);
	}
	return NULL;
}

static bool is_ip_literal(const char *host)
{
	unsigned char a[16];

	return inet_pton(AF_INET, host, a) == 1 || inet_pton(AF_INET6, host, a) == 1;
}

/* The shim's listener at "@<name>" (an abstract socket: sun_path starts with NUL, length exact). */
static int listen_abstract(const char *name)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	size_t len = strlen(name);
	int fd;

	if (len >= sizeof(sun.sun_path))
		return -1;
	memcpy(sun.sun_path, name, len);
	sun.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sun, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0 ||
	    listen(fd, MAX_CONNS) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static SSL_CTX *make_ctx(const struct runner_job *job, const char *ca_path, char *why, size_t why_len)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	bool verify = strcmp(job->tls, "require") != 0;

	if (!ctx || SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
		snprintf(why, why_len, "TLS could not be set up (out of memory)");
		goto out_bad;
	}
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	if (verify && SSL_CTX_load_verify_locations(ctx, ca_path, NULL) != 1) {
		snprintf(why, why_len, "the target's CA file could not be read in the runner");
		goto out_bad;
	}
	SSL_CTX_set_verify(ctx, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
	return ctx;
out_bad:
	ERR_clear_error();
	SSL_CTX_free(ctx);
	return NULL;
}

int runner_tls_start(struct runner_tls **out, const struct runner_job *job, const char *socket_dir,
		     const char *relay_name, char *addr, size_t addr_len, char *why, size_t why_len)
{
	struct runner_tls *t = calloc(1, sizeof(*t));
	char name[64], ca_path[PATH_MAX];
	int n;

	*out = NULL;
	if (!t) {
		snprintf(why, why_len, "TLS could not be set up (out of memory)");
		return -1;
	}
	t->lst = t->wake[0] = t->wake[1] = -1;
	for (size_t i = 0; i < MAX_CONNS; i++)
		t->conns[i].plain = t->conns[i].relay = -1;
	pthread_mutex_init(&t->lock, NULL);
	t->my = strcmp(job->engine, "mariadb") == 0;
	t->full = strcmp(job->tls, "verify-full") == 0;
	t->host = strdup(job->tls_host);
	if (!t->my && scram_client_password_plain(job->password) && !(t->password = strdup(job->password))) {
		snprintf(why, why_len, "TLS could not be set up (out of memory)");
		goto out_bad;
	}
	/* airlockd's salted password: used when it fits the server's salt (runner_tls_login.c); malformed, unused. */
	t->have_known = t->password && job->scram_salt && job->scram_iterations && job->scram_key &&
			scram_salted_decode(job->scram_salt, job->scram_iterations, job->scram_key, &t->known) == 0;
	t->host_ip = t->host && is_ip_literal(t->host);
	n = snprintf(t->relay_path, sizeof(t->relay_path), "%s/%s", socket_dir, relay_name);
	if (!t->host || n < 0 || (size_t)n >= sizeof(t->relay_path)) {
		snprintf(why, why_len, "TLS could not be set up (out of memory, or a path too long)");
		goto out_bad;
	}
	snprintf(ca_path, sizeof(ca_path), "%s/%s", socket_dir, FRAME_TLS_CA_FILE);
	t->ctx = make_ctx(job, ca_path, why, why_len);
	if (!t->ctx)
		goto out_bad;
	snprintf(addr, addr_len, "@airlock-tls-%ld", (long)getpid());
	snprintf(name, sizeof(name), "%s%s", addr, t->my ? "" : "/.s.PGSQL.5432");
	t->lst = listen_abstract(name);
	if (t->lst < 0 || pipe2(t->wake, O_CLOEXEC) < 0) {
		snprintf(why, why_len, "TLS could not be set up: no local socket for the client library");
		goto out_bad;
	}
	if (pthread_create(&t->thread, NULL, shim_main, t) != 0) {
		snprintf(why, why_len, "TLS could not be set up: no thread");
		goto out_bad;
	}
	t->running = true;
	*out = t;
	return 0;
out_bad:
	runner_tls_stop(t);
	return -1;
}

void runner_tls_failure(struct runner_tls *t, char *buf, size_t len)
{
	pthread_mutex_lock(&t->lock);
	snprintf(buf, len, "%s", t->failure);
	pthread_mutex_unlock(&t->lock);
}

int runner_tls_scram_seen(struct runner_tls *t, char salt_b64[SCRAM_SALT_B64_MAX], uint32_t *iterations)
{
	int rc = -1;

	pthread_mutex_lock(&t->lock);
	if (t->have_seen && scram_salted_encode(&t->seen, salt_b64, NULL) == 0) {
		*iterations = (uint32_t)t->seen.iterations;
		rc = 0;
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

void runner_tls_stop(struct runner_tls *t)
{
	if (!t)
		return;
	if (t->running) {
		(void)!write(t->wake[1], "x", 1);
		pthread_join(t->thread, NULL);
	}
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (t->conns[i].used)
			conn_close(&t->conns[i]);
	if (t->lst >= 0)
		close(t->lst);
	if (t->wake[0] >= 0)
		close(t->wake[0]);
	if (t->wake[1] >= 0)
		close(t->wake[1]);
	SSL_CTX_free(t->ctx);
	pthread_mutex_destroy(&t->lock);
	free(t->host);
	OPENSSL_cleanse(&t->known, sizeof(t->known));
	if (t->password) {
		explicit_bzero(t->password, strlen(t->password));
		free(t->password);
	}
	free(t);
}
