/*
 * image_ref: the one rule for what counts as a runner image (and an OCI
 * root filesystem) pinned by digest. The config refuses an unpinned runner_image at load and the
 * launcher refuses one before Docker is asked; both ask this. Pure: no
 * curl, no allocation, so conf/ links it without the launcher.
 */
#ifndef AIRLOCK_LAUNCH_IMAGE_REF_H
#define AIRLOCK_LAUNCH_IMAGE_REF_H

#include <stdbool.h>
#include <stddef.h>

/* Longest reference accepted, name and digest together (Docker's own name limit). */
#define IMAGE_REF_MAX 255

/*
 * Is ref "sha256:<64 lower-case hex>" or "NAME@sha256:<64 lower-case hex>",
 * with NAME starting with a letter or digit and made of [A-Za-z0-9._/:-]
 * (a registry host, port, path and tag, never a second '@'), and at most
 * IMAGE_REF_MAX characters in all? NULL is not.
 */
bool image_ref_pinned(const char *ref);

/* Longest root filesystem reference: a path, '@' and the digest. */
#define ROOTFS_REF_MAX 1024

/*
 * The OCI runtime's root filesystem: is ref "/ABSOLUTE/PATH@sha256:<64
 * lower-case hex>" (the path of a tar archive, without '@' and at most
 * ROOTFS_REF_MAX characters in all)? The position of the '@' goes to *at
 * when it is. NULL is not.
 */
bool rootfs_ref_pinned(const char *ref, size_t *at);

#endif
