/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rtrace's own exit statuses, which scripts rely on: every command ends
 * with one of these, or with the traced program's own status.
 */
#ifndef RTRACE_EXIT_H
#define RTRACE_EXIT_H

/* rtrace's own exit statuses; otherwise it exits with the program's. */
enum rt_exit {
	RT_EXIT_OK = 0,
	RT_EXIT_USAGE = 2,       /* bad options or input: nothing ran */
	RT_EXIT_TRACE = 125,     /* tracing failed (ptrace refused, I/O) */
	RT_EXIT_NOEXEC = 126,    /* the program cannot be executed */
	RT_EXIT_NOTFOUND = 127,  /* the program does not exist */
};

#endif
