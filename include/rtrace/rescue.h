/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Giving an attached process back when rtrace itself crashes (a fatal
 * signal of its own: a bug, an abort): its code restored and its threads
 * released, before rtrace dies of that signal.  src/tracer/rescue.c says how.
 */
#ifndef RTRACE_RESCUE_H
#define RTRACE_RESCUE_H

struct rt_tracer;

/* From now on, a crash of rtrace first gives back the processes @tr is
 * attached to; @tr stays the caller's and must outlive the call of
 * rt_rescue_disarm(). */
void rt_rescue_arm(struct rt_tracer *tr);

/* A crash is a crash again (after a detach, before @tr is freed). */
void rt_rescue_disarm(void);

#endif
