// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * When rtrace crashes while attached to a running process.
 *
 * That process is somebody's service: left with probes in its code, it
 * would die at its next hit.  So while rtrace is attached, a fatal signal
 * of its own (a bug, an abort) first gives the process back, as a detach
 * would, then lets rtrace die of that signal: every thread is stopped,
 * the original bytes go back, a thread stopped at a breakpoint or inside
 * rtrace's code is moved to where the program would be, and every thread
 * is released with the signal it was stopped for, when that signal was
 * the program's.  What the log has is what the crash left (events not yet
 * written are lost); the scratch areas stay mapped, unused, since a thread
 * that could not be stopped in time may still be inside one.
 *
 * The crash may have left rtrace's own records half-updated, so whether a
 * thread is stopped, and why, is asked of the kernel; and every wait is
 * bounded: a rescue that hung would leave the process stopped, which is
 * worse than the crash.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PR_FMT "rescue"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/arm.h"
#include "rtrace/rescue.h"
#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

#include "tracer-int.h"

/* How long the threads get to stop, all together. */
#define STOP_WAIT_NS 1000000000ULL

static struct rt_tracer *rescued;
static pid_t tracer_tid;	/* the thread that may rescue */

static void on_crash(int sig);

static void say(const char *s)
{
	ssize_t n = write(STDERR_FILENO, s, strlen(s));

	(void)n;
}

/* Waits, until @deadline, for @tid to be in a ptrace-stop: true then. */
static bool await_stop(pid_t tid, uint64_t deadline)
{
	static const struct timespec ms = { 0, 1000000 };
	struct rt_regs r;
	int status;

	for (;;) {
		pid_t w = waitpid(tid, &status, WNOHANG | __WALL);
		struct rt_wait st;

		if (w == tid) {
			rt_waitstatus_decode(tid, status, &st);
			if (st.kind == RT_STOP_EXITED ||
			    st.kind == RT_STOP_KILLED)
				return false;
		}
		if (rt_tracee_getregs(tid, &r) == 0)
			return true;
		if ((w < 0 && errno == ECHILD) || now_ns() > deadline)
			return false;
		nanosleep(&ms, NULL);
	}
}

/*
 * Why @tid is stopped: *ours is the signal of one of rtrace's breakpoints
 * or steps (not to be delivered), else 0; returns the signal to deliver
 * at the detach, 0 for none.  An event stop (an interrupt, a clone) carries
 * its event above the low byte of si_code; a group-stop has no siginfo.
 */
static int stop_signal(pid_t tid, int *ours)
{
	siginfo_t si;

	*ours = 0;
	if (rt_tracee_getsiginfo(tid, &si) || (si.si_code > 0 &&
					       (si.si_code >> 8)))
		return 0;
	if (si.si_signo == SIGTRAP &&
	    (si.si_code == SI_KERNEL || si.si_code == TRAP_BRKPT ||
	     si.si_code == TRAP_TRACE)) {
		*ours = SIGTRAP;
		return 0;
	}
	/* a fault: dropped, it comes again where the thread stands */
	if (si.si_signo == SIGILL && si.si_code == ILL_ILLOPN) {
		*ours = SIGILL;
		return 0;
	}
	return si.si_signo;
}

/* Steps @th out of @img's scratch area, when it is in there. */
static void leave_image(struct rt_tracer *tr, struct rt_thread *th,
			const struct rt_image *img)
{
	rt_raddr lo = img && img->plan ? rt_plan_scratch_base(img->plan) : 0;

	/* the crash may have left the log half-written: what the engine
	 * meets on the way out is not recorded */
	if (lo)
		tr->engine->leave(tr, th, lo,
				  lo + rt_plan_scratch_size(img->plan), false);
}

/* Puts stopped thread @th, original bytes back, where the program would
 * be: before the instruction whose breakpoint it hit, or out of rtrace's
 * code. */
static void set_free(struct rt_tracer *tr, struct rt_thread *th, int ours)
{
	const struct rt_plan *plan;
	rt_raddr site;

	if (!th->proc || rt_tracee_getregs(th->tid, &th->regs))
		return;
	rt_arch_trap_resolve(&th->regs, ours);
	site = rt_arch_trap_site(&th->regs);
	if (ours && rt_tracer_find_probe(th->proc, site, &plan)) {
		rt_arch_set_ip(&th->regs, site);
		rt_tracee_setregs(th->tid, &th->regs);
		return;
	}
	leave_image(tr, th, th->proc->img);
	vec_for_each(&th->proc->libs, lib)
		leave_image(tr, th, *lib);
}

static void rescue(struct rt_tracer *tr)
{
	uint64_t deadline = now_ns() + STOP_WAIT_NS;
	size_t n = rt_tasks_nthreads(tr->tasks);
	bool stopped[n ? n : 1];
	int status;
	pid_t tid;

	for (size_t i = 0; i < n; i++)
		rt_tracee_interrupt(rt_tasks_thread_at(tr->tasks, i)->tid);
	for (size_t i = 0; i < n; i++)
		stopped[i] = await_stop(rt_tasks_thread_at(tr->tasks, i)->tid,
					deadline);
	/* with every thread stopped (or given up on): no one runs the bytes
	 * as they change */
	rt_tasks_for_each_process(tr->tasks, p)
		rt_disarm_process(p);
	for (size_t i = 0; i < n; i++) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, i);
		int sig, ours;

		if (!stopped[i])
			continue;
		rt_tracer_take_pending_trap(th);
		sig = stop_signal(th->tid, &ours);
		set_free(tr, th, ours);
		rt_tracee_detach(th->tid, sig ? sig : th->pending_sig);
	}
	/* threads born since the last look: not yet near a probe */
	while ((tid = waitpid(-1, &status, WNOHANG | __WALL)) > 0) {
		struct rt_wait st;

		rt_waitstatus_decode(tid, status, &st);
		if (st.kind != RT_STOP_EXITED && st.kind != RT_STOP_KILLED)
			rt_tracee_detach(tid, 0);
	}
}

/* A crash on another of rtrace's threads (the profile's analysis): only
 * the tracing thread can give the process back, since ptrace answers the
 * thread that attached.  The signal is passed to it, with this handler
 * armed again for it (SA_RESETHAND took it off), and this thread waits
 * for the process to end. */
static void pass_to_tracer(int sig)
{
	struct sigaction sa = { .sa_handler = on_crash,
				.sa_flags = SA_ONSTACK | SA_RESETHAND };
	sigset_t none;

	sigfillset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	syscall(SYS_tgkill, getpid(), tracer_tid, sig);
	sigfillset(&none);
	for (;;)
		sigsuspend(&none);
}

static void on_crash(int sig)
{
	struct rt_tracer *tr = rescued;

	if (tr && (pid_t)syscall(SYS_gettid) != tracer_tid)
		pass_to_tracer(sig);
	rescued = NULL;
	if (tr) {
		say("rtrace: crashed while attached; giving the process back "
		    "(original code restored, threads released)\n");
		rescue(tr);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

void rt_rescue_arm(struct rt_tracer *tr)
{
	static char stack[64 * 1024];
	stack_t ss = { .ss_sp = stack, .ss_size = sizeof(stack) };
	struct sigaction sa = { .sa_handler = on_crash,
				.sa_flags = SA_ONSTACK | SA_RESETHAND };

	/* the ring timer must not drain into the log meanwhile */
	sigfillset(&sa.sa_mask);
	sigaltstack(&ss, NULL);
	tracer_tid = (pid_t)syscall(SYS_gettid);
	rescued = tr;
	for (size_t i = 0; i < RT_N_CRASH_SIGNALS; i++)
		sigaction(rt_crash_signals[i], &sa, NULL);
}

void rt_rescue_disarm(void)
{
	rescued = NULL;
	for (size_t i = 0; i < RT_N_CRASH_SIGNALS; i++)
		signal(rt_crash_signals[i], SIG_DFL);
}
