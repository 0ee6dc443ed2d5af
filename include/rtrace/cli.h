/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line: argv to struct rt_opts, and the help text. */
#ifndef RTRACE_CLI_H
#define RTRACE_CLI_H

#include <stdio.h>

#include "rtrace/opts.h"

/* Parses @argv into @o (initialised by the caller).  Strings in @o point
 * into @argv.  Returns 0, or -EINVAL after printing one line about the
 * problem and a pointer to --help. */
int rt_cli_parse(int argc, char **argv, struct rt_opts *o);

/* Prints the complete help text. */
void rt_cli_help(FILE *out);

#endif
