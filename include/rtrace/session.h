/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The top-level flows, each a list of named steps: run and record
 * (config -> symbols -> match -> calibrate -> launch -> arm -> loop ->
 * flush the log -> analyse -> output), report, and list.  Each returns the
 * process exit status rtrace should end with.
 */
#ifndef RTRACE_SESSION_H
#define RTRACE_SESSION_H

#include "rtrace/exit.h"
#include "rtrace/opts.h"

/* Traces the program of @o; with RT_CMD_RUN also prints the report. */
int rt_session_record(const struct rt_opts *o);

/* Prints the report of the log @o->log_path. */
int rt_session_report(const struct rt_opts *o);

/* Lists what would be traced in the program of @o. */
int rt_session_list(const struct rt_opts *o);

#endif
