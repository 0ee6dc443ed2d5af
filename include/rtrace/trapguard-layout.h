/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The layout of the trap guard's mapping in an attached process
 * (trapguard.h).  Included by C and by the guard's assembly, so only
 * macros here.
 *
 *   [0, RT_TG_STATE)            the handler and its restorer (arch code)
 *   RT_TG_STATE                 u32: RT_TG_ALIVE, _RESTORED or _PASS
 *   RT_TG_NRESUME, RT_TG_RESUME breakpoints of rtrace's own code (its
 *                               recorder, its stop-cost row) that a
 *                               thread goes on past
 *   RT_TG_NREWIND, RT_TG_REWIND breakpoint sites whose original bytes the
 *                               guardian put back: a thread re-runs them
 *
 * rtrace writes the code and the resume list; the guardian writes the
 * rewind list, then the state, when rtrace is gone.
 */
#ifndef RTRACE_TRAPGUARD_LAYOUT_H
#define RTRACE_TRAPGUARD_LAYOUT_H

#define RT_TG_STATE 0x800          /* u32 */
#define RT_TG_NRESUME 0x808        /* u64 */
#define RT_TG_RESUME 0x810         /* u64[RT_TG_RESUME_MAX] */
#define RT_TG_RESUME_MAX 64
#define RT_TG_NREWIND 0x1000       /* u64 */
#define RT_TG_REWIND 0x1008        /* u64[RT_TG_REWIND_MAX] */
#define RT_TG_SIZE 0x100000        /* untouched pages cost nothing */
#define RT_TG_REWIND_MAX ((RT_TG_SIZE - RT_TG_REWIND) / 8)

#define RT_TG_ALIVE 0              /* rtrace traces: wait for the guardian */
#define RT_TG_RESTORED 1           /* rtrace is gone, the code is back */
#define RT_TG_PASS 2               /* every SIGILL, SIGTRAP is the program's */

#define RT_TG_WAIT_MS 5000         /* the longest wait for the guardian */

#endif
