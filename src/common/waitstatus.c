// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The only file that looks inside a wait status.  With PTRACE_SEIZE the
 * kernel reports group-stops as PTRACE_EVENT_STOP with the stopping signal
 * in bits 8-15, which is how they are told apart from signal-delivery-stops
 * without a PTRACE_GETSIGINFO call.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

static enum rt_ptrace_event map_event(int ev)
{
	switch (ev) {
	case PTRACE_EVENT_FORK: return RT_EVENT_FORK;
	case PTRACE_EVENT_VFORK: return RT_EVENT_VFORK;
	case PTRACE_EVENT_CLONE: return RT_EVENT_CLONE;
	case PTRACE_EVENT_EXEC: return RT_EVENT_EXEC;
	case PTRACE_EVENT_VFORK_DONE: return RT_EVENT_VFORK_DONE;
	case PTRACE_EVENT_EXIT: return RT_EVENT_EXIT;
	case PTRACE_EVENT_STOP: return RT_EVENT_STOP;
	default: return RT_EVENT_NONE;
	}
}

static void decode_stopped(int status, struct rt_wait *w)
{
	int sig = WSTOPSIG(status);
	int ev = (unsigned)status >> 16;

	w->sig = sig;
	if (ev == PTRACE_EVENT_STOP) {
		/* group-stop under SEIZE: the signal is a stopping one */
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
		    sig == SIGTTOU) {
			w->kind = RT_STOP_GROUP;
			return;
		}
		w->kind = RT_STOP_EVENT;
		w->event = RT_EVENT_STOP;
		return;
	}
	if (ev) {
		w->kind = RT_STOP_EVENT;
		w->event = map_event(ev);
		return;
	}
	if (sig == (SIGTRAP | 0x80)) {
		w->kind = RT_STOP_SYSCALL;
		w->sig = SIGTRAP;
		return;
	}
	/* SIGILL: rtrace's breakpoints in the program's code are faults */
	w->kind = sig == SIGTRAP || sig == SIGILL ? RT_STOP_TRAP
						  : RT_STOP_SIGNAL;
}

void rt_waitstatus_decode(pid_t tid, int status, struct rt_wait *w)
{
	*w = (struct rt_wait){ .tid = tid, .raw = status };
	if (WIFEXITED(status)) {
		w->kind = RT_STOP_EXITED;
		w->code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		w->kind = RT_STOP_KILLED;
		w->sig = WTERMSIG(status);
		w->core = WCOREDUMP(status);
	} else {
		decode_stopped(status, w);
	}
}

static int wait_one(pid_t which, struct rt_wait *w)
{
	int status;
	pid_t tid = waitpid(which, &status, __WALL);

	rt_syscalls++;
	if (tid < 0)
		return -errno;
	rt_waitstatus_decode(tid, status, w);
	return 0;
}

int rt_wait_any(struct rt_wait *w)
{
	return wait_one(-1, w);
}

int rt_wait_tid(pid_t tid, struct rt_wait *w)
{
	int err;

	/* only the main loop's wait is meant to be interrupted (a timer) */
	do
		err = wait_one(tid, w);
	while (err == -EINTR);
	return err;
}

int rt_waitstatus_shell_code(int raw)
{
	if (WIFEXITED(raw))
		return WEXITSTATUS(raw);
	if (WIFSIGNALED(raw))
		return 128 + WTERMSIG(raw);
	return 1;
}

bool rt_waitstatus_signaled(int raw, int *sig)
{
	if (!WIFSIGNALED(raw))
		return false;
	if (sig)
		*sig = WTERMSIG(raw);
	return true;
}
