// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ptrace controller: a state machine over processes and threads.
 *
 * rt_tracer_step() waits for one stop, decodes it once, looks up the
 * thread, and hands it to the handler for that kind of stop.  Handlers
 * return a resume decision; resume() is the only place that continues,
 * listens or detaches a thread.  The probe-hit path (on_trap) costs one
 * register read and one register write on top of the wait and the
 * continue, and appends events to the log buffer.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PR_FMT "tracer"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/arm.h"
#include "rtrace/guardian.h"
#include "rtrace/engine.h"
#include "rtrace/inlined.h"
#include "rtrace/log.h"
#include "rtrace/remote.h"
#include "rtrace/sigtrap.h"
#include "rtrace/tasks.h"
#include "rtrace/tracee.h"
#include "rtrace/trapguard.h"
#include "rtrace/tracer.h"
#include "rtrace/unwind.h"
#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

#include "tracer-int.h"

static const struct decision D_CONT = { .how = RESUME_CONT };

/* ---- events ------------------------------------------------------------ */

/*
 * Keeps th->open_calls, the calls of the thread the log has entered and
 * not yet left, near enough to tell whether a stop fell inside one: a
 * tail jump ends the caller's call (the callee's entry follows), an
 * inlined call counts only when its end is probed, and a panic's frames
 * stay counted (then a stop's cost is measured when it need not be).
 */
static void count_open_calls(struct rt_thread *th, uint8_t kind,
			     uint8_t flags)
{
	bool paired = !(flags & RT_EVF_INLINED) || (flags & RT_EVF_TIMED);

	if (kind == RT_EV_ENTRY && paired)
		th->open_calls++;
	else if ((kind == RT_EV_EXIT || kind == RT_EV_TAIL) &&
		 th->open_calls)
		th->open_calls--;
	else if (kind == RT_EV_EXEC)
		th->open_calls = 0;
}

/* Makes @ev, its time and fields of its own set, thread @th's next event
 * in the log. */
static inline void as_next(struct rt_tracer *tr, struct rt_thread *th,
			   struct rt_event *ev)
{
	/* two clocks stamp a thread's events, rtrace's at a stop and the
	 * program's counter converted at a drain: where they cross or meet
	 * by the conversion's error, the later event is put 1 ns after the
	 * earlier, so that each thread's events are in strict time order in
	 * the log (real ones are tens of ns apart at the least) */
	if (th->last_ts && ev->ts <= th->last_ts)
		ev->ts = th->last_ts + 1;
	ev->tid = th->tid;
	ev->pid = th->proc ? th->proc->pid : 0;
	ev->nstops = th->stops > UINT16_MAX ? UINT16_MAX : th->stops;
	/* a stop changes the time of a call only when one is open */
	if (th->open_calls)
		tr->st.stops_timed += ev->nstops;
	count_open_calls(th, ev->kind, ev->flags);
	th->stops = 0;
	th->last_ts = ev->ts;
}

void rt_emit_flags(struct rt_tracer *tr, struct rt_thread *th,
		   uint8_t kind, uint8_t flags, uint32_t func, uint64_t sp,
		       uint64_t value, uint64_t ts)
{
	struct rt_event ev = {
		.ts = ts, .sp = sp, .value = value,
		.func = func, .kind = kind, .flags = flags,
	};

	rt_emit_events(tr, th, &ev, 1);
}

void rt_emit_events(struct rt_tracer *tr, struct rt_thread *th,
		    struct rt_event *ev, size_t n)
{
	uint64_t calls = 0;

	for (size_t i = 0; i < n; i++) {
		as_next(tr, th, &ev[i]);
		calls += ev[i].kind == RT_EV_ENTRY;
	}
	if (th->proc && th->proc->record) {
		rt_evlog_append_batch(tr->cfg.log, ev, n);
		tr->st.calls += calls;
	}
}

void rt_emit(struct rt_tracer *tr, struct rt_thread *th, uint8_t kind,
	     uint32_t func, uint64_t sp, uint64_t value, uint64_t ts)
{
	rt_emit_flags(tr, th, kind, 0, func, sp, value, ts);
}

/* What a hit on a tail-jump site means once the thread's next ip is
 * known: a jump inside the function (a jump table) is no event. */
static void emit_tail(struct rt_tracer *tr, struct rt_thread *th,
		      const struct rt_probe *pr, rt_raddr ip, bool taken,
		      uint64_t sp, uint64_t ts)
{
	switch (pr->res.kind) {
	case RT_RESUME_JCC:
		if (!taken)
			return;
		break;
	case RT_RESUME_JMP_REG:
		if (ip >= pr->func_lo && ip < pr->func_hi)
			return;
		break;
	case RT_RESUME_SLOT:
		ip = 0;  /* through memory: the target is not known here */
		break;
	}
	rt_emit(tr, th, RT_EV_TAIL, pr->func, sp, ip, ts);
}

/* The inlined calls that end or begin at @pr: an exit or an entry each.
 * They follow the entry of the function whose code they are in, when
 * the site is that entry, and come before its exit otherwise. */
void rt_emit_inlined(struct rt_tracer *tr, struct rt_thread *th,
			 const struct rt_plan *plan, const struct rt_probe *pr,
			 uint64_t sp, uint64_t ts)
{
	size_t n;
	const struct rt_inl_rec *inl = rt_plan_inlined_recs(plan, pr, &n);

	for (size_t i = 0; i < n; i++)
		rt_emit_flags(tr, th, inl[i].kind, inl[i].flags, inl[i].func,
			      sp, inl[i].value, ts);
}

/* One more stop at a breakpoint of the function of @pr, for --stats: the
 * function's name is kept from its first, as its image may go. */
static void count_stop(struct rt_tracer *tr, const struct rt_plan *plan,
		       const struct rt_probe *pr)
{
	const struct rt_plan_func *pf;

	if (pr->func >= tr->stopped.n) {
		size_t n = tr->stopped.n;

		vec_reserve(&tr->stopped, (size_t)pr->func + 1);
		memset(tr->stopped.v + n, 0,
		       (pr->func + 1 - n) * sizeof(*tr->stopped.v));
		tr->stopped.n = pr->func + 1;
	}
	if (!tr->stopped.v[pr->func].stops++) {
		pf = rt_plan_func_by_id(plan, pr->func);
		tr->stopped.v[pr->func].name =
			xstrdup(pf ? pf->fn->name : "(inlined calls)");
	}
}

/* ---- the hot path ---------------------------------------------------- */

const struct rt_probe *rt_tracer_find_probe(const struct rt_process *p,
					    rt_raddr site,
					    const struct rt_plan **plan)
{
	const struct rt_probe *pr;

	if (!p || !p->img)
		return NULL;
	if (p->img->plan && (pr = rt_plan_lookup(p->img->plan, site))) {
		*plan = p->img->plan;
		return pr;
	}
	vec_for_each(&p->libs, lib) {
		if ((*lib)->plan && (pr = rt_plan_lookup((*lib)->plan, site))) {
			*plan = (*lib)->plan;
			return pr;
		}
	}
	return NULL;
}

/* What an entry event carries: an allocator call's size or pointer
 * (allocargs.c), or the captured stack of a traced function. */
static uint64_t entry_value(struct rt_tracer *tr, struct rt_thread *th,
			    const struct rt_probe *pr, uint64_t *spent)
{
	uint64_t v;

	if (rt_allocargs_entry(th, pr, &v))
		return v;
	return tr->cfg.plan.stack_depth ? rt_callstack_capture(tr, th, spent) : 0;
}

static void record_hit(struct rt_tracer *tr, struct rt_thread *th,
		       const struct rt_plan *plan, const struct rt_probe *pr,
		       rt_raddr ip, bool taken, uint64_t ts, uint64_t *spent)
{
	uint64_t sp = rt_arch_sp(&th->regs), old;

	if ((pr->kinds & RT_PROBE_ENTRY) && !(pr->kinds & RT_PROBE_HELPER)) {
		rt_emit(tr, th, RT_EV_ENTRY, pr->func, sp,
			entry_value(tr, th, pr, spent), ts);
		if (rt_allocargs_old_ptr(th, pr, &old))
			rt_emit(tr, th, RT_EV_ARG, pr->func, sp, old, ts);
	}
	if (unlikely(pr->kinds & RT_PROBE_INLINED))
		rt_emit_inlined(tr, th, plan, pr, sp, ts);
	if (pr->kinds & RT_PROBE_EXIT)
		rt_emit_flags(tr, th, RT_EV_EXIT,
			      pr->kinds & RT_PROBE_HELPER ? RT_EVF_HELPER : 0,
			      pr->func, sp, rt_allocargs_exit(th, pr), ts);
	else if ((pr->kinds & RT_PROBE_RET_ARG0) && taken)
		rt_emit_flags(tr, th, RT_EV_EXIT,
			      pr->kinds & RT_PROBE_HELPER ? RT_EVF_HELPER : 0,
			      pr->func, sp, rt_arch_arg(&th->regs, 0), ts);
	else if (pr->kinds & RT_PROBE_TAIL)
		emit_tail(tr, th, pr, ip, taken, sp, ts);
}

/* Puts back what a trap of rtrace's changed of the program's own
 * (sigtrap.h); a signal that came meanwhile is returned.  The time that
 * took, when it took any, is the thread's lost time, like a log write. */
static int repair_sigtrap(struct rt_tracer *tr, struct rt_thread *th)
{
	uint64_t t0;
	int sig;

	if (likely(!rt_sigtrap_touched(th)))
		return 0;
	t0 = now_ns();
	sig = rt_sigtrap_repair(th);
	rt_emit(tr, th, RT_EV_DELAY, RT_FUNC_NONE, 0, now_ns() - t0, t0);
	return sig;
}

/* The program is about to set a signal's action or mask (libc's
 * sigaction() or pthread_sigmask()): what this breakpoint's signal
 * changed is put back by what was set before, which the kernel judged
 * it by; then what the call sets for the trap signals is noted. */
static struct decision on_signal_call(struct rt_tracer *tr,
				      struct rt_thread *th,
				      const struct rt_probe *pr)
{
	int sig = repair_sigtrap(tr, th);
	bool taken;

	rt_sigtrap_call(th, pr->role == RT_ROLE_SIGACTION);
	rt_arch_set_ip(&th->regs,
		       rt_arch_resume_ip(&pr->res, &th->regs, &taken));
	return (struct decision){ .how = RESUME_CONT, .sig = sig,
				  .setregs = true, .kept = true };
}

static struct decision on_trap(struct rt_tracer *tr, struct rt_thread *th,
			       int sig)
{
	const struct rt_plan *plan = NULL;
	const struct rt_probe *pr;
	uint64_t ts, written, spent = 0;
	rt_raddr ip, site, resume;
	bool taken, moved, setregs = false;
	int verdict = RT_HIT_GO;

	if (rt_tracee_getregs(th->tid, &th->regs))
		return (struct decision){ .how = RESUME_GONE };
	/* from here on, the kernel's ip is not th->regs': every way on
	 * sets it */
	moved = rt_arch_trap_resolve(&th->regs, sig);
	site = rt_arch_trap_site(&th->regs);
	if (tr->engine->doorbell(tr, th, site, &setregs))
		return (struct decision){ .how = RESUME_CONT,
					  .setregs = setregs || moved };
	if (unlikely(th->calib.left)) {
		if (rt_calib_in_chain(th, site))
			return rt_calib_stop(tr, th);
		rt_calib_spoil(th);
	}
	pr = rt_tracer_find_probe(th->proc, site, &plan);
	if (!pr) { /* the program's own breakpoint, SIGTRAP or SIGILL */
		if (moved)
			rt_arch_set_ip(&th->regs, site);
		return (struct decision){ .how = RESUME_CONT, .sig = sig };
	}
	if (unlikely(pr->role == RT_ROLE_SIGACTION ||
		     pr->role == RT_ROLE_SIGMASK))
		return on_signal_call(tr, th, pr);
	/* not at the entry of inlined calls alone: libtest's closure of a
	 * test is inlined into the runner's call_once, where the test is not
	 * yet on the stack to tell two tests of one thread name apart */
	if (unlikely(!th->comm[0]) && (pr->kinds & ~RT_PROBE_INLINED)) {
		struct rt_regs at_site = th->regs;

		rt_arch_set_ip(&at_site, site);
		rt_name_thread(tr, th, &at_site, NULL);
	}
	ts = now_ns();
	if (likely(pr->role != RT_ROLE_MODULES)) {  /* rtrace's own hook */
		tr->st.hits++;
		count_stop(tr, plan, pr);
	}
	rt_fault("hit");
	if (unlikely(pr->role == RT_ROLE_MODULES))
		rt_image_scan_libraries(tr, th);
	else if (tr->cfg.plan.coverage && plan == th->proc->img->plan)
		return rt_cover(tr, th, pr, ts);
	written = rt_evlog_write_ns(tr->cfg.log);
	ip = rt_arch_resume_ip(&pr->res, &th->regs, &taken);
	resume = tr->engine->resume_at(tr, th, plan, pr);
	if (resume)
		ip = resume;
	else if (pr->role != RT_ROLE_MODULES)
		record_hit(tr, th, plan, pr, ip, taken, ts, &spent);
	if (unlikely(tr->cfg.on_hit))
		verdict = rt_action_on_hit(tr, th, plan, pr, ts, &spent);
	/* a block went to disk, or a stack was unwound, while the thread
	 * waited: say how long, so the analysis takes it out of the times
	 * like a stop's cost */
	written = rt_evlog_write_ns(tr->cfg.log) - written + spent;
	if (unlikely(written))
		rt_emit(tr, th, RT_EV_DELAY, RT_FUNC_NONE, 0, written, ts);
	/* not at rtrace's own hook, which every probed program now meets
	 * once: nothing is recorded there to measure for, and with the jump
	 * engine it would cost a measuring chain of stops */
	if (likely(pr->role != RT_ROLE_MODULES))
		ip = rt_calib_after_hit(tr, th, plan, ip, ts,
					verdict != RT_HIT_STOP);
	rt_arch_set_ip(&th->regs, ip);
	if (unlikely(verdict == RT_HIT_STOP))
		return rt_action_hold(tr, th);
	return (struct decision){ .how = RESUME_CONT, .setregs = true };
}

/* ---- process lifecycle ------------------------------------------------ */

static struct decision on_exec(struct rt_tracer *tr, struct rt_thread *th)
{
	struct rt_process *p = th->proc;
	unsigned long former;
	int err, sig;

	if (!p)  /* a thread is linked to its process before it can exec */
		return D_CONT;
	/* what the engine kept of the old image goes with it */
	tr->engine->end(tr, p);
	if (!rt_tracee_eventmsg(th->tid, &former) && (pid_t)former != th->tid) {
		struct rt_thread *old = rt_tasks_thread(tr->tasks, former);

		if (old && old != th)
			rt_tasks_remove_thread(tr->tasks, old);
	}
	rt_image_put(p->img);
	p->img = NULL;
	vec_for_each(&p->libs, lib)
		rt_image_put(*lib);
	p->libs.n = 0;
	p->watching = false;
	rt_unwinder_free(p->unwinder);
	p->unwinder = NULL;
	/* a /proc/PID/mem descriptor stays bound to the address space it was
	 * opened on; after exec that space is gone */
	rt_mem_close(p->mem);
	p->mem = NULL;
	rt_guardian_exec(p);
	p->trapguard = 0;  /* the exec took the handler and its mapping */
	p->trapguard_resume = 0;
	if (rt_mem_open(p->pid, &p->mem))
		pr_dbg("process %d: no memory access after exec", p->pid);
	if (p->detach_at_exec || (!tr->cfg.follow && tr->first_exec_done))
		return (struct decision){ .how = RESUME_DETACH };
	/* as the exec left it, before rtrace's first trap in the image */
	rt_sigtrap_note(p, th);
	err = rt_image_build(tr, p);
	if (!err && (p->img->plan || p->libs.n))
		err = rt_remote_finish_syscall(th->tid, &th->pending_sig);
	if (!err)
		err = rt_image_arm(tr, p, th->tid, &th->pending_sig);
	if (!tr->first_exec_done && p->pid == tr->first_pid) {
		tr->first_exec_done = true;
		if (err) {
			tr->setup_failed = true;
			return (struct decision){ .how = RESUME_GONE };
		}
	}
	if (!err && p->img->plan)
		rt_image_log(tr, p);
	if (!err)
		rt_fault("armed");
	rt_emit(tr, th, RT_EV_EXEC, RT_FUNC_NONE, 0, 0, now_ns());
	sig = rt_sigtrap_repair(th);  /* the arming's traps */
	return (struct decision){ .how = RESUME_CONT,
				  .sig = th->pending_sig ? th->pending_sig
							 : sig };
}

static struct rt_process *new_child(struct rt_tracer *tr,
				    struct rt_process *parent, pid_t pid,
				    bool vfork)
{
	struct rt_process *c = rt_tasks_add_process(tr->tasks, pid,
						    parent->pid);

	if (rt_mem_open(pid, &c->mem))
		pr_dbg("process %d: no memory access", pid);
	rt_mem_set_call_site(c->mem, rt_mem_call_site(parent->mem));
	c->img = parent->img ? rt_image_get(parent->img) : NULL;
	memcpy(c->sigtrap, parent->sigtrap, sizeof(c->sigtrap));
	/* the handler and its mapping are the child's too */
	c->trapguard = parent->trapguard;
	c->trapguard_resume = parent->trapguard_resume;
	if (c->trapguard && c->mem)
		rt_guardian_trapguard(c->mem, c->trapguard);
	vec_for_each(&parent->libs, lib)
		vec_push(&c->libs, rt_image_get(*lib));
	/* its copy of the code holds the parent's breakpoints: should
	 * rtrace die, the guardian puts them back there too */
	if (c->img && c->img->plan)
		rt_guardian_armed(c, c->img->plan, false);
	vec_for_each(&c->libs, lib)
		if ((*lib)->plan)
			rt_guardian_armed(c, (*lib)->plan, false);
	if (parent->removed && c->img) {
		size_t n = rt_plan_nprobes(c->img->plan);

		c->removed = xmalloc(n);
		memcpy(c->removed, parent->removed, n);
	}
	c->record = tr->cfg.follow && parent->record;
	c->detach_at_exec = !tr->cfg.follow && vfork;
	tr->st.processes++;
	if (c->record)
		rt_evlog_write_process(tr->cfg.log, pid, parent->pid, "");
	return c;
}

static void on_gone(struct rt_tracer *tr, struct rt_thread *th,
		    const struct rt_wait *w);
static void resume(struct rt_tracer *tr, struct rt_thread *th,
		   const struct decision *d);

/* A fork child of a --no-follow session carries the parent's
 * breakpoints in its copy of the text: take them out and let it go.  One
 * whose memory rtrace cannot reach keeps rtrace, which serves its
 * breakpoints without recording, until it execs (a new image has none)
 * or ends: let go, it would die of the first one. */
static struct decision release_child(struct rt_thread *th)
{
	struct rt_process *p = th->proc;

	if (p->img && !p->mem) {
		pr_dbg("process %d: not dumpable, kept until it execs", p->pid);
		p->detach_at_exec = true;
		return D_CONT;
	}
	if (p->img)
		rt_disarm_process(p);
	return (struct decision){ .how = RESUME_DETACH };
}

/* Whether new thread @th, at its first stop, is a process to let go. */
static bool to_release(const struct rt_tracer *tr, const struct rt_thread *th)
{
	return !th->proc->record && !th->proc->detach_at_exec &&
	       th->tid == th->proc->pid && th->proc->pid != tr->first_pid;
}

/* Waits for the first stop of new thread @c now (the kernel stops every
 * new tracee at once): 0, or -ESRCH when it is already gone. */
int rt_tracer_take_first_stop(struct rt_tracer *tr, struct rt_thread *c)
{
	struct rt_wait w;
	int err;

	if (c->initial_stop_seen)
		return 0;
	do
		err = rt_wait_tid(c->tid, &w);
	while (err == -EINTR);
	if (err)
		return err;
	if (w.kind == RT_STOP_EXITED || w.kind == RT_STOP_KILLED) {
		on_gone(tr, c, &w);
		return -ESRCH;
	}
	c->initial_stop_seen = true;
	return 0;
}

/* A new thread or process whose first stop we may already have seen. */
static struct decision adopt(struct rt_tracer *tr, struct rt_thread *th,
			     pid_t child, bool thread, bool vfork)
{
	struct rt_thread *c = rt_tasks_thread(tr->tasks, child);
	struct rt_process *proc = th->proc;

	/* seized with the others at an attach: known, set up and running */
	if (c && thread && c->state != RT_TS_NEW)
		return D_CONT;
	if (!thread && proc)
		proc = new_child(tr, proc, child, vfork);
	if (!c)
		c = rt_tasks_add_thread(tr->tasks, child, proc);
	else if (!c->proc)
		rt_tasks_link(tr->tasks, c, proc);
	rt_sigtrap_inherit(c, th);
	if (!thread && proc && tr->engine->fork(tr, th, c, vfork) == -ESRCH)
		return D_CONT;  /* gone before its first stop */
	if (thread && proc)
		tr->engine->thread_new(tr, c, th);
	tr->st.threads++;
	rt_emit(tr, c, RT_EV_THREAD_START, RT_FUNC_NONE, 0, th->tid, now_ns());
	if (c->initial_stop_seen && c->state == RT_TS_NEW) {
		if (to_release(tr, c)) {
			struct decision d = release_child(c);

			resume(tr, c, &d);
			return D_CONT;
		}
		return (struct decision){ .how = RESUME_CONT, .also = c };
	}
	return D_CONT;
}

static struct decision on_first_stop(struct rt_tracer *tr,
				     struct rt_thread *th)
{
	th->initial_stop_seen = true;
	if (!th->proc)
		return (struct decision){ .how = RESUME_HOLD };
	tr->engine->thread_new(tr, th, NULL);
	if (to_release(tr, th))
		return release_child(th);
	return D_CONT;
}

static struct decision on_exit_event(struct rt_tracer *tr,
				     struct rt_thread *th)
{
	unsigned long status = 0;
	uint64_t sp = 0;

	rt_tracee_eventmsg(th->tid, &status);
	/* where its stack is now tells the analysis which traced frames a
	 * panic unwound (above it) and which were still running (below) */
	if (rt_tracee_getregs(th->tid, &th->regs) == 0)
		sp = rt_arch_sp(&th->regs);
	rt_name_thread(tr, th, NULL, NULL);
	rt_emit(tr, th, RT_EV_THREAD_END, RT_FUNC_NONE, sp, status, now_ns());
	rt_thread_set_state(th, RT_TS_EXITING);
	return D_CONT;
}

static struct decision on_event(struct rt_tracer *tr, struct rt_thread *th,
				const struct rt_wait *w)
{
	unsigned long msg = 0;

	switch (w->event) {
	case RT_EVENT_CLONE:
	case RT_EVENT_FORK:
	case RT_EVENT_VFORK:
		if (rt_tracee_eventmsg(th->tid, &msg))
			return (struct decision){ .how = RESUME_GONE };
		return adopt(tr, th, (pid_t)msg, w->event == RT_EVENT_CLONE,
			     w->event == RT_EVENT_VFORK);
	case RT_EVENT_EXEC:
		return on_exec(tr, th);
	case RT_EVENT_EXIT:
		return on_exit_event(tr, th);
	case RT_EVENT_STOP:
		if (th->state == RT_TS_NEW)
			return on_first_stop(tr, th);
		return D_CONT;
	default:
		return D_CONT;
	}
}

/* The thread is gone: its last event, and its process's end. */
static void on_gone(struct rt_tracer *tr, struct rt_thread *th,
		    const struct rt_wait *w)
{
	struct rt_process *p = th->proc;

	if (th->state != RT_TS_EXITING)
		rt_emit(tr, th, RT_EV_THREAD_END, RT_FUNC_NONE, 0, w->raw,
		     now_ns());
	if (p && th->tid == p->pid) {
		p->exited = true;
		p->status = w->raw;
		if (p->pid == tr->first_pid) {
			tr->first_exited = true;
			tr->first_status = w->raw;
		}
	}
	rt_thread_set_state(th, RT_TS_GONE);
	rt_tasks_remove_thread(tr->tasks, th);
	if (p && p->nthreads == 0) {
		tr->engine->end(tr, p);
		rt_tasks_remove_process(tr->tasks, p);
	}
}

/* ---- the loop ---------------------------------------------------------- */

/* While detaching, a thread that was to go on stays stopped instead, with
 * its registers written and its signal kept for the detach (but one at
 * its exit event, which is let go to its end). */
static void hold(struct rt_thread *th, const struct decision *d)
{
	if (d->setregs)
		rt_tracee_setregs(th->tid, &th->regs);
	if (d->sig)
		th->pending_sig = d->sig;
	rt_thread_set_state(th, RT_TS_STOPPED);
}

static void resume(struct rt_tracer *tr, struct rt_thread *th,
		   const struct decision *d)
{
	int err = 0;

	if (d->sig > 0 && d->sig < NSIG)
		tr->signal_ns[d->sig] = now_ns();
	/* a thread at its exit event goes on even then: it runs nothing of
	 * the program's any more, and the detach waits for its end */
	if (tr->holding && th->state != RT_TS_EXITING &&
	    (d->how == RESUME_CONT || d->how == RESUME_LISTEN)) {
		if (d->also)
			rt_thread_set_state(d->also, RT_TS_STOPPED);
		hold(th, d);
		return;
	}
	if (d->also) {
		rt_thread_set_state(d->also, RT_TS_RUNNING);
		rt_tracee_cont(d->also->tid, 0);
	}
	switch (d->how) {
	case RESUME_CONT:
		if (d->setregs)
			err = rt_tracee_setregs(th->tid, &th->regs);
		if (unlikely(d->sig == SIGTRAP || d->sig == SIGILL) &&
		    th->proc)
			rt_trapguard_pass(th->proc);
		if (!err)
			err = rt_tracee_cont(th->tid, d->sig);
		if (th->state != RT_TS_EXITING)
			rt_thread_set_state(th, RT_TS_RUNNING);
		break;
	case RESUME_LISTEN:
		rt_tracee_listen(th->tid);
		rt_thread_set_state(th, RT_TS_GROUP_STOP);
		break;
	case RESUME_DETACH:
		rt_tracee_detach(th->tid, d->sig);
		if (th->proc && th->proc->nthreads == 1) {
			struct rt_process *p = th->proc;

			rt_tasks_remove_thread(tr->tasks, th);
			rt_tasks_remove_process(tr->tasks, p);
		} else {
			rt_tasks_remove_thread(tr->tasks, th);
		}
		return;
	case RESUME_HOLD:  /* held for a script: where it goes, now */
		if (d->setregs)
			err = rt_tracee_setregs(th->tid, &th->regs);
		break;
	case RESUME_GONE:
		break;
	}
	/* ESRCH: the thread died meanwhile; waitpid will say so */
	(void)err;
}

static struct rt_thread *thread_for(struct rt_tracer *tr, pid_t tid)
{
	struct rt_thread *th = rt_tasks_thread(tr->tasks, tid);

	/* a child's first stop can arrive before its creator's event */
	if (!th)
		th = rt_tasks_add_thread(tr->tasks, tid, NULL);
	return th;
}

static struct decision dispatch(struct rt_tracer *tr, struct rt_thread *th,
				const struct rt_wait *w)
{
	switch (w->kind) {
	case RT_STOP_TRAP:
		if (th->state == RT_TS_NEW)
			return on_first_stop(tr, th);
		return on_trap(tr, th, w->sig);
	case RT_STOP_SIGNAL:
		if (th->state == RT_TS_NEW)
			return on_first_stop(tr, th);
		rt_calib_spoil(th);
		return (struct decision){
			.how = RESUME_CONT, .sig = w->sig,
			.setregs = tr->engine->signal(tr, th) };
	case RT_STOP_GROUP:
		return (struct decision){ .how = RESUME_LISTEN };
	case RT_STOP_EVENT:
		return on_event(tr, th, w);
	case RT_STOP_SYSCALL:
		return D_CONT;
	case RT_STOP_EXITED:
	case RT_STOP_KILLED:
		break;
	}
	return (struct decision){ .how = RESUME_GONE };
}

/* After a trap of rtrace's own (not one passed on to the program), what
 * the kernel changed of the program's SIGTRAP or SIGILL goes back.  Not in
 * the middle of a measuring chain, where no code of the program runs
 * and the repair's time would be measured as the stops': at its end. */
static void keep_sigtrap(struct rt_tracer *tr, struct rt_thread *th,
			 struct decision *d)
{
	int sig;

	if (d->kept || d->sig == SIGTRAP || d->sig == SIGILL ||
	    (d->how != RESUME_CONT && d->how != RESUME_HOLD) ||
	    (th->calib.left && !th->calib.spoiled))
		return;
	sig = repair_sigtrap(tr, th);
	if (sig && !d->sig)
		d->sig = sig;
}

/* What is recorded reaches the file at least once a second, so that a
 * kill -9 of rtrace (or a power cut) loses at most the last second. */
#define FLUSH_EVERY_NS 1000000000ULL

static void flush_now_and_then(struct rt_tracer *tr)
{
	uint64_t t = now_ns();

	if (t - tr->flushed_at < FLUSH_EVERY_NS)
		return;
	tr->flushed_at = t;
	rt_evlog_flush(tr->cfg.log);
}

enum rt_step_result rt_tracer_step(struct rt_tracer *tr)
{
	struct rt_wait w;
	struct rt_thread *th;
	struct decision d;
	int err = rt_wait_any(&w);

	if (err == -EINTR) {
		/* the timer: what the threads recorded, while they run */
		tr->engine->drain_all(tr);
		flush_now_and_then(tr);
		return RT_STEP_CONTINUE;
	}
	if (err == -ECHILD)
		return RT_STEP_ALL_EXITED;
	if (err) {
		pr_err("waiting for the program failed: %s", strerror(-err));
		return RT_STEP_FAILED;
	}
	tr->st.stops++;
	th = thread_for(tr, w.tid);
	tr->engine->drain(tr, th, w.kind == RT_STOP_EXITED ||
					     w.kind == RT_STOP_KILLED ||
					     (w.kind == RT_STOP_EVENT &&
					      w.event == RT_EVENT_EXIT));
	th->stops++;
	if (w.kind == RT_STOP_EXITED || w.kind == RT_STOP_KILLED) {
		on_gone(tr, th, &w);
		return rt_tasks_nthreads(tr->tasks) ? RT_STEP_CONTINUE
						    : RT_STEP_ALL_EXITED;
	}
	if (th->state != RT_TS_NEW && th->state != RT_TS_EXITING)
		rt_thread_set_state(th, RT_TS_STOPPED);
	d = dispatch(tr, th, &w);
	if (w.kind == RT_STOP_TRAP)
		keep_sigtrap(tr, th, &d);
	resume(tr, th, &d);
	flush_now_and_then(tr);
	if (tr->setup_failed)
		return RT_STEP_FAILED;
	return tr->actions.held ? RT_STEP_STOPPED : RT_STEP_CONTINUE;
}

/* ---- setup and teardown ----------------------------------------------- */

struct rt_tracer *rt_tracer_alloc(const struct rt_tracer_config *cfg,
				   pid_t pid)
{
	struct rt_tracer *tr = xcalloc(1, sizeof(*tr));

	tr->cfg = *cfg;
	tr->flushed_at = now_ns();
	tr->engine = rt_engine_choose(cfg);
	tr->engine->start();
	tr->tasks = rt_tasks_new();
	tr->first_pid = pid;
	return tr;
}

struct rt_tracer *rt_tracer_new(const struct rt_tracer_config *cfg, pid_t pid)
{
	struct rt_tracer *tr = rt_tracer_alloc(cfg, pid);
	struct rt_process *p;
	struct rt_thread *th;

	p = rt_tasks_add_process(tr->tasks, pid, getpid());
	p->record = true;
	if (rt_mem_open(pid, &p->mem))
		pr_warn("process %d: cannot open its memory", pid);
	th = rt_tasks_add_thread(tr->tasks, pid, p);
	th->initial_stop_seen = true;
	rt_thread_set_state(th, RT_TS_RUNNING);
	tr->st.threads = tr->st.processes = 1;
	return tr;
}

static int cmp_stops(const void *a, const void *b)
{
	uint64_t x = ((const struct rt_tracer_stopped *)a)->stops;
	uint64_t y = ((const struct rt_tracer_stopped *)b)->stops;

	return x < y ? 1 : x > y ? -1 : 0;
}

struct rt_tracer_stopped *rt_tracer_stopped(const struct rt_tracer *tr,
					    size_t *n)
{
	struct rt_tracer_stopped *out =
		xcalloc(tr->stopped.n + 1, sizeof(*out));

	*n = 0;
	vec_for_each(&tr->stopped, s)
		if (s->stops)
			out[(*n)++] = (struct rt_tracer_stopped){
				xstrdup(s->name), s->stops };
	qsort(out, *n, sizeof(*out), cmp_stops);
	return out;
}

void rt_tracer_stopped_free(struct rt_tracer_stopped *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		free(s[i].name);
	free(s);
}

void rt_tracer_free(struct rt_tracer *tr)
{
	if (!tr)
		return;
	rt_tracer_stopped_free(tr->stopped.v, tr->stopped.n);
	rt_tasks_free(tr->tasks);
	rt_stacks_free(tr->callstacks.seen);
	rt_inlined_free(tr->cfg.first_inlined);
	rt_symbols_free(tr->cfg.first_syms);
	free(tr->actions.never);
	free(tr);
}

int rt_tracer_resume(struct rt_tracer *tr)
{
	struct rt_thread *th = rt_action_release(tr);

	if (!th)
		return -ESRCH;
	resume(tr, th, &D_CONT);
	return 0;
}

uint64_t rt_tracer_signal_time(const struct rt_tracer *tr, int sig)
{
	return sig > 0 && sig < NSIG ? tr->signal_ns[sig] : 0;
}

struct rt_evlog_writer *rt_tracer_log(struct rt_tracer *tr)
{
	return tr->cfg.log;
}

bool rt_tracer_exit_status(const struct rt_tracer *tr, int *status)
{
	*status = tr->first_status;
	return tr->first_exited;
}

void rt_tracer_stats(const struct rt_tracer *tr, struct rt_tracer_stats *st)
{
	*st = tr->st;
}
