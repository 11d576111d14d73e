/*
 * job_ctl: one runner's control connection, frames in and out (see
 * job_ctl.h). The read watermark stays at JOB_CTL_WATERMARK unless one
 * frame is larger; then it is raised to exactly that frame and lowered
 * again once the frame is used.
 */
#include "proxy/job/job_ctl.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "base/frame.h"

#define JOB_CTL_WATERMARK (256u * 1024u)

struct job_ctl {
	struct bufferevent *bev;
	const struct job_ctl_events *ev;
	void *arg;
	bool paused;
};

static void job_ctl_read_cb(struct bufferevent *bev, void *arg)
{
	struct job_ctl *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	while (!c->paused) {
		size_t have = evbuffer_get_length(in);
		uint8_t hdr[FRAME_HEADER_LEN];
		uint32_t plen;
		size_t total, consumed;
		struct frame f;
		const uint8_t *data;

		if (have < FRAME_HEADER_LEN)
			return;
		evbuffer_copyout(in, hdr, sizeof(hdr));
		plen = (uint32_t)hdr[1] << 24 | (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 8 | hdr[4];
		if (plen > FRAME_MAX_PAYLOAD) {
			c->ev->on_bad(c->arg, "runner sent an oversized frame");
			return;
		}
		total = FRAME_HEADER_LEN + (size_t)plen;
		if (have < total) {
			/* Let the buffer grow to exactly one whole frame, no further. */
			bufferevent_setwatermark(bev, EV_READ, 0,
						 total > JOB_CTL_WATERMARK ? total : JOB_CTL_WATERMARK);
			return;
		}
		data = evbuffer_pullup(in, (ssize_t)total);
		if (!data || frame_peek(data, total, FRAME_MAX_PAYLOAD, &f, &consumed) != FRAME_OK) {
			c->ev->on_bad(c->arg, "runner sent a malformed frame");
			return;
		}
		if (!c->ev->on_frame(c->arg, &f))
			return;
		evbuffer_drain(in, total);
		bufferevent_setwatermark(bev, EV_READ, 0, JOB_CTL_WATERMARK);
	}
}

static void job_ctl_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct job_ctl *c = arg;

	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		c->ev->on_closed(c->arg);
}

struct job_ctl *job_ctl_new(struct event_base *base, int fd, const struct job_ctl_events *ev, void *arg)
{
	struct job_ctl *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return NULL;
	}
	evutil_make_socket_nonblocking(fd);
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev) {
		close(fd);
		free(c);
		return NULL;
	}
	c->ev = ev;
	c->arg = arg;
	c->paused = true;
	bufferevent_setcb(c->bev, job_ctl_read_cb, NULL, job_ctl_event_cb, c);
	bufferevent_setwatermark(c->bev, EV_READ, 0, JOB_CTL_WATERMARK);
	bufferevent_disable(c->bev, EV_READ);
	return c;
}

void job_ctl_free(struct job_ctl *c)
{
	if (!c)
		return;
	bufferevent_free(c->bev);
	free(c);
}

void job_ctl_write(struct job_ctl *c, const void *data, size_t len)
{
	bufferevent_write(c->bev, data, len);
}

void job_ctl_pause(struct job_ctl *c, bool paused)
{
	c->paused = paused;
	if (paused)
		bufferevent_disable(c->bev, EV_READ);
	else
		bufferevent_enable(c->bev, EV_READ);
}

void job_ctl_process(struct job_ctl *c)
{
	job_ctl_read_cb(c->bev, c);
}
