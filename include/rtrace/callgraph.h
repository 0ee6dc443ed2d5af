/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The call graph: a sink of calls that sums, per function and per edge
 * (caller -> callee, functions merged by name as in rt_fkeys), the calls
 * and the time.  Like the report, an edge's time counts only the callee's
 * outermost activations, so recursion never counts the same time twice:
 * the times of a function's caller edges add up to its total, and its
 * self time plus the times of its callee edges make its total when
 * nothing was clamped.  Memory grows with the number of distinct edges.
 */
#ifndef RTRACE_CALLGRAPH_H
#define RTRACE_CALLGRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "rtrace/analysis.h"
#include "rtrace/fkeys.h"

/* The caller of an outermost traced call. */
#define RT_CG_NONE UINT32_MAX

struct rt_cg_func {
	uint32_t key;             /* function key */
	uint64_t calls;
	uint64_t total;           /* ns, outermost activations only */
	uint64_t self;            /* ns */
};

struct rt_cg_edge {
	uint32_t caller;          /* function key, or RT_CG_NONE */
	uint32_t callee;          /* function key */
	uint64_t calls;           /* calls of callee made by caller */
	uint64_t total;           /* ns of those calls, outermost ones only */
};

struct rt_callgraph;

/* A graph keyed by @keys (which must outlive it), of the calls of thread
 * @tid only when non-zero.  Free with rt_callgraph_free(). */
struct rt_callgraph *rt_callgraph_new(struct rt_fkeys *keys, uint32_t tid);

/* Frees the graph; accepts NULL. */
void rt_callgraph_free(struct rt_callgraph *g);

/* The sink to pass to rt_analyse(); valid while @g lives. */
struct rt_sink rt_callgraph_sink(struct rt_callgraph *g);

/* Functions called, and edges, in no particular order; valid until the
 * graph changes. */
size_t rt_callgraph_nfuncs(const struct rt_callgraph *g);
const struct rt_cg_func *rt_callgraph_func(const struct rt_callgraph *g,
					   size_t i);
size_t rt_callgraph_nedges(const struct rt_callgraph *g);
const struct rt_cg_edge *rt_callgraph_edge(const struct rt_callgraph *g,
					   size_t i);

#endif
