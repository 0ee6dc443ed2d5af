/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guardian of an attached session: a small process that outlives
 * rtrace when rtrace is killed (kill -9, the OOM killer), where no signal
 * handler of rtrace's can run.  The kernel then detaches the program, and
 * a breakpoint of rtrace's left in its code would kill it at the next
 * hit.  The guardian holds no ptrace rights; it holds each process's
 * /proc/PID/mem, passed by rtrace, and the list of breakpoint bytes
 * rtrace wrote: when rtrace is gone, it turns the event areas' recording
 * off and puts those bytes back.  src/tracer/guardian.c says what it cannot do.
 */
#ifndef RTRACE_GUARDIAN_H
#define RTRACE_GUARDIAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/raddr.h"

struct rt_mem;
struct rt_process;
struct rt_plan;

/* Starts the guardian (before attaching: nothing is traced yet).  0, or
 * -errno: the session then goes on unguarded. */
int rt_guardian_start(void);

/* rtrace ends as it should (detached, or the program ended): the guardian
 * leaves without touching anything.  Does nothing when none runs. */
void rt_guardian_stop(void);

/* Whether a guardian runs (rt_guardian_start() made one, and it is still
 * there). */
bool rt_guardian_running(void);

/* The process of @mem has its trap guard's mapping at @at
 * (trapguard.h): when rtrace is gone, the guardian tells it which
 * breakpoints it put back.  Does nothing when no guardian runs. */
void rt_guardian_trapguard(const struct rt_mem *mem, rt_raddr at);

/* @plan is about to be armed in process @p, with jumps where patched
 * (@jumps) or breakpoints everywhere: its breakpoints and @p's memory and
 * event area are passed on (before any is written: the guardian puts
 * back only bytes that are rtrace's).  Does nothing when no guardian
 * runs. */
void rt_guardian_armed(struct rt_process *p, const struct rt_plan *plan,
		       bool jumps);

/* rtrace is about to write @len bytes @ours over @orig at @at in the
 * process of @mem (a system call it makes there), and to put @orig back
 * after.  Does nothing when no guardian runs. */
void rt_guardian_code(const struct rt_mem *mem, rt_raddr at,
		      const uint8_t *orig, const uint8_t *ours, size_t len);

/* @p exec'd: its old breakpoints and memory are no longer its own. */
void rt_guardian_exec(struct rt_process *p);

#endif
