// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The memory profile, built from the allocator calls the analysis
 * completes.  Live allocations are kept in a table keyed by pointer (its
 * size grows with what is live, not with the number of events); per
 * function rows are keyed by function id.  A second pass over the log
 * stops at the allocation that made the peak, to see who held what then.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "memory"
#define PR_DOMAIN RT_DOM_ANALYSIS
#include "rtrace/analysis.h"
#include "rtrace/log.h"
#include "rtrace/memprof.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

#define SERIES_MAX 65536
#define MEM_FLAGS (RT_FUNC_MEM_ALLOC | RT_FUNC_MEM_REALLOC | RT_FUNC_MEM_FREE)

struct live {
	uint64_t ptr;            /* 0: empty slot */
	uint64_t size;
	uint32_t owner;
};

struct live_map {
	struct live *v;
	size_t mask, n;
};

struct state {
	struct rt_evlog_reader *r;
	struct live_map live;
	VEC(struct rt_mem_row) rows;
	uint32_t *row_index;     /* row + 1 by hash of func; 0 empty */
	size_t row_mask;
	VEC(struct rt_mem_point) series;
	uint64_t spacing;        /* least ns between two series points */
	uint64_t heap, allocs, peak_at;  /* peak_at: allocation number */
	uint64_t stop_after;     /* second pass: stop at this allocation */
	bool done;
	struct rt_memprof *m;
};

/* ---- the live table (linear probing, deletion by backward shift) ------ */

static struct live *live_slot(const struct live_map *m, uint64_t ptr)
{
	size_t i = hash64(ptr) & m->mask;

	while (m->v[i].ptr && m->v[i].ptr != ptr)
		i = (i + 1) & m->mask;
	return &m->v[i];
}

static void live_grow(struct live_map *m)
{
	struct live_map g = { .mask = m->mask ? m->mask * 2 + 1 : 1023 };

	g.v = xcalloc(g.mask + 1, sizeof(*g.v));
	for (size_t i = 0; m->v && i <= m->mask; i++)
		if (m->v[i].ptr)
			*live_slot(&g, m->v[i].ptr) = m->v[i];
	g.n = m->n;
	free(m->v);
	*m = g;
}

static void live_put(struct live_map *m, uint64_t ptr, uint64_t size,
		     uint32_t owner)
{
	struct live *s;

	if ((m->n + 1) * 2 > m->mask)
		live_grow(m);
	s = live_slot(m, ptr);
	if (!s->ptr)
		m->n++;
	*s = (struct live){ ptr, size, owner };
}

/* Removes @ptr; returns its entry (ptr 0 when it was not live). */
static struct live live_take(struct live_map *m, uint64_t ptr)
{
	struct live *s = live_slot(m, ptr), out = *s;
	size_t i = s - m->v, j = i;

	/* an empty slot keeps the size of the entry that left it */
	if (!s->ptr)
		return (struct live){ 0 };
	m->v[i].ptr = 0;
	m->n--;
	/* move later members of the cluster back into the hole */
	for (;;) {
		size_t home;

		j = (j + 1) & m->mask;
		if (!m->v[j].ptr)
			break;
		home = hash64(m->v[j].ptr) & m->mask;
		if ((j > i && (home <= i || home > j)) ||
		    (j < i && home <= i && home > j)) {
			m->v[i] = m->v[j];
			m->v[j].ptr = 0;
			i = j;
		}
	}
	return out;
}

/* ---- rows --------------------------------------------------------------- */

static void rows_reindex(struct state *s)
{
	size_t cap = s->row_mask ? (s->row_mask + 1) * 2 : 64;

	free(s->row_index);
	s->row_index = xcalloc(cap, sizeof(*s->row_index));
	s->row_mask = cap - 1;
	for (size_t i = 0; i < s->rows.n; i++) {
		size_t h = hash64(s->rows.v[i].func) & s->row_mask;

		while (s->row_index[h])
			h = (h + 1) & s->row_mask;
		s->row_index[h] = i + 1;
	}
}

static struct rt_mem_row *row(struct state *s, uint32_t func)
{
	size_t h = hash64(func) & s->row_mask;
	struct rt_mem_row *r;

	for (; s->row_index[h]; h = (h + 1) & s->row_mask)
		if (s->rows.v[s->row_index[h] - 1].func == func)
			return &s->rows.v[s->row_index[h] - 1];
	r = vec_push_zero(&s->rows);
	r->func = func;
	s->row_index[h] = s->rows.n;
	if (s->rows.n * 2 > s->row_mask)
		rows_reindex(s);
	return &s->rows.v[s->rows.n - 1];
}

/* ---- the heap over time -------------------------------------------------- */

/* Keeps at most SERIES_MAX points: when full, every other one goes and the
 * spacing doubles, so the series covers the whole run evenly. */
static void note_heap(struct state *s, uint64_t t)
{
	struct rt_mem_point *last = s->series.n ? vec_last(&s->series) : NULL;

	if (last && t - last->t < s->spacing) {
		last->heap = s->heap;
		return;
	}
	/* NOLINTBEGIN(clang-analyzer-core.NullDereference): the analyzer
	 * does not know that a vector with elements has storage */
	if (s->series.n == SERIES_MAX) {
		for (size_t i = 0; i < SERIES_MAX / 2; i++)
			s->series.v[i] = s->series.v[2 * i + 1];
		s->series.n = SERIES_MAX / 2;
		s->spacing = s->spacing ? s->spacing * 2 : 1000;
	}
	vec_push(&s->series, ((struct rt_mem_point){ t, s->heap }));
	/* NOLINTEND(clang-analyzer-core.NullDereference) */
}

/* ---- allocator calls ------------------------------------------------------ */

static uint32_t flags_of(const struct state *s, uint32_t id)
{
	const struct rt_log_func *fn = rt_evlog_func(s->r, id);

	return fn ? fn->flags : RT_FUNC_HELPER;
}

/* The innermost traced function enclosing the call, or "outside". */
static uint32_t owner_of(const struct state *s, const struct rt_call *c)
{
	for (uint32_t i = c->depth; i-- > 0;)
		if (!(flags_of(s, c->stack[i]) & (MEM_FLAGS | RT_FUNC_HELPER)))
			return c->stack[i];
	return RT_MEM_OUTSIDE;
}

/* Every distinct traced function on the stack gets the allocation in its
 * total (a recursive one once). */
static void add_totals(struct state *s, const struct rt_call *c, uint64_t size)
{
	for (uint32_t i = 0; i < c->depth; i++) {
		uint32_t f = c->stack[i];
		bool seen = false;

		if (flags_of(s, f) & (MEM_FLAGS | RT_FUNC_HELPER))
			continue;
		for (uint32_t j = 0; j < i && !seen; j++)
			seen = c->stack[j] == f;
		if (!seen) {
			row(s, f)->allocs_total++;
			row(s, f)->bytes_total += size;
		}
	}
}

static void on_alloc(struct state *s, const struct rt_call *c, uint64_t ptr,
		     uint64_t size, uint32_t owner)
{
	struct rt_mem_row *r;

	if (!ptr) {
		/* NULL from a return, or no return seen at all: the
		 * allocator left by a jump rtrace could not follow */
		if (c->flags & (RT_CALL_APPROX_END | RT_CALL_UNWOUND |
				RT_CALL_INCOMPLETE))
			s->m->unseen++;
		else
			s->m->failed++;
		return;
	}
	live_put(&s->live, ptr, size, owner);
	s->heap += size;
	s->allocs++;
	if (s->stop_after) {
		s->done = s->allocs >= s->stop_after;
		return;
	}
	r = row(s, owner);
	r->allocs++;
	r->bytes += size;
	add_totals(s, c, size);
	note_heap(s, c->end);
	if (s->heap > s->m->peak) {
		s->m->peak = s->heap;
		s->m->peak_t = c->end;
		s->m->peak_func = owner;
		s->peak_at = s->allocs;
	}
}

static void on_free(struct state *s, const struct rt_call *c, uint64_t ptr,
		    uint32_t owner)
{
	struct live l;

	if (!ptr)
		return;
	l = live_take(&s->live, ptr);
	s->heap -= l.size;
	if (s->stop_after)
		return;
	row(s, owner)->frees++;
	row(s, owner)->freed += l.size;
	s->m->unknown_frees += !l.ptr;
	note_heap(s, c->end);
}

static bool nested(const struct state *s, const struct rt_call *c)
{
	for (uint32_t i = 0; i < c->depth; i++)
		if (flags_of(s, c->stack[i]) & MEM_FLAGS)
			return true;
	return false;
}

static void on_leave(void *ctx, const struct rt_call *c)
{
	struct state *s = ctx;
	uint32_t fl = flags_of(s, c->func), owner;

	if (!(fl & MEM_FLAGS) || s->done || nested(s, c) ||
	    (c->flags & RT_CALL_PARTIAL))
		return;
	owner = owner_of(s, c);
	if (fl & RT_FUNC_MEM_ALLOC) {
		on_alloc(s, c, c->ret, c->value, owner);
	} else if (fl & RT_FUNC_MEM_FREE) {
		on_free(s, c, c->value, owner);
	} else if (c->ret || !c->value) {
		/* a reallocation is a free and an allocation; one that
		 * failed left the old block alone */
		on_free(s, c, c->arg, owner);
		on_alloc(s, c, c->ret, c->value, owner);
	} else {
		s->m->failed++;
	}
}

/* ---- passes ------------------------------------------------------------------ */

static int pass(struct state *s)
{
	struct rt_sink sink = { .leave = on_leave, .ctx = s };
	struct rt_analysis_opts o = { .stop_cost_ns = -1 };

	s->heap = s->allocs = 0;
	s->done = false;
	return rt_analyse(s->r, &o, &sink, 1, NULL);
}

/* Who held the memory: from the live table, at the end or at the peak. */
static void tally_live(struct state *s, bool at_peak)
{
	for (size_t i = 0; s->live.v && i <= s->live.mask; i++) {
		const struct live *l = &s->live.v[i];
		struct rt_mem_row *r;

		if (!l->ptr)
			continue;
		r = row(s, l->owner);
		if (at_peak) {
			r->at_peak += l->size;
		} else {
			r->live += l->size;
			r->live_allocs++;
		}
	}
}

static bool has_allocator(struct rt_evlog_reader *r, const char **custom)
{
	bool found = false;

	*custom = NULL;
	for (size_t i = 0; i < rt_evlog_nfuncs(r); i++) {
		const struct rt_log_func *fn = rt_evlog_func(r, i);

		if (!fn)
			continue;
		found |= !!(fn->flags & MEM_FLAGS);
		if (fn->flags & RT_FUNC_GLOBAL_ALLOC)
			*custom = fn->name;
	}
	return found;
}

int rt_memprof_build(struct rt_evlog_reader *r, struct rt_memprof **out)
{
	struct state s = { .r = r };
	struct rt_memprof *m = xcalloc(1, sizeof(*m));
	int err;

	*out = NULL;
	s.m = m;
	rows_reindex(&s);
	live_grow(&s.live);
	err = pass(&s);
	/* the function tables are known once the log was read */
	if (!err && !has_allocator(r, &m->allocator))
		err = -ENODATA;
	if (!err) {
		tally_live(&s, false);
		m->heap_end = s.heap;
		m->allocs = s.allocs;
	}
	if (!err && s.peak_at) {
		memset(s.live.v, 0, (s.live.mask + 1) * sizeof(*s.live.v));
		s.live.n = 0;
		s.stop_after = s.peak_at;
		err = pass(&s);
		tally_live(&s, true);
	}
	vec_for_each(&s.rows, rw)
		m->frees += rw->frees;
	m->rows = s.rows.v;
	m->nrows = s.rows.n;
	m->series = s.series.v;
	m->npoints = s.series.n;
	free(s.live.v);
	free(s.row_index);
	if (err) {
		rt_memprof_free(m);
		return err;
	}
	*out = m;
	return 0;
}

void rt_memprof_free(struct rt_memprof *m)
{
	if (!m)
		return;
	free(m->rows);
	free(m->series);
	free(m);
}
