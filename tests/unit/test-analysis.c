// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The analysis: synthetic event streams through the step machine
 * (rt_frames_*), with a sink that records every call and a profile, and
 * one small log through rt_analyse().
 *
 * Expected values come from construction: every stream below gives its
 * timestamps relative to the origin T0, and each expectation is worked
 * out by hand from them in the comment next to it.  Stack pointers grow
 * down: a callee's entry sp is below its caller's; an exit or a tail jump
 * carries the sp of its entry.  "stops" counts a thread's ptrace stops
 * from its first event, each event adding its nstops.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrace/analysis.h"
#include "rtrace/compiler.h"
#include "rtrace/evlog.h"
#include "rtrace/profile.h"
#include "rtrace/util.h"
#include "unittest.h"

#define T0 1000000000ULL          /* origin of the timeline */
#define PID 1
#define TID 10

/* stack pointers of depths 0..3 on the main thread */
#define S0 0x7ffc0000ULL
#define S1 (S0 - 0x40)
#define S2 (S0 - 0x80)
#define S3 (S0 - 0xc0)

enum { MAIN_FN, PARENT, CHILD, GRAND, F, G, H, NFUNCS };
/* a function far down a big table: its activations are counted in a
 * chunk of their own */
#define FAR_FN 5000u

#define ADDR(id) (0x555500001000ULL + (uint64_t)(id) * 0x100)
#define UNTRACED 0x555500900000ULL  /* an address no function has */
#define HELPER 0x555500a00000ULL    /* an untraced function whose returns
				     * are probed */

static const struct rt_analysis_opts def_opts = { .stop_cost_ns = -1 };

/* ---- streams ------------------------------------------------------------- */

/* Event at @ts ns after T0. */
static struct rt_event ev(uint64_t ts, enum rt_event_kind kind, uint32_t func,
			  uint64_t sp, uint32_t tid, uint16_t nstops)
{
	return (struct rt_event){
		.ts = T0 + ts, .kind = kind, .func = func, .sp = sp,
		.tid = tid, .pid = PID, .nstops = nstops,
	};
}

/* Tail jump of @func at @ts to @target (0: unknown). */
static struct rt_event tail(uint64_t ts, uint32_t func, uint64_t sp,
			    uint32_t tid, uint64_t target)
{
	struct rt_event e = ev(ts, RT_EV_TAIL, func, sp, tid, 1);

	e.value = target;
	return e;
}

static struct rt_event with_pid(struct rt_event e, uint32_t pid)
{
	e.pid = pid;
	return e;
}

/* ---- a sink that records every call -------------------------------------- */

#define MAXREC 64     /* calls kept; later ones are only counted */
#define MAXDEPTH 16   /* stack entries kept per call */

struct rec {
	struct rt_call c;
	uint32_t stack[MAXDEPTH];
};

struct recorder {
	struct rec enter[MAXREC], leave[MAXREC];
	size_t nenter, nleave;
	size_t bad_stack;     /* calls whose stack[depth] was not func */
};

static void record(struct recorder *r, struct rec *to, size_t *n,
		   const struct rt_call *c)
{
	r->bad_stack += c->stack[c->depth] != c->func;
	if (*n < MAXREC) {
		to[*n].c = *c;
		memcpy(to[*n].stack, c->stack,
		       MIN(c->depth + 1, MAXDEPTH) * sizeof(*c->stack));
		to[*n].c.stack = to[*n].stack;
	}
	(*n)++;
}

static void rec_enter(void *ctx, const struct rt_call *c)
{
	struct recorder *r = ctx;

	record(r, r->enter, &r->nenter, c);
}

static void rec_leave(void *ctx, const struct rt_call *c)
{
	struct recorder *r = ctx;

	record(r, r->leave, &r->nleave, c);
}

/* ---- running a stream ---------------------------------------------------- */

struct run {
	struct recorder rec;
	struct rt_profile *prof;
	struct rt_analysis_summary sum;
};

/* Feeds @evs to a fresh machine (every function's address registered),
 * then finishes at @end ns after T0. */
/* Feeds @evs to a new machine: per-stop @cost, or @curve when not NULL. */
static void run_curve(struct run *r, const struct rt_analysis_opts *opts,
		      uint64_t cost, const struct rt_stop_cost *curve,
		      enum rt_profile_split split, const struct rt_event *evs,
		      size_t n, uint64_t end)
{
	struct rt_sink sinks[2];
	struct rt_frames *f;

	memset(&r->rec, 0, sizeof(r->rec));
	memset(&r->sum, 0xa5, sizeof(r->sum));
	r->prof = rt_profile_new(split);
	sinks[0] = (struct rt_sink){ rec_enter, rec_leave, &r->rec };
	sinks[1] = rt_profile_sink(r->prof);
	f = rt_frames_new(opts, cost, T0, sinks, ARRAY_SIZE(sinks));
	if (curve)
		rt_frames_set_curve(f, curve);
	for (uint32_t id = 0; id < NFUNCS; id++)
		rt_frames_func_addr(f, id, ADDR(id));
	rt_frames_func_addr(f, FAR_FN, ADDR(FAR_FN));
	rt_frames_helper(f, HELPER);
	for (size_t i = 0; i < n; i++)
		rt_frames_feed(f, &evs[i]);
	rt_frames_finish(f, T0 + end, &r->sum);
	rt_frames_free(f);
}

static void run_split(struct run *r, const struct rt_analysis_opts *opts,
		      uint64_t cost, enum rt_profile_split split,
		      const struct rt_event *evs, size_t n, uint64_t end)
{
	run_curve(r, opts, cost, NULL, split, evs, n, end);
}

static void run(struct run *r, uint64_t cost, const struct rt_event *evs,
		size_t n, uint64_t end)
{
	run_split(r, &def_opts, cost, RT_SPLIT_NONE, evs, n, end);
}

static void run_done(struct run *r)
{
	rt_profile_free(r->prof);
	r->prof = NULL;
	rt_analysis_summary_release(&r->sum);
}

/* Every call seen had stack[depth] == func; then frees the profile. */
#define RUN_DONE(r)                                                            \
	do {                                                                   \
		TEST_EQ((r)->rec.bad_stack, 0);                                \
		run_done(r);                                                   \
	} while (0)

/* The @k-th (from 0) completed call of @func, or NULL. */
static const struct rt_call *left(const struct run *r, uint32_t func,
				  size_t k)
{
	for (size_t i = 0; i < MIN(r->rec.nleave, MAXREC); i++)
		if (r->rec.leave[i].c.func == func && k-- == 0)
			return &r->rec.leave[i].c;
	return NULL;
}

static const struct rt_fstats *prof(const struct run *r, uint32_t key,
				    uint32_t func)
{
	for (size_t i = 0; i < rt_profile_nrows(r->prof); i++) {
		const struct rt_profile_row *row = rt_profile_row(r->prof, i);

		if (row->key == key && row->func == func)
			return &row->st;
	}
	return NULL;
}

/* A completed call: times relative to T0 on the compensated timeline. */
#define CHECK_CALL(c, func_, start_, end_, total_, self_, depth_, flags_)     \
	do {                                                                   \
		const struct rt_call *cc__ = (c);                              \
		TEST_TRUE(cc__ != NULL);                                       \
		TEST_EQ(cc__->func, func_);                                    \
		TEST_EQ(cc__->start, start_);                                  \
		TEST_EQ(cc__->end, end_);                                      \
		TEST_EQ(cc__->total, total_);                                  \
		TEST_EQ(cc__->self, self_);                                    \
		TEST_EQ(cc__->depth, depth_);                                  \
		TEST_EQ(cc__->flags, flags_);                                  \
	} while (0)

/* stack[0..depth] of a call, outermost first. */
#define CHECK_STACK(c, ...)                                                    \
	do {                                                                   \
		const struct rt_call *cs__ = (c);                              \
		const uint32_t want__[] = { __VA_ARGS__ };                     \
		TEST_TRUE(cs__ != NULL);                                       \
		TEST_EQ(cs__->depth + 1, ARRAY_SIZE(want__));                  \
		TEST_TRUE(ARRAY_SIZE(want__) <= MAXDEPTH);                     \
		TEST_MEMEQ(cs__->stack, want__, sizeof(want__));               \
	} while (0)

#define CHECK_PROF(r, key, func, calls_, total_, self_)                        \
	do {                                                                   \
		const struct rt_fstats *st__ = prof(r, key, func);             \
		TEST_TRUE(st__ != NULL);                                       \
		TEST_EQ(st__->calls, calls_);                                  \
		TEST_EQ(st__->total, total_);                                  \
		TEST_EQ(st__->self, self_);                                    \
	} while (0)

/* ---- nesting ------------------------------------------------------------- */

/*
 * PARENT calls CHILD twice; the first CHILD calls GRAND.
 *   100 PARENT in, 200 CHILD in, 250 GRAND in, 280 GRAND out,
 *   400 CHILD out, 500 CHILD in, 550 CHILD out, 1100 PARENT out.
 * Cumulative stops after each event: 1 2 3 4 5 6 7 8.
 */
static size_t nesting_stream(struct rt_event *e)
{
	size_t n = 0;

	e[n++] = ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1);
	e[n++] = ev(200, RT_EV_ENTRY, CHILD, S1, TID, 1);
	e[n++] = ev(250, RT_EV_ENTRY, GRAND, S2, TID, 1);
	e[n++] = ev(280, RT_EV_EXIT, GRAND, S2, TID, 1);
	e[n++] = ev(400, RT_EV_EXIT, CHILD, S1, TID, 1);
	e[n++] = ev(500, RT_EV_ENTRY, CHILD, S1, TID, 1);
	e[n++] = ev(550, RT_EV_EXIT, CHILD, S1, TID, 1);
	e[n++] = ev(1100, RT_EV_EXIT, PARENT, S0, TID, 1);
	return n;
}

/* A log cut before its first event: no calls, no threads, no error. */
TEST_CASE(no_events)
{
	struct run r;

	run(&r, 0, NULL, 0, 100);
	TEST_EQ(r.rec.nenter, 0);
	TEST_EQ(r.rec.nleave, 0);
	RUN_DONE(&r);
}

TEST_CASE(nesting)
{
	struct rt_event e[16];
	size_t n = nesting_stream(e);
	struct run r;

	run(&r, 0, e, n, 1200);

	/* enters in stream order, with their start and nothing else */
	TEST_EQ(r.rec.nenter, 4);
	TEST_EQ(r.rec.enter[0].c.func, PARENT);
	TEST_EQ(r.rec.enter[0].c.start, 100);
	TEST_EQ(r.rec.enter[0].c.depth, 0);
	TEST_EQ(r.rec.enter[1].c.func, CHILD);
	TEST_EQ(r.rec.enter[1].c.start, 200);
	TEST_EQ(r.rec.enter[2].c.func, GRAND);
	TEST_EQ(r.rec.enter[2].c.start, 250);
	TEST_EQ(r.rec.enter[2].c.depth, 2);
	CHECK_STACK(&r.rec.enter[2].c, PARENT, CHILD, GRAND);
	TEST_EQ(r.rec.enter[2].c.end, 0);
	TEST_EQ(r.rec.enter[2].c.total, 0);
	TEST_EQ(r.rec.enter[2].c.self, 0);
	TEST_EQ(r.rec.enter[3].c.func, CHILD);
	TEST_EQ(r.rec.enter[3].c.start, 500);

	/* leaves innermost first: GRAND, CHILD, CHILD, PARENT */
	TEST_EQ(r.rec.nleave, 4);
	TEST_EQ(r.rec.leave[0].c.func, GRAND);
	TEST_EQ(r.rec.leave[1].c.func, CHILD);
	TEST_EQ(r.rec.leave[2].c.func, CHILD);
	TEST_EQ(r.rec.leave[3].c.func, PARENT);
	/* GRAND 250..280: 30, no children */
	CHECK_CALL(left(&r, GRAND, 0), GRAND, 250, 280, 30, 30, 2, 0);
	CHECK_STACK(left(&r, GRAND, 0), PARENT, CHILD, GRAND);
	/* CHILD 200..400: 200, self 200 - 30 */
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 200, 400, 200, 170, 1, 0);
	CHECK_STACK(left(&r, CHILD, 0), PARENT, CHILD);
	/* CHILD 500..550: 50 */
	CHECK_CALL(left(&r, CHILD, 1), CHILD, 500, 550, 50, 50, 1, 0);
	/* PARENT 100..1100: 1000, self 1000 - 200 - 50 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1100, 1000, 750, 0, 0);
	CHECK_STACK(left(&r, PARENT, 0), PARENT);
	TEST_TRUE(left(&r, PARENT, 0)->outermost);
	TEST_EQ(left(&r, PARENT, 0)->tid, TID);
	TEST_EQ(left(&r, PARENT, 0)->pid, PID);

	/* profile: CHILD 2 calls, 200 + 50, self 170 + 50 */
	TEST_EQ(rt_profile_nrows(r.prof), 3);
	CHECK_PROF(&r, 0, PARENT, 1, 1000, 750);
	CHECK_PROF(&r, 0, CHILD, 2, 250, 220);
	CHECK_PROF(&r, 0, GRAND, 1, 30, 30);
	TEST_EQ(prof(&r, 0, CHILD)->min, 50);
	TEST_EQ(prof(&r, 0, CHILD)->max, 200);
	TEST_EQ(prof(&r, 0, CHILD)->sum_incl, 250);

	TEST_EQ(r.sum.events, 8);
	TEST_EQ(r.sum.calls, 4);
	TEST_EQ(r.sum.stops, 8);
	TEST_EQ(r.sum.stop_cost_ns, 0);
	TEST_EQ(r.sum.unmatched_exits, 0);
	RUN_DONE(&r);
}

/* ---- per-stop compensation ----------------------------------------------- */

/* The nesting stream with a cost of 10 ns per stop. */
TEST_CASE(compensation_cost)
{
	struct rt_event e[16];
	size_t n = nesting_stream(e);
	struct run r;

	run(&r, 10, e, n, 1200);
	TEST_EQ(r.sum.stop_cost_ns, 10);
	/*
	 * GRAND: raw 30, stops after entry through exit 4 - 3 = 1: 20.
	 * end = 280 - 4 * 10 = 240, start = 240 - 20 = 220 (= 250 - 3 * 10).
	 */
	CHECK_CALL(left(&r, GRAND, 0), GRAND, 220, 240, 20, 20, 2, 0);
	/* CHILD: raw 200, stops 5 - 2 = 3: 170, self 170 - 20;
	 * end 400 - 50, start 350 - 170 (= 200 - 20) */
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 180, 350, 170, 150, 1, 0);
	/* CHILD: raw 50, stops 7 - 6 = 1: 40; end 550 - 70 = 480 */
	CHECK_CALL(left(&r, CHILD, 1), CHILD, 440, 480, 40, 40, 1, 0);
	/* PARENT: raw 1000, stops 8 - 1 = 7: 930, self 930 - 170 - 40;
	 * end 1100 - 80 = 1020, start 1020 - 930 (= 100 - 10) */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 90, 1020, 930, 720, 0, 0);
	/* enter sees the same start: 100 - 1 * 10 */
	TEST_EQ(r.rec.enter[0].c.start, 90);
	/* 250 - 3 * 10 */
	TEST_EQ(r.rec.enter[2].c.start, 220);
	CHECK_PROF(&r, 0, CHILD, 2, 210, 190);
	RUN_DONE(&r);
}

/* A stop costs 10 ns, 4 before its time stamp and 6 after: a call loses
 * the after-part of a stop that begins it and the before-part of a stop
 * that ends it, none of an event recorded in the process. */
TEST_CASE(compensation_split)
{
	static const struct rt_stop_cost curve = {
		.n = 1, .has_pre = true, .interval_ns = { 10 },
		.cost_ns = { 10 }, .pre_ns = { 4 },
	};
	struct rt_event e[8];
	struct run r;
	size_t n = 0;

	e[n++] = ev(100, RT_EV_ENTRY, PARENT, S1, TID, 1);
	e[n++] = ev(200, RT_EV_EXIT, PARENT, S1, TID, 1);
	e[n++] = ev(300, RT_EV_ENTRY, CHILD, S1, TID, 1);
	e[n++] = ev(400, RT_EV_EXIT, CHILD, S1, TID, 0);
	e[n++] = ev(500, RT_EV_ENTRY, GRAND, S1, TID, 0);
	e[n++] = ev(600, RT_EV_EXIT, GRAND, S1, TID, 1);
	e[n++] = ev(700, RT_EV_ENTRY, PARENT, S1, TID, 0);
	e[n++] = ev(800, RT_EV_EXIT, PARENT, S1, TID, 0);
	for (size_t i = 3; i < n; i++)
		if (!e[i].nstops)
			e[i].flags |= RT_EVF_INLINE;
	run_curve(&r, &def_opts, 10, &curve, RT_SPLIT_NONE, e, n, 900);
	/* stop to stop: 100 - (6 + 4); cost 4 at 100, 14 at 200 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 96, 186, 90, 90, 0, 0);
	/* stop to inline: 100 - 6; cost 24 at 300, 30 at 400 */
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 276, 370, 94, 94, 0, 0);
	/* inline to stop: 100 - 4; cost 30 at 500, 34 at 600 */
	CHECK_CALL(left(&r, GRAND, 0), GRAND, 470, 566, 96, 96, 0, 0);
	/* inline to inline: 100; cost 40 from the stop at 600 on */
	CHECK_CALL(left(&r, PARENT, 1), PARENT, 660, 760, 100, 100, 0, 0);
	RUN_DONE(&r);

	/* --stop-cost 20 keeps the measured split: 8 before, 12 after */
	run_curve(&r, &(struct rt_analysis_opts){ .stop_cost_ns = 20 }, 10,
		  &curve, RT_SPLIT_NONE, e, n, 900);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 92, 172, 80, 80, 0, 0);
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 252, 340, 88, 88, 0, 0);
	RUN_DONE(&r);
}

/* raw_times: no compensation whatever the cost; the figures of C = 0. */
TEST_CASE(compensation_raw_times)
{
	struct rt_analysis_opts o = { .raw_times = true, .stop_cost_ns = -1 };
	struct rt_event e[16];
	size_t n = nesting_stream(e);
	struct run r;

	run_split(&r, &o, 10, RT_SPLIT_NONE, e, n, 1200);
	TEST_EQ(r.sum.stop_cost_ns, 0);
	CHECK_CALL(left(&r, GRAND, 0), GRAND, 250, 280, 30, 30, 2, 0);
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 200, 400, 200, 170, 1, 0);
	CHECK_CALL(left(&r, CHILD, 1), CHILD, 500, 550, 50, 50, 1, 0);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1100, 1000, 750, 0, 0);
	TEST_EQ(r.rec.enter[0].c.start, 100);
	RUN_DONE(&r);
}

/* opts.stop_cost_ns >= 0 overrides the constructor's figure; -1 (or no
 * opts at all) keeps it. */
TEST_CASE(compensation_override)
{
	struct rt_analysis_opts o4 = { .stop_cost_ns = 4 };
	struct rt_analysis_opts o0 = { .stop_cost_ns = 0 };
	struct rt_event e[16];
	size_t n = nesting_stream(e);
	struct run r;

	run_split(&r, &o4, 10, RT_SPLIT_NONE, e, n, 1200);
	TEST_EQ(r.sum.stop_cost_ns, 4);
	/* GRAND 30 - 1 * 4; CHILD 200 - 3 * 4, self 188 - 26 */
	CHECK_CALL(left(&r, GRAND, 0), GRAND, 238, 264, 26, 26, 2, 0);
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 192, 380, 188, 162, 1, 0);
	/* PARENT 1000 - 7 * 4; self 972 - 188 - (50 - 4) */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 96, 1068, 972, 738, 0, 0);
	RUN_DONE(&r);

	run_split(&r, &o0, 10, RT_SPLIT_NONE, e, n, 1200);
	TEST_EQ(r.sum.stop_cost_ns, 0);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1100, 1000, 750, 0, 0);
	RUN_DONE(&r);

	/* -1: the constructor's 10 (figures of compensation_cost) */
	run_split(&r, &def_opts, 10, RT_SPLIT_NONE, e, n, 1200);
	TEST_EQ(r.sum.stop_cost_ns, 10);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 90, 1020, 930, 720, 0, 0);
	RUN_DONE(&r);

	run_split(&r, NULL, 10, RT_SPLIT_NONE, e, n, 1200);
	TEST_EQ(r.sum.stop_cost_ns, 10);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 90, 1020, 930, 720, 0, 0);
	RUN_DONE(&r);
}

/* Costs no stop or event can have (a damaged log, or events the program
 * forged) are left out: the times are those of the costs before them,
 * and no sum overflows (the sanitizer build runs this). */
TEST_CASE(compensation_absurd_costs)
{
	struct rt_event e[20];
	size_t n = 0;
	struct run r;

	e[n] = ev(50, RT_EV_CALIB, RT_FUNC_NONE, 0, TID, 0);
	e[n++].value = (uint64_t)INT64_MAX + 5;
	e[n] = ev(60, RT_EV_CALIB, RT_FUNC_NONE, 0, TID, 0);
	e[n].flags = RT_EVF_INLINE;
	e[n++].value = UINT64_MAX;
	n += nesting_stream(e + n);
	run(&r, 10, e, n, 1200);
	/* as in compensation_override, with the constructor's 10 */
	TEST_EQ(r.sum.stop_cost_ns, 10);
	TEST_EQ(r.sum.inline_cost_ns, 0);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 90, 1020, 930, 720, 0, 0);
	RUN_DONE(&r);
}

/* The compensation counts stops, not events: an event may carry several
 * (a signal stop, a single step before it). */
TEST_CASE(compensation_counts_stops)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),  /* stops 1 */
		ev(200, RT_EV_ENTRY, CHILD, S1, TID, 2),   /* 3 */
		ev(400, RT_EV_EXIT, CHILD, S1, TID, 3),    /* 6 */
		ev(1100, RT_EV_EXIT, PARENT, S0, TID, 1),  /* 7 */
	};
	struct run r;

	run(&r, 10, e, ARRAY_SIZE(e), 1200);
	/* CHILD raw 200 - (6 - 3) * 10; end 400 - 60 */
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 170, 340, 170, 170, 1, 0);
	/* PARENT raw 1000 - (7 - 1) * 10 = 940, self 940 - 170;
	 * end 1100 - 70 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 90, 1030, 940, 770, 0, 0);
	TEST_EQ(r.sum.stops, 7);
	TEST_EQ(r.sum.events, 4);
	RUN_DONE(&r);
}

/* More cost taken out of a short callee than it lasted holds that callee
 * at 0; its caller still loses all of it, yet must keep at least the time
 * of its callees. */
TEST_CASE(compensation_holds_callees)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),
		ev(110, RT_EV_ENTRY, CHILD, S1, TID, 5),   /* raw 10, cost 50 */
		ev(120, RT_EV_EXIT, CHILD, S1, TID, 5),
		ev(200, RT_EV_ENTRY, GRAND, S1, TID, 1),   /* raw 1000, cost 10 */
		ev(1200, RT_EV_EXIT, GRAND, S1, TID, 1),
		ev(1210, RT_EV_EXIT, PARENT, S0, TID, 1),  /* raw 1110, cost 130 */
	};
	const struct rt_call *c;
	struct run r;

	run(&r, 10, e, ARRAY_SIZE(e), 1300);
	c = left(&r, CHILD, 0);
	TEST_TRUE(c != NULL);
	TEST_EQ(c->total, 0);
	c = left(&r, GRAND, 0);
	TEST_TRUE(c != NULL);
	TEST_EQ(c->total, 990);
	c = left(&r, PARENT, 0);
	TEST_TRUE(c != NULL);
	TEST_EQ(c->total, 990);   /* not 1110 - 130 = 980 */
	TEST_EQ(c->self, 0);
	RUN_DONE(&r);
}

/* ---- recursion ----------------------------------------------------------- */

TEST_CASE(recursion_direct)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S0, TID, 1),
		ev(200, RT_EV_ENTRY, F, S1, TID, 1),
		ev(300, RT_EV_ENTRY, F, S2, TID, 1),
		ev(350, RT_EV_EXIT, F, S2, TID, 1),
		ev(500, RT_EV_EXIT, F, S1, TID, 1),
		ev(1000, RT_EV_EXIT, F, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1000);
	/* innermost 300..350 */
	CHECK_CALL(left(&r, F, 0), F, 300, 350, 50, 50, 2, 0);
	CHECK_STACK(left(&r, F, 0), F, F, F);
	TEST_TRUE(!left(&r, F, 0)->outermost);
	/* middle 200..500: 300, self 300 - 50 */
	CHECK_CALL(left(&r, F, 1), F, 200, 500, 300, 250, 1, 0);
	TEST_TRUE(!left(&r, F, 1)->outermost);
	/* outer 100..1000: 900, self 900 - 300 */
	CHECK_CALL(left(&r, F, 2), F, 100, 1000, 900, 600, 0, 0);
	TEST_TRUE(left(&r, F, 2)->outermost);
	/* 3 calls; total only the outermost's 900 (the wall time of the
	 * outermost F); self 50 + 250 + 600; average over 50 + 300 + 900 */
	CHECK_PROF(&r, 0, F, 3, 900, 900);
	TEST_EQ(prof(&r, 0, F)->sum_incl, 1250);
	TEST_EQ(prof(&r, 0, F)->min, 50);
	TEST_EQ(prof(&r, 0, F)->max, 900);
	RUN_DONE(&r);
}

/* X recursing with F between: the inner X is not outermost; the total is
 * the outer 900 and the later 100, not the inner 50. */
static void recursion_through(bool *rt_test_failed__, uint32_t x)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, x, S0, TID, 1),
		ev(200, RT_EV_ENTRY, F, S1, TID, 1),
		ev(300, RT_EV_ENTRY, x, S2, TID, 1),
		ev(350, RT_EV_EXIT, x, S2, TID, 1),
		ev(500, RT_EV_EXIT, F, S1, TID, 1),
		ev(1000, RT_EV_EXIT, x, S0, TID, 1),
		ev(1100, RT_EV_ENTRY, x, S0, TID, 1),
		ev(1200, RT_EV_EXIT, x, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1200);
	TEST_TRUE(!left(&r, x, 0)->outermost);
	TEST_TRUE(left(&r, F, 0)->outermost);
	TEST_TRUE(left(&r, x, 1)->outermost);
	TEST_TRUE(left(&r, x, 2)->outermost);
	TEST_EQ(prof(&r, 0, x)->calls, 3);
	TEST_EQ(prof(&r, 0, x)->total, 1000);
	RUN_DONE(&r);
}

/* A function far down the table: its activations are counted in a chunk
 * of their own. */
TEST_CASE(recursion_far_id)
{
	recursion_through(rt_test_failed__, FAR_FN);
}

/* A function id past the log's table (a damaged log): its activations
 * are found on the stack instead of counted, with the same results. */
TEST_CASE(recursion_unknown_id)
{
	recursion_through(rt_test_failed__, FAR_FN + 1000);
}

TEST_CASE(recursion_mutual)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S0, TID, 1),
		ev(200, RT_EV_ENTRY, G, S1, TID, 1),
		ev(300, RT_EV_ENTRY, F, S2, TID, 1),
		ev(400, RT_EV_ENTRY, G, S3, TID, 1),
		ev(450, RT_EV_EXIT, G, S3, TID, 1),
		ev(600, RT_EV_EXIT, F, S2, TID, 1),
		ev(800, RT_EV_EXIT, G, S1, TID, 1),
		ev(1000, RT_EV_EXIT, F, S0, TID, 1),
		/* a later, separate F is outermost again */
		ev(1100, RT_EV_ENTRY, F, S0, TID, 1),
		ev(1150, RT_EV_EXIT, F, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1200);
	/* inner G 400..450, inside F G F */
	CHECK_CALL(left(&r, G, 0), G, 400, 450, 50, 50, 3, 0);
	CHECK_STACK(left(&r, G, 0), F, G, F, G);
	TEST_TRUE(!left(&r, G, 0)->outermost);
	/* inner F 300..600: 300, self 300 - 50 */
	CHECK_CALL(left(&r, F, 0), F, 300, 600, 300, 250, 2, 0);
	TEST_TRUE(!left(&r, F, 0)->outermost);
	/* outer G 200..800: 600, self 600 - 300 */
	CHECK_CALL(left(&r, G, 1), G, 200, 800, 600, 300, 1, 0);
	TEST_TRUE(left(&r, G, 1)->outermost);
	/* outer F 100..1000: 900, self 900 - 600 */
	CHECK_CALL(left(&r, F, 1), F, 100, 1000, 900, 300, 0, 0);
	TEST_TRUE(left(&r, F, 1)->outermost);
	CHECK_CALL(left(&r, F, 2), F, 1100, 1150, 50, 50, 0, 0);
	TEST_TRUE(left(&r, F, 2)->outermost);
	/* F: 3 calls, total 900 + 50, self 250 + 300 + 50;
	 * G: 2 calls, total 600, self 50 + 300 */
	CHECK_PROF(&r, 0, F, 3, 950, 600);
	CHECK_PROF(&r, 0, G, 2, 600, 350);
	RUN_DONE(&r);
}

/* ---- tail calls ---------------------------------------------------------- */

/* PARENT calls F; F tail-jumps to G (a known target); G calls H. */
TEST_CASE(tail_known_target)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),
		ev(200, RT_EV_ENTRY, F, S1, TID, 1),
		tail(300, F, S1, TID, ADDR(G)),
		ev(310, RT_EV_ENTRY, G, S1, TID, 1),
		ev(350, RT_EV_ENTRY, H, S2, TID, 1),
		ev(400, RT_EV_EXIT, H, S2, TID, 1),
		ev(600, RT_EV_EXIT, G, S1, TID, 1),
		ev(1000, RT_EV_EXIT, PARENT, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1000);
	/* G is F's callee: depth 2 over PARENT F */
	TEST_EQ(r.rec.enter[2].c.func, G);
	TEST_EQ(r.rec.enter[2].c.depth, 2);
	TEST_EQ(r.rec.enter[2].c.flags, RT_CALL_TAIL);
	TEST_EQ(r.rec.enter[2].c.start, 310);
	CHECK_CALL(left(&r, H, 0), H, 350, 400, 50, 50, 3, 0);
	CHECK_STACK(left(&r, H, 0), PARENT, F, G, H);
	/* G 310..600: 290, self 290 - 50 */
	CHECK_CALL(left(&r, G, 0), G, 310, 600, 290, 240, 2, RT_CALL_TAIL);
	/* F ends with G: 200..600 = 400, self 400 - 290 */
	CHECK_CALL(left(&r, F, 0), F, 200, 600, 400, 110, 1, 0);
	/* PARENT 900, self 900 - 400 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1000, 900, 500, 0, 0);
	TEST_EQ(r.rec.nleave, 4);
	TEST_EQ(r.rec.leave[1].c.func, G);
	TEST_EQ(r.rec.leave[2].c.func, F);
	CHECK_PROF(&r, 0, F, 1, 400, 110);
	CHECK_PROF(&r, 0, G, 1, 290, 240);
	TEST_EQ(r.sum.unmatched_exits, 0);
	RUN_DONE(&r);
}

/* A tail jump whose target is unknown (value 0) chains to whatever is
 * entered next at its stack pointer. */
TEST_CASE(tail_unknown_target)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S0, TID, 1),
		tail(200, F, S0, TID, 0),
		ev(210, RT_EV_ENTRY, G, S0, TID, 1),
		ev(500, RT_EV_EXIT, G, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 600);
	/* G 210..500 */
	CHECK_CALL(left(&r, G, 0), G, 210, 500, 290, 290, 1, RT_CALL_TAIL);
	CHECK_STACK(left(&r, G, 0), F, G);
	/* F 100..500: 400, self 400 - 290 */
	CHECK_CALL(left(&r, F, 0), F, 100, 500, 400, 110, 0, 0);
	TEST_EQ(r.sum.calls, 2);
	RUN_DONE(&r);
}

/* F tail-jumps to an untraced function, which returns to PARENT; PARENT's
 * next call at the same stack pointer ends F (approximately) and is F's
 * sibling. */
TEST_CASE(tail_untraced_then_sibling)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),
		ev(200, RT_EV_ENTRY, F, S1, TID, 1),
		tail(300, F, S1, TID, UNTRACED),
		ev(700, RT_EV_ENTRY, G, S1, TID, 1),
		ev(800, RT_EV_EXIT, G, S1, TID, 1),
		ev(1000, RT_EV_EXIT, PARENT, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1000);
	/* F 200..700, the time of the next event */
	CHECK_CALL(left(&r, F, 0), F, 200, 700, 500, 500, 1,
		   RT_CALL_APPROX_END);
	/* G a sibling: PARENT G, not a tail callee */
	CHECK_CALL(left(&r, G, 0), G, 700, 800, 100, 100, 1, 0);
	CHECK_STACK(left(&r, G, 0), PARENT, G);
	/* PARENT 900, self 900 - 500 - 100 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1000, 900, 300, 0, 0);
	TEST_EQ(r.sum.unwound, 0);
	RUN_DONE(&r);
}

/* Same, but the next event is PARENT's own return (a higher sp). */
TEST_CASE(tail_untraced_then_return)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),
		ev(200, RT_EV_ENTRY, F, S1, TID, 1),
		tail(300, F, S1, TID, UNTRACED),
		ev(1000, RT_EV_EXIT, PARENT, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1000);
	/* F 200..1000 */
	CHECK_CALL(left(&r, F, 0), F, 200, 1000, 800, 800, 1,
		   RT_CALL_APPROX_END);
	/* PARENT 900, self 900 - 800 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1000, 900, 100, 0, 0);
	TEST_EQ(r.sum.unwound, 0);
	TEST_EQ(r.sum.unmatched_exits, 0);
	RUN_DONE(&r);
}

/* F -> G -> H by tail jumps; H's one exit ends all three.
 *   100 PARENT in (stops 1), 200 F in (2), 250 F tail (3), 260 G in (4),
 *   300 G tail (5), 310 H in (6), 500 H out (7), 600 PARENT out (8). */
static size_t chain_stream(struct rt_event *e)
{
	size_t n = 0;

	e[n++] = ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1);
	e[n++] = ev(200, RT_EV_ENTRY, F, S1, TID, 1);
	e[n++] = tail(250, F, S1, TID, ADDR(G));
	e[n++] = ev(260, RT_EV_ENTRY, G, S1, TID, 1);
	e[n++] = tail(300, G, S1, TID, ADDR(H));
	e[n++] = ev(310, RT_EV_ENTRY, H, S1, TID, 1);
	e[n++] = ev(500, RT_EV_EXIT, H, S1, TID, 1);
	e[n++] = ev(600, RT_EV_EXIT, PARENT, S0, TID, 1);
	return n;
}

TEST_CASE(tail_chain)
{
	struct rt_event e[16];
	size_t n = chain_stream(e);
	struct run r;

	run(&r, 0, e, n, 600);
	TEST_EQ(r.rec.nleave, 4);
	/* H 310..500, over PARENT F G */
	CHECK_CALL(left(&r, H, 0), H, 310, 500, 190, 190, 3, RT_CALL_TAIL);
	CHECK_STACK(left(&r, H, 0), PARENT, F, G, H);
	/* G 260..500: 240, self 240 - 190 */
	CHECK_CALL(left(&r, G, 0), G, 260, 500, 240, 50, 2, RT_CALL_TAIL);
	/* F 200..500: 300, self 300 - 240 */
	CHECK_CALL(left(&r, F, 0), F, 200, 500, 300, 60, 1, 0);
	/* PARENT 500, self 500 - 300 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 600, 500, 200, 0, 0);
	TEST_EQ(r.rec.leave[0].c.func, H);
	TEST_EQ(r.rec.leave[1].c.func, G);
	TEST_EQ(r.rec.leave[2].c.func, F);
	TEST_EQ(r.sum.unmatched_exits, 0);
	RUN_DONE(&r);

	run(&r, 10, e, n, 600);
	/* H: 190 - (7 - 6) * 10; end 500 - 70 */
	CHECK_CALL(left(&r, H, 0), H, 250, 430, 180, 180, 3, RT_CALL_TAIL);
	/* G: 240 - (7 - 4) * 10 = 210, self 210 - 180 */
	CHECK_CALL(left(&r, G, 0), G, 220, 430, 210, 30, 2, RT_CALL_TAIL);
	/* F: 300 - (7 - 2) * 10 = 250, self 250 - 210 */
	CHECK_CALL(left(&r, F, 0), F, 180, 430, 250, 40, 1, 0);
	/* PARENT: 500 - 7 * 10 = 430, self 430 - 250; end 600 - 80 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 90, 520, 430, 180, 0, 0);
	RUN_DONE(&r);
}

/* F -> G by a tail jump, then G tail-jumps to an untraced function: the
 * whole chain is over when PARENT calls H at the same stack pointer. */
TEST_CASE(tail_chain_untraced_then_sibling)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),
		ev(200, RT_EV_ENTRY, F, S1, TID, 1),
		tail(250, F, S1, TID, ADDR(G)),
		ev(260, RT_EV_ENTRY, G, S1, TID, 1),
		tail(300, G, S1, TID, UNTRACED),
		ev(700, RT_EV_ENTRY, H, S1, TID, 1),
		ev(750, RT_EV_EXIT, H, S1, TID, 1),
		ev(1000, RT_EV_EXIT, PARENT, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1000);
	/* G 260..700 */
	CHECK_CALL(left(&r, G, 0), G, 260, 700, 440, 440, 2,
		   RT_CALL_TAIL | RT_CALL_APPROX_END);
	/* F ends with G: 200..700 = 500, self 500 - 440 */
	CHECK_CALL(left(&r, F, 0), F, 200, 700, 500, 60, 1,
		   RT_CALL_APPROX_END);
	/* H a sibling of F */
	CHECK_CALL(left(&r, H, 0), H, 700, 750, 50, 50, 1, 0);
	CHECK_STACK(left(&r, H, 0), PARENT, H);
	/* PARENT 900, self 900 - 500 - 50 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1000, 900, 350, 0, 0);
	TEST_EQ(r.sum.unwound, 0);
	RUN_DONE(&r);
}

/* Same chain, ended by PARENT's return: nothing was unwound. */
TEST_CASE(tail_chain_untraced_then_return)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),
		ev(200, RT_EV_ENTRY, F, S1, TID, 1),
		tail(250, F, S1, TID, ADDR(G)),
		ev(260, RT_EV_ENTRY, G, S1, TID, 1),
		tail(300, G, S1, TID, UNTRACED),
		ev(1000, RT_EV_EXIT, PARENT, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1000);
	/* G 260..1000 */
	CHECK_CALL(left(&r, G, 0), G, 260, 1000, 740, 740, 2,
		   RT_CALL_TAIL | RT_CALL_APPROX_END);
	/* F 200..1000: 800, self 800 - 740 */
	CHECK_CALL(left(&r, F, 0), F, 200, 1000, 800, 60, 1,
		   RT_CALL_APPROX_END);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1000, 900, 100, 0, 0);
	TEST_EQ(r.sum.unwound, 0);
	TEST_EQ(prof(&r, 0, F)->unwound, 0);
	RUN_DONE(&r);
}

/* A jump back to a function's own entry (a loop compiled from tail
 * recursion): an entry of the same function at the same sp, no exit. */
TEST_CASE(jump_to_own_entry)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S0, TID, 1),
		ev(300, RT_EV_ENTRY, F, S0, TID, 1),
		ev(500, RT_EV_EXIT, F, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 600);
	TEST_EQ(r.sum.calls, 2);
	TEST_EQ(r.rec.nleave, 2);
	/* second activation 300..500, chained over the first */
	CHECK_CALL(left(&r, F, 0), F, 300, 500, 200, 200, 1, RT_CALL_TAIL);
	CHECK_STACK(left(&r, F, 0), F, F);
	TEST_TRUE(!left(&r, F, 0)->outermost);
	/* first 100..500: 400, self 400 - 200 */
	CHECK_CALL(left(&r, F, 1), F, 100, 500, 400, 200, 0, 0);
	TEST_TRUE(left(&r, F, 1)->outermost);
	/* 2 calls, total = the outermost's 400, self 200 + 200 */
	CHECK_PROF(&r, 0, F, 2, 400, 400);
	TEST_EQ(r.sum.unwound, 0);
	RUN_DONE(&r);
}

/* ---- unwinding, thread end, end of log ----------------------------------- */

/* G panics; the unwinding goes through G and F to PARENT, which returns:
 * PARENT's exit (a higher sp) closes G and F. */
TEST_CASE(unwind_closed_by_return)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),
		ev(200, RT_EV_ENTRY, F, S1, TID, 1),
		ev(300, RT_EV_ENTRY, G, S2, TID, 1),
		ev(350, RT_EV_ENTRY, H, S3, TID, 1),
		ev(400, RT_EV_EXIT, H, S3, TID, 1),
		ev(1000, RT_EV_EXIT, PARENT, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1000);
	CHECK_CALL(left(&r, H, 0), H, 350, 400, 50, 50, 3, 0);
	/* G 300..1000: 700, self 700 - 50 */
	CHECK_CALL(left(&r, G, 0), G, 300, 1000, 700, 650, 2,
		   RT_CALL_UNWOUND);
	/* F 200..1000: 800, self 800 - 700 */
	CHECK_CALL(left(&r, F, 0), F, 200, 1000, 800, 100, 1,
		   RT_CALL_UNWOUND);
	/* PARENT returned normally: 900, self 900 - 800 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1000, 900, 100, 0, 0);
	TEST_EQ(r.rec.leave[1].c.func, G);
	TEST_EQ(r.rec.leave[2].c.func, F);
	TEST_EQ(r.sum.unwound, 2);
	TEST_EQ(r.sum.unmatched_exits, 0);
	TEST_EQ(prof(&r, 0, F)->unwound, 1);
	TEST_EQ(prof(&r, 0, G)->unwound, 1);
	TEST_EQ(prof(&r, 0, PARENT)->unwound, 0);
	RUN_DONE(&r);
}

/* PARENT catches the panic and calls H at F's stack pointer. */
TEST_CASE(unwind_closed_by_sibling)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),
		ev(200, RT_EV_ENTRY, F, S1, TID, 1),
		ev(300, RT_EV_ENTRY, G, S2, TID, 1),
		ev(700, RT_EV_ENTRY, H, S1, TID, 1),
		ev(750, RT_EV_EXIT, H, S1, TID, 1),
		ev(1000, RT_EV_EXIT, PARENT, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1000);
	/* G 300..700; F 200..700: 500, self 500 - 400 */
	CHECK_CALL(left(&r, G, 0), G, 300, 700, 400, 400, 2,
		   RT_CALL_UNWOUND);
	CHECK_CALL(left(&r, F, 0), F, 200, 700, 500, 100, 1,
		   RT_CALL_UNWOUND);
	CHECK_CALL(left(&r, H, 0), H, 700, 750, 50, 50, 1, 0);
	CHECK_STACK(left(&r, H, 0), PARENT, H);
	/* PARENT 900, self 900 - 500 - 50 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1000, 900, 350, 0, 0);
	TEST_EQ(r.sum.unwound, 2);
	RUN_DONE(&r);
}

/* F tail-jumped to G, G panics, PARENT catches it and calls H at their
 * stack pointer: G and F are both over. */
TEST_CASE(unwind_chained_closed_by_sibling)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),
		ev(200, RT_EV_ENTRY, F, S1, TID, 1),
		tail(250, F, S1, TID, ADDR(G)),
		ev(260, RT_EV_ENTRY, G, S1, TID, 1),
		ev(700, RT_EV_ENTRY, H, S1, TID, 1),
		ev(750, RT_EV_EXIT, H, S1, TID, 1),
		ev(1000, RT_EV_EXIT, PARENT, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 1000);
	/* G 260..700 */
	CHECK_CALL(left(&r, G, 0), G, 260, 700, 440, 440, 2,
		   RT_CALL_TAIL | RT_CALL_UNWOUND);
	/* F 200..700: 500, self 500 - 440 */
	CHECK_CALL(left(&r, F, 0), F, 200, 700, 500, 60, 1, RT_CALL_UNWOUND);
	CHECK_CALL(left(&r, H, 0), H, 700, 750, 50, 50, 1, 0);
	CHECK_STACK(left(&r, H, 0), PARENT, H);
	/* PARENT 900, self 900 - 500 - 50 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1000, 900, 350, 0, 0);
	TEST_EQ(r.sum.unwound, 2);
	RUN_DONE(&r);
}

TEST_CASE(thread_end_incomplete)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S0, TID, 1),
		ev(200, RT_EV_ENTRY, G, S1, TID, 1),
		ev(500, RT_EV_THREAD_END, RT_FUNC_NONE, 0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 900);
	/* closed at the thread's end, 500, not at the finish, 900 */
	CHECK_CALL(left(&r, G, 0), G, 200, 500, 300, 300, 1,
		   RT_CALL_INCOMPLETE);
	/* F 100..500: 400, self 400 - 300 */
	CHECK_CALL(left(&r, F, 0), F, 100, 500, 400, 100, 0,
		   RT_CALL_INCOMPLETE);
	TEST_EQ(r.sum.incomplete, 2);
	TEST_EQ(r.sum.unwound, 0);
	TEST_EQ(prof(&r, 0, F)->incomplete, 1);
	RUN_DONE(&r);
}

struct depths {
	uint32_t max_depth;
	uint64_t enters, leaves;
};

static void depth_enter(void *ctx, const struct rt_call *c)
{
	struct depths *d = ctx;

	d->max_depth = MAX(d->max_depth, c->depth);
	d->enters++;
}

static void depth_leave(void *ctx, const struct rt_call *c)
{
	((struct depths *)ctx)->leaves += !!(c->flags & RT_CALL_INCOMPLETE);
}

/* @n entries on thread @tid, each deeper than the one before. */
static void dive(struct rt_frames *f, uint32_t tid, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct rt_event e = ev(i, RT_EV_ENTRY, F, S0 - 16ull * i, tid,
				       0);

		rt_frames_feed(f, &e);
	}
}

/* Entries that never return (a forged log) cannot grow the frames past
 * the caps: the deepest open call closes, incomplete, for each entry
 * past them, and every entry is still a call. */
TEST_CASE(open_calls_capped)
{
	const uint32_t depth = RT_ANALYSIS_DEPTH_MAX;
	const uint32_t threads = RT_ANALYSIS_OPEN_MAX / depth;
	struct depths d = { 0 };
	struct rt_sink sink = { depth_enter, depth_leave, &d };
	struct rt_analysis_summary sum;
	struct rt_frames *f = rt_frames_new(&def_opts, 0, T0, &sink, 1);

	rt_frames_func_addr(f, F, ADDR(F));
	dive(f, TID, depth + 5);
	TEST_EQ(d.leaves, 5);
	TEST_EQ(d.max_depth, depth - 1);
	/* the other threads fill the rest of the frames of all */
	for (uint32_t t = 1; t < threads; t++)
		dive(f, TID + t, depth);
	TEST_EQ(d.leaves, 5);
	/* one thread more: every entry past its first closes the one
	 * before */
	dive(f, TID + threads, 3);
	TEST_EQ(d.leaves, 5 + 2);
	rt_frames_finish(f, T0 + 1000000000ull, &sum);
	rt_frames_free(f);
	TEST_EQ(sum.calls, (uint64_t)depth * threads + 5 + 3);
	TEST_EQ(sum.incomplete, sum.calls);
	TEST_EQ(d.enters, sum.calls);
	rt_analysis_summary_release(&sum);
}

TEST_CASE(finish_incomplete)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S0, TID, 1),  /* stops 1 */
		ev(200, RT_EV_ENTRY, G, S1, TID, 1),  /* stops 2 */
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 900);
	CHECK_CALL(left(&r, G, 0), G, 200, 900, 700, 700, 1,
		   RT_CALL_INCOMPLETE);
	/* F 800, self 800 - 700 */
	CHECK_CALL(left(&r, F, 0), F, 100, 900, 800, 100, 0,
		   RT_CALL_INCOMPLETE);
	TEST_EQ(r.sum.incomplete, 2);
	RUN_DONE(&r);

	run(&r, 10, e, ARRAY_SIZE(e), 900);
	/* G: no stop after its entry: 700; end 900 - 2 * 10 */
	CHECK_CALL(left(&r, G, 0), G, 180, 880, 700, 700, 1,
		   RT_CALL_INCOMPLETE);
	/* F: 800 - (2 - 1) * 10 = 790, self 790 - 700 */
	CHECK_CALL(left(&r, F, 0), F, 90, 880, 790, 90, 0,
		   RT_CALL_INCOMPLETE);
	RUN_DONE(&r);
}

/* An exec replaces the image: what ran in the old one is over. */
TEST_CASE(exec_incomplete)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S0, TID, 1),
		ev(400, RT_EV_EXEC, RT_FUNC_NONE, 0, TID, 1),
		ev(500, RT_EV_ENTRY, G, S0, TID, 1),
		ev(600, RT_EV_EXIT, G, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 900);
	CHECK_CALL(left(&r, F, 0), F, 100, 400, 300, 300, 0,
		   RT_CALL_INCOMPLETE);
	CHECK_CALL(left(&r, G, 0), G, 500, 600, 100, 100, 0, 0);
	TEST_EQ(r.sum.incomplete, 1);
	TEST_EQ(r.sum.threads, 1);
	RUN_DONE(&r);
}

/* ---- one-byte functions -------------------------------------------------- */

/* A lone `ret`: entry and exit are one stop, one address. */
TEST_CASE(one_byte_function)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1),  /* stops 1 */
		ev(200, RT_EV_ENTRY, H, S1, TID, 1),       /* 2 */
		ev(200, RT_EV_EXIT, H, S1, TID, 0),        /* 2 */
		ev(300, RT_EV_EXIT, PARENT, S0, TID, 1),   /* 3 */
	};
	struct run r;

	run(&r, 10, e, ARRAY_SIZE(e), 300);
	/* H: raw 0, no stop in between: 0, at 200 - 2 * 10 */
	CHECK_CALL(left(&r, H, 0), H, 180, 180, 0, 0, 1, 0);
	/* PARENT: 200 - (3 - 1) * 10 = 180, self 180 - 0;
	 * end 300 - 30 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 90, 270, 180, 180, 0, 0);
	CHECK_PROF(&r, 0, H, 1, 0, 0);
	TEST_EQ(prof(&r, 0, H)->min, 0);
	TEST_EQ(prof(&r, 0, H)->max, 0);
	TEST_EQ(r.sum.calls, 2);
	TEST_EQ(r.sum.events, 4);
	TEST_EQ(r.sum.stops, 3);
	TEST_EQ(r.sum.unmatched_exits, 0);
	RUN_DONE(&r);
}

/* ---- threads ------------------------------------------------------------- */

#define T10 0x7ffc0000ULL  /* stack of thread 10 (pid 1) */
#define T11 0x7f000000ULL  /* thread 11 (pid 1) */
#define T20 0x7e000000ULL  /* thread 20 (pid 2) */

/*
 * Three threads, each F calling G, interleaved; stops counted per thread:
 * each thread's events carry stops 1 2 3 4 on that thread.
 */
static size_t threads_stream(struct rt_event *e)
{
	size_t n = 0;

	e[n++] = ev(100, RT_EV_ENTRY, F, T10, 10, 1);
	e[n++] = ev(150, RT_EV_ENTRY, F, T11, 11, 1);
	e[n++] = ev(200, RT_EV_ENTRY, G, T10 - 0x40, 10, 1);
	e[n++] = ev(250, RT_EV_ENTRY, G, T11 - 0x40, 11, 1);
	e[n++] = ev(300, RT_EV_EXIT, G, T10 - 0x40, 10, 1);
	e[n++] = ev(400, RT_EV_EXIT, F, T10, 10, 1);
	e[n++] = ev(450, RT_EV_EXIT, G, T11 - 0x40, 11, 1);
	e[n++] = with_pid(ev(500, RT_EV_ENTRY, F, T20, 20, 1), 2);
	e[n++] = with_pid(ev(550, RT_EV_ENTRY, G, T20 - 0x40, 20, 1), 2);
	e[n++] = ev(600, RT_EV_EXIT, F, T11, 11, 1);
	e[n++] = with_pid(ev(650, RT_EV_EXIT, G, T20 - 0x40, 20, 1), 2);
	e[n++] = with_pid(ev(700, RT_EV_EXIT, F, T20, 20, 1), 2);
	return n;
}

TEST_CASE(threads_interleaved)
{
	struct rt_event e[16];
	size_t n = threads_stream(e);
	struct run r;

	run_split(&r, &def_opts, 10, RT_SPLIT_THREAD, e, n, 800);
	/* thread 10: G 200..300 = 100 - (3 - 2) * 10;
	 * F 100..400 = 300 - (4 - 1) * 10 = 270, self 270 - 90 */
	CHECK_CALL(left(&r, G, 0), G, 180, 270, 90, 90, 1, 0);
	TEST_EQ(left(&r, G, 0)->tid, 10);
	CHECK_STACK(left(&r, G, 0), F, G);
	CHECK_CALL(left(&r, F, 0), F, 90, 360, 270, 180, 0, 0);
	TEST_EQ(left(&r, F, 0)->tid, 10);
	/* thread 11: G 250..450 = 200 - 10;
	 * F 150..600 = 450 - 30 = 420, self 420 - 190 */
	CHECK_CALL(left(&r, G, 1), G, 230, 420, 190, 190, 1, 0);
	TEST_EQ(left(&r, G, 1)->tid, 11);
	CHECK_CALL(left(&r, F, 1), F, 140, 560, 420, 230, 0, 0);
	TEST_EQ(left(&r, F, 1)->tid, 11);
	TEST_EQ(left(&r, F, 1)->pid, 1);
	/* thread 20: G 550..650 = 100 - 10; F 500..700 = 200 - 30 = 170 */
	CHECK_CALL(left(&r, G, 2), G, 530, 620, 90, 90, 1, 0);
	CHECK_CALL(left(&r, F, 2), F, 490, 660, 170, 80, 0, 0);
	TEST_EQ(left(&r, F, 2)->tid, 20);
	TEST_EQ(left(&r, F, 2)->pid, 2);

	/* split by thread: keys are thread lives in order of appearance */
	TEST_EQ(rt_profile_nrows(r.prof), 6);
	CHECK_PROF(&r, 1, F, 1, 270, 180);
	CHECK_PROF(&r, 1, G, 1, 90, 90);
	CHECK_PROF(&r, 2, F, 1, 420, 230);
	CHECK_PROF(&r, 2, G, 1, 190, 190);
	CHECK_PROF(&r, 3, F, 1, 170, 80);
	CHECK_PROF(&r, 3, G, 1, 90, 90);
	TEST_EQ(left(&r, F, 2)->thread, 3);
	TEST_EQ(r.sum.thread_info[0].tid, 10);
	TEST_EQ(r.sum.thread_info[1].tid, 11);
	TEST_EQ(r.sum.thread_info[2].tid, 20);
	TEST_EQ(r.sum.thread_info[2].pid, 2);
	TEST_EQ(r.sum.thread_info[0].calls, 2);
	TEST_EQ(r.sum.threads, 3);
	TEST_EQ(r.sum.processes, 2);
	TEST_EQ(r.sum.events, 12);
	TEST_EQ(r.sum.calls, 6);
	TEST_EQ(r.sum.stops, 12);
	RUN_DONE(&r);

	run_split(&r, &def_opts, 10, RT_SPLIT_PROCESS, e, n, 800);
	TEST_EQ(rt_profile_nrows(r.prof), 4);
	/* pid 1: F 270 + 420, self 180 + 230; G 90 + 190 */
	CHECK_PROF(&r, 1, F, 2, 690, 410);
	CHECK_PROF(&r, 1, G, 2, 280, 280);
	CHECK_PROF(&r, 2, F, 1, 170, 80);
	CHECK_PROF(&r, 2, G, 1, 90, 90);
	RUN_DONE(&r);

	run_split(&r, &def_opts, 10, RT_SPLIT_NONE, e, n, 800);
	TEST_EQ(rt_profile_nrows(r.prof), 2);
	/* F 270 + 420 + 170, self 180 + 230 + 80; G 90 + 190 + 90 */
	CHECK_PROF(&r, 0, F, 3, 860, 490);
	CHECK_PROF(&r, 0, G, 3, 370, 370);
	RUN_DONE(&r);
}

/* Probe events recorded at a stop are counted per function; those the
 * program recorded itself (inline engine) and a second event of the same
 * stop (an entry and a return at one breakpoint) are not. */
TEST_CASE(stops_by_function)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, 1000, 10, 1),
		ev(110, RT_EV_ENTRY, G, 900, 10, 0),
		ev(120, RT_EV_EXIT, G, 900, 10, 0),
		ev(200, RT_EV_EXIT, F, 1000, 10, 3),
	};
	struct run r;

	e[1].flags = e[2].flags = RT_EVF_INLINE;
	run(&r, 0, e, ARRAY_SIZE(e), 300);
	TEST_EQ(r.sum.stop_events, 2);
	TEST_TRUE(r.sum.nfunc_stops > F);
	TEST_EQ(r.sum.func_stops[F], 2);
	TEST_TRUE(r.sum.nfunc_stops <= G || r.sum.func_stops[G] == 0);
	RUN_DONE(&r);
}

/* opts.only_pid: the other processes' events are not analysed, nor are
 * their threads counted. */
TEST_CASE(only_pid)
{
	struct rt_analysis_opts o = { .stop_cost_ns = -1, .only_pid = 2 };
	struct rt_event e[16];
	size_t n = threads_stream(e);
	struct run r;

	run_split(&r, &o, 0, RT_SPLIT_NONE, e, n, 800);
	TEST_EQ(rt_profile_nrows(r.prof), 2);
	/* thread 20 only: F 500..700, G 550..650 */
	CHECK_PROF(&r, 0, F, 1, 200, 100);
	CHECK_PROF(&r, 0, G, 1, 100, 100);
	TEST_EQ(r.sum.events, 4);
	TEST_EQ(r.sum.calls, 2);
	TEST_EQ(r.sum.stops, 4);
	TEST_EQ(r.sum.processes, 1);
	TEST_EQ(r.sum.threads, 1);
	TEST_EQ(r.sum.first_ts, T0 + 500);
	TEST_EQ(r.sum.last_ts, T0 + 700);
	RUN_DONE(&r);
}

/* ---- exits with no frame ------------------------------------------------- */

TEST_CASE(unmatched_exits)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S1, TID, 1),
		/* an exit deeper than any frame (its entry was not seen) */
		ev(150, RT_EV_EXIT, G, S2, TID, 1),
		ev(200, RT_EV_EXIT, F, S1, TID, 1),
		/* an exit with an empty stack */
		ev(300, RT_EV_EXIT, PARENT, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 400);
	TEST_EQ(r.sum.unmatched_exits, 2);
	TEST_EQ(r.rec.nleave, 1);
	/* F untouched by the stray exit: 100..200 */
	CHECK_CALL(left(&r, F, 0), F, 100, 200, 100, 100, 0, 0);
	TEST_EQ(r.sum.unwound, 0);
	TEST_EQ(r.sum.calls, 1);
	TEST_EQ(r.sum.events, 4);
	TEST_EQ(rt_profile_nrows(r.prof), 1);
	RUN_DONE(&r);
}

/* ---- summary ------------------------------------------------------------- */

TEST_CASE(summary)
{
	struct rt_event e[] = {
		ev(50, RT_EV_THREAD_START, RT_FUNC_NONE, 0, 10, 1),
		ev(100, RT_EV_ENTRY, F, T10, 10, 1),
		ev(120, RT_EV_THREAD_START, RT_FUNC_NONE, 0, 11, 1),
		ev(150, RT_EV_ENTRY, G, T11, 11, 2),
		ev(200, RT_EV_ENTRY, H, T10 - 0x40, 10, 1),
		/* H unwound: F's exit is shallower */
		ev(300, RT_EV_EXIT, F, T10, 10, 1),
		/* G still running when thread 11 ends */
		ev(400, RT_EV_THREAD_END, RT_FUNC_NONE, 0, 11, 3),
		with_pid(ev(450, RT_EV_ENTRY, F, T20, 20, 1), 2),
		with_pid(ev(460, RT_EV_EXIT, H, T20 - 0x40, 20, 1), 2),
		ev(500, RT_EV_ENTRY, F, T10, 10, 1),
		/* F (thread 10) and F (thread 20) closed by the finish */
	};
	struct run r;

	run(&r, 7, e, ARRAY_SIZE(e), 900);
	TEST_EQ(r.sum.events, 10);
	/* F G H F F */
	TEST_EQ(r.sum.calls, 5);
	TEST_EQ(r.sum.threads, 3);
	TEST_EQ(r.sum.processes, 2);
	/* 1 + 1 + 1 + 2 + 1 + 1 + 3 + 1 + 1 + 1 */
	TEST_EQ(r.sum.stops, 13);
	TEST_EQ(r.sum.first_ts, T0 + 50);
	TEST_EQ(r.sum.last_ts, T0 + 500);
	TEST_EQ(r.sum.unwound, 1);
	/* G at the thread's end; two Fs at the finish */
	TEST_EQ(r.sum.incomplete, 3);
	TEST_EQ(r.sum.unmatched_exits, 1);
	TEST_EQ(r.sum.stop_cost_ns, 7);
	/* H 200..300 on thread 10 (stops 3 at its entry, 4 at F's exit):
	 * 100 - 1 * 7; end 300 - 4 * 7 */
	CHECK_CALL(left(&r, H, 0), H, 179, 272, 93, 93, 1, RT_CALL_UNWOUND);
	/* F 100..300: 200 - (4 - 2) * 7 = 186, self 186 - 93 */
	CHECK_CALL(left(&r, F, 0), F, 86, 272, 186, 93, 0, 0);
	RUN_DONE(&r);
}

/* ---- depth, many functions, many rows ------------------------------------ */

/*
 * F recursing NDEEP deep (ltrace gives up past 64).  Activation k (0 =
 * outermost) enters at 10k and leaves at 10(2 NDEEP - 1 - k), so its
 * total is 10(2 NDEEP - 1 - 2k): the innermost 10, the outermost
 * 10(2 NDEEP - 1); each self is 20 but the innermost's 10; the totals of
 * every activation add up to 10 NDEEP^2.
 */
#define NDEEP 5000

TEST_CASE(deep_recursion)
{
	struct rt_event *e = xcalloc(2 * NDEEP, sizeof(*e));
	size_t n = 0;
	struct run r;

	for (uint64_t k = 0; k < NDEEP; k++)
		e[n++] = ev(10 * k, RT_EV_ENTRY, F, S0 - 16 * k, TID, 1);
	for (uint64_t k = NDEEP; k-- > 0;)
		e[n++] = ev(10 * (2 * NDEEP - 1 - k), RT_EV_EXIT, F,
			    S0 - 16 * k, TID, 1);
	run(&r, 0, e, n, 2 * 10 * NDEEP);
	free(e);
	TEST_EQ(r.rec.nleave, NDEEP);
	/* innermost: 10 (NDEEP - 1) .. 10 NDEEP */
	CHECK_CALL(left(&r, F, 0), F, 10 * (NDEEP - 1), 10 * NDEEP, 10, 10,
		   NDEEP - 1, 0);
	TEST_TRUE(!left(&r, F, 0)->outermost);
	/* the next one out: total 30, self 30 - 10 */
	CHECK_CALL(left(&r, F, 1), F, 10 * (NDEEP - 2), 10 * (NDEEP + 1), 30,
		   20, NDEEP - 2, 0);
	CHECK_PROF(&r, 0, F, NDEEP, 10 * (2 * NDEEP - 1),
		   10 * (2 * NDEEP - 1));
	TEST_EQ(prof(&r, 0, F)->sum_incl, 10ULL * NDEEP * NDEEP);
	TEST_EQ(prof(&r, 0, F)->min, 10);
	TEST_EQ(prof(&r, 0, F)->max, 10 * (2 * NDEEP - 1));
	TEST_EQ(r.sum.unwound, 0);
	TEST_EQ(r.sum.incomplete, 0);
	RUN_DONE(&r);
}

/*
 * F, then 40 distinct functions (ids 100..139) nested in it, then F again
 * innermost: F's activation count must survive the growth of the map of
 * active functions.  Depth d (0..41) enters at 10d and leaves at
 * 10(83 - d): total 10(83 - 2d), self 20 but the innermost's 10.
 */
TEST_CASE(many_active_functions)
{
	struct rt_event e[2 * 42 + 2];
	size_t n = 0;
	struct run r;

	for (uint32_t d = 0; d < 42; d++) {
		uint32_t fn = d == 0 || d == 41 ? F : 100 + d - 1;

		e[n++] = ev(10 * d, RT_EV_ENTRY, fn, S0 - 16 * d, TID, 1);
	}
	for (uint32_t d = 42; d-- > 0;) {
		uint32_t fn = d == 0 || d == 41 ? F : 100 + d - 1;

		e[n++] = ev(10 * (83 - d), RT_EV_EXIT, fn, S0 - 16 * d, TID, 1);
	}
	/* a separate F afterwards: 1000..1050 */
	e[n++] = ev(1000, RT_EV_ENTRY, F, S0, TID, 1);
	e[n++] = ev(1050, RT_EV_EXIT, F, S0, TID, 1);
	run(&r, 0, e, n, 1100);
	/* inner F 410..420 at depth 41 */
	CHECK_CALL(left(&r, F, 0), F, 410, 420, 10, 10, 41, 0);
	TEST_TRUE(!left(&r, F, 0)->outermost);
	/* outer F 0..830, self 830 - 810 */
	CHECK_CALL(left(&r, F, 1), F, 0, 830, 830, 20, 0, 0);
	TEST_TRUE(left(&r, F, 1)->outermost);
	TEST_TRUE(left(&r, F, 2)->outermost);
	for (uint32_t d = 1; d <= 40; d++) {
		TEST_TRUE(left(&r, 100 + d - 1, 0)->outermost);
		/* total 10(83 - 2d), self 20 */
		CHECK_PROF(&r, 0, 100 + d - 1, 1, 10 * (83 - 2 * d), 20);
	}
	/* F: 3 calls, total 830 + 50, self 10 + 20 + 50 */
	CHECK_PROF(&r, 0, F, 3, 880, 80);
	RUN_DONE(&r);
}

/* A thread that ended leaves nothing behind for the next thread, even
 * one with the same id: not its frames, not its stop count. */
TEST_CASE(thread_slot_reuse)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S0, 10, 1),           /* t10: 1 */
		ev(200, RT_EV_THREAD_END, RT_FUNC_NONE, 0, 10, 1), /* 2 */
		ev(300, RT_EV_ENTRY, G, T11, 11, 1),          /* t11: 1 */
		ev(400, RT_EV_EXIT, G, T11, 11, 1),           /* 2 */
		ev(500, RT_EV_ENTRY, H, S0, 10, 1),           /* new t10: 1 */
		ev(600, RT_EV_EXIT, H, S0, 10, 1),            /* 2 */
	};
	struct run r;

	run(&r, 10, e, ARRAY_SIZE(e), 700);
	/* F: 100 - 1 * 10; end 200 - 20 */
	CHECK_CALL(left(&r, F, 0), F, 90, 180, 90, 90, 0, RT_CALL_INCOMPLETE);
	/* G: 100 - 10; end 400 - 2 * 10 */
	CHECK_CALL(left(&r, G, 0), G, 290, 380, 90, 90, 0, 0);
	CHECK_STACK(left(&r, G, 0), G);
	/* H on the new thread 10: 100 - 10, end 600 - 2 * 10 */
	CHECK_CALL(left(&r, H, 0), H, 490, 580, 90, 90, 0, 0);
	CHECK_STACK(left(&r, H, 0), H);
	TEST_TRUE(left(&r, H, 0)->outermost);
	TEST_EQ(r.sum.threads, 3);
	TEST_EQ(r.sum.incomplete, 1);
	RUN_DONE(&r);
}

/*
 * Enough (thread, function) rows to make the profile grow its index:
 * threads 1..3, functions 0..79; function fn on thread tid is called
 * 1 + fn % 3 times, one after the other, each lasting fn + tid ns.
 */
TEST_CASE(profile_many_rows)
{
	enum { NT = 3, NF = 80 };
	struct rt_event *e = xcalloc(NT * NF * 3 * 2, sizeof(*e));
	uint64_t ts = 0;
	size_t n = 0;
	struct run r;

	for (uint32_t fn = 0; fn < NF; fn++)
		for (uint32_t tid = 1; tid <= NT; tid++)
			for (uint32_t c = 0; c < 1 + fn % 3; c++) {
				e[n++] = ev(ts, RT_EV_ENTRY, fn, S0, tid, 1);
				ts += fn + tid;
				e[n++] = ev(ts, RT_EV_EXIT, fn, S0, tid, 1);
				ts += 1;
			}
	run_split(&r, &def_opts, 0, RT_SPLIT_THREAD, e, n, ts);
	free(e);
	TEST_EQ(rt_profile_nrows(r.prof), NT * NF);
	for (uint32_t fn = 0; fn < NF; fn++)
		for (uint32_t tid = 1; tid <= NT; tid++) {
			uint64_t calls = 1 + fn % 3, d = fn + tid;

			CHECK_PROF(&r, tid, fn, calls, calls * d, calls * d);
			TEST_EQ(prof(&r, tid, fn)->min, d);
			TEST_EQ(prof(&r, tid, fn)->max, d);
		}
	RUN_DONE(&r);
}

/* ---- through a log ------------------------------------------------------- */

/* A new log in a directory of its own, made from @dir's template: its
 * path (caller frees, and removes both with log_remove()). */
static char *log_new(char *dir)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	return xasprintf("%s/t.rtlog", dir);
}

/* The function table of the logs below. */
enum { L_MAIN, L_F, L_G, L_H };
static const struct rt_log_func funcs[] = {
	{ .id = L_MAIN, .addr = 0x401000, .size = 64, .name = "main" },
	{ .id = L_F, .addr = 0x401040, .size = 16, .name = "f" },
	{ .id = L_G, .addr = 0x401050, .size = 16, .name = "g" },
	{ .id = L_H, .addr = 0x401060, .size = 16, .name = "h" },
};

static void log_remove(char *dir, char *path)
{
	unlink(path);
	rmdir(dir);
	free(path);
}

TEST_CASE(analyse_log)
{
	static const struct rt_log_info info = {
		.start_ns = T0, .stop_cost_ns = 10, .pid = PID,
		.cmdline = "./demo", .version = "test",
	};
	/* main calls f, f tail-jumps to g (paired through the function
	 * table's addresses), main calls h, which is still running when
	 * the session ends at 2000. */
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, L_MAIN, S0, TID, 1),     /* stops 1 */
		ev(200, RT_EV_ENTRY, L_F, S1, TID, 1),        /* 2 */
		tail(300, L_F, S1, TID, 0x401050),           /* 3 */
		ev(310, RT_EV_ENTRY, L_G, S1, TID, 1),        /* 4 */
		ev(500, RT_EV_EXIT, L_G, S1, TID, 1),         /* 5 */
		ev(600, RT_EV_ENTRY, L_H, S1, TID, 1),        /* 6 */
	};
	const struct rt_log_end end = { .end_ns = T0 + 2000,
					.how = RT_END_EXITED };
	char dir[] = "/tmp/rtrace-test-analysis-XXXXXX";
	struct rt_analysis_opts o0 = { .stop_cost_ns = 0 };
	struct rt_evlog_writer *w;
	struct rt_evlog_reader *rd;
	struct rt_sink sink;
	struct run r;
	char *path;

	path = log_new(dir);
	TEST_EQ(rt_evlog_create(path, &info, &w), 0);
	TEST_EQ(rt_evlog_write_funcs(w, funcs, ARRAY_SIZE(funcs)), 0);
	for (size_t i = 0; i < ARRAY_SIZE(e); i++)
		rt_evlog_append(w, &e[i]);
	TEST_EQ(rt_evlog_close(w, &end), 0);
	TEST_EQ(rt_evlog_open(path, &rd), 0);

	/* the log's 10 ns per stop */
	r.prof = rt_profile_new(RT_SPLIT_NONE);
	sink = rt_profile_sink(r.prof);
	TEST_EQ(rt_analyse(rd, &def_opts, &sink, 1, &r.sum), 0);
	TEST_EQ(r.sum.stop_cost_ns, 10);
	TEST_EQ(r.sum.events, 6);
	TEST_EQ(r.sum.calls, 4);
	TEST_EQ(r.sum.incomplete, 2);
	TEST_EQ(r.sum.first_ts, T0 + 100);
	/* g: 190 - (5 - 4) * 10 */
	CHECK_PROF(&r, 0, L_G, 1, 180, 180);
	/* f ends with g: 300 - (5 - 2) * 10 = 270, self 270 - 180 */
	CHECK_PROF(&r, 0, L_F, 1, 270, 90);
	/* h 600..2000 (the end block), no stop after its entry */
	CHECK_PROF(&r, 0, L_H, 1, 1400, 1400);
	TEST_EQ(prof(&r, 0, L_H)->incomplete, 1);
	/* main 100..2000: 1900 - (6 - 1) * 10 = 1850, self 1850 - 270 -
	 * 1400 */
	CHECK_PROF(&r, 0, L_MAIN, 1, 1850, 180);
	run_done(&r);

	/* a second pass over the same reader, raw figures by override */
	r.prof = rt_profile_new(RT_SPLIT_NONE);
	sink = rt_profile_sink(r.prof);
	TEST_EQ(rt_analyse(rd, &o0, &sink, 1, &r.sum), 0);
	TEST_EQ(r.sum.stop_cost_ns, 0);
	CHECK_PROF(&r, 0, L_G, 1, 190, 190);
	CHECK_PROF(&r, 0, L_F, 1, 300, 110);
	CHECK_PROF(&r, 0, L_MAIN, 1, 1900, 200);
	run_done(&r);

	rt_evlog_reader_free(rd);
	log_remove(dir, path);
}

/*
 * A flight recorder's window starts inside main -> f on thread TID, in
 * the middle of f's many calls of g: main and f are already running (no
 * call of their own counted, their time from the window's start), and
 * nothing is lost or unmatched.  Thread TID + 1 starts inside the window:
 * nothing of it ran before, its exit without an entry stays unmatched.
 */
TEST_CASE(analyse_window_start)
{
	static const struct rt_log_info info = {
		.start_ns = T0, .pid = PID, .flags = RT_LOG_WINDOW,
		.cmdline = "./demo", .version = "test",
	};
	enum { NG = 400000 };	/* calls of g: several MiB of events */
	const uint64_t t_end = 100 + 4 * NG + 1000;
	const struct rt_log_end end = { .end_ns = T0 + t_end,
					.how = RT_END_EXITED };
	struct rt_event late[] = {
		ev(t_end - 500, RT_EV_THREAD_START, RT_FUNC_NONE, 0, TID + 1, 0),
		ev(t_end - 400, RT_EV_ENTRY, L_H, S0, TID + 1, 0),
		ev(t_end - 300, RT_EV_EXIT, L_H, S0, TID + 1, 0),
		ev(t_end - 250, RT_EV_EXIT, L_MAIN, S3, TID + 1, 0),
		ev(t_end - 100, RT_EV_EXIT, L_F, S1, TID, 0),
		ev(t_end - 50, RT_EV_EXIT, L_MAIN, S0, TID, 0),
	};
	char dir[] = "/tmp/rtrace-test-analysis-XXXXXX";
	struct rt_analysis_opts o0 = { .stop_cost_ns = 0 };
	const struct rt_log_window *win;
	struct rt_evlog_writer *w;
	struct rt_evlog_reader *rd;
	struct rt_event e;
	struct rt_sink sink;
	struct run r;
	uint64_t kept_g;
	char *path;

	path = log_new(dir);
	TEST_EQ(rt_evlog_create(path, &info, &w), 0);
	TEST_EQ(rt_evlog_keep_last(w, 0, 1 << 20), 0);
	TEST_EQ(rt_evlog_write_funcs(w, funcs, ARRAY_SIZE(funcs)), 0);
	e = ev(50, RT_EV_ENTRY, L_MAIN, S0, TID, 0);
	rt_evlog_append(w, &e);
	e = ev(100, RT_EV_ENTRY, L_F, S1, TID, 0);
	rt_evlog_append(w, &e);
	for (uint64_t i = 0; i < NG; i++) {
		e = ev(200 + 4 * i, RT_EV_ENTRY, L_G, S2, TID, 0);
		rt_evlog_append(w, &e);
		e = ev(202 + 4 * i, RT_EV_EXIT, L_G, S2, TID, 0);
		rt_evlog_append(w, &e);
	}
	for (size_t i = 0; i < ARRAY_SIZE(late); i++)
		rt_evlog_append(w, &late[i]);
	TEST_EQ(rt_evlog_close(w, &end), 0);
	TEST_EQ(rt_evlog_open(path, &rd), 0);
	win = rt_evlog_window(rd);
	TEST_TRUE(win != NULL);
	TEST_TRUE(win->dropped_events > 0);

	memset(&r, 0, sizeof(r));
	r.prof = rt_profile_new(RT_SPLIT_NONE);
	sink = rt_profile_sink(r.prof);
	TEST_EQ(rt_analyse(rd, &o0, &sink, 1, &r.sum), 0);
	/* the window's first event is one of g's, at 200 + 4 i or 202 + 4 i:
	 * the calls of g whose entry it holds, and maybe one running */
	TEST_TRUE(win->first_ts >= T0 + 200);
	kept_g = (T0 + 4 * NG + 200 - win->first_ts) / 4;
	TEST_TRUE(kept_g > 0 && kept_g < NG);
	TEST_EQ(prof(&r, 0, L_G)->calls, kept_g);
	TEST_EQ(prof(&r, 0, L_G)->partial, (win->first_ts - T0) % 4 != 0);
	/* main and f: running since the window's first event */
	TEST_EQ(prof(&r, 0, L_F)->calls, 0);
	TEST_EQ(prof(&r, 0, L_F)->partial, 1);
	TEST_EQ(prof(&r, 0, L_F)->total, T0 + t_end - 100 - win->first_ts);
	TEST_EQ(prof(&r, 0, L_MAIN)->partial, 1);
	TEST_EQ(prof(&r, 0, L_MAIN)->total, T0 + t_end - 50 - win->first_ts);
	/* h: a whole call of the thread that started in the window */
	TEST_EQ(prof(&r, 0, L_H)->calls, 1);
	TEST_EQ(prof(&r, 0, L_H)->partial, 0);
	TEST_EQ(r.sum.unmatched_exits, 1);
	TEST_EQ(r.sum.incomplete, 0);
	TEST_EQ(r.sum.events, win->events);
	run_done(&r);

	rt_evlog_reader_free(rd);
	log_remove(dir, path);
}

/*
 * A thread ends with its stack pointer above F's frame (a panic unwound F
 * and std caught it at the thread's start) but below G's (G still ran when
 * the thread exited through it): F unwound, G incomplete.
 */
TEST_CASE(thread_end_sp_splits_unwound_from_running)
{
	struct rt_event e[4];
	struct run r;

	e[0] = ev(100, RT_EV_ENTRY, G, 0x9000, 7, 1);
	e[1] = ev(200, RT_EV_ENTRY, F, 0x8000, 7, 1);
	e[2] = ev(300, RT_EV_THREAD_END, RT_FUNC_NONE, 0x8800, 7, 1);
	run(&r, 0, e, 3, 400);
	/* F closed first, at the end event's time, 200..300 */
	CHECK_CALL(left(&r, F, 0), F, 200, 300, 100, 100, 1,
		   RT_CALL_UNWOUND);
	CHECK_CALL(left(&r, G, 0), G, 100, 300, 200, 100, 0,
		   RT_CALL_INCOMPLETE);
	RUN_DONE(&r);
}

/*
 * THREAD_START names the creating thread in its value; a thread id that
 * serves again after its thread ended starts a new life.
 */
TEST_CASE(thread_lives_and_creators)
{
	struct rt_event e[8];
	struct run r;
	size_t n = 0;

	e[n++] = ev(100, RT_EV_ENTRY, F, 0x9000, 1, 1);
	e[n++] = ev(110, RT_EV_THREAD_START, RT_FUNC_NONE, 0, 2, 0);
	e[n - 1].value = 1;
	e[n++] = ev(120, RT_EV_ENTRY, G, 0x7000, 2, 1);
	e[n++] = ev(130, RT_EV_EXIT, G, 0x7000, 2, 1);
	e[n++] = ev(140, RT_EV_THREAD_END, RT_FUNC_NONE, 0, 2, 1);
	e[n++] = ev(150, RT_EV_THREAD_START, RT_FUNC_NONE, 0, 2, 0);
	e[n - 1].value = 2;  /* a creator that is gone: unknown */
	e[n++] = ev(160, RT_EV_ENTRY, G, 0x7000, 2, 1);
	e[n++] = ev(170, RT_EV_EXIT, F, 0x9000, 1, 1);
	run_split(&r, &def_opts, 0, RT_SPLIT_THREAD, e, n, 400);
	TEST_EQ(r.sum.threads, 3);
	TEST_EQ(r.sum.thread_info[0].tid, 1);
	TEST_EQ(r.sum.thread_info[1].tid, 2);
	TEST_EQ(r.sum.thread_info[1].creator, 1);
	TEST_EQ(r.sum.thread_info[2].tid, 2);
	TEST_EQ(r.sum.thread_info[2].creator, 0);
	TEST_EQ(left(&r, G, 0)->thread, 2);
	TEST_EQ(left(&r, G, 1)->thread, 3);
	CHECK_PROF(&r, 2, G, 1, 10, 10);
	RUN_DONE(&r);
}

/* The exit of the helper function at HELPER (flagged RT_EVF_HELPER). */
static struct rt_event helper_exit(uint64_t ts, uint64_t sp)
{
	struct rt_event e = ev(ts, RT_EV_EXIT, H, sp, TID, 1);

	e.flags = RT_EVF_HELPER;
	return e;
}

/*
 * F ends with a jump into an untraced helper (think std::thread::sleep);
 * the helper's return, probed, ends F exactly: no approximate end.  A
 * helper return with no frame jumping into it changes nothing.
 */
TEST_CASE(helper_return_ends_tail_jumper)
{
	struct rt_event e[] = {
		ev(0, RT_EV_ENTRY, PARENT, S0, TID, 1),
		helper_exit(50, S1),          /* called normally: ignored */
		ev(100, RT_EV_ENTRY, F, S1, TID, 1),
		tail(200, F, S1, TID, HELPER),
		helper_exit(500, S1),
		ev(600, RT_EV_EXIT, PARENT, S0, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 700);
	/* F 100..500: 400 total, all its own (the helper is untraced) */
	CHECK_CALL(left(&r, F, 0), F, 100, 500, 400, 400, 1, 0);
	/* PARENT 0..600 = 600, self 600 - 400 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 0, 600, 600, 200, 0, 0);
	TEST_EQ(r.sum.unmatched_exits, 0);
	RUN_DONE(&r);
}

/*
 * F jumps into the helper, which jumps on into traced G (an entry at the
 * same stack pointer before any helper return): G is F's tail callee and
 * both end at G's return.
 */
TEST_CASE(helper_tail_jumps_on_to_traced)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S1, TID, 1),
		tail(200, F, S1, TID, HELPER),
		ev(300, RT_EV_ENTRY, G, S1, TID, 1),
		ev(400, RT_EV_EXIT, G, S1, TID, 1),
	};
	struct run r;

	run(&r, 0, e, ARRAY_SIZE(e), 700);
	/* G 300..400; F 100..400 = 300, self 300 - 100 */
	CHECK_CALL(left(&r, G, 0), G, 300, 400, 100, 100, 1, RT_CALL_TAIL);
	CHECK_CALL(left(&r, F, 0), F, 100, 400, 300, 200, 0, 0);
	RUN_DONE(&r);
}

/* ---- blocking calls (libc's sleeps, waits, reads) ------------------------ */

#define BLK 7u   /* a blocking call's function id (libc's nanosleep) */
#define BLK2 8u  /* another (clock_nanosleep, which nanosleep calls) */

/* Feeds @e with BLK and BLK2 known as blocking calls. */
static void run_blocking(struct run *r, const struct rt_event *e, size_t n,
			 uint64_t end)
{
	struct rt_sink sinks[2];
	struct rt_frames *f;

	memset(&r->rec, 0, sizeof(r->rec));
	memset(&r->sum, 0, sizeof(r->sum));
	r->prof = rt_profile_new(RT_SPLIT_NONE);
	sinks[0] = (struct rt_sink){ rec_enter, rec_leave, &r->rec };
	sinks[1] = rt_profile_sink(r->prof);
	f = rt_frames_new(&def_opts, 0, T0, sinks, ARRAY_SIZE(sinks));
	rt_frames_func_blocking(f, BLK);
	rt_frames_func_blocking(f, BLK2);
	for (size_t i = 0; i < n; i++)
		rt_frames_feed(f, &e[i]);
	rt_frames_finish(f, T0 + end, &r->sum);
	rt_frames_free(f);
}

/*
 * PARENT sleeps (BLK, which calls BLK2: nested, counted once), calls
 * CHILD, which sleeps too; a sleep before any traced call goes nowhere.
 *   0 BLK in, 50 BLK out (no traced call open)
 *   100 PARENT in, 200 BLK in, 210 BLK2 in, 290 BLK2 out, 300 BLK out,
 *   400 CHILD in, 450 BLK in, 650 BLK out, 700 CHILD out, 1000 PARENT out
 */
TEST_CASE(blocking_calls_are_blocked_time)
{
	struct rt_event e[] = {
		ev(0, RT_EV_ENTRY, BLK, S1, TID, 0),
		ev(50, RT_EV_EXIT, BLK, S1, TID, 0),
		ev(100, RT_EV_ENTRY, PARENT, S0, TID, 0),
		ev(200, RT_EV_ENTRY, BLK, S1, TID, 0),
		ev(210, RT_EV_ENTRY, BLK2, S2, TID, 0),
		ev(290, RT_EV_EXIT, BLK2, S2, TID, 0),
		ev(300, RT_EV_EXIT, BLK, S1, TID, 0),
		ev(400, RT_EV_ENTRY, CHILD, S1, TID, 0),
		ev(450, RT_EV_ENTRY, BLK, S2, TID, 0),
		ev(650, RT_EV_EXIT, BLK, S2, TID, 0),
		ev(700, RT_EV_EXIT, CHILD, S1, TID, 0),
		ev(1000, RT_EV_EXIT, PARENT, S0, TID, 0),
	};
	const struct rt_fstats *st;
	struct run r;

	run_blocking(&r, e, ARRAY_SIZE(e), 1100);
	/* CHILD 400..700 = 300: 200 blocked, 100 its own */
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 400, 700, 300, 100, 1, 0);
	TEST_EQ(left(&r, CHILD, 0)->blocked, 200);
	/* PARENT 100..1000 = 900: CHILD 300, blocked 100 (200..300, the
	 * nested call inside), its own 500 */
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 1000, 900, 500, 0, 0);
	TEST_EQ(left(&r, PARENT, 0)->blocked, 100);
	/* the blocking calls are no calls of their own */
	TEST_EQ(r.rec.nleave, 2);
	TEST_EQ(r.sum.calls, 2);
	st = prof(&r, 0, PARENT);
	TEST_TRUE(st != NULL);
	TEST_EQ(st->blocked, 100);
	TEST_EQ(st->self, 500);
	RUN_DONE(&r);
}

/*
 * A blocking call that left by a tail jump into another (BLK2 at the same
 * stack pointer) goes on until that one returns; one whose end was never
 * seen ends at the thread's next traced event.
 *   100 F in, 200 BLK in, 250 BLK tail, 260 BLK2 in (same sp), 400 BLK2
 *   out, 500 BLK in, 600 G in (BLK's end unseen), 700 G out, 800 F out
 */
TEST_CASE(blocking_call_tail_and_lost_end)
{
	struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, F, S0, TID, 0),
		ev(200, RT_EV_ENTRY, BLK, S1, TID, 0),
		tail(250, BLK, S1, TID, 0),
		ev(260, RT_EV_ENTRY, BLK2, S1, TID, 0),
		ev(400, RT_EV_EXIT, BLK2, S1, TID, 0),
		ev(500, RT_EV_ENTRY, BLK, S1, TID, 0),
		ev(600, RT_EV_ENTRY, G, S1, TID, 0),
		ev(700, RT_EV_EXIT, G, S1, TID, 0),
		ev(800, RT_EV_EXIT, F, S0, TID, 0),
	};
	struct run r;

	run_blocking(&r, e, ARRAY_SIZE(e), 900);
	/* F 100..800 = 700: G 100; blocked 200..400 and 500..600 = 300 */
	CHECK_CALL(left(&r, F, 0), F, 100, 800, 700, 300, 0, 0);
	TEST_EQ(left(&r, F, 0)->blocked, 300);
	RUN_DONE(&r);
}

/* ---- inlined calls ------------------------------------------------------- */

/* An inlined entry of @func at @ts, in code running at stack pointer @sp,
 * from the instance at @site. */
static struct rt_event inlined(uint64_t ts, uint32_t func, uint64_t sp,
			       uint64_t site)
{
	struct rt_event e = ev(ts, RT_EV_ENTRY, func, sp, TID, 1);

	e.flags = RT_EVF_INLINED;
	e.value = site;
	return e;
}

/*
 * PARENT, entered at 100 (sp S0), runs CHILD inlined twice: once where
 * PARENT begins (the same site and sp as its entry) and once at 300 (sp
 * S0 - 8, inside PARENT), and calls GRAND at 400..450, inside which F is
 * inlined at 420.  PARENT returns at 600.
 */
TEST_CASE(inlined_entries)
{
	struct rt_event e[8];
	size_t n = 0;
	struct run r;

	e[n++] = ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1);
	e[n++] = inlined(100, CHILD, S0, ADDR(PARENT));
	e[n++] = inlined(300, CHILD, S0 - 8, ADDR(PARENT) + 0x20);
	e[n++] = ev(400, RT_EV_ENTRY, GRAND, S1, TID, 1);
	e[n++] = inlined(420, F, S1 - 8, ADDR(GRAND) + 0x10);
	e[n++] = ev(450, RT_EV_EXIT, GRAND, S1, TID, 1);
	e[n++] = ev(600, RT_EV_EXIT, PARENT, S0, TID, 1);
	run(&r, 0, e, n, 700);

	/* an inlined call is entered and left at once, where it begins, in
	 * the frame of the code it was inlined into */
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 100, 100, 0, 0, 1,
		   RT_CALL_INLINED | RT_CALL_UNTIMED);
	CHECK_STACK(left(&r, CHILD, 0), PARENT, CHILD);
	TEST_EQ(left(&r, CHILD, 0)->value, ADDR(PARENT));
	CHECK_CALL(left(&r, CHILD, 1), CHILD, 300, 300, 0, 0, 1,
		   RT_CALL_INLINED | RT_CALL_UNTIMED);
	CHECK_CALL(left(&r, F, 0), F, 420, 420, 0, 0, 2,
		   RT_CALL_INLINED | RT_CALL_UNTIMED);
	CHECK_STACK(left(&r, F, 0), PARENT, GRAND, F);
	/* no frame: the others end as without them */
	CHECK_CALL(left(&r, GRAND, 0), GRAND, 400, 450, 50, 50, 1, 0);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 600, 500, 450, 0, 0);
	TEST_EQ(r.sum.unmatched_exits, 0);
	TEST_EQ(r.sum.unwound, 0);

	/* counted as calls, with no time: not in min, max or the average */
	CHECK_PROF(&r, 0, CHILD, 2, 0, 0);
	TEST_EQ(prof(&r, 0, CHILD)->inlined, 2);
	TEST_EQ(prof(&r, 0, CHILD)->untimed, 2);
	TEST_EQ(rt_fstats_timed(prof(&r, 0, CHILD)), 0);
	TEST_EQ(prof(&r, 0, CHILD)->sum_incl, 0);
	TEST_EQ(prof(&r, 0, CHILD)->max, 0);
	TEST_EQ(prof(&r, 0, PARENT)->inlined, 0);
	TEST_EQ(r.sum.calls, 5);
	TEST_EQ(r.sum.inlined_calls, 3);
	RUN_DONE(&r);
}

/* A frame left by a panic ends at an inlined entry of a shallower frame,
 * as at any other event. */
TEST_CASE(inlined_closes_unwound)
{
	struct rt_event e[4];
	size_t n = 0;
	struct run r;

	e[n++] = ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1);
	e[n++] = ev(200, RT_EV_ENTRY, CHILD, S1, TID, 1);
	/* CHILD unwound; PARENT's own code runs an inlined F */
	e[n++] = inlined(300, F, S0 - 8, ADDR(PARENT) + 0x30);
	e[n++] = ev(400, RT_EV_EXIT, PARENT, S0, TID, 1);
	run(&r, 0, e, n, 500);
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 200, 300, 100, 100, 1,
		   RT_CALL_UNWOUND);
	CHECK_CALL(left(&r, F, 0), F, 300, 300, 0, 0, 1,
		   RT_CALL_INLINED | RT_CALL_UNTIMED);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 400, 300, 200, 0, 0);
	RUN_DONE(&r);
}

/* With counts only (no exits), an inlined entry is a call like the
 * others, flagged. */
TEST_CASE(inlined_count_only)
{
	struct rt_analysis_opts o = def_opts;
	struct rt_event e[3];
	size_t n = 0;
	struct run r;

	o.count_only = true;
	e[n++] = ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1);
	e[n++] = inlined(150, CHILD, S0 - 8, ADDR(PARENT) + 0x20);
	e[n++] = inlined(160, CHILD, S0 - 8, ADDR(PARENT) + 0x20);
	run_split(&r, &o, 0, RT_SPLIT_NONE, e, n, 200);
	TEST_EQ(prof(&r, 0, CHILD)->calls, 2);
	TEST_EQ(prof(&r, 0, CHILD)->inlined, 2);
	TEST_EQ(prof(&r, 0, PARENT)->calls, 1);
	TEST_EQ(r.sum.inlined_calls, 2);
	RUN_DONE(&r);
}

/* The entry of an inlined call whose instance's exit is probed too. */
static struct rt_event inlined_timed(uint64_t ts, uint32_t func, uint64_t sp,
				     uint64_t site)
{
	struct rt_event e = inlined(ts, func, sp, site);

	e.flags |= RT_EVF_TIMED;
	return e;
}

/* The exit of the instance of @func entered at @site. */
static struct rt_event inlined_end(uint64_t ts, uint32_t func, uint64_t sp,
				   uint64_t site)
{
	struct rt_event e = ev(ts, RT_EV_EXIT, func, sp, TID, 1);

	e.flags = RT_EVF_INLINED;
	e.value = site;
	return e;
}

/* @func's calls in the profile: all, inlined, without a time. */
#define CHECK_INL(r, func, calls_, inlined_, untimed_)                         \
	do {                                                                   \
		const struct rt_fstats *st__ = prof((r), 0, (func));          \
		TEST_TRUE(st__ != NULL);                                       \
		TEST_EQ(st__->calls, calls_);                                  \
		TEST_EQ(st__->inlined, inlined_);                              \
		TEST_EQ(st__->untimed, untimed_);                              \
		TEST_EQ(rt_fstats_timed(st__), (calls_) - (untimed_));         \
	} while (0)

#define SITE_A (ADDR(PARENT) + 0x20)
#define SITE_B (ADDR(PARENT) + 0x28)

/*
 * PARENT (100..600) runs CHILD inlined, timed, from 200 to 400; CHILD
 * calls GRAND (250..300).  The exit of CHILD's instance runs again at
 * 450, reached by code that skipped the instance: nothing is open, it
 * is dropped.  CHILD is PARENT's callee like any other: 200 total, 150
 * self, and PARENT's self loses its 200.
 */
TEST_CASE(inlined_timed_call)
{
	struct rt_event e[8];
	size_t n = 0;
	struct run r;

	e[n++] = ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1);
	e[n++] = inlined_timed(200, CHILD, S0 - 8, SITE_A);
	e[n++] = ev(250, RT_EV_ENTRY, GRAND, S0 - 16, TID, 1);
	e[n++] = ev(300, RT_EV_EXIT, GRAND, S0 - 16, TID, 1);
	e[n++] = inlined_end(400, CHILD, S0 - 8, SITE_A);
	e[n++] = inlined_end(450, CHILD, S0 - 8, SITE_A);
	e[n++] = ev(600, RT_EV_EXIT, PARENT, S0, TID, 1);
	run(&r, 0, e, n, 700);

	CHECK_CALL(left(&r, GRAND, 0), GRAND, 250, 300, 50, 50, 2, 0);
	CHECK_STACK(left(&r, GRAND, 0), PARENT, CHILD, GRAND);
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 200, 400, 200, 150, 1,
		   RT_CALL_INLINED);
	TEST_EQ(left(&r, CHILD, 0)->value, SITE_A);
	TEST_TRUE(left(&r, CHILD, 1) == NULL);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 600, 500, 300, 0, 0);
	CHECK_INL(&r, CHILD, 1, 1, 0);
	TEST_EQ(r.sum.inlined_calls, 1);
	TEST_EQ(r.sum.unmatched_exits, 0);
	TEST_EQ(r.sum.unwound, 0);
	RUN_DONE(&r);
}

/*
 * Nested instances that end at one address end innermost first: F (site
 * B) inside CHILD (site A), both left at 300.  The exit of another
 * instance of F (site A), never entered, leaves the open F alone.  Then
 * an untimed call of CHILD: counted, with no time.
 */
TEST_CASE(inlined_timed_nested)
{
	struct rt_event e[8];
	size_t n = 0;
	struct run r;

	e[n++] = ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1);
	e[n++] = inlined_timed(150, CHILD, S0 - 8, SITE_A);
	e[n++] = inlined_timed(170, F, S0 - 8, SITE_B);
	e[n++] = inlined_end(200, F, S0 - 8, SITE_A);
	e[n++] = inlined_end(300, F, S0 - 8, SITE_B);
	e[n++] = inlined_end(300, CHILD, S0 - 8, SITE_A);
	e[n++] = inlined(320, CHILD, S0 - 8, SITE_A + 0x40);
	e[n++] = ev(600, RT_EV_EXIT, PARENT, S0, TID, 1);
	run(&r, 0, e, n, 700);

	CHECK_CALL(left(&r, F, 0), F, 170, 300, 130, 130, 2, RT_CALL_INLINED);
	CHECK_STACK(left(&r, F, 0), PARENT, CHILD, F);
	CHECK_CALL(left(&r, CHILD, 0), CHILD, 150, 300, 150, 20, 1,
		   RT_CALL_INLINED);
	CHECK_CALL(left(&r, CHILD, 1), CHILD, 320, 320, 0, 0, 1,
		   RT_CALL_INLINED | RT_CALL_UNTIMED);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 600, 500, 350, 0, 0);
	CHECK_INL(&r, CHILD, 2, 2, 1);
	TEST_EQ(prof(&r, 0, CHILD)->total, 150);
	TEST_EQ(prof(&r, 0, CHILD)->min, 150);
	TEST_EQ(r.sum.inlined_calls, 3);
	RUN_DONE(&r);
}

/*
 * An inlined call still open when its caller returns or jumps out (its
 * exit was not seen) ends there, flagged as an approximate end, and the
 * caller's return is the caller's even when the instance runs at the
 * caller's own stack pointer (a function that pushes nothing).
 */
TEST_CASE(inlined_timed_left_by_return)
{
	struct rt_event e[4];
	size_t n = 0;
	struct run r;

	e[n++] = ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1);
	e[n++] = inlined_timed(200, CHILD, S0, SITE_A);
	e[n++] = ev(300, RT_EV_EXIT, PARENT, S0, TID, 1);
	run(&r, 0, e, n, 700);

	CHECK_CALL(left(&r, CHILD, 0), CHILD, 200, 300, 100, 100, 1,
		   RT_CALL_INLINED | RT_CALL_APPROX_END);
	CHECK_CALL(left(&r, PARENT, 0), PARENT, 100, 300, 200, 100, 0, 0);
	TEST_EQ(r.sum.unmatched_exits, 0);
	RUN_DONE(&r);
}

/* With counts only, a timed entry is a call without a time all the same
 * (no exit is recorded). */
TEST_CASE(inlined_timed_count_only)
{
	struct rt_analysis_opts o = def_opts;
	struct rt_event e[3];
	size_t n = 0;
	struct run r;

	o.count_only = true;
	e[n++] = ev(100, RT_EV_ENTRY, PARENT, S0, TID, 1);
	e[n++] = inlined_timed(150, CHILD, S0 - 8, SITE_A);
	e[n++] = inlined_timed(160, CHILD, S0 - 8, SITE_A);
	run_split(&r, &o, 0, RT_SPLIT_NONE, e, n, 200);
	CHECK_INL(&r, CHILD, 2, 2, 2);
	RUN_DONE(&r);
}
