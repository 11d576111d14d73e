/*
 * strict: what airlockd does when it finds a bug of its own at run time,
 * such as a state move that a transition table forbids (job_state.h,
 * session.h). Builds that tests run, debug builds (no NDEBUG) and
 * sanitizer builds, abort at once so the bug cannot pass unseen. Release
 * builds log it and fail the one job or session closed: a client may be
 * what led there, and one client must never stop the server.
 */
#ifndef AIRLOCK_PROXY_STRICT_H
#define AIRLOCK_PROXY_STRICT_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define AIRLOCK_STRICT_SANITIZER 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define AIRLOCK_STRICT_SANITIZER 1
#endif

#if !defined(NDEBUG) || defined(AIRLOCK_STRICT_SANITIZER)
#define AIRLOCK_STRICT 1
#else
#define AIRLOCK_STRICT 0
#endif

#endif
