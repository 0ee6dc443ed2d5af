// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Measuring the stop cost in place.
 *
 * What a stop costs the program depends on where the scheduler put the
 * tracer and the thread, which start-up calibration cannot know.  So now
 * and then, after a hit, the thread is sent through a row of breakpoints
 * in the scratch area before it resumes: those stops follow each other
 * with nothing in between, so the time they take, divided by their number,
 * is the cost of one stop for this thread, here and now.  The thread loses
 * that time too, and a delay event says so.
 */
#include <stdlib.h>
#include <string.h>

#include "rtrace/probes.h"
#include "rtrace/tasks.h"
#include "rtrace/util.h"

#include "tracer-int.h"

#define CALIB_FIRST 16
#define CALIB_MAX_EVERY 1024

/* The row ends by returning to @resume, which the thread's stack holds:
 * a thread in it when rtrace dies goes on there, through the trap guard
 * (trapguard.h), which lets it past each breakpoint of the row. */
static rt_raddr begin_calib(struct rt_thread *th, const struct rt_plan *plan,
			    rt_raddr resume, uint64_t ts)
{
	rt_raddr slot = rt_arch_calib_enter(&th->regs);

	if (!th->proc->mem ||
	    rt_mem_write(th->proc->mem, slot, &resume, sizeof(resume))) {
		rt_arch_calib_leave(&th->regs);
		return resume;
	}
	th->calib.plan = plan;
	th->calib.every = th->calib.every ?
				  MIN(th->calib.every * 2, CALIB_MAX_EVERY) :
				  CALIB_FIRST;
	th->calib.due = th->calib.every;
	th->calib.left = RT_PLAN_CALIB_STOPS;
	th->calib.resume = resume;
	th->calib.start = th->calib.prev = ts;
	return rt_plan_calib_addr(plan);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The cost of one stop: the mean of the gaps between the measuring
 * stops, less the longest and the shortest.  One gap stretched by a
 * preemption, or by a CPU waking from a deep idle state, would move the
 * plain mean by its whole length, and the analysis would take that much
 * out of every stop until the next measurement (a 100 µs call came out
 * 10 µs long); a median would miss the cost the slower stops really
 * have. */
static uint64_t calib_trimmed_mean(struct rt_thread *th)
{
	uint32_t g[RT_PLAN_CALIB_STOPS];
	uint64_t sum = 0;

	memcpy(g, th->calib.gaps, sizeof(g));
	qsort(g, RT_PLAN_CALIB_STOPS, sizeof(g[0]), cmp_u32);
	for (size_t i = 1; i + 1 < RT_PLAN_CALIB_STOPS; i++)
		sum += g[i];
	return sum / (RT_PLAN_CALIB_STOPS - 2);
}

bool rt_calib_in_chain(const struct rt_thread *th, rt_raddr site)
{
	rt_raddr first = rt_plan_calib_addr(th->calib.plan);
	size_t tlen;

	rt_arch_trap_bytes(&tlen);
	return site >= first && site < first + RT_PLAN_CALIB_STOPS * tlen;
}

/* Something else happened in the middle of a measurement (a signal, and
 * the probes its handler hit): the figure would be wrong.  The measuring
 * stops then count as ordinary ones. */
void rt_calib_spoil(struct rt_thread *th)
{
	if (!th->calib.left || th->calib.spoiled)
		return;
	th->calib.spoiled = true;
	th->stops += th->calib.done;
}

struct decision rt_calib_stop(struct rt_tracer *tr, struct rt_thread *th)
{
	uint64_t ts = now_ns(), spent;

	_Static_assert(RT_PLAN_CALIB_STOPS == ARRAY_SIZE(th->calib.gaps),
		       "one gap per measuring stop");
	if (!th->calib.spoiled) {
		th->stops--;  /* its cost goes into the delay event */
		th->calib.gaps[th->calib.done++] =
			(uint32_t)MIN(ts - th->calib.prev, UINT32_MAX);
	}
	th->calib.prev = ts;
	if (--th->calib.left == 0) {
		spent = ts - th->calib.start;
		if (!th->calib.spoiled) {
			rt_emit(tr, th, RT_EV_CALIB, RT_FUNC_NONE, 0,
				calib_trimmed_mean(th), ts);
			rt_emit(tr, th, RT_EV_DELAY, RT_FUNC_NONE, 0, spent, ts);
		}
		th->calib.spoiled = false;
		th->calib.done = 0;
		rt_arch_calib_leave(&th->regs);
		rt_arch_set_ip(&th->regs, th->calib.resume);
	}
	/* written back even when unchanged: the same work as a real hit */
	return (struct decision){ .how = RESUME_CONT, .setregs = true };
}

rt_raddr rt_calib_after_hit(struct rt_tracer *tr, struct rt_thread *th,
			    const struct rt_plan *plan, rt_raddr ip,
			    uint64_t ts, bool goes_on)
{
	/* with counts only there are no times to measure for; a thread
	 * held for a script would spoil the measurement.  Nor while a chain
	 * is pending: a signal handler runs hits in the middle of one, and
	 * the interrupted chain must still know where it resumes */
	if (th->calib.due > 1 || !th->proc->record || tr->cfg.plan.count_only) {
		th->calib.due--;
		return ip;
	}
	if (goes_on && !th->calib.left)
		return begin_calib(th, plan, ip, ts);
	return ip;
}
