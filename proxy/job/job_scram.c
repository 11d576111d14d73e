/*
 * job_scram: the targets' salted passwords (job_int.h). A runner logging
 * in to a TLS Postgres target with SCRAM salts the password (PBKDF2, 4096
 * iterations by default: about 1.9 ms of CPU) for every statement; the
 * salt and the count are the role's until its password changes. A runner
 * names them in its 'B' frame once the server has proved it knows the
 * password; airlockd salts the password itself for them (the runner is
 * untrusted: nothing it says becomes a key) and gives the result to the
 * target's later runners, which use it only when the server's salt and
 * count are the same. What a runner can make airlockd spend is bounded:
 * one salting per target per JOB_SCRAM_REMAKE_NS, of at most
 * JOB_SCRAM_MAX_ITERATIONS.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "proxy/job/job_int.h"
#include "proxy/log.h"
#include "proxy/timeval.h"

/* A runner can make airlockd salt a target's password at most this often... */
#define JOB_SCRAM_REMAKE_NS (10ull * 1000000000ull)
/* ...and with at most this many iterations (about 47 ms of CPU on the loop). */
#define JOB_SCRAM_MAX_ITERATIONS 100000
/* Entries kept (one per target name seen); past it, none is added. */
#define JOB_SCRAM_MAX_ENTRIES 256

struct job_scram_entry {
	char *target;                       /* the target's name, owned */
	uint8_t pw_digest[EVP_MAX_MD_SIZE]; /* SHA-256 of the password the key is for */
	struct scram_salted salted;         /* salt_len 0: none yet */
	uint64_t made_ns;                   /* the last salting (or attempt), monotonic */
};

/* SHA-256 of t's password into out: 0, or -1. */
static int digest(const struct airlock_target *t, uint8_t out[EVP_MAX_MD_SIZE])
{
	unsigned int n = 0;

	memset(out, 0, EVP_MAX_MD_SIZE);
	return EVP_Digest(t->password, strlen(t->password), out, &n, EVP_sha256(), NULL) == 1 ? 0 : -1;
}

static struct job_scram_entry *find(const struct job_env *env, const char *target)
{
	for (size_t i = 0; i < env->nscram; i++)
		if (strcmp(env->scram[i].target, target) == 0)
			return &env->scram[i];
	return NULL;
}

/* The targets whose runners' shim logs in with SCRAM: Postgres over TLS, a printable-ASCII password. */
static bool takes_scram(const struct airlock_target *t)
{
	return t->password && strcmp(t->engine, "postgres") == 0 && config_target_tls(t) &&
	       scram_client_password_plain(t->password);
}

const struct scram_salted *job_scram_known(const struct job_env *env, const struct airlock_target *t)
{
	const struct job_scram_entry *e = takes_scram(t) ? find(env, t->name) : NULL;
	uint8_t d[EVP_MAX_MD_SIZE];

	if (!e || !e->salted.salt_len || digest(t, d) < 0 || CRYPTO_memcmp(d, e->pw_digest, sizeof(d)) != 0)
		return NULL;
	return &e->salted;
}

void job_scram_learn(struct job_env *env, const struct airlock_target *t, const struct frame_backend *be)
{
	struct job_scram_entry *e;
	struct scram_salted s;
	uint8_t d[EVP_MAX_MD_SIZE];
	char known[SCRAM_SALT_B64_MAX];
	uint64_t now = monotonic_ns();

	if (!be->salt.len || !takes_scram(t) || be->iterations > JOB_SCRAM_MAX_ITERATIONS || digest(t, d) < 0)
		return;
	e = find(env, t->name);
	if (e && e->salted.salt_len && CRYPTO_memcmp(d, e->pw_digest, sizeof(d)) == 0 &&
	    e->salted.iterations == (int)be->iterations && scram_salted_encode(&e->salted, known, NULL) == 0 &&
	    strlen(known) == be->salt.len && memcmp(known, be->salt.ptr, be->salt.len) == 0)
		return; /* known already */
	if (e && e->made_ns && now - e->made_ns < JOB_SCRAM_REMAKE_NS)
		return;
	if (!e) {
		if (env->nscram == env->scram_cap) {
			size_t cap = env->scram_cap ? env->scram_cap * 2 : 4;
			struct job_scram_entry *n;

			if (cap > JOB_SCRAM_MAX_ENTRIES || !(n = realloc(env->scram, cap * sizeof(*n))))
				return;
			env->scram = n;
			env->scram_cap = cap;
		}
		e = &env->scram[env->nscram];
		*e = (struct job_scram_entry){.target = strdup(t->name)};
		if (!e->target)
			return;
		env->nscram++;
	}
	e->made_ns = now;
	if (scram_salted_make(t->password, be->salt.ptr, be->salt.len, (int)be->iterations, JOB_SCRAM_MAX_ITERATIONS,
			      &s) < 0)
		return;
	OPENSSL_cleanse(&e->salted, sizeof(e->salted));
	e->salted = s;
	memcpy(e->pw_digest, d, sizeof(d));
	OPENSSL_cleanse(&s, sizeof(s));
	log_info("target %s: its password salted for its runners' SCRAM logins (%d iterations)", t->name,
		 e->salted.iterations);
}

void job_scram_fini(struct job_env *env)
{
	for (size_t i = 0; i < env->nscram; i++) {
		free(env->scram[i].target);
		OPENSSL_cleanse(&env->scram[i], sizeof(env->scram[i]));
	}
	free(env->scram);
	env->scram = NULL;
	env->nscram = env->scram_cap = 0;
}
