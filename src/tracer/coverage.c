// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Coverage (--coverage): each probe taken out at its first hit.
 *
 * The original bytes go back and the thread re-runs the instruction in
 * place.  Another thread may have trapped on the same breakpoint before it
 * went: it finds the probe already taken out and just goes back to it.
 * Taken-out state is per process: a forked child has its own copy of the
 * code, and of the state at the fork.
 */
#define PR_FMT "tracer"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/arch.h"
#include "rtrace/log.h"
#include "rtrace/probes.h"
#include "rtrace/tasks.h"
#include "rtrace/tracee.h"
#include "rtrace/util.h"

#include "tracer-int.h"

struct decision rt_cover(struct rt_tracer *tr, struct rt_thread *th,
			 const struct rt_probe *pr, uint64_t ts)
{
	struct rt_process *p = th->proc;
	const struct rt_plan *plan = p->img->plan;
	size_t i = rt_plan_probe_index(plan, pr), tlen;

	rt_arch_trap_bytes(&tlen);
	if (!p->removed)
		p->removed = xcalloc(rt_plan_nprobes(plan), 1);
	if (!p->removed[i]) {
		p->removed[i] = 1;
		if (rt_mem_write(p->mem, pr->addr, pr->orig, tlen))
			pr_warn("process %d: cannot take out the probe at "
				"%" PRIxRADDR, p->pid, pr->addr);
		if (pr->kinds & RT_PROBE_ENTRY)
			rt_emit(tr, th, RT_EV_ENTRY, pr->func,
				rt_arch_sp(&th->regs), 0, ts);
		if (pr->kinds & RT_PROBE_INLINED)
			rt_emit_inlined(tr, th, plan, pr,
					rt_arch_sp(&th->regs), ts);
	}
	rt_arch_set_ip(&th->regs, pr->addr);
	return (struct decision){ .how = RESUME_CONT, .setregs = true };
}
