// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The jump engine (engine.h): patched sites jump to trampolines that
 * record each hit into the thread's ring in the process's event area
 * (jumparea.c).  rtrace stops a thread only when its recorder rings a bell
 * (its first event, a full ring) and drains the rings into the log before
 * anything it says of a thread, and while the threads run.  With no event
 * area (nothing patched in the process) every operation does nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "tracer"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/arch-jump.h"
#include "rtrace/arm.h"
#include "rtrace/engine.h"
#include "rtrace/imageplan.h"
#include "rtrace/jumparea.h"
#include "rtrace/log.h"
#include "rtrace/remote.h"
#include "rtrace/seccomp.h"
#include "rtrace/stopsig.h"
#include "rtrace/tasks.h"
#include "rtrace/tracee.h"
#include "rtrace/util.h"

#include "tracer-int.h"

/* The event area, for an executable with patched sites: when it cannot
 * be made, the process keeps breakpoints everywhere. */
static void start_area(struct rt_process *p, const struct rt_plan *plan,
			 pid_t tid, int *deferred_sig)
{
	int err;

	if (p->ia || !rt_plan_npatched(plan))
		return;
	err = rt_inline_new(p->pid, tid, p->mem, rt_plan_recorder(plan),
			    rt_plan_func(plan, 0)->id, deferred_sig, &p->ia);
	if (err == -EPERM && rt_seccomp_mode(tid) > 0)
		pr_warn("process %d runs under a seccomp filter that could "
			"kill it for the system calls of an event area (or "
			"that rtrace cannot read without CAP_SYS_ADMIN): "
			"breakpoints everywhere", p->pid);
	else if (err == -E2BIG)
		pr_warn("process %d: its address space or its file size is "
			"limited (ulimit -v, ulimit -f) with too little room "
			"left for an event area: breakpoints everywhere",
			p->pid);
	else if (err)
		pr_warn("process %d: no jump probes (event area: %s); "
			"breakpoints everywhere", p->pid, strerror(-err));
}


/* A library's jumps record through the executable's event area. */
static void bind(struct rt_process *p, struct rt_plan *plan, bool exe)
{
	if (!exe && p->ia)
		rt_plan_use_recorder(plan, rt_inline_recorder(p->ia));
}

static bool arm(struct rt_process *p, const struct rt_plan *plan, bool exe,
		pid_t tid, int *deferred_sig)
{
	if (exe)
		start_area(p, plan, tid, deferred_sig);
	return p->ia && (exe || rt_plan_recorder(plan) ==
					rt_inline_recorder(p->ia));
}

/* Whether @func is one the patched sites of @p record: an id
 * read from memory the program can write is checked before the log
 * takes it. */
static bool func_known(const struct rt_process *p, uint32_t func)
{
	if (p->img && p->img->plan && rt_plan_func_by_id(p->img->plan, func))
		return true;
	/* the libraries' blocking calls record there too */
	vec_for_each(&p->libs, lib)
		if ((*lib)->plan && rt_plan_func_by_id((*lib)->plan, func))
			return true;
	return false;
}

/* The ids of the executable's functions, [*lo, *lo + return value): the
 * most events' ids, checked without a call. */
static uint32_t exe_ids(const struct rt_process *p, uint32_t *lo)
{
	const struct rt_plan *plan = p->img ? p->img->plan : NULL;
	size_t n = plan ? rt_plan_nfuncs(plan) : 0;

	*lo = n ? rt_plan_func(plan, 0)->id : 0;
	return (uint32_t)n;
}

static void emit_drained(void *ctx, pid_t tid, struct rt_event *ev,
			 size_t n)
{
	struct rt_tracer *tr = ctx;
	struct rt_thread *th = rt_tasks_thread(tr->tasks, tid);
	uint32_t lo, nids;
	size_t kept = 0;

	if (!th || !th->proc)
		return;
	nids = exe_ids(th->proc, &lo);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].func - lo >= nids &&
		    !func_known(th->proc, ev[i].func)) {
			tr->st.inline_dropped++;
			continue;
		}
		rt_fault("hit");  /* a hit, recorded in the program */
		/* a resume trampoline's was counted at its stop */
		tr->st.inline_events += !(ev[i].flags & RT_EVF_RESUMED);
		if (kept != i)
			ev[kept] = ev[i];
		kept++;
	}
	rt_emit_events(tr, th, ev, kept);
}

struct claim_ctx {
	struct rt_tracer *tr;
	const struct rt_process *p;
};

/* A slot a thread claimed is its own if the thread is one of the
 * process's (its events' cost was said when rtrace first saw it). */
static bool claim_owner(void *ctx, pid_t tid)
{
	const struct claim_ctx *c = ctx;
	const struct rt_thread *th = rt_tasks_thread(c->tr->tasks, tid);

	return th && th->proc == c->p;
}

static void adopt_claims(struct rt_tracer *tr, struct rt_process *p)
{
	struct claim_ctx c = { tr, p };

	rt_inline_adopt(p->ia, claim_owner, &c);
}

static void drain_thread(struct rt_tracer *tr, struct rt_thread *th,
			 bool release)
{
	struct rt_process *p = th->proc;
	int slot;

	if (!p || !p->ia)
		return;
	slot = rt_inline_slot_of(p->ia, th->tid);
	/* a thread with no slot known may have claimed one since: at a
	 * stop of one that has, the table is not walked */
	if (slot < 0) {
		adopt_claims(tr, p);
		slot = rt_inline_slot_of(p->ia, th->tid);
	}
	/* a slot lent by a vfork parent goes back to it, never free */
	if (p->ia_borrowed && slot == p->lent_slot)
		release = false;
	if (slot >= 0)
		rt_inline_drain(p->ia, slot, release, emit_drained, tr);
}

/* The events @p did not record since the log was last told, into it:
 * at most once a second, unless @now (the area's end). */
static void log_losses(struct rt_tracer *tr, struct rt_process *p, bool now)
{
	struct rt_log_lost_fn *fns;
	uint64_t events;
	uint32_t reasons;
	size_t n = rt_inline_losses(p->ia, now, &events, &reasons, &fns), k = 0;

	for (size_t i = 0; i < n; i++)
		if (func_known(p, fns[i].id))
			fns[k++] = fns[i];
	if (events && p->record)
		rt_evlog_write_lost(tr->cfg.log, (uint32_t)p->pid, reasons,
				    events, fns, k);
	free(fns);
}

static void drain_process(struct rt_tracer *tr, struct rt_process *p)
{
	if (!p || !p->ia)
		return;
	adopt_claims(tr, p);
	rt_inline_drain_all(p->ia, emit_drained, tr);
	log_losses(tr, p, false);
}

static void drain_all(struct rt_tracer *tr)
{
	rt_tasks_for_each_process(tr->tasks, p)
		drain_process(tr, p);
}

/* A vfork child's events in its parent's area, its own from the fork
 * on, go to the log; the slot it borrowed goes back to the thread that
 * vforked, one it took for itself is freed. */
static void return_area(struct rt_tracer *tr, struct rt_process *p)
{
	int slot = rt_inline_slot_of(p->ia, p->pid);

	if (slot >= 0)
		rt_inline_drain(p->ia, slot, slot != p->lent_slot,
				emit_drained, tr);
	rt_inline_give_back(p->ia, p->lent_slot, p->pid, p->lender);
	p->ia = NULL;
	p->ia_borrowed = false;
}

/* A vfork child runs the parent's code with the parent thread's thread
 * pointer, so its events land in that thread's ring: from now on they
 * are the child's (the parent thread waits until the child execs or
 * ends). */
static void borrow_area(struct rt_tracer *tr, struct rt_thread *parent,
			struct rt_process *c)
{
	struct rt_process *p = parent->proc;

	if (!p->ia)
		return;
	drain_thread(tr, parent, false);
	c->ia = p->ia;
	c->ia_borrowed = true;
	c->lender = parent->tid;
	c->lent_slot = rt_inline_lend(p->ia, parent->tid, c->pid);
}

/* The area's last events to the log, its losses to the summary, and the
 * area forgotten (the process's mapping goes with its image). */
static void end(struct rt_tracer *tr, struct rt_process *p)
{
	bool damaged;

	if (!p->ia)
		return;
	if (p->ia_borrowed) {
		return_area(tr, p);
		return;
	}
	/* a vfork child still borrowing it (its parent was killed) keeps
	 * running in memory that outlives this record of it */
	rt_tasks_for_each_process(tr->tasks, q)
		if (q != p && q->ia == p->ia)
			q->ia = NULL;
	drain_process(tr, p);
	log_losses(tr, p, true);
	tr->st.inline_dropped += rt_inline_dropped(p->ia, &damaged);
	tr->st.inline_unrecorded += rt_inline_unrecorded(p->ia);
	tr->st.inline_damaged |= damaged;
	rt_inline_free(p->ia);
	p->ia = NULL;
}

/* Where the thread was when it called the recorder, as far as unwinding
 * needs: at the entry of the function the event is of (an exit or tail
 * jump has the same frame rule: the return address on top).  NULL when
 * the function is not known. */
static const struct rt_regs *bell_site(const struct rt_thread *th,
				       struct rt_regs *at, const char **hit)
{
	const struct rt_plan *plan = th->proc->img ? th->proc->img->plan
						   : NULL;
	const struct rt_plan_func *pf;
	struct rt_rec_state st;

	rt_arch_rec_state(&th->regs, &st);
	pf = plan ? rt_plan_func_by_id(plan, (uint32_t)st.word) : NULL;
	*hit = pf ? pf->fn->name : NULL;
	/* a function that exists only inlined has no address to unwind
	 * from */
	if (!pf || pf->inlined_only)
		return NULL;
	*at = th->regs;
	rt_arch_set_ip(at, pf->fn->addr + rt_plan_bias(plan));
	rt_arch_set_sp(at, rt_inline_site_sp(st.word, st.sp));
	return at;
}

/* The recorder stopped: at its first event a thread gets a ring (when the
 * table is full, rtrace records for it, a stop per event); a full ring
 * was emptied when the thread stopped.  Whether th->regs changed. */
static bool on_bell(struct rt_tracer *tr, struct rt_thread *th,
		    enum rt_inline_bell bell)
{
	struct rt_inline_area *ia = th->proc->ia;
	struct rt_rec_state st;
	struct rt_regs at_site;
	const char *hit;
	bool first;

	if (bell == RT_BELL_FULL)
		return false;
	if (unlikely(!th->comm[0])) {
		const struct rt_regs *at = bell_site(th, &at_site, &hit);

		rt_name_thread(tr, th, at, hit);
	}
	rt_arch_rec_state(&th->regs, &st);
	/* a miss on a slot it holds: the slot is not there for the program,
	 * and registering it again would only loop; its events are
	 * recorded here, one stop each, as for a full table */
	if (rt_inline_view_lost(ia, th->tid, st.tp, &first)) {
		if (first)
			pr_warn("process %d: the program mapped other memory "
				"over rtrace's event area: its calls are "
				"recorded at a stop each from now on",
				th->proc->pid);
		rt_inline_finish(ia, th->tid, &th->regs, true, emit_drained,
				 tr);
		return true;
	}
	/* a thread whose thread pointer changed looks for a new slot */
	drain_thread(tr, th, true);
	if (rt_inline_register(ia, th->tid, st.tp) >= 0) {
		/* what its events cost it, for the analysis to take out */
		rt_emit_flags(tr, th, RT_EV_CALIB, RT_EVF_INLINE, RT_FUNC_NONE,
			      0, rt_inline_event_cost(), now_ns());
		return false;
	}
	rt_inline_finish(ia, th->tid, &th->regs, true, emit_drained, tr);
	return true;
}

static bool doorbell(struct rt_tracer *tr, struct rt_thread *th,
		     rt_raddr site, bool *setregs)
{
	enum rt_inline_bell bell;

	if (!th->proc || !th->proc->ia)
		return false;
	bell = rt_inline_bell(th->proc->ia, site);
	if (bell == RT_BELL_NONE)
		return false;
	*setregs = on_bell(tr, th, bell);
	return true;
}

/* A bell met while stepping out of the scratch area: handled like one at
 * a stop; whether th->regs changed. */
static bool step_bell(struct rt_tracer *tr, struct rt_thread *th)
{
	struct rt_inline_area *ia = th->proc ? th->proc->ia : NULL;
	enum rt_inline_bell bell;

	if (!ia)
		return false;
	bell = rt_inline_bell(ia, rt_arch_trap_site(&th->regs));
	if (bell == RT_BELL_NONE)
		return false;
	drain_thread(tr, th, false);
	return on_bell(tr, th, bell);
}

static void drop_event(void *ctx, pid_t tid, struct rt_event *ev, size_t n)
{
	(void)ctx;
	(void)tid;
	(void)ev;
	(void)n;
}

/* The same, recording nothing: the event is dropped, the thread moved
 * past the recorder's write. */
static bool drop_bell(struct rt_tracer *tr, struct rt_thread *th)
{
	struct rt_inline_area *ia = th->proc ? th->proc->ia : NULL;

	(void)tr;
	if (!ia || rt_inline_bell(ia, rt_arch_trap_site(&th->regs)) ==
			   RT_BELL_NONE)
		return false;
	return rt_inline_finish(ia, th->tid, &th->regs, true, drop_event,
				NULL);
}

static void leave(struct rt_tracer *tr, struct rt_thread *th, rt_raddr lo,
		  rt_raddr hi, bool record)
{
	rt_tracer_leave_scratch(tr, th, lo, hi,
				record ? step_bell : drop_bell);
}

static void unmap(struct rt_tracer *tr, struct rt_process *p,
		  struct rt_thread *th)
{
	rt_raddr base;
	size_t size;

	if (!p->ia)
		return;
	base = rt_inline_base(p->ia);
	size = rt_inline_size(p->ia);
	end(tr, p);
	rt_remote_munmap(th->tid, p->mem, base, size, &th->pending_sig);
}

/* A signal is about to run a handler: a thread stopped while writing an
 * event finishes it first, or the handler's events would tear it. */
static bool on_signal(struct rt_tracer *tr, struct rt_thread *th)
{
	struct rt_inline_area *ia = th->proc ? th->proc->ia : NULL;

	if (ia && !rt_tracee_getregs(th->tid, &th->regs))
		return rt_inline_finish(ia, th->tid, &th->regs, false,
					emit_drained, tr);
	return false;
}

/* A thread made by clone without a TLS of its own (no CLONE_SETTLS)
 * starts with its creator's thread pointer, by which the recorder finds a
 * thread's ring: both would write into one ring, and the creator's name
 * would be on the new thread's calls.  Seen at the new thread's first
 * stop, where its registers are known; both are then recorded at stops. */
static void check_shared_tp(struct rt_tracer *tr, struct rt_thread *c)
{
	struct rt_process *p = c->proc;
	uint64_t tp;

	if (!p || !p->ia || !p->mem || !c->creator_tpr)
		return;
	if (rt_tracee_getregs(c->tid, &c->regs) ||
	    rt_arch_thread_pointer(&c->regs) != c->creator_tpr ||
	    rt_mem_read(p->mem, c->creator_tpr, &tp, sizeof(tp)))
		return;
	pr_warn("process %d: threads %d and %d share a thread pointer (a "
		"clone without a TLS of its own); their calls are recorded "
		"at stops", p->pid, c->creator, c->tid);
	rt_inline_share(p->ia, tp, emit_drained, tr);
}

/* Attached, a stopped thread gets its ring now rather than at its first
 * event, and a thread with none (the table was full, its thread pointer
 * changed, rtrace was killed) claims one itself: a thread stopped at one
 * of rtrace's breakpoints would be harmed if rtrace were killed.  Not
 * when rtrace launched the program: there, a thread's first event stops
 * it instead, and names it with its stack. */
static void give_ring(struct rt_tracer *tr, struct rt_thread *th)
{
	struct rt_process *p = th->proc;
	bool claims;
	uint64_t tp;

	if (tr->cfg.exitkill || !p || !p->ia || !p->mem ||
	    rt_inline_slot_of(p->ia, th->tid) >= 0)
		return;
	claims = rt_inline_claims(p->ia, th->tid);
	if (rt_tracee_getregs(th->tid, &th->regs) ||
	    rt_mem_read(p->mem, rt_arch_thread_pointer(&th->regs), &tp,
			sizeof(tp)) || !tp)
		tp = 0;
	/* what its events cost it, for the analysis to take out: said now
	 * also for a ring it may claim, whose events come later */
	if ((tp && rt_inline_register(p->ia, th->tid, tp) >= 0) || claims)
		rt_emit_flags(tr, th, RT_EV_CALIB, RT_EVF_INLINE, RT_FUNC_NONE,
			      0, rt_inline_event_cost(), now_ns());
}

static void thread_new(struct rt_tracer *tr, struct rt_thread *th,
		       struct rt_thread *creator)
{
	struct rt_process *p = th->proc;

	if (!p || !p->ia)
		return;
	if (creator) {
		if (rt_tracee_getregs(creator->tid, &creator->regs))
			return;
		th->creator_tpr = rt_arch_thread_pointer(&creator->regs);
		th->creator = creator->tid;
	}
	if (th->initial_stop_seen) {
		check_shared_tp(tr, th);
		give_ring(tr, th);
	}
}

/*
 * A fork child that made itself non-dumpable before forking: rtrace, when
 * unprivileged, may not open its memory, yet it still has its parent's
 * jumps into the trampolines, which would record into its parent's rings
 * and ring the parent's bells.  It gets its breakpoints back (or, with
 * --no-follow, its original code) through itself: rt_remote_mem_proxy(),
 * the data passing through the event area both share.  Done now, while
 * the parent, stopped at the fork, keeps that area alive.
 */
static int reach_child(struct rt_tracer *tr, struct rt_thread *parent,
		       struct rt_thread *c)
{
	struct rt_process *p = parent->proc, *cp = c->proc;
	rt_raddr remote;
	uint8_t *local;
	size_t len;
	int err;

	if (cp->mem || !p->ia || !cp->img)
		return 0;
	err = rt_tracer_take_first_stop(tr, c);
	if (err)
		return err;
	rt_inline_bounce(p->ia, &local, &remote, &len);
	err = rt_remote_mem_proxy(c->tid, rt_inline_recorder(p->ia) +
					  rt_arch_recorder()->syscall,
				  local, remote, len, &c->pending_sig,
				  &cp->mem);
	if (!err)
		err = cp->record ? rt_arm_traps_only(cp)
				 : rt_disarm_process(cp);
	rt_mem_close(cp->mem);
	cp->mem = NULL;
	if (!err && !cp->record) {  /* no probe left in it */
		rt_image_put(cp->img);
		cp->img = NULL;
	}
	if (err)
		pr_warn("process %d: cannot reach its memory (it is not "
			"dumpable): %s; its calls may be counted as its "
			"parent's", cp->pid, strerror(-err));
	else
		pr_dbg("process %d: not dumpable, re-armed through itself",
		       cp->pid);
	return 0;
}

/* A forked copy writing into its parent's rings would tear them: it gets
 * breakpoints.  A vfork child shares the parent's memory and its rings:
 * it is lent the slot of the thread that vforked. */
static int on_fork(struct rt_tracer *tr, struct rt_thread *parent,
		   struct rt_thread *child, bool vfork)
{
	struct rt_process *c = child->proc;

	if (!parent->proc->ia)
		return 0;
	if (vfork) {
		borrow_area(tr, parent, c);
		return 0;
	}
	if (!c->mem)
		return reach_child(tr, parent, child);
	rt_arm_traps_only(c);
	return 0;
}

/* Where a thread stopped at entry probe @pr resumes to record the entry
 * itself, or 0 when rtrace records it now.  Its time stamp comes
 * once the thread runs again: a stop's cost varies (a thread resumed on
 * a busy machine may wait milliseconds for a CPU), and what precedes
 * the entry is no part of the call, whatever it cost.  Not where the
 * stop must see the entry: call stacks, a script's probe actions. */
static rt_raddr resume_at(const struct rt_tracer *tr,
			  const struct rt_thread *th,
			  const struct rt_plan *plan,
			  const struct rt_probe *pr)
{
	if (!pr->resume_tramp || !th->proc->ia || plan != th->proc->img->plan ||
	    tr->cfg.plan.stack_depth || tr->cfg.on_hit)
		return 0;
	return pr->resume_tramp;
}

/* A thread whose ring is full waits for the tracer's loop, which the
 * area's waiter interrupts with this signal. */
static void start(void)
{
	rt_inline_wake_by(rt_stopsig_wake_sig());
}

/* The rule is the image plan's, so that -l shows what a run patches. */
static unsigned plan_kinds(const struct rt_tracer *tr)
{
	return rt_imageplan_jump_kinds(&tr->cfg.plan);
}

const struct rt_engine_ops rt_engine_jump = {
	.name = "jump",
	.start = start,
	.plan_kinds = plan_kinds,
	.bind = bind,
	.arm = arm,
	.doorbell = doorbell,
	.drain = drain_thread,
	.drain_all = drain_all,
	.signal = on_signal,
	.thread_new = thread_new,
	.fork = on_fork,
	.resume_at = resume_at,
	.leave = leave,
	.unmap = unmap,
	.end = end,
};
