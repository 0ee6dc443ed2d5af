/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The command line of the views (part of cli.c's job, kept apart): the
 * commands tree, replay and export, and the options --graph, --tree,
 * --replay, --min-total, --depth, --tid, --since, --until, --weight and
 * --export.  cli.c puts RT_VIEW_LONG_OPTS in its getopt table and hands
 * the option codes from RT_OPT_VIEW_FIRST on to rt_viewopts_parse().
 */
#ifndef RTRACE_VIEWOPTS_H
#define RTRACE_VIEWOPTS_H

#include <getopt.h>
#include <stdbool.h>

#include "rtrace/opts.h"

enum rt_view_opt {
	RT_OPT_VIEW_FIRST = 0x200,   /* above cli.c's own codes */
	RT_OPT_GRAPH = RT_OPT_VIEW_FIRST,
	RT_OPT_TREE,
	RT_OPT_REPLAY,
	RT_OPT_MIN_TOTAL,
	RT_OPT_DEPTH,
	RT_OPT_TID,
	RT_OPT_SINCE,
	RT_OPT_UNTIL,
	RT_OPT_WEIGHT,
	RT_OPT_EXPORT,
	RT_OPT_VIEW_LAST = RT_OPT_EXPORT,
};

#define RT_VIEW_LONG_OPTS                                                      \
	{ "graph", required_argument, NULL, RT_OPT_GRAPH },                    \
	{ "tree", no_argument, NULL, RT_OPT_TREE },                            \
	{ "replay", no_argument, NULL, RT_OPT_REPLAY },                        \
	{ "min-total", required_argument, NULL, RT_OPT_MIN_TOTAL },            \
	{ "depth", required_argument, NULL, RT_OPT_DEPTH },                    \
	{ "tid", required_argument, NULL, RT_OPT_TID },                        \
	{ "since", required_argument, NULL, RT_OPT_SINCE },                    \
	{ "until", required_argument, NULL, RT_OPT_UNTIL },                    \
	{ "weight", required_argument, NULL, RT_OPT_WEIGHT },                  \
	{ "export", required_argument, NULL, RT_OPT_EXPORT }

/* The names of --format, in enum rt_format order. */
#define RT_FORMAT_NAMES                                                        \
	"text", "json", "csv", "chrome", "folded", "svg", "html"

/* Whether @word is a command of the views (tree, replay, export); if so,
 * sets @o->cmd and @o->view. */
bool rt_viewopts_command(const char *word, struct rt_opts *o);

/* Parses option @c (RT_OPT_VIEW_FIRST..RT_OPT_VIEW_LAST) with @arg into
 * @o.  0, or -EINVAL after printing one line. */
int rt_viewopts_parse(int c, const char *arg, struct rt_opts *o);

/* After parsing: checks the format against the view and the command, and
 * takes export's operands (LOG; -o is then the output).  0, or -EINVAL
 * after printing one line. */
int rt_viewopts_check(struct rt_opts *o);

#endif
