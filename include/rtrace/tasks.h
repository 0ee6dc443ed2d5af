/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The traced processes and threads.  Each thread has an explicit state that
 * changes only through rt_thread_set_state(); each process has the image it
 * runs (symbols and probe plan, shared with forked children until they exec)
 * and the door to its memory.
 */
#ifndef RTRACE_TASKS_H
#define RTRACE_TASKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtrace/arch.h"
#include "rtrace/libtest.h"
#include "rtrace/probes.h"
#include "rtrace/sigtrap.h"
#include "rtrace/symbols.h"
#include "rtrace/tracee.h"
#include "rtrace/unwind.h"

enum rt_thread_state {
	RT_TS_NEW,        /* known, waiting for its first stop or its
			   * creator's event; never resumed yet */
	RT_TS_RUNNING,
	RT_TS_STOPPED,    /* in a ptrace-stop, being handled */
	RT_TS_GROUP_STOP, /* stopped by a stop signal, listening */
	RT_TS_EXITING,    /* past its exit event */
	RT_TS_GONE,
};

struct rt_code_orig;

/* An executable image: what a process runs between two execs. */
struct rt_image {
	int refs;
	struct rt_symbols *syms;
	struct rt_plan *plan;     /* NULL when nothing in it is traced */
	struct rt_libtest *tests; /* test names of a libtest harness */
	char *path;               /* the file, resolved (as in maps) */
	rt_raddr bias;
	struct rt_code_orig *orig; /* the bytes rtrace wrote over, as they
				    * were (codeorig.h); NULL until then */
};

struct rt_process {
	pid_t pid, ppid;
	struct rt_mem *mem;
	struct rt_image *img;     /* NULL before the first exec is handled */
	VEC(struct rt_image *) libs;  /* shared libraries with probes */
	struct rt_unwinder *unwinder; /* made on first use */
	unsigned nthreads;
	bool record;              /* events of this process go to the log */
	bool detach_at_exec;      /* a --no-follow vfork child */
	bool exited;
	bool watching;            /* the dynamic linker's hook is armed */
	int status;               /* wait status once exited */
	uint8_t *removed;         /* --coverage: probes taken out, by index */
	struct rt_inline_area *ia; /* the inline engine's events, or NULL */
	/* a vfork child runs in its parent's memory, rings included: it
	 * borrows the parent's area (not its own to free) and the slot of
	 * the thread that vforked, until it execs or ends */
	bool ia_borrowed;
	int lent_slot;            /* -1: the parent's thread had none */
	pid_t lender;             /* the thread that vforked */
	/* SIGTRAP and SIGILL as the program set them */
	struct rt_sigtrap sigtrap[RT_NTRAPSIG];
	rt_raddr trapguard;       /* its SIGTRAP guard's mapping, or 0
				   * (trapguard.h) */
	uint32_t trapguard_resume; /* breakpoints of rtrace's code in its
				    * list of those a thread goes past */
	struct rt_process *next;
};

/* In-place measurement of the stop cost of one thread (stopmeasure.c). */
struct rt_calib {
	uint32_t every;           /* hits between two measurements */
	uint32_t due;             /* hits left before the next one */
	uint8_t left;             /* measuring stops still to come */
	uint8_t done;             /* measuring stops taken out of @stops */
	bool spoiled;             /* a signal came in the middle */
	rt_raddr resume;          /* where the thread goes after them */
	uint64_t start;           /* when the hit before them was seen */
	uint64_t prev;            /* when the last of them was seen */
	uint32_t gaps[8];         /* ns between them (RT_PLAN_CALIB_STOPS) */
	const struct rt_plan *plan;  /* whose scratch area they are in */
};

struct rt_thread {
	pid_t tid;
	struct rt_process *proc;  /* NULL until its creator's event */
	enum rt_thread_state state;
	bool initial_stop_seen;   /* its first stop arrived */
	uint32_t stops;           /* stops since its last event */
	uint64_t last_ts;         /* time of its last event in the log */
	uint32_t open_calls;      /* calls entered, not left (roughly) */
	int pending_sig;          /* signal held back by a remote call */
	char comm[16];            /* name last recorded, "" before */
	struct rt_regs regs;      /* as of its last stop */
	struct rt_calib calib;    /* in-place measurement of the stop cost */
	rt_raddr memalign_out;    /* where posix_memalign puts its result */
	/* its creator's thread pointer register at the clone, and who that
	 * was: a thread that starts with the same one shares its ring */
	uint64_t creator_tpr;
	pid_t creator;
	uint8_t trap_blocked;     /* bit 1 << enum rt_trap_sig: the program
				   * blocked that signal in it */
};

struct rt_tasks;

/* An empty table; free with rt_tasks_free() (frees every thread and
 * process, drops their images). */
struct rt_tasks *rt_tasks_new(void);
void rt_tasks_free(struct rt_tasks *t);

/* The thread with id @tid, or NULL.  O(1). */
struct rt_thread *rt_tasks_thread(struct rt_tasks *t, pid_t tid);

/* Adds thread @tid (state RT_TS_NEW) to @proc (may be NULL for a thread
 * seen before its creator's event).  The table owns it. */
struct rt_thread *rt_tasks_add_thread(struct rt_tasks *t, pid_t tid,
				      struct rt_process *proc);

/* Attaches a thread to its process once known. */
void rt_tasks_link(struct rt_tasks *t, struct rt_thread *th,
		   struct rt_process *proc);

/* Removes a thread; frees it. */
void rt_tasks_remove_thread(struct rt_tasks *t, struct rt_thread *th);

/* Renames a thread (after a non-leader exec it takes the leader's id). */
void rt_tasks_retid(struct rt_tasks *t, struct rt_thread *th, pid_t tid);

/* Adds a process, owned by the table. */
struct rt_process *rt_tasks_add_process(struct rt_tasks *t, pid_t pid,
					pid_t ppid);

/* The process with id @pid, or NULL. */
struct rt_process *rt_tasks_process(struct rt_tasks *t, pid_t pid);

/* Removes and frees a process that has no thread left. */
void rt_tasks_remove_process(struct rt_tasks *t, struct rt_process *p);

/* Number of threads and of processes in the table. */
size_t rt_tasks_nthreads(const struct rt_tasks *t);
size_t rt_tasks_nprocesses(const struct rt_tasks *t);

/* First process, and the next one; for plain loops. */
struct rt_process *rt_tasks_first_process(struct rt_tasks *t);
#define rt_tasks_for_each_process(t, p)                                        \
	for (struct rt_process *p = rt_tasks_first_process(t); p; p = p->next)

/* Threads: the i-th of rt_tasks_nthreads(), in no particular order. */
struct rt_thread *rt_tasks_thread_at(struct rt_tasks *t, size_t i);

/* The one state setter (logged at debug level 2). */
void rt_thread_set_state(struct rt_thread *th, enum rt_thread_state s);

/* Images: a new one owns @syms and @plan; put drops a reference. */
struct rt_image *rt_image_new(struct rt_symbols *syms, struct rt_plan *plan,
			      rt_raddr bias);
struct rt_image *rt_image_get(struct rt_image *img);
void rt_image_put(struct rt_image *img);

#endif
