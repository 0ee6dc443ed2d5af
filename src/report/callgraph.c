// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-function and per-edge sums over the calls the analysis produces. */
#include <stdlib.h>

#include "rtrace/callgraph.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

/* One table of entries keyed by (a, b): functions use (key, 0). */
struct table {
	uint32_t *index;          /* entry + 1 by hash, 0 = empty */
	size_t mask;
};

struct rt_callgraph {
	struct rt_fkeys *keys;
	uint32_t tid;
	VEC(struct rt_cg_func) funcs;
	VEC(struct rt_cg_edge) edges;
	struct table fidx, eidx;
};

static uint64_t func_hash(const struct rt_cg_func *f)
{
	return hash64(f->key);
}

static uint64_t edge_hash(const struct rt_cg_edge *e)
{
	return hash64((uint64_t)e->caller << 32 | e->callee);
}

static void reindex_funcs(struct rt_callgraph *g)
{
	size_t cap = g->fidx.mask ? (g->fidx.mask + 1) * 2 : 256;

	free(g->fidx.index);
	g->fidx.index = xcalloc(cap, sizeof(uint32_t));
	g->fidx.mask = cap - 1;
	for (size_t i = 0; i < g->funcs.n; i++) {
		size_t h = func_hash(&g->funcs.v[i]) & g->fidx.mask;

		while (g->fidx.index[h])
			h = (h + 1) & g->fidx.mask;
		g->fidx.index[h] = i + 1;
	}
}

static void reindex_edges(struct rt_callgraph *g)
{
	size_t cap = g->eidx.mask ? (g->eidx.mask + 1) * 2 : 256;

	free(g->eidx.index);
	g->eidx.index = xcalloc(cap, sizeof(uint32_t));
	g->eidx.mask = cap - 1;
	for (size_t i = 0; i < g->edges.n; i++) {
		size_t h = edge_hash(&g->edges.v[i]) & g->eidx.mask;

		while (g->eidx.index[h])
			h = (h + 1) & g->eidx.mask;
		g->eidx.index[h] = i + 1;
	}
}

static struct rt_cg_func *func_for(struct rt_callgraph *g, uint32_t key)
{
	struct rt_cg_func probe = { .key = key };
	size_t h = func_hash(&probe) & g->fidx.mask;

	for (; g->fidx.index[h]; h = (h + 1) & g->fidx.mask)
		if (g->funcs.v[g->fidx.index[h] - 1].key == key)
			return &g->funcs.v[g->fidx.index[h] - 1];
	vec_push(&g->funcs, probe);
	g->fidx.index[h] = g->funcs.n;
	if (g->funcs.n * 2 > g->fidx.mask)
		reindex_funcs(g);
	return vec_last(&g->funcs);
}

static struct rt_cg_edge *edge_for(struct rt_callgraph *g, uint32_t caller,
				   uint32_t callee)
{
	struct rt_cg_edge probe = { .caller = caller, .callee = callee };
	size_t h = edge_hash(&probe) & g->eidx.mask;

	for (; g->eidx.index[h]; h = (h + 1) & g->eidx.mask) {
		struct rt_cg_edge *e = &g->edges.v[g->eidx.index[h] - 1];

		if (e->caller == caller && e->callee == callee)
			return e;
	}
	vec_push(&g->edges, probe);
	g->eidx.index[h] = g->edges.n;
	if (g->edges.n * 2 > g->eidx.mask)
		reindex_edges(g);
	return vec_last(&g->edges);
}

static void on_leave(void *ctx, const struct rt_call *c)
{
	struct rt_callgraph *g = ctx;
	uint32_t key, caller;
	struct rt_cg_func *f;
	struct rt_cg_edge *e;
	/* a call running before rtrace attached: its time, not the call */
	bool counted = !(c->flags & RT_CALL_PARTIAL);

	if (g->tid && c->tid != g->tid)
		return;
	key = rt_fkeys_key(g->keys, c->func);
	caller = c->depth ? rt_fkeys_key(g->keys, c->stack[c->depth - 1])
			  : RT_CG_NONE;
	f = func_for(g, key);
	f->calls += counted;
	f->self += c->self;
	e = edge_for(g, caller, key);
	e->calls += counted;
	if (c->outermost) {
		f->total += c->total;
		e->total += c->total;
	}
}

struct rt_callgraph *rt_callgraph_new(struct rt_fkeys *keys, uint32_t tid)
{
	struct rt_callgraph *g = xcalloc(1, sizeof(*g));

	g->keys = keys;
	g->tid = tid;
	reindex_funcs(g);
	reindex_edges(g);
	return g;
}

void rt_callgraph_free(struct rt_callgraph *g)
{
	if (!g)
		return;
	vec_free(&g->funcs);
	vec_free(&g->edges);
	free(g->fidx.index);
	free(g->eidx.index);
	free(g);
}

struct rt_sink rt_callgraph_sink(struct rt_callgraph *g)
{
	return (struct rt_sink){ .leave = on_leave, .ctx = g };
}

size_t rt_callgraph_nfuncs(const struct rt_callgraph *g)
{
	return g->funcs.n;
}

const struct rt_cg_func *rt_callgraph_func(const struct rt_callgraph *g,
					   size_t i)
{
	return &g->funcs.v[i];
}

size_t rt_callgraph_nedges(const struct rt_callgraph *g)
{
	return g->edges.n;
}

const struct rt_cg_edge *rt_callgraph_edge(const struct rt_callgraph *g,
					   size_t i)
{
	return &g->edges.v[i];
}
