/*
 * oci_spec: the OCI runtime configuration (config.json) of one runner
 * container, from its launch spec. Pure: no I/O.
 *
 * The container gets: new pid, network (no interfaces but loopback, down),
 * ipc, uts, mount and cgroup namespaces, and a user namespace when asked;
 * a read-only root; the job directory bind-mounted read-only at /job;
 * /proc with the kernel's sensitive files masked or read-only; a /dev
 * tmpfs with only the default devices; the job's uid and gid, no
 * capabilities in any set, no-new-privileges; rlimits (no core files, few
 * files and processes); memory (swap included), CPU and PID limits; and the
 * seccomp allowlist of oci_seccomp.c (everything else fails with EPERM).
 */
#ifndef AIRLOCK_LAUNCH_OCI_SPEC_H
#define AIRLOCK_LAUNCH_OCI_SPEC_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "launch/launcher.h"

#define OCI_ID_PREFIX "airlock-"
#define OCI_CPU_PERIOD_US 100000u
#define OCI_NOFILE 256u
/*
 * RLIMIT_FSIZE for a runtime that writes the seccomp filter into a file
 * after it has set the container's rlimits (crun 1.8: with 0, every start
 * fails "seccomp_export_bpf: File too large"): the largest filter the
 * kernel loads, BPF_MAXINSNS instructions of 8 bytes. Otherwise 0.
 */
#define OCI_FSIZE_CRUN (4096u * 8u)

/*
 * config.json for sp (checked by launch_spec_problem: user is "uid:gid")
 * with root filesystem rootfs; fsize is the runner's RLIMIT_FSIZE (0, or
 * OCI_FSIZE_CRUN). A new reference, the caller's; NULL when out of memory
 * or sp->user does not parse.
 */
json_t *oci_spec_config(const struct launch_spec *sp, const char *rootfs, bool userns, uint64_t fsize);

/* The seccomp section: default EPERM, the runner's own syscalls allowed. A new reference. */
json_t *oci_seccomp(void);

#endif
