/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe engines, behind one table of operations.
 *
 * Both engines place the same plan of sites.  The trap engine stops the
 * thread at every hit (a breakpoint); the jump engine patches what it can
 * with jumps to code that records the hit in the program's own memory,
 * and rtrace collects those records later.  The tracer's loop calls the
 * engine at the points where the two differ and nowhere else: it never
 * asks which engine runs.  The operations on a thread or a process are
 * called with that thread (or one of the process's) stopped; none may be
 * NULL.
 */
#ifndef RTRACE_ENGINE_H
#define RTRACE_ENGINE_H

#include <stdbool.h>
#include <sys/types.h>

#include "rtrace/raddr.h"

struct rt_tracer;
struct rt_tracer_config;
struct rt_thread;
struct rt_process;
struct rt_plan;
struct rt_probe;

struct rt_engine_ops {
	const char *name;
	/* Once, when the tracer is made: what the engine needs of the
	 * process rtrace is (a signal that wakes its loop). */
	void (*start)(void);
	/* The probe kinds (RT_PROBE_*) this engine patches in place of a
	 * breakpoint, for the session of @tr; 0 for none. */
	unsigned (*plan_kinds)(const struct rt_tracer *tr);
	/* The scratch code of @plan (of @p's executable when @exe, of a
	 * library otherwise) is about to be laid out: what its patched
	 * sites call is chosen. */
	void (*bind)(struct rt_process *p, struct rt_plan *plan, bool exe);
	/* That code is written: what the engine records into is set up,
	 * through stopped thread @tid.  Whether @plan's patched sites get
	 * their jumps; they keep breakpoints otherwise. */
	bool (*arm)(struct rt_process *p, const struct rt_plan *plan, bool exe,
		    pid_t tid, int *deferred_sig);
	/* @th, its registers read, stopped by a breakpoint at @site: true
	 * when the engine owns that breakpoint and has handled the stop,
	 * *setregs then saying whether th->regs changed. */
	bool (*doorbell)(struct rt_tracer *tr, struct rt_thread *th,
			 rt_raddr site, bool *setregs);
	/* What @th recorded since its last stop goes to the log, before
	 * anything rtrace says of it now; @release: the thread is ending. */
	void (*drain)(struct rt_tracer *tr, struct rt_thread *th,
		      bool release);
	/* The same for every thread of every process, while they run. */
	void (*drain_all)(struct rt_tracer *tr);
	/* A signal is about to be delivered to @th: true when th->regs
	 * changed (to be written back) so that the handler cannot tear a
	 * record. */
	bool (*signal)(struct rt_tracer *tr, struct rt_thread *th);
	/* @th is a new thread, made by @creator (a thread of the same
	 * process, NULL when unknown or when it was there before rtrace). */
	void (*thread_new)(struct rt_tracer *tr, struct rt_thread *th,
			   struct rt_thread *creator);
	/* @child, the first thread of a process just forked by @parent
	 * (@vfork: sharing its memory), is linked to it; its parent's
	 * patched code must not record into the parent's memory.  0, or
	 * -ESRCH when @child is gone already. */
	int (*fork)(struct rt_tracer *tr, struct rt_thread *parent,
		    struct rt_thread *child, bool vfork);
	/* Where the thread stopped at entry probe @pr of @plan resumes to
	 * record the entry itself, or 0 when rtrace records it now. */
	rt_raddr (*resume_at)(const struct rt_tracer *tr,
			      const struct rt_thread *th,
			      const struct rt_plan *plan,
			      const struct rt_probe *pr);
	/* Moves stopped @th out of the scratch area [@lo, @hi) before the
	 * area goes (detaching); what the engine's code it steps through
	 * records goes to the log when @record, nowhere otherwise (after a
	 * crash of rtrace's). */
	void (*leave)(struct rt_tracer *tr, struct rt_thread *th, rt_raddr lo,
		      rt_raddr hi, bool record);
	/* Detaching: the engine's last records of @p to the log and its
	 * code out of the process, through stopped thread @th. */
	void (*unmap)(struct rt_tracer *tr, struct rt_process *p,
		      struct rt_thread *th);
	/* @p's image is gone (it exec'd or ended): the last records to the
	 * log, and what the engine kept of the image forgotten. */
	void (*end)(struct rt_tracer *tr, struct rt_process *p);
};

/* The trap engine: a stop per hit.  Static, never freed. */
extern const struct rt_engine_ops rt_engine_trap;
/* The jump engine: hits recorded in the program.  Static, never freed. */
extern const struct rt_engine_ops rt_engine_jump;

/* The engine a session with @cfg runs, the one place that decides it.
 * Static, never freed. */
const struct rt_engine_ops *rt_engine_choose(
	const struct rt_tracer_config *cfg);

#endif
