// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trap engine (engine.h): every site is a breakpoint and every hit a
 * stop, which the tracer's loop records itself.  Nothing is kept in the
 * program, so there is nothing to drain, hand over or take out.
 */
#include "rtrace/engine.h"

#include "tracer-int.h"

static void start(void)
{
}

static unsigned plan_kinds(const struct rt_tracer *tr)
{
	(void)tr;
	return 0;
}

static void bind(struct rt_process *p, struct rt_plan *plan, bool exe)
{
	(void)p, (void)plan, (void)exe;
}

/* Every site a breakpoint: nothing is patched with a jump. */
static bool arm(struct rt_process *p, const struct rt_plan *plan, bool exe,
		pid_t tid, int *deferred_sig)
{
	(void)p, (void)plan, (void)exe, (void)tid, (void)deferred_sig;
	return false;
}

static bool doorbell(struct rt_tracer *tr, struct rt_thread *th,
		     rt_raddr site, bool *setregs)
{
	(void)tr, (void)th, (void)site, (void)setregs;
	return false;
}

static void drain(struct rt_tracer *tr, struct rt_thread *th, bool release)
{
	(void)tr, (void)th, (void)release;
}

static void drain_all(struct rt_tracer *tr)
{
	(void)tr;
}

static bool on_signal(struct rt_tracer *tr, struct rt_thread *th)
{
	(void)tr, (void)th;
	return false;
}

static void thread_new(struct rt_tracer *tr, struct rt_thread *th,
		       struct rt_thread *creator)
{
	(void)tr, (void)th, (void)creator;
}

static int on_fork(struct rt_tracer *tr, struct rt_thread *parent,
		   struct rt_thread *child, bool vfork)
{
	(void)tr, (void)parent, (void)child, (void)vfork;
	return 0;
}

static rt_raddr resume_at(const struct rt_tracer *tr,
			  const struct rt_thread *th,
			  const struct rt_plan *plan,
			  const struct rt_probe *pr)
{
	(void)tr, (void)th, (void)plan, (void)pr;
	return 0;
}

/* No breakpoint in the scratch area is the engine's: stepping out meets
 * none to handle. */
static bool no_bell(struct rt_tracer *tr, struct rt_thread *th)
{
	(void)tr, (void)th;
	return false;
}

static void leave(struct rt_tracer *tr, struct rt_thread *th, rt_raddr lo,
		  rt_raddr hi, bool record)
{
	(void)record;
	rt_tracer_leave_scratch(tr, th, lo, hi, no_bell);
}

static void unmap(struct rt_tracer *tr, struct rt_process *p,
		  struct rt_thread *th)
{
	(void)tr, (void)p, (void)th;
}

static void end(struct rt_tracer *tr, struct rt_process *p)
{
	(void)tr, (void)p;
}

const struct rt_engine_ops rt_engine_trap = {
	.name = "trap",
	.start = start,
	.plan_kinds = plan_kinds,
	.bind = bind,
	.arm = arm,
	.doorbell = doorbell,
	.drain = drain,
	.drain_all = drain_all,
	.signal = on_signal,
	.thread_new = thread_new,
	.fork = on_fork,
	.resume_at = resume_at,
	.leave = leave,
	.unmap = unmap,
	.end = end,
};
