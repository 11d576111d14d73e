/* fd_pass: see fd_pass.h. */
#define _GNU_SOURCE
#include "base/fd_pass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Room for one descriptor's control message, aligned as cmsghdr wants. */
union fd_pass_ctl {
	struct cmsghdr h;
	char space[CMSG_SPACE(sizeof(int))];
};

int fd_pass_send(int sock, char byte, int fd)
{
	union fd_pass_ctl ctl;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;

	memset(&ctl, 0, sizeof(ctl));
	msg.msg_control = ctl.space;
	msg.msg_controllen = sizeof(ctl.space);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT) == 1 ? 0 : -1;
}

/* Closes every descriptor c carries (SCM_RIGHTS). */
static void close_carried(struct cmsghdr *c)
{
	size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

	for (size_t i = 0; i < n; i++) {
		int fd;

		memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
		close(fd);
	}
}

int fd_pass_recv(int sock, char *byte, int flags)
{
	/* Room for more than one, so that a message carrying several is seen and all of them closed. */
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(8 * sizeof(int))];
	} ctl;
	struct iovec iov = {.iov_base = byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	int fd = -1, kept = 0;
	ssize_t n;

	msg.msg_control = ctl.space;
	msg.msg_controllen = sizeof(ctl.space);
	n = recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
	if (n <= 0) {
		if (n == 0)
			errno = 0;
		return -1;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		if (c->cmsg_len == CMSG_LEN(sizeof(int)) && kept++ == 0) {
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
			continue;
		}
		close_carried(c);
		kept++;
	}
	if (fd >= 0 && kept == 1 && !(msg.msg_flags & MSG_CTRUNC))
		return fd;
	if (fd >= 0)
		close(fd);
	errno = EBADMSG;
	return -1;
}
