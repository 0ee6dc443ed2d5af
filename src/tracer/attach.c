// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Joining a running process and leaving it as it was.
 *
 * Attach: every thread is seized and interrupted (the task list is read
 * again until it stops growing, since threads may be created meanwhile;
 * threads created by a seized thread are followed by PTRACE_O_TRACECLONE
 * anyway); the probes are armed with every thread stopped; the frames that
 * were already running are reconstructed from each thread's stack so that
 * their returns pair; then everything goes on.
 *
 * Detach: every thread is stopped again (probe hits met on the way are
 * recorded), threads inside the scratch area are stepped out of it, the
 * original bytes go back, the scratch area is unmapped, and each thread is
 * released with any signal it was due.  A thread interrupted in a blocking
 * system call finds it restarted by the kernel, as after any ptrace stop:
 * the program sees no EINTR.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PR_FMT "attach"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/arm.h"
#include "rtrace/log.h"
#include "rtrace/remote.h"
#include "rtrace/sigtrap.h"
#include "rtrace/trapguard.h"
#include "rtrace/unwind.h"
#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

#include "tracer-int.h"

#define FRAMES_MAX 256
/* Instructions a thread may take to leave rtrace's code: a slot's few, or
 * a trampoline's and the inline recorder's some hundred. */
#define STEPS_MAX 512

/* ---- why the kernel said no -------------------------------------------- */

static long proc_status_field(pid_t pid, const char *field)
{
	char path[64], *buf, *at;
	long v = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (read_file(path, &buf, NULL))
		return -1;
	at = strstr(buf, field);
	if (at)
		v = strtol(at + strlen(field), NULL, 10);
	free(buf);
	return v;
}

static void explain_eperm(pid_t pid)
{
	char *scope = NULL;
	long tracer = proc_status_field(pid, "TracerPid:");
	long uid = proc_status_field(pid, "Uid:");
	int yama = -1;

	if (read_file("/proc/sys/kernel/yama/ptrace_scope", &scope, NULL) == 0)
		yama = atoi(scope);
	free(scope);
	if (tracer > 0)
		pr_err("process %d is already traced by process %ld (a "
		       "debugger or another tracer): detach it first", pid,
		       tracer);
	else if (uid >= 0 && (uid_t)uid != geteuid() && geteuid() != 0)
		pr_err("process %d belongs to user %ld: run rtrace as that "
		       "user, or as root", pid, uid);
	else if (yama >= 1)
		pr_err("the kernel refuses to trace process %d: Yama "
		       "ptrace_scope is %d; run rtrace as root, or start the "
		       "program under rtrace (or: sysctl "
		       "kernel.yama.ptrace_scope=0)", pid, yama);
	else
		pr_err("the kernel refuses to trace process %d (no "
		       "CAP_SYS_PTRACE, or it is not dumpable)", pid);
}

/* ---- seizing every thread ------------------------------------------------ */

/* Why the kernel refused to seize thread @tid, when the reason is no
 * refusal: 1, rtrace traces it already (made by a thread rtrace had
 * seized, the kernel attached it with its creator); 0, it has ended (the
 * kernel refuses a thread that is exiting); -EPERM otherwise. */
static int refused_why(pid_t tid)
{
	char path[64], *buf, *at;
	int why = -EPERM;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (read_file(path, &buf, NULL))
		return 0;
	at = strstr(buf, "TracerPid:");
	if (at && strtol(at + strlen("TracerPid:"), NULL, 10) == getpid())
		why = 1;
	else if ((at = strstr(buf, "State:")))
		at += 6 + strspn(at + 6, " \t");
	if (why < 0 && at && (*at == 'Z' || *at == 'X'))
		why = 0;
	free(buf);
	return why;
}

static int seize_one(struct rt_tracer *tr, struct rt_process *p, pid_t tid)
{
	unsigned long opts = rt_tracee_options(tr->cfg.follow, false);
	struct rt_thread *th;
	int err = rt_tracee_seize(tid, opts);
	bool born_traced = false;

	if (err == -EPERM) {
		int why = refused_why(tid);

		if (why <= 0)
			return why;
		born_traced = true;
	} else if (err == -ESRCH) {
		return 0;  /* it ended meanwhile */
	} else if (err) {
		return err;
	}
	th = rt_tasks_add_thread(tr->tasks, tid, p);
	th->initial_stop_seen = true;
	rt_thread_set_state(th, RT_TS_RUNNING);
	tr->st.threads++;
	/* one born traced stops by itself: its creator's clone is rtrace's
	 * to see, which finds it known (adopt()) */
	if (!born_traced)
		rt_tracee_interrupt(tid);  /* ESRCH: its exit will be seen */
	return 0;
}

/* One pass over /proc/PID/task: how many new threads were seized. */
static int seize_pass(struct rt_tracer *tr, struct rt_process *p,
		      size_t *added)
{
	char path[64];
	struct dirent *de;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", p->pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!err && (de = readdir(dir))) {
		pid_t tid = atoi(de->d_name);

		if (tid <= 0 || rt_tasks_thread(tr->tasks, tid))
			continue;
		err = seize_one(tr, p, tid);
		*added += !err;
	}
	closedir(dir);
	return err;
}

/* Waits for every seized thread to stop; what stops them first (a signal,
 * a clone) is kept for later, the thread being stopped either way. */
static int wait_all_stopped(struct rt_tracer *tr)
{
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, i);
		struct rt_wait w;
		int err;

		if (th->state != RT_TS_RUNNING)
			continue;
		do {
			err = rt_wait_tid(th->tid, &w);
		} while (err == -EINTR);
		if (err)
			return err;
		if (w.kind == RT_STOP_EXITED || w.kind == RT_STOP_KILLED) {
			if (th->tid == th->proc->pid)
				return -ESRCH;
			/* a thread that ended before it stopped */
			tr->st.threads--;
			rt_tasks_remove_thread(tr->tasks, th);
			i--;
			continue;
		}
		if (w.kind == RT_STOP_SIGNAL)
			th->pending_sig = w.sig;
		rt_thread_set_state(th, RT_TS_STOPPED);
	}
	return 0;
}

static int seize_all(struct rt_tracer *tr, struct rt_process *p)
{
	size_t added;
	int err;

	/* again once all are stopped: a thread seized but still running
	 * may have made one since the last pass, and no thread is made
	 * while all are stopped */
	do {
		do {
			added = 0;
			err = seize_pass(tr, p, &added);
		} while (!err && added);
		if (!err)
			err = wait_all_stopped(tr);
		if (!err)
			err = seize_pass(tr, p, &added);
	} while (!err && added);
	if (err == -EPERM)
		explain_eperm(p->pid);
	else if (err && err != -ESRCH)
		pr_err("cannot trace process %d: %s", p->pid, strerror(-err));
	return err;
}

/* ---- frames already running ---------------------------------------------- */

/* The function the plan probes whose code holds @pc, or NULL. */
static const struct rt_plan_func *probed_at(const struct rt_image *img,
					    rt_raddr pc)
{
	const struct rt_func *fn = rt_symbols_lookup(img->syms, pc - img->bias);

	if (!fn)
		return NULL;
	for (size_t i = 0; i < rt_plan_nfuncs(img->plan); i++) {
		const struct rt_plan_func *pf = rt_plan_func(img->plan, i);

		if (pf->fn == fn && !pf->why && !pf->helper)
			return pf;
	}
	return NULL;
}

/*
 * A thread stopped inside traced functions will return from them: record
 * their entries now, outermost first, each with the stack pointer it had
 * at entry (rt_arch_entry_sp() of its caller's), so that the returns
 * pair.  Their start is the attach, so their times are partial.
 */
static void replay_frames(struct rt_tracer *tr, struct rt_thread *th,
			  uint64_t ts)
{
	struct rt_process *p = th->proc;
	rt_raddr pcs[FRAMES_MAX], sps[FRAMES_MAX];
	size_t n;

	if (rt_tracee_getregs(th->tid, &th->regs))
		return;
	if (!p->unwinder)
		p->unwinder = rt_unwinder_new(p->pid, p->mem);
	n = rt_unwind(p->unwinder, th->tid, &th->regs, pcs, sps, FRAMES_MAX);
	if (n < 2)
		return;
	for (size_t i = n - 1; i-- > 0;) {
		/* a return address belongs to the call before it */
		const struct rt_plan_func *pf =
			probed_at(p->img, pcs[i] - (i ? 1 : 0));

		if (pf)
			rt_emit_flags(tr, th, RT_EV_ENTRY, RT_EVF_PARTIAL,
				      pf->id, rt_arch_entry_sp(sps[i + 1]), 0,
				      ts);
	}
}

/* ---- attach ---------------------------------------------------------------- */

static void resume_all(struct rt_tracer *tr)
{
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, i);

		if (th->state != RT_TS_STOPPED)
			continue;
		rt_tracee_cont(th->tid, th->pending_sig);
		th->pending_sig = 0;
		rt_thread_set_state(th, RT_TS_RUNNING);
	}
}

/* Runs one instruction of stopped thread @th and reads its registers; a
 * signal that arrived instead is kept for its release.  0 or -errno. */
static int step_once(struct rt_thread *th)
{
	struct rt_wait w;
	bool moved;

	if (rt_tracee_step(th->tid, 0) || rt_wait_tid(th->tid, &w))
		return -ESRCH;
	if (w.kind == RT_STOP_SIGNAL && w.sig != SIGTRAP)
		th->pending_sig = w.sig;
	if (rt_tracee_getregs(th->tid, &th->regs))
		return -ESRCH;
	/* a step onto one of the recorder's breakpoints stops on it (a
	 * fault): past it, as the bell's handling expects */
	moved = w.kind == RT_STOP_TRAP &&
		rt_arch_trap_resolve(&th->regs, w.sig);
	/* a step over a trampoline's popf of flags that a step's pushf
	 * saved: the flag would trap the program once rtrace is gone */
	if (rt_arch_clear_step_flag(&th->regs) || moved)
		return rt_tracee_setregs(th->tid, &th->regs);
	return 0;
}

/* Instructions a thread runs, at most, to leave the bytes of a jump. */
#define LEAVE_STEPS 16

/* A thread stopped inside the bytes a jump will replace (straight-line
 * code: a few instructions) is stepped out of them, so that the site
 * can have its jump: a hot function's entry would otherwise keep a
 * breakpoint for the whole session.  Not one in a system call, which a
 * step would restart and which may block. */
static void step_out_of_patches(struct rt_thread *th,
				const struct rt_plan *plan)
{
	for (int n = 0; n < LEAVE_STEPS; n++) {
		if (rt_arch_in_syscall(&th->regs) ||
		    !rt_plan_inside(plan, rt_arch_ip(&th->regs)) ||
		    step_once(th))
			return;
	}
}

void rt_attach_keep_clear(struct rt_tracer *tr, struct rt_plan *plan)
{
	size_t n = rt_tasks_nthreads(tr->tasks);
	rt_raddr *ips = xcalloc(n + 1, sizeof(*ips));

	for (size_t i = 0; i < n; i++) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, i);

		if (rt_tracee_getregs(th->tid, &th->regs))
			continue;
		step_out_of_patches(th, plan);
		ips[i] = rt_arch_ip(&th->regs);
	}
	rt_plan_avoid(plan, ips, n);
	free(ips);
}

/* SIGILL and SIGTRAP as the program set them, before rtrace makes any
 * trap of its own. */
static void note_sigtrap(struct rt_tracer *tr, struct rt_process *p,
			 struct rt_thread *any)
{
	rt_sigtrap_note(p, any);
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, i);

		if (th != any)
			rt_sigtrap_note_mask(th);
	}
}

/* What rtrace's traps in stopped thread @th (its remote calls, its
 * steps out of the scratch area) changed of SIGILL and SIGTRAP goes
 * back. */
static void keep_sigtrap(struct rt_thread *th)
{
	int sig = rt_sigtrap_repair(th);

	if (sig && !th->pending_sig)
		th->pending_sig = sig;
}

static int arm_attached(struct rt_tracer *tr, struct rt_process *p)
{
	struct rt_thread *any = rt_tasks_thread_at(tr->tasks, 0);
	uint64_t ts = now_ns();
	int err;

	/* the image first: it says where rtrace's system calls may go
	 * (rt_mem_call_site()), the trap signals' actions are read through
	 * one */
	err = rt_image_build(tr, p);
	if (!err)
		note_sigtrap(tr, p, any);
	tr->first_exec_done = true;
	if (!err && p->img->plan)
		rt_attach_keep_clear(tr, p->img->plan);
	if (!err)
		err = rt_image_arm(tr, p, any->tid, &any->pending_sig);
	if (err)
		return err;
	/* the libraries are mapped already: no hook will say so (libc's
	 * signal calls matter only where something is probed) */
	if (tr->cfg.plan.mem || p->img->plan) {
		/* libc's blocking calls are patched with jumps too */
		tr->joining = true;
		rt_image_scan_libraries(tr, any);
		tr->joining = false;
	}
	/* also the steps that took threads out of the jumps' bytes */
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++)
		keep_sigtrap(rt_tasks_thread_at(tr->tasks, i));
	if (!p->img->plan)
		return 0;
	rt_image_log(tr, p);
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++) {
		replay_frames(tr, rt_tasks_thread_at(tr->tasks, i), ts);
		tr->engine->thread_new(tr, rt_tasks_thread_at(tr->tasks, i),
				       NULL);
	}
	return 0;
}

int rt_tracer_attach(const struct rt_tracer_config *cfg, pid_t pid,
		     struct rt_tracer **out)
{
	struct rt_tracer *tr = rt_tracer_alloc(cfg, pid);
	struct rt_process *p;
	int err;

	p = rt_tasks_add_process(tr->tasks, pid, 0);
	p->record = true;
	tr->st.processes = 1;
	err = rt_mem_open(pid, &p->mem);
	if (!err)
		err = seize_all(tr, p);
	else
		pr_err("cannot open the memory of process %d: %s", pid,
		       strerror(-err));
	if (!err && (err = arm_attached(tr, p)))
		rt_tracer_detach(tr);
	if (err) {
		rt_tracer_free(tr);
		return err;
	}
	resume_all(tr);
	*out = tr;
	return 0;
}

/* ---- detach -------------------------------------------------------------- */

static bool all_held(struct rt_tracer *tr)
{
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++) {
		enum rt_thread_state s = rt_tasks_thread_at(tr->tasks, i)->state;

		if (s == RT_TS_RUNNING || s == RT_TS_NEW || s == RT_TS_EXITING)
			return false;
	}
	return true;
}

/* Stops every thread; hits met on the way are recorded.  Returns false
 * when nothing is left to detach from. */
static bool stop_everything(struct rt_tracer *tr)
{
	tr->holding = true;
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, i);

		if (th->state == RT_TS_RUNNING)
			rt_tracee_interrupt(th->tid);
	}
	while (!all_held(tr)) {
		enum rt_step_result r = rt_tracer_step(tr);

		if (r != RT_STEP_CONTINUE)
			return r != RT_STEP_ALL_EXITED;
	}
	return true;
}

/* Lets stopped thread @th take one stop (a pending SIGTRAP or SIGILL, or
 * a ptrace interrupt's stop still due before it).  False when the thread
 * is gone. */
static bool take_one_trap(struct rt_thread *th)
{
	struct rt_wait w;

	/* the signal is taken before any instruction runs: a breakpoint's
	 * fault leaves the thread on it, a single step's trap (a step out of
	 * rtrace's code that an interrupt's stop overtook) where it is */
	if (rt_tracee_cont(th->tid, 0) || rt_wait_tid(th->tid, &w))
		return false;
	if (w.kind == RT_STOP_SIGNAL && !th->pending_sig)
		th->pending_sig = w.sig;
	return w.kind != RT_STOP_EXITED && w.kind != RT_STOP_KILLED;
}

void rt_tracer_take_pending_trap(struct rt_thread *th)
{
	/* a few: each pass takes one stop, which may be another's */
	for (int n = 0; n < 4 && th->proc &&
			(rt_tracee_signal_pending(th->tid, SIGTRAP) ||
			 rt_tracee_signal_pending(th->tid, SIGILL));
	     n++)
		if (!take_one_trap(th))
			break;
}

void rt_tracer_leave_scratch(struct rt_tracer *tr, struct rt_thread *th,
			     rt_raddr lo, rt_raddr hi, rt_bell_fn *bell)
{
	rt_raddr ip;

	if (rt_tracee_getregs(th->tid, &th->regs))
		return;
	if (th->calib.left) {
		th->calib.left = 0;
		rt_arch_calib_leave(&th->regs);
		rt_arch_set_ip(&th->regs, th->calib.resume);
		rt_tracee_setregs(th->tid, &th->regs);
	}
	ip = rt_arch_ip(&th->regs);
	for (int n = 0; ip >= lo && ip < hi && n < STEPS_MAX; n++) {
		if (step_once(th))
			return;
		/* the inline recorder's breakpoints ring on the way out */
		if (bell(tr, th))
			rt_tracee_setregs(th->tid, &th->regs);
		ip = rt_arch_ip(&th->regs);
	}
	if (ip >= lo && ip < hi)
		pr_warn("thread %d is still in rtrace's code at %" PRIxRADDR,
			th->tid, ip);
}

/* A thread interrupted between a hop and its relay's jump would run
 * the relay's bytes once they are padding again: it goes where the
 * original code would be. */
static void leave_relay(struct rt_thread *th, const struct rt_plan *plan)
{
	rt_raddr to;

	if (rt_tracee_getregs(th->tid, &th->regs))
		return;
	to = rt_plan_relay_exit(plan, rt_arch_ip(&th->regs));
	if (!to)
		return;
	rt_arch_set_ip(&th->regs, to);
	rt_tracee_setregs(th->tid, &th->regs);
}

/* Takes the probes of one image out of @p, threads first out of its
 * scratch area, then the area itself; sites the program rewrote go to
 * @kept. */
static void clean_image(struct rt_tracer *tr, struct rt_process *p,
			struct rt_image *img, struct rt_arm_kept *kept)
{
	const struct rt_plan *plan = img ? img->plan : NULL;
	struct rt_thread *any = NULL;
	rt_raddr lo, hi;

	if (!plan || !(lo = rt_plan_scratch_base(plan)))
		return;
	hi = lo + rt_plan_scratch_size(plan);
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, i);

		if (th->proc != p)
			continue;
		any = th;
	}
	/* no thread goes in once the code is back; then those inside leave */
	if (rt_disarm_image(p, img, kept))
		pr_warn("process %d: cannot restore the code of %s", p->pid,
			rt_symbols_path(img->syms));
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, i);

		if (th->proc != p)
			continue;
		leave_relay(th, plan);
		tr->engine->leave(tr, th, lo, hi, true);
	}
	if (!any)
		return;
	if (img == p->img)
		tr->engine->unmap(tr, p, any);
	rt_remote_munmap(any->tid, p->mem, lo, hi - lo, &any->pending_sig);
}

static void clean_process(struct rt_tracer *tr, struct rt_process *p)
{
	struct rt_arm_kept kept = { 0 };

	if (!p->mem)
		return;
	clean_image(tr, p, p->img, &kept);
	vec_for_each(&p->libs, lib)
		clean_image(tr, p, *lib, &kept);
	rt_arm_kept_warn(p, &kept);
	for (size_t i = 0; p->trapguard && i < rt_tasks_nthreads(tr->tasks);
	     i++) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, i);

		if (th->proc == p)
			rt_trapguard_remove(p, th->tid, &th->pending_sig);
	}
}

int rt_tracer_detach(struct rt_tracer *tr)
{
	if (!stop_everything(tr))
		return 0;
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++)
		rt_tracer_take_pending_trap(rt_tasks_thread_at(tr->tasks, i));
	rt_tasks_for_each_process(tr->tasks, p)
		clean_process(tr, p);
	for (size_t i = 0; i < rt_tasks_nthreads(tr->tasks); i++)
		keep_sigtrap(rt_tasks_thread_at(tr->tasks, i));
	while (rt_tasks_nthreads(tr->tasks)) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, 0);

		/* again: the steps out of rtrace's code may have left one */
		rt_tracer_take_pending_trap(th);
		rt_tracee_detach(th->tid, th->pending_sig);
		rt_tasks_remove_thread(tr->tasks, th);
	}
	tr->detached = true;
	return 0;
}
