/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The prompt of rtrace -i: the commands of a script (script.h) typed one
 * line at a time, with line editing, history and tab completion of
 * commands and function names (libedit).  Kept out of rtrace_core so that
 * only the program links a terminal library.
 */
#ifndef RTRACE_PROMPT_H
#define RTRACE_PROMPT_H

#include "rtrace/opts.h"

/* Runs the prompt with the options of @o (PROGRAM ARGS, when given, are
 * the program to run) until quit or the end of input; returns the exit
 * status of rt_script_run_prompt().  History is kept in
 * $HOME/.rtrace_history when standard input is a terminal. */
int rt_prompt_main(const struct rt_opts *o);

#endif
