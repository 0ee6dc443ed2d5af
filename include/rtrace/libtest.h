/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Knowledge of Rust test binaries.  libtest runs each test on a thread it
 * names after the test ("tests::parses_numbers"), but the kernel keeps only
 * 15 bytes of a thread's name.  The full name is recovered from the symbols:
 * a test's name is its function's path without the crate, so the one
 * function of the harness crate whose path starts with the kept bytes is
 * the test.  When several do, the thread's stack tells (see tracer.c).
 */
#ifndef RTRACE_LIBTEST_H
#define RTRACE_LIBTEST_H

#include <stdbool.h>

#include "rtrace/symbols.h"

struct rt_libtest;

/* The test-name table of @syms, or NULL when it is not a libtest harness.
 * Free with rt_libtest_free(); it borrows nothing from @syms. */
struct rt_libtest *rt_libtest_new(const struct rt_symbols *syms);

/* Frees the table; accepts NULL. */
void rt_libtest_free(struct rt_libtest *lt);

/* The full name of the test a thread called @comm runs, or NULL when no
 * test fits, or more than one (then *ambiguous is set); valid until
 * rt_libtest_free(). */
const char *rt_libtest_name(const struct rt_libtest *lt, const char *comm,
			    bool *ambiguous);

/* The test name of function @func (demangled) when it is one of those
 * that fit thread name @comm, else NULL; valid until rt_libtest_free(). */
const char *rt_libtest_fit(const struct rt_libtest *lt, const char *comm,
			   const char *func);

#endif
