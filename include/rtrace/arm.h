/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Putting probes into a live process and taking them out: the load bias of
 * its executable, a scratch area mapped within reach of its code (through a
 * remote mmap), the slot code, and the breakpoints, written in batches
 * through /proc/PID/mem.
 */
#ifndef RTRACE_ARM_H
#define RTRACE_ARM_H

#include <stddef.h>
#include <sys/types.h>

#include "rtrace/engine.h"
#include "rtrace/match.h"
#include "rtrace/symbols.h"
#include "rtrace/tasks.h"

/* Entry @type (AT_ENTRY, AT_BASE...) of @pid's auxiliary vector: 0, or
 * -ENOENT when absent, -errno when unreadable (logged). */
int rt_auxv_get(pid_t pid, uint64_t type, uint64_t *val);

/* Load bias of the executable of stopped process @pid (0 when not PIE):
 * AT_ENTRY from /proc/PID/auxv minus the file's entry point. */
int rt_arm_bias(pid_t pid, const struct rt_symbols *syms, rt_raddr *bias);

/* Maps the scratch area of image @img's plan near its code (through
 * thread @tid of @p, which must be stopped), lays out the slots, writes
 * their code, and arms every probe, the patched sites as @engine says.
 * Returns 0 or -errno after logging. */
int rt_arm_image(const struct rt_engine_ops *engine, struct rt_process *p,
		 struct rt_image *img, pid_t tid, int *deferred_sig);

/* Probe sites rtrace did not write back because the program had put code
 * of its own there since they were armed.  Zero it before the first use;
 * one gathers the sites of every image of a process. */
struct rt_arm_kept {
	size_t n;            /* sites left as the program wrote them */
	rt_raddr first;      /* the first of them */
	const char *func;    /* its function, or NULL; owned by the image's
			      * symbols */
	/* bytes found not the original ones where they should be, once
	 * rtrace had written (a fault of rtrace's), and put back */
	size_t wrong_bytes, wrong_places;
	rt_raddr wrong_first;
};

/* Writes back the original bytes of every probe of @img's plan (the
 * scratch area stays: a thread may still be inside a slot).  Only bytes
 * that are still rtrace's are written: a site the program has changed
 * keeps the program's bytes and is added to @kept.  The original bytes
 * come from the image's record (codeorig.h), and are checked once
 * written: any found wrong are put right and counted in @kept too.
 * 0 or -errno. */
int rt_disarm_image(struct rt_process *p, struct rt_image *img,
		    struct rt_arm_kept *kept);

/* Says in one warning that the sites of @kept were left alone in @p,
 * and in another that bytes were found wrong and put right; nothing
 * when there are none. */
void rt_arm_kept_warn(const struct rt_process *p,
		      const struct rt_arm_kept *kept);

/* Puts breakpoints back where the inline engine put jumps in @p's copy
 * of its executable (a fork child: its parent's event area is not its
 * own), except where the program has changed the code (warned once).
 * 0 or -errno. */
int rt_arm_traps_only(struct rt_process *p);

/* rt_disarm_image() for every image of @p, its executable and its
 * libraries, then rt_arm_kept_warn(). */
int rt_disarm_process(struct rt_process *p);

#endif
