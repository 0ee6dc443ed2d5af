// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A script's probe actions (cfg.on_hit): called at a hit, they may hold
 * the thread until the script resumes it, or say never to be called again
 * for a function (until the next resume).  Their time is the thread's
 * lost time, like a log write.
 */
#include <stdlib.h>
#include <string.h>

#include "rtrace/log.h"
#include "rtrace/probes.h"
#include "rtrace/tasks.h"
#include "rtrace/util.h"

#include "tracer-int.h"

int rt_action_on_hit(struct rt_tracer *tr, struct rt_thread *th,
		     const struct rt_plan *plan, const struct rt_probe *pr,
		     uint64_t ts, uint64_t *spent)
{
	const struct rt_plan_func *pf;
	uint64_t t0 = now_ns();
	int v;

	if (pr->role != RT_ROLE_TRACED || (pr->kinds & RT_PROBE_HELPER) ||
	    tr->holding ||
	    (pr->func < tr->actions.nnever && tr->actions.never[pr->func]))
		return RT_HIT_GO;
	pf = rt_plan_func(plan, pr->func - rt_plan_func(plan, 0)->id);
	if (pf->helper)
		return RT_HIT_GO;
	v = tr->cfg.on_hit(tr->cfg.hit_ctx, &(struct rt_hit){
		.pid = th->proc->pid, .tid = th->tid, .func = pr->func,
		.name = pf->fn->name, .raw = pf->fn->raw,
		.entry = pr->kinds & RT_PROBE_ENTRY,
		.exit = pr->kinds & RT_PROBE_EXIT, .site = pr->addr,
		.regs = &th->regs, .ts = ts, .tr = tr });
	*spent += now_ns() - t0;
	if (v == RT_HIT_NEVER) {
		if (pr->func >= tr->actions.nnever) {
			uint32_t n = pr->func + 256;

			tr->actions.never = xrealloc(tr->actions.never, n);
			memset(tr->actions.never + tr->actions.nnever, 0,
			       n - tr->actions.nnever);
			tr->actions.nnever = n;
		}
		tr->actions.never[pr->func] = 1;
	}
	return v;
}

struct decision rt_action_hold(struct rt_tracer *tr, struct rt_thread *th)
{
	tr->actions.held = th->tid;
	tr->actions.held_since = now_ns();
	return (struct decision){ .how = RESUME_HOLD, .setregs = true };
}

struct rt_thread *rt_action_release(struct rt_tracer *tr)
{
	struct rt_thread *th = tr->actions.held ?
		rt_tasks_thread(tr->tasks, tr->actions.held) : NULL;
	uint64_t ts = now_ns();

	tr->actions.held = 0;
	if (tr->actions.never)
		memset(tr->actions.never, 0, tr->actions.nnever);
	if (!th)
		return NULL;
	/* stamped when the wait began, as the delays of a hit are: the
	 * analysis keeps a thread's clock from running backwards, so a
	 * delay stamped at its end would not be taken out */
	rt_emit(tr, th, RT_EV_DELAY, RT_FUNC_NONE, 0,
		ts - tr->actions.held_since, tr->actions.held_since);
	return th;
}
