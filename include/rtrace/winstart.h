/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The start of a flight recorder's window (--keep=TIME|SIZE): the calls
 * each thread was in when its first event kept was recorded.  Their
 * entries were dropped with the events before the window; their exits
 * are in it.  A pass over the events finds them (exits with no entry
 * that are not inside a call of the window), and the analysis opens them
 * before the thread's first event as calls already running, as when
 * rtrace attaches to a running process (RT_CALL_PARTIAL).
 */
#ifndef RTRACE_WINSTART_H
#define RTRACE_WINSTART_H

#include "rtrace/analysis.h"
#include "rtrace/evlog.h"

struct rt_winstart;

/* Reads the events of @r (then rewinds it) and returns the calls running
 * at the start of each thread's events, or NULL when @r holds no window
 * or the reading fails.  Free with rt_winstart_free(). */
struct rt_winstart *rt_winstart_scan(struct rt_evlog_reader *r);

/* Before @ev goes to @f: when it is the first event of its thread, feeds
 * @f that thread's running calls, outermost first, as entries flagged
 * RT_EVF_PARTIAL at @ev's time.  Accepts a NULL @ws. */
void rt_winstart_feed(struct rt_winstart *ws, struct rt_frames *f,
		      const struct rt_event *ev);

/* The entries rt_winstart_feed() made up so far (0 for a NULL @ws): no
 * event of the log. */
uint64_t rt_winstart_fed(const struct rt_winstart *ws);

/* Frees @ws; accepts NULL. */
void rt_winstart_free(struct rt_winstart *ws);

#endif
