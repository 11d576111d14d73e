/*
 * oci_seccomp: the runner container's seccomp filter. Default deny (EPERM)
 * and an allowlist of what the runner itself calls: the dynamic loader and
 * libc start-up, memory, its two unix sockets (the control socket and the
 * database relay), the backend's TCP socket airlockd hands it over the
 * relay for a TLS target (proxy/job/relay.h), the abstract unix socket of its TLS shim
 * (runner/runner_tls.h: bind, listen, accept4, reachable only from the
 * runner's own network namespace), poll, time, signals for its own exit,
 * and what the runtime's init does between loading the filter and
 * executing the runner.
 * It was read off strace of the runner's Postgres and MariaDB jobs;
 * nothing here creates a process, a namespace, a mount or an inet socket.
 * Arguments are checked where a call could do more than the runner needs:
 * socket only for AF_UNIX; clone only for a thread (the MariaDB runner's
 * watchdog) and never with a namespace flag; clone3, whose flags a filter
 * cannot read, fails with ENOSYS so that libc falls back to clone.
 */
#define _GNU_SOURCE
#include "launch/oci_spec.h"

#include <errno.h>
#include <sched.h>
#include <sys/socket.h>

#define NS_FLAGS                                                                                                     \
	(CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP | \
	 CLONE_NEWTIME)

static const char *const allowed[] = {
	/* start-up: exec, loader, libc */
	"execve",
	"brk",
	"arch_prctl",
	"set_tid_address",
	"set_robust_list",
	"rseq",
	"prlimit64",
	"getrandom",
	"mmap",
	"mprotect",
	"munmap",
	"mremap",
	"madvise",
	"access",
	"faccessat",
	"faccessat2",
	"openat",
	"open",
	"read",
	"pread64",
	"readv",
	"write",
	"writev",
	"close",
	"close_range",
	"fstat",
	"newfstatat",
	"stat",
	"lstat",
	"statx",
	"lseek",
	"readlink",
	"readlinkat",
	"getcwd",
	"fcntl",
	"ioctl",
	"dup",
	"dup2",
	"dup3",
	"uname",
	"sysinfo",
	"getpid",
	"gettid",
	"getppid",
	"getuid",
	"geteuid",
	"getgid",
	"getegid",
	"getgroups",
	"getresuid",
	"getresgid",
	"capget",
	"sched_getaffinity",
	"sched_yield",
	"futex",
	"exit",
	"exit_group",
	/* signals: its handlers, and abort */
	"rt_sigaction",
	"rt_sigprocmask",
	"rt_sigreturn",
	/* a poll or sleep interrupted by a stop, a cgroup freeze or a tracer resumes instead of failing */
	"restart_syscall",
	"sigaltstack",
	"tgkill",
	"kill",
	/* threads (clone itself: below) */
	"membarrier",
	/* time and waiting */
	"clock_gettime",
	"clock_getres",
	"gettimeofday",
	"time",
	"nanosleep",
	"clock_nanosleep",
	"poll",
	"ppoll",
	"select",
	"pselect6",
	"epoll_create1",
	"epoll_ctl",
	"epoll_wait",
	"epoll_pwait",
	"pipe2",
	"eventfd2",
	/* its sockets (socket itself: unix only, below) */
	"connect",
	"sendto",
	"recvfrom",
	"sendmsg",
	"recvmsg",
	"sendmmsg",
	"recvmmsg",
	"shutdown",
	"getsockopt",
	"setsockopt",
	"getsockname",
	"getpeername",
	/* the TLS shim's listener (an abstract unix socket: socket is unix only) */
	"bind",
	"listen",
	"accept4",
	/* the runtime's init after the filter is loaded */
	"fchdir",
	"chdir",
	"setgroups",
	"setuid",
	"setgid",
	"setresuid",
	"setresgid",
	"capset",
	"prctl",
	"fstatfs",
	"statfs",
	"getdents64",
	"umask",
};

json_t *oci_seccomp(void)
{
	json_t *names = json_array(), *syscalls, *sc;

	for (size_t i = 0; names && i < sizeof(allowed) / sizeof(allowed[0]); i++)
		json_array_append_new(names, json_string(allowed[i]));
	syscalls = json_pack("[{s:o, s:s}, {s:[s], s:s, s:[{s:i, s:I, s:s}]}, {s:[s], s:s, s:[{s:i, s:I, s:I, s:s}]},"
			     " {s:[s], s:s, s:i}]",
			     "names", names, "action", "SCMP_ACT_ALLOW", "names", "socket", "action", "SCMP_ACT_ALLOW",
			     "args", "index", 0, "value", (json_int_t)AF_UNIX, "op", "SCMP_CMP_EQ", "names", "clone",
			     "action", "SCMP_ACT_ALLOW", "args", "index", 0, "value",
			     (json_int_t)(NS_FLAGS | CLONE_THREAD), "valueTwo", (json_int_t)CLONE_THREAD, "op",
			     "SCMP_CMP_MASKED_EQ", "names", "clone3", "action", "SCMP_ACT_ERRNO", "errnoRet", ENOSYS);
	/* For SCMP_CMP_MASKED_EQ, value is the mask and valueTwo what the masked argument must equal. */
	sc = json_pack("{s:s, s:i, s:[s, s], s:o}", "defaultAction", "SCMP_ACT_ERRNO", "defaultErrnoRet", 1,
		       "architectures", "SCMP_ARCH_X86_64", "SCMP_ARCH_AARCH64", "syscalls", syscalls);
	return sc;
}
