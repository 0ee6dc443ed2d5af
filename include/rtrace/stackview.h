/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `rtrace report --stacks`: for each function, the distinct call stacks
 * it was entered from (captured with --stack), with their counts.
 */
#ifndef RTRACE_STACKVIEW_H
#define RTRACE_STACKVIEW_H

#include <stdio.h>

#include "rtrace/evlog.h"
#include "rtrace/opts.h"

/* Analyses the log of @r and prints the stacks of each function to @out,
 * as text or JSON (o->format), narrowed by o->limit (stacks per
 * function).  Returns 0 or -errno (logged). */
int rt_stackview_print(struct rt_evlog_reader *r, const struct rt_opts *o,
		       FILE *out);

#endif
