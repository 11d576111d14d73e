/*
 * config_ca: reads a target's sslrootcert, the CA certificates the
 * runner checks the database's certificate against. The whole file is
 * kept (the runner is given it as written), so it is checked here: a
 * regular file of at most CONF_MAX_CA_BYTES holding PEM certificates and
 * nothing else that PEM knows (a private key in it is refused: it would
 * be copied into every job directory).
 */
#include "conf/config_internal.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

/* The file's bytes, NUL-terminated, or NULL with *why set. */
static char *read_whole(const char *path, size_t *len, const char **why)
{
	char *buf = malloc(CONF_MAX_CA_BYTES + 1);

	if (!buf) {
		*why = "cannot be read (out of memory)";
		return NULL;
	}
	if (conf_read_file(path, false, buf, CONF_MAX_CA_BYTES, len, "is larger than 256 KiB", why) < 0) {
		free(buf);
		return NULL;
	}
	buf[*len] = '\0';
	return buf;
}

/* How many PEM certificates text holds, or -1 with *why set when it holds anything else PEM knows. */
static int count_certificates(const char *text, size_t len, const char **why)
{
	BIO *bio = BIO_new_mem_buf(text, (int)len);
	char *name = NULL, *header = NULL;
	unsigned char *data = NULL;
	long dlen = 0;
	int n = 0;

	if (!bio) {
		*why = "cannot be read (out of memory)";
		return -1;
	}
	while (PEM_read_bio(bio, &name, &header, &data, &dlen) == 1) {
		const unsigned char *p = data;
		X509 *x = NULL;

		if (strcmp(name, PEM_STRING_X509) == 0 || strcmp(name, PEM_STRING_X509_TRUSTED) == 0)
			x = d2i_X509(NULL, &p, dlen);
		if (x)
			n++;
		else if (strstr(name, "PRIVATE KEY"))
			*why = "holds a private key; give the CA's certificates only";
		else
			*why = "holds a PEM block that is not a certificate";
		X509_free(x);
		OPENSSL_free(name);
		OPENSSL_free(header);
		OPENSSL_free(data);
		if (!x) {
			n = -1;
			break;
		}
	}
	ERR_clear_error();
	BIO_free(bio);
	if (n == 0)
		*why = "holds no PEM certificate";
	return n > 0 ? n : -1;
}

char *conf_read_ca(const char *path, const char **why)
{
	size_t len;
	char *text = read_whole(path, &len, why);

	if (!text)
		return NULL;
	if (memchr(text, '\0', len) || count_certificates(text, len, why) < 0) {
		if (memchr(text, '\0', len))
			*why = "holds a NUL byte; expected PEM text";
		free(text);
		return NULL;
	}
	return text;
}
