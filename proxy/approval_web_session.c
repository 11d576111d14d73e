#include "proxy/approval_web_session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "proxy/timeval.h"

_Static_assert(WEB_SESSION_TOKEN_LEN == APPROVAL_LOGIN_CSRF_LEN, "a CSRF token fits a shared login");
_Static_assert(WEB_SESSION_BINDING_LEN == APPROVAL_LOGIN_BINDING_LEN, "a binding fits a shared login");
_Static_assert(SHA256_DIGEST_LENGTH == APPROVAL_LOGIN_KEY_LEN, "a login's key is its token's SHA-256");

/* A shared login's last request is written at most this often (its idle time is minutes). */
#define SHARED_TOUCH_MS 5000

struct web_sessions {
	size_t max;
	int64_t idle_ms;
	int64_t absolute_ms;
	struct web_session *slots;    /* owned; max of them */
	struct approval_store *store; /* borrowed; NULL: the table alone */
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

void web_sessions_share(struct web_sessions *t, struct approval_store *store)
{
	t->store = store && store->ops->login_get ? store : NULL;
}

int64_t web_sessions_now(const struct web_sessions *t)
{
	return t->store ? wall_ms() : monotonic_ms();
}

/* The key a shared login is kept under: the SHA-256 of its token. */
static void key_of(const char *token, unsigned char key[APPROVAL_LOGIN_KEY_LEN])
{
	SHA256((const unsigned char *)token, WEB_SESSION_TOKEN_LEN, key);
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

/* A free or expired slot; else the one idle longest (max > 0: never NULL). */
static struct web_session *free_slot(struct web_sessions *t, int64_t now)
{
	struct web_session *s = NULL;

	for (size_t i = 0; i < t->max; i++) {
		struct web_session *c = &t->slots[i];

		if (!c->used || expired(t, c, now))
			return c;
		if (!s || c->last_ms < s->last_ms)
			s = c;
	}
	return s;
}

/* Writes the new session s to the shared store, ending the logins there past their time first. */
static bool share_new(struct web_sessions *t, const struct web_session *s, int64_t now)
{
	struct approval_login l = {.created_ms = s->created_ms, .last_ms = s->last_ms};
	unsigned char key[APPROVAL_LOGIN_KEY_LEN];
	bool ok;

	t->store->ops->login_sweep(t->store, now - t->idle_ms, now - t->absolute_ms);
	memcpy(l.csrf, s->csrf, sizeof(l.csrf));
	memcpy(l.approver, s->approver, sizeof(l.approver));
	memcpy(l.binding, s->binding, sizeof(l.binding));
	key_of(s->token, key);
	ok = t->store->ops->login_put(t->store, key, &l) == APPROVAL_OK;
	explicit_bzero(&l, sizeof(l));
	return ok;
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
	s = free_slot(t, now);
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
	if (t->store && !share_new(t, s, now)) {
		end_slot(s);
		return NULL;
	}
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

/*
 * A shared look-up: the store says whether token is a live login; the
 * table's slot for it is made or refreshed from what it says.
 */
static const struct web_session *find_shared(struct web_sessions *t, const char *token, int64_t now)
{
	struct web_session *s = slot_of(t, token);
	unsigned char key[APPROVAL_LOGIN_KEY_LEN];
	struct approval_login l;
	struct web_session fresh = {0};

	if (!token || strlen(token) != WEB_SESSION_TOKEN_LEN)
		return NULL;
	key_of(token, key);
	if (t->store->ops->login_get(t->store, key, &l) != APPROVAL_OK) {
		/* Not there (ended on some node, or never made), or not readable: no login. */
		if (s)
			end_slot(s);
		return NULL;
	}
	memcpy(fresh.token, token, WEB_SESSION_TOKEN_LEN);
	memcpy(fresh.csrf, l.csrf, sizeof(fresh.csrf));
	memcpy(fresh.approver, l.approver, sizeof(fresh.approver));
	memcpy(fresh.binding, l.binding, sizeof(fresh.binding));
	fresh.created_ms = l.created_ms;
	fresh.last_ms = l.last_ms;
	fresh.used = true;
	explicit_bzero(&l, sizeof(l));
	if (expired(t, &fresh, now)) {
		t->store->ops->login_end(t->store, key);
		if (s)
			end_slot(s);
		explicit_bzero(&fresh, sizeof(fresh));
		return NULL;
	}
	if (now - fresh.last_ms >= SHARED_TOUCH_MS)
		t->store->ops->login_touch(t->store, key, now);
	fresh.last_ms = now;
	if (!s) {
		/* The store keeps the login whichever copy this displaces. */
		s = free_slot(t, now);
	}
	*s = fresh;
	explicit_bzero(&fresh, sizeof(fresh));
	return s;
}

const struct web_session *web_sessions_find(struct web_sessions *t, const char *token, int64_t now)
{
	struct web_session *s;

	if (t->store)
		return find_shared(t, token, now);
	s = slot_of(t, token);
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
	unsigned char key[APPROVAL_LOGIN_KEY_LEN];

	if (t->store && token && strlen(token) == WEB_SESSION_TOKEN_LEN) {
		key_of(token, key);
		t->store->ops->login_end(t->store, key);
	}
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
