/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Checked allocation and small string helpers for tool code. */
#ifndef RTRACE_UTIL_H
#define RTRACE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "rtrace/compiler.h"

/* System calls made on the tracing path (ptrace, waitpid, /proc/PID/mem
 * reads and writes, log writes), for --stats. */
extern uint64_t rt_syscalls;

/* Allocators that abort with a message on exhaustion; caller frees. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __printf(1, 2);

/* Frees *pp and sets it to NULL; accepts NULL. */
#define zfree(pp)                                                              \
	do {                                                                   \
		free(*(pp));                                                   \
		*(pp) = NULL;                                                  \
	} while (0)

/* Whether @s starts with @prefix. */
bool str_starts(const char *s, const char *prefix);

/* Reads a whole file into a NUL-terminated heap buffer (caller frees);
 * returns 0 or -errno. *len gets the byte count when non-NULL. */
int read_file(const char *path, char **buf, size_t *len);

/* read_file() for input a person gives: -EINVAL when @path is not a
 * regular file (a directory, a device, a pipe), -EFBIG when it holds more
 * than @max bytes; nothing is allocated then. */
int read_regular_file(const char *path, size_t max, char **buf, size_t *len);

/* Writes @len bytes, retrying short writes and EINTR; 0 or -errno. */
int write_all(int fd, const void *buf, size_t len);

/* The same, saying in *done how many bytes reached the file, also when
 * it fails midway (a full disk). */
int write_all_done(int fd, const void *buf, size_t len, size_t *done);

/* Sets close-on-exec on @fd, which a library opened without it, so that
 * the programs rtrace starts do not inherit it; returns @fd (a negative
 * one untouched). */
int fd_set_cloexec(int fd);

/* Parses a duration such as "10s", "250ms", "1.5m", "300us"; 0 or -EINVAL. */
int parse_duration_ns(const char *s, uint64_t *ns);

/* Parses a size such as "200M", "1.5G", "64KiB" or "4096" (bytes; K, M,
 * G and T are powers of 1024, with an optional "iB" or "B"); 0 or
 * -EINVAL. */
int parse_size_bytes(const char *s, uint64_t *bytes);

/* Monotonic clock in nanoseconds (CLOCK_MONOTONIC, vDSO, no system call). */
uint64_t now_ns(void);

/* The signals of a thread's own crash (a bug, an abort): rtrace's rescue
 * handles them, so no thread of rtrace's may block them. */
#define RT_N_CRASH_SIGNALS 6
extern const int rt_crash_signals[RT_N_CRASH_SIGNALS];

/*
 * Fault injection, for the tests of what a crash of rtrace leaves behind
 * (tests/e2e/tracee.py, docs/errors.md).  RTRACE_FAULT=POINT[:N] makes
 * the N-th pass (default: the first) through rt_fault(POINT) abort
 * rtrace, as a bug would.  Unset, a call costs one comparison.
 */
extern int rt_fault_state;	/* 0: not read yet, 1: off, 2: armed */
void rt_fault_check(const char *point);

static inline void rt_fault(const char *point)
{
	if (unlikely(rt_fault_state != 1))
		rt_fault_check(point);
}

/* The plural ending of a count's noun: "" after 1, "s" after any other
 * count (a static string). */
static inline const char *rt_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}

/* 64-bit mix for hash tables (splitmix64 finaliser). */
static inline uint64_t hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

#endif
