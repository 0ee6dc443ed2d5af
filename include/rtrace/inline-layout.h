/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The layout of the event area the inline engine shares with a traced
 * process, and of the data block its recorder reads.  Included by C and by
 * the recorder's assembly, so only macros here.
 *
 * The area is one memory file mapped in both processes:
 *
 *   [0, RT_IA_CTL)            header (informational, for a human with gdb)
 *   [RT_IA_CTL, RT_IA_TABLE)  control words, shared by all threads
 *   [RT_IA_TABLE, +slots*64)  thread table, one 64-byte slot per thread
 *   [RT_IA_LOSTFN, +ids*8)    events not recorded, per function id
 *   then the rings            one ring of RT_IA_CAP events per slot
 *
 * A slot belongs to one thread of the process, found by the thread
 * pointer the thread's %fs:0 holds.  Only the thread writes its ring and
 * its head; only rtrace writes the tail and the rest of the slot, but for
 * a slot a thread claims itself (RT_IA_CTL_CLAIM): the thread pointer, by
 * an atomic compare-and-exchange from free or left, then its thread id.
 */
#ifndef RTRACE_INLINE_LAYOUT_H
#define RTRACE_INLINE_LAYOUT_H

#define RT_IA_SLOTS 256            /* threads with a ring at one time */
#define RT_IA_CAP 16384            /* events per ring (a power of two) */
#define RT_IA_EVENT 32             /* bytes per event: time, stack pointer,
				    * value, word (whose it is, the slot
				    * says); two to a cache line */
/* A ring event's flag that never reaches the log: its stack pointer is
 * rt_arch_tramp_below() under the site's (rt_tramp_rec.inside). */
#define RT_IA_EVF_BELOW 0x80
#define RT_IA_PROBES 16            /* table slots a lookup tries */

#define RT_IA_TABLE 4096           /* offset of the thread table */
#define RT_IA_SLOT_SIZE 64
/* u64 counters of the events the recorder did not record, one per
 * function id from the data block's RT_RD_LOST_BASE on; the ids past
 * them count for the process only (RT_IA_CTL_LOST, RT_IA_CTL_NOSLOT) */
#define RT_IA_LOSTFN (RT_IA_TABLE + RT_IA_SLOTS * RT_IA_SLOT_SIZE)
#define RT_IA_LOSTFN_IDS 65536
#define RT_IA_RINGS (RT_IA_LOSTFN + RT_IA_LOSTFN_IDS * 8)
#define RT_IA_SIZE (RT_IA_RINGS + RT_IA_SLOTS * RT_IA_CAP * RT_IA_EVENT)

/* Fields of a slot. */
#define RT_IA_SLOT_TP 0            /* thread pointer; 0 = free, 1 = left,
				    * tp | 1 = tp is shared: its threads
				    * stop at the recorder's miss */
#define RT_IA_SLOT_IDS 8           /* tid | pid << 32 (rtrace's), or the
				    * tid alone (a claim); 0 while free */
#define RT_IA_SLOT_HEAD 16         /* events written */
#define RT_IA_SLOT_TAIL 24         /* events taken */
#define RT_IA_SLOT_RING 32         /* the ring's address in the tracee */
#define RT_IA_SLOT_WAIT 40         /* u32: 1 while the thread waits for
				    * its full ring to be emptied */
#define RT_IA_SLOT_NUDGE 44        /* u32: 1 once the thread said its ring
				    * is half full; rtrace clears it */

/* The control words (RT_IA_CTL_MODE is rtrace's, the rest both sides'). */
#define RT_IA_CTL (RT_IA_TABLE - 64)
#define RT_IA_CTL_BELL 0           /* u32 futex word: bumped by a thread
				    * that wants its ring emptied */
#define RT_IA_CTL_OFF 4            /* u32: nonzero, nothing is recorded */
#define RT_IA_CTL_MODE 8           /* u32: RT_WAIT_* */
#define RT_IA_CTL_CLAIM 12         /* u32: nonzero, a thread with no slot
				    * claims a free one itself instead of
				    * stopping at the recorder's miss */
#define RT_IA_CTL_LOST 16          /* u64: events not recorded (off) */
#define RT_IA_CTL_NOSLOT 24        /* u64: events not recorded: the
				    * thread found no slot to claim */

#define RT_WAIT_TRAP 0             /* a full ring stops the thread (a
				    * breakpoint) */
#define RT_WAIT_FUTEX 1            /* it waits on a futex rtrace wakes */

/* Why recording is off (RT_IA_CTL_OFF). */
#define RT_OFF_SILENT 2            /* rtrace did not answer for seconds */
#define RT_OFF_GONE 3              /* rtrace is gone (its guardian said) */

/* The recorder's data block, written by rtrace after the code. */
#define RT_RD_TABLE 0              /* the thread table's address */
#define RT_RD_MASK 8               /* RT_IA_SLOTS - 1 (the recorder's
				    * lookup has it built in) */
#define RT_RD_CAP 16               /* RT_IA_CAP */
#define RT_RD_CAP_MASK 24          /* RT_IA_CAP - 1 */
#define RT_RD_CLOCK 32             /* RT_CLOCK_* */
#define RT_RD_CTL 40               /* the control words' address */
#define RT_RD_HALF 48              /* RT_IA_CAP / 2, or ~0: no nudge */
#define RT_RD_LOSTFN 56            /* the per-function counters' address */
#define RT_RD_LOST_BASE 64         /* the function id of the first */
#define RT_RD_SIZE 72

#define RT_CLOCK_TSC 0             /* time stamp counter, converted later */
#define RT_CLOCK_SYSCALL 1         /* clock_gettime(CLOCK_MONOTONIC) */

#endif
