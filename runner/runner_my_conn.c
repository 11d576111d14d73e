/*
 * runner_my_conn: a Connector/C connection with the runner's fixed
 * options (see runner_my_conn.h).
 */
#include "runner/runner_my_conn.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <errmsg.h>

#include "runner/runner_ctl.h"

/* A path under a file, so no plugin can ever be loaded from it. */
#define NO_PLUGIN_DIR "/dev/null/airlock-no-plugins"
#define ONLY_AUTH "mysql_native_password"
#define CHARSET "utf8mb4"
/*
 * The largest packet (so row) the client buffers: MySQL's default
 * max_allowed_packet. A row above FRAME_MAX_PAYLOAD is reported as a
 * max_bytes truncation; one above this ends the connection (Connector/C
 * reports CR_SERVER_LOST), so memory stays bounded either way.
 */
#define MAX_PACKET (64ul * 1024ul * 1024ul)

int my_conn_library_init(void)
{
	/* Read by the library at initialisation or at connect; never wanted here. */
	unsetenv("LIBMYSQL_PLUGINS");
	unsetenv("LIBMYSQL_PLUGIN_DIR");
	unsetenv("MARIADB_PLUGIN_DIR");
	unsetenv("MYSQL_PWD");
	unsetenv("MYSQL_HOST");
	unsetenv("MYSQL_UNIX_PORT");
	unsetenv("MYSQL_TCP_PORT");
	return mysql_library_init(0, NULL, NULL) == 0 ? 0 : -1;
}

/* Every option the runner depends on; 0 when all were accepted. */
static int set_options(MYSQL *m, unsigned connect_s, unsigned read_s, unsigned write_s)
{
	unsigned int zero = 0;
	unsigned int proto = MYSQL_PROTOCOL_SOCKET;
	my_bool off = 0;
	unsigned long max_packet = MAX_PACKET;
	int bad = 0;

	bad |= mysql_options(m, MYSQL_OPT_CONNECT_TIMEOUT, &connect_s);
	bad |= mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &read_s);
	bad |= mysql_options(m, MYSQL_OPT_WRITE_TIMEOUT, &write_s);
	bad |= mysql_options(m, MYSQL_OPT_LOCAL_INFILE, &zero);
	bad |= mysql_options(m, MYSQL_OPT_RECONNECT, &off);
	bad |= mysql_options(m, MYSQL_OPT_PROTOCOL, &proto);
	bad |= mysql_options(m, MYSQL_SET_CHARSET_NAME, CHARSET);
	bad |= mysql_options(m, MYSQL_PLUGIN_DIR, NO_PLUGIN_DIR);
	bad |= mysql_options(m, MYSQL_DEFAULT_AUTH, ONLY_AUTH);
	bad |= mysql_options(m, MARIADB_OPT_RESTRICTED_AUTH, ONLY_AUTH);
	bad |= mysql_options(m, MYSQL_ENABLE_CLEARTEXT_PLUGIN, &off);
	bad |= mysql_options(m, MYSQL_OPT_MAX_ALLOWED_PACKET, &max_packet);
	bad |= mysql_options4(m, MYSQL_OPT_CONNECT_ATTR_ADD, "program_name", "airlock-runner");
	/* Rows are read without blocking while the connector holds them (runner_my.c, next_row). */
	bad |= mysql_options(m, MYSQL_OPT_NONBLOCK, 0);
	return bad ? -1 : 0;
}

MYSQL *my_conn_open(const char *sock_path, const char *user, const char *password, const char *dbname,
		    unsigned connect_s, unsigned read_s, unsigned write_s, unsigned *err)
{
	MYSQL *m = mysql_init(NULL);

	*err = 0;
	if (!m)
		return NULL;
	if (set_options(m, connect_s, read_s, write_s) < 0) {
		*err = CR_UNKNOWN_ERROR;
		goto out_close;
	}
	/*
	 * No CLIENT_MULTI_STATEMENTS, no CLIENT_LOCAL_FILES. CLIENT_FOUND_ROWS: an
	 * UPDATE counts the rows it matched, as Postgres does, not only those whose
	 * values changed (a governed write is approved by the rows it touches).
	 */
	if (!mysql_real_connect(m, "localhost", user, password, dbname && dbname[0] ? dbname : NULL, 0, sock_path,
				CLIENT_FOUND_ROWS)) {
		*err = mysql_errno(m);
		if (*err == 0)
			*err = CR_UNKNOWN_ERROR;
		goto out_close;
	}
	/* What was negotiated, checked rather than assumed. */
	if (m->client_flag & (CLIENT_LOCAL_FILES | CLIENT_MULTI_STATEMENTS)) {
		*err = CR_UNKNOWN_ERROR;
		goto out_close;
	}
	return m;
out_close:
	mysql_close(m);
	return NULL;
}

/* A fixed description of why the connection failed; never the library's text. */
const char *my_conn_failure(unsigned err)
{
	switch (err) {
	case 1045:
		return "could not connect to the database: the database rejected the credentials";
	case 1044:
	case 1049:
		return "could not connect to the database: the database does not exist or is not accessible";
	case 1040:
	case 1203:
	case 1226:
		return "could not connect to the database: the database has no free connection slots";
	case 1251:
	case 2059:
	case 2061:
	case 5010:
		return "could not connect to the database: the account does not use mysql_native_password";
	case 2002:
	case 2003:
	case 2006:
	case 2013:
		return "could not connect to the database: the database relay is not available";
	default:
		return "could not connect to the database";
	}
}

/* Replaces each 'user'@'host' naming the job's account with '***'@'***'. */
void my_conn_mask_account(const char *msg, const char *user, char *out, size_t cap)
{
	size_t ulen = strlen(user), len = 0;
	const char *p = msg;

	while (*p && len + 1 < cap) {
		const char *host;
		const char *close;

		if (p[0] == '\'' && strncmp(p + 1, user, ulen) == 0 && strncmp(p + 1 + ulen, "'@'", 3) == 0 &&
		    (host = p + 1 + ulen + 3, close = strchr(host, '\'')) != NULL) {
			static const char mask[] = "'***'@'***'";

			if (len + sizeof(mask) > cap)
				break;
			memcpy(out + len, mask, sizeof(mask) - 1);
			len += sizeof(mask) - 1;
			p = close + 1;
			continue;
		}
		out[len++] = *p++;
	}
	out[len] = '\0';
}

MYSQL_ROW my_conn_fetch(MYSQL *m, MYSQL_RES *res, struct runner_ctl *ctl, bool *gone)
{
	MYSQL_ROW row = NULL;
	int st = mysql_fetch_row_start(&row, res);

	*gone = false;
	while (st) {
		struct pollfd p = {.fd = mysql_get_socket(m), .events = 0};
		int timeout = -1, n, ready = 0;

		if (ctl->out.len && runner_ctl_flush(ctl) < 0) {
			*gone = true;
			return NULL;
		}
		if (st & MYSQL_WAIT_READ)
			p.events |= POLLIN;
		if (st & MYSQL_WAIT_WRITE)
			p.events |= POLLOUT;
		if (st & MYSQL_WAIT_TIMEOUT)
			timeout = (int)mysql_get_timeout_value_ms(m);
		n = poll(&p, 1, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			ready = MYSQL_WAIT_TIMEOUT;
		if (n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)))
			ready |= MYSQL_WAIT_READ;
		if (n > 0 && (p.revents & POLLOUT))
			ready |= MYSQL_WAIT_WRITE;
		/* A failed poll is given to the connector as a timeout: the read ends with its error. */
		st = mysql_fetch_row_cont(&row, res, n < 0 ? MYSQL_WAIT_TIMEOUT : ready);
	}
	return row;
}
