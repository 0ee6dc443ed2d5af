/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function selection: globs on demangled names.
 *
 * A glob is matched against the whole demangled name with fnmatch(3) rules
 * ('*' crosses "::").  A name of the form "<T as Trait>::f" or "<T>::f" is
 * also tried as "T::f" and "Trait::f", so that 'my_crate::*' selects the
 * trait impls and (v0-mangled) inherent methods defined in my_crate.  A glob
 * that begins with "_ZN" or "_R" is matched against the raw symbol instead.
 */
#ifndef RTRACE_MATCH_H
#define RTRACE_MATCH_H

#include <stdbool.h>
#include <stddef.h>

struct rt_matcher;
struct rt_symbols;

/* Checks that @glob is well formed; 0 or -EINVAL with *why set to a static
 * description of the problem. */
int rt_glob_check(const char *glob, const char **why);

/* Whether one glob selects a function named @name (demangled) / @raw. */
bool rt_glob_match(const char *glob, const char *name, const char *raw);

/* Compiles include and exclude globs (arrays of @ninc / @nexc strings, which
 * must outlive the matcher).  Returns 0 or -EINVAL after logging which glob
 * is malformed.  Free with rt_matcher_free(). */
int rt_matcher_new(const char *const *inc, size_t ninc,
		   const char *const *exc, size_t nexc,
		   struct rt_matcher **out);

/* Frees a matcher; accepts NULL. */
void rt_matcher_free(struct rt_matcher *m);

/* Whether a function is selected: some include glob matches and no exclude
 * glob does.  Counts the hit against each matching include glob. */
bool rt_matcher_select(struct rt_matcher *m, const char *name, const char *raw);

/* Number of functions that include glob @i selected so far. */
size_t rt_matcher_hits(const struct rt_matcher *m, size_t i);

/* Resets every hit count to zero (before matching a new image). */
void rt_matcher_reset(struct rt_matcher *m);

/* Indexes of the functions of @syms that @m selects, in address order, as a
 * new array the caller frees; returns the count. */
size_t rt_select_funcs(const struct rt_symbols *syms, struct rt_matcher *m,
		       size_t **idx);

/* The crate a demangled name belongs to ("std" for "<std::x as y>::z"), as a
 * new string the caller frees, or NULL when the name has no path. */
char *rt_crate_of(const char *name);

#endif
