/*
 * job_dir: a job's private directory, <job_dir>/<id>, and the unix sockets
 * in it. Owns the socket names (control.sock, and the relay socket the
 * target's engine looks for), making the directory and each listening
 * socket with the runner's ownership, checking who connects, and removing
 * a directory with whatever it holds, whether this run made it or a
 * crashed run left it.
 *
 * The directory belongs to the runner uid, so anything that runs as that
 * uid on the host may have put files, symlinks, FIFOs or directories in
 * it. Removal works on directory descriptors only (openat with
 * O_NOFOLLOW, unlinkat, fstatat with AT_SYMLINK_NOFOLLOW): a symlink is
 * removed, never followed, and nothing outside job_dir is touched.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_DIR_H
#define AIRLOCK_PROXY_JOB_JOB_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define JOB_DIR_CTL_SOCK "control.sock"
/* A job directory's name: this many lower-case hex digits (the job id). */
#define JOB_DIR_ID_LEN 32
/* Directory levels removal goes into below a job directory; deeper is left and logged. */
#define JOB_DIR_MAX_DEPTH 8

/*
 * The relay socket's name for a target engine ("postgres" or "mariadb"):
 * what the runner's client library looks for in /job (libpq's
 * .s.PGSQL.5432, or the MariaDB runner's mysqld.sock). A static string.
 */
const char *job_dir_db_sock(const char *engine);

/* Is name a job directory's name (JOB_DIR_ID_LEN lower-case hex digits)? */
bool job_dir_is_id(const char *name);

/*
 * Makes the directory path, owned by the proxy, mode 0711: the runner may
 * reach the sockets inside by name, and nobody but the proxy may list,
 * add or replace anything there. 0, or -1 with errno.
 */
int job_dir_make(const char *path);

/*
 * A nonblocking, listening unix socket at path, mode 0600, owned by
 * uid:gid when the proxy runs as root (set without following a link), so
 * only the job's runner can connect. Returns the descriptor (the caller
 * owns it), or -1 with errno.
 */
int job_dir_listen(const char *path, uid_t uid, gid_t gid);

/*
 * Writes text as the new file name in the directory dir (made by
 * job_dir_make), mode 0644: what the runner may read, never a secret.
 * 0, or -1 with errno.
 */
int job_dir_put_file(const char *dir, const char *name, const char *text);

/*
 * May the peer of the accepted unix socket fd use a job's sockets? A
 * root-run proxy accepts only runner_uid; any other also accepts its own uid.
 */
bool job_dir_peer_ok(int fd, uid_t runner_uid);

/*
 * Removes the job directory path (<job_dir>/<id>) and everything in it.
 * Returns 0 when it is gone (or was never there), else -1 with errno of
 * the first thing that stayed.
 */
int job_dir_remove(const char *path);

/* The lock file in job_dir that one airlockd holds while it runs. */
#define JOB_DIR_LOCK ".airlockd.lock"

/*
 * Takes the exclusive lock on job_dir (JOB_DIR_LOCK, flock) and writes this
 * process's pid into it. Returns the descriptor, which holds the lock for
 * as long as it is open (close-on-exec, so no child inherits it), or -1
 * with a message in err: another process holds it (its pid named) or the
 * file cannot be made. Nothing else in job_dir is touched either way.
 */
int job_dir_lock(const char *job_dir, char *err, size_t errlen);

/*
 * Removes every job directory (a name job_dir_is_id accepts) under
 * job_dir, as an earlier run left it. Other names are left alone, and a
 * directory that cannot be fully removed is logged and skipped. Returns
 * how many were removed, or -1 when job_dir cannot be read.
 */
int job_dir_sweep(const char *job_dir);

#endif
