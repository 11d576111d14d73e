/*
 * scram: server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as Postgres
 * speaks it, and Postgres' verifier format. Pure: the caller supplies the
 * server nonce; every output goes to caller-owned buffers; errors are
 * static strings.
 *
 * Postgres rules followed here: the username in client-first-message is
 * ignored (the startup packet's user is the one authenticated), channel
 * binding is not offered (so "p=" is refused), and an authorization
 * identity is refused. Passwords given to scram_make_verifier are used as
 * bytes, without SASLprep: for ASCII passwords that is what Postgres does.
 *
 * State layout: client_first_bare holds the bare client-first-message; the
 * byte after its terminator records the client's gs2 flag ('n' or 'y') so
 * that client-final's c= can be checked against it. Input is capped so
 * that byte always fits.
 */
#include "protocol/scram.h"
#include "protocol/scram_int.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#define SCRAM_PREFIX "SCRAM-SHA-256$"

/* ---- strict base64 on OpenSSL's codec ---------------------------------- */

/* Encodes n bytes into out (NUL-terminated); -1 when outcap is too small. */
int scram_b64_encode(const uint8_t *in, size_t n, char *out, size_t outcap)
{
	if (n > (size_t)INT_MAX / 4 * 3 - 2 || B64_ENC_LEN(n) + 1 > outcap)
		return -1;
	if (EVP_EncodeBlock((unsigned char *)out, in, (int)n) != (int)B64_ENC_LEN(n))
		return -1;
	return 0;
}

static bool b64_alphabet(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

/*
 * Decodes exactly n characters of strict base64 into out: the RFC 4648
 * alphabet, a multiple of 4 characters, '=' only as the last one or two,
 * nothing else (no whitespace). Returns the number of bytes written, or -1
 * on bad input or when the bytes would not fit outcap (or B64_DEC_MAX).
 * EVP_DecodeBlock is lenient (it skips surrounding whitespace, takes '='
 * anywhere and counts padding as output bytes), so the text is checked
 * here first and the padding taken off its count.
 */
int scram_b64_decode(const char *in, size_t n, uint8_t *out, size_t outcap)
{
	uint8_t tmp[B64_DEC_MAX + 2];
	size_t pad = 0, len, i;
	int got;

	if (n % 4 != 0)
		return -1;
	if (n == 0)
		return 0;
	if (in[n - 1] == '=')
		pad = in[n - 2] == '=' ? 2 : 1;
	len = n / 4 * 3 - pad;
	if (len > outcap || len > B64_DEC_MAX)
		return -1;
	for (i = 0; i < n - pad; i++)
		if (!b64_alphabet(in[i]))
			return -1;
	got = EVP_DecodeBlock(tmp, (const unsigned char *)in, (int)n);
	if (got < 0 || (size_t)got != len + pad) {
		OPENSSL_cleanse(tmp, sizeof(tmp));
		return -1;
	}
	memcpy(out, tmp, len);
	OPENSSL_cleanse(tmp, sizeof(tmp));
	return (int)len;
}

/* ---- crypto helpers ------------------------------------------------------ */

int scram_hmac(const uint8_t *key, size_t keylen, const void *msg, size_t msglen, uint8_t out[SCRAM_KEY_LEN])
{
	unsigned int olen = 0;

	if (keylen > INT_MAX)
		return -1;
	if (!HMAC(EVP_sha256(), key, (int)keylen, msg, msglen, out, &olen) || olen != SCRAM_KEY_LEN)
		return -1;
	return 0;
}

int scram_sha256(const uint8_t *in, size_t n, uint8_t out[SCRAM_KEY_LEN])
{
	unsigned int olen = 0;

	if (!EVP_Digest(in, n, out, &olen, EVP_sha256(), NULL) || olen != SCRAM_KEY_LEN)
		return -1;
	return 0;
}

/* ---- verifier ------------------------------------------------------------ */

/* Parses a positive decimal int of at most INT_MAX from [p, end). */
int scram_parse_int(const char *p, const char *end, int *out)
{
	long long v = 0;

	if (p == end)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return -1;
	}
	if (v <= 0)
		return -1;
	*out = (int)v;
	return 0;
}

int scram_parse_verifier(const char *text, struct scram_verifier *out)
{
	const char *p, *colon, *dollar, *colon2, *end;
	struct scram_verifier v;
	int n;

	if (!text || strncmp(text, SCRAM_PREFIX, strlen(SCRAM_PREFIX)) != 0)
		return -1;
	memset(&v, 0, sizeof(v));
	p = text + strlen(SCRAM_PREFIX);
	end = p + strlen(p);
	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon || scram_parse_int(p, colon, &v.iterations) < 0)
		return -1;
	dollar = memchr(colon + 1, '$', (size_t)(end - colon - 1));
	if (!dollar)
		return -1;
	n = scram_b64_decode(colon + 1, (size_t)(dollar - colon - 1), v.salt, sizeof(v.salt));
	if (n <= 0)
		return -1;
	v.salt_len = (size_t)n;
	colon2 = memchr(dollar + 1, ':', (size_t)(end - dollar - 1));
	if (!colon2)
		return -1;
	n = scram_b64_decode(dollar + 1, (size_t)(colon2 - dollar - 1), v.stored_key, sizeof(v.stored_key));
	if (n != SCRAM_KEY_LEN)
		return -1;
	n = scram_b64_decode(colon2 + 1, (size_t)(end - colon2 - 1), v.server_key, sizeof(v.server_key));
	if (n != SCRAM_KEY_LEN)
		return -1;
	*out = v;
	OPENSSL_cleanse(&v, sizeof(v));
	return 0;
}

int scram_make_verifier(const char *password, const uint8_t *salt, size_t salt_len, int iterations, char *out,
			size_t outlen)
{
	uint8_t salted[SCRAM_KEY_LEN], client_key[SCRAM_KEY_LEN];
	uint8_t stored[SCRAM_KEY_LEN], server[SCRAM_KEY_LEN];
	char salt64[B64_ENC_LEN(SCRAM_MAX_SALT) + 1];
	char stored64[B64_ENC_LEN(SCRAM_KEY_LEN) + 1], server64[B64_ENC_LEN(SCRAM_KEY_LEN) + 1];
	size_t plen;
	int rc = -1, n;

	if (!password || !salt || salt_len == 0 || salt_len > SCRAM_MAX_SALT || iterations <= 0 || !out)
		return -1;
	plen = strlen(password);
	if (plen > INT_MAX)
		return -1;
	if (!PKCS5_PBKDF2_HMAC(password, (int)plen, salt, (int)salt_len, iterations, EVP_sha256(), SCRAM_KEY_LEN,
			       salted))
		goto out_cleanse;
	if (scram_hmac(salted, sizeof(salted), "Client Key", 10, client_key) < 0 ||
	    scram_sha256(client_key, sizeof(client_key), stored) < 0 ||
	    scram_hmac(salted, sizeof(salted), "Server Key", 10, server) < 0)
		goto out_cleanse;
	if (scram_b64_encode(salt, salt_len, salt64, sizeof(salt64)) < 0 ||
	    scram_b64_encode(stored, sizeof(stored), stored64, sizeof(stored64)) < 0 ||
	    scram_b64_encode(server, sizeof(server), server64, sizeof(server64)) < 0)
		goto out_cleanse;
	n = snprintf(out, outlen, SCRAM_PREFIX "%d:%s$%s:%s", iterations, salt64, stored64, server64);
	if (n < 0 || (size_t)n >= outlen) {
		if (outlen)
			out[0] = 0;
		goto out_cleanse;
	}
	rc = 0;
out_cleanse:
	OPENSSL_cleanse(salted, sizeof(salted));
	OPENSSL_cleanse(client_key, sizeof(client_key));
	return rc;
}

/* ---- exchange ------------------------------------------------------------ */

int scram_refuse(const char **err, const char *why)
{
	if (err)
		*err = why;
	return -1;
}

/* Why a client message is refused before it is parsed: empty, too long, a NUL byte in it. */
static const char *const first_refusals[] = {"SCRAM: empty client-first-message",
					     "SCRAM: client-first-message too long",
					     "SCRAM: NUL byte in client-first-message"};
static const char *const final_refusals[] = {"SCRAM: empty client-final-message",
					     "SCRAM: client-final-message too long",
					     "SCRAM: NUL byte in client-final-message"};

/* See scram_int.h; here reasons is one of the two lists above. */
int scram_check_message(const uint8_t *msg, size_t len, const char *const reasons[3], const char **err)
{
	if (!msg || len == 0)
		return scram_refuse(err, reasons[0]);
	if (len >= SCRAM_MAX_MSG)
		return scram_refuse(err, reasons[1]);
	if (memchr(msg, 0, len))
		return scram_refuse(err, reasons[2]);
	return 0;
}

/* A nonce character: printable ASCII except ','. */
bool scram_nonce_char(uint8_t c)
{
	return c >= 0x21 && c <= 0x7e && c != ',';
}

/* End of the attribute value that starts at p: the next ',' or end. */
static const char *attr_end(const char *p, const char *end)
{
	const char *c = memchr(p, ',', (size_t)(end - p));

	return c ? c : end;
}

/*
 * Skips the optional extensions "," ALPHA "=" value ... starting at *pp
 * up to end (or up to a "p=" attribute when stop_at_proof). "m=" is never an
 * extension: RFC 5802 makes it a mandatory failure.
 */
static int skip_extensions(const char **pp, const char *end, bool stop_at_proof, const char **err)
{
	const char *p = *pp;

	while (p < end) {
		char a;

		if (*p != ',')
			return scram_refuse(err, "SCRAM: malformed attribute list");
		if (end - p < 3 || p[2] != '=')
			return scram_refuse(err, "SCRAM: malformed attribute");
		a = p[1];
		if (!((a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z')))
			return scram_refuse(err, "SCRAM: malformed attribute name");
		if (stop_at_proof && a == 'p')
			break;
		if (a == 'm')
			return scram_refuse(err, "SCRAM: mandatory extension (m=) is not supported");
		p = attr_end(p + 3, end);
		if (p == *pp + 3)
			return scram_refuse(err, "SCRAM: empty attribute value");
		*pp = p;
	}
	*pp = p;
	return 0;
}

int scram_server_first(struct scram_state *st, const struct scram_verifier *v, const uint8_t *client_first, size_t len,
		       const char *server_nonce, char *out, size_t outcap, size_t *outlen, const char **err)
{
	const char *p, *end, *bare, *cnonce, *cnonce_end;
	char salt64[B64_ENC_LEN(SCRAM_MAX_SALT) + 1];
	size_t bare_len, cn_len, sn_len, i;
	char gs2_flag;
	int n;

	memset(st, 0, sizeof(*st));
	*outlen = 0;
	if (outcap)
		out[0] = 0;
	if (!v || v->iterations <= 0 || v->salt_len == 0 || v->salt_len > SCRAM_MAX_SALT)
		return scram_refuse(err, "SCRAM: invalid verifier");
	if (!server_nonce)
		return scram_refuse(err, "SCRAM: no server nonce");
	sn_len = strlen(server_nonce);
	if (sn_len == 0)
		return scram_refuse(err, "SCRAM: empty server nonce");
	for (i = 0; i < sn_len; i++)
		if (!scram_nonce_char((uint8_t)server_nonce[i]))
			return scram_refuse(err, "SCRAM: invalid server nonce");
	if (scram_check_message(client_first, len, first_refusals, err) < 0)
		return -1;
	p = (const char *)client_first;
	end = p + len;

	/* gs2-header: cbind flag "," [authzid] "," */
	if (*p == 'p')
		return scram_refuse(err, "SCRAM: channel binding is not supported (use SCRAM-SHA-256, not -PLUS)");
	if (*p != 'n' && *p != 'y')
		return scram_refuse(err, "SCRAM: malformed gs2 header");
	gs2_flag = *p++;
	if (p >= end || *p++ != ',')
		return scram_refuse(err, "SCRAM: malformed gs2 header");
	if (p < end && *p == 'a')
		return scram_refuse(err, "SCRAM: authorization identity (a=) is not supported");
	if (p >= end || *p++ != ',')
		return scram_refuse(err, "SCRAM: malformed gs2 header");

	/* client-first-message-bare: [m=...,] n=user,r=nonce[,ext...] */
	bare = p;
	if (end - p >= 2 && p[0] == 'm' && p[1] == '=')
		return scram_refuse(err, "SCRAM: mandatory extension (m=) is not supported");
	if (end - p < 2 || p[0] != 'n' || p[1] != '=')
		return scram_refuse(err, "SCRAM: missing username (n=)");
	p = attr_end(p + 2, end); /* the username is ignored, as Postgres does */
	if (end - p < 3 || p[0] != ',' || p[1] != 'r' || p[2] != '=')
		return scram_refuse(err, "SCRAM: missing nonce (r=)");
	cnonce = p + 3;
	cnonce_end = attr_end(cnonce, end);
	cn_len = (size_t)(cnonce_end - cnonce);
	if (cn_len == 0)
		return scram_refuse(err, "SCRAM: empty client nonce");
	for (i = 0; i < cn_len; i++)
		if (!scram_nonce_char((uint8_t)cnonce[i]))
			return scram_refuse(err, "SCRAM: invalid client nonce");
	p = cnonce_end;
	if (skip_extensions(&p, end, false, err) < 0)
		return -1;

	if (cn_len + sn_len >= sizeof(st->nonce))
		return scram_refuse(err, "SCRAM: nonce too long");
	memcpy(st->nonce, cnonce, cn_len);
	memcpy(st->nonce + cn_len, server_nonce, sn_len);
	st->nonce[cn_len + sn_len] = 0;

	/* len < SCRAM_MAX_MSG and the gs2 header is 3 bytes: room for NUL + flag. */
	bare_len = (size_t)(end - bare);
	memcpy(st->client_first_bare, bare, bare_len);
	st->client_first_bare[bare_len] = 0;
	st->client_first_bare[bare_len + 1] = gs2_flag;

	if (scram_b64_encode(v->salt, v->salt_len, salt64, sizeof(salt64)) < 0)
		goto out_fail;
	n = snprintf(st->server_first, sizeof(st->server_first), "r=%s,s=%s,i=%d", st->nonce, salt64, v->iterations);
	if (n < 0 || (size_t)n >= sizeof(st->server_first)) {
		memset(st, 0, sizeof(*st));
		return scram_refuse(err, "SCRAM: server-first-message too long");
	}
	if ((size_t)n >= outcap)
		goto out_fail;
	memcpy(out, st->server_first, (size_t)n + 1);
	*outlen = (size_t)n;
	st->verifier = v;
	return 0;
out_fail:
	memset(st, 0, sizeof(*st));
	return scram_refuse(err, "SCRAM: output buffer too small");
}

int scram_server_final(struct scram_state *st, const uint8_t *client_final, size_t len, char *out, size_t outcap,
		       size_t *outlen, const char **err)
{
	const struct scram_verifier *v = st->verifier;
	const char *p, *end, *cb, *cb_end, *nonce, *nonce_end, *proof64;
	char expect_gs2[3] = {0, ',', ','};
	uint8_t cbind[8], proof[SCRAM_KEY_LEN + 3];
	uint8_t client_sig[SCRAM_KEY_LEN], client_key[SCRAM_KEY_LEN], stored[SCRAM_KEY_LEN];
	uint8_t server_sig[SCRAM_KEY_LEN];
	char auth_msg[3 * SCRAM_MAX_MSG];
	size_t bare_len, sf_len, wp_len, am_len, i;
	int n, rc = -1;

	*outlen = 0;
	if (outcap)
		out[0] = 0;
	if (!v || st->done || st->nonce[0] == 0)
		return scram_refuse(err, "SCRAM: exchange not in progress");
	/* One attempt per exchange, whatever its outcome. */
	st->done = true;
	if (scram_check_message(client_final, len, final_refusals, err) < 0)
		return -1;
	p = (const char *)client_final;
	end = p + len;

	/* c=<base64 of the gs2 header> */
	if (end - p < 2 || p[0] != 'c' || p[1] != '=')
		return scram_refuse(err, "SCRAM: missing channel binding (c=)");
	cb = p + 2;
	cb_end = attr_end(cb, end);
	n = scram_b64_decode(cb, (size_t)(cb_end - cb), cbind, sizeof(cbind));
	if (n < 0)
		return scram_refuse(err, "SCRAM: malformed channel binding (c=)");
	bare_len = strlen(st->client_first_bare);
	expect_gs2[0] = st->client_first_bare[bare_len + 1];
	if (n != 3 || memcmp(cbind, expect_gs2, 3) != 0)
		return scram_refuse(err, "SCRAM: channel binding (c=) does not match the gs2 header");

	/* ,r=<nonce> */
	p = cb_end;
	if (end - p < 3 || p[0] != ',' || p[1] != 'r' || p[2] != '=')
		return scram_refuse(err, "SCRAM: missing nonce (r=)");
	nonce = p + 3;
	nonce_end = attr_end(nonce, end);
	if ((size_t)(nonce_end - nonce) != strlen(st->nonce) ||
	    memcmp(nonce, st->nonce, (size_t)(nonce_end - nonce)) != 0)
		return scram_refuse(err, "SCRAM: nonce does not match");
	p = nonce_end;

	/* [,ext...] ,p=<proof> and nothing after it */
	if (skip_extensions(&p, end, true, err) < 0)
		return -1;
	if (end - p < 3 || p[0] != ',' || p[1] != 'p' || p[2] != '=')
		return scram_refuse(err, "SCRAM: missing proof (p=)");
	wp_len = (size_t)(p - (const char *)client_final);
	proof64 = p + 3;
	if (attr_end(proof64, end) != end)
		return scram_refuse(err, "SCRAM: data after the proof");
	n = scram_b64_decode(proof64, (size_t)(end - proof64), proof, sizeof(proof));
	if (n != SCRAM_KEY_LEN)
		return scram_refuse(err, "SCRAM: malformed proof (p=)");

	/* AuthMessage = client-first-bare "," server-first "," client-final-without-proof */
	sf_len = strlen(st->server_first);
	am_len = bare_len + 1 + sf_len + 1 + wp_len;
	if (am_len > sizeof(auth_msg))
		return scram_refuse(err, "SCRAM: message too long");
	memcpy(auth_msg, st->client_first_bare, bare_len);
	auth_msg[bare_len] = ',';
	memcpy(auth_msg + bare_len + 1, st->server_first, sf_len);
	auth_msg[bare_len + 1 + sf_len] = ',';
	memcpy(auth_msg + bare_len + 2 + sf_len, client_final, wp_len);

	if (scram_hmac(v->stored_key, SCRAM_KEY_LEN, auth_msg, am_len, client_sig) < 0)
		goto out_internal;
	for (i = 0; i < SCRAM_KEY_LEN; i++)
		client_key[i] = proof[i] ^ client_sig[i];
	if (scram_sha256(client_key, sizeof(client_key), stored) < 0)
		goto out_internal;
	if (CRYPTO_memcmp(stored, v->stored_key, SCRAM_KEY_LEN) != 0) {
		scram_refuse(err, "SCRAM: password authentication failed");
		goto out_cleanse;
	}

	if (scram_hmac(v->server_key, SCRAM_KEY_LEN, auth_msg, am_len, server_sig) < 0)
		goto out_internal;
	if (outcap < 2 + B64_ENC_LEN(SCRAM_KEY_LEN) + 1) {
		scram_refuse(err, "SCRAM: output buffer too small");
		goto out_cleanse;
	}
	out[0] = 'v';
	out[1] = '=';
	if (scram_b64_encode(server_sig, sizeof(server_sig), out + 2, outcap - 2) < 0)
		goto out_internal;
	*outlen = 2 + B64_ENC_LEN(SCRAM_KEY_LEN);
	rc = 0;
	goto out_cleanse;
out_internal:
	scram_refuse(err, "SCRAM: internal crypto error");
out_cleanse:
	OPENSSL_cleanse(client_key, sizeof(client_key));
	OPENSSL_cleanse(client_sig, sizeof(client_sig));
	if (rc < 0 && outcap)
		out[0] = 0;
	return rc;
}
