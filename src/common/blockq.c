// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The block queue (blockq.h): a singly linked list of copies, a lock and
 * two conditions.  `more` wakes the consumer (a block, or the end);
 * `done` wakes the producer (room below the bound, or the consumer idle
 * with nothing queued).  The consumer runs each block outside the lock,
 * so the producer only waits for a list operation or for the bound.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrace/blockq.h"
#include "rtrace/util.h"

struct block {
	struct block *next;
	size_t n;
	uint8_t bytes[];
};

struct rt_blockq {
	rt_blockq_fn fn;
	void *ctx;
	size_t bound;
	bool threaded;		/* false: put() consumes at once */
	pid_t owner;		/* the process the thread runs in */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more, done;
	struct block *head, **tail;
	size_t queued;		/* bytes in the list */
	bool busy;		/* the consumer holds a block */
	bool ending;
};

/* The signals of the consumer's own crash: blocked, the kernel would
 * kill the process without its handlers (rtrace's rescue) running. */
static void take_own_faults(void)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < RT_N_CRASH_SIGNALS; i++)
		sigaddset(&set, rt_crash_signals[i]);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static void *consume(void *arg)
{
	struct rt_blockq *q = arg;

	take_own_faults();
	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct block *b;

		while (!q->head && !q->ending)
			pthread_cond_wait(&q->more, &q->lock);
		b = q->head;
		if (!b)
			break;
		q->head = b->next;
		if (!q->head)
			q->tail = &q->head;
		q->queued -= b->n;
		q->busy = true;
		pthread_mutex_unlock(&q->lock);
		q->fn(q->ctx, b->bytes, b->n);
		free(b);
		pthread_mutex_lock(&q->lock);
		q->busy = false;
		pthread_cond_broadcast(&q->done);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct rt_blockq *rt_blockq_new(rt_blockq_fn fn, void *ctx, size_t bound)
{
	struct rt_blockq *q = xcalloc(1, sizeof(*q));
	sigset_t all, old;

	q->fn = fn;
	q->ctx = ctx;
	q->bound = bound;
	q->tail = &q->head;
	q->owner = getpid();
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->done, NULL);
	/* rtrace's signals (the tick, Ctrl-C, SIGUSR1) are its main
	 * thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	q->threaded = pthread_create(&q->thread, NULL, consume, q) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return q;
}

void rt_blockq_put(struct rt_blockq *q, const uint8_t *bytes, size_t n)
{
	struct block *b;

	if (!q->threaded) {
		q->fn(q->ctx, bytes, n);
		return;
	}
	b = xmalloc(sizeof(*b) + n);
	b->next = NULL;
	b->n = n;
	memcpy(b->bytes, bytes, n);
	pthread_mutex_lock(&q->lock);
	while (q->queued && q->queued + n > q->bound)
		pthread_cond_wait(&q->done, &q->lock);
	*q->tail = b;
	q->tail = &b->next;
	q->queued += n;
	pthread_cond_signal(&q->more);
	pthread_mutex_unlock(&q->lock);
}

void rt_blockq_hold(struct rt_blockq *q)
{
	if (!q->threaded)
		return;
	pthread_mutex_lock(&q->lock);
	while (q->head || q->busy)
		pthread_cond_wait(&q->done, &q->lock);
}

void rt_blockq_release(struct rt_blockq *q)
{
	if (q->threaded)
		pthread_mutex_unlock(&q->lock);
}

void rt_blockq_end(struct rt_blockq *q)
{
	if (!q)
		return;
	/* a child forked under hold: the list is empty, the thread is the
	 * parent's, the lock the parent's copy */
	if (q->threaded && q->owner != getpid()) {
		free(q);
		return;
	}
	if (q->threaded) {
		pthread_mutex_lock(&q->lock);
		q->ending = true;
		pthread_cond_signal(&q->more);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->thread, NULL);
	}
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->more);
	pthread_cond_destroy(&q->done);
	free(q);
}
