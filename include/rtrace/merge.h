/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One report over several logs: `rtrace report A.rtrace B.rtrace ...`.
 * Each log is analysed on its own (its own calibration, its own threads);
 * then the rows of the per-function table are merged by function name
 * (and by test name under --by test), as cargo-rtrace does for the test
 * binaries of a crate.  Only the table merges: the other views follow
 * calls, which do not cross from one program to another.
 */
#ifndef RTRACE_MERGE_H
#define RTRACE_MERGE_H

#include <stddef.h>
#include <stdio.h>

#include "rtrace/opts.h"

/* Whether the options of @o can merge several logs; prints the one-line
 * reason and returns -EINVAL when they cannot, else 0. */
int rt_merge_check(const struct rt_opts *o);

/* Prints the merged report of the @n logs @paths (n >= 1) to @out with
 * the report options of @o (--format, --sort, --limit, --by none or test,
 * -f, --min-total, --instances, --raw-times).  Returns the exit status:
 * RT_EXIT_OK, or RT_EXIT_USAGE after one line on stderr.  Borrows every
 * argument. */
int rt_merge_report(const struct rt_opts *o, char *const *paths, size_t n,
		    FILE *out);

#endif
