/*
 * config_ca: reads a target's sslrootcert, the CA certificates the
 * runner checks the database's certificate against. The whole file is
 * kept (the runner is given it as written), so it is checked here: a
 * regular file of at most CONF_MAX_CA_BYTES holding PEM certificates and
 * nothing else that PEM knows (a private key in it is refused: it would
 * be copied into every job directory).
 */
#include "conf/config_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

/* The file's bytes, NUL-terminated, or NULL with *why set. */
static char *read_whole(const char *path, size_t *len, const char **why)
{
	struct stat st;
	char *buf = NULL;
	ssize_t r = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	*len = 0;
	if (fd < 0) {
		*why = errno == ENOENT   ? "does not exist"
		       : errno == EACCES ? "is not readable (permission denied)"
					 : "cannot be opened";
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*why = "is not a regular file";
		goto out;
	}
	if ((uint64_t)st.st_size > CONF_MAX_CA_BYTES) {
		*why = "is larger than 256 KiB";
		goto out;
	}
	buf = malloc(CONF_MAX_CA_BYTES + 1);
	if (!buf) {
		*why = "cannot be read (out of memory)";
		goto out;
	}
	/* Read to the bound whatever fstat said: the file may grow meanwhile. */
	while (*len <= CONF_MAX_CA_BYTES) {
		r = read(fd, buf + *len, CONF_MAX_CA_BYTES + 1 - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		*len += (size_t)r;
	}
	if (r < 0 || *len > CONF_MAX_CA_BYTES) {
		*why = r < 0 ? "cannot be read" : "is larger than 256 KiB";
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[*len] = '\0';
out:
	close(fd);
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
