/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The analysis: raw events in, calls out.  One shadow stack per thread, each
 * frame keyed by the stack pointer at entry.  An exit closes the frame whose
 * entry stack pointer it carries; a tail jump hands its frame to the callee
 * (both end when the callee returns); frames a panic unwound through, which
 * never return, are closed by the next event of the thread at a shallower
 * stack pointer, or by the thread's end, and flagged.  Each stop's cost to
 * the tracee (from the log header) is subtracted from the times.
 *
 * Every view consumes the same stream of calls through a sink, so a report
 * from a saved log is the same code path as the live one.
 */
#ifndef RTRACE_ANALYSIS_H
#define RTRACE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/evlog.h"

enum rt_call_flags {
	RT_CALL_UNWOUND = 1 << 0,    /* left without a return (a panic) */
	RT_CALL_TAIL = 1 << 1,       /* entered by a tail jump */
	RT_CALL_INCOMPLETE = 1 << 2, /* still running when the thread or the
				      * log ended */
	RT_CALL_APPROX_END = 1 << 3, /* left by a jump to an unknown place:
				      * the end is the next event seen */
	RT_CALL_PARTIAL = 1 << 4,    /* already running when rtrace attached:
				      * its time is a lower bound */
	RT_CALL_INLINED = 1 << 5,    /* a call the compiler inlined; value =
				      * the instance's entry address */
	RT_CALL_UNTIMED = 1 << 6,    /* counted at its entry only (an inlined
				      * call whose instance's exit is not
				      * probed): no time (start = end, total
				      * = self = 0), no callees */
};

/* A call (one activation of a function) as the views see it. */
struct rt_call {
	uint32_t func;            /* function id */
	uint32_t tid, pid;
	uint32_t thread;          /* the thread's index in the summary's
				   * thread table, plus one */
	uint32_t depth;           /* 0 for a thread's outermost traced call */
	uint32_t flags;           /* enum rt_call_flags */
	uint32_t captured;        /* call stack captured at entry (--stack),
				   * an id in the log, or 0 */
	uint64_t value;           /* the entry event's value (an allocator
				   * call's size or freed pointer) */
	uint64_t arg;             /* a further argument (a reallocation's
				   * old pointer), or 0 */
	uint64_t ret;             /* the return register at the exit, or 0
				   * when the call did not return */
	bool outermost;           /* no activation of the same function
				   * encloses it (recursion-safe totals) */
	uint64_t start, end;      /* ns since the log's start, on the
				   * compensated timeline */
	uint64_t total, self;     /* ns, compensated */
	uint64_t blocked;         /* ns in libc's blocking calls made in it
				   * outside its traced callees (compensated):
				   * in total, not in self */
	uint64_t taken;           /* ns of rtrace's cost taken out of total
				   * (measured minus total) */
	const uint32_t *stack;    /* func ids of the enclosing calls,
				   * stack[0] outermost, stack[depth] = func;
				   * valid during the callback only */
};

/* A consumer of calls.  enter() sees a call when it starts (end, total and
 * self are 0 then); leave() sees it complete.  Either may be NULL. */
struct rt_sink {
	void (*enter)(void *ctx, const struct rt_call *c);
	void (*leave)(void *ctx, const struct rt_call *c);
	void *ctx;
};

struct rt_analysis_opts {
	bool raw_times;           /* no per-stop compensation */
	int64_t stop_cost_ns;     /* override the log's figure when >= 0 */
	uint32_t only_pid;        /* when non-zero, ignore other processes */
	bool count_only;          /* entries only: calls without times (set
				   * by rt_analyse() from the log) */
};

/* One thread's life (a thread id can serve several in turn). */
struct rt_thread_info {
	uint32_t tid, pid;
	uint32_t creator;        /* index + 1 of the thread that created it,
				  * 0 when not known */
	uint32_t flags;          /* RT_THREAD_* from the log */
	const char *name;        /* borrowed from the log reader, or NULL */
	uint64_t calls;
};

/* Whole-log facts gathered during a pass. */
struct rt_analysis_summary {
	uint64_t events;
	uint64_t calls;
	uint64_t inlined_calls;      /* of which calls the compiler inlined */
	uint64_t first_ts, last_ts;  /* raw CLOCK_MONOTONIC ns */
	uint32_t threads;
	uint32_t processes;
	uint64_t unmatched_exits;    /* exits with no frame (not an error) */
	uint64_t unknown_funcs;      /* entries of a function the log's table
				      * does not hold (a damaged log): left
				      * out, with their calls */
	uint64_t unwound;            /* calls closed as RT_CALL_UNWOUND */
	uint64_t incomplete;
	uint64_t stop_cost_ns;       /* compensation per stop among close
				      * stops (more for isolated ones) */
	uint64_t stops;              /* stops seen in the events */
	uint64_t stop_events;        /* probe events recorded at a stop (a
				      * breakpoint), not by the program */
	uint64_t *func_stops;        /* [nfunc_stops], by function id: its
				      * probe events recorded at a stop */
	size_t nfunc_stops;
	uint64_t inline_cost_ns;     /* compensation per event recorded in
				      * the process (inline engine) */
	struct rt_thread_info *thread_info;  /* [threads]; free with
					      * rt_analysis_summary_release() */
};

/* Frees what a summary owns (thread_info, func_stops); accepts a zeroed
 * one. */
void rt_analysis_summary_release(struct rt_analysis_summary *sum);

/* Reads every event of @r from the start and feeds the calls to @sinks
 * (an array of @nsinks).  Fills @sum when non-NULL.  Every call handed to
 * a sink names functions of the log's table (rt_evlog_func() is not NULL
 * for c->func and each id of c->stack): an entry naming another id is
 * left out, counted in sum->unknown_funcs and warned about once per log.
 * Returns 0, or -errno when the log is unreadable (already logged). */
int rt_analyse(struct rt_evlog_reader *r, const struct rt_analysis_opts *opts,
	       const struct rt_sink *sinks, size_t nsinks,
	       struct rt_analysis_summary *sum);

/* rt_analyse() in steps, for a reader fed as the log is written
 * (rt_evlog_open_stream()): make a pass, run it after each feed, finish
 * it once.  The pass borrows @r and @sinks until it is finished. */
struct rt_analysis_pass;
struct rt_analysis_pass *rt_analysis_pass_new(struct rt_evlog_reader *r,
					      const struct rt_analysis_opts *opts,
					      const struct rt_sink *sinks,
					      size_t nsinks);
/* Analyses the events @r can give now.  0, or the reader's error (sticky,
 * logged). */
int rt_analysis_pass_run(struct rt_analysis_pass *p);
/* Ends the calls still open at @end (or at the last event when NULL),
 * fills @sum when non-NULL and frees the pass.  Returns the pass's
 * error, 0 if none. */
int rt_analysis_pass_finish(struct rt_analysis_pass *p,
			    const struct rt_log_end *end,
			    struct rt_analysis_summary *sum);

/* The most calls open at once in one thread, and in all threads: past
 * either, an entry first closes its thread's deepest open call, as
 * incomplete (RT_CALL_INCOMPLETE), so that no log makes the analysis's
 * memory grow without bound.  A real thread rarely nests a hundredth as
 * deep: every call takes 8 bytes of stack at least. */
#define RT_ANALYSIS_DEPTH_MAX (1u << 19)
#define RT_ANALYSIS_OPEN_MAX (1u << 21)

/* The analysis as a step machine, for callers that produce events
 * themselves (unit tests, live views).  Free with rt_frames_free(). */
struct rt_frames;
struct rt_frames *rt_frames_new(const struct rt_analysis_opts *opts,
				uint64_t stop_cost_ns, uint64_t origin_ns,
				const struct rt_sink *sinks, size_t nsinks);
/* Replaces the constant stop cost with the calibration curve @c, unless
 * the options override the cost. */
void rt_frames_set_curve(struct rt_frames *f, const struct rt_stop_cost *c);

/* Lets the machine name threads from the log being read (optional). */
void rt_frames_set_reader(struct rt_frames *f, struct rt_evlog_reader *r);

/* Tells the machine where function @id starts, so that a tail jump's
 * target can be paired with the callee's entry. */
void rt_frames_func_addr(struct rt_frames *f, uint32_t id, uint64_t addr);
/* Tells the machine that function @id is an allocator entry point: its
 * time stays its caller's own. */
void rt_frames_func_mem(struct rt_frames *f, uint32_t id);

/* Tells the machine that function @id is one of libc's blocking calls:
 * its time is the enclosing call's blocked time, and it is no call of its
 * own. */
void rt_frames_func_blocking(struct rt_frames *f, uint32_t id);

/* Tells the machine that @addr is a helper function: untraced, but its
 * returns are probed, so a tail jump into it is ended by its return. */
void rt_frames_helper(struct rt_frames *f, uint64_t addr);
/* Feeds one event. */
void rt_frames_feed(struct rt_frames *f, const struct rt_event *ev);
/* Closes every frame still open at time @ts (end of the log) as
 * incomplete, and fills @sum when non-NULL. */
void rt_frames_finish(struct rt_frames *f, uint64_t ts,
		      struct rt_analysis_summary *sum);
/* Frees the machine; accepts NULL. */
void rt_frames_free(struct rt_frames *f);

#endif
