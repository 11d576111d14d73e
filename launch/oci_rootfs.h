/*
 * oci_rootfs: the OCI runtime's root filesystem, pinned by digest. The
 * configured reference is "/path/rootfs.tar@sha256:<hex>"; at start-up the
 * archive is read whole, its sha256 compared with the pin, and only then
 * unpacked (from the bytes that were hashed, so it cannot change between
 * the check and the unpack) into a new directory under the state
 * directory: owned by root, nothing writable, no set-id bits, and only
 * directories, regular files and symlinks that stay inside it. Older
 * unpacked trees there are removed. Blocking: start-up only.
 */
#ifndef AIRLOCK_LAUNCH_OCI_ROOTFS_H
#define AIRLOCK_LAUNCH_OCI_ROOTFS_H

#include <stddef.h>

/* Largest archive read (the runner and its libraries are a few MB). */
#define OCI_ROOTFS_MAX_BYTES (256u * 1024 * 1024)

/*
 * Checks and unpacks ref (rootfs_ref_pinned) under state_dir, which must
 * exist. Writes the new tree's path into out. 0, or -1 with the reason in
 * err (for IMAGE_UNPINNED when ref is not pinned, IMAGE_UNAVAILABLE
 * otherwise: missing, unreadable, mismatching or malformed archive).
 */
int oci_rootfs_prepare_sync(const char *ref, const char *state_dir, char *out, size_t outlen, char *err, size_t errlen);

/* Removes the tree at path (never following a link or crossing a mount); root's own directories only. */
void oci_remove_tree(const char *path);

/* sha256 of data as 64 lower-case hex digits and a NUL into hex. */
void oci_sha256_hex(const void *data, size_t len, char hex[65]);

#endif
