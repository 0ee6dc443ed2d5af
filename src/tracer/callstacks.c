// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Call stacks (--stack): the stack of a thread at an entry probe, unwound,
 * kept once per distinct stack, and written to the log the first time.
 */
#include "rtrace/arch.h"
#include "rtrace/log.h"
#include "rtrace/stacks.h"
#include "rtrace/tasks.h"
#include "rtrace/unwind.h"
#include "rtrace/util.h"

#include "tracer-int.h"

#define STACK_MAX 256

/* Symbolises a stack the first time it is seen and writes it to the log. */
static void log_stack(struct rt_tracer *tr, struct rt_process *p,
		      uint32_t id, const rt_raddr *pcs, size_t n)
{
	struct rt_log_frame frames[STACK_MAX];

	for (size_t i = 0; i < n; i++)
		rt_unwind_symbolize(p->unwinder, pcs[i], i > 0, &frames[i]);
	rt_evlog_write_stack(tr->cfg.log, id, frames, n);
	for (size_t i = 0; i < n; i++) {
		free((char *)frames[i].name);
		free((char *)frames[i].file);
	}
}

/* The id of the stack of a thread stopped on an entry probe, unwound from
 * the probe's own address (the unwind rules of the byte after it would be
 * wrong), or 0 when it cannot be unwound. */
uint32_t rt_callstack_capture(struct rt_tracer *tr, struct rt_thread *th,
			      uint64_t *spent)
{
	uint64_t t0 = now_ns();
	struct rt_process *p = th->proc;
	struct rt_regs at_site = th->regs;
	rt_raddr pcs[STACK_MAX];
	bool fresh;
	uint32_t id;
	size_t n;

	if (!p->unwinder)
		p->unwinder = rt_unwinder_new(p->pid, p->mem);
	if (!tr->callstacks.seen)
		tr->callstacks.seen = rt_stacks_new();
	rt_arch_set_ip(&at_site, rt_arch_trap_site(&th->regs));
	n = rt_unwind(p->unwinder, th->tid, &at_site, pcs, NULL,
		      MIN(tr->cfg.plan.stack_depth, STACK_MAX));
	if (!n) {
		*spent = now_ns() - t0;
		return 0;
	}
	id = rt_stacks_intern(tr->callstacks.seen, p->pid, pcs, n, &fresh);
	if (fresh)
		log_stack(tr, p, id, pcs, n);
	*spent = now_ns() - t0;
	return id;
}
