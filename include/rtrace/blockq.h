/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A queue of byte blocks consumed in order by a thread of its own, so
 * that what one thread produces (the log writer's blocks) is analysed on
 * another CPU while the producer goes on.  The producer hands over
 * copies; the consumer's function sees every block once, in the order
 * given, and never two at a time.  A bounded queue: when the consumer
 * falls behind by more than the bound, the producer waits for it.
 *
 * Where no thread can be started, the producer's call runs the consumer
 * itself: the same calls, in the same order, one CPU.
 *
 * Before fork(), rt_blockq_hold() waits until the consumer is idle and
 * keeps it so until rt_blockq_release(); the child gets a consistent copy
 * of the consumer's state and no thread, and rt_blockq_end() there only
 * frees.
 */
#ifndef RTRACE_BLOCKQ_H
#define RTRACE_BLOCKQ_H

#include <stddef.h>
#include <stdint.h>

struct rt_blockq;

/* The consumer: called with each block; @bytes are valid during the
 * call only. */
typedef void (*rt_blockq_fn)(void *ctx, const uint8_t *bytes, size_t n);

/* A queue whose blocks go to @fn(@ctx, ...) on a new thread that takes
 * no signal but those of its own crash; the producer waits once more
 * than @bound bytes are queued.  Free with rt_blockq_end(). */
struct rt_blockq *rt_blockq_new(rt_blockq_fn fn, void *ctx, size_t bound);

/* Queues a copy of @n bytes at @bytes (the caller keeps its own). */
void rt_blockq_put(struct rt_blockq *q, const uint8_t *bytes, size_t n);

/* Waits until every block put so far has been consumed and keeps the
 * consumer idle until rt_blockq_release(); for a fork() in between. */
void rt_blockq_hold(struct rt_blockq *q);

/* Lets the consumer go on after rt_blockq_hold(). */
void rt_blockq_release(struct rt_blockq *q);

/* Consumes what is queued, stops the thread and frees @q; accepts NULL.
 * In a child forked under rt_blockq_hold(), frees only. */
void rt_blockq_end(struct rt_blockq *q);

#endif
