/*
 * job_dir: a job's directory and sockets (see job_dir.h). Removal never
 * builds a path below a job directory: each level is opened from its
 * parent's descriptor with O_NOFOLLOW, so a symlink or a directory renamed
 * in between cannot lead it elsewhere.
 */
#define _GNU_SOURCE
#include "proxy/job/job_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "proxy/log.h"

const char *job_dir_db_sock(const char *engine)
{
	return engine && strcmp(engine, "mariadb") == 0 ? "mysqld.sock" : ".s.PGSQL.5432";
}

bool job_dir_is_id(const char *name)
{
	size_t i;

	for (i = 0; i < JOB_DIR_ID_LEN; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return false;
	return name[i] == '\0';
}

int job_dir_make(const char *path)
{
	if (mkdir(path, 0700) < 0)
		return -1;
	/* Search only, for others: the runner's uid reaches its sockets by name and nothing else. */
	return chmod(path, 0711);
}

int job_dir_listen(const char *path, uid_t uid, gid_t gid)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	int fd, err;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 || listen(fd, 4) < 0)
		goto out_close;
	if (geteuid() == 0 && lchown(path, uid, gid) < 0)
		goto out_close;
	if (chmod(path, 0600) < 0)
		goto out_close;
	return fd;
out_close:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

int job_dir_put_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	size_t len = strlen(text), off = 0;
	int fd, err = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	while (off < len && !err) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno != EINTR)
			err = errno;
		else if (w > 0)
			off += (size_t)w;
	}
	/* The umask may have narrowed the mode the runner needs. */
	if (!err && fchmod(fd, 0644) < 0)
		err = errno;
	close(fd);
	errno = err;
	return err ? -1 : 0;
}

bool job_dir_peer_ok(int fd, uid_t runner_uid)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	return cred.uid == runner_uid || (geteuid() != 0 && cred.uid == geteuid());
}

/*
 * Removes name in the directory dfd, whatever it is: anything but a
 * directory is unlinked (a symlink itself, never its target); a directory
 * is emptied the same way, depth levels down at most, then removed.
 * Returns 0, or -1 with errno of the first thing that stayed.
 */
static int job_dir_unlink(int dfd, const char *name, int depth)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd, err = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -1 : 0;
	if (depth < 0) {
		errno = ELOOP;
		return -1;
	}
	/* Swapped for a symlink or a non-directory since the fstatat: refused here. */
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (job_dir_unlink(dirfd(d), de->d_name, depth - 1) < 0 && !err)
			err = errno;
	}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && !err)
		err = errno;
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int job_dir_remove(const char *path)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int pfd, rc, err;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(parent) || !job_dir_is_id(slash + 1)) {
		errno = EINVAL;
		return -1;
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - path), path);
	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return errno == ENOENT ? 0 : -1;
	rc = job_dir_unlink(pfd, slash + 1, JOB_DIR_MAX_DEPTH);
	err = errno;
	close(pfd);
	errno = err;
	return rc;
}

int job_dir_sweep(const char *job_dir)
{
	struct dirent *de;
	DIR *d;
	int fd, n = 0;

	fd = open(job_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		if (!job_dir_is_id(de->d_name))
			continue;
		if (job_dir_unlink(dirfd(d), de->d_name, JOB_DIR_MAX_DEPTH) == 0)
			n++;
		else
			log_warn("job_dir %s: could not remove the leftover job directory %s: %s", job_dir, de->d_name,
				 strerror(errno));
	}
	closedir(d);
	return n;
}

/* The pid written in the lock file (at most a line), or 0. */
static long lock_holder(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid = 0;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%ld", &pid) != 1 || pid <= 0)
		return 0;
	return pid;
}

int job_dir_lock(const char *job_dir, char *err, size_t errlen)
{
	char path[PATH_MAX], pid[32];
	int dfd, fd, len;

	dfd = open(job_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0) {
		snprintf(err, errlen, "job_dir %s: %s", job_dir, strerror(errno));
		return -1;
	}
	fd = openat(dfd, JOB_DIR_LOCK, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	close(dfd);
	snprintf(path, sizeof(path), "%s/" JOB_DIR_LOCK, job_dir);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		long holder = errno == EWOULDBLOCK ? lock_holder(fd) : 0;

		if (holder)
			snprintf(err, errlen,
				 "job_dir %s is in use by airlockd pid %ld (%s); give each instance a job_dir of its "
				 "own",
				 job_dir, holder, path);
		else
			snprintf(err, errlen, "job_dir %s: cannot lock %s: %s", job_dir, path, strerror(errno));
		close(fd);
		return -1;
	}
	len = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)len, 0) != len) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}
