/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The per-function profile: a sink of calls that sums calls, total (only
 * outermost activations, so recursion never inflates it), self, min and
 * max per function, optionally split per thread or per process.
 */
#ifndef RTRACE_PROFILE_H
#define RTRACE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/analysis.h"

struct rt_fstats {
	uint64_t calls;
	uint64_t total;       /* inclusive ns, outermost activations only */
	uint64_t self;        /* exclusive ns */
	uint64_t blocked;     /* ns in libc's blocking calls made outside
			       * traced callees: in total, not in self */
	uint64_t taken;       /* rtrace's cost taken out of total, ns */
	uint64_t min, max;    /* inclusive ns of one activation */
	uint64_t sum_incl;    /* inclusive ns summed over every activation,
			       * for the average */
	uint64_t unwound;     /* activations left by unwinding */
	uint64_t incomplete;
	uint64_t partial;     /* running before rtrace attached: their time
			       * is in total and self, not in calls */
	uint64_t inlined;     /* calls the compiler inlined: in calls */
	uint64_t untimed;     /* calls with no time (inlined ones whose end
			       * is not probed): in calls, not in total,
			       * self, min, max or sum_incl */
};

/* Calls with a time of their own: the average is sum_incl over these, and
 * min, max, total and self are meaningful only when there is one. */
static inline uint64_t rt_fstats_timed(const struct rt_fstats *st)
{
	return st->calls - st->untimed;
}

/* The average time of a timed call, or 0 when there is none. */
static inline uint64_t rt_fstats_avg(const struct rt_fstats *st)
{
	return rt_fstats_timed(st) ? st->sum_incl / rt_fstats_timed(st) : 0;
}

struct rt_profile;

/* A profile sink keyed by function id, optionally split per thread (key =
 * rt_call.thread, one life of a thread) or per process (key = pid); 0 = not
 * split.  Free with rt_profile_free(). */
enum rt_profile_split { RT_SPLIT_NONE, RT_SPLIT_THREAD, RT_SPLIT_PROCESS };
struct rt_profile *rt_profile_new(enum rt_profile_split split);
void rt_profile_free(struct rt_profile *p);

/* The sink to pass to rt_analyse(); valid while @p lives. */
struct rt_sink rt_profile_sink(struct rt_profile *p);

/* Rows: one per (key, function) with at least one call, in no particular
 * order; valid until the profile is freed. */
struct rt_profile_row {
	uint32_t key;         /* thread or pid with a split, else 0 */
	uint32_t func;
	struct rt_fstats st;
};
/* Adds a row of figures summed elsewhere (a saved profile), after the
 * others; false when (@key, @func) has one already. */
bool rt_profile_add_row(struct rt_profile *p, uint32_t key, uint32_t func,
			const struct rt_fstats *st);
size_t rt_profile_nrows(const struct rt_profile *p);
const struct rt_profile_row *rt_profile_row(const struct rt_profile *p,
					    size_t i);

#endif
