/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * (private) The tracer's state, shared by the files that make up the
 * controller: tracer.c (the loop and the probe hits), the features the
 * loop calls at a stop (naming.c, stopmeasure.c, coverage.c,
 * callstacks.c, allocargs.c, actions.c), the engines (engine*.c), image.c
 * (what a process runs and what is probed in it) and attach.c (joining
 * and leaving a running process).
 */
#ifndef RTRACE_TRACER_INT_H
#define RTRACE_TRACER_INT_H

#include <signal.h>

#include "rtrace/engine.h"
#include "rtrace/stacks.h"
#include "rtrace/tasks.h"
#include "rtrace/tracer.h"

struct rt_tracer {
	struct rt_tracer_config cfg;
	const struct rt_engine_ops *engine;  /* rt_engine_choose()'s */
	struct rt_tasks *tasks;
	pid_t first_pid;
	bool first_exec_done;
	bool setup_failed;        /* the launched program could not be armed */
	bool holding;             /* detaching: stopped threads stay stopped */
	bool detached;            /* every thread was let go */
	bool first_exited;
	bool joining;             /* attaching: every thread is stopped, some
				   * maybe inside code about to be patched */
	int first_status;
	uint32_t next_func_id;
	struct {                  /* call stacks (callstacks.c) */
		struct rt_stacks *seen;        /* distinct stacks captured */
	} callstacks;
	struct rt_tracer_stats st;
	VEC(struct rt_tracer_stopped) stopped;  /* by function id: the
						 * stops at its breakpoints */
	struct {                  /* probe actions, cfg.on_hit (actions.c) */
		uint8_t *never;   /* by function id: on_hit said never */
		uint32_t nnever;
		pid_t held;       /* the thread on_hit stopped, or 0 */
		uint64_t held_since;
	} actions;
	uint64_t flushed_at;      /* when the log was last handed over */
	uint64_t signal_ns[NSIG]; /* by signal: when a thread last took it */
};

enum resume_how {
	RESUME_CONT,      /* continue, delivering sig */
	RESUME_LISTEN,    /* stay in group-stop, keep reporting */
	RESUME_HOLD,      /* leave stopped (waiting for another event) */
	RESUME_DETACH,    /* let it go, delivering sig */
	RESUME_GONE,      /* the thread no longer exists */
};

struct decision {
	enum resume_how how;
	int sig;
	bool setregs;             /* write th->regs back first */
	struct rt_thread *also;   /* a held thread that may now run */
	bool kept;                /* the trap signals as the program set
				   * them are back */
};

/* Appends an event of thread @th to the log (when its process records). */
void rt_emit_flags(struct rt_tracer *tr, struct rt_thread *th, uint8_t kind,
		   uint8_t flags, uint32_t func, uint64_t sp, uint64_t value,
		   uint64_t ts);
void rt_emit(struct rt_tracer *tr, struct rt_thread *th, uint8_t kind,
	     uint32_t func, uint64_t sp, uint64_t value, uint64_t ts);
/* Appends @n events of thread @th in a row: their ts, sp, value, func,
 * kind and flags are set, the rest is filled in here. */
void rt_emit_events(struct rt_tracer *tr, struct rt_thread *th,
		    struct rt_event *ev, size_t n);

/* The executable @p runs now, as a new string the caller frees, or NULL. */
char *rt_image_exe(pid_t pid);

/* Loads the symbols of what @p runs, selects, plans (p->img).  0 or -errno. */
int rt_image_build(struct rt_tracer *tr, struct rt_process *p);

/* Arms the probes of every image of @p (through stopped thread @tid).
 * 0 or -errno. */
int rt_image_arm(struct rt_tracer *tr, struct rt_process *p, pid_t tid,
		 int *deferred_sig);

/* While attaching: a thread still inside the bytes a jump of @plan would
 * replace would come back into the middle of the jump: each steps out, or
 * (in a system call) those sites keep a breakpoint.  Before the plan is
 * placed. */
void rt_attach_keep_clear(struct rt_tracer *tr, struct rt_plan *plan);

/* At the dynamic linker's hook: finds the libraries @th's process mapped
 * since the last look, and probes what it needs in them. */
void rt_image_scan_libraries(struct rt_tracer *tr, struct rt_thread *th);

/* A tracer with @cfg and no process yet but the first one's pid; the
 * caller's (rt_tracer_free()). */
struct rt_tracer *rt_tracer_alloc(const struct rt_tracer_config *cfg,
				   pid_t pid);

/* The inlined calls that end or begin at @pr of @plan: an event each. */
void rt_emit_inlined(struct rt_tracer *tr, struct rt_thread *th,
		     const struct rt_plan *plan, const struct rt_probe *pr,
		     uint64_t sp, uint64_t ts);

/* ---- what the loop's features do at a stop (one file each) ---- */

/* Records the name of thread @th when it is new or changed (naming.c);
 * a libtest thread gets its test's full name, found from @hit (the
 * function whose event it is) or the stack at @at_site, either of which
 * may be NULL. */
void rt_name_thread(struct rt_tracer *tr, struct rt_thread *th,
		    const struct rt_regs *at_site, const char *hit);

/* Whether @site is one of the measuring stops @th was sent through
 * (stopmeasure.c). */
bool rt_calib_in_chain(const struct rt_thread *th, rt_raddr site);

/* @th stopped at its next measuring stop: the measurement goes on, or
 * ends with its events and the thread sent where it was going. */
struct decision rt_calib_stop(struct rt_tracer *tr, struct rt_thread *th);

/* Something else happened while @th was being measured (a signal, and
 * the probes its handler hit): the measuring stops count as ordinary
 * ones.  Nothing when no measurement is under way. */
void rt_calib_spoil(struct rt_thread *th);

/* After a hit of @plan that resumes at @ip at @ts: where the thread goes
 * instead, when it is time to measure (and it @goes_on rather than being
 * held), or @ip. */
rt_raddr rt_calib_after_hit(struct rt_tracer *tr, struct rt_thread *th,
			    const struct rt_plan *plan, rt_raddr ip,
			    uint64_t ts, bool goes_on);

/* --coverage's hit of @th at @pr at @ts (coverage.c): the probe taken out
 * at its first hit, the thread sent back to its instruction. */
struct decision rt_cover(struct rt_tracer *tr, struct rt_thread *th,
			 const struct rt_probe *pr, uint64_t ts);

/* The id of the stack of @th, stopped at an entry probe, logged at its
 * first sight (callstacks.c), or 0 when it cannot be unwound; the time
 * that took is added to *@spent. */
uint32_t rt_callstack_capture(struct rt_tracer *tr, struct rt_thread *th,
			      uint64_t *spent);

/* When @pr is one of the allocator's (or a blocking call's) entries, what
 * its event carries, in *@value (allocargs.c). */
bool rt_allocargs_entry(struct rt_thread *th, const struct rt_probe *pr,
			uint64_t *value);

/* When @pr is a reallocation's entry, its old pointer, in *@ptr. */
bool rt_allocargs_old_ptr(const struct rt_thread *th,
			  const struct rt_probe *pr, uint64_t *ptr);

/* What an exit event of @pr carries: the return register, or for
 * posix_memalign the pointer it stored. */
uint64_t rt_allocargs_exit(const struct rt_thread *th,
			   const struct rt_probe *pr);

/* A script's probe action on this hit (actions.c): an enum
 * rt_hit_verdict; its time is added to *@spent. */
int rt_action_on_hit(struct rt_tracer *tr, struct rt_thread *th,
		     const struct rt_plan *plan, const struct rt_probe *pr,
		     uint64_t ts, uint64_t *spent);

/* Holds @th, which a probe action stopped, until rt_action_release(). */
struct decision rt_action_hold(struct rt_tracer *tr, struct rt_thread *th);

/* The held thread let go: its wait is a delay in the log, the actions
 * are asked again.  The thread to resume, or NULL when there was none. */
struct rt_thread *rt_action_release(struct rt_tracer *tr);

/* The probe at @site in one of @p's images (its executable first: that is
 * where the hits are), and in *plan the plan it belongs to; NULL when
 * there is none.  Owned by the plan. */
const struct rt_probe *rt_tracer_find_probe(const struct rt_process *p,
					    rt_raddr site,
					    const struct rt_plan **plan);

/* Handles a stop of @th at one of the engine's own breakpoints met while
 * stepping; returns whether it changed th->regs (to be written back). */
typedef bool rt_bell_fn(struct rt_tracer *tr, struct rt_thread *th);

/* Stopped thread @th, interrupted just as it ran into one of rtrace's
 * breakpoints, or as it finished one of rtrace's single steps, has that
 * SIGILL or SIGTRAP still pending behind the interrupt's stop: delivered
 * after a detach, it would kill the program.  Lets the thread take it
 * (rtrace, still its tracer, keeps it); a breakpoint's fault leaves it on
 * the breakpoint's instruction.  Before a detach. */
void rt_tracer_take_pending_trap(struct rt_thread *th);

/* Moves stopped thread @th out of the scratch area [@lo, @hi): out of the
 * measuring chain by setting its instruction pointer to where it was
 * going; out of a slot, a trampoline or the recorder by stepping (cold
 * path, once per thread), @bell handling the engine's breakpoints met
 * on the way. */
void rt_tracer_leave_scratch(struct rt_tracer *tr, struct rt_thread *th,
			     rt_raddr lo, rt_raddr hi, rt_bell_fn *bell);

/* Waits for the first stop of new thread @c now (the kernel stops every
 * new tracee at once): 0, or -ESRCH when it is already gone. */
int rt_tracer_take_first_stop(struct rt_tracer *tr, struct rt_thread *c);

/* Writes @p's process record and function table to the log. */
void rt_image_log(struct rt_tracer *tr, struct rt_process *p);

#endif
