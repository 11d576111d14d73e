/*
 * image_ref: what a pinned image reference is (see image_ref.h). Only
 * ASCII classes are used, so the answer never depends on the locale.
 */
#include "launch/image_ref.h"

#include <string.h>

static bool image_ref_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* "sha256:" followed by exactly 64 lower-case hex digits and the end. */
static bool image_ref_digest(const char *s)
{
	if (strncmp(s, "sha256:", 7) != 0)
		return false;
	s += 7;
	for (int i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[64] == '\0';
}

bool image_ref_pinned(const char *ref)
{
	const char *at;

	if (!ref || strnlen(ref, IMAGE_REF_MAX + 1) > IMAGE_REF_MAX)
		return false;
	at = strchr(ref, '@');
	if (!at)
		return image_ref_digest(ref);
	if (!image_ref_alnum(ref[0]))
		return false;
	for (const char *p = ref; p < at; p++)
		if (!image_ref_alnum(*p) && !strchr("._/:-", *p))
			return false;
	return image_ref_digest(at + 1);
}

bool rootfs_ref_pinned(const char *ref, size_t *at)
{
	const char *a;

	if (!ref || ref[0] != '/' || strnlen(ref, ROOTFS_REF_MAX + 1) > ROOTFS_REF_MAX)
		return false;
	a = strchr(ref, '@');
	if (!a || a == ref + 1 || !image_ref_digest(a + 1))
		return false;
	if (at)
		*at = (size_t)(a - ref);
	return true;
}
