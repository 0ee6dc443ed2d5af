/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ptrace controller.  rt_tracer_step() is the event loop's body: wait
 * for one stop, decode it, find the thread, let the handler for that kind of
 * stop decide how the thread resumes, and resume it in one place.  A probe
 * hit costs waitpid, one register read, one register write and one
 * continue; the event is appended to the log in memory.
 */
#ifndef RTRACE_TRACER_H
#define RTRACE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtrace/evlog.h"
#include "rtrace/match.h"
#include "rtrace/symbols.h"

struct rt_tracer;

struct rt_tracer_config {
	struct rt_matcher *matcher;    /* re-applied after every exec */
	struct rt_evlog_writer *log;
	bool follow;                   /* record forked/exec'd children */
	bool count_only;               /* entries only */
	bool coverage;                 /* entries, each taken out at its
					* first hit */
	bool exitkill;                 /* rtrace launched the program */
	unsigned stack_depth;          /* --stack: frames captured at each
					* entry, 0 for none */
	bool mem;                      /* --mem: probe the allocator, in the
					* executable and in the libraries */
	bool inline_engine;            /* --engine inline: jumps to
					* trampolines where provably safe */
	/* the first image, already loaded and matched by the caller (taken
	 * over by the tracer), used at the launched program's first exec */
	struct rt_symbols *first_syms;
	const size_t *first_idx;
	size_t first_n;
};

enum rt_step_result {
	RT_STEP_CONTINUE,
	RT_STEP_ALL_EXITED,   /* nothing left to trace */
	RT_STEP_FAILED,       /* rtrace lost control (logged) */
};

/* A tracer for the launched program @pid, already seized and stopped before
 * its exec.  Free with rt_tracer_free(). */
struct rt_tracer *rt_tracer_new(const struct rt_tracer_config *cfg,
				pid_t pid);

/* A tracer for running process @pid, joined: every thread seized, probes
 * armed, the frames already running reconstructed, the threads resumed.
 * Returns 0, or -errno after logging why (the process is left as it was).
 * Takes cfg->first_syms over in both cases.  Free with rt_tracer_free()
 * after rt_tracer_detach(). */
int rt_tracer_attach(const struct rt_tracer_config *cfg, pid_t pid,
		     struct rt_tracer **out);

/* Leaves every traced process running as if rtrace had never been there:
 * threads stopped, moved out of rtrace's code, original bytes restored,
 * scratch areas unmapped, threads released with their pending signals.
 * Returns 0 or -errno. */
int rt_tracer_detach(struct rt_tracer *tr);

/* Frees the tracer and everything it owns; accepts NULL. */
void rt_tracer_free(struct rt_tracer *tr);

/* Handles one stop. */
enum rt_step_result rt_tracer_step(struct rt_tracer *tr);

/* Wait status of the launched process once it ended (else 0), and
 * whether it did. */
bool rt_tracer_exit_status(const struct rt_tracer *tr, int *status);

/* Counters for the summary. */
struct rt_tracer_stats {
	uint64_t stops;
	uint64_t hits;
	uint64_t threads;     /* threads seen */
	uint64_t processes;
	uint64_t funcs;       /* functions probed */
	uint64_t refused;     /* functions selected but not probable */
	uint64_t inline_events;  /* events the inline engine recorded */
	uint64_t sites, inline_sites;  /* sites probed, of which patched */
};
void rt_tracer_stats(const struct rt_tracer *tr, struct rt_tracer_stats *st);

#endif
