/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flows of the views beyond the per-function table, each a list of
 * steps: open the log -> make the sink -> one streaming pass of the
 * analysis -> render.  `rtrace tree`, `rtrace replay`, `rtrace report
 * --graph GLOB`, `rtrace export`, and the same views after a live run
 * (--tree, --replay, --graph, --export FMT:FILE).  Like session.h, each
 * returns the exit status rtrace should end with.
 */
#ifndef RTRACE_VIEWS_H
#define RTRACE_VIEWS_H

#include <stdbool.h>

#include "rtrace/opts.h"

struct rt_evlog_reader;

/* RT_EXIT_USAGE after one line saying so when the log @r (at @path)
 * holds a profile only, which views of single calls cannot use, or is
 * malformed before its first event; else 0. */
int rt_views_need_events(struct rt_evlog_reader *r, const char *path);

/* Prints the view @o->view (tree, replay or graph) of the log
 * @o->log_path on standard output. */
int rt_views_report(const struct rt_opts *o);

/* Writes the export @o->format (chrome, folded, svg or html) of the log
 * @o->log_path to @o->export_path, or standard output when it is NULL. */
int rt_views_export(const struct rt_opts *o);

/* After a live run or a recording: writes each --export FMT:FILE; after
 * a live run, also prints the view @o->view in place of the table, where
 * the live report goes (standard error, or --report-file).  Returns
 * whether it printed a view: if not, the caller prints the table. */
bool rt_views_live(const struct rt_opts *o);

#endif
