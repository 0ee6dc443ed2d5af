/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Compiler attributes and tiny helpers shared by every module. */
#ifndef RTRACE_COMPILER_H
#define RTRACE_COMPILER_H

#include <stddef.h>

#define __noreturn __attribute__((noreturn))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define __unused __attribute__((unused))
#define __must_check __attribute__((warn_unused_result))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))

#endif
