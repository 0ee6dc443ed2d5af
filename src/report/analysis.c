// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Raw events to calls.  Per thread, a shadow stack of frames keyed by the
 * stack pointer at entry (which, on every supported CPU, is also the stack
 * pointer at the matching return or tail jump).  The rules:
 *
 *  - A frame whose stack pointer is below the current event's is dead: it
 *    was left without a return (a panic unwound through it).  It is closed
 *    at this event's time and flagged.
 *  - An exit closes the frame with its stack pointer, and with it every
 *    frame that had tail-jumped into that one (same stack pointer).
 *  - A tail jump marks its frame; the next entry at the same stack pointer
 *    is the callee, chained to it.  When the jump went somewhere else (an
 *    untraced function), the frame ends at the next event that shows it is
 *    over, flagged as an approximate end.
 *  - Recursion: every activation counts as a call, but only the outermost
 *    activation of a function adds to its total.
 *  - Each stop costs the program time: a call's total loses the cost of
 *    every stop that happened inside it, so times are the untraced ones.
 *    The cost of a stop depends on how long the thread ran before it (the
 *    calibration curve in the log header).  Part of it comes before the
 *    stop's time stamp and part after, so a call that begins or ends at a
 *    stop loses only its own side of that stop.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "analysis"
#define PR_DOMAIN RT_DOM_ANALYSIS
#include "rtrace/analysis.h"
#include "rtrace/stopcost.h"
#include "rtrace/log.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"
#include "rtrace/winstart.h"

struct frame {
	uint32_t func;
	uint32_t flags;
	uint64_t sp;
	uint64_t start;          /* raw ts at entry */
	uint64_t tl_start;       /* its position on the compensated timeline */
	uint64_t cost_at_start;  /* thread's stop cost so far, at entry */
	uint64_t child_total;    /* compensated totals of closed children */
	uint64_t tail_target;    /* where its tail jump went (0: unknown) */
	uint64_t value;          /* the entry event's value: captured stack
				  * id, or an allocator call's size */
	uint64_t arg;            /* a further argument (RT_EV_ARG) */
	bool tail_pending;       /* left by a tail jump, callee not seen */
	bool chained;            /* entered by a tail jump from the frame
				  * below, and ends with it */
	bool outermost;
	bool counted;            /* in its thread's active counts */
	bool inlined;            /* a timed inlined call: it lives in the
				  * frame of the code it was inlined into
				  * and ends at its instance's exit */
	uint64_t blocked;        /* compensated ns of blocking calls made
				  * in it, outside its traced callees */
};

struct thread_state {
	uint32_t tid, pid;
	uint32_t seq;            /* index + 1 in rt_frames.info */
	bool named;              /* its name was looked up */
	bool used;
	VEC(struct frame) stack;
	VEC(uint32_t) ids;       /* func ids of the stack, for rt_call */
	uint64_t cost;           /* cumulative stop cost (ns) */
	uint64_t cost_owed;      /* the part of its last stop's cost that
				  * follows that stop's time stamp */
	uint64_t inline_cost;    /* what one inline event costs (ns) */
	int64_t shift;           /* in-place measure minus the curve's */
	uint64_t last_ts;        /* raw time of its previous event */
	uint64_t last_tl;        /* last timeline position handed out */
	/* the outermost blocking call open (libc's nanosleep, read...):
	 * its entry stack pointer (0: none), raw start, the thread's stop
	 * cost then, and whether it left by a tail jump */
	uint64_t blk_sp, blk_start, blk_cost;
	bool blk_tail;
	/* activations of each function on the stack, by func id up to the
	 * log's table, in chunks of ACTIVE_CHUNK made when first touched
	 * (memory follows the functions a thread calls, not the table);
	 * kept when the thread ends (all zero then) for the next thread in
	 * this slot */
	VEC(uint32_t *) active;
};

struct rt_frames {
	struct rt_analysis_opts opts;
	/* the stop-cost curve, ready for lookups; y[0] is the cost of a
	 * stop among close ones */
	struct rt_stop_cost_fn cost_fn;
	uint64_t origin;
	const struct rt_sink *sinks;
	size_t nsinks;
	bool any_enter;         /* a sink wants calls at their start */
	VEC(struct thread_state *) threads;
	struct thread_state *last;  /* the last event's: events come in runs
				     * of one thread (a ring, a stop) */
	VEC(uint64_t) func_addr;       /* id -> run-time address */
	VEC(uint64_t) helpers;         /* addresses of helper functions */
	VEC(uint8_t) kind;             /* id -> FN_MEM, FN_BLOCKING or 0 */
	VEC(uint32_t) pids;            /* distinct processes seen */
	VEC(struct rt_thread_info) info;  /* every thread's life */
	struct rt_evlog_reader *reader;   /* for thread names, or NULL */
	struct rt_analysis_summary sum;
	VEC(uint64_t) func_stops;  /* by function id */
	bool have_ts;
	size_t open;               /* frames of all threads' stacks */
	uint64_t capped;           /* frames closed to stay under the caps */
};

/* What a function of the log's table is to the frames. */
enum { FN_MEM = 1, FN_BLOCKING = 2 };

/* ---- threads and their activations ------------------------------------ */

#define ACTIVE_SHIFT 10
#define ACTIVE_CHUNK (1u << ACTIVE_SHIFT)

static uint32_t *active_chunk(struct thread_state *t, uint32_t func)
{
	uint32_t **chunk;

	while (t->active.n <= func >> ACTIVE_SHIFT)
		vec_push(&t->active, NULL);
	chunk = &t->active.v[func >> ACTIVE_SHIFT];
	if (!*chunk)
		*chunk = xcalloc(ACTIVE_CHUNK, sizeof(**chunk));
	return *chunk;
}

static inline uint32_t *active_count(struct thread_state *t, uint32_t func)
{
	size_t c = func >> ACTIVE_SHIFT;
	uint32_t *chunk = c < t->active.n ? t->active.v[c] : NULL;

	if (unlikely(!chunk))
		chunk = active_chunk(t, func);
	return &chunk[func & (ACTIVE_CHUNK - 1)];
}

/* Counts a new activation of @func on @t; returns whether it is the
 * outermost one.  Ids past the log's table (a damaged log) are not
 * counted: the stack is searched for them instead. */
static bool activate(const struct rt_frames *f, struct thread_state *t,
		     uint32_t func, bool *counted)
{
	*counted = func < f->func_addr.n;
	if (!*counted) {
		vec_for_each(&t->ids, id)
			if (*id == func)
				return false;
		return true;
	}
	return (*active_count(t, func))++ == 0;
}

static void note_pid(struct rt_frames *f, uint32_t pid)
{
	vec_for_each(&f->pids, p)
		if (*p == pid)
			return;
	vec_push(&f->pids, pid);
	f->sum.processes++;
}

/* @tid's slot, found by a scan or taken for a new thread. */
static struct thread_state *scan_threads(struct rt_frames *f, uint32_t tid,
					 uint32_t pid)
{
	struct thread_state *free_slot = NULL;

	/* few threads are alive at once: a scan is cheap and simple */
	vec_for_each(&f->threads, pt) {
		if ((*pt)->used && (*pt)->tid == tid)
			return f->last = *pt;
		if (!(*pt)->used && !free_slot)
			free_slot = *pt;
	}
	if (!free_slot) {
		free_slot = xcalloc(1, sizeof(*free_slot));
		vec_push(&f->threads, free_slot);
	}
	free_slot->used = true;
	free_slot->named = false;
	free_slot->tid = tid;
	free_slot->pid = pid;
	vec_push(&f->info, ((struct rt_thread_info){ .tid = tid, .pid = pid }));
	free_slot->seq = f->info.n;
	free_slot->cost = 0;
	free_slot->shift = 0;
	free_slot->cost_owed = 0;
	free_slot->last_ts = 0;
	free_slot->last_tl = 0;
	f->sum.threads++;
	/* a thread's process never changes: its first event names it */
	note_pid(f, pid);
	return f->last = free_slot;
}

static inline struct thread_state *thread_of(struct rt_frames *f,
					     uint32_t tid, uint32_t pid)
{
	/* slots are reused, never freed: a used one with @tid is the one */
	if (f->last && f->last->used && f->last->tid == tid)
		return f->last;
	return scan_threads(f, tid, pid);
}

static struct thread_state *live_thread(struct rt_frames *f, uint32_t tid)
{
	vec_for_each(&f->threads, pt)
		if ((*pt)->used && (*pt)->tid == tid)
			return *pt;
	return NULL;
}

/* The name the log gives the thread now; threads are named before their
 * first traced call and again when they end. */
static void refresh_name(struct rt_frames *f, struct thread_state *t)
{
	struct rt_thread_info *ti = &f->info.v[t->seq - 1];

	t->named = true;
	if (!f->reader)
		return;
	ti->name = rt_evlog_thread_name(f->reader, t->tid);
	ti->flags = rt_evlog_thread_flags(f->reader, t->tid);
}

/* ---- frames -------------------------------------------------------------- */

/* Costs no stop or event can have: a log that says so is damaged (or
 * its program wrote them), and they are left out, so that no sum of them
 * overflows. */
#define COST_MAX_NS 1000000000ULL
#define INLINE_COST_MAX_NS 1000000ULL

/* Adds what the @n stops up to event time @ts cost the thread.  Their
 * intervals are unknown when n > 1 (stops without events, such as a jump
 * that was not taken): they are taken as evenly spread.  With @at_stop,
 * the event's time stamp was taken during the last of them: what that
 * stop costs after the stamp is owed, and settled at the next event. */
static void account_stops(struct rt_frames *f, struct thread_state *t,
			  uint64_t ts, unsigned n, bool at_stop)
{
	uint64_t interval, curve, pre, cost, after;
	int64_t c;

	if (!n || f->opts.raw_times)
		return;
	interval = t->last_ts && ts > t->last_ts ? ts - t->last_ts : UINT64_MAX;
	/* nearly always one stop: a 64-bit division costs more than the
	 * rest of the event */
	if (n > 1 && interval != UINT64_MAX)
		interval /= n;
	curve = MIN(rt_stop_cost_split(&f->cost_fn, interval, &pre),
		    COST_MAX_NS);
	pre = MIN(pre, curve);
	c = (int64_t)curve + t->shift;
	cost = (uint64_t)MAX(c, 0);
	t->cost += n * cost;
	if (!at_stop || pre >= curve)
		return;
	/* a shift of the thread's cost splits as the curve does */
	after = cost == curve ? curve - pre
			      : (uint64_t)((double)cost * (double)(curve - pre) /
					   (double)curve);
	t->cost -= after;
	t->cost_owed = after;
}

/* The stop cost measured in place shifts the whole curve for the thread:
 * what changes between start-up and now is the scheduling of the two
 * sides, which adds to every stop alike. */
static void on_calib(struct rt_frames *f, struct thread_state *t,
		     const struct rt_event *ev)
{
	if (f->opts.raw_times || f->opts.stop_cost_ns >= 0 ||
	    ev->value > COST_MAX_NS)
		return;
	t->shift = (int64_t)ev->value -
		   (int64_t)MIN(f->cost_fn.y[0], COST_MAX_NS);
}

/* What an event recorded in the process costs it: taken out of the times
 * at each such event, as a stop's cost is at each stop. */
static void on_inline_calib(struct rt_frames *f, struct thread_state *t,
			    const struct rt_event *ev)
{
	if (f->opts.raw_times || ev->value > INLINE_COST_MAX_NS)
		return;
	t->inline_cost = ev->value;
	f->sum.inline_cost_ns = MAX(f->sum.inline_cost_ns, ev->value);
}

/* Compensated timeline position of raw time @ts on thread @t. */
static uint64_t timeline(struct rt_frames *f, struct thread_state *t,
			 uint64_t ts)
{
	uint64_t rel = ts > f->origin ? ts - f->origin : 0;
	uint64_t pos = rel > t->cost ? rel - t->cost : 0;

	/* the cost is a median: never let a thread's clock run backwards */
	if (pos < t->last_tl)
		pos = t->last_tl;
	t->last_tl = pos;
	return pos;
}

static void fill_call(struct thread_state *t, const struct frame *fr,
		      struct rt_call *c)
{
	*c = (struct rt_call){
		.func = fr->func, .tid = t->tid, .pid = t->pid, .thread = t->seq,
		.depth = t->stack.n - 1, .flags = fr->flags, .captured = (uint32_t)fr->value,
		.value = fr->value, .arg = fr->arg,
		.outermost = fr->outermost, .stack = t->ids.v,
	};
}

static bool pop(struct rt_frames *f, struct thread_state *t, uint64_t ts,
		uint32_t flags, uint64_t ret);

static void push(struct rt_frames *f, struct thread_state *t,
		 const struct rt_event *ev, bool chained)
{
	if (t->stack.n && (t->stack.n >= RT_ANALYSIS_DEPTH_MAX ||
			    f->open >= RT_ANALYSIS_OPEN_MAX)) {
		pop(f, t, ev->ts, RT_CALL_INCOMPLETE, 0);
		f->capped++;
		chained = false;
	}
	/* NOLINTBEGIN(clang-analyzer-core.NonNullParamChecker): the
	 * analyzer supposes a stack with frames and no storage, which
	 * vec_reserve() never leaves */
	struct frame *fr = vec_push_zero(&t->stack);
	/* NOLINTEND(clang-analyzer-core.NonNullParamChecker) */
	struct rt_call c;

	fr->func = ev->func;
	fr->value = ev->value;
	fr->sp = ev->sp;
	fr->start = ev->ts;
	fr->cost_at_start = t->cost;
	fr->chained = chained;
	fr->inlined = ev->flags & RT_EVF_INLINED;
	fr->flags = (chained ? RT_CALL_TAIL : 0) |
		    (ev->flags & RT_EVF_PARTIAL ? RT_CALL_PARTIAL : 0) |
		    (fr->inlined ? RT_CALL_INLINED : 0);
	fr->outermost = activate(f, t, ev->func, &fr->counted);
	vec_push(&t->ids, ev->func);
	f->open++;
	f->sum.calls++;
	f->info.v[t->seq - 1].calls++;
	if (!t->named)
		refresh_name(f, t);
	fr->tl_start = timeline(f, t, ev->ts);
	if (!f->any_enter)
		return;
	fill_call(t, fr, &c);
	c.start = fr->tl_start;
	for (size_t i = 0; i < f->nsinks; i++)
		if (f->sinks[i].enter)
			f->sinks[i].enter(f->sinks[i].ctx, &c);
}

static uint8_t kind_of(const struct rt_frames *f, uint32_t id)
{
	return id < f->kind.n ? f->kind.v[id] : 0;
}

/* Closes the top frame at raw time @ts; returns whether it was chained to
 * the one below (which then ends too). */
static bool pop(struct rt_frames *f, struct thread_state *t, uint64_t ts,
		uint32_t flags, uint64_t ret)
{
	struct frame *fr = vec_last(&t->stack);
	uint64_t raw = ts > fr->start ? ts - fr->start : 0;
	uint64_t c = t->cost - fr->cost_at_start;
	struct rt_call call;
	bool chained = fr->chained;

	fr->flags |= flags;
	fill_call(t, fr, &call);
	call.total = raw > c ? raw - c : 0;
	/* a call's time holds its callees': when the cost taken out was
	 * more than a callee's time (a busy machine makes stops look
	 * dearer), that callee was held at 0, but the whole cost still
	 * came out of this call */
	call.total = MAX(call.total, fr->child_total);
	call.blocked = MIN(fr->blocked, call.total - fr->child_total);
	call.self = call.total - fr->child_total - call.blocked;
	call.taken = raw > call.total ? raw - call.total : 0;
	call.end = timeline(f, t, ts);
	call.ret = ret;
	/* the start the views saw at entry; the clamps of the compensated
	 * clock may make end - start differ slightly from total */
	call.start = MIN(fr->tl_start, call.end);
	if (fr->counted)
		(*active_count(t, fr->func))--;
	f->sum.unwound += !!(fr->flags & RT_CALL_UNWOUND);
	f->sum.incomplete += !!(fr->flags & RT_CALL_INCOMPLETE);
	for (size_t i = 0; i < f->nsinks; i++)
		if (f->sinks[i].leave)
			f->sinks[i].leave(f->sinks[i].ctx, &call);
	t->stack.n--;
	t->ids.n--;
	f->open--;
	/* the allocator's time stays its caller's own (--mem must not change
	 * the other figures) */
	if (t->stack.n && kind_of(f, call.func) != FN_MEM)
		vec_last(&t->stack)->child_total += call.total;
	return chained;
}

/* Closes the top frame and the frames that tail-jumped into it: they end
 * together, for the same reason. */
static void pop_chain(struct rt_frames *f, struct thread_state *t,
		      uint64_t ts, uint32_t flags, uint64_t ret)
{
	while (pop(f, t, ts, flags, ret) && t->stack.n)
		;
}

/* The inlined calls still open above frame @i end, without their exit
 * (a return or a jump out of their caller ran: they were left some other
 * way). */
static void close_inlined_above(struct rt_frames *f, struct thread_state *t,
				long i, uint64_t ts)
{
	while ((long)t->stack.n > i + 1)
		pop(f, t, ts, RT_CALL_APPROX_END, 0);
}

/* Frames below stack pointer @sp are over: something shallower ran. */
static void close_deeper(struct rt_frames *f, struct thread_state *t,
			 uint64_t sp, uint64_t ts)
{
	while (t->stack.n && vec_last(&t->stack)->sp < sp) {
		struct frame *fr = vec_last(&t->stack);

		pop_chain(f, t, ts, fr->tail_pending ? RT_CALL_APPROX_END
						     : RT_CALL_UNWOUND, 0);
	}
}

static void close_all(struct rt_frames *f, struct thread_state *t,
		      uint64_t ts, uint32_t flags)
{
	while (t->stack.n)
		pop(f, t, ts, flags, 0);
}

static uint64_t addr_of(const struct rt_frames *f, uint32_t id)
{
	return id < f->func_addr.n ? f->func_addr.v[id] : 0;
}

static bool is_helper(const struct rt_frames *f, uint64_t addr)
{
	vec_for_each(&f->helpers, h)
		if (*h == addr)
			return true;
	return false;
}

/* A call with no extent, entered and left at once: every sink sees both. */
static void point_call(struct rt_frames *f, struct thread_state *t,
		       const struct rt_call *c)
{
	f->sum.calls++;
	f->info.v[t->seq - 1].calls++;
	if (!t->named)
		refresh_name(f, t);
	for (size_t i = 0; i < f->nsinks; i++) {
		if (f->sinks[i].enter)
			f->sinks[i].enter(f->sinks[i].ctx, c);
		if (f->sinks[i].leave)
			f->sinks[i].leave(f->sinks[i].ctx, c);
	}
}

/* A log of entries only (--count, --coverage): each entry is a call with
 * no time and no known caller. */
static void count_entry(struct rt_frames *f, struct thread_state *t,
			const struct rt_event *ev)
{
	struct rt_call c = {
		.func = ev->func, .tid = t->tid, .pid = t->pid, .thread = t->seq,
		.outermost = true, .stack = &ev->func,
		.captured = (uint32_t)ev->value,
		.start = timeline(f, t, ev->ts),
	};

	c.end = c.start;
	point_call(f, t, &c);
}

/* The entry of a call the compiler inlined: a call of the function, in
 * the frame of the code it was inlined into.  When its instance's exit is
 * probed, it opens a frame there that the exit closes; else it pushes
 * none and has no time. */
static void inlined_entry(struct rt_frames *f, struct thread_state *t,
			  const struct rt_event *ev)
{
	struct rt_call c = {
		.func = ev->func, .tid = t->tid, .pid = t->pid, .thread = t->seq,
		.flags = RT_CALL_INLINED | RT_CALL_UNTIMED, .value = ev->value,
		.outermost = true,
	};

	close_deeper(f, t, ev->sp, ev->ts);
	f->sum.inlined_calls++;
	if ((ev->flags & RT_EVF_TIMED) && !f->opts.count_only) {
		push(f, t, ev, false);
		return;
	}
	c.depth = t->stack.n;
	c.start = c.end = timeline(f, t, ev->ts);
	vec_push(&t->ids, ev->func);
	c.stack = t->ids.v;
	point_call(f, t, &c);
	t->ids.n--;
}

/* The exit of an inlined instance: it ends the open call of that
 * instance (same function, same entry address) in the frame of the code
 * it was inlined into, and the calls nested in it that are still open
 * (their ends were not seen).  Code that skipped the instance may run
 * its exit too: with no such call, nothing ends. */
static void inlined_exit(struct rt_frames *f, struct thread_state *t,
			 const struct rt_event *ev)
{
	size_t i;

	close_deeper(f, t, ev->sp, ev->ts);
	i = t->stack.n;
	while (i-- > 0 && t->stack.v[i].inlined) {
		const struct frame *fr = &t->stack.v[i];

		if (fr->func != ev->func || fr->value != ev->value)
			continue;
		while (t->stack.n > i + 1)
			pop(f, t, ev->ts, RT_CALL_APPROX_END, 0);
		pop(f, t, ev->ts, 0, 0);
		return;
	}
}

/* ---- blocking calls --------------------------------------------------- */

/* The open blocking call of @t ends at raw time @ts: its time, less the
 * stops in it, is the blocked time of the innermost traced call, or of
 * none when no traced call is open (it is in no row's times then). */
static void end_block(struct thread_state *t, uint64_t ts)
{
	uint64_t raw, c;

	if (!t->blk_sp)
		return;
	raw = ts > t->blk_start ? ts - t->blk_start : 0;
	c = t->cost - t->blk_cost;
	if (t->stack.n)
		vec_last(&t->stack)->blocked += raw > c ? raw - c : 0;
	t->blk_sp = 0;
	t->blk_tail = false;
}

/*
 * An event of a blocking call.  Only the outermost one counts (libc's
 * sleep() calls nanosleep(), both probed): an entry deeper than the open
 * one is nested in it.  An entry at the open one's stack pointer after
 * its tail jump goes on with it; one shallower means the open one was
 * left unseen.  A tail jump keeps the call open: it ends with the next
 * event of the thread, or the return of the blocking call it jumped to.
 */
static void on_blocking(struct rt_frames *f, struct thread_state *t,
			const struct rt_event *ev)
{
	switch (ev->kind) {
	case RT_EV_ENTRY:
		close_deeper(f, t, ev->sp, ev->ts);
		if (t->blk_sp && (ev->sp < t->blk_sp ||
				  (ev->sp == t->blk_sp && t->blk_tail)))
			break;
		end_block(t, ev->ts);
		t->blk_sp = ev->sp;
		t->blk_start = ev->ts;
		t->blk_cost = t->cost;
		break;
	case RT_EV_EXIT:
		if (t->blk_sp && ev->sp >= t->blk_sp)
			end_block(t, ev->ts);
		break;
	case RT_EV_TAIL:
		t->blk_tail |= ev->sp == t->blk_sp;
		break;
	default:
		break;
	}
}

static void on_entry(struct rt_frames *f, struct thread_state *t,
		     const struct rt_event *ev)
{
	struct frame *top;
	bool chained = false;

	close_deeper(f, t, ev->sp, ev->ts);
	top = t->stack.n ? vec_last(&t->stack) : NULL;
	/* a timed inlined call shares its stack pointer with the code
	 * around it, which may call at once: no tail jump of its own */
	if (top && top->sp == ev->sp && !top->inlined) {
		/* the tail jump went here, or to a helper function that
		 * jumped on here (had the helper returned, its exit would
		 * have closed the frame before this entry); without a tail
		 * jump, a jump back to its own entry */
		if (top->tail_pending)
			chained = !top->tail_target ||
				  top->tail_target == addr_of(f, ev->func) ||
				  is_helper(f, top->tail_target);
		else
			chained = top->func == ev->func;
		if (chained)
			top->tail_pending = false;
		else
			pop_chain(f, t, ev->ts, top->tail_pending ?
							RT_CALL_APPROX_END :
							RT_CALL_UNWOUND, 0);
	}
	push(f, t, ev, chained);
}

/* Topmost frame with stack pointer @sp, or -1.  Timed inlined calls are
 * not frames of their own: a return or a jump out is their caller's. */
static long find_frame(const struct thread_state *t, uint64_t sp)
{
	for (long i = (long)t->stack.n - 1; i >= 0; i--) {
		if (t->stack.v[i].sp == sp && !t->stack.v[i].inlined)
			return i;
		if (t->stack.v[i].sp > sp)
			break;
	}
	return -1;
}

static void on_exit_ev(struct rt_frames *f, struct thread_state *t,
		    const struct rt_event *ev)
{
	long i;

	close_deeper(f, t, ev->sp, ev->ts);
	if (ev->flags & RT_EVF_HELPER) {
		/* an untraced function returned: it ends the frame that
		 * tail-jumped into it, and nothing else */
		i = find_frame(t, ev->sp);
		if (i >= 0 && t->stack.v[i].tail_pending) {
			close_inlined_above(f, t, i, ev->ts);
			pop_chain(f, t, ev->ts, 0, ev->value);
		}
		return;
	}
	i = find_frame(t, ev->sp);
	if (i < 0) {
		f->sum.unmatched_exits++;
		return;
	}
	close_inlined_above(f, t, i, ev->ts);
	pop_chain(f, t, ev->ts, 0, ev->value);
}

static void on_tail(struct rt_frames *f, struct thread_state *t,
		    const struct rt_event *ev)
{
	struct frame *top;
	long i;

	close_deeper(f, t, ev->sp, ev->ts);
	i = find_frame(t, ev->sp);
	if (i < 0) {
		f->sum.unmatched_exits++;
		return;
	}
	close_inlined_above(f, t, i, ev->ts);
	top = vec_last(&t->stack);
	top->tail_pending = true;
	top->tail_target = ev->value;
}

/* The thread ended.  Frames below the stack pointer it had then were left
 * by unwinding (a panic that std caught at the thread's start); the others
 * were still running (exit, or death by a signal). */
static void thread_over(struct rt_frames *f, struct thread_state *t,
			uint64_t ts, uint64_t sp)
{
	end_block(t, ts);
	if (sp)
		close_deeper(f, t, sp, ts);
	close_all(f, t, ts, RT_CALL_INCOMPLETE);
	refresh_name(f, t);
	t->used = false;
	vec_free(&t->stack);
	vec_free(&t->ids);
}

/* A new thread: a new life, even if its id served before. */
static void start_thread(struct rt_frames *f, const struct rt_event *ev)
{
	struct thread_state *t = live_thread(f, ev->tid);
	struct thread_state *creator;

	if (t)
		thread_over(f, t, ev->ts, 0);
	creator = ev->value ? live_thread(f, ev->value) : NULL;
	t = thread_of(f, ev->tid, ev->pid);
	f->info.v[t->seq - 1].creator = creator ? creator->seq : 0;
}

/* A probe event recorded at a stop: the function's breakpoint stopped
 * the program (the report names the functions that did).  The table is
 * indexed by the event's id, which a damaged log can make anything: only
 * ids of the log's own functions count. */
static void count_stop(struct rt_frames *f, const struct rt_event *ev)
{
	if (((ev->flags & RT_EVF_INLINE) && !(ev->flags & RT_EVF_RESUMED)) ||
	    !ev->nstops ||
	    ev->func == RT_FUNC_NONE ||
	    (ev->kind != RT_EV_ENTRY && ev->kind != RT_EV_EXIT &&
	     ev->kind != RT_EV_TAIL) ||
	    (f->reader && !rt_evlog_func(f->reader, ev->func)))
		return;
	while (f->func_stops.n <= ev->func)
		vec_push(&f->func_stops, 0);
	f->func_stops.v[ev->func]++;
	f->sum.stop_events++;
}

void rt_frames_feed(struct rt_frames *f, const struct rt_event *ev)
{
	struct thread_state *t;

	if (f->opts.only_pid && ev->pid != f->opts.only_pid)
		return;
	if (ev->kind == RT_EV_THREAD_START)
		start_thread(f, ev);
	t = thread_of(f, ev->tid, ev->pid);
	if (!f->have_ts) {
		f->sum.first_ts = ev->ts;
		f->have_ts = true;
	}
	f->sum.last_ts = MAX(f->sum.last_ts, ev->ts);
	f->sum.events++;
	f->sum.stops += ev->nstops;
	/* a delay is timed from the stop before it, after-part included:
	 * what that stop still owes is in the delay */
	if (ev->kind != RT_EV_DELAY && ev->kind != RT_EV_CALIB) {
		t->cost += t->cost_owed;
		t->cost_owed = 0;
	}
	account_stops(f, t, ev->ts, ev->nstops, !(ev->flags & RT_EVF_INLINE));
	count_stop(f, ev);
	if ((ev->flags & RT_EVF_INLINE) && !f->opts.raw_times)
		t->cost += t->inline_cost;
	t->last_ts = ev->ts;
	if (unlikely(kind_of(f, ev->func) == FN_BLOCKING) &&
	    ev->func != RT_FUNC_NONE) {
		if (!f->opts.count_only)
			on_blocking(f, t, ev);
		return;
	}
	/* anything else the thread does ends its blocking call */
	if (unlikely(t->blk_sp) && ev->kind != RT_EV_DELAY &&
	    ev->kind != RT_EV_CALIB && ev->kind != RT_EV_ARG)
		end_block(t, ev->ts);
	switch (ev->kind) {
	case RT_EV_ENTRY:
		if (ev->flags & RT_EVF_INLINED)
			inlined_entry(f, t, ev);
		else if (f->opts.count_only)
			count_entry(f, t, ev);
		else
			on_entry(f, t, ev);
		break;
	case RT_EV_EXIT:
		if (ev->flags & RT_EVF_INLINED)
			inlined_exit(f, t, ev);
		else
			on_exit_ev(f, t, ev);
		break;
	case RT_EV_TAIL:
		on_tail(f, t, ev);
		break;
	case RT_EV_THREAD_END:
		thread_over(f, t, ev->ts, ev->sp);
		break;
	case RT_EV_EXEC:
		close_all(f, t, ev->ts, RT_CALL_INCOMPLETE);
		break;
	case RT_EV_CALIB:
		if (ev->flags & RT_EVF_INLINE)
			on_inline_calib(f, t, ev);
		else
			on_calib(f, t, ev);
		break;
	case RT_EV_ARG:
		if (t->stack.n)
			vec_last(&t->stack)->arg = ev->value;
		break;
	case RT_EV_DELAY:
		if (!f->opts.raw_times)
			t->cost += ev->value;
		break;
	default:
		break;
	}
}

struct rt_frames *rt_frames_new(const struct rt_analysis_opts *opts,
				uint64_t stop_cost_ns, uint64_t origin_ns,
				const struct rt_sink *sinks, size_t nsinks)
{
	struct rt_frames *f = xcalloc(1, sizeof(*f));
	struct rt_stop_cost one = { .n = 1 };

	if (opts)
		f->opts = *opts;
	else
		f->opts.stop_cost_ns = -1;
	one.cost_ns[0] = f->opts.stop_cost_ns >= 0 ?
				 (uint64_t)f->opts.stop_cost_ns :
				 stop_cost_ns;
	rt_stop_cost_fn_init(&f->cost_fn, &one);
	f->origin = origin_ns;
	f->sinks = sinks;
	f->nsinks = nsinks;
	for (size_t i = 0; i < nsinks; i++)
		f->any_enter |= sinks[i].enter != NULL;
	return f;
}

void rt_frames_set_reader(struct rt_frames *f, struct rt_evlog_reader *r)
{
	f->reader = r;
}

void rt_analysis_summary_release(struct rt_analysis_summary *sum)
{
	zfree(&sum->thread_info);
	zfree(&sum->func_stops);
	sum->nfunc_stops = 0;
}

void rt_frames_set_curve(struct rt_frames *f, const struct rt_stop_cost *c)
{
	struct rt_stop_cost hand = { .n = 1, .has_pre = true };

	if (f->opts.stop_cost_ns < 0 && c->n) {
		rt_stop_cost_fn_init(&f->cost_fn, c);
	} else if (c->n && c->has_pre && c->cost_ns[0]) {
		/* a cost given by hand: split as the measured one was */
		hand.cost_ns[0] = f->cost_fn.y[0];
		hand.pre_ns[0] = (uint64_t)((double)hand.cost_ns[0] *
					    (double)c->pre_ns[0] /
					    (double)c->cost_ns[0]);
		rt_stop_cost_fn_init(&f->cost_fn, &hand);
	}
}

/* Tells the machine where function @id starts (to pair tail jumps). */
void rt_frames_func_addr(struct rt_frames *f, uint32_t id, uint64_t addr)
{
	while (f->func_addr.n <= id)
		vec_push(&f->func_addr, 0);
	f->func_addr.v[id] = addr;
}

static void set_kind(struct rt_frames *f, uint32_t id, uint8_t kind)
{
	while (f->kind.n <= id)
		vec_push(&f->kind, 0);
	f->kind.v[id] = kind;
}

void rt_frames_func_mem(struct rt_frames *f, uint32_t id)
{
	set_kind(f, id, FN_MEM);
}

void rt_frames_func_blocking(struct rt_frames *f, uint32_t id)
{
	set_kind(f, id, FN_BLOCKING);
}

void rt_frames_helper(struct rt_frames *f, uint64_t addr)
{
	vec_push(&f->helpers, addr);
}

/* Says once per log (a view may read it twice) how many frames the caps
 * closed. */
static void warn_capped(const struct rt_frames *f)
{
	static const struct rt_evlog_reader *warned;
	static bool said;

	if (!f->capped || (said && warned == f->reader))
		return;
	said = true;
	warned = f->reader;
	pr_warn("%" PRIu64 " call%s closed early as incomplete: the events "
		"opened more than %u calls at once in a thread, or %u in all "
		"(a damaged log, or a program that wrote events of its own)",
		f->capped, rt_s(f->capped), RT_ANALYSIS_DEPTH_MAX,
		RT_ANALYSIS_OPEN_MAX);
}

void rt_frames_finish(struct rt_frames *f, uint64_t ts,
		      struct rt_analysis_summary *sum)
{
	vec_for_each(&f->threads, pt)
		if ((*pt)->used)
			thread_over(f, *pt, ts, 0);
	warn_capped(f);
	if (sum) {
		*sum = f->sum;
		sum->stop_cost_ns = f->opts.raw_times ? 0 : f->cost_fn.y[0];
		sum->thread_info = xmalloc((f->info.n + 1) *
					   sizeof(*sum->thread_info));
		/* a log cut before its first event has no threads, and
		 * memcpy() from NULL is undefined even for 0 bytes */
		if (f->info.n)
			memcpy(sum->thread_info, f->info.v,
			       f->info.n * sizeof(*sum->thread_info));
		sum->func_stops = xcalloc(f->func_stops.n + 1,
					  sizeof(*sum->func_stops));
		sum->nfunc_stops = f->func_stops.n;
		if (f->func_stops.n)
			memcpy(sum->func_stops, f->func_stops.v,
			       f->func_stops.n * sizeof(*sum->func_stops));
	}
}

void rt_frames_free(struct rt_frames *f)
{
	if (!f)
		return;
	vec_for_each(&f->threads, pt) {
		vec_free(&(*pt)->stack);
		vec_free(&(*pt)->ids);
		vec_for_each(&(*pt)->active, chunk)
			free(*chunk);
		vec_free(&(*pt)->active);
		free(*pt);
	}
	vec_free(&f->threads);
	vec_free(&f->func_addr);
	vec_free(&f->helpers);
	vec_free(&f->kind);
	vec_free(&f->pids);
	vec_free(&f->info);
	vec_free(&f->func_stops);
	free(f);
}

/* ---- a pass over a log ------------------------------------------------- */

static void learn_funcs(struct rt_frames *f, struct rt_evlog_reader *r,
			size_t *known)
{
	size_t n = rt_evlog_nfuncs(r);

	for (; *known < n; (*known)++) {
		const struct rt_log_func *fn = rt_evlog_func(r, *known);

		if (fn)
			rt_frames_func_addr(f, fn->id, fn->addr);
		if (fn && (fn->flags & RT_FUNC_HELPER))
			rt_frames_helper(f, fn->addr);
		if (fn && (fn->flags & (RT_FUNC_MEM_ALLOC | RT_FUNC_MEM_REALLOC |
					RT_FUNC_MEM_FREE)))
			rt_frames_func_mem(f, fn->id);
		if (fn && (fn->flags & RT_FUNC_BLOCKING))
			rt_frames_func_blocking(f, fn->id);
	}
}

/* Whether @ev enters a function the log's table does not hold.  Only a
 * damaged log has one; its id would reach every sink as a call, and the
 * sinks index their tables by it, so the call is left out here, where
 * calls are made. */
static bool unknown_entry(const struct rt_evlog_reader *r,
			  const struct rt_event *ev)
{
	return ev->kind == RT_EV_ENTRY && !rt_evlog_func(r, ev->func);
}

/* Says once per log (a view may read it twice: the HTML page, --mem) how
 * many calls were left out. */
static void warn_unknown(const struct rt_evlog_reader *r, uint64_t n)
{
	static const struct rt_evlog_reader *warned;

	if (!n || warned == r)
		return;
	warned = r;
	pr_warn("%" PRIu64 " call%s of a function the log's table does not "
		"hold (a damaged log) left out", n, rt_s(n));
}

struct rt_analysis_pass {
	struct rt_evlog_reader *r;
	struct rt_frames *f;
	struct rt_winstart *ws;	/* a flight recorder's window start */
	size_t known;		/* functions of the table told to @f */
	uint64_t last, unknown;
	int err;
};

struct rt_analysis_pass *rt_analysis_pass_new(struct rt_evlog_reader *r,
					      const struct rt_analysis_opts *opts,
					      const struct rt_sink *sinks,
					      size_t nsinks)
{
	const struct rt_log_info *info = rt_evlog_info(r);
	struct rt_analysis_opts o = { .stop_cost_ns = -1 };
	struct rt_analysis_pass *p = xcalloc(1, sizeof(*p));

	if (opts)
		o = *opts;
	if (info->flags & (RT_LOG_COUNT_ONLY | RT_LOG_COVERAGE))
		o.count_only = true;
	p->r = r;
	p->ws = rt_winstart_scan(r);
	p->f = rt_frames_new(&o, info->stop_cost_ns, info->start_ns, sinks,
			     nsinks);
	rt_frames_set_curve(p->f, &info->cost);
	rt_frames_set_reader(p->f, r);
	return p;
}

int rt_analysis_pass_run(struct rt_analysis_pass *p)
{
	struct rt_event ev;
	int err;

	if (p->err)
		return p->err;
	while ((err = rt_evlog_next(p->r, &ev)) > 0) {
		if (ev.func != RT_FUNC_NONE && ev.func >= p->known)
			learn_funcs(p->f, p->r, &p->known);
		if (unlikely(unknown_entry(p->r, &ev))) {
			p->unknown++;
			continue;
		}
		rt_winstart_feed(p->ws, p->f, &ev);
		rt_frames_feed(p->f, &ev);
		p->last = MAX(p->last, ev.ts);
	}
	p->err = err < 0 ? err : 0;
	return p->err;
}

int rt_analysis_pass_finish(struct rt_analysis_pass *p,
			    const struct rt_log_end *end,
			    struct rt_analysis_summary *sum)
{
	int err = p->err;

	rt_frames_finish(p->f, end ? MAX(end->end_ns, p->last) : p->last,
			 sum);
	rt_frames_free(p->f);
	/* the calls made up at a window's start are no events */
	if (sum)
		sum->events -= rt_winstart_fed(p->ws);
	rt_winstart_free(p->ws);
	if (sum)
		sum->unknown_funcs = p->unknown;
	warn_unknown(p->r, p->unknown);
	free(p);
	return err;
}

int rt_analyse(struct rt_evlog_reader *r, const struct rt_analysis_opts *opts,
	       const struct rt_sink *sinks, size_t nsinks,
	       struct rt_analysis_summary *sum)
{
	struct rt_analysis_pass *p;
	int err = rt_evlog_rewind(r);

	if (err)
		return err;
	p = rt_analysis_pass_new(r, opts, sinks, nsinks);
	rt_analysis_pass_run(p);
	return rt_analysis_pass_finish(p, rt_evlog_end(r), sum);
}
