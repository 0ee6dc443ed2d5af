/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The program's own SIGTRAP and SIGILL, kept through rtrace's traps.
 *
 * rtrace's traps raise one of two signals (its trap signals): SIGILL at
 * its breakpoints in the program's code (rt_arch_trap_bytes(), a fault:
 * a thread resumed at one runs it again), SIGTRAP in its own code (the
 * recorder's bells, its remote calls) and at single steps.  Each goes
 * through the kernel's forced-signal path (force_sig_info_to_task()):
 * when the signal is ignored, or blocked in the thread that takes it, the
 * kernel first resets its action to SIG_DFL (whatever handler was set)
 * and unblocks it in that thread.  rtrace notes what the program set, and
 * after each trap of its own puts back what the kernel changed: the mask
 * with PTRACE_SETSIGMASK, the action with an rt_sigaction made in the
 * program without a breakpoint (rt_remote_syscall_quiet()).  A program
 * that leaves both at their default and unblocked costs nothing.
 *
 * What the program sets is seen at the entries of libc's sigaction()
 * (which signal(), sigset() and the like call) and pthread_sigmask()
 * (which sigprocmask() and siglongjmp() call), probed for that (roles
 * RT_ROLE_SIGACTION and RT_ROLE_SIGMASK); at an exec, at an attach and at
 * a fork or clone (inherited) it is read from the kernel.
 */
#ifndef RTRACE_SIGTRAP_H
#define RTRACE_SIGTRAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct rt_mem;
struct rt_process;
struct rt_thread;

/* rtrace's trap signals, as indices of struct rt_process.sigtrap[]. */
enum rt_trap_sig {
	RT_TRAPSIG_TRAP,     /* SIGTRAP */
	RT_TRAPSIG_ILL,      /* SIGILL */
	RT_NTRAPSIG
};

/* The signal number of trap signal @i. */
int rt_trapsig_signo(enum rt_trap_sig i);

/* A trap signal's action as the program set it. */
enum rt_trap_disp {
	RT_TRAP_DEFAULT,     /* SIG_DFL: nothing to keep */
	RT_TRAP_IGNORED,     /* SIG_IGN: reset at every breakpoint */
	RT_TRAP_CAUGHT,      /* a handler: reset at a breakpoint hit while
			      * the signal is blocked (inside the handler) */
};

/* The kernel's struct sigaction, as rt_sigaction(2) reads and writes it. */
struct rt_kaction {
	uint64_t handler;
	uint64_t flags;
	uint64_t restorer;
	uint64_t mask;
};

/* rt_sigaction(@signo) made in stopped thread @tid of the process whose
 * memory is @mem, with no breakpoint run (a forced signal would undo
 * it): sets the action to *@a when @set, else reads it into *@a.  A
 * signal that came meanwhile goes to *@deferred.  0 or -errno. */
int rt_sigtrap_action(pid_t tid, struct rt_mem *mem, int signo,
		      struct rt_kaction *a, bool set, int *deferred);

/* Per process and trap signal: embedded in struct rt_process, copied
 * at a fork. */
struct rt_sigtrap {
	uint8_t disp;            /* enum rt_trap_disp */
	bool act_known;          /* @act is the kernel's, but for the handler */
	bool given_up;           /* the action cannot be put back (said once):
				  * not tried again */
	uint64_t want;           /* the handler the program set */
	struct rt_kaction act;
};

/* Notes the trap signals' actions of process @p (from /proc; a handler's
 * whole action is read through its stopped thread @th, with no
 * breakpoint) and @th's mask: at an exec or an attach, before rtrace
 * makes any trap of its own there. */
void rt_sigtrap_note(struct rt_process *p, struct rt_thread *th);

/* Notes stopped thread @th's mask only (the other threads at an
 * attach). */
void rt_sigtrap_note_mask(struct rt_thread *th);

/* New thread @c starts with the mask of @creator, which made it. */
void rt_sigtrap_inherit(struct rt_thread *c, const struct rt_thread *creator);

/* Stopped thread @th is at the entry of libc's sigaction() (@action) or
 * pthread_sigmask(): notes what it is about to set for its trap signals,
 * from its argument registers (th->regs) and the memory they point to. */
void rt_sigtrap_call(struct rt_thread *th, bool action);

/* Whether the program set a trap signal, as @th sees it, to anything but
 * its default action, unblocked: only then may rt_sigtrap_repair() have work.
 * Free: what an ordinary program pays per hit. */
bool rt_sigtrap_touched(const struct rt_thread *th);

/* Stopped thread @th just took traps of rtrace's (a breakpoint, a step,
 * a remote call's trap): puts back what the kernel changed, if the
 * program had a trap signal ignored, caught or blocked (what is still as
 * the program set it, read from /proc, is left alone).  Returns a signal
 * that came meanwhile, for the caller to deliver, or 0. */
int rt_sigtrap_repair(struct rt_thread *th);

#endif
