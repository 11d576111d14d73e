/*
 * relay: a runner's connection to the backend's TCP port, opened by
 * airlockd: handed to the runner (SCM_RIGHTS), or spliced byte by byte
 * with bounded buffers.
 */
#define _GNU_SOURCE
#include "proxy/job/relay.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/dns.h>
#include <event2/event.h>

#include "base/fd_pass.h"
#include "base/frame.h"
#include "proxy/job/relay_kept.h"
#include "proxy/log.h"

/* A relay's two connections: the runner's (accepted) and the backend's (opened by airlockd). */
enum { RUNNER, BACKEND, NSIDES };

struct relay {
	struct bufferevent *side[NSIDES];
	void (*on_close)(void *arg, struct relay *r);
	void *arg;
	int closing;
	bool hand;               /* the backend's socket goes to the runner once connected */
	bool handed;             /* it went: airlockd holds its copy only to end it (relay_free) */
	struct relay_kept *kept; /* a kept session's relay: everything is its */
	void (*on_cancel)(void *arg);
	void (*on_session)(void *arg, uint32_t pid);
};

int relay_backend_fd(const struct relay *r)
{
	if (r && r->kept)
		return relay_kept_backend_fd(r->kept);
	return r && r->side[BACKEND] ? (int)bufferevent_getfd(r->side[BACKEND]) : -1;
}

static struct bufferevent *relay_peer(struct relay *r, struct bufferevent *bev)
{
	return r->side[bev == r->side[RUNNER] ? BACKEND : RUNNER];
}

/* Tells the owner (which forgets r), then frees r. */
static void relay_finish(struct relay *r)
{
	if (r->on_close)
		r->on_close(r->arg, r);
	relay_free(r);
}

static void relay_read_cb(struct bufferevent *bev, void *arg)
{
	struct relay *r = arg;
	struct bufferevent *peer = relay_peer(r, bev);

	evbuffer_add_buffer(bufferevent_get_output(peer), bufferevent_get_input(bev));
	if (evbuffer_get_length(bufferevent_get_output(peer)) >= RELAY_HIGH_WATER)
		bufferevent_disable(bev, EV_READ);
}

/* Output of bev drained below the low mark: let its peer read again. */
static void relay_write_cb(struct bufferevent *bev, void *arg)
{
	struct relay *r = arg;
	struct bufferevent *peer = relay_peer(r, bev);

	if (r->closing) {
		if (evbuffer_get_length(bufferevent_get_output(bev)) == 0)
			relay_finish(r);
		return;
	}
	bufferevent_enable(peer, EV_READ);
}

/*
 * Sends the connected backend socket to the runner with one byte
 * (FRAME_RELAY_HANDED), then closes the runner's unix connection; airlockd's
 * copy stays, read by no one, until relay_free shuts the connection down.
 * A send that fails ends the relay.
 */
static void relay_hand_over(struct relay *r)
{
	bufferevent_disable(r->side[BACKEND], EV_READ | EV_WRITE);
	if (fd_pass_send((int)bufferevent_getfd(r->side[RUNNER]), FRAME_RELAY_HANDED,
			 (int)bufferevent_getfd(r->side[BACKEND])) < 0) {
		log_info("relay: the runner's connection closed before its backend socket could be handed over");
		relay_finish(r);
		return;
	}
	bufferevent_free(r->side[RUNNER]);
	r->side[RUNNER] = NULL;
	r->handed = true;
}

static void relay_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct relay *r = arg;
	struct bufferevent *peer;

	if (what & BEV_EVENT_CONNECTED) {
		int one = 1;

		/* Protocol messages are small and latency-bound: no Nagle delay. */
		setsockopt(bufferevent_getfd(r->side[BACKEND]), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (r->hand) {
			relay_hand_over(r);
			return;
		}
		for (int i = 0; i < NSIDES; i++)
			bufferevent_enable(r->side[i], EV_READ);
		return;
	}
	if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
		return;
	if (bev == r->side[BACKEND] && (what & BEV_EVENT_ERROR) && !r->closing)
		log_info("relay: backend connection failed or broke");
	/* One side is gone: flush what the other side still has to send, then close. */
	peer = relay_peer(r, bev);
	r->closing = 1;
	bufferevent_disable(bev, EV_READ | EV_WRITE);
	bufferevent_disable(peer, EV_READ);
	if (evbuffer_get_length(bufferevent_get_output(peer)) == 0)
		relay_finish(r);
	else
		bufferevent_setwatermark(peer, EV_WRITE, 0, 0);
}

struct relay *relay_new(struct event_base *base, struct evdns_base *dns, int client_fd, const char *host, uint16_t port,
			bool hand, void (*on_close)(void *arg, struct relay *r), void *arg)
{
	struct relay *r = calloc(1, sizeof(*r));

	if (!r)
		goto out_close;
	r->on_close = on_close;
	r->arg = arg;
	r->hand = hand;
	evutil_make_socket_nonblocking(client_fd);
	r->side[RUNNER] = bufferevent_socket_new(base, client_fd, BEV_OPT_CLOSE_ON_FREE);
	if (!r->side[RUNNER])
		goto out_free;
	client_fd = -1;
	r->side[BACKEND] = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!r->side[BACKEND])
		goto out_free;
	for (int i = 0; i < NSIDES; i++) {
		bufferevent_setcb(r->side[i], relay_read_cb, relay_write_cb, relay_event_cb, r);
		bufferevent_setwatermark(r->side[i], EV_WRITE, RELAY_HIGH_WATER / 2, 0);
	}
	/* Reading from the runner starts once the backend is connected. */
	bufferevent_disable(r->side[RUNNER], EV_READ);
	if (bufferevent_socket_connect_hostname(r->side[BACKEND], dns, AF_UNSPEC, host, port) < 0)
		goto out_free;
	return r;

out_free:
	relay_free(r);
out_close:
	if (client_fd >= 0)
		close(client_fd);
	return NULL;
}

/* Also frees a relay relay_new gave up on half way, with one side or none. */
void relay_free(struct relay *r)
{
	if (!r)
		return;
	relay_kept_free(r->kept);
	/* A handed socket has a second holder, the runner: the connection ends for both. */
	if (r->handed)
		shutdown((int)bufferevent_getfd(r->side[BACKEND]), SHUT_RDWR);
	for (int i = 0; i < NSIDES; i++)
		if (r->side[i])
			bufferevent_free(r->side[i]);
	free(r);
}

bool relay_ended(const struct relay *r)
{
	struct pollfd p;

	if (!r || !r->handed)
		return false;
	p = (struct pollfd){.fd = (int)bufferevent_getfd(r->side[BACKEND]), .events = POLLRDHUP};
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

void relay_free_all(struct relay **relays, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		relay_free(relays[i]);
		relays[i] = NULL;
	}
}

static void kept_cancel(void *arg)
{
	struct relay *r = arg;

	if (r->on_cancel)
		r->on_cancel(r->arg);
}

static void kept_session(void *arg, uint32_t pid)
{
	struct relay *r = arg;

	if (r->on_session)
		r->on_session(r->arg, pid);
}

static void kept_close(void *arg, struct relay_kept *k)
{
	struct relay *r = arg;

	(void)k;
	/* k frees itself once this returns. */
	r->kept = NULL;
	relay_finish(r);
}

struct relay *relay_new_kept(struct bsess_pool *pool, struct event_base *base, int client_fd,
			     const struct airlock_target *t, const char *host, uint16_t port, const char *user,
			     void (*on_cancel)(void *arg), void (*on_session)(void *arg, uint32_t pid),
			     void (*on_close)(void *arg, struct relay *r), void *arg)
{
	static const struct relay_kept_events ev = {kept_cancel, kept_session, kept_close};
	struct relay *r = calloc(1, sizeof(*r));

	if (!r) {
		close(client_fd);
		return NULL;
	}
	r->on_close = on_close;
	r->on_cancel = on_cancel;
	r->on_session = on_session;
	r->arg = arg;
	r->kept = relay_kept_new(pool, base, client_fd, t, host, port, user, &ev, r);
	if (!r->kept) {
		free(r);
		return NULL;
	}
	return r;
}

void relay_own(struct relay *r, const char *user)
{
	if (r && r->kept)
		relay_kept_own(r->kept, user);
}

void relay_cancel(struct relay *r)
{
	if (r && r->kept)
		relay_kept_cancel(r->kept);
}
