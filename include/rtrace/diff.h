/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `rtrace diff OLD NEW`: two runs side by side, per function: calls,
 * total and self time in each, and the change, sorted by the largest
 * change in self time.  Functions that only one run called are listed as
 * new or gone.  Each log is analysed on its own, as `rtrace report`
 * would; the rows are then joined by function name.
 */
#ifndef RTRACE_DIFF_H
#define RTRACE_DIFF_H

#include <stdio.h>

#include "rtrace/opts.h"

/* Prints the comparison of logs o->argv[0] (old) and o->argv[1] (new)
 * to @out with the options of @o (--format text, json or csv; --sort
 * self, total, calls or name: by the size of the change, or by name;
 * --limit; -f; --min-total; --raw-times).  Returns the exit status:
 * RT_EXIT_OK, or RT_EXIT_USAGE after one line on stderr. */
int rt_diff_main(const struct rt_opts *o, FILE *out);

/* Whether the options of @o make sense for a comparison: prints the
 * one-line reason and returns -EINVAL when they do not, else 0. */
int rt_diff_check(const struct rt_opts *o);

#endif
