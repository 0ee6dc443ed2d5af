/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Starting a program under ptrace.  The child stops itself before exec, is
 * seized (PTRACE_SEIZE, so group-stops and interrupts are reported
 * unambiguously) and continued; its exec is then the tracer's first event,
 * so every probe is armed before the program's first instruction.
 */
#ifndef RTRACE_LAUNCH_H
#define RTRACE_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

/* Finds @name in PATH when it has no '/', and checks it can be executed.
 * Returns a new path the caller frees, or NULL after logging one line
 * (not found, not executable); *err gets -ENOENT or -EACCES. */
char *rt_launch_resolve(const char *name, int *err);

/* Forks, seizes and continues @path with @argv; the child runs until its
 * exec event.  Returns 0 with *pid set, or -errno after logging. */
int rt_launch(const char *path, char *const argv[], unsigned long options,
	      pid_t *pid);

/* Takes over @child, a fork of rtrace's that stops itself with SIGSTOP:
 * waits for that stop, seizes it with @options and continues it.  Returns
 * 0; -ECHILD when it did not stop (it exited: an exec failed, say); or the
 * seize's -errno, after which the child is killed and reaped. */
int rt_launch_take_over(pid_t child, unsigned long options);

/* Makes rtrace ignore SIGXFSZ, so that a log write past RLIMIT_FSIZE fails
 * with EFBIG (recording stops, the program runs on) instead of killing
 * rtrace and, through PTRACE_O_EXITKILL, the program.  Programs started
 * later by rt_launch() get the disposition rtrace had before. */
void rt_launch_ignore_sigxfsz(void);

#endif
