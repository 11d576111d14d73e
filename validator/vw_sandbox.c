/*
 * vw_sandbox: limits, no-new-privileges and the seccomp filter of a
 * validator worker. See vw_sandbox.h.
 */
#include "validator/vw_sandbox.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "base/sanitizer.h"

static int limit(int resource, rlim_t soft, rlim_t hard, const char *what, char *err, size_t errlen)
{
	struct rlimit rl = {.rlim_cur = soft, .rlim_max = hard};

	if (setrlimit(resource, &rl) == 0)
		return 0;
	snprintf(err, errlen, "setrlimit %s: %s", what, strerror(errno));
	return -1;
}

static int limits(const struct vw_limits *l, char *err, size_t errlen)
{
#if !AIRLOCK_ASAN
	if (l->memory_mb &&
	    limit(RLIMIT_AS, (rlim_t)l->memory_mb << 20, (rlim_t)l->memory_mb << 20, "AS", err, errlen) < 0)
		return -1;
#endif
	if (l->cpu_seconds && limit(RLIMIT_CPU, l->cpu_seconds, (rlim_t)l->cpu_seconds + 1, "CPU", err, errlen) < 0)
		return -1;
	if (limit(RLIMIT_CORE, 0, 0, "CORE", err, errlen) < 0 || limit(RLIMIT_FSIZE, 0, 0, "FSIZE", err, errlen) < 0 ||
	    limit(RLIMIT_NPROC, 0, 0, "NPROC", err, errlen) < 0 ||
	    limit(RLIMIT_NOFILE, VW_CHANNEL_FD + 1, VW_CHANNEL_FD + 1, "NOFILE", err, errlen) < 0)
		return -1;
	return 0;
}

/* System calls allowed whatever their arguments: memory, the clock, signals returning, leaving. */
static const int allowed[] = {
	SCMP_SYS(brk),
	SCMP_SYS(mmap),
	SCMP_SYS(munmap),
	SCMP_SYS(mremap),
	SCMP_SYS(madvise),
	SCMP_SYS(mprotect),
	SCMP_SYS(exit),
	SCMP_SYS(exit_group),
	SCMP_SYS(rt_sigreturn),
	SCMP_SYS(clock_gettime),
	SCMP_SYS(gettimeofday),
	SCMP_SYS(futex),
	SCMP_SYS(getpid),
	SCMP_SYS(gettid),
	SCMP_SYS(sched_yield),
	SCMP_SYS(rt_sigprocmask),
	/* A sanitizer build asks for its signal stack on every longjmp (the parser's error path). */
	SCMP_SYS(sigaltstack),
	/* Looking for the next request without sleeping (poll names only its own channel). */
	SCMP_SYS(poll),
	SCMP_SYS(ppoll),
};

static int filter(char *err, size_t errlen)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int rc = 0;

	if (!ctx) {
		snprintf(err, errlen, "seccomp_init failed");
		return -1;
	}
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]) && rc == 0; i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
	/* Its channel, and nothing else, can be read and written. */
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(read), 1, SCMP_A0(SCMP_CMP_EQ, VW_CHANNEL_FD));
	if (rc == 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_EQ, VW_CHANNEL_FD));
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc != 0) {
		snprintf(err, errlen, "seccomp: %s", strerror(-rc));
		return -1;
	}
	return 0;
}

int vw_sandbox_enter(const struct vw_limits *l, char *err, size_t errlen)
{
	if (limits(l, err, errlen) < 0)
		return -1;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		snprintf(err, errlen, "prctl: %s", strerror(errno));
		return -1;
	}
	return filter(err, errlen);
}
