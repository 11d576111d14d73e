/*
 * job_proc: what /proc says about a job's database backend, read from text
 * the caller has read (pure: no I/O, nothing allocated). The memory watch
 * (job_mem.h) uses it to check that a pid a runner reported holds the
 * other end of the job's own relay, and to read the backend's memory.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_PROC_H
#define AIRLOCK_PROXY_JOB_JOB_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* "ADDR:PORT" as /proc/net/tcp{,6} print it: 8 or 32 hex digits, 4 for the port. */
#define JOB_PROC_TCP_KEY_LEN 38

/*
 * The process's private memory from the text of /proc/PID/status:
 * RssAnon + VmSwap in bytes (the heap and other anonymous pages, not the
 * shared buffers a database maps, nor the binary's pages). -1 when RssAnon
 * is missing (VmSwap absent counts as 0).
 */
int64_t job_proc_private_bytes(const char *status, size_t len);
/* The PPid field of /proc/PID/status text; 0 when absent or malformed. */
long job_proc_ppid(const char *status, size_t len);
/*
 * The key of sa (AF_INET or AF_INET6) in /proc/net/tcp (v6 false) or
 * /proc/net/tcp6 (v6 true): an IPv4 address in tcp6 is the v4-mapped one,
 * a v4-mapped IPv6 address in tcp is its IPv4 address. false when sa has
 * no form in that table.
 */
bool job_proc_tcp_key(const struct sockaddr *sa, bool v6, char out[JOB_PROC_TCP_KEY_LEN]);
/*
 * The inode of the established socket in a /proc/net/tcp{,6} table whose
 * local address is local_key and remote address rem_key; 0 when none.
 */
uint64_t job_proc_tcp_inode(const char *table, size_t len, const char *local_key, const char *rem_key);
/* The inode of a /proc/PID/fd link's target "socket:[N]"; 0 for anything else. */
uint64_t job_proc_socket_inode(const char *target);

#endif
