/*
 * test_job_proc: reading /proc text about a job's backend: the private
 * memory and parent of a status file, the keys of /proc/net/tcp{,6} for
 * IPv4, IPv6 and v4-mapped addresses, the inode of exactly the
 * established connection asked for, and fd link targets.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "proxy/job/job_proc.h"

static const char status[] = "Name:\tpostgres\n"
			     "State:\tR (running)\n"
			     "Pid:\t4242\n"
			     "PPid:\t777\n"
			     "TracerPid:\t0\n"
			     "VmRSS:\t  600000 kB\n"
			     "RssAnon:\t  524288 kB\n"
			     "RssFile:\t   10000 kB\n"
			     "RssShmem:\t  131072 kB\n"
			     "VmSwap:\t    1024 kB\n";

static void test_status(void **state)
{
	static const char no_swap[] = "RssAnon:\t 100 kB\n";
	static const char no_anon[] = "VmRSS:\t 100 kB\nVmSwap:\t 0 kB\n";
	static const char bad[] = "RssAnon:\t kB\n";

	(void)state;
	/* RssAnon + VmSwap: neither the shared buffers (RssShmem) nor the binary (RssFile). */
	assert_int_equal(job_proc_private_bytes(status, strlen(status)), (int64_t)(524288 + 1024) * 1024);
	assert_int_equal(job_proc_private_bytes(no_swap, strlen(no_swap)), 100 * 1024);
	assert_int_equal(job_proc_private_bytes(no_anon, strlen(no_anon)), -1);
	assert_int_equal(job_proc_private_bytes(bad, strlen(bad)), -1);
	/* Only what the caller says was read counts. */
	assert_int_equal(job_proc_private_bytes(status, 20), -1);
	/* PPid, not Pid or TracerPid. */
	assert_int_equal(job_proc_ppid(status, strlen(status)), 777);
	assert_int_equal(job_proc_ppid(no_swap, strlen(no_swap)), 0);
}

static void test_tcp_keys(void **state)
{
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(5432)};
	struct sockaddr_in6 in6 = {.sin6_family = AF_INET6, .sin6_port = htons(41000)};
	char key[JOB_PROC_TCP_KEY_LEN];
	uint32_t w[4];
	char want[JOB_PROC_TCP_KEY_LEN];

	(void)state;
	inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
	assert_true(job_proc_tcp_key((struct sockaddr *)&in, false, key));
	snprintf(want, sizeof(want), "%08X:1538", (unsigned)in.sin_addr.s_addr);
	assert_string_equal(key, want);
	/* In tcp6 the same address is v4-mapped. */
	assert_true(job_proc_tcp_key((struct sockaddr *)&in, true, key));
	inet_pton(AF_INET6, "::ffff:127.0.0.1", &in6.sin6_addr);
	memcpy(w, in6.sin6_addr.s6_addr, sizeof(w));
	snprintf(want, sizeof(want), "%08X%08X%08X%08X:1538", w[0], w[1], w[2], w[3]);
	assert_string_equal(key, want);
	/* A v4-mapped IPv6 address has a tcp key; a real IPv6 address has none. */
	assert_true(job_proc_tcp_key((struct sockaddr *)&in6, false, key));
	assert_string_equal(key + 8, ":A028");
	inet_pton(AF_INET6, "::1", &in6.sin6_addr);
	assert_false(job_proc_tcp_key((struct sockaddr *)&in6, false, key));
	assert_true(job_proc_tcp_key((struct sockaddr *)&in6, true, key));
	assert_int_equal(strlen(key), 37);
	in.sin_family = AF_UNIX;
	assert_false(job_proc_tcp_key((struct sockaddr *)&in, false, key));
}

static const char table[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
	"   0: 0100007F:1538 00000000:0000 0A 00000000:00000000 00:00000000 00000000   108        0 1000 1 0 100\n"
	"   1: 0100007F:1538 0100007F:A028 06 00000000:00000000 00:00000000 00000000   108        0 2000 1 0 100\n"
	"   2: 0100007F:1538 0100007F:A028 01 00000000:00000000 00:00000000 00000000   108        0 3000 1 0 100\n"
	"   3: 0100007F:A028 0100007F:1538 01 00000000:00000000 00:00000000 00000000     0        0 4000 1 0 100\n";

static void test_tcp_inode(void **state)
{
	(void)state;
	/* The established one (01), not the listener (0A) or one in TIME_WAIT (06) with the same ends. */
	assert_int_equal(job_proc_tcp_inode(table, strlen(table), "0100007F:1538", "0100007F:A028"), 3000);
	/* The ends are ordered: the other side's socket is another inode. */
	assert_int_equal(job_proc_tcp_inode(table, strlen(table), "0100007F:A028", "0100007F:1538"), 4000);
	assert_int_equal(job_proc_tcp_inode(table, strlen(table), "0100007F:1538", "0100007F:A029"), 0);
	assert_int_equal(job_proc_tcp_inode("", 0, "0100007F:1538", "0100007F:A028"), 0);
	/* A line cut before its inode is no match. */
	assert_int_equal(job_proc_tcp_inode(table, strlen(table) - 20, "0100007F:A028", "0100007F:1538"), 0);
}

static void test_socket_inode(void **state)
{
	(void)state;
	assert_int_equal(job_proc_socket_inode("socket:[3000]"), 3000);
	assert_int_equal(job_proc_socket_inode("socket:[]"), 0);
	assert_int_equal(job_proc_socket_inode("socket:[30x]"), 0);
	assert_int_equal(job_proc_socket_inode("socket:[3000]x"), 0);
	assert_int_equal(job_proc_socket_inode("pipe:[3000]"), 0);
	assert_int_equal(job_proc_socket_inode("/dev/null"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_tcp_keys),
		cmocka_unit_test(test_tcp_inode),
		cmocka_unit_test(test_socket_inode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
