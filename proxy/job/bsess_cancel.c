/*
 * bsess_cancel: cancel requests for kept backend sessions (bsess.h), each
 * on a connection of its own to the target; the postmaster closes it once
 * the backend is signalled, and a session's reset waits for that.
 */
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/dns.h>
#include <event2/event.h>

#include "base/dlist.h"
#include "proxy/job/bsess_int.h"
#include "proxy/job/job_int.h"

struct bsess_cancel {
	struct bsess_cancel *prev, *next; /* pool->cancels */
	struct bsess_pool *pool;
	struct bufferevent *bev;
	struct bsess *s; /* NULL once the session is gone: the request still goes out */
	char *held;      /* owned: the target whose backend connection it holds for a session closed meanwhile */
	void (*done)(struct bsess *s); /* told when the postmaster closed it, while s lives */
};

void bsess_cancel_free(struct bsess_cancel *c)
{
	struct job_env *env = c->pool->env;

	DLIST_UNLINK(c->pool->cancels, c);
	bufferevent_free(c->bev);
	if (c->held) {
		job_db_give_room(env, c->held);
		free(c->held);
	}
	free(c);
}

bool bsess_cancel_hold(struct bsess_cancel *c, const char *target)
{
	if (c->held)
		return false;
	c->held = strdup(target);
	return c->held != NULL;
}

static void cancel_end(struct bsess_cancel *c)
{
	struct bsess *s = c->s;
	void (*c_done)(struct bsess * s) = c->done;

	bsess_cancel_free(c);
	if (s) {
		s->cancel = NULL;
		c_done(s);
	}
}

static void cancel_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		cancel_end(arg);
}

static void cancel_read(struct bufferevent *bev, void *arg)
{
	(void)arg;
	evbuffer_drain(bufferevent_get_input(bev), evbuffer_get_length(bufferevent_get_input(bev)));
}

void bsess_cancel_start(struct bsess *s, void (*done)(struct bsess *s))
{
	struct bsess_cancel *c;
	struct wbuf w;

	if (!s || !s->pid || s->cancel || !(c = calloc(1, sizeof(*c))))
		return;
	c->s = s;
	c->done = done;
	c->pool = s->pool;
	c->bev = bufferevent_socket_new(s->pool->env->base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev) {
		free(c);
		return;
	}
	DLIST_PUSH(s->pool->cancels, c);
	wbuf_init(&w);
	pg_put_cancel_request(&w, s->pid, s->key);
	if (w.failed || bufferevent_write(c->bev, w.data, w.len) < 0) {
		wbuf_free(&w);
		bsess_cancel_free(c);
		return;
	}
	wbuf_free(&w);
	bufferevent_setcb(c->bev, cancel_read, NULL, cancel_event, c);
	bufferevent_enable(c->bev, EV_READ);
	if (bufferevent_socket_connect_hostname(c->bev, s->pool->env->dns, AF_UNSPEC, s->host, s->port) < 0) {
		bsess_cancel_free(c);
		return;
	}
	s->cancel = c;
}

void bsess_cancel_detach(struct bsess_cancel *c)
{
	c->s = NULL;
}
