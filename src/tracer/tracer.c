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
#include "rtrace/stopsig.h"
#include "rtrace/tasks.h"
#include "rtrace/tracee.h"
#include "rtrace/tracer.h"
#include "rtrace/unwind.h"
#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

#include "tracer-int.h"

static const struct decision D_CONT = { .how = RESUME_CONT };

/* ---- events ------------------------------------------------------------ */

void rt_emit_flags(struct rt_tracer *tr, struct rt_thread *th,
		   uint8_t kind, uint8_t flags, uint32_t func, uint64_t sp,
		       uint64_t value, uint64_t ts)
{
	/* two clocks stamp a thread's events, rtrace's at a stop and the
	 * program's counter converted at a drain: where they cross or meet
	 * by the conversion's error, the later event is put 1 ns after the
	 * earlier, so that each thread's events are in strict time order in
	 * the log (real ones are tens of ns apart at the least) */
	struct rt_event ev = {
		.ts = th->last_ts && ts <= th->last_ts ? th->last_ts + 1 : ts,
		.sp = sp, .value = value,
		.tid = th->tid, .pid = th->proc ? th->proc->pid : 0,
		.func = func, .kind = kind, .flags = flags,
		.nstops = th->stops > UINT16_MAX ? UINT16_MAX : th->stops,
	};

	th->stops = 0;
	th->last_ts = ev.ts;
	if (th->proc && th->proc->record) {
		rt_evlog_append(tr->cfg.log, &ev);
		tr->st.calls += kind == RT_EV_ENTRY;
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
static void emit_inlined(struct rt_tracer *tr, struct rt_thread *th,
			 const struct rt_plan *plan, const struct rt_probe *pr,
			 uint64_t sp, uint64_t ts)
{
	size_t n;
	const struct rt_inl_rec *inl = rt_plan_inlined_recs(plan, pr, &n);

	for (size_t i = 0; i < n; i++)
		rt_emit_flags(tr, th, inl[i].kind, inl[i].flags, inl[i].func,
			      sp, inl[i].value, ts);
}

#define NAMING_DEPTH 64

/*
 * Two tests share the 15 bytes the kernel kept of the thread's name: the
 * test function is on the thread's stack (libtest called it, and it called
 * what was hit), so unwind and look.  The thread is stopped on a breakpoint
 * it has just executed; the unwinder must see the breakpoint's own address,
 * or it would read the unwind rules of the next instruction.  Once per
 * thread.
 */
static const char *test_on_stack(struct rt_thread *th, const char *comm,
				 const struct rt_regs *at_site)
{
	struct rt_process *p = th->proc;
	rt_raddr pcs[NAMING_DEPTH];
	const char *test = NULL;
	size_t n;

	if (!p->unwinder)
		p->unwinder = rt_unwinder_new(p->pid, p->mem);
	n = rt_unwind(p->unwinder, th->tid, at_site, pcs, NULL,
		      NAMING_DEPTH);
	for (size_t i = 0; i < n && !test; i++) {
		/* a return address belongs to the call before it */
		rt_raddr pc = pcs[i] - (i ? 1 : 0) - p->img->bias;
		const struct rt_func *fn = rt_symbols_lookup(p->img->syms, pc);

		if (fn)
			test = rt_libtest_fit(p->img->tests, comm, fn->name);
	}
	return test;
}

/* Records the thread's name when it is new or changed: at its first hit
 * (std names a thread before running its closure, so the name is there
 * before any traced call) and at its exit.  A libtest thread gets the full
 * name of its test, which the kernel's 15 bytes cut short: @hit, the
 * function whose event it is (the test's closure, which libtest's runner
 * inlined), or one on the stack at @at_site.  Either may be NULL. */
void rt_name_thread(struct rt_tracer *tr, struct rt_thread *th,
			const struct rt_regs *at_site, const char *hit)
{
	const struct rt_image *img = th->proc ? th->proc->img : NULL;
	const char *test = NULL;
	bool ambiguous = false;
	char path[96], *comm;

	if (!th->proc || !th->proc->record)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", th->proc->pid,
		 th->tid);
	if (read_file(path, &comm, NULL) != 0)
		return;
	comm[strcspn(comm, "\n")] = '\0';
	if (strcmp(comm, th->comm) != 0) {
		snprintf(th->comm, sizeof(th->comm), "%s", comm);
		if (img && img->tests && th->tid != th->proc->pid)
			test = rt_libtest_name(img->tests, comm, &ambiguous);
		if (ambiguous && hit)
			test = rt_libtest_fit(img->tests, comm, hit);
		if (ambiguous && !test && at_site)
			test = test_on_stack(th, comm, at_site);
		rt_evlog_write_thread(tr->cfg.log, th->tid, th->proc->pid,
				      test ? test : comm,
				      test || ambiguous ? RT_THREAD_TEST : 0);
	}
	free(comm);
}

/* ---- measuring the stop cost in place ----------------------------------
 *
 * What a stop costs the program depends on where the scheduler put the
 * tracer and the thread, which start-up calibration cannot know.  So now
 * and then, after a hit, the thread is sent through a row of breakpoints
 * in the scratch area before it resumes: those stops follow each other
 * with nothing in between, so the time they take, divided by their number,
 * is the cost of one stop for this thread, here and now.  The thread loses
 * that time too, and a delay event says so.
 */

#define CALIB_FIRST 16
#define CALIB_MAX_EVERY 1024

static rt_raddr begin_calib(struct rt_thread *th, const struct rt_plan *plan,
			    rt_raddr resume, uint64_t ts)
{
	th->calib_plan = plan;
	th->calib_every = th->calib_every ?
				  MIN(th->calib_every * 2, CALIB_MAX_EVERY) :
				  CALIB_FIRST;
	th->calib_due = th->calib_every;
	th->calib_left = RT_PLAN_CALIB_STOPS;
	th->calib_resume = resume;
	th->calib_start = th->calib_prev = ts;
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

	memcpy(g, th->calib_gaps, sizeof(g));
	qsort(g, RT_PLAN_CALIB_STOPS, sizeof(g[0]), cmp_u32);
	for (size_t i = 1; i + 1 < RT_PLAN_CALIB_STOPS; i++)
		sum += g[i];
	return sum / (RT_PLAN_CALIB_STOPS - 2);
}

static bool in_calib(const struct rt_thread *th, rt_raddr site)
{
	rt_raddr first = rt_plan_calib_addr(th->calib_plan);
	size_t tlen;

	rt_arch_trap_bytes(&tlen);
	return site >= first && site < first + RT_PLAN_CALIB_STOPS * tlen;
}

/* Something else happened in the middle of a measurement (a signal, and
 * the probes its handler hit): the figure would be wrong.  The measuring
 * stops then count as ordinary ones. */
static void spoil_calib(struct rt_thread *th)
{
	if (th->calib_spoiled)
		return;
	th->calib_spoiled = true;
	th->stops += th->calib_done;
}

static struct decision on_calib_stop(struct rt_tracer *tr,
				     struct rt_thread *th)
{
	uint64_t ts = now_ns(), spent;

	_Static_assert(RT_PLAN_CALIB_STOPS == ARRAY_SIZE(th->calib_gaps),
		       "one gap per measuring stop");
	if (!th->calib_spoiled) {
		th->stops--;  /* its cost goes into the delay event */
		th->calib_gaps[th->calib_done++] =
			(uint32_t)MIN(ts - th->calib_prev, UINT32_MAX);
	}
	th->calib_prev = ts;
	if (--th->calib_left == 0) {
		spent = ts - th->calib_start;
		if (!th->calib_spoiled) {
			rt_emit(tr, th, RT_EV_CALIB, RT_FUNC_NONE, 0,
				calib_trimmed_mean(th), ts);
			rt_emit(tr, th, RT_EV_DELAY, RT_FUNC_NONE, 0, spent, ts);
		}
		th->calib_spoiled = false;
		th->calib_done = 0;
		rt_arch_set_ip(&th->regs, th->calib_resume);
	}
	/* written back even when unchanged: the same work as a real hit */
	return (struct decision){ .how = RESUME_CONT, .setregs = true };
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

/* ---- coverage: each probe taken out at its first hit ------------------ */

/*
 * The original bytes go back and the thread re-runs the instruction in
 * place.  Another thread may have trapped on the same breakpoint before it
 * went: it finds the probe already taken out and just goes back to it.
 * Taken-out state is per process: a forked child has its own copy of the
 * code, and of the state at the fork.
 */
static struct decision cover(struct rt_tracer *tr, struct rt_thread *th,
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
			emit_inlined(tr, th, plan, pr, rt_arch_sp(&th->regs),
				     ts);
	}
	rt_arch_set_ip(&th->regs, pr->addr);
	return (struct decision){ .how = RESUME_CONT, .setregs = true };
}

/* ---- call stacks (--stack) ----------------------------------------------- */

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
static uint32_t capture_stack(struct rt_tracer *tr, struct rt_thread *th,
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
	if (!tr->stacks)
		tr->stacks = rt_stacks_new();
	rt_arch_set_ip(&at_site, rt_arch_trap_site(&th->regs));
	n = rt_unwind(p->unwinder, th->tid, &at_site, pcs, NULL,
		      MIN(tr->cfg.stack_depth, STACK_MAX));
	if (!n) {
		*spent = now_ns() - t0;
		return 0;
	}
	id = rt_stacks_intern(tr->stacks, p->pid, pcs, n, &fresh);
	if (fresh)
		log_stack(tr, p, id, pcs, n);
	*spent = now_ns() - t0;
	return id;
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

/* What an entry event carries: the captured stack of a traced function,
 * or the size (the pointer, for a free) of an allocator call, from the
 * argument registers.  A reallocation's old pointer goes in an extra
 * event. */
static uint64_t entry_value(struct rt_tracer *tr, struct rt_thread *th,
			    const struct rt_probe *pr, uint64_t *spent)
{
	const struct rt_regs *r = &th->regs;

	switch (pr->role) {
	case RT_ROLE_ALLOC:
	case RT_ROLE_FREE:
		return rt_arch_arg(r, 0);
	case RT_ROLE_ALLOC_ALIGNED:
		return rt_arch_arg(r, 1);
	case RT_ROLE_CALLOC:
		return rt_arch_arg(r, 0) * rt_arch_arg(r, 1);
	case RT_ROLE_REALLOC:
		return rt_arch_arg(r, 1);
	case RT_ROLE_REALLOC_RUST:
		return rt_arch_arg(r, 3);
	case RT_ROLE_MEMALIGN:
		th->memalign_out = rt_arch_arg(r, 0);
		return rt_arch_arg(r, 2);
	case RT_ROLE_BLOCKING:
		return 0;
	default:
		return tr->cfg.stack_depth ? capture_stack(tr, th, spent) : 0;
	}
}

/* What an exit event carries: the return register, or for
 * posix_memalign the pointer it stored. */
static uint64_t exit_value(struct rt_thread *th, const struct rt_probe *pr)
{
	uint64_t v = rt_arch_retval(&th->regs), ptr = 0;

	if (pr->role != RT_ROLE_MEMALIGN)
		return v;
	if (v == 0 && th->memalign_out)
		rt_mem_read(th->proc->mem, th->memalign_out, &ptr, sizeof(ptr));
	return ptr;
}

static void record_hit(struct rt_tracer *tr, struct rt_thread *th,
		       const struct rt_plan *plan, const struct rt_probe *pr,
		       rt_raddr ip, bool taken, uint64_t ts, uint64_t *spent)
{
	uint64_t sp = rt_arch_sp(&th->regs);

	if ((pr->kinds & RT_PROBE_ENTRY) && !(pr->kinds & RT_PROBE_HELPER)) {
		rt_emit(tr, th, RT_EV_ENTRY, pr->func, sp,
			entry_value(tr, th, pr, spent), ts);
		if (pr->role == RT_ROLE_REALLOC ||
		    pr->role == RT_ROLE_REALLOC_RUST)
			rt_emit(tr, th, RT_EV_ARG, pr->func, sp,
				rt_arch_arg(&th->regs, 0), ts);
	}
	if (unlikely(pr->kinds & RT_PROBE_INLINED))
		emit_inlined(tr, th, plan, pr, sp, ts);
	if (pr->kinds & RT_PROBE_EXIT)
		rt_emit_flags(tr, th, RT_EV_EXIT,
			      pr->kinds & RT_PROBE_HELPER ? RT_EVF_HELPER : 0,
			      pr->func, sp, exit_value(th, pr), ts);
	else if ((pr->kinds & RT_PROBE_RET_ARG0) && taken)
		rt_emit_flags(tr, th, RT_EV_EXIT,
			      pr->kinds & RT_PROBE_HELPER ? RT_EVF_HELPER : 0,
			      pr->func, sp, rt_arch_arg(&th->regs, 0), ts);
	else if (pr->kinds & RT_PROBE_TAIL)
		emit_tail(tr, th, pr, ip, taken, sp, ts);
}

/* A script's probe action on this hit (cfg.on_hit): an enum
 * rt_hit_verdict.  Its time is the thread's lost time, like a log write. */
static int probe_action(struct rt_tracer *tr, struct rt_thread *th,
			const struct rt_plan *plan, const struct rt_probe *pr,
			uint64_t ts, uint64_t *spent)
{
	const struct rt_plan_func *pf;
	uint64_t t0 = now_ns();
	int v;

	if (pr->role != RT_ROLE_TRACED || (pr->kinds & RT_PROBE_HELPER) ||
	    tr->holding ||
	    (pr->func < tr->nno_action && tr->no_action[pr->func]))
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
		if (pr->func >= tr->nno_action) {
			uint32_t n = pr->func + 256;

			tr->no_action = xrealloc(tr->no_action, n);
			memset(tr->no_action + tr->nno_action, 0,
			       n - tr->nno_action);
			tr->nno_action = n;
		}
		tr->no_action[pr->func] = 1;
	}
	return v;
}

/* Puts back what a SIGTRAP of rtrace's changed of the program's own
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
 * sigaction() or pthread_sigmask()): what this breakpoint's SIGTRAP
 * changed is put back by what was set before, which the kernel judged
 * it by; then what the call sets for SIGTRAP is noted. */
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

static struct decision on_trap(struct rt_tracer *tr, struct rt_thread *th)
{
	const struct rt_plan *plan = NULL;
	const struct rt_probe *pr;
	uint64_t ts, written, spent = 0;
	rt_raddr ip, site, resume;
	bool taken, setregs = false;
	int verdict = RT_HIT_GO;

	if (rt_tracee_getregs(th->tid, &th->regs))
		return (struct decision){ .how = RESUME_GONE };
	site = rt_arch_trap_site(&th->regs);
	if (tr->engine->doorbell(tr, th, site, &setregs))
		return (struct decision){ .how = RESUME_CONT,
					  .setregs = setregs };
	if (unlikely(th->calib_left)) {
		if (in_calib(th, site))
			return on_calib_stop(tr, th);
		spoil_calib(th);
	}
	pr = rt_tracer_find_probe(th->proc, site, &plan);
	if (!pr) /* the program's own breakpoint or SIGTRAP */
		return (struct decision){ .how = RESUME_CONT, .sig = SIGTRAP };
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
	else if (tr->cfg.coverage && plan == th->proc->img->plan)
		return cover(tr, th, pr, ts);
	written = rt_evlog_write_ns(tr->cfg.log);
	ip = rt_arch_resume_ip(&pr->res, &th->regs, &taken);
	resume = tr->engine->resume_at(tr, th, plan, pr);
	if (resume)
		ip = resume;
	else if (pr->role != RT_ROLE_MODULES)
		record_hit(tr, th, plan, pr, ip, taken, ts, &spent);
	if (unlikely(tr->cfg.on_hit))
		verdict = probe_action(tr, th, plan, pr, ts, &spent);
	/* a block went to disk, or a stack was unwound, while the thread
	 * waited: say how long, so the analysis takes it out of the times
	 * like a stop's cost */
	written = rt_evlog_write_ns(tr->cfg.log) - written + spent;
	if (unlikely(written))
		rt_emit(tr, th, RT_EV_DELAY, RT_FUNC_NONE, 0, written, ts);
	/* with counts only there are no times to measure for; a thread held
	 * for a script would spoil the measurement.  Nor while a chain is
	 * pending: a signal handler runs hits in the middle of one, and the
	 * interrupted chain must still know where it resumes.  Nor at
	 * rtrace's own hook, which every probed program now meets once: with
	 * the inline engine it would cost a measuring chain of stops */
	if (unlikely(pr->role == RT_ROLE_MODULES)) {
		/* nothing recorded, nothing to measure for */
	} else if (th->calib_due <= 1 && th->proc->record &&
		   !tr->cfg.count_only) {
		if (verdict != RT_HIT_STOP && !th->calib_left)
			ip = begin_calib(th, plan, ip, ts);
	} else {
		th->calib_due--;
	}
	rt_arch_set_ip(&th->regs, ip);
	if (unlikely(verdict == RT_HIT_STOP)) {
		tr->held = th->tid;
		tr->held_since = now_ns();
		return (struct decision){ .how = RESUME_HOLD, .setregs = true };
	}
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
	c->img = parent->img ? rt_image_get(parent->img) : NULL;
	c->sigtrap = parent->sigtrap;
	vec_for_each(&parent->libs, lib)
		vec_push(&c->libs, rt_image_get(*lib));
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
 * its registers written and its signal kept for the detach. */
static void hold(struct rt_thread *th, const struct decision *d)
{
	if (d->setregs)
		rt_tracee_setregs(th->tid, &th->regs);
	if (d->sig)
		th->pending_sig = d->sig;
	if (th->state != RT_TS_EXITING)
		rt_thread_set_state(th, RT_TS_STOPPED);
}

static void resume(struct rt_tracer *tr, struct rt_thread *th,
		   const struct decision *d)
{
	int err = 0;

	if (d->sig > 0 && d->sig < NSIG)
		tr->signal_ns[d->sig] = now_ns();
	if (tr->holding && (d->how == RESUME_CONT || d->how == RESUME_LISTEN)) {
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
		return on_trap(tr, th);
	case RT_STOP_SIGNAL:
		if (th->state == RT_TS_NEW)
			return on_first_stop(tr, th);
		if (th->calib_left)
			spoil_calib(th);
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

/* After a SIGTRAP of rtrace's own (not one passed on to the program),
 * what the kernel changed of the program's SIGTRAP goes back.  Not in
 * the middle of a measuring chain, where no code of the program runs
 * and the repair's time would be measured as the stops': at its end. */
static void keep_sigtrap(struct rt_tracer *tr, struct rt_thread *th,
			 struct decision *d)
{
	int sig;

	if (d->kept || d->sig == SIGTRAP ||
	    (d->how != RESUME_CONT && d->how != RESUME_HOLD) ||
	    (th->calib_left && !th->calib_spoiled))
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
	return tr->held ? RT_STEP_STOPPED : RT_STEP_CONTINUE;
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
	rt_stacks_free(tr->stacks);
	rt_inlined_free(tr->cfg.first_inlined);
	rt_symbols_free(tr->cfg.first_syms);
	free(tr->no_action);
	free(tr);
}

int rt_tracer_resume(struct rt_tracer *tr)
{
	struct rt_thread *th = tr->held ? rt_tasks_thread(tr->tasks, tr->held)
					: NULL;
	uint64_t ts = now_ns();

	tr->held = 0;
	if (tr->no_action)
		memset(tr->no_action, 0, tr->nno_action);
	if (!th)
		return -ESRCH;
	/* stamped when the wait began, as the delays of on_trap() are: the
	 * analysis keeps a thread's clock from running backwards, so a
	 * delay stamped at its end would not be taken out */
	rt_emit(tr, th, RT_EV_DELAY, RT_FUNC_NONE, 0, ts - tr->held_since,
		tr->held_since);
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
