/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Call stacks of stopped threads, unwound by libdw from the unwind tables
 * (.eh_frame, .debug_frame) of the traced program and its libraries.
 */
#ifndef RTRACE_UNWIND_H
#define RTRACE_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "rtrace/arch.h"
#include "rtrace/evlog.h"
#include "rtrace/raddr.h"
#include "rtrace/tracee.h"

struct rt_unwinder;

/* An unwinder for the threads of process @pid, read through @mem (which
 * must outlive it); it knows the modules mapped when it was made.  NULL
 * when it cannot be made.  Free with rt_unwinder_free(). */
struct rt_unwinder *rt_unwinder_new(pid_t pid, struct rt_mem *mem);

/* The libdwfl session of @u, still @u's: the modules of its process,
 * with their debug information. */
struct Dwfl *rt_unwinder_dwfl(struct rt_unwinder *u);

/* Frees the unwinder; accepts NULL. */
void rt_unwinder_free(struct rt_unwinder *u);

/* Unwinds stopped thread @tid whose registers are @regs: pcs[0] gets
 * their instruction pointer, pcs[1...] the return addresses of the callers,
 * up to @max entries; sps[i], when @sps is not NULL, the stack pointer of
 * frame i (for i > 0: the caller's, as it will be after the return, so
 * the stack pointer at entry of frame i-1's function is sps[i] minus one
 * return address).  Returns how many frames were found (0 when none). */
size_t rt_unwind(struct rt_unwinder *u, pid_t tid, const struct rt_regs *regs,
		 rt_raddr *pcs, rt_raddr *sps, size_t max);

/* Names the frame at @pc (a return address when @call: the call before
 * it is what is named): demangled function and source line from the
 * modules of the process.  The strings in @out are new ones the caller
 * frees (name always set, "??" when unknown; file may be NULL). */
void rt_unwind_symbolize(struct rt_unwinder *u, rt_raddr pc, bool call,
			 struct rt_log_frame *out);

#endif
