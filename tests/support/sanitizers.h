// RCF_TEST_SANITIZED is 1 in a build instrumented by AddressSanitizer or ThreadSanitizer, with
// g++ (__SANITIZE_ADDRESS__) or clang (__has_feature; clang 14 does not define the g++ macros).
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define RCF_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RCF_TEST_SANITIZED 1
#endif
#endif
#ifndef RCF_TEST_SANITIZED
#define RCF_TEST_SANITIZED 0
#endif
