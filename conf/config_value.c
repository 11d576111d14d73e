/*
 * config_value: strict parsers for single config values (numbers, CPU
 * fractions, listen addresses, lists, table names, paths, password files,
 * the webhook's URL through curl's URL parser). Pure except
 * conf_read_password and conf_read_secret, which read one file. Strings
 * returned are allocated and owned by the caller.
 */
#define _GNU_SOURCE
#include "conf/config_internal.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <libpq-fe.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

int conf_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *p;

	if (!s || !*s)
		return -1;
	for (p = s; *p; p++) {
		unsigned d;

		if (*p < '0' || *p > '9')
			return -1;
		d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int conf_parse_cpus(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t whole = 0, frac = 0, scale = 1000000000ull;
	const char *p = s;
	int ndigits = 0;

	if (!s || *s < '0' || *s > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > 1000)
			return -1;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		for (; *p >= '0' && *p <= '9'; p++) {
			if (++ndigits > 9)
				return -1;
			scale /= 10;
			frac += (uint64_t)(*p - '0') * scale;
		}
	}
	if (*p)
		return -1;
	whole = whole * 1000000000ull + frac;
	if (whole < min || whole > max)
		return -1;
	*out = whole;
	return 0;
}

int conf_parse_listen(const char *s, char **host, uint16_t *port)
{
	const char *colon, *hstart, *hend;
	char buf[CONF_MAX_HOST + 1];
	unsigned char addr[16];
	uint64_t p;
	size_t hlen;

	if (!s)
		return -1;
	if (*s == '[') {
		hstart = s + 1;
		hend = strchr(hstart, ']');
		if (!hend || hend[1] != ':')
			return -1;
		colon = hend + 1;
	} else {
		hstart = s;
		colon = strrchr(s, ':');
		if (!colon)
			return -1;
		hend = colon;
	}
	hlen = (size_t)(hend - hstart);
	if (hlen == 0 || hlen > CONF_MAX_HOST)
		return -1;
	memcpy(buf, hstart, hlen);
	buf[hlen] = '\0';
	if (*s == '[') {
		if (inet_pton(AF_INET6, buf, addr) != 1)
			return -1;
	} else if (strcasecmp(buf, "localhost") != 0 && inet_pton(AF_INET, buf, addr) != 1) {
		return -1;
	}
	if (conf_parse_u64(colon + 1, 1, 65535, &p) < 0)
		return -1;
	*host = strdup(buf);
	if (!*host)
		return -1;
	*port = (uint16_t)p;
	return 0;
}

int conf_parse_peer(const char *s, uint32_t *id, char **host, uint16_t *port)
{
	const char *eq = s ? strchr(s, '=') : NULL;
	char num[4];
	uint64_t v;

	if (!eq || eq == s || (size_t)(eq - s) >= sizeof(num))
		return -1;
	memcpy(num, s, (size_t)(eq - s));
	num[eq - s] = '\0';
	if (conf_parse_u64(num, 1, 255, &v) < 0 || conf_parse_listen(eq + 1, host, port) < 0)
		return -1;
	/* A cancel is forwarded from the event loop, which resolves no name: an address only. */
	if (strcasecmp(*host, "localhost") == 0) {
		free(*host);
		*host = NULL;
		return -1;
	}
	*id = (uint32_t)v;
	return 0;
}

int conf_parse_uid_range(const char *s, uint32_t *first, uint32_t *last)
{
	const char *dash = s ? strchr(s, '-') : NULL;
	char buf[16];
	uint64_t a, b;
	size_t n;

	if (!dash)
		return -1;
	n = (size_t)(dash - s);
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	/* 4294967295 is (uid_t)-1, which means "no change" to the kernel. */
	if (conf_parse_u64(buf, 1, 4294967294u, &a) < 0 || conf_parse_u64(dash + 1, 1, 4294967294u, &b) < 0 || b < a)
		return -1;
	*first = (uint32_t)a;
	*last = (uint32_t)b;
	return 0;
}

bool conf_host_id_in_range(uint32_t first, uint32_t last, char *who, size_t wholen)
{
	struct passwd *pw;
	struct group *gr;
	bool found = false;

	setpwent();
	while (!found && (pw = getpwent()))
		if (pw->pw_uid >= first && pw->pw_uid <= last) {
			snprintf(who, wholen, "uid %u is the host account \"%.40s\"", (unsigned)pw->pw_uid,
				 pw->pw_name);
			found = true;
		}
	endpwent();
	setgrent();
	while (!found && (gr = getgrent()))
		if (gr->gr_gid >= first && gr->gr_gid <= last) {
			snprintf(who, wholen, "gid %u is the host group \"%.40s\"", (unsigned)gr->gr_gid, gr->gr_name);
			found = true;
		}
	endgrent();
	return found;
}

/* 1 to max characters, each a letter, a digit or one of punct. */
static bool valid_word(const char *s, size_t max, const char *punct)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > max)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(punct, *s))
			return false;
	return true;
}

bool conf_valid_host(const char *s)
{
	return valid_word(s, CONF_MAX_HOST, ".:_-");
}

bool conf_valid_name(const char *s)
{
	return valid_word(s, CONF_MAX_NAME, "_.@-");
}

bool conf_valid_text(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* Length of the identifier at s ([A-Za-z_][A-Za-z0-9_$]*), 0 when none. */
static size_t ident_len(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '$')
		n++;
	return n;
}

char *conf_normalise_table(const char *entry, bool *oom)
{
	size_t n1, n2 = 0, i;
	const char *second = NULL;
	char *out;

	*oom = false;
	n1 = ident_len(entry);
	if (n1 == 0 || n1 > CONF_MAX_NAME)
		return NULL;
	if (entry[n1] == '.') {
		second = entry + n1 + 1;
		if (second[0] == '*')
			n2 = 1;
		else
			n2 = ident_len(second);
		if (n2 == 0 || n2 > CONF_MAX_NAME || second[n2] != '\0')
			return NULL;
	} else if (entry[n1] != '\0') {
		return NULL;
	}
	if (second)
		out = strdup(entry);
	else if (asprintf(&out, "public.%s", entry) < 0)
		out = NULL;
	if (!out) {
		*oom = true;
		return NULL;
	}
	for (i = 0; out[i]; i++)
		out[i] = (char)tolower((unsigned char)out[i]);
	return out;
}

/* Length of a MySQL identifier at s ([A-Za-z0-9_$]+), 0 when none. */
static size_t my_ident_len(const char *s)
{
	size_t n = 0;

	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '$')
		n++;
	return n;
}

char *conf_mysql_table(const char *entry, bool *oom)
{
	size_t n1 = my_ident_len(entry), n2;
	const char *second;
	char *out;

	*oom = false;
	if (n1 == 0 || n1 > CONF_MAX_NAME || entry[n1] != '.')
		return NULL;
	second = entry + n1 + 1;
	n2 = second[0] == '*' ? 1 : my_ident_len(second);
	if (n2 == 0 || n2 > CONF_MAX_NAME || second[n2] != '\0')
		return NULL;
	out = strdup(entry);
	*oom = !out;
	return out;
}

bool conf_valid_mysql_native(const char *s)
{
	size_t i;

	if (s[0] != '*' || strlen(s) != 41)
		return false;
	for (i = 1; i < 41; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Copies s[0..n) without surrounding whitespace. */
static char *trimmed_dup(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	return strndup(s, n);
}

int conf_list_append(const char *value, char ***items, size_t *n, char *(*map)(const char *entry, bool *oom),
		     char **bad)
{
	const char *p = value, *comma;
	char **grown;
	char *entry, *mapped;
	bool oom;

	*bad = NULL;
	/* An empty value is an empty list. */
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0;
	for (;;) {
		comma = strchr(p, ',');
		entry = trimmed_dup(p, comma ? (size_t)(comma - p) : strlen(p));
		if (!entry)
			return -2;
		if (!*entry && !comma && p != value) {
			/* one trailing comma, as before a continuation line */
			free(entry);
			return 0;
		}
		if (!*entry) {
			*bad = entry;
			return -1;
		}
		if (map) {
			mapped = map(entry, &oom);
			if (!mapped) {
				if (oom) {
					free(entry);
					return -2;
				}
				*bad = entry;
				return -1;
			}
			free(entry);
			entry = mapped;
		}
		grown = realloc(*items, (*n + 1) * sizeof(**items));
		if (!grown) {
			free(entry);
			return -2;
		}
		*items = grown;
		(*items)[(*n)++] = entry;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

char *conf_resolve_path(const char *base_dir, const char *path)
{
	char *out;

	if (path[0] == '/' || !base_dir || !*base_dir)
		return strdup(path);
	if (asprintf(&out, "%s%s%s", base_dir, base_dir[strlen(base_dir) - 1] == '/' ? "" : "/", path) < 0)
		return NULL;
	return out;
}

/* One line of a file; with private_only, the file must be open to its owner only. */
int conf_read_file(const char *path, bool private_only, char *buf, size_t max, size_t *len, const char *too_big,
		   const char **why)
{
	struct stat st;
	ssize_t r = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), rc = -1;

	*len = 0;
	if (fd < 0) {
		*why = errno == ENOENT   ? "does not exist"
		       : errno == EACCES ? "is not readable (permission denied)"
					 : "cannot be opened";
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*why = "is not a regular file";
		goto out;
	}
	if (private_only && (st.st_mode & (S_IRWXG | S_IRWXO))) {
		*why = "is open to its group or others; make it readable by its owner only (chmod 600)";
		goto out;
	}
	if ((uint64_t)st.st_size > max) {
		*why = too_big;
		goto out;
	}
	/* Read to the bound whatever fstat said: the file may grow meanwhile. */
	while (*len <= max) {
		r = read(fd, buf + *len, max + 1 - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		*len += (size_t)r;
	}
	if (r < 0)
		*why = "cannot be read";
	else if (*len > max)
		*why = too_big;
	else
		rc = 0;
out:
	close(fd);
	return rc;
}

static char *read_secret_line(const char *path, bool private_only, const char **why)
{
	char buf[CONF_MAX_PASSWORD + 2];
	size_t len = 0;
	char *out = NULL;

	if (conf_read_file(path, private_only, buf, CONF_MAX_PASSWORD, &len, "is larger than 4096 bytes", why) < 0)
		goto out_wipe;
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	buf[len] = '\0';
	if (len == 0) {
		*why = "is empty";
		goto out_wipe;
	}
	if (memchr(buf, '\0', len) || memchr(buf, '\n', len) || memchr(buf, '\r', len)) {
		*why = "must hold one line (the password) without NUL bytes";
		goto out_wipe;
	}
	out = strdup(buf);
	if (!out)
		*why = "cannot be read (out of memory)";
out_wipe:
	explicit_bzero(buf, sizeof(buf));
	return out;
}

char *conf_read_password(const char *path, const char **why)
{
	return read_secret_line(path, false, why);
}

char *conf_read_secret(const char *path, const char **why)
{
	return read_secret_line(path, true, why);
}

/* An address literal of the loopback: 127.0.0.0/8 or ::1. */
static bool loopback_literal(const char *host)
{
	unsigned char a[16];
	static const unsigned char one[16] = {[15] = 1};

	if (inet_pton(AF_INET, host, a) == 1)
		return a[0] == 127;
	return inet_pton(AF_INET6, host, a) == 1 && memcmp(a, one, sizeof(one)) == 0;
}

const char *conf_parse_webhook_url(const char *s, char **host)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *h = NULL, *user = NULL, *password = NULL, *options = NULL;
	const char *why = NULL;
	size_t n;

	*host = NULL;
	if (!u)
		return "out of memory";
	if (curl_url_set(u, CURLUPART_URL, s, 0) != CURLUE_OK) {
		why = "not an absolute URL";
		goto out;
	}
	if (curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &h, 0) != CURLUE_OK || !*h) {
		why = "no scheme or no host";
		goto out;
	}
	curl_url_get(u, CURLUPART_USER, &user, 0);
	curl_url_get(u, CURLUPART_PASSWORD, &password, 0);
	curl_url_get(u, CURLUPART_OPTIONS, &options, 0);
	if (user || password || options) {
		why = "a user name or password in the URL is refused (sign with approval_webhook_secret_file)";
		goto out;
	}
	/* An IPv6 address comes back in brackets; the allowlist holds it bare. */
	n = strlen(h);
	if (h[0] == '[' && n > 2 && h[n - 1] == ']') {
		memmove(h, h + 1, n - 2);
		h[n - 2] = '\0';
	}
	if (strcasecmp(scheme, "https") == 0)
		;
	else if (strcasecmp(scheme, "http") != 0)
		why = "the scheme must be https";
	else if (!loopback_literal(h))
		why = "http:// is allowed only to a loopback address (127.0.0.1 or [::1]); use https";
	if (!why) {
		*host = strdup(h);
		if (!*host)
			why = "out of memory";
	}
out:
	curl_free(scheme);
	curl_free(h);
	curl_free(user);
	curl_free(password);
	curl_free(options);
	curl_url_cleanup(u);
	return why;
}

void conf_free_list(char **items, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(items[i]);
	free(items);
}

const char *conf_check_conninfo(const char *s)
{
	PQconninfoOption *opts;
	const char *why = NULL;
	char *err = NULL;

	if (!conf_valid_text(s))
		return "not a connection string";
	opts = PQconninfoParse(s, &err);
	PQfreemem(err); /* may quote the value: never shown */
	if (!opts)
		return "libpq cannot parse it as a connection string";
	for (PQconninfoOption *o = opts; o->keyword; o++) {
		if (strcmp(o->keyword, "password") == 0 && o->val && o->val[0])
			why = "it holds a password, which the configuration would show to everyone who reads it";
	}
	PQconninfoFree(opts);
	return why;
}
