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

#include "rtrace/match.h"
#include "rtrace/symbols.h"
#include "rtrace/tasks.h"

/* Indexes of the functions of @syms that @m selects, in address order, as a
 * new array the caller frees; returns the count. */
size_t rt_select_funcs(const struct rt_symbols *syms, struct rt_matcher *m,
		       size_t **idx);

/* Entry @type (AT_ENTRY, AT_BASE...) of @pid's auxiliary vector: 0, or
 * -ENOENT when absent, -errno when unreadable (logged). */
int rt_auxv_get(pid_t pid, uint64_t type, uint64_t *val);

/* Load bias of the executable of stopped process @pid (0 when not PIE):
 * AT_ENTRY from /proc/PID/auxv minus the file's entry point. */
int rt_arm_bias(pid_t pid, const struct rt_symbols *syms, rt_raddr *bias);

/* Maps the scratch area of image @img's plan near its code (through
 * thread @tid of @p, which must be stopped), lays out the slots, writes
 * their code, and arms every probe.  Returns 0 or -errno after logging. */
int rt_arm_image(struct rt_process *p, struct rt_image *img, pid_t tid,
		 int *deferred_sig);

/* The same for @p's executable. */
int rt_arm_process(struct rt_process *p, pid_t tid, int *deferred_sig);

/* Writes back the original bytes of every probe of @img's plan (the
 * scratch area stays: a thread may still be inside a slot).  0 or -errno. */
int rt_disarm_image(struct rt_process *p, const struct rt_image *img);

/* Puts breakpoints back where the inline engine put jumps in @p's copy
 * of its executable (a fork child: its parent's event area is not its
 * own).  0 or -errno. */
int rt_arm_traps_only(struct rt_process *p);

/* The same for every image of @p: its executable and its libraries. */
int rt_disarm_process(struct rt_process *p);

#endif
