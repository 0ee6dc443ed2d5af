// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-function and per-edge sums over the calls the analysis produces. */
#include <stdlib.h>

#include "rtrace/callgraph.h"
#include "rtrace/hashidx.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct rt_callgraph {
	struct rt_fkeys *keys;
	uint32_t tid;
	VEC(struct rt_cg_func) funcs;
	VEC(struct rt_cg_edge) edges;
	struct rt_hashidx fidx;   /* funcs by key */
	struct rt_hashidx eidx;   /* edges by (caller, callee) */
};

static bool func_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct rt_callgraph *g = ctx;

	return g->funcs.v[pos].key == *(const uint32_t *)key;
}

static bool edge_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct rt_callgraph *g = ctx;
	const struct rt_cg_edge *e = &g->edges.v[pos];
	const uint32_t *k = key;  /* caller, callee */

	return e->caller == k[0] && e->callee == k[1];
}

static struct rt_cg_func *func_for(struct rt_callgraph *g, uint32_t key)
{
	uint64_t h = rt_hash_u64(key);
	uint32_t at = rt_hashidx_find(&g->fidx, h, func_is, g, &key);

	if (at != RT_HASHIDX_NONE)
		return &g->funcs.v[at];
	vec_push(&g->funcs, ((struct rt_cg_func){ .key = key }));
	rt_hashidx_add(&g->fidx, h, (uint32_t)g->funcs.n - 1);
	return vec_last(&g->funcs);
}

static struct rt_cg_edge *edge_for(struct rt_callgraph *g, uint32_t caller,
				   uint32_t callee)
{
	uint64_t h = rt_hash_pair(caller, callee);
	uint32_t k[2] = { caller, callee };
	uint32_t at = rt_hashidx_find(&g->eidx, h, edge_is, g, k);

	if (at != RT_HASHIDX_NONE)
		return &g->edges.v[at];
	vec_push(&g->edges,
		 ((struct rt_cg_edge){ .caller = caller, .callee = callee }));
	rt_hashidx_add(&g->eidx, h, (uint32_t)g->edges.n - 1);
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
	return g;
}

void rt_callgraph_free(struct rt_callgraph *g)
{
	if (!g)
		return;
	vec_free(&g->funcs);
	vec_free(&g->edges);
	rt_hashidx_free(&g->fidx);
	rt_hashidx_free(&g->eidx);
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
