/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The calling-context tree: a sink of calls that merges every call made
 * along the same path of callers (function keys from the outermost traced
 * call, or from the focus of --function) into one node, with its calls,
 * total and self time (and a "[blocked]" child for the time it waited in
 * libc's blocking calls).  Memory grows with the number of distinct calling
 * contexts, never with the number of calls.  The call tree, the folded
 * stacks and the flame graphs are printed from it.
 *
 * Calls of every thread and process are merged into one tree; a thread id
 * narrows it to one thread.
 */
#ifndef RTRACE_CCT_H
#define RTRACE_CCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/analysis.h"
#include "rtrace/fkeys.h"

/* Node 0 is the root, which stands for no call; every other node has a
 * smaller index than its children. */
struct rt_cct_node {
	uint32_t parent;        /* the caller's node, 0 for an outermost call */
	uint32_t key;           /* function key (rt_fkeys); 0 for the root */
	uint32_t depth;         /* 1 for an outermost call, 0 for the root */
	uint32_t first_child;   /* 0 when none (the root is nobody's child) */
	uint32_t next;          /* next sibling, 0 when none */
	uint64_t calls;         /* calls in this context (calls already
				 * running when rtrace attached excluded) */
	uint64_t total, self;   /* ns summed over its calls */
	uint64_t unwound;       /* calls left by unwinding */
};

/* The key of a node that holds its parent's blocked time (rt_call.blocked:
 * libc's waiting calls), named "[blocked]": no calls, self = total. */
#define RT_CCT_BLOCKED UINT32_MAX

struct rt_cct;

/* A tree keyed by @keys (which must outlive it), of the calls of thread
 * @tid only when non-zero.  Free with rt_cct_free(). */
struct rt_cct *rt_cct_new(struct rt_fkeys *keys, uint32_t tid);

/* Frees the tree; accepts NULL. */
void rt_cct_free(struct rt_cct *t);

/* The sink to pass to rt_analyse(); valid while @t lives. */
struct rt_sink rt_cct_sink(struct rt_cct *t);

/* Nodes, the root included, and node @i; valid until the tree changes. */
size_t rt_cct_size(const struct rt_cct *t);
const struct rt_cct_node *rt_cct_node(const struct rt_cct *t, uint32_t i);

/* Orders every node's children: by total time, largest first (the call
 * tree), or by name (flame graphs, as flamegraph.pl does); ties by name. */
enum rt_cct_order { RT_CCT_BY_TOTAL, RT_CCT_BY_NAME };
void rt_cct_sort(struct rt_cct *t, enum rt_cct_order order);

#define rt_cct_for_each_child(t, i, c)                                         \
	for (uint32_t c = rt_cct_node(t, i)->first_child; c;                   \
	     c = rt_cct_node(t, c)->next)

/* The node after @i in preorder (parents before children, siblings in
 * their order), or 0 after the last; start from 0, the root. */
uint32_t rt_cct_next(const struct rt_cct *t, uint32_t i);

/* What a flame graph's frames weigh: self time, or calls. */
enum rt_cct_weight { RT_CCT_SELF, RT_CCT_CALLS };

/* Each node's weight plus that of everything below it: a new array of
 * rt_cct_size() elements that the caller frees.  The root's is the sum of
 * every node's. */
uint64_t *rt_cct_weights(const struct rt_cct *t, enum rt_cct_weight w);

/* The name of node @i's function (the root's is "all"). */
const char *rt_cct_name(const struct rt_cct *t, uint32_t i);

#endif
