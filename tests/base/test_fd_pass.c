/*
 * test_fd_pass: a descriptor handed over a socketpair arrives as the same
 * file with its byte; what is not one byte with one descriptor (no
 * descriptor, two in one message, two messages' worth) is refused with
 * EBADMSG and leaves no descriptor open; EOF is -1 with errno 0; a send
 * to a closed peer fails without SIGPIPE.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/fd_pass.h"

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
}

static void test_handed_descriptor_is_the_same_file(void **state)
{
	int sv[2], got, before;
	char byte = 0;
	struct stat a, b;

	(void)state;
	pair(sv);
	int file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(file >= 0);
	before = open_fds();
	assert_int_equal(fd_pass_send(sv[0], 'F', file), 0);
	got = fd_pass_recv(sv[1], &byte, 0);
	assert_true(got >= 0);
	assert_int_equal(byte, 'F');
	assert_int_equal(fstat(file, &a), 0);
	assert_int_equal(fstat(got, &b), 0);
	assert_int_equal(a.st_ino, b.st_ino);
	assert_int_equal(a.st_dev, b.st_dev);
	assert_true(fcntl(got, F_GETFD) & FD_CLOEXEC);
	close(got);
	assert_int_equal(open_fds(), before);
	close(file);
	close(sv[0]);
	close(sv[1]);
}

static void test_a_byte_without_descriptor_is_refused(void **state)
{
	int sv[2];
	char byte = 0;

	(void)state;
	pair(sv);
	assert_int_equal(write(sv[0], "F", 1), 1);
	errno = 0;
	assert_int_equal(fd_pass_recv(sv[1], &byte, 0), -1);
	assert_int_equal(errno, EBADMSG);
	close(sv[0]);
	close(sv[1]);
}

static void test_two_descriptors_are_refused_and_closed(void **state)
{
	int sv[2], fds[2], before;
	char byte = 'F';
	union {
		struct cmsghdr h;
		char space[CMSG_SPACE(2 * sizeof(int))];
	} ctl;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;

	(void)state;
	pair(sv);
	fds[0] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fds[1] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	memset(&ctl, 0, sizeof(ctl));
	msg.msg_control = ctl.space;
	msg.msg_controllen = sizeof(ctl.space);
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(2 * sizeof(int));
	memcpy(CMSG_DATA(c), fds, sizeof(fds));
	assert_int_equal(sendmsg(sv[0], &msg, 0), 1);
	close(fds[0]);
	close(fds[1]);
	before = open_fds();
	errno = 0;
	assert_int_equal(fd_pass_recv(sv[1], &byte, 0), -1);
	assert_int_equal(errno, EBADMSG);
	assert_int_equal(open_fds(), before);
	close(sv[0]);
	close(sv[1]);
}

static void test_eof_and_a_closed_peer(void **state)
{
	int sv[2];
	char byte = 0;

	(void)state;
	pair(sv);
	close(sv[0]);
	errno = EINVAL;
	assert_int_equal(fd_pass_recv(sv[1], &byte, 0), -1);
	assert_int_equal(errno, 0);
	pair(sv);
	close(sv[1]);
	/* No SIGPIPE ends the test program: the send just fails. */
	assert_int_equal(fd_pass_send(sv[0], 'F', sv[0]), -1);
	assert_int_equal(errno, EPIPE);
	close(sv[0]);
}

static void test_nothing_waiting_would_block(void **state)
{
	int sv[2];
	char byte = 0;

	(void)state;
	pair(sv);
	assert_int_equal(fd_pass_recv(sv[1], &byte, MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handed_descriptor_is_the_same_file),
		cmocka_unit_test(test_a_byte_without_descriptor_is_refused),
		cmocka_unit_test(test_two_descriptors_are_refused_and_closed),
		cmocka_unit_test(test_eof_and_a_closed_peer),
		cmocka_unit_test(test_nothing_waiting_would_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
