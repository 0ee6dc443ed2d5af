/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Function keys for the views.  People read names, and under legacy
 * mangling every instance of a generic function has the same one, so the
 * views (tree, graph, stacks, exports) merge functions by name: functions
 * that share a name share a key, the id of the first of them met in the
 * log.  With --instances every function is its own key.
 *
 * The keys also answer the views' --function GLOB (the focus): a call is
 * shown when it or one of its callers matches, and trees and stacks then
 * start at the outermost matching call.
 *
 * Keys are made as function ids are met, from the log reader's function
 * table, so a log's tables read on the way (after an exec) are covered.
 */
#ifndef RTRACE_FKEYS_H
#define RTRACE_FKEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/analysis.h"
#include "rtrace/evlog.h"

struct rt_fkeys;

/* Keys for the functions of @r, merged by name unless @instances.  @globs
 * (@nglobs strings, which must outlive the keys; 0 for none) make the
 * focus.  Free with rt_fkeys_free(), before the reader. */
struct rt_fkeys *rt_fkeys_new(struct rt_evlog_reader *r, bool instances,
			      const char *const *globs, size_t nglobs);

/* Frees the keys; accepts NULL. */
void rt_fkeys_free(struct rt_fkeys *k);

/* The key of function id @func. */
uint32_t rt_fkeys_key(struct rt_fkeys *k, uint32_t func);

/* The name of key @key: the demangled name, or "(function N)" for an id
 * the log does not describe.  Valid until rt_fkeys_free(). */
const char *rt_fkeys_name(struct rt_fkeys *k, uint32_t key);

/* Where a focused view roots call @c: the index in c->stack of its
 * outermost enclosing call (itself included) of a function that matches
 * a glob; 0 without globs; -1 when none matches (the call is not shown). */
int rt_fkeys_root(struct rt_fkeys *k, const struct rt_call *c);

#endif
