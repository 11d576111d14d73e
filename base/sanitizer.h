/*
 * AIRLOCK_ASAN is 1 in a build with AddressSanitizer (GCC or Clang), where
 * memory limits and early exits would hide what the sanitizer checks.
 */
#ifndef AIRLOCK_BASE_SANITIZER_H
#define AIRLOCK_BASE_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define AIRLOCK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AIRLOCK_ASAN 1
#endif
#endif
#ifndef AIRLOCK_ASAN
#define AIRLOCK_ASAN 0
#endif

#endif
