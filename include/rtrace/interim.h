/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The interim report: what the log holds so far, as `rtrace report` would
 * show it, printed on stderr while the trace goes on (SIGUSR1, a
 * session's `info report`).  The log is flushed, then read and analysed
 * by a process of its own, so that rtrace's loop, and with it the traced
 * program, never waits for the analysis.  Process-wide state: one report
 * at a time.
 */
#ifndef RTRACE_INTERIM_H
#define RTRACE_INTERIM_H

#include <stdbool.h>
#include <stdio.h>

#include "rtrace/evlog.h"
#include "rtrace/opts.h"

/* Flushes @w and starts printing on @out (stderr, or a session's
 * stdout) the report of the log o->log_path with the report options of
 * @o.  Returns 0, -EBUSY while the previous one is still printing, or
 * -errno (said). */
int rt_interim_start(const struct rt_opts *o, struct rt_evlog_writer *w,
		     FILE *out);

struct rt_proftap;

/* The profile being made while recording (--keep other than all), or
 * NULL: an interim report then reads its figures from it, as the final
 * report will from the profile block. */
void rt_interim_profile(struct rt_proftap *t);

/* Whether a report is being printed (stderr is taken). */
bool rt_interim_busy(void);

/* Waits until the report being printed, if any, is out. */
void rt_interim_wait(void);

#endif
