#include "proxy/approval_web_session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>

struct web_sessions {
	size_t max;
	int64_t idle_ms;
	int64_t absolute_ms;
	struct web_session *slots; /* owned; max of them */
};

struct web_sessions *web_sessions_new(size_t max, int64_t idle_ms, int64_t absolute_ms)
{
	struct web_sessions *t;

	if (max == 0 || !(t = calloc(1, sizeof(*t))))
		return NULL;
	if (!(t->slots = calloc(max, sizeof(*t->slots)))) {
		free(t);
		return NULL;
	}
	t->max = max;
	t->idle_ms = idle_ms;
	t->absolute_ms = absolute_ms;
	return t;
}

static void end_slot(struct web_session *s)
{
	explicit_bzero(s, sizeof(*s));
}

void web_sessions_free(struct web_sessions *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->max; i++)
		end_slot(&t->slots[i]);
	free(t->slots);
	free(t);
}

static bool expired(const struct web_sessions *t, const struct web_session *s, int64_t now)
{
	return now - s->last_ms >= t->idle_ms || now - s->created_ms >= t->absolute_ms;
}

/* WEB_SESSION_TOKEN_BYTES from the kernel's random source, as hex into out; false when it failed. */
static bool fresh_token(char out[WEB_SESSION_TOKEN_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[WEB_SESSION_TOKEN_BYTES];
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(r)) {
		n = getrandom(r + got, sizeof(r) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	for (size_t i = 0; i < sizeof(r); i++) {
		out[2 * i] = hex[r[i] >> 4];
		out[2 * i + 1] = hex[r[i] & 15];
	}
	out[WEB_SESSION_TOKEN_LEN] = '\0';
	explicit_bzero(r, sizeof(r));
	return true;
}

const struct web_session *web_sessions_create(struct web_sessions *t, const char *approver,
					      const unsigned char *binding, int64_t now)
{
	struct web_session *s = NULL, fresh = {0};
	size_t namelen = strlen(approver);

	if (namelen > APPROVAL_MAX_NAME || !fresh_token(fresh.token) || !fresh_token(fresh.csrf)) {
		explicit_bzero(&fresh, sizeof(fresh));
		return NULL;
	}
	/* A free or expired slot; else the one idle longest. */
	for (size_t i = 0; i < t->max; i++) {
		struct web_session *c = &t->slots[i];

		if (!c->used || expired(t, c, now)) {
			s = c;
			break;
		}
		if (!s || c->last_ms < s->last_ms)
			s = c;
	}
	if (!s) {
		explicit_bzero(&fresh, sizeof(fresh));
		return NULL;
	}
	end_slot(s);
	memcpy(fresh.approver, approver, namelen + 1);
	if (binding)
		memcpy(fresh.binding, binding, WEB_SESSION_BINDING_LEN);
	fresh.created_ms = now;
	fresh.last_ms = now;
	fresh.used = true;
	*s = fresh;
	explicit_bzero(&fresh, sizeof(fresh));
	return s;
}

/* The used slot whose token is token, compared against every slot in constant time each. */
static struct web_session *slot_of(struct web_sessions *t, const char *token)
{
	struct web_session *found = NULL;

	if (!token || strlen(token) != WEB_SESSION_TOKEN_LEN)
		return NULL;
	for (size_t i = 0; i < t->max; i++) {
		struct web_session *c = &t->slots[i];
		bool same = CRYPTO_memcmp(c->token, token, WEB_SESSION_TOKEN_LEN) == 0;

		if (same && c->used)
			found = c;
	}
	return found;
}

const struct web_session *web_sessions_find(struct web_sessions *t, const char *token, int64_t now)
{
	struct web_session *s = slot_of(t, token);

	if (!s)
		return NULL;
	if (expired(t, s, now)) {
		end_slot(s);
		return NULL;
	}
	s->last_ms = now;
	return s;
}

void web_sessions_end(struct web_sessions *t, const char *token)
{
	struct web_session *s = slot_of(t, token);

	if (s)
		end_slot(s);
}

bool web_session_csrf_ok(const struct web_session *s, const char *csrf)
{
	if (!s || !csrf || strlen(csrf) != WEB_SESSION_TOKEN_LEN)
		return false;
	return CRYPTO_memcmp(s->csrf, csrf, WEB_SESSION_TOKEN_LEN) == 0;
}

size_t web_sessions_count(struct web_sessions *t, int64_t now)
{
	size_t n = 0;

	for (size_t i = 0; i < t->max; i++)
		if (t->slots[i].used && !expired(t, &t->slots[i], now))
			n++;
	return n;
}
