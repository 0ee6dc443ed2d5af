/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Distinct call stacks, as the tracer captures them: each new sequence of
 * program counters gets the next id, and an old one its id again, so the
 * log holds every stack once however often it is hit.
 */
#ifndef RTRACE_STACKS_H
#define RTRACE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/raddr.h"

struct rt_stacks;

/* An empty table; free with rt_stacks_free(). */
struct rt_stacks *rt_stacks_new(void);

/* Frees the table; accepts NULL. */
void rt_stacks_free(struct rt_stacks *s);

/* The id (from 1) of stack @pcs[0..n) of process @pid; *fresh tells
 * whether it was seen for the first time.  Memory grows with the number
 * of distinct stacks, not of calls. */
uint32_t rt_stacks_intern(struct rt_stacks *s, uint32_t pid,
			  const rt_raddr *pcs, size_t n, bool *fresh);

#endif
