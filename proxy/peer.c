/*
 * peer: forwarding a CancelRequest to the node that issued its key (see
 * peer.h). One bufferevent per forward: connect, write 16 bytes, close.
 * A signed KILL QUERY is the same but for its end: the forward stays to
 * read the node's one-byte answer, or its close, for PEER_TIMEOUT_SEC.
 */
#include "proxy/peer.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>
#include <stdio.h>
#include <sys/un.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/dlist.h"
#include "base/wbuf.h"
#include "conf/config.h"
#include "protocol/peer_msg.h"
#include "protocol/pg_codec.h"
#include "proxy/log.h"
#include "proxy/peer_key.h"
#include "proxy/server.h"
#include "proxy/stats.h"

struct forward {
	struct forward *prev, *next;
	struct peers *owner;
	struct server *srv;
	struct bufferevent *bev; /* owned; closes its socket */
	uint32_t peer;
	int worker;      /* another worker of this node's (its index), or -1: the node peer */
	peer_kill_cb cb; /* a KILL QUERY's: told the answer; NULL for a cancel */
	const struct session_proto *proto;
	uint32_t waiter;
	bool written; /* every byte went out (counted as forwarded) */
};

#define PEER_SEEN 256

struct peers {
	struct peer_counts counts[256];
	uint8_t seen[PEER_SEEN][PEER_MSG_MAC_LEN]; /* the last messages' MACs, against replays */
	size_t seen_next;
	time_t last_warn;         /* refused messages are logged at most once a second: anyone may send them */
	struct forward *inflight; /* every forward not yet done */
	unsigned ninflight;
};

struct peers *peers_new(void)
{
	return calloc(1, sizeof(struct peers));
}

static void forward_free(struct forward *f)
{
	DLIST_UNLINK(f->owner->inflight, f);
	f->owner->ninflight--;
	bufferevent_free(f->bev);
	free(f);
}

void peers_free(struct peers *p)
{
	if (!p)
		return;
	while (p->inflight)
		forward_free(p->inflight);
	free(p);
}

struct peer_counts peers_counts(const struct peers *p, uint32_t id)
{
	struct peer_counts none = {0};

	return p && id < 256 ? p->counts[id] : none;
}

/* The label each outcome is counted under (airlock_peer_cancels_total's outcome). */
static const char *outcome_name(enum peer_outcome o)
{
	switch (o) {
	case PEER_FORWARDED:
		return "forwarded";
	case PEER_FAILED:
		return "failed";
	case PEER_DROPPED_HOPS:
		return "dropped_hops";
	case PEER_DROPPED_UNKNOWN:
		return "dropped_unknown";
	case PEER_DROPPED_BUSY:
		return "dropped_busy";
	}
	return "dropped_unknown";
}

/* Counted per node: what goes between a node's own workers is not a peer's. */
static void count(struct server *srv, uint32_t peer, int worker, enum peer_outcome outcome)
{
	struct peer_counts *c = &srv->peers->counts[peer & 0xffu];

	if (worker >= 0)
		return;
	if (outcome == PEER_FORWARDED)
		c->forwarded++;
	else if (outcome == PEER_FAILED)
		c->failed++;
	else
		c->dropped++;
	stats_peer_cancel(srv->stats, peer & 0xffu, outcome_name(outcome));
}

/* The forward is over: counted (when not yet) and, for a KILL QUERY, its answer told. */
static void done(struct forward *f, enum peer_kill_answer answer, const char *why)
{
	if (!f->written) {
		log_info("%s for %s %u not forwarded: %s", f->cb ? "KILL QUERY" : "cancel",
			 f->worker >= 0 ? "worker" : "peer", f->worker >= 0 ? (unsigned)f->worker : f->peer, why);
		count(f->srv, f->peer, f->worker, PEER_FAILED);
		answer = PEER_KILL_ANSWER_NONE; /* never reached: nothing there was cancelled */
	}
	if (f->cb)
		f->cb(f->srv, f->proto, f->waiter, answer);
	forward_free(f);
}

/* The output drained: the bytes are the peer's kernel's now; a cancel is done, a KILL QUERY waits for its answer. */
static void write_cb(struct bufferevent *bev, void *arg)
{
	struct forward *f = arg;

	if (f->written || evbuffer_get_length(bufferevent_get_output(bev)) != 0)
		return;
	f->written = true;
	count(f->srv, f->peer, f->worker, PEER_FORWARDED);
	if (!f->cb)
		done(f, PEER_KILL_ANSWER_UNKNOWN, NULL);
}

/* A KILL QUERY's answer: one byte. */
static void read_cb(struct bufferevent *bev, void *arg)
{
	struct forward *f = arg;
	uint8_t b = 0;

	if (bufferevent_read(bev, &b, 1) != 1)
		return;
	done(f, b == PEER_MSG_KILLED ? PEER_KILL_ANSWER_DONE : PEER_KILL_ANSWER_NONE, "no answer");
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct forward *f = arg;

	(void)bev;
	if (what & BEV_EVENT_CONNECTED)
		return;
	done(f, PEER_KILL_ANSWER_UNKNOWN, what & BEV_EVENT_TIMEOUT ? "timed out" : "could not connect or write");
}

/* Where peer (a node cfg knows) or worker (>= 0: a worker of this node) listens; false when nowhere. */
static bool address(struct server *srv, uint32_t peer, int worker, struct sockaddr_storage *ss, int *sslen)
{
	char host[64], addr[80];
	uint16_t port;

	memset(ss, 0, sizeof(*ss));
	if (worker >= 0) {
		struct sockaddr_un *sun = (struct sockaddr_un *)ss;

		if ((uint32_t)worker >= srv->worker.count)
			return false;
		sun->sun_family = AF_UNIX;
		config_worker_socket(srv->worker.job_dir, (uint32_t)worker, sun->sun_path, sizeof(sun->sun_path));
		*sslen = (int)sizeof(*sun);
		return true;
	}
	if (!config_peer(srv->cfg, peer, host, sizeof(host), &port))
		return false;
	snprintf(addr, sizeof(addr), strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, (unsigned)port);
	*sslen = (int)sizeof(*ss);
	return evutil_parse_sockaddr_port(addr, (struct sockaddr *)ss, sslen) == 0;
}

/* Sends len bytes to peer or worker (as address takes them) on a connection of their own; false when not sent. */
static bool send_to(struct server *srv, uint32_t peer, int worker, const uint8_t *bytes, size_t len, peer_kill_cb cb,
		    const struct session_proto *proto, uint32_t waiter)
{
	struct timeval tv = {PEER_TIMEOUT_SEC, 0};
	struct sockaddr_storage ss;
	int sslen = (int)sizeof(ss);
	struct forward *f;

	if (!address(srv, peer, worker, &ss, &sslen)) {
		count(srv, peer, worker, PEER_DROPPED_UNKNOWN);
		return false;
	}
	if (srv->peers->ninflight >= PEER_MAX_INFLIGHT) {
		count(srv, peer, worker, PEER_DROPPED_BUSY);
		return false;
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->bev = bufferevent_socket_new(srv->base, -1, BEV_OPT_CLOSE_ON_FREE))) {
		free(f);
		count(srv, peer, worker, PEER_FAILED);
		return false;
	}
	f->owner = srv->peers;
	f->srv = srv;
	f->peer = peer;
	f->worker = worker;
	f->cb = cb;
	f->proto = proto;
	f->waiter = waiter;
	DLIST_PUSH(srv->peers->inflight, f);
	srv->peers->ninflight++;
	bufferevent_setcb(f->bev, cb ? read_cb : NULL, write_cb, event_cb, f);
	if (cb)
		bufferevent_enable(f->bev, EV_READ);
	bufferevent_set_timeouts(f->bev, &tv, &tv);
	/* A refused connection is reported to event_cb later (deferred); -1 is a failure reported to no one. */
	if (bufferevent_write(f->bev, bytes, len) < 0 ||
	    bufferevent_socket_connect(f->bev, (struct sockaddr *)&ss, sslen) < 0) {
		f->cb = NULL; /* the caller is told by the false */
		done(f, PEER_KILL_ANSWER_UNKNOWN, "no socket");
		return false;
	}
	return true;
}

enum peer_key_where peers_where(const struct server *srv, uint32_t id)
{
	return peer_key_where(srv->cfg->peer_id, srv->worker.index, srv->worker.count, id);
}

/* The worker id's session is on, when it is another of this node's; else -1 (another node's). */
static int worker_of(const struct server *srv, uint32_t id)
{
	return peers_where(srv, id) == PEER_KEY_OTHER_WORKER ? (int)peer_key_worker(id) : -1;
}

void peers_forward_cancel(struct server *srv, uint32_t pid, uint32_t key)
{
	uint32_t peer = peer_key_node(pid);
	int worker = worker_of(srv, pid);
	struct wbuf w;

	if (!srv->peers)
		return;
	if (peer_key_hops(pid) >= PEER_KEY_MAX_HOPS) {
		count(srv, peer, worker, PEER_DROPPED_HOPS);
		return;
	}
	wbuf_init(&w);
	pg_put_cancel_request(&w, peer_key_hop(pid), key);
	if (!w.failed && send_to(srv, peer, worker, w.data, w.len, NULL, NULL, 0) && worker >= 0)
		log_info("cancel for session %u sent to worker %d", peer_key_session(pid), worker);
	wbuf_free(&w);
}

static uint64_t unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

bool peers_forward_kill(struct server *srv, uint32_t id, const char *user, peer_kill_cb cb,
			const struct session_proto *proto, uint32_t waiter)
{
	int worker = worker_of(srv, id);
	const uint8_t *key = worker >= 0 ? srv->worker.key : (const uint8_t *)srv->cfg->peer_secret;
	size_t keylen = worker >= 0 ? sizeof(srv->worker.key) : key ? strlen(srv->cfg->peer_secret) : 0;
	struct peer_kill k = {.id = id, .made_ms = unix_ms()};
	uint8_t msg[PEER_MSG_MAX_LEN];
	size_t len;

	if (!srv->peers || !key || strlen(user) > PEER_MSG_MAX_USER)
		return false;
	memcpy(k.user, user, strlen(user) + 1);
	len = peer_msg_kill_encode(&k, key, keylen, msg);
	return len && send_to(srv, peer_key_node(id), worker, msg, len, cb, proto, waiter);
}

/* A MAC seen lately: the same message twice is a replay, whoever sends it. */
static bool replayed(struct peers *p, const uint8_t mac[PEER_MSG_MAC_LEN])
{
	for (size_t i = 0; i < PEER_SEEN; i++)
		if (memcmp(p->seen[i], mac, PEER_MSG_MAC_LEN) == 0)
			return true;
	memcpy(p->seen[p->seen_next], mac, PEER_MSG_MAC_LEN);
	p->seen_next = (p->seen_next + 1) % PEER_SEEN;
	return false;
}

bool peers_receive(struct server *srv, const uint8_t *raw, size_t len, struct peer_kill *out)
{
	const char *secret = srv->cfg->peer_secret;
	struct peer_kill k;
	enum peer_msg_check c;
	bool replay = false;

	if (!srv->peers)
		return false;
	c = secret ? peer_msg_kill_decode(raw, len, (const uint8_t *)secret, strlen(secret), unix_ms(), &k)
		   : PEER_MSG_BAD_MAC;
	/* A sibling worker's, signed with the key only this node's workers hold. */
	if (c == PEER_MSG_BAD_MAC && srv->worker.count > 1)
		c = peer_msg_kill_decode(raw, len, srv->worker.key, sizeof(srv->worker.key), unix_ms(), &k);
	if (c == PEER_MSG_OK)
		replay = replayed(srv->peers, k.mac);
	if (c != PEER_MSG_OK || replay) {
		time_t now = time(NULL);

		if (now != srv->peers->last_warn)
			log_warn("peer message refused: %s",
				 !secret && srv->worker.count <= 1 ? "no peer_secret_file here"
				 : c == PEER_MSG_BAD_MAC           ? "not signed with peer_secret_file's key"
				 : c == PEER_MSG_STALE             ? "too old (or clocks over 10 s apart)"
				 : replay                          ? "a replay"
								   : "malformed");
		srv->peers->last_warn = now;
		return false;
	}
	if (peers_where(srv, k.id) == PEER_KEY_OTHER_NODE) {
		log_info("KILL QUERY %u from a peer: not this node's id", k.id);
		return false;
	}
	*out = k;
	return true;
}
