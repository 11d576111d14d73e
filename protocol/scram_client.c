/*
 * scram_client: the client side of SCRAM-SHA-256 (see scram_client.h).
 *
 * AuthMessage = client-first-bare "," server-first "," client-final
 * without its proof; ClientProof = ClientKey XOR HMAC(StoredKey,
 * AuthMessage); ServerSignature = HMAC(ServerKey, AuthMessage).
 */
#include "protocol/scram_client.h"
#include "protocol/scram_int.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

/* Shortest client nonce taken: 18 random bytes' worth, as libpq sends. */
#define MIN_NONCE 18

bool scram_client_password_plain(const char *password)
{
	if (!password || !*password)
		return false;
	for (const char *p = password; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			return false;
	return true;
}

static const char *const first_refusals[] = {"SCRAM: empty server-first-message",
					     "SCRAM: server-first-message too long",
					     "SCRAM: NUL byte in server-first-message"};
static const char *const final_refusals[] = {"SCRAM: empty server-final-message",
					     "SCRAM: server-final-message too long",
					     "SCRAM: NUL byte in server-final-message"};

int scram_client_first(struct scram_client *c, const char *nonce, char *out, size_t outcap, size_t *outlen,
		       const char **err)
{
	size_t n;
	int w;

	memset(c, 0, sizeof(*c));
	*outlen = 0;
	if (!nonce)
		return scram_refuse(err, "SCRAM: no client nonce");
	n = strlen(nonce);
	if (n < MIN_NONCE || n > SCRAM_MAX_MSG / 4)
		return scram_refuse(err, "SCRAM: client nonce of the wrong length");
	for (size_t i = 0; i < n; i++)
		if (!scram_nonce_char((uint8_t)nonce[i]))
			return scram_refuse(err, "SCRAM: client nonce with a character outside the nonce set");
	snprintf(c->first_bare, sizeof(c->first_bare), "n=,r=%s", nonce);
	c->nonce_len = n;
	w = snprintf(out, outcap, "n,,%s", c->first_bare);
	if (w < 0 || (size_t)w >= outcap)
		return scram_refuse(err, "SCRAM: no room for client-first-message");
	*outlen = (size_t)w;
	return 0;
}

/* The value of attribute name ("r", "s", "i") at *pp (up to end): [*v, *vend), *pp after it and its ','. */
static int take_attr(const char **pp, const char *end, char name, const char **v, const char **vend)
{
	const char *p = *pp, *comma;

	if (end - p < 2 || p[0] != name || p[1] != '=')
		return -1;
	p += 2;
	comma = memchr(p, ',', (size_t)(end - p));
	*v = p;
	*vend = comma ? comma : end;
	if (*vend == p)
		return -1;
	*pp = comma ? comma + 1 : end;
	return 0;
}

int scram_salt_password(const char *password, const uint8_t *salt, size_t salt_len, int iterations,
			uint8_t out[SCRAM_KEY_LEN])
{
	size_t plen = strlen(password);

	if (plen > INT_MAX || salt_len == 0 || salt_len > SCRAM_MAX_SALT || iterations < 1 ||
	    iterations > SCRAM_CLIENT_MAX_ITERATIONS)
		return -1;
	return PKCS5_PBKDF2_HMAC(password, (int)plen, salt, (int)salt_len, iterations, EVP_sha256(), SCRAM_KEY_LEN, out)
		       ? 0
		       : -1;
}

int scram_salted_make(const char *password, const char *salt_b64, size_t n, int iterations, int max_iterations,
		      struct scram_salted *out)
{
	int len;

	*out = (struct scram_salted){0};
	len = scram_b64_decode(salt_b64, n, out->salt, sizeof(out->salt));
	if (len <= 0 || iterations < 1 || iterations > max_iterations ||
	    scram_salt_password(password, out->salt, (size_t)len, iterations, out->key) < 0) {
		OPENSSL_cleanse(out, sizeof(*out));
		return -1;
	}
	out->salt_len = (size_t)len;
	out->iterations = iterations;
	return 0;
}

int scram_salted_encode(const struct scram_salted *s, char salt_b64[SCRAM_SALT_B64_MAX],
			char key_b64[SCRAM_KEY_B64_LEN])
{
	if (s->salt_len == 0 || s->salt_len > SCRAM_MAX_SALT ||
	    scram_b64_encode(s->salt, s->salt_len, salt_b64, SCRAM_SALT_B64_MAX) < 0)
		return -1;
	if (key_b64 && scram_b64_encode(s->key, SCRAM_KEY_LEN, key_b64, SCRAM_KEY_B64_LEN) < 0)
		return -1;
	return 0;
}

int scram_salted_decode(const char *salt_b64, const char *iterations, const char *key_b64, struct scram_salted *out)
{
	uint8_t key[B64_DEC_MAX];
	int len, klen, iter;

	*out = (struct scram_salted){0};
	len = scram_b64_decode(salt_b64, strlen(salt_b64), out->salt, sizeof(out->salt));
	klen = scram_b64_decode(key_b64, strlen(key_b64), key, sizeof(key));
	if (len <= 0 || klen != SCRAM_KEY_LEN ||
	    scram_parse_int(iterations, iterations + strlen(iterations), &iter) < 0 ||
	    iter > SCRAM_CLIENT_MAX_ITERATIONS) {
		OPENSSL_cleanse(key, sizeof(key));
		OPENSSL_cleanse(out, sizeof(*out));
		return -1;
	}
	memcpy(out->key, key, SCRAM_KEY_LEN);
	OPENSSL_cleanse(key, sizeof(key));
	out->salt_len = (size_t)len;
	out->iterations = iter;
	return 0;
}

/* The known salted password when it is for this salt and iteration count. */
static const uint8_t *known_key(const struct scram_client *c)
{
	const struct scram_salted *k = c->known;

	if (!k || k->iterations != c->seen.iterations || k->salt_len != c->seen.salt_len ||
	    CRYPTO_memcmp(k->salt, c->seen.salt, k->salt_len) != 0)
		return NULL;
	return k->key;
}

/* The ClientKey and ServerKey of c's login (from c->known when it fits, else salting password): 0, or -1. */
static int keys(struct scram_client *c, const char *password, uint8_t client_key[SCRAM_KEY_LEN],
		uint8_t server_key[SCRAM_KEY_LEN])
{
	uint8_t salted[SCRAM_KEY_LEN];
	const uint8_t *known = known_key(c);
	int rc = -1;

	c->reused = known != NULL;
	if (known)
		memcpy(salted, known, sizeof(salted));
	if ((known || scram_salt_password(password, c->seen.salt, c->seen.salt_len, c->seen.iterations, salted) == 0) &&
	    scram_hmac(salted, sizeof(salted), "Client Key", 10, client_key) == 0 &&
	    scram_hmac(salted, sizeof(salted), "Server Key", 10, server_key) == 0)
		rc = 0;
	OPENSSL_cleanse(salted, sizeof(salted));
	return rc;
}

int scram_client_final(struct scram_client *c, const char *password, const uint8_t *server_first, size_t len, char *out,
		       size_t outcap, size_t *outlen, const char **err)
{
	const char *p = (const char *)server_first, *end = p + len, *r, *rend, *s, *send, *i, *iend;
	uint8_t salt[SCRAM_MAX_SALT], client_key[SCRAM_KEY_LEN], server_key[SCRAM_KEY_LEN];
	uint8_t stored[SCRAM_KEY_LEN], sig[SCRAM_KEY_LEN], proof[SCRAM_KEY_LEN];
	char auth[3 * SCRAM_MAX_MSG], proof64[B64_ENC_LEN(SCRAM_KEY_LEN) + 1], without_proof[SCRAM_MAX_MSG];
	int salt_len, iterations, w, rc = -1;

	*outlen = 0;
	c->have_sig = false;
	if (!password || !c->nonce_len)
		return scram_refuse(err, "SCRAM: no password, or no client-first-message");
	if (scram_check_message(server_first, len, first_refusals, err) < 0)
		return -1;
	if (take_attr(&p, end, 'r', &r, &rend) < 0 || take_attr(&p, end, 's', &s, &send) < 0 ||
	    take_attr(&p, end, 'i', &i, &iend) < 0)
		return scram_refuse(err, "SCRAM: server-first-message is not r=,s=,i=");
	/* Extensions may follow i=; each is name=value. */
	if (p < end && (end - p < 2 || p[1] != '='))
		return scram_refuse(err, "SCRAM: malformed extension in server-first-message");
	if ((size_t)(rend - r) <= c->nonce_len || memcmp(r, c->first_bare + 5, c->nonce_len) != 0)
		return scram_refuse(err, "SCRAM: the server's nonce does not extend the client's");
	for (const char *q = r; q < rend; q++)
		if (!scram_nonce_char((uint8_t)*q))
			return scram_refuse(err, "SCRAM: the server's nonce has a character outside the nonce set");
	salt_len = scram_b64_decode(s, (size_t)(send - s), salt, sizeof(salt));
	if (salt_len <= 0)
		return scram_refuse(err, "SCRAM: the salt is not base64 of 1 to 64 bytes");
	if (scram_parse_int(i, iend, &iterations) < 0 || iterations > SCRAM_CLIENT_MAX_ITERATIONS)
		return scram_refuse(err, "SCRAM: the iteration count is not a number from 1 to 1000000");
	memcpy(c->seen.salt, salt, (size_t)salt_len);
	c->seen.salt_len = (size_t)salt_len;
	c->seen.iterations = iterations;
	w = snprintf(without_proof, sizeof(without_proof), "c=biws,r=%.*s", (int)(rend - r), r);
	if (w < 0 || (size_t)w >= sizeof(without_proof))
		return scram_refuse(err, "SCRAM: no room for client-final-message");
	w = snprintf(auth, sizeof(auth), "%s,%.*s,%s", c->first_bare, (int)len, (const char *)server_first,
		     without_proof);
	if (w < 0 || (size_t)w >= sizeof(auth))
		return scram_refuse(err, "SCRAM: no room for the AuthMessage");
	if (keys(c, password, client_key, server_key) < 0 || scram_sha256(client_key, sizeof(client_key), stored) < 0 ||
	    scram_hmac(stored, sizeof(stored), auth, (size_t)w, sig) < 0 ||
	    scram_hmac(server_key, sizeof(server_key), auth, (size_t)w, c->server_sig) < 0) {
		scram_refuse(err, "SCRAM: the keys could not be computed");
		goto out;
	}
	for (size_t k = 0; k < SCRAM_KEY_LEN; k++)
		proof[k] = client_key[k] ^ sig[k];
	if (scram_b64_encode(proof, sizeof(proof), proof64, sizeof(proof64)) < 0) {
		scram_refuse(err, "SCRAM: the proof could not be encoded");
		goto out;
	}
	w = snprintf(out, outcap, "%s,p=%s", without_proof, proof64);
	if (w < 0 || (size_t)w >= outcap) {
		scram_refuse(err, "SCRAM: no room for client-final-message");
		goto out;
	}
	*outlen = (size_t)w;
	c->have_sig = true;
	rc = 0;
out:
	OPENSSL_cleanse(client_key, sizeof(client_key));
	OPENSSL_cleanse(server_key, sizeof(server_key));
	OPENSSL_cleanse(stored, sizeof(stored));
	OPENSSL_cleanse(proof, sizeof(proof));
	return rc;
}

int scram_client_verify(const struct scram_client *c, const uint8_t *server_final, size_t len, const char **err)
{
	const char *p = (const char *)server_final, *end = p + len, *comma;
	uint8_t sig[SCRAM_KEY_LEN];
	int n;

	if (!c->have_sig)
		return scram_refuse(err, "SCRAM: no client-final-message was sent");
	if (scram_check_message(server_final, len, final_refusals, err) < 0)
		return -1;
	if (len < 2)
		return scram_refuse(err, "SCRAM: server-final-message is not v=");
	if (p[0] == 'e' && p[1] == '=')
		return scram_refuse(err, "SCRAM: the server refused the proof");
	if (p[0] != 'v' || p[1] != '=')
		return scram_refuse(err, "SCRAM: server-final-message is not v=");
	comma = memchr(p + 2, ',', (size_t)(end - p - 2));
	n = scram_b64_decode(p + 2, (size_t)((comma ? comma : end) - p - 2), sig, sizeof(sig));
	if (n != SCRAM_KEY_LEN || CRYPTO_memcmp(sig, c->server_sig, SCRAM_KEY_LEN) != 0)
		return scram_refuse(err, "SCRAM: the server's signature does not match");
	return 0;
}
