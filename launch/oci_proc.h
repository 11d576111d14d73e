/*
 * oci_proc: a child process of the OCI launcher (the runtime's run, kill,
 * delete, list), driven by a libevent base: spawned with posix_spawn
 * (stdin /dev/null, stdout and stderr into one pipe, no other descriptor,
 * default signals, its own process group), watched through a pidfd and
 * reaped once it exits. What it prints is kept: the first OCI_PROC_HEAD
 * bytes (a listing) and the last OCI_PROC_TAIL (an error). Nothing blocks.
 */
#ifndef AIRLOCK_LAUNCH_OCI_PROC_H
#define AIRLOCK_LAUNCH_OCI_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define OCI_PROC_HEAD 65536
#define OCI_PROC_TAIL 512

struct event_base;
struct oci_proc;

/*
 * Called once, from the loop, when the child has exited and its output is
 * read: status is its exit status, or 128 + the signal that ended it; -1
 * when it could not be started (then head is the reason). head and tail
 * (both NUL-terminated) are valid during the call. The proc is freed when
 * the callback returns.
 */
typedef void (*oci_proc_done_fn)(void *arg, int status, const char *head, const char *tail);

/*
 * Starts argv[0] (an absolute path) with argv. NULL on allocation failure;
 * a spawn failure is reported through done, from the loop.
 */
struct oci_proc *oci_proc_spawn(struct event_base *base, char *const argv[], oci_proc_done_fn done, void *arg);

/* The child's pid (0 once reaped or never started). */
pid_t oci_proc_pid(const struct oci_proc *p);

/* Sends sig to the child if it still runs. */
void oci_proc_signal(struct oci_proc *p, int sig);

/* No callback after this; the child is left to finish and is reaped (then freed) by the loop. */
void oci_proc_forget(struct oci_proc *p);

/*
 * Blocking, at shutdown: waits for the child to exit (SIGKILL after
 * timeout_ms), reaps it and frees p without calling back. Returns its
 * status as done would have had it.
 */
int oci_proc_reap_sync(struct oci_proc *p, unsigned timeout_ms);

/*
 * Blocking, at shutdown: true once the child exited within timeout_ms (it
 * is reaped and p freed, without calling back); false, p untouched, while
 * it still runs.
 */
bool oci_proc_wait_sync(struct oci_proc *p, unsigned timeout_ms);

/*
 * Runs argv to its end on a private loop, at most timeout_ms (then it is
 * killed and -1 returned). Blocking: start-up, shutdown and tests only.
 * Returns the exit status; out (if not NULL) gets what it printed.
 */
int oci_proc_run_sync(char *const argv[], unsigned timeout_ms, char *out, size_t outlen);

#endif
