// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The program's own SIGTRAP and SIGILL put back after a trap (sigtrap.c),
 * on real children: each sets the signal's action or mask, stops, runs an
 * int3 or rtrace's breakpoint (the kernel then resets what it set), and
 * checks at its end that what it set is still there, or raises the signal
 * to see.  The parent plays rtrace: it notes what the child set, as rtrace
 * would have seen it, and calls rt_sigtrap_repair() at the trap's stop.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtrace/arch.h"
#include "rtrace/sigtrap.h"
#include "rtrace/tasks.h"
#include "rtrace/tracee.h"
#include "unittest.h"

#define TRAP_BIT (1ULL << (SIGTRAP - 1))
#define ILL_BIT (1ULL << (SIGILL - 1))

static volatile sig_atomic_t handled;

static void breakpoint(void)
{
	__asm__ volatile("int3");
}

/* rtrace's breakpoint in the program's code, a fault */
static void fault(void)
{
	__asm__ volatile(".byte 0x06");
}

static void on_trap(int sig)
{
	(void)sig;
	handled++;
	breakpoint();  /* with SIGTRAP blocked, as in any handler of it */
}

static void child_ignores(void)
{
	signal(SIGTRAP, SIG_IGN);
	raise(SIGSTOP);
	breakpoint();
	raise(SIGTRAP);  /* ignored, if put back */
	_exit(0);
}

static void child_blocks(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTRAP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGSTOP);
	breakpoint();
	sigprocmask(SIG_BLOCK, NULL, &set);
	_exit(sigismember(&set, SIGTRAP) ? 0 : 1);
}

static void child_ignores_ill(void)
{
	struct sigaction old;

	signal(SIGILL, SIG_IGN);
	raise(SIGSTOP);
	fault();
	sigaction(SIGILL, NULL, &old);
	_exit(old.sa_handler == SIG_IGN ? 0 : 1);
}

static void child_blocks_ill(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGILL);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGSTOP);
	fault();
	sigprocmask(SIG_BLOCK, NULL, &set);
	_exit(sigismember(&set, SIGILL) ? 0 : 1);
}

static void child_catches(void)
{
	signal(SIGTRAP, on_trap);
	raise(SIGSTOP);
	raise(SIGTRAP);
	raise(SIGTRAP);  /* the handler again, if put back */
	_exit(handled == 2 ? 0 : 1);
}

/* A child running @fn, traced, stopped at its SIGSTOP; -1 on failure. */
static pid_t start(void (*fn)(void))
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		fn();
		_exit(99);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) ||
	    ptrace(PTRACE_SETOPTIONS, pid, 0,
		   PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))
		return -1;
	return pid;
}

/* Runs the child to its end as rtrace would: its own SIGTRAPs delivered,
 * the int3's and the breakpoint's dropped after rt_sigtrap_repair(), the
 * thread moved past the breakpoint.  Its exit code, or -1. */
static int run(struct rt_thread *th, uint64_t *mask_after)
{
	siginfo_t si;
	int st, sig = 0;

	for (;;) {
		if (ptrace(PTRACE_CONT, th->tid, 0, sig) ||
		    waitpid(th->tid, &st, 0) != th->tid)
			return -1;
		if (WIFEXITED(st))
			return WEXITSTATUS(st);
		if (!WIFSTOPPED(st) || (WSTOPSIG(st) != SIGTRAP &&
					WSTOPSIG(st) != SIGILL) ||
		    rt_tracee_getsiginfo(th->tid, &si))
			return -1;
		sig = WSTOPSIG(st);
		if (si.si_code <= 0)  /* raise() */
			continue;
		if (sig == SIGILL &&
		    (rt_tracee_getregs(th->tid, &th->regs) ||
		     !rt_arch_trap_resolve(&th->regs, sig) ||
		     rt_tracee_setregs(th->tid, &th->regs)))
			return -1;
		sig = rt_sigtrap_repair(th);
		rt_tracee_getsigmask(th->tid, mask_after);
	}
}

TEST_CASE(ignored_put_back)
{
	struct rt_process p = { .pid = start(child_ignores) };
	struct rt_thread th = { .tid = p.pid, .proc = &p };
	uint64_t mask = 0;

	TEST_TRUE(p.pid > 0);
	TEST_EQ(rt_mem_open(p.pid, &p.mem), 0);
	p.sigtrap[RT_TRAPSIG_TRAP].disp = RT_TRAP_IGNORED;  /* as its signal() was seen */
	p.sigtrap[RT_TRAPSIG_TRAP].want = (uint64_t)(uintptr_t)SIG_IGN;
	TEST_EQ(run(&th, &mask), 0);
	rt_mem_close(p.mem);
}

TEST_CASE(blocked_put_back)
{
	struct rt_process p = { .pid = start(child_blocks) };
	struct rt_thread th = { .tid = p.pid, .proc = &p };
	uint64_t mask = 0;

	TEST_TRUE(p.pid > 0);
	TEST_EQ(rt_mem_open(p.pid, &p.mem), 0);
	rt_sigtrap_note(&p, &th);
	TEST_TRUE(th.trap_blocked);
	TEST_EQ(run(&th, &mask), 0);
	TEST_NE(mask & TRAP_BIT, 0);
	rt_mem_close(p.mem);
}

TEST_CASE(handler_put_back)
{
	struct rt_process p = { .pid = start(child_catches) };
	struct rt_thread th = { .tid = p.pid, .proc = &p };
	uint64_t mask = 0;

	TEST_TRUE(p.pid > 0);
	TEST_EQ(rt_mem_open(p.pid, &p.mem), 0);
	rt_sigtrap_note(&p, &th);  /* reads the handler from the kernel */
	TEST_EQ(p.sigtrap[RT_TRAPSIG_TRAP].disp, RT_TRAP_CAUGHT);
	TEST_EQ(p.sigtrap[RT_TRAPSIG_TRAP].want, (uint64_t)(uintptr_t)on_trap);
	TEST_EQ(run(&th, &mask), 0);
	/* inside the handler, where the int3 was: blocked again */
	TEST_NE(mask & TRAP_BIT, 0);
	rt_mem_close(p.mem);
}

TEST_CASE(ignored_sigill_put_back)
{
	struct rt_process p = { .pid = start(child_ignores_ill) };
	struct rt_thread th = { .tid = p.pid, .proc = &p };
	uint64_t mask = 0;

	TEST_TRUE(p.pid > 0);
	TEST_EQ(rt_mem_open(p.pid, &p.mem), 0);
	rt_sigtrap_note(&p, &th);  /* an ignored signal, from /proc */
	TEST_EQ(p.sigtrap[RT_TRAPSIG_ILL].disp, RT_TRAP_IGNORED);
	TEST_EQ(p.sigtrap[RT_TRAPSIG_TRAP].disp, RT_TRAP_DEFAULT);
	TEST_EQ(run(&th, &mask), 0);
	rt_mem_close(p.mem);
}

TEST_CASE(blocked_sigill_put_back)
{
	struct rt_process p = { .pid = start(child_blocks_ill) };
	struct rt_thread th = { .tid = p.pid, .proc = &p };
	uint64_t mask = 0;

	TEST_TRUE(p.pid > 0);
	TEST_EQ(rt_mem_open(p.pid, &p.mem), 0);
	rt_sigtrap_note(&p, &th);
	TEST_EQ(th.trap_blocked, 1U << RT_TRAPSIG_ILL);
	TEST_EQ(run(&th, &mask), 0);
	TEST_NE(mask & ILL_BIT, 0);
	rt_mem_close(p.mem);
}
