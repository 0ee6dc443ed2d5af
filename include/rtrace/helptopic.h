/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `rtrace COMMAND --help`: the part of the whole help that concerns one
 * command.  The whole text stays the one source (cli.c); this picks its
 * usage lines, the command's entry, the sections of options the command
 * reads, and the examples that run it.
 */
#ifndef RTRACE_HELPTOPIC_H
#define RTRACE_HELPTOPIC_H

#include <stdbool.h>
#include <stdio.h>

/* Prints to @out the parts of help text @help that concern @command
 * ("report", "tree"...).  Returns false, printing nothing, when @command
 * has no help of its own (then the whole text is the help). */
bool rt_help_topic(FILE *out, const char *help, const char *command);

#endif
