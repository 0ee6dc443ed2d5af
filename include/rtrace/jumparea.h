/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event area of the jump engine in one traced process: a memory
 * file the process maps (created inside it by injected system calls) and
 * rtrace maps too.  Patched sites append events to their thread's ring
 * there without stopping; rtrace empties the rings into the log: at every
 * stop of the thread (so that the log keeps each thread's order), when a
 * ring fills, when a thread ends, and at the end.
 */
#ifndef RTRACE_JUMPAREA_H
#define RTRACE_JUMPAREA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtrace/arch.h"
#include "rtrace/evlog.h"
#include "rtrace/tracee.h"

struct rt_inline_area;

/* Receives @n events of thread @tid taken from its ring, in its order,
 * their times already in ns; they are the caller's copies, which the
 * receiver may change. */
typedef void rt_inline_emit_fn(void *ctx, pid_t tid, struct rt_event *ev,
			       size_t n);

/* Areas made from now on let a thread whose ring is full sleep until
 * rtrace empties it, instead of stopping: a waiter thread of rtrace's
 * sends signal @sig (its handler in place) to the calling thread, whose
 * interrupted wait then drains the rings (rt_inline_drain_all()).  0:
 * full rings stop their thread. */
void rt_inline_wake_by(int sig);

/* Creates the area of process @pid through its stopped thread @tid and
 * writes the data block of the recorder copied at @recorder; events not
 * recorded are counted per function from id @first_id on.  Its rings
 * are smaller when the process's address space is limited.  *out is the
 * caller's (rt_inline_free()).  0, or -errno (-E2BIG: no room under the
 * process's address-space limit): the process then keeps its
 * breakpoints. */
int rt_inline_new(pid_t pid, pid_t tid, struct rt_mem *mem,
		  rt_raddr recorder, uint32_t first_id, int *deferred_sig,
		  struct rt_inline_area **out);

/* Forgets the area (the process's mapping stays; it ends with it).
 * Accepts NULL.  Undrained events are lost: drain first. */
void rt_inline_free(struct rt_inline_area *a);

/* What a breakpoint at @site of the recorder is. */
enum rt_inline_bell {
	RT_BELL_NONE,    /* not one of the recorder's */
	RT_BELL_MISS,    /* the thread has no ring yet */
	RT_BELL_FULL,    /* its ring is full */
};
enum rt_inline_bell rt_inline_bell(const struct rt_inline_area *a,
				   rt_raddr site);

/* Gives thread @tid (thread pointer @tp) a ring: its slot, -ENOSPC when
 * the table is full, -EBUSY when @tp is shared (rt_inline_share()). */
int rt_inline_register(struct rt_inline_area *a, pid_t tid, uint64_t tp);

/* Whether thread @tid is one of the process's that rtrace knows, and
 * ready for events (rt_inline_adopt()). */
typedef bool rt_inline_owner_fn(void *ctx, pid_t tid);

/* From now on a thread with no slot claims one itself, with no stop
 * (rtrace attached: a thread stopped at the recorder's miss would be
 * harmed if rtrace were killed), unless the program's seccomp filter
 * would refuse the recorder its gettid; @tid: a stopped thread of the
 * process.  Whether threads claim. */
bool rt_inline_claims(struct rt_inline_area *a, pid_t tid);

/* Slots that threads claimed since the last call become theirs, each
 * thread's @owner asked first; a claim by a thread rtrace does not know
 * is drained into nothing, said once. */
void rt_inline_adopt(struct rt_inline_area *a, rt_inline_owner_fn *owner,
		     void *ctx);

/* Whether the process no longer sees the area as rtrace writes it (it
 * mapped other memory over it): so for good once thread @tid, at the
 * recorder's miss, holds a slot for its thread pointer @tp.  *first: this
 * call found it out. */
bool rt_inline_view_lost(struct rt_inline_area *a, pid_t tid, uint64_t tp,
			 bool *first);

/* The slot of thread @tid, or -1. */
int rt_inline_slot_of(const struct rt_inline_area *a, pid_t tid);

/* A vfork child @borrower runs with the thread pointer of @owner, which
 * waits: the events of @owner's slot are @borrower's from now on (drain
 * first).  Returns the slot, or -1 when @owner has none. */
int rt_inline_lend(struct rt_inline_area *a, pid_t owner, pid_t borrower);

/* The child ended or exec'd (its events drained): @slot is @owner's
 * again.  Does nothing for slot -1. */
void rt_inline_give_back(struct rt_inline_area *a, int slot, pid_t borrower,
			 pid_t owner);

/* Threads that share thread pointer @tp (a clone without a TLS of its
 * own) would share a ring: the slot that has it is emptied through @emit
 * and becomes a marker that sends those threads to the recorder's miss
 * (one is placed where none had it), and no slot is given or claimed for
 * @tp again, so their events are recorded at stops. */
void rt_inline_share(struct rt_inline_area *a, uint64_t tp,
		     rt_inline_emit_fn *emit, void *ctx);

/* Empties the ring of @slot through @emit; then, with @release, frees the
 * slot (its thread ended).  Nothing in the ring is trusted: counters that
 * claim more than a ring holds, and events the recorder cannot have
 * written, are dropped with one warning per thread. */
void rt_inline_drain(struct rt_inline_area *a, int slot, bool release,
		     rt_inline_emit_fn *emit, void *ctx);

/* Empties every ring. */
void rt_inline_drain_all(struct rt_inline_area *a, rt_inline_emit_fn *emit,
			 void *ctx);

/* A thread of the process stopped at @r with its ip in the recorder:
 * when it was writing an event (a signal arrived), writes it in its place
 * and moves the ip past, so that a handler's events cannot tear it; when
 * it had no ring and none is left (table full), emits the event through
 * @emit and moves the ip past.  Returns whether it changed @r. */
bool rt_inline_finish(struct rt_inline_area *a, pid_t tid,
		      struct rt_regs *r, bool no_slot,
		      rt_inline_emit_fn *emit, void *ctx);

/* What recording one event costs a traced program, in ns: measured once
 * in rtrace, on a copy of the recorder. */
uint64_t rt_inline_event_cost(void);

/* The stack pointer at the site of a recorder call with event word @word
 * whose recorder saw @sp: the same, unless the site's trampoline stepped
 * over the red zone first (RT_IA_EVF_BELOW). */
uint64_t rt_inline_site_sp(uint64_t word, uint64_t sp);

/* Where the area is in the process, and its size. */
rt_raddr rt_inline_base(const struct rt_inline_area *a);
size_t rt_inline_size(const struct rt_inline_area *a);

/* Where the recorder is in the process. */
rt_raddr rt_inline_recorder(const struct rt_inline_area *a);

/* Memory of the area that rtrace may use to pass data to and from the
 * process (and its fork children, which share the area): @len bytes at
 * @local in rtrace and @remote in the process, valid until
 * rt_inline_free(). */
void rt_inline_bounce(const struct rt_inline_area *a, uint8_t **local,
		      rt_raddr *remote, size_t *len);

/* Events taken from rings so far, and stops they caused (bells). */
uint64_t rt_inline_events(const struct rt_inline_area *a);

/* Malformed events dropped (rt_inline_drain()); *damaged: whether any
 * ring failed a check, its lost events then not all counted. */
uint64_t rt_inline_dropped(const struct rt_inline_area *a, bool *damaged);

/* Events that threads did not record because rtrace did not answer for
 * seconds (recording off until the next drain), or because they found no
 * slot to claim, as far as said. */
uint64_t rt_inline_unrecorded(const struct rt_inline_area *a);

/* The events not recorded since the last call that said any, for the
 * log: how many (*events, 0 when none, or when the last call was under a
 * second ago unless @now), why (*reasons, enum rt_loss_reason), and the
 * functions' shares in *fns (the caller frees it), their number
 * returned. */
size_t rt_inline_losses(struct rt_inline_area *a, bool now, uint64_t *events,
			uint32_t *reasons, struct rt_log_lost_fn **fns);

#endif
