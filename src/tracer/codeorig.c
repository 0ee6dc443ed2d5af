// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The original bytes of the code rtrace writes over (codeorig.h).
 *
 * The file is the first source: it holds what the program's code was
 * before anyone wrote over it, even when a tracer that died left jumps
 * behind.  The bytes read from the process before the first write stand
 * in where the file has none (a range across two sections).
 */
#include <stdlib.h>
#include <string.h>

#include "rtrace/codeorig.h"
#include "rtrace/symbols.h"
#include "rtrace/tasks.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct span {
	rt_raddr lo;
	size_t len;
	uint8_t *bytes;
};

struct rt_code_orig {
	VEC(struct span) spans;   /* sorted by lo, disjoint */
};

/* Index of the first span that ends after @lo. */
static size_t first_after(const struct rt_code_orig *o, rt_raddr lo)
{
	size_t a = 0, b = o->spans.n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (o->spans.v[m].lo + o->spans.v[m].len <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Spans [i, j), which [lo, hi) covers, become one: @fresh fills what
 * none of them holds.  Returns its bytes. */
static uint8_t *merge(struct rt_code_orig *o, size_t i, size_t j,
		      rt_raddr lo, rt_raddr hi, const uint8_t *fresh)
{
	struct span s;

	s = (struct span){ .lo = lo, .len = hi - lo, .bytes = xmalloc(hi - lo) };
	memcpy(s.bytes, fresh, s.len);
	for (size_t k = i; k < j; k++) {
		struct span *old = &o->spans.v[k];

		memcpy(s.bytes + (old->lo - lo), old->bytes, old->len);
		free(old->bytes);
	}
	/* [i, j) becomes the one span s */
	if (j == i) {
		vec_push_zero(&o->spans);
		memmove(&o->spans.v[i + 1], &o->spans.v[i],
			(o->spans.n - 1 - i) * sizeof(s));
	} else if (j > i + 1) {
		memmove(&o->spans.v[i + 1], &o->spans.v[j],
			(o->spans.n - j) * sizeof(s));
		o->spans.n -= j - i - 1;
	}
	o->spans.v[i] = s;
	return s.bytes;
}

/* The bytes of [lo, hi) from the file, else from @before, in a new
 * buffer; NULL when neither has them.  The ranges that overlap
 * recorded ones may reach past @before's: those bytes come from the
 * record. */
static uint8_t *fresh_bytes(struct rt_image *img, rt_raddr lo, rt_raddr hi,
			    rt_raddr want_lo, size_t want_len,
			    const uint8_t *before)
{
	uint8_t *b = xcalloc(1, hi - lo);

	if (!rt_symbols_read(img->syms, lo - img->bias, b, hi - lo))
		return b;
	if (before && !rt_symbols_read(img->syms, want_lo - img->bias,
				       b + (want_lo - lo), want_len))
		return b;
	if (before) {
		memcpy(b + (want_lo - lo), before, want_len);
		return b;
	}
	free(b);
	return NULL;
}

const uint8_t *rt_code_orig_get(struct rt_image *img, rt_raddr lo,
				size_t len, const uint8_t *before)
{
	struct rt_code_orig *o;
	rt_raddr hi = lo + len, mlo = lo, mhi = hi;
	size_t i, j;
	uint8_t *fresh, *joined;

	if (!img->orig)
		img->orig = xcalloc(1, sizeof(*img->orig));
	o = img->orig;
	i = first_after(o, lo);
	if (i < o->spans.n && o->spans.v[i].lo <= lo &&
	    o->spans.v[i].lo + o->spans.v[i].len >= hi)
		return o->spans.v[i].bytes + (lo - o->spans.v[i].lo);
	for (j = i; j < o->spans.n && o->spans.v[j].lo < hi; j++) {
		mlo = MIN(mlo, o->spans.v[j].lo);
		mhi = MAX(mhi, o->spans.v[j].lo + o->spans.v[j].len);
	}
	fresh = fresh_bytes(img, mlo, mhi, lo, len, before);
	if (!fresh)
		return NULL;
	joined = merge(o, i, j, mlo, mhi, fresh);
	free(fresh);
	return joined + (lo - mlo);
}

void rt_code_orig_free(struct rt_code_orig *o)
{
	if (!o)
		return;
	vec_for_each(&o->spans, s)
		free(s->bytes);
	vec_free(&o->spans);
	free(o);
}
