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
#include "rtrace/imageplan.h"
#include "rtrace/match.h"
#include "rtrace/symbols.h"

struct rt_tracer;

/* A probe hit shown to a probe action (a script's break or on ... do). */
struct rt_hit {
	pid_t pid, tid;
	uint32_t func;               /* function id in the log */
	const char *name;            /* its demangled name and its symbol,
				      * valid during the call */
	const char *raw;
	bool entry, exit;            /* the site is its entry, a return (a
				      * one-byte function is both) */
	rt_raddr site;               /* the probe's address */
	const struct rt_regs *regs;  /* the thread's registers at the hit */
	uint64_t ts;
	struct rt_tracer *tr;        /* for rt_tracer_thread_view() */
};

/* What a probe action answers. */
enum rt_hit_verdict {
	RT_HIT_GO,      /* the thread goes on */
	RT_HIT_STOP,    /* it stays stopped: rt_tracer_step() returns
			 * RT_STEP_STOPPED until rt_tracer_resume() */
	RT_HIT_NEVER,   /* no action on this function: not asked again
			 * until the next rt_tracer_resume() */
};

struct rt_tracer_config {
	struct rt_matcher *matcher;    /* re-applied after every exec */
	struct rt_evlog_writer *log;
	bool follow;                   /* record forked/exec'd children */
	bool exitkill;                 /* rtrace launched the program */
	/* what every image's plan holds, and which sites may be jumps; also
	 * what the loop does at a hit (--count, --coverage, --stack, --mem) */
	struct rt_imageplan_policy plan;
	/* the first image, already loaded and matched by the caller (taken
	 * over by the tracer), used at the launched program's first exec */
	struct rt_symbols *first_syms;
	const size_t *first_idx;
	size_t first_n;
	struct rt_inlined *first_inlined;  /* their inlined instances, or
					    * NULL (taken over too) */
	bool inlined;                  /* probe the inlined instances of the
					* selected functions (in every image) */
	/* probe actions: called at the hits of the traced functions with
	 * @hit_ctx, returning an enum rt_hit_verdict; NULL for none (the hit
	 * path is then the same as without) */
	int (*on_hit)(void *ctx, const struct rt_hit *hit);
	void *hit_ctx;
};

enum rt_step_result {
	RT_STEP_CONTINUE,
	RT_STEP_ALL_EXITED,   /* nothing left to trace */
	RT_STEP_FAILED,       /* rtrace lost control (logged) */
	RT_STEP_STOPPED,      /* on_hit kept a thread stopped */
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

/* Lets the thread that on_hit kept stopped go on, its time stopped
 * taken out of the program's times, and asks on_hit again about every
 * function (the actions may have changed).  0, or -ESRCH when no thread
 * is held. */
int rt_tracer_resume(struct rt_tracer *tr);

/* A thread of the traced program, for a script's `info threads`. */
struct rt_traced_thread {
	pid_t pid, tid;
	char name[16];      /* its comm, "" when unknown */
	bool held;          /* the thread on_hit kept stopped */
};

/* The threads rtrace traces now: up to @max into @out; returns how many
 * there are (may be more than @max). */
size_t rt_tracer_threads(struct rt_tracer *tr, struct rt_traced_thread *out,
			 size_t max);

/* The call stack of the thread on_hit kept stopped, unwound from @at (its
 * registers at the hit, instruction pointer at the probe), named: up to
 * @max frames into @out, innermost first; their name and file are new
 * strings the caller frees.  Returns how many (0 when none is held). */
size_t rt_tracer_backtrace(struct rt_tracer *tr, const struct rt_regs *at,
			   struct rt_log_frame *out, size_t max);

/* The modules (libdwfl, with their debug information) and the memory of
 * the process of thread @tid, stopped (held, or at a hit), still the
 * tracer's, for reading the thread's values.  0, -ESRCH when rtrace has
 * no such thread, -ENODATA when its modules cannot be read. */
struct Dwfl;
struct rt_mem;
int rt_tracer_thread_view(struct rt_tracer *tr, pid_t tid, struct Dwfl **dwfl,
			  struct rt_mem **mem);

/* When (now_ns()) a thread of the traced program last took signal @sig
 * from a signal-delivery stop, or 0 if none has. */
uint64_t rt_tracer_signal_time(const struct rt_tracer *tr, int sig);

/* The log the tracer records into (its config's; not owned). */
struct rt_evlog_writer *rt_tracer_log(struct rt_tracer *tr);

/* Wait status of the launched process once it ended (else 0), and
 * whether it did. */
bool rt_tracer_exit_status(const struct rt_tracer *tr, int *status);

/* Counters for the summary. */
struct rt_tracer_stats {
	uint64_t stops;
	uint64_t hits;
	uint64_t calls;       /* entries recorded, for the progress line */
	uint64_t threads;     /* threads seen */
	uint64_t processes;
	uint64_t funcs;       /* functions probed */
	uint64_t refused;     /* functions selected but not probable */
	uint64_t inline_events;  /* events the inline engine recorded */
	uint64_t stops_timed;    /* stops a thread made while one of its
				  * traced calls was open: those whose cost
				  * the report takes out of call times */
	uint64_t inline_dropped; /* dropped: malformed, or naming no probed
				  * function */
	bool inline_damaged;     /* the program wrote over an event ring */
	uint64_t inline_unrecorded; /* not recorded: rtrace did not answer */
	uint64_t sites, inline_sites;  /* the report's function sites (no
					 * hook, no inlined call), of which
					 * patched */
	uint64_t inl_instances;  /* inlined instances probed */
	uint64_t inl_timed;      /* of which their end is probed too */
	uint64_t inl_jumps;      /* of their entries and ends, those reached
				  * by a jump (inline engine) */
};
void rt_tracer_stats(const struct rt_tracer *tr, struct rt_tracer_stats *st);

/* A function whose breakpoints stopped the program, and how often. */
struct rt_tracer_stopped {
	char *name;            /* owned by the array */
	uint64_t stops;
};

/* The functions whose breakpoints stopped the program, most stops first:
 * *n of them in a new array, valid after rt_tracer_free(); free it with
 * rt_tracer_stopped_free(). */
struct rt_tracer_stopped *rt_tracer_stopped(const struct rt_tracer *tr,
					    size_t *n);

/* Frees what rt_tracer_stopped() returned; accepts NULL. */
void rt_tracer_stopped_free(struct rt_tracer_stopped *s, size_t n);

#endif
