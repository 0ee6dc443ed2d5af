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
#include "rtrace/hashidx.h"
#include "rtrace/log.h"
#include "rtrace/memprof.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

#define SERIES_MAX 65536
#define MEM_FLAGS (RT_FUNC_MEM_ALLOC | RT_FUNC_MEM_REALLOC | RT_FUNC_MEM_FREE)

struct live {
	uint64_t ptr;
	uint64_t size;
	uint32_t owner;
};

/* The live allocations, kept dense: a freed one's place takes the last. */
struct live_map {
	VEC(struct live) v;
	struct rt_hashidx index;   /* by ptr */
};

struct state {
	struct rt_evlog_reader *r;
	struct live_map live;
	VEC(struct rt_mem_row) rows;
	struct rt_hashidx row_index;   /* rows by func */
	VEC(struct rt_mem_point) series;
	uint64_t spacing;        /* least ns between two series points */
	uint64_t heap, allocs, peak_at;  /* peak_at: allocation number */
	uint64_t stop_after;     /* second pass: stop at this allocation */
	bool done;
	struct rt_memprof *m;
};

/* ---- the live table ------------------------------------------------------ */

static bool live_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct live_map *m = ctx;

	return m->v.v[pos].ptr == *(const uint64_t *)key;
}

static void live_put(struct live_map *m, uint64_t ptr, uint64_t size,
		     uint32_t owner)
{
	uint64_t h = rt_hash_u64(ptr);
	uint32_t at = rt_hashidx_find(&m->index, h, live_is, m, &ptr);

	if (at == RT_HASHIDX_NONE) {
		at = (uint32_t)m->v.n;
		vec_push_zero(&m->v);
		rt_hashidx_add(&m->index, h, at);
	}
	m->v.v[at] = (struct live){ ptr, size, owner };
}

/* Removes @ptr; returns its entry (ptr 0 when it was not live). */
static struct live live_take(struct live_map *m, uint64_t ptr)
{
	uint64_t h = rt_hash_u64(ptr);
	uint32_t at = rt_hashidx_find(&m->index, h, live_is, m, &ptr);
	uint32_t last = (uint32_t)m->v.n - 1;
	struct live out;

	if (at == RT_HASHIDX_NONE)
		return (struct live){ 0 };
	out = m->v.v[at];
	rt_hashidx_remove(&m->index, h, at);
	if (at != last) {
		rt_hashidx_move(&m->index, rt_hash_u64(m->v.v[last].ptr), last,
				at);
		m->v.v[at] = m->v.v[last];
	}
	m->v.n--;
	return out;
}

static void live_clear(struct live_map *m)
{
	vec_free(&m->v);
	rt_hashidx_free(&m->index);
}

/* ---- rows --------------------------------------------------------------- */

static bool row_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct state *s = ctx;

	return s->rows.v[pos].func == *(const uint32_t *)key;
}

static struct rt_mem_row *row(struct state *s, uint32_t func)
{
	uint64_t h = rt_hash_u64(func);
	uint32_t at = rt_hashidx_find(&s->row_index, h, row_is, s, &func);
	struct rt_mem_row *r;

	if (at != RT_HASHIDX_NONE)
		return &s->rows.v[at];
	r = vec_push_zero(&s->rows);
	r->func = func;
	rt_hashidx_add(&s->row_index, h, (uint32_t)s->rows.n - 1);
	return r;
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
	for (size_t i = 0; i < s->live.v.n; i++) {
		const struct live *l = &s->live.v.v[i];
		struct rt_mem_row *r = row(s, l->owner);

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
		live_clear(&s.live);
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
	live_clear(&s.live);
	rt_hashidx_free(&s.row_index);
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
