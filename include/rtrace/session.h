/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The top-level flows, each a list of named steps: run and record
 * (config -> symbols -> match -> calibrate -> launch -> arm -> loop ->
 * flush the log -> analyse -> output), report, and list.  Each returns the
 * process exit status rtrace should end with.
 */
#ifndef RTRACE_SESSION_H
#define RTRACE_SESSION_H

#include "rtrace/opts.h"

/* rtrace's own exit statuses; otherwise it exits with the program's. */
enum rt_exit {
	RT_EXIT_OK = 0,
	RT_EXIT_USAGE = 2,       /* bad options or input: nothing ran */
	RT_EXIT_TRACE = 125,     /* tracing failed (ptrace refused, I/O) */
	RT_EXIT_NOEXEC = 126,    /* the program cannot be executed */
	RT_EXIT_NOTFOUND = 127,  /* the program does not exist */
};

/* Traces the program of @o; with RT_CMD_RUN also prints the report. */
int rt_session_record(const struct rt_opts *o);

/* Prints the report of the log @o->log_path. */
int rt_session_report(const struct rt_opts *o);

/* Lists what would be traced in the program of @o. */
int rt_session_list(const struct rt_opts *o);

#endif
