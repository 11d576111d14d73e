/*
 * test_image_ref: the image-pin rule both the config and the launcher use.
 * A bare digest and NAME@digest pass; tags, bare names, short, long,
 * upper-case or non-sha256 digests, a second '@', odd first characters,
 * spaces and references longer than IMAGE_REF_MAX are refused. An OCI root
 * filesystem is /ABSOLUTE/PATH@digest, nothing else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "launch/image_ref.h"

#define HEX "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define DIGEST "sha256:" HEX

static void test_pinned(void **state)
{
	(void)state;
	assert_true(image_ref_pinned(DIGEST));
	assert_true(image_ref_pinned("runner@" DIGEST));
	assert_true(image_ref_pinned("ghcr.io/acme/airlock-runner@" DIGEST));
	assert_true(image_ref_pinned("localhost:5000/runner:1.2@" DIGEST));
	assert_true(image_ref_pinned("airlock/runner_x.y-z@" DIGEST));
}

static void test_unpinned(void **state)
{
	(void)state;
	assert_false(image_ref_pinned(NULL));
	assert_false(image_ref_pinned(""));
	assert_false(image_ref_pinned("runner"));
	assert_false(image_ref_pinned("runner:latest"));
	assert_false(image_ref_pinned("busybox:latest"));
	assert_false(image_ref_pinned("sha256:"));
	assert_false(image_ref_pinned("@" DIGEST));
	assert_false(image_ref_pinned(DIGEST "0"));
	assert_false(image_ref_pinned("sha256:"
				      "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"));
	assert_false(image_ref_pinned("sha256:"
				      "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"));
	assert_false(image_ref_pinned("sha256:"
				      "0123456789abcdeg0123456789abcdef0123456789abcdef0123456789abcdef"));
	assert_false(image_ref_pinned("sha512:" HEX));
	assert_false(image_ref_pinned("runner@sha256:abc"));
	assert_false(image_ref_pinned("run ner@" DIGEST));
	assert_false(image_ref_pinned("runner@" DIGEST "@" DIGEST));
	assert_false(image_ref_pinned(" " DIGEST));
	assert_false(image_ref_pinned(DIGEST " "));
	assert_false(image_ref_pinned("-runner@" DIGEST));
	assert_false(image_ref_pinned("/runner@" DIGEST));
	assert_false(image_ref_pinned(".runner@" DIGEST));
	assert_false(image_ref_pinned("run?ner@" DIGEST));
	assert_false(image_ref_pinned("r\xc3\xa9@" DIGEST));
}

static void test_length(void **state)
{
	char ref[IMAGE_REF_MAX + 2];
	size_t name = IMAGE_REF_MAX - strlen("@" DIGEST);

	(void)state;
	memset(ref, 'a', name);
	strcpy(ref + name, "@" DIGEST);
	assert_int_equal(strlen(ref), IMAGE_REF_MAX);
	assert_true(image_ref_pinned(ref));

	memset(ref, 'a', name + 1);
	strcpy(ref + name + 1, "@" DIGEST);
	assert_false(image_ref_pinned(ref));
}

static void test_rootfs(void **state)
{
	size_t at = 0;

	(void)state;
	assert_true(rootfs_ref_pinned("/var/lib/airlock/rootfs.tar@" DIGEST, &at));
	assert_int_equal(at, strlen("/var/lib/airlock/rootfs.tar"));
	assert_true(rootfs_ref_pinned("/r@" DIGEST, NULL));
	assert_false(rootfs_ref_pinned(NULL, &at));
	assert_false(rootfs_ref_pinned("", &at));
	assert_false(rootfs_ref_pinned("/var/lib/airlock/rootfs.tar", &at));
	assert_false(rootfs_ref_pinned("rootfs.tar@" DIGEST, &at));
	assert_false(rootfs_ref_pinned("/@" DIGEST, &at));
	assert_false(rootfs_ref_pinned("/a@b@" DIGEST, &at));
	assert_false(rootfs_ref_pinned("/a@sha256:abc", &at));
	assert_false(rootfs_ref_pinned("/a@" DIGEST "0", &at));
	assert_false(rootfs_ref_pinned("/a@sha512:" HEX, &at));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_unpinned),
		cmocka_unit_test(test_length),
		cmocka_unit_test(test_rootfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
