/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The waiter for one event area's bell.  A traced thread whose ring fills
 * does not stop for rtrace: it bumps a futex word in the shared area and
 * sleeps.  rtrace's own loop waits for the program's stops (waitpid), not
 * on futexes, so a small thread of rtrace's waits on the word instead and
 * interrupts the loop with a signal, whose handler only makes the wait
 * return: the loop then empties the rings and wakes the sleepers.
 */
#ifndef RTRACE_RINGWAKE_H
#define RTRACE_RINGWAKE_H

#include <stdint.h>
#include <sys/types.h>

struct rt_ringwake;

/* Starts a thread that sends signal @sig to thread @tid of this process
 * each time the futex word @bell (in shared memory that outlives the
 * waiter) changes.  The signal's handler must be in place.  NULL when no
 * thread could be made; the result is the caller's (rt_ringwake_stop()). */
struct rt_ringwake *rt_ringwake_start(uint32_t *bell, pid_t tid,
				      int sig);

/* Ends and joins the thread and frees @w.  Accepts NULL. */
void rt_ringwake_stop(struct rt_ringwake *w);

/* Wakes every thread sleeping on futex word @word in shared memory. */
void rt_ringwake_wake_all(uint32_t *word);

#endif
