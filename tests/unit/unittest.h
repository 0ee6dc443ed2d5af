/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny unit-test harness.  Each test file defines cases with TEST_CASE();
 * unittest.c supplies main(), which runs every registered case (or those
 * named on the command line) and prints one OK/NG line per case.  The
 * TEST_* checks print both operands on failure and end the case.
 */
#ifndef RTRACE_UNITTEST_H
#define RTRACE_UNITTEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct rt_test {
	const char *name;
	void (*fn)(bool *failed);
	struct rt_test *next;
};

void rt_test_register(struct rt_test *t);

#define TEST_CASE(name)                                                        \
	static void test_##name(bool *rt_test_failed__);                       \
	static struct rt_test rt_test_##name = { #name, test_##name, NULL };   \
	__attribute__((constructor)) static void rt_test_reg_##name(void)      \
	{                                                                      \
		rt_test_register(&rt_test_##name);                             \
	}                                                                      \
	static void test_##name(bool *rt_test_failed__)

#define TEST_FAIL__(fmt, ...)                                                  \
	do {                                                                   \
		fprintf(stderr, "  %s:%d: " fmt "\n", __FILE__, __LINE__,      \
			##__VA_ARGS__);                                        \
		*rt_test_failed__ = true;                                      \
		return;                                                        \
	} while (0)

#define TEST_EQ(a, b)                                                          \
	do {                                                                   \
		long long a__ = (long long)(a), b__ = (long long)(b);          \
		if (a__ != b__)                                                \
			TEST_FAIL__("%s == %s: %lld (%#llx) != %lld (%#llx)",  \
				    #a, #b, a__, (unsigned long long)a__, b__, \
				    (unsigned long long)b__);                  \
	} while (0)

#define TEST_NE(a, b)                                                          \
	do {                                                                   \
		long long a__ = (long long)(a), b__ = (long long)(b);          \
		if (a__ == b__)                                                \
			TEST_FAIL__("%s != %s: both %lld", #a, #b, a__);       \
	} while (0)

#define TEST_TRUE(c)                                                           \
	do {                                                                   \
		if (!(c))                                                      \
			TEST_FAIL__("expected true: %s", #c);                  \
	} while (0)

#define TEST_STREQ(a, b)                                                       \
	do {                                                                   \
		const char *a__ = (a), *b__ = (b);                             \
		if (!a__ || !b__ || strcmp(a__, b__) != 0)                     \
			TEST_FAIL__("%s == %s: \"%s\" != \"%s\"", #a, #b,      \
				    a__ ? a__ : "(null)",                      \
				    b__ ? b__ : "(null)");                     \
	} while (0)

#define TEST_MEMEQ(a, b, n)                                                    \
	do {                                                                   \
		const unsigned char *a__ = (const void *)(a),                  \
				    *b__ = (const void *)(b);                  \
		size_t n__ = (n);                                              \
		for (size_t i__ = 0; i__ < n__; i__++)                         \
			if (a__[i__] != b__[i__])                              \
				TEST_FAIL__("%s == %s: byte %zu: %02x != %02x",\
					    #a, #b, i__, a__[i__], b__[i__]);  \
	} while (0)

#endif
