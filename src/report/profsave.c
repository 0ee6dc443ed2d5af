// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The profile block's bytes.  docs/log-format.md describes them: a version,
 * flags, the analysis summary, the stops per function, the threads and the
 * rows, little-endian.  The reader checks every count against the bytes
 * left before it allocates, so a forged block costs no more memory than
 * it holds.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "profile"
#define PR_DOMAIN RT_DOM_ANALYSIS
#include "rtrace/log.h"
#include "rtrace/profsave.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

#define PS_RAW_TIMES 1u		/* flags: made with --raw-times */
#define STR_NONE UINT32_MAX
#define THREAD_FIXED 24		/* tid, pid, creator, flags, calls */
#define FSTATS_WORDS 13
#define ROW_SIZE (8 + 8 * FSTATS_WORDS)

typedef VEC(uint8_t) bytes_vec;

static void put64(bytes_vec *b, uint64_t v)
{
	v = htole64(v);
	vec_reserve(b, b->n + 8);
	memcpy(b->v + b->n, &v, 8);
	b->n += 8;
}

static void put32(bytes_vec *b, uint32_t v)
{
	v = htole32(v);
	vec_reserve(b, b->n + 4);
	memcpy(b->v + b->n, &v, 4);
	b->n += 4;
}

static void put_str(bytes_vec *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put32(b, s ? (uint32_t)n : STR_NONE);
	vec_reserve(b, b->n + n);
	if (n)
		memcpy(b->v + b->n, s, n);
	b->n += n;
}

/* The figures of a row, in the order of struct rt_fstats. */
static void fstats_get(const struct rt_fstats *st, uint64_t w[FSTATS_WORDS])
{
	const uint64_t v[FSTATS_WORDS] = {
		st->calls, st->total, st->self, st->blocked, st->taken,
		st->min, st->max, st->sum_incl, st->unwound, st->incomplete,
		st->partial, st->inlined, st->untimed,
	};

	memcpy(w, v, sizeof(v));
}

static void fstats_set(struct rt_fstats *st, const uint64_t w[FSTATS_WORDS])
{
	*st = (struct rt_fstats){
		.calls = w[0], .total = w[1], .self = w[2], .blocked = w[3],
		.taken = w[4], .min = w[5], .max = w[6], .sum_incl = w[7],
		.unwound = w[8], .incomplete = w[9], .partial = w[10],
		.inlined = w[11], .untimed = w[12],
	};
}

static void put_summary(bytes_vec *b, const struct rt_analysis_summary *s)
{
	const uint64_t w[] = {
		s->events, s->calls, s->inlined_calls, s->first_ts,
		s->last_ts, s->unmatched_exits, s->unknown_funcs, s->unwound,
		s->incomplete, s->stop_cost_ns, s->stops, s->stop_events,
		s->inline_cost_ns,
	};

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		put64(b, w[i]);
	put32(b, s->processes);
	put32(b, (uint32_t)s->nfunc_stops);
	for (size_t i = 0; i < s->nfunc_stops; i++)
		put64(b, s->func_stops[i]);
	put32(b, s->threads);
	for (uint32_t i = 0; i < s->threads; i++) {
		const struct rt_thread_info *ti = &s->thread_info[i];

		put32(b, ti->tid);
		put32(b, ti->pid);
		put32(b, ti->creator);
		put32(b, ti->flags);
		put64(b, ti->calls);
		put_str(b, ti->name);
	}
}

void rt_profsave_encode(const struct rt_analysis_summary *sum,
			const struct rt_profile *p, bool raw_times,
			uint8_t **out, size_t *n)
{
	bytes_vec b = { 0 };
	size_t nrows = rt_profile_nrows(p);
	uint64_t w[FSTATS_WORDS];

	put32(&b, RT_PROFSAVE_VERSION);
	put32(&b, raw_times ? PS_RAW_TIMES : 0);
	put_summary(&b, sum);
	put32(&b, (uint32_t)nrows);
	/* in the profile's order: ties in a report's sort keep it */
	for (size_t i = 0; i < nrows; i++) {
		const struct rt_profile_row *r = rt_profile_row(p, i);

		put32(&b, r->key);
		put32(&b, r->func);
		fstats_get(&r->st, w);
		for (int k = 0; k < FSTATS_WORDS; k++)
			put64(&b, w[k]);
	}
	*out = b.v;
	*n = b.n;
}

/* ---- reading ---------------------------------------------------------- */

/* A bounded view of the block; @why holds the first problem. */
struct cur {
	const uint8_t *p, *end;
	const char *why;
};

static bool need(struct cur *c, uint64_t n)
{
	if (c->why)
		return false;
	if ((uint64_t)(c->end - c->p) >= n)
		return true;
	c->why = "it is cut short";
	return false;
}

static uint64_t get64(struct cur *c)
{
	uint64_t v = 0;

	if (need(c, 8)) {
		memcpy(&v, c->p, 8);
		c->p += 8;
	}
	return le64toh(v);
}

static uint32_t get32(struct cur *c)
{
	uint32_t v = 0;

	if (need(c, 4)) {
		memcpy(&v, c->p, 4);
		c->p += 4;
	}
	return le32toh(v);
}

/* A count of items of at least @each bytes: never more than the bytes
 * left can hold. */
static uint32_t get_count(struct cur *c, size_t each)
{
	uint32_t n = get32(c);

	if (!c->why && (uint64_t)n * each > (uint64_t)(c->end - c->p))
		c->why = "a count is larger than the block";
	return c->why ? 0 : n;
}

/* Bytes the thread names need, NULs included, as far as the block holds
 * them (get_threads() stops where this does); the cursor is left where it
 * was. */
static size_t names_size(struct cur c, uint32_t nthreads)
{
	size_t size = 0;

	for (uint32_t i = 0; i < nthreads && !c.why; i++) {
		uint32_t len;

		c.p += need(&c, THREAD_FIXED) ? THREAD_FIXED : 0;
		len = get32(&c);
		if (len != STR_NONE && need(&c, len)) {
			c.p += len;
			size += len + 1;
		}
	}
	return size;
}

static void get_threads(struct cur *c, struct rt_analysis_summary *s)
{
	uint32_t n = get_count(c, THREAD_FIXED + 4);
	size_t names = names_size(*c, n);
	char *at;

	/* the names follow the threads in one allocation, so that the
	 * summary's release frees them */
	s->thread_info = xcalloc(1, (n + 1) * sizeof(*s->thread_info) + names);
	at = (char *)(s->thread_info + n + 1);
	s->threads = c->why ? 0 : n;
	for (uint32_t i = 0; i < s->threads && !c->why; i++) {
		struct rt_thread_info *ti = &s->thread_info[i];
		uint32_t len;

		ti->tid = get32(c);
		ti->pid = get32(c);
		ti->creator = get32(c);
		ti->flags = get32(c);
		ti->calls = get64(c);
		len = get32(c);
		if (len == STR_NONE || !need(c, len))
			continue;
		memcpy(at, c->p, len);
		at[len] = '\0';
		ti->name = at;
		at += len + 1;
		c->p += len;
		if (ti->creator > n)
			c->why = "a thread's creator is out of range";
	}
}

static void get_summary(struct cur *c, struct rt_analysis_summary *s)
{
	uint64_t w[13];

	for (size_t i = 0; i < 13; i++)
		w[i] = get64(c);
	*s = (struct rt_analysis_summary){
		.events = w[0], .calls = w[1], .inlined_calls = w[2],
		.first_ts = w[3], .last_ts = w[4], .unmatched_exits = w[5],
		.unknown_funcs = w[6], .unwound = w[7], .incomplete = w[8],
		.stop_cost_ns = w[9], .stops = w[10], .stop_events = w[11],
		.inline_cost_ns = w[12],
	};
	s->processes = get32(c);
	s->nfunc_stops = get_count(c, 8);
	s->func_stops = xcalloc(s->nfunc_stops + 1, sizeof(*s->func_stops));
	for (size_t i = 0; i < s->nfunc_stops; i++)
		s->func_stops[i] = get64(c);
	get_threads(c, s);
}

static struct rt_profile *get_rows(struct cur *c, uint32_t nthreads)
{
	struct rt_profile *p = rt_profile_new(RT_SPLIT_THREAD);
	uint32_t n = get_count(c, ROW_SIZE);
	uint64_t w[FSTATS_WORDS];

	for (uint32_t i = 0; i < n && !c->why; i++) {
		struct rt_fstats st;
		uint32_t key = get32(c), func = get32(c);

		for (int k = 0; k < FSTATS_WORDS; k++)
			w[k] = get64(c);
		fstats_set(&st, w);
		if (key > nthreads)
			c->why = "a row's thread is out of range";
		else if (!c->why && !rt_profile_add_row(p, key, func, &st))
			c->why = "a row comes twice";
	}
	return p;
}

int rt_profsave_decode(const uint8_t *b, size_t n, const char *path,
		       struct rt_analysis_summary *sum,
		       struct rt_profile **out, bool *raw_times)
{
	struct cur c = { b, b + n, NULL };
	uint32_t version = get32(&c), flags = get32(&c);
	struct rt_profile *p = NULL;

	memset(sum, 0, sizeof(*sum));
	if (!c.why && (version == 0 || version > RT_PROFSAVE_VERSION)) {
		pr_err("%s: profile block version %" PRIu32 " is not one this "
		       "rtrace reads (up to %d)", path, version,
		       RT_PROFSAVE_VERSION);
		return -EBADMSG;
	}
	get_summary(&c, sum);
	p = get_rows(&c, sum->threads);
	if (!c.why && c.p != c.end)
		c.why = "bytes follow its last row";
	if (c.why) {
		pr_err("%s: malformed profile block: %s", path, c.why);
		rt_analysis_summary_release(sum);
		rt_profile_free(p);
		return -EBADMSG;
	}
	*raw_times = flags & PS_RAW_TIMES;
	*out = p;
	return 0;
}
