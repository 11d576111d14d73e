/*
 * runner_my_conn: opens a MariaDB Connector/C connection to the job's
 * relay socket with the runner's fixed options, for the statement's own
 * connection and for the watchdog's KILL connection alike: unix socket
 * only, no LOAD DATA LOCAL, no multi statements, no reconnect, no option
 * files, mysql_native_password only and no plugin loaded from disk.
 */
#ifndef AIRLOCK_RUNNER_MY_CONN_H
#define AIRLOCK_RUNNER_MY_CONN_H

#include <stdbool.h>
#include <stddef.h>

#include <mysql.h>

/*
 * Drops the environment variables Connector/C would act on (plugins to
 * preload, a plugin directory, a default password) and initialises the
 * library. Call once from the main thread before any other thread exists.
 * 0, or -1 when the library could not be initialised.
 */
int my_conn_library_init(void);

/*
 * Connects to the relay socket at sock_path as user/password, with dbname
 * as the default database (NULL or "" for none) and charset utf8mb4.
 * Timeouts are in seconds (Connector/C's unit). Returns a handle the
 * caller closes with mysql_close, or NULL with *err set to the client's
 * or server's error number (0 when out of memory). A handle whose
 * negotiated capabilities include LOCAL INFILE or multi statements is
 * closed and refused (*err = CR_UNKNOWN_ERROR).
 */
MYSQL *my_conn_open(const char *sock_path, const char *user, const char *password, const char *dbname,
		    unsigned connect_s, unsigned read_s, unsigned write_s, unsigned *err);

struct runner_ctl;

/*
 * The next row of res (read with mysql_use_result on m, opened by
 * my_conn_open), NULL at the end or on an error (mysql_errno tells); *gone
 * set when the frames queued on ctl could not be sent. The connector hands
 * out the rows it already holds without waiting; only when it must wait
 * for the server are ctl's queued frames flushed. So the proxy has every
 * row before a slow one, and rows that stream in go out in writes of
 * RUNNER_CTL_FLUSH_AT rather than one per row.
 */
MYSQL_ROW my_conn_fetch(MYSQL *m, MYSQL_RES *res, struct runner_ctl *ctl, bool *gone);

/* msg (a backend's text) into out (cap bytes) with each 'user'@'host' naming user as '***'@'***'. */
void my_conn_mask_account(const char *msg, const char *user, char *out, size_t cap);

/* A fixed description of why a connection failed (err as my_conn_open set it); never the library's text. */
const char *my_conn_failure(unsigned err);

#endif
