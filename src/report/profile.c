// SPDX-License-Identifier: GPL-2.0-or-later
/* Per-function sums over the calls the analysis produces. */
#include <stdlib.h>

#include "rtrace/hashidx.h"
#include "rtrace/profile.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct rt_profile {
	enum rt_profile_split split;
	VEC(struct rt_profile_row) rows;
	struct rt_hashidx index;   /* rows by (key, func) */
	size_t last;       /* the row found last, + 1: a hot loop calls the
			    * same function again and again */
};

static bool row_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct rt_profile *p = ctx;
	const struct rt_profile_row *r = &p->rows.v[pos];
	const uint32_t *k = key;  /* key, func */

	return r->key == k[0] && r->func == k[1];
}

static struct rt_profile_row *row_for(struct rt_profile *p, uint32_t key,
				      uint32_t func)
{
	uint32_t k[2] = { key, func };
	struct rt_profile_row *r;
	uint64_t h;
	uint32_t at;

	if (p->last) {
		r = &p->rows.v[p->last - 1];
		if (r->key == key && r->func == func)
			return r;
	}
	h = rt_hash_pair(key, func);
	at = rt_hashidx_find(&p->index, h, row_is, p, k);
	if (at == RT_HASHIDX_NONE) {
		r = vec_push_zero(&p->rows);
		r->key = key;
		r->func = func;
		r->st.min = UINT64_MAX;
		at = (uint32_t)p->rows.n - 1;
		rt_hashidx_add(&p->index, h, at);
	}
	p->last = at + 1;
	return &p->rows.v[at];
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

bool rt_profile_add_row(struct rt_profile *p, uint32_t key, uint32_t func,
			const struct rt_fstats *st)
{
	size_t n = p->rows.n;
	struct rt_profile_row *r = row_for(p, key, func);

	if (p->rows.n == n)
		return false;
	r->st = *st;
	return true;
}

struct rt_profile *rt_profile_new(enum rt_profile_split split)
{
	struct rt_profile *p = xcalloc(1, sizeof(*p));

	p->split = split;
	return p;
}

void rt_profile_free(struct rt_profile *p)
{
	if (!p)
		return;
	vec_free(&p->rows);
	rt_hashidx_free(&p->index);
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
