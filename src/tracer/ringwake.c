// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The waiter of an event area's bell (ringwake.h).
 *
 * The word is read, compared with the value last passed on, and slept on
 * with FUTEX_WAIT only while it still holds that value: a bump between
 * the read and the sleep makes the sleep return at once, so none is lost.
 * The futex is a shared one (no FUTEX_PRIVATE_FLAG): the traced process
 * bumps it through its own mapping of the same file.
 */
#include <errno.h>
#include <linux/futex.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rtrace/ringwake.h"
#include "rtrace/util.h"

struct rt_ringwake {
	pthread_t thread;
	uint32_t *bell;
	pid_t tid;
	int sig;
	uint32_t quit;
};

static long futex(const uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static void *waiter(void *arg)
{
	struct rt_ringwake *w = arg;
	uint32_t passed = __atomic_load_n(w->bell, __ATOMIC_ACQUIRE);

	while (!__atomic_load_n(&w->quit, __ATOMIC_ACQUIRE)) {
		uint32_t now = __atomic_load_n(w->bell, __ATOMIC_ACQUIRE);

		if (now != passed) {
			passed = now;
			syscall(SYS_tgkill, getpid(), w->tid, w->sig);
			continue;
		}
		futex(w->bell, FUTEX_WAIT, passed);
	}
	return NULL;
}

struct rt_ringwake *rt_ringwake_start(uint32_t *bell, pid_t tid,
				      int sig)
{
	struct rt_ringwake *w = xcalloc(1, sizeof(*w));
	sigset_t all, old;
	int err;

	w->bell = bell;
	w->tid = tid;
	w->sig = sig;
	/* signals meant for rtrace's loop (the tick, Ctrl-C) must never be
	 * taken by this thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&w->thread, NULL, waiter, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		free(w);
		return NULL;
	}
	return w;
}

void rt_ringwake_stop(struct rt_ringwake *w)
{
	if (!w)
		return;
	__atomic_store_n(&w->quit, 1, __ATOMIC_RELEASE);
	/* a bump, not only a wake: the waiter may be between its look at
	 * the word and its sleep, which then returns at once */
	__atomic_add_fetch(w->bell, 1, __ATOMIC_ACQ_REL);
	futex(w->bell, FUTEX_WAKE, INT_MAX);
	pthread_join(w->thread, NULL);
	free(w);
}

void rt_ringwake_wake_all(uint32_t *word)
{
	futex(word, FUTEX_WAKE, INT_MAX);
}
