/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trap guard of an attached process: a handler rtrace installs as the
 * action of SIGILL and SIGTRAP, where the program leaves them at their
 * default, so that a kill -9 of rtrace does not kill the program.  When
 * rtrace dies the kernel lets its threads go, dropping the signal of a
 * thread stopped at a trap; one that was stopped at a breakpoint of
 * rtrace's (a fault: it runs it again), or reaches one before the
 * guardian (guardian.h) has put the original code back, gets the
 * breakpoint's SIGILL; one stepped by rtrace, a SIGTRAP.  Without a
 * handler that is the program's death.  The handler waits for the
 * guardian and then runs the original instruction; every other signal
 * gets the default action as before (arch/<cpu>/trapguard.S, the layout
 * in trapguard-layout.h).
 *
 * What the program sees: sigaction(SIGILL, NULL, &old) (or SIGTRAP) reads
 * the handler instead of SIG_DFL while rtrace is attached, and after a
 * kill -9 of rtrace.  A program that sets its own action replaces it.
 */
#ifndef RTRACE_TRAPGUARD_H
#define RTRACE_TRAPGUARD_H

#include <sys/types.h>

struct rt_plan;
struct rt_process;

/* Maps the guard in process @p through its stopped thread @tid and makes
 * it the action of SIGILL and of SIGTRAP, each where the program left it
 * at its default, when a guardian runs; the guardian hears of it.  Sets p->trapguard.  A
 * failure is said once and leaves the process unguarded.  A signal that
 * came meanwhile goes to *@deferred. */
void rt_trapguard_install(struct rt_process *p, pid_t tid, int *deferred);

/* The breakpoints of @p's recorder (its event area's), which a thread
 * resumes past, go to the guard. */
void rt_trapguard_note_recorder(struct rt_process *p);

/* So do those of @plan's stop-cost calibration row, just armed in @p. */
void rt_trapguard_note_plan(struct rt_process *p, const struct rt_plan *plan);

/* A SIGTRAP or SIGILL is about to be passed on to the program in @p: the
 * guard gives it the default action at once. */
void rt_trapguard_pass(struct rt_process *p);

/* Takes the guard out of @p (a detach) through stopped thread @tid: the
 * actions back to SIG_DFL where they are still the guard's, the mapping
 * gone. */
void rt_trapguard_remove(struct rt_process *p, pid_t tid, int *deferred);

#endif
