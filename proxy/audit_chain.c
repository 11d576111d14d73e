/* audit_chain: SHA-256 of a line as hex, and the hash a reopened log continues from. */
#define _GNU_SOURCE /* memrchr */
#include "proxy/audit_chain.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <openssl/evp.h>

#define TAIL_CHUNK 65536

const char audit_chain_zero[AUDIT_CHAIN_HEX + 1] = "0000000000000000000000000000000000000000000000000000000000000000";

static void to_hex(const unsigned char *md, char hex[AUDIT_CHAIN_HEX + 1])
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < AUDIT_CHAIN_HEX / 2; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[AUDIT_CHAIN_HEX] = '\0';
}

bool audit_chain_hash(const void *line, size_t len, char hex[AUDIT_CHAIN_HEX + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (EVP_Digest(line, len, md, &n, EVP_sha256(), NULL) != 1 || n != AUDIT_CHAIN_HEX / 2)
		return false;
	to_hex(md, hex);
	return true;
}

/* Reads exactly len bytes at off; -1 with errno (EIO when the file shrank). */
static int read_at(int fd, char *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pread(fd, buf, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

/* The offset of the last '\n' before end, or -1 when there is none (-2 on an I/O error). */
static off_t last_newline(int fd, off_t end, char *buf)
{
	while (end > 0) {
		size_t n = end > TAIL_CHUNK ? TAIL_CHUNK : (size_t)end;
		const char *nl;

		if (read_at(fd, buf, n, end - (off_t)n) < 0)
			return -2;
		nl = memrchr(buf, '\n', n);
		if (nl)
			return end - (off_t)n + (nl - buf);
		end -= (off_t)n;
	}
	return -1;
}

/* Hashes the bytes [from, to) of fd in chunks. */
static int hash_range(int fd, off_t from, off_t to, char *buf, char hex[AUDIT_CHAIN_HEX + 1])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	int rc = -1;

	if (!ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		errno = ENOMEM;
		goto out_free_ctx;
	}
	while (from < to) {
		size_t len = to - from > TAIL_CHUNK ? TAIL_CHUNK : (size_t)(to - from);

		if (read_at(fd, buf, len, from) < 0)
			goto out_free_ctx;
		if (EVP_DigestUpdate(ctx, buf, len) != 1) {
			errno = ENOMEM;
			goto out_free_ctx;
		}
		from += (off_t)len;
	}
	if (EVP_DigestFinal_ex(ctx, md, &n) != 1 || n != AUDIT_CHAIN_HEX / 2) {
		errno = ENOMEM;
		goto out_free_ctx;
	}
	to_hex(md, hex);
	rc = 0;
out_free_ctx:
	EVP_MD_CTX_free(ctx);
	return rc;
}

int audit_chain_tail(int fd, char hex[AUDIT_CHAIN_HEX + 1], bool *torn)
{
	struct stat st;
	off_t end, start;
	char *buf;
	int rc = -1;

	memcpy(hex, audit_chain_zero, sizeof(audit_chain_zero));
	*torn = false;
	if (fstat(fd, &st) < 0)
		return -1;
	if (st.st_size == 0)
		return 0;
	buf = malloc(TAIL_CHUNK);
	if (!buf)
		return -1;
	/* The newline that ends the last complete line. */
	end = last_newline(fd, st.st_size, buf);
	if (end == -2)
		goto out_free_buf;
	*torn = end != st.st_size - 1;
	rc = 0;
	if (end < 0)
		goto out_free_buf;
	start = last_newline(fd, end, buf);
	rc = start == -2 ? -1 : hash_range(fd, start + 1, end, buf, hex);
out_free_buf:
	free(buf);
	return rc;
}
