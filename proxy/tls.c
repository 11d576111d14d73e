/* tls: see tls.h. */
#include "proxy/tls.h"

#include <stdio.h>

#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

static void tls_reason(char *err, size_t errlen, const char *what)
{
	char detail[256];

	ERR_error_string_n(ERR_get_error(), detail, sizeof(detail));
	snprintf(err, errlen, "%s: %s", what, detail);
	ERR_clear_error();
}

/*
 * ALPN: "postgresql" when the client offers it (PostgreSQL 17 clients do,
 * and must for direct TLS); a client offering only other protocols or none
 * goes on without ALPN, as libpq before 17 and MySQL clients do.
 */
static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
		       unsigned int inlen, void *arg)
{
	static const unsigned char pg[] = "\x0apostgresql";
	unsigned char *sel = NULL;

	(void)ssl;
	(void)arg;
	if (SSL_select_next_proto(&sel, outlen, pg, sizeof(pg) - 1, in, inlen) != OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_NOACK;
	*out = sel;
	return SSL_TLSEXT_ERR_OK;
}

SSL_CTX *tls_new(const char *cert_file, const char *key_file, char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	if (!ctx) {
		tls_reason(err, errlen, "cannot make a TLS context");
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	/* No renegotiation, no session tickets kept across restarts: nothing to resume. */
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_TICKET);
	SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);
	if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1) {
		tls_reason(err, errlen, "tls_cert_file");
		goto out_free;
	}
	if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1) {
		tls_reason(err, errlen, "tls_key_file");
		goto out_free;
	}
	if (SSL_CTX_check_private_key(ctx) != 1) {
		tls_reason(err, errlen, "tls_key_file does not match tls_cert_file");
		goto out_free;
	}
	return ctx;
out_free:
	SSL_CTX_free(ctx);
	return NULL;
}

void tls_free(SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);
}

void tls_close_notify(struct bufferevent *tls)
{
	SSL *ssl = bufferevent_openssl_get_ssl(tls);

	if (ssl) {
		SSL_shutdown(ssl);
		ERR_clear_error();
	}
}

void tls_describe(struct bufferevent *tls, const char **cipher, const char **version)
{
	SSL *ssl = bufferevent_openssl_get_ssl(tls);
	const SSL_CIPHER *c = ssl ? SSL_get_current_cipher(ssl) : NULL;

	*cipher = c ? SSL_CIPHER_get_name(c) : "";
	*version = c ? SSL_get_version(ssl) : "";
}

struct bufferevent *tls_wrap(SSL_CTX *ctx, struct event_base *base, struct bufferevent *bev)
{
	SSL *ssl = SSL_new(ctx);
	struct bufferevent *tls;

	if (!ssl) {
		bufferevent_free(bev);
		return NULL;
	}
	tls = bufferevent_openssl_filter_new(base, bev, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE);
	if (!tls) {
		SSL_free(ssl);
		bufferevent_free(bev);
		return NULL;
	}
	/* A client that closes without close_notify has still ended its session cleanly. */
	bufferevent_openssl_set_allow_dirty_shutdown(tls, 1);
	return tls;
}
