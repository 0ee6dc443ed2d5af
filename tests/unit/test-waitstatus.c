// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wait statuses: raw values built the way the kernel encodes them (not
 * with the W* macros under test), decoded into kinds, signals, codes and
 * ptrace events; the shell's view of an exit status; and two real
 * children.
 *
 *   exited             code << 8
 *   killed             sig, | 0x80 when a core was dumped
 *   signal-delivery    (sig << 8) | 0x7f
 *   ptrace event       (event << 16) | (SIGTRAP << 8) | 0x7f
 *   group-stop, SEIZE  (PTRACE_EVENT_STOP << 16) | (sig << 8) | 0x7f
 *   syscall stop       ((SIGTRAP | 0x80) << 8) | 0x7f   (TRACESYSGOOD)
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtrace/compiler.h"
#include "rtrace/waitstatus.h"
#include "unittest.h"

static int exited(int code)
{
	return code << 8;
}

static int killed(int sig, bool core)
{
	return sig | (core ? 0x80 : 0);
}

static int stopped(int sig)
{
	return sig << 8 | 0x7f;
}

static int ptrace_event(int event, int sig)
{
	return event << 16 | sig << 8 | 0x7f;
}

TEST_CASE(decode_exited)
{
	static const int codes[] = { 0, 1, 3, 127, 255 };
	struct rt_wait w;

	for (size_t i = 0; i < ARRAY_SIZE(codes); i++) {
		rt_waitstatus_decode(1234, exited(codes[i]), &w);
		TEST_EQ(w.tid, 1234);
		TEST_EQ(w.raw, exited(codes[i]));
		TEST_EQ(w.kind, RT_STOP_EXITED);
		TEST_EQ(w.code, codes[i]);
		TEST_EQ(w.sig, 0);
		TEST_EQ(w.core, false);
		TEST_EQ(w.event, RT_EVENT_NONE);
	}
}

TEST_CASE(decode_killed)
{
	struct rt_wait w;

	rt_waitstatus_decode(7, killed(SIGKILL, false), &w);
	TEST_EQ(w.kind, RT_STOP_KILLED);
	TEST_EQ(w.sig, SIGKILL);
	TEST_EQ(w.core, false);
	TEST_EQ(w.code, 0);
	TEST_EQ(w.raw, 9);

	rt_waitstatus_decode(7, killed(SIGSEGV, true), &w);
	TEST_EQ(w.kind, RT_STOP_KILLED);
	TEST_EQ(w.sig, SIGSEGV);
	TEST_EQ(w.core, true);
	TEST_EQ(w.raw, 0x8b);

	rt_waitstatus_decode(7, killed(SIGABRT, true), &w);
	TEST_EQ(w.kind, RT_STOP_KILLED);
	TEST_EQ(w.sig, SIGABRT);
	TEST_EQ(w.core, true);
}

TEST_CASE(decode_signal_stops)
{
	struct rt_wait w;

	/* a breakpoint */
	rt_waitstatus_decode(5, stopped(SIGTRAP), &w);
	TEST_EQ(w.kind, RT_STOP_TRAP);
	TEST_EQ(w.sig, SIGTRAP);
	TEST_EQ(w.event, RT_EVENT_NONE);
	TEST_EQ(w.raw, 0x057f);

	/* a breakpoint in the program's code: a fault */
	rt_waitstatus_decode(5, stopped(SIGILL), &w);
	TEST_EQ(w.kind, RT_STOP_TRAP);
	TEST_EQ(w.sig, SIGILL);
	TEST_EQ(w.raw, 0x047f);

	/* signals about to be delivered */
	rt_waitstatus_decode(5, stopped(SIGUSR1), &w);
	TEST_EQ(w.kind, RT_STOP_SIGNAL);
	TEST_EQ(w.sig, SIGUSR1);
	TEST_EQ(w.event, RT_EVENT_NONE);
	rt_waitstatus_decode(5, stopped(SIGSEGV), &w);
	TEST_EQ(w.kind, RT_STOP_SIGNAL);
	TEST_EQ(w.sig, SIGSEGV);
	/* SIGSTOP without the event bits is a signal-delivery-stop */
	rt_waitstatus_decode(5, stopped(SIGSTOP), &w);
	TEST_EQ(w.kind, RT_STOP_SIGNAL);
	TEST_EQ(w.sig, SIGSTOP);
}

TEST_CASE(decode_ptrace_events)
{
	static const struct {
		int raw_event;
		enum rt_ptrace_event event;
	} cases[] = {
		{ PTRACE_EVENT_FORK, RT_EVENT_FORK },
		{ PTRACE_EVENT_VFORK, RT_EVENT_VFORK },
		{ PTRACE_EVENT_CLONE, RT_EVENT_CLONE },
		{ PTRACE_EVENT_EXEC, RT_EVENT_EXEC },
		{ PTRACE_EVENT_VFORK_DONE, RT_EVENT_VFORK_DONE },
		{ PTRACE_EVENT_EXIT, RT_EVENT_EXIT },
	};
	struct rt_wait w;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		rt_waitstatus_decode(42, ptrace_event(cases[i].raw_event,
						      SIGTRAP), &w);
		TEST_EQ(w.kind, RT_STOP_EVENT);
		TEST_EQ(w.event, cases[i].event);
		TEST_EQ(w.sig, SIGTRAP);
		TEST_EQ(w.tid, 42);
	}
	/* the numbers are the kernel's ABI */
	TEST_EQ(ptrace_event(PTRACE_EVENT_CLONE, SIGTRAP), 0x3057f);
	TEST_EQ(ptrace_event(PTRACE_EVENT_EXIT, SIGTRAP), 0x6057f);

	/* an event rtrace never asks for (seccomp, 7) */
	rt_waitstatus_decode(42, ptrace_event(7, SIGTRAP), &w);
	TEST_EQ(w.kind, RT_STOP_EVENT);
	TEST_EQ(w.event, RT_EVENT_NONE);
}

/* Under PTRACE_SEIZE a group-stop is PTRACE_EVENT_STOP with the stopping
 * signal; the same event with SIGTRAP is PTRACE_INTERRUPT's stop. */
TEST_CASE(decode_group_stop)
{
	static const int stopsigs[] = { SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU };
	struct rt_wait w;

	for (size_t i = 0; i < ARRAY_SIZE(stopsigs); i++) {
		rt_waitstatus_decode(9, ptrace_event(PTRACE_EVENT_STOP,
						     stopsigs[i]), &w);
		TEST_EQ(w.kind, RT_STOP_GROUP);
		TEST_EQ(w.sig, stopsigs[i]);
		TEST_EQ(w.event, RT_EVENT_NONE);
	}
	TEST_EQ(ptrace_event(PTRACE_EVENT_STOP, SIGSTOP), 0x80137f);

	rt_waitstatus_decode(9, ptrace_event(PTRACE_EVENT_STOP, SIGTRAP), &w);
	TEST_EQ(w.kind, RT_STOP_EVENT);
	TEST_EQ(w.event, RT_EVENT_STOP);
	TEST_EQ(w.sig, SIGTRAP);
}

TEST_CASE(decode_syscall_stop)
{
	struct rt_wait w;

	rt_waitstatus_decode(3, stopped(SIGTRAP | 0x80), &w);
	TEST_EQ(w.kind, RT_STOP_SYSCALL);
	TEST_EQ(w.sig, SIGTRAP);
	TEST_EQ(w.event, RT_EVENT_NONE);
	TEST_EQ(w.raw, 0x857f);
}

TEST_CASE(shell_code)
{
	TEST_EQ(rt_waitstatus_shell_code(exited(0)), 0);
	TEST_EQ(rt_waitstatus_shell_code(exited(3)), 3);
	TEST_EQ(rt_waitstatus_shell_code(exited(255)), 255);
	/* 128 + 9, 128 + 15, 128 + 11 (a core does not change it) */
	TEST_EQ(rt_waitstatus_shell_code(killed(SIGKILL, false)), 137);
	TEST_EQ(rt_waitstatus_shell_code(killed(SIGTERM, false)), 143);
	TEST_EQ(rt_waitstatus_shell_code(killed(SIGSEGV, true)), 139);
}

TEST_CASE(signaled)
{
	int sig = -1;

	TEST_TRUE(rt_waitstatus_signaled(killed(SIGTERM, false), &sig));
	TEST_EQ(sig, SIGTERM);
	TEST_TRUE(rt_waitstatus_signaled(killed(SIGSEGV, true), &sig));
	TEST_EQ(sig, SIGSEGV);
	/* the signal is optional */
	TEST_TRUE(rt_waitstatus_signaled(killed(SIGKILL, false), NULL));

	sig = -1;
	TEST_TRUE(!rt_waitstatus_signaled(exited(0), &sig));
	TEST_TRUE(!rt_waitstatus_signaled(exited(3), &sig));
	TEST_TRUE(!rt_waitstatus_signaled(stopped(SIGSTOP), &sig));
	TEST_EQ(sig, -1);
}

/* ---- real children ------------------------------------------------------- */

TEST_CASE(live_exit)
{
	struct rt_wait w;
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(3);
	TEST_TRUE(pid > 0);
	TEST_EQ(waitpid(pid, &status, 0), pid);
	rt_waitstatus_decode(pid, status, &w);
	TEST_EQ(w.tid, pid);
	TEST_EQ(w.kind, RT_STOP_EXITED);
	TEST_EQ(w.code, 3);
	TEST_EQ(rt_waitstatus_shell_code(status), 3);
	TEST_TRUE(!rt_waitstatus_signaled(status, NULL));
}

TEST_CASE(live_killed)
{
	struct rt_wait w;
	int sig = 0;
	pid_t pid = fork();

	if (pid == 0) {
		alarm(30);  /* never outlive a failed case for long */
		for (;;)
			pause();
	}
	TEST_TRUE(pid > 0);
	TEST_EQ(kill(pid, SIGTERM), 0);
	TEST_EQ(rt_wait_tid(pid, &w), 0);
	TEST_EQ(w.tid, pid);
	TEST_EQ(w.kind, RT_STOP_KILLED);
	TEST_EQ(w.sig, SIGTERM);
	TEST_EQ(w.core, false);
	TEST_EQ(rt_waitstatus_shell_code(w.raw), 128 + SIGTERM);
	TEST_TRUE(rt_waitstatus_signaled(w.raw, &sig));
	TEST_EQ(sig, SIGTERM);
	/* nothing left to wait for */
	TEST_EQ(rt_wait_tid(pid, &w), -ECHILD);
}
