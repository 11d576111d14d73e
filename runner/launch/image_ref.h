/*
 * image_ref: the one rule for what counts as a runner image pinned by
 * digest. The config refuses an unpinned runner_image at load and the
 * launcher refuses one before Docker is asked; both ask this. Pure: no
 * curl, no allocation, so conf/ links it without the launcher.
 */
#ifndef AIRLOCK_RUNNER_LAUNCH_IMAGE_REF_H
#define AIRLOCK_RUNNER_LAUNCH_IMAGE_REF_H

#include <stdbool.h>

/* Longest reference accepted, name and digest together (Docker's own name limit). */
#define IMAGE_REF_MAX 255

/*
 * Is ref "sha256:<64 lower-case hex>" or "NAME@sha256:<64 lower-case hex>",
 * with NAME starting with a letter or digit and made of [A-Za-z0-9._/:-]
 * (a registry host, port, path and tag, never a second '@'), and at most
 * IMAGE_REF_MAX characters in all? NULL is not.
 */
bool image_ref_pinned(const char *ref);

#endif
