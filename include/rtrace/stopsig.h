/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtrace's own signals while it traces.  SIGINT, SIGTERM, SIGHUP and
 * SIGQUIT end a session: a launched program gets the signal once (a copy
 * sent to the whole process group is not passed on again), an attached
 * process is left running; only a second Ctrl-C typed at the terminal
 * kills a launched program.  A timer wakes the tracer's wait now and then.
 * Process-wide state: one session at a time.
 */
#ifndef RTRACE_STOPSIG_H
#define RTRACE_STOPSIG_H

#include <stdbool.h>
#include <sys/types.h>

struct rt_tracer;

/* Installs (@on) or removes rtrace's handlers of the stop signals; either
 * way, what they noted is forgotten. */
void rt_stopsig_catch(bool on);

/* The program rtrace launched, which stop signals are passed on to (0:
 * none, as when attached). */
void rt_stopsig_set_child(pid_t pid);

/* The program set by rt_stopsig_set_child(), or 0. */
pid_t rt_stopsig_child(void);

/* Stop signals rtrace received since rt_stopsig_reset(). */
unsigned rt_stopsig_count(void);
void rt_stopsig_reset(void);

/* Passes on, or drops, each stop signal whose decision is due: dropped
 * when a thread of the program took the same signal around the time
 * rtrace got it (or it waits in the program's queue), passed on once
 * when none did within 100 ms.  Called by the loop after each step. */
void rt_stopsig_pass_on(const struct rt_tracer *tr);

/* Makes the tracer's wait return (EINTR) every @us microseconds; 0 stops
 * it.  The handler stays once installed. */
void rt_stopsig_tick(long us);

/* The signal that interrupts rtrace's wait for the program, its handler
 * (which only makes the wait return) put in place: for the event areas'
 * waiters to send. */
int rt_stopsig_wake_sig(void);

#endif
