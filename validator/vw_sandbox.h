/*
 * vw_sandbox: the confinement a validator worker puts itself in before it
 * reads its first request, after airlockd has started it as its own
 * unprivileged uid with nothing open but its channel (proxy/validator_pool.c).
 *
 *   - resource limits: address space (memory_mb; not in sanitizer builds,
 *     whose shadow memory needs terabytes of it), CPU seconds over the
 *     worker's life (airlockd's deadline bounds each request), no core
 *     dumps, no files written, no processes, no descriptors beyond its
 *     channel's number;
 *   - not dumpable (no ptrace by its own uid), no new privileges;
 *   - a seccomp filter that kills the process on any system call but
 *     reading and writing its channel, polling, managing memory, the clock
 *     and leaving: no open, no socket, no exec, no kill of anything.
 */
#ifndef AIRLOCK_VALIDATOR_VW_SANDBOX_H
#define AIRLOCK_VALIDATOR_VW_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

/* The descriptor of the worker's channel to airlockd. */
#define VW_CHANNEL_FD 3

struct vw_limits {
	uint32_t memory_mb;   /* address space; 0: unlimited */
	uint32_t cpu_seconds; /* CPU time over the worker's life; 0: unlimited */
};

/* Enters the sandbox. 0, or -1 with a message in err (the worker then exits). */
int vw_sandbox_enter(const struct vw_limits *l, char *err, size_t errlen);

#endif
