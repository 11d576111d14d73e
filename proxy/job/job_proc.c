/* job_proc: parsing /proc text about a backend process (see job_proc.h). */
#define _GNU_SOURCE
#include "proxy/job/job_proc.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

/* The value of "Name:\t<digits> kB" in status text, in kB; -1 when absent. */
static int64_t status_field(const char *status, size_t len, const char *name)
{
	size_t n = strlen(name);
	const char *p = status, *end = status + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *stop = eol ? eol : end;

		if ((size_t)(stop - p) > n && memcmp(p, name, n) == 0 && p[n] == ':') {
			int64_t v = 0;
			bool digits = false;

			for (p += n + 1; p < stop && (*p == ' ' || *p == '\t'); p++)
				;
			for (; p < stop && *p >= '0' && *p <= '9' && v < INT64_MAX / 10 - 10; p++) {
				v = v * 10 + (*p - '0');
				digits = true;
			}
			return digits ? v : -1;
		}
		p = stop + 1;
	}
	return -1;
}

int64_t job_proc_private_bytes(const char *status, size_t len)
{
	int64_t anon = status_field(status, len, "RssAnon"), swap = status_field(status, len, "VmSwap");

	if (anon < 0)
		return -1;
	if (swap < 0)
		swap = 0;
	return (anon + swap) * 1024;
}

long job_proc_ppid(const char *status, size_t len)
{
	int64_t v = status_field(status, len, "PPid");

	return v > 0 && v <= INT32_MAX ? (long)v : 0;
}

/* The four words of an IPv6 address as the kernel prints them: each u32 in host order, %08X. */
static void put_v6(const struct in6_addr *a, char *out)
{
	uint32_t w[4];

	memcpy(w, a->s6_addr, sizeof(w));
	snprintf(out, 33, "%08X%08X%08X%08X", w[0], w[1], w[2], w[3]);
}

bool job_proc_tcp_key(const struct sockaddr *sa, bool v6, char out[JOB_PROC_TCP_KEY_LEN])
{
	struct in_addr v4;
	struct in6_addr a6;
	unsigned port;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		v4 = in->sin_addr;
		port = ntohs(in->sin_port);
		if (!v6) {
			snprintf(out, JOB_PROC_TCP_KEY_LEN, "%08X:%04X", (unsigned)v4.s_addr, port);
			return true;
		}
		memset(&a6, 0, sizeof(a6));
		a6.s6_addr[10] = 0xff;
		a6.s6_addr[11] = 0xff;
		memcpy(&a6.s6_addr[12], &v4.s_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		a6 = in6->sin6_addr;
		port = ntohs(in6->sin6_port);
		if (!v6) {
			if (!IN6_IS_ADDR_V4MAPPED(&a6))
				return false;
			memcpy(&v4.s_addr, &a6.s6_addr[12], 4);
			snprintf(out, JOB_PROC_TCP_KEY_LEN, "%08X:%04X", (unsigned)v4.s_addr, port);
			return true;
		}
	} else {
		return false;
	}
	put_v6(&a6, out);
	snprintf(out + 32, JOB_PROC_TCP_KEY_LEN - 32, ":%04X", port);
	return true;
}

/* Copies the next whitespace-separated field of [*p, end) into buf (cut to cap - 1); false at the end. */
static bool next_field(const char **p, const char *end, char *buf, size_t cap)
{
	size_t n = 0;

	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
	if (*p >= end || **p == '\n')
		return false;
	while (*p < end && **p != ' ' && **p != '\t' && **p != '\n') {
		if (n + 1 < cap)
			buf[n++] = **p;
		(*p)++;
	}
	buf[n] = '\0';
	return true;
}

#define TCP_ESTABLISHED_HEX "01"
#define TCP_INODE_FIELD 9 /* sl, local, rem, st, tx:rx, tr:when, retrnsmt, uid, timeout, inode */

uint64_t job_proc_tcp_inode(const char *table, size_t len, const char *local_key, const char *rem_key)
{
	const char *p = table, *end = table + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *stop = eol ? eol : end;
		char f[TCP_INODE_FIELD + 1][48];
		int i;

		for (i = 0; i <= TCP_INODE_FIELD && next_field(&p, stop, f[i], sizeof(f[i])); i++)
			;
		if (i > TCP_INODE_FIELD && strcmp(f[1], local_key) == 0 && strcmp(f[2], rem_key) == 0 &&
		    strcmp(f[3], TCP_ESTABLISHED_HEX) == 0) {
			uint64_t inode = 0;

			for (const char *d = f[TCP_INODE_FIELD]; *d; d++) {
				if (*d < '0' || *d > '9' || inode > UINT64_MAX / 10 - 10)
					return 0;
				inode = inode * 10 + (uint64_t)(*d - '0');
			}
			return inode;
		}
		p = stop + 1;
	}
	return 0;
}

uint64_t job_proc_socket_inode(const char *target)
{
	static const char head[] = "socket:[";
	uint64_t inode = 0;
	const char *d;

	if (strncmp(target, head, sizeof(head) - 1) != 0)
		return 0;
	for (d = target + sizeof(head) - 1; *d >= '0' && *d <= '9'; d++) {
		if (inode > UINT64_MAX / 10 - 10)
			return 0;
		inode = inode * 10 + (uint64_t)(*d - '0');
	}
	return d[0] == ']' && d[1] == '\0' && d != target + sizeof(head) - 1 ? inode : 0;
}
