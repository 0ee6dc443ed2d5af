/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command line: argv to struct rt_opts, and the help text. */
#ifndef RTRACE_CLI_H
#define RTRACE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rtrace/opts.h"

/* Parses @argv into @o (initialised by the caller).  Strings in @o point
 * into @argv.  Returns 0, or -EINVAL after printing one line about the
 * problem and a pointer to --help. */
int rt_cli_parse(int argc, char **argv, struct rt_opts *o);

/* Prints the help of @command ("report"...: its usage, its options, its
 * examples), or the complete help text when @command is NULL or has no
 * help of its own. */
void rt_cli_help(FILE *out, const char *command);

/* The long name of option @i (from 0, "function", "stack"...), or NULL
 * past the last; static strings (for `set` and its completion). */
const char *rt_cli_option_name(size_t i);

/* Whether the long option @name takes a value (else it is a flag). */
bool rt_cli_option_takes_value(const char *name);

/* `set NAME VALUE` in a script: applies long option @name with @value to
 * @o exactly as `--NAME VALUE` on the command line would (a flag takes
 * on/off, or no value for on).  Returns 0, -ENOENT for a name that is not
 * a setting, or -EINVAL; then *why, when @why is not NULL, is a new
 * string the caller frees that says what is wrong.  Prints nothing. */
int rt_cli_set(struct rt_opts *o, const char *name, const char *value,
	       char **why);

/* rt_cli_parse() that prints nothing: on failure *why (when not NULL) is
 * a new string the caller frees, the first line of the complaint. */
int rt_cli_parse_caught(int argc, char **argv, struct rt_opts *o,
			char **why);

#endif
