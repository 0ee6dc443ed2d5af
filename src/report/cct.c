// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The calling-context tree.  Calls nest on each thread, so the sink keeps,
 * per thread, the nodes of the calls now open: a call's node is the child
 * of the node on top of that stack (found or made through a hash of
 * (parent, key)), and its leave() finds it there again.  No walk of the
 * call stack per call, which matters for deep recursion.
 */
#include <stdlib.h>
#include <string.h>

#include "rtrace/cct.h"
#include "rtrace/hashidx.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

typedef VEC(uint32_t) node_stack;

struct rt_cct {
	struct rt_fkeys *keys;
	uint32_t tid;
	VEC(struct rt_cct_node) nodes;
	struct rt_hashidx index;   /* nodes but the root by (parent, key) */
	VEC(node_stack) open;      /* by rt_call.thread: open calls' nodes */
};

static bool node_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct rt_cct *t = ctx;
	const struct rt_cct_node *n = &t->nodes.v[pos];
	const uint32_t *k = key;  /* parent, key */

	return n->parent == k[0] && n->key == k[1];
}

/* The child of @parent for function key @key, made when new. */
static uint32_t child(struct rt_cct *t, uint32_t parent, uint32_t key)
{
	uint64_t h = rt_hash_pair(parent, key);
	uint32_t k[2] = { parent, key };
	uint32_t i = rt_hashidx_find(&t->index, h, node_is, t, k);
	struct rt_cct_node *n;

	if (i != RT_HASHIDX_NONE)
		return i;
	i = t->nodes.n;
	n = vec_push_zero(&t->nodes);
	n->parent = parent;
	n->key = key;
	n->depth = t->nodes.v[parent].depth + 1;
	n->next = t->nodes.v[parent].first_child;
	t->nodes.v[parent].first_child = i;
	rt_hashidx_add(&t->index, h, i);
	return i;
}

static node_stack *open_calls(struct rt_cct *t, uint32_t thread)
{
	while (t->open.n <= thread)
		vec_push(&t->open, ((node_stack){ 0 }));
	return &t->open.v[thread];
}

/* The node of call @c, whose focus root is stack[@root]; the open stack of
 * its thread then ends with it.  The stack holds its callers' nodes unless
 * calls were left out of the stream; then the path is walked. */
static uint32_t node_of(struct rt_cct *t, const struct rt_call *c,
			uint32_t root, bool entering)
{
	node_stack *st = open_calls(t, c->thread);
	uint32_t d = c->depth - root, key = rt_fkeys_key(t->keys, c->func);

	if (!entering && st->n == d + 1 && t->nodes.v[st->v[d]].key == key)
		return st->v[d];
	if (st->n >= d && (d == 0 || st->v[d - 1])) {
		st->n = d;
		vec_push(st, child(t, d ? st->v[d - 1] : 0, key));
		return st->v[d];
	}
	st->n = 0;
	for (uint32_t i = root, n = 0; i <= c->depth; i++) {
		n = child(t, n, rt_fkeys_key(t->keys, c->stack[i]));
		vec_push(st, n);
	}
	return st->v[d];
}

static bool wanted(struct rt_cct *t, const struct rt_call *c, int *root)
{
	if (t->tid && c->tid != t->tid)
		return false;
	*root = rt_fkeys_root(t->keys, c);
	return *root >= 0;
}

static void on_enter(void *ctx, const struct rt_call *c)
{
	struct rt_cct *t = ctx;
	int root;

	if (wanted(t, c, &root))
		node_of(t, c, root, true);
}

static void on_leave(void *ctx, const struct rt_call *c)
{
	struct rt_cct *t = ctx;
	struct rt_cct_node *n;
	uint32_t i;
	int root;

	if (!wanted(t, c, &root))
		return;
	i = node_of(t, c, root, false);
	n = &t->nodes.v[i];
	/* a call running before rtrace attached: its time, not the call */
	n->calls += !(c->flags & RT_CALL_PARTIAL);
	n->total += c->total;
	n->self += c->self;
	n->unwound += !!(c->flags & RT_CALL_UNWOUND);
	open_calls(t, c->thread)->n = c->depth - root;
	/* its blocked time is a frame above it: in its total, not its self,
	 * and a flame graph shows where the program waited */
	if (c->blocked) {
		/* child() may move the nodes */
		i = child(t, i, RT_CCT_BLOCKED);
		n = &t->nodes.v[i];
		n->total += c->blocked;
		n->self += c->blocked;
	}
}

struct rt_cct *rt_cct_new(struct rt_fkeys *keys, uint32_t tid)
{
	struct rt_cct *t = xcalloc(1, sizeof(*t));

	t->keys = keys;
	t->tid = tid;
	vec_push_zero(&t->nodes);  /* the root */
	return t;
}

void rt_cct_free(struct rt_cct *t)
{
	if (!t)
		return;
	vec_for_each(&t->open, st)
		vec_free(st);
	vec_free(&t->open);
	vec_free(&t->nodes);
	rt_hashidx_free(&t->index);
	free(t);
}

struct rt_sink rt_cct_sink(struct rt_cct *t)
{
	return (struct rt_sink){ .enter = on_enter, .leave = on_leave,
				 .ctx = t };
}

size_t rt_cct_size(const struct rt_cct *t)
{
	return t->nodes.n;
}

const struct rt_cct_node *rt_cct_node(const struct rt_cct *t, uint32_t i)
{
	return &t->nodes.v[i];
}

const char *rt_cct_name(const struct rt_cct *t, uint32_t i)
{
	if (i && t->nodes.v[i].key == RT_CCT_BLOCKED)
		return "[blocked]";
	return i ? rt_fkeys_name(t->keys, t->nodes.v[i].key) : "all";
}

uint32_t rt_cct_next(const struct rt_cct *t, uint32_t i)
{
	if (t->nodes.v[i].first_child)
		return t->nodes.v[i].first_child;
	while (i && !t->nodes.v[i].next)
		i = t->nodes.v[i].parent;
	return i ? t->nodes.v[i].next : 0;
}

struct sort_ctx {
	const struct rt_cct *t;
	enum rt_cct_order order;
};

static int cmp_nodes(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *s = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct rt_cct_node *nx = &s->t->nodes.v[x], *ny = &s->t->nodes.v[y];
	int c;

	if (s->order == RT_CCT_BY_TOTAL && nx->total != ny->total)
		return nx->total > ny->total ? -1 : 1;
	c = strcmp(rt_cct_name(s->t, x), rt_cct_name(s->t, y));
	return c ? c : (x > y) - (x < y);
}

void rt_cct_sort(struct rt_cct *t, enum rt_cct_order order)
{
	struct sort_ctx s = { t, order };
	size_t n = t->nodes.n, k;
	uint32_t *kids = xmalloc((n + 1) * sizeof(*kids));

	for (size_t i = 0; i < n; i++) {
		k = 0;
		rt_cct_for_each_child(t, i, c)
			kids[k++] = c;
		if (k < 2)
			continue;
		qsort_r(kids, k, sizeof(*kids), cmp_nodes, &s);
		t->nodes.v[i].first_child = kids[0];
		for (size_t j = 0; j < k; j++)
			t->nodes.v[kids[j]].next = j + 1 < k ? kids[j + 1] : 0;
	}
	free(kids);
}

uint64_t *rt_cct_weights(const struct rt_cct *t, enum rt_cct_weight w)
{
	size_t n = t->nodes.n;
	uint64_t *sum = xcalloc(n + 1, sizeof(*sum));

	/* children come after their parents: one backward sweep adds up
	 * every subtree */
	for (size_t i = n; i-- > 1;) {
		const struct rt_cct_node *nd = &t->nodes.v[i];

		sum[i] += w == RT_CCT_CALLS ? nd->calls : nd->self;
		sum[nd->parent] += sum[i];
	}
	return sum;
}
