/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one place that interprets a raw wait status.  waitpid() results are
 * decoded once into a typed stop; no other file looks inside a status.
 */
#ifndef RTRACE_WAITSTATUS_H
#define RTRACE_WAITSTATUS_H

#include <stdbool.h>
#include <sys/types.h>

enum rt_stop_kind {
	RT_STOP_EXITED,      /* the thread exited; code() is the exit code */
	RT_STOP_KILLED,      /* the thread died of sig() */
	RT_STOP_TRAP,        /* SIGTRAP or SIGILL signal stop: a breakpoint,
			      * usually (rt_arch_trap_resolve()) */
	RT_STOP_SIGNAL,      /* another signal is about to be delivered */
	RT_STOP_GROUP,       /* group-stop (SIGSTOP and friends, SEIZE) */
	RT_STOP_EVENT,       /* a ptrace event: see event() */
	RT_STOP_SYSCALL,     /* syscall-entry/exit stop (TRACESYSGOOD) */
};

enum rt_ptrace_event {
	RT_EVENT_NONE,
	RT_EVENT_FORK,
	RT_EVENT_VFORK,
	RT_EVENT_CLONE,
	RT_EVENT_EXEC,
	RT_EVENT_VFORK_DONE,
	RT_EVENT_EXIT,
	RT_EVENT_STOP,       /* PTRACE_EVENT_STOP outside a group-stop */
};

struct rt_wait {
	pid_t tid;
	int raw;             /* the status, for re-encoding exit status */
	enum rt_stop_kind kind;
	int sig;             /* stopping or killing signal */
	int code;            /* exit code */
	bool core;           /* core dumped */
	enum rt_ptrace_event event;
};

/* Decodes @status of thread @tid. */
void rt_waitstatus_decode(pid_t tid, int status, struct rt_wait *w);

/* Waits for any traced thread (__WALL), retrying nothing: returns 0 with
 * *w filled, -EINTR when a signal to rtrace interrupted the wait, -ECHILD
 * when no traced thread is left. */
int rt_wait_any(struct rt_wait *w);

/* Waits for thread @tid only (setup paths); same returns. */
int rt_wait_tid(pid_t tid, struct rt_wait *w);

/* Exit status a shell would see for the process status @raw: the exit
 * code, or 128+N after death by signal N. */
int rt_waitstatus_shell_code(int raw);

/* Whether @raw says the process died of a signal, and which. */
bool rt_waitstatus_signaled(int raw, int *sig);

#endif
