/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The packed event codec of log format version 2 (docs/log-format.md,
 * "PACKED"): one event is a tag byte and varints, its fields coded as
 * differences from the previous event of the same thread in the same
 * block.  Private to src/log: the writer and the reader of evlog.c share
 * it so that they cannot disagree.
 */
#ifndef RTRACE_LOG_PACKED_H
#define RTRACE_LOG_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "rtrace/evlog.h"

#define PK_EVENT_MAX 64		/* bytes one packed event takes at most */
#define PK_THREADS_MAX 1024	/* distinct threads in one block */
#define PK_SLOTS (2 * PK_THREADS_MAX)

/* What the next event of a thread is coded against. */
struct pk_thread {
	uint32_t tid, pid, func, gen;
	uint64_t ts, sp, value;
	uint16_t nstops;
	uint8_t flags;
};

/* Codec state of one block; a slot is in use when its gen is the
 * block's, so that starting a block clears nothing. */
struct pk_state {
	struct pk_thread slot[PK_SLOTS];
	struct pk_thread *cur;	/* thread of the previous event */
	uint32_t gen, nthreads;
};

/* Starts a block: no thread has a previous event. */
void pk_reset(struct pk_state *s);

/* Codes @ev at @p (PK_EVENT_MAX bytes free) and returns its size, or 0
 * when @ev cannot go in this block (a block full of threads, or a thread
 * id that now names another process): start a block and try again. */
size_t pk_encode(struct pk_state *s, uint8_t *p, const struct rt_event *ev);

/* Codes @ev[0..@n) at @p while PK_EVENT_MAX of the @room bytes there are
 * free and pk_encode() takes them; returns how many it coded, their bytes
 * in *@used. */
size_t pk_encode_run(struct pk_state *s, uint8_t *p, size_t room,
		     const struct rt_event *ev, size_t n, size_t *used);

/* Decodes the event at @p, before @end, into @ev.  Returns its size, 0
 * when it runs past @end, or -1 with *@why set when it is malformed. */
long pk_decode(struct pk_state *s, const uint8_t *p, const uint8_t *end,
	       struct rt_event *ev, const char **why);

#endif
