/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a scripted session (-x, -i) plugs into a recording made by
 * session.c: a check of its own patterns once the program's symbols are
 * loaded, the probe-action callback the tracer calls (tracer.h), and what
 * to do when that callback kept a thread stopped.  rt_opts.hooks points
 * here; NULL outside scripts, and then nothing below is called.
 */
#ifndef RTRACE_HOOKS_H
#define RTRACE_HOOKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "rtrace/match.h"
#include "rtrace/symbols.h"
#include "rtrace/tracer.h"

/* The functions a run selected, before anything runs. */
struct rt_selection {
	const struct rt_symbols *syms;
	struct rt_matcher *matcher;        /* hits per include glob */
	const char *const *include;        /* the include globs, in order */
	size_t ninclude;
	const size_t *idx;                 /* the selected functions */
	size_t n;
	bool later;     /* the program starts others, where the patterns are
			 * matched again: no match here is no error */
};

/* What happens after a stop. */
enum rt_stop_next {
	RT_NEXT_CONTINUE,   /* the thread goes on */
	RT_NEXT_KILL,       /* the program is killed */
	RT_NEXT_DETACH,     /* rtrace leaves, the program runs on untraced */
};

struct rt_session_hooks {
	void *ctx;
	/* Checks the session's patterns against @sel; nonzero (after
	 * printing why) stops the run before it starts.  May be NULL. */
	int (*check)(void *ctx, const struct rt_selection *sel);
	/* The program is running: process @pid was started or joined. */
	void (*started)(void *ctx, pid_t pid, bool attached);
	/* The tracer's probe-action callback (tracer.h); may be NULL. */
	int (*on_hit)(void *ctx, const struct rt_hit *hit);
	/* on_hit answered RT_HIT_STOP: the script has the stopped program
	 * (@tr answers rt_tracer_threads() and rt_tracer_backtrace()) until
	 * this returns what to do next. */
	enum rt_stop_next (*on_stop)(void *ctx, struct rt_tracer *tr);
};

#endif
