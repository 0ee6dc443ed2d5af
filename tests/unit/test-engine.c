// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The engines' seam (engine.h) without a tracee: which engine a session
 * gets, that both tables are complete, what the jump engine patches, and
 * that its operations leave alone a process in which nothing was patched
 * (no event area), so that such a process is traced exactly as with the
 * trap engine.  The tracer's private state is needed for a tracer with a
 * made-up process and thread in it.
 */
#include <stddef.h>
#include <stdlib.h>

#include "rtrace/engine.h"
#include "rtrace/probes.h"
#include "rtrace/tasks.h"
#include "rtrace/tracer.h"
#include "unittest.h"

#include "../../src/tracer/tracer-int.h"

/* No process has this pid: nothing here may reach a real one. */
#define NO_PID 0x3ffffff0

static bool complete(const struct rt_engine_ops *e)
{
	return e->name && e->start && e->plan_kinds && e->bind && e->arm &&
	       e->doorbell &&
	       e->drain && e->drain_all && e->signal && e->thread_new &&
	       e->fork && e->resume_at && e->leave && e->unmap && e->end;
}

TEST_CASE(choice)
{
	struct rt_tracer_config cfg = { 0 };

	TEST_TRUE(rt_engine_choose(&cfg) == &rt_engine_trap);
	cfg.plan.jumps = true;
	TEST_TRUE(rt_engine_choose(&cfg) == &rt_engine_jump);
	/* what else is asked for changes what is patched, not the engine */
	cfg.plan.stack_depth = 8;
	cfg.plan.coverage = true;
	TEST_TRUE(rt_engine_choose(&cfg) == &rt_engine_jump);
}

TEST_CASE(tables_complete)
{
	TEST_TRUE(complete(&rt_engine_trap));
	TEST_TRUE(complete(&rt_engine_jump));
	TEST_STREQ(rt_engine_trap.name, "trap");
	TEST_STREQ(rt_engine_jump.name, "jump");
}

static unsigned kinds_of(struct rt_tracer_config cfg)
{
	struct rt_tracer *tr = rt_tracer_alloc(&cfg, NO_PID);
	unsigned k = tr->engine->plan_kinds(tr);

	rt_tracer_free(tr);
	return k;
}

TEST_CASE(plan_kinds)
{
	const unsigned jumps = RT_PROBE_ENTRY | RT_PROBE_EXIT | RT_PROBE_TAIL;

	TEST_EQ(kinds_of((struct rt_tracer_config){ 0 }), 0);
	TEST_EQ(kinds_of((struct rt_tracer_config){ .plan.jumps = true }),
		jumps);
	/* each hit must stop: a stack is unwound, a probe taken out */
	TEST_EQ(kinds_of((struct rt_tracer_config){
		.plan = { .jumps = true, .stack_depth = 16 } }),
		0);
	TEST_EQ(kinds_of((struct rt_tracer_config){
		.plan = { .jumps = true, .coverage = true } }),
		0);
}

/* Every operation on a process with no event area: nothing stops, moves,
 * or is recorded, whichever engine runs. */
static void unpatched(const struct rt_engine_ops *e, bool *rt_test_failed__)
{
	struct rt_tracer_config cfg = { .plan.jumps = e == &rt_engine_jump };
	struct rt_tracer *tr = rt_tracer_alloc(&cfg, NO_PID);
	struct rt_process *p = rt_tasks_add_process(tr->tasks, NO_PID, 1);
	struct rt_thread *th = rt_tasks_add_thread(tr->tasks, NO_PID, p);
	struct rt_thread *c = rt_tasks_add_thread(tr->tasks, NO_PID + 1, p);
	struct rt_probe pr = { .resume_tramp = 0x1000, .addr = 0x2000 };
	bool setregs = false;

	TEST_TRUE(tr->engine == e);
	/* no area: a library's sites keep their recorder, none jumps */
	TEST_TRUE(!e->arm(p, NULL, false, NO_PID, NULL));
	TEST_TRUE(!e->doorbell(tr, th, 0x2000, &setregs));
	TEST_TRUE(!setregs);
	e->drain(tr, th, false);
	e->drain(tr, th, true);
	e->drain_all(tr);
	TEST_TRUE(!e->signal(tr, th));
	e->thread_new(tr, c, th);
	TEST_EQ(c->creator, 0);
	TEST_EQ(c->creator_tpr, 0);
	TEST_EQ(e->fork(tr, th, c, false), 0);
	TEST_EQ(e->fork(tr, th, c, true), 0);
	TEST_TRUE(p->ia == NULL && c->proc->ia == NULL);
	TEST_EQ(e->resume_at(tr, th, NULL, &pr), 0);
	e->end(tr, p);
	TEST_EQ(tr->st.inline_events + tr->st.inline_dropped, 0);
	TEST_EQ(tr->st.calls, 0);
	rt_tracer_free(tr);
}

TEST_CASE(trap_unpatched)
{
	unpatched(&rt_engine_trap, rt_test_failed__);
}

TEST_CASE(jump_unpatched)
{
	unpatched(&rt_engine_jump, rt_test_failed__);
}
