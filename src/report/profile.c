// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-function sums over the calls the analysis produces. */
#include <stdlib.h>

#include "rtrace/profile.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct rt_profile {
	enum rt_profile_split split;
	VEC(struct rt_profile_row) rows;
	uint32_t *index;   /* row + 1 by hash of (key, func); 0 empty */
	size_t mask;
	size_t last;       /* the row found last, + 1: a hot loop calls the
			    * same function again and again */
};

static uint64_t row_key(uint32_t key, uint32_t func)
{
	return (uint64_t)key << 32 | func;
}

static void reindex(struct rt_profile *p)
{
	size_t cap = p->mask ? (p->mask + 1) * 2 : 64;

	free(p->index);
	p->index = xcalloc(cap, sizeof(*p->index));
	p->mask = cap - 1;
	for (size_t i = 0; i < p->rows.n; i++) {
		const struct rt_profile_row *r = &p->rows.v[i];
		size_t h = hash64(row_key(r->key, r->func)) & p->mask;

		while (p->index[h])
			h = (h + 1) & p->mask;
		p->index[h] = i + 1;
	}
}

static struct rt_profile_row *row_for(struct rt_profile *p, uint32_t key,
				      uint32_t func)
{
	struct rt_profile_row *r = p->last ? &p->rows.v[p->last - 1] : NULL;
	size_t h;

	if (r && r->key == key && r->func == func)
		return r;
	h = hash64(row_key(key, func)) & p->mask;
	for (; p->index[h]; h = (h + 1) & p->mask) {
		r = &p->rows.v[p->index[h] - 1];
		if (r->key == key && r->func == func) {
			p->last = p->index[h];
			return r;
		}
	}
	r = vec_push_zero(&p->rows);
	r->key = key;
	r->func = func;
	r->st.min = UINT64_MAX;
	p->index[h] = p->rows.n;
	if (p->rows.n * 2 > p->mask)
		reindex(p);
	return &p->rows.v[p->rows.n - 1];
}

static void on_leave(void *ctx, const struct rt_call *c)
{
	struct rt_profile *p = ctx;
	uint32_t key = p->split == RT_SPLIT_THREAD    ? c->thread :
		       p->split == RT_SPLIT_PROCESS ? c->pid : 0;
	struct rt_fstats *st = &row_for(p, key, c->func)->st;

	st->inlined += !!(c->flags & RT_CALL_INLINED);
	if (c->flags & RT_CALL_UNTIMED) {
		st->calls++;
		st->untimed++;
		return;
	}
	st->unwound += !!(c->flags & RT_CALL_UNWOUND);
	st->incomplete += !!(c->flags & RT_CALL_INCOMPLETE);
	if (c->outermost) {
		st->total += c->total;
		st->taken += c->taken;
	}
	st->self += c->self;
	st->blocked += c->blocked;
	/* a call already running when rtrace attached began outside the
	 * traced window: its time counts, not the call itself */
	if (c->flags & RT_CALL_PARTIAL) {
		st->partial++;
		return;
	}
	st->calls++;
	st->sum_incl += c->total;
	st->min = MIN(st->min, c->total);
	st->max = MAX(st->max, c->total);
}

struct rt_profile *rt_profile_new(enum rt_profile_split split)
{
	struct rt_profile *p = xcalloc(1, sizeof(*p));

	p->split = split;
	reindex(p);
	return p;
}

void rt_profile_free(struct rt_profile *p)
{
	if (!p)
		return;
	vec_free(&p->rows);
	free(p->index);
	free(p);
}

struct rt_sink rt_profile_sink(struct rt_profile *p)
{
	return (struct rt_sink){ .leave = on_leave, .ctx = p };
}

size_t rt_profile_nrows(const struct rt_profile *p)
{
	return p->rows.n;
}

const struct rt_profile_row *rt_profile_row(const struct rt_profile *p,
					    size_t i)
{
	return &p->rows.v[i];
}
