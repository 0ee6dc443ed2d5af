// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The program's own SIGTRAP, kept through rtrace's breakpoints
 * (sigtrap.h).  Each of rtrace's SIGTRAPs goes through the kernel's
 * force_sig_info_to_task(), which, when SIGTRAP is ignored or blocked in
 * the thread, sets its handler to SIG_DFL and unblocks it in that thread,
 * keeping the action's flags, mask and restorer.  So the handler and the
 * mask bit are what must be put back, and only for a program that did
 * set them: the test at the top of rt_sigtrap_repair() is all an
 * ordinary program pays.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>

#define PR_FMT "sigtrap"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/log.h"
#include "rtrace/remote.h"
#include "rtrace/sigtrap.h"
#include "rtrace/tasks.h"
#include "rtrace/tracee.h"

#define TRAP_BIT (1ULL << (SIGTRAP - 1))
#define KSIG_DFL 0ULL
#define KSIG_IGN 1ULL

static enum rt_trap_disp disp_of(uint64_t handler)
{
	return handler == KSIG_DFL ? RT_TRAP_DEFAULT :
	       handler == KSIG_IGN ? RT_TRAP_IGNORED :
				     RT_TRAP_CAUGHT;
}

/* Says once per process why its SIGTRAP action stays as the kernel left
 * it; it is not tried again. */
static void cannot(struct rt_process *p, int err)
{
	if (p->sigtrap.given_up || err == -ESRCH)  /* gone: nothing to keep */
		return;
	p->sigtrap.given_up = true;
	if (err == -EPERM)
		pr_warn("process %d: its seccomp filter could kill it for the "
			"rt_sigaction call that puts back its SIGTRAP action "
			"(or rtrace cannot read it without CAP_SYS_ADMIN); "
			"rtrace's breakpoints may leave SIGTRAP at its "
			"default action", p->pid);
	else
		pr_warn("process %d: cannot put back its SIGTRAP action (%s); "
			"rtrace's breakpoints may leave SIGTRAP at its default "
			"action", p->pid, strerror(-err));
}

int rt_sigtrap_action(pid_t tid, struct rt_mem *mem, struct rt_kaction *a,
		      bool set, int *deferred)
{
	const uint64_t args[6] = { SIGTRAP, 0, 0, sizeof(a->mask) };
	long res = 0;
	int err;

	if (!mem)
		return -EACCES;
	err = rt_remote_syscall_quiet(tid, mem, SYS_rt_sigaction, args, a,
				      sizeof(*a), set ? 1 : 2, &res, deferred);
	if (!err && res < 0)
		err = (int)res;
	return err;
}

static int kaction(struct rt_thread *th, struct rt_kaction *a, bool set,
		   int *deferred)
{
	return rt_sigtrap_action(th->tid, th->proc->mem, a, set, deferred);
}

void rt_sigtrap_note_mask(struct rt_thread *th)
{
	uint64_t mask = 0;

	if (!rt_tracee_getsigmask(th->tid, &mask))
		th->trap_blocked = mask & TRAP_BIT;
}

void rt_sigtrap_note(struct rt_process *p, struct rt_thread *th)
{
	struct rt_sigtrap *s = &p->sigtrap;
	int deferred = 0, err;

	rt_sigtrap_note_mask(th);
	memset(s, 0, sizeof(*s));
	if (rt_tracee_status_sigset(p->pid, "SigIgn") & TRAP_BIT) {
		/* an exec keeps SIG_IGN and clears the rest; an attach may
		 * find flags: read below when needed */
		s->disp = RT_TRAP_IGNORED;
		s->want = KSIG_IGN;
	} else if (rt_tracee_status_sigset(p->pid, "SigCgt") & TRAP_BIT) {
		s->disp = RT_TRAP_CAUGHT;
		err = kaction(th, &s->act, false, &deferred);
		if (err)
			cannot(p, err);
		s->act_known = !err;
		s->want = s->act.handler;
	}
	if (deferred && !th->pending_sig)
		th->pending_sig = deferred;
}

void rt_sigtrap_inherit(struct rt_thread *c, const struct rt_thread *creator)
{
	c->trap_blocked = creator->trap_blocked;
}

/* Reads @len bytes at @addr in @th's process; false when it cannot. */
static bool peek(struct rt_thread *th, uint64_t addr, void *buf, size_t len)
{
	return addr && th->proc->mem &&
	       !rt_mem_read(th->proc->mem, addr, buf, len);
}

void rt_sigtrap_call(struct rt_thread *th, bool action)
{
	struct rt_sigtrap *s = &th->proc->sigtrap;
	uint64_t a0 = rt_arch_arg(&th->regs, 0), a1 = rt_arch_arg(&th->regs, 1);
	uint64_t word;

	/* what the call asks for; it fails only for arguments that would
	 * set nothing (a bad signal number or how) */
	if ((action && a0 != SIGTRAP) || !peek(th, a1, &word, sizeof(word)))
		return;
	if (action) {
		/* the handler is the first member of libc's struct too; the
		 * flags, mask and restorer libc passes are read back from the
		 * kernel when first needed */
		s->want = word;
		s->disp = disp_of(word);
		s->act_known = false;
		return;
	}
	if (a0 == SIG_SETMASK)
		th->trap_blocked = word & TRAP_BIT;
	else if ((a0 == SIG_BLOCK || a0 == SIG_UNBLOCK) && (word & TRAP_BIT))
		th->trap_blocked = a0 == SIG_BLOCK;
}

/* The program's handler back in place of the SIG_DFL the kernel put. */
static int put_back_action(struct rt_thread *th, int *deferred)
{
	struct rt_sigtrap *s = &th->proc->sigtrap;
	struct rt_kaction a;
	int err;

	if (!s->act_known) {
		err = kaction(th, &s->act, false, deferred);
		if (err)
			return err;
		s->act_known = true;
	}
	a = s->act;
	a.handler = s->want;
	return kaction(th, &a, true, deferred);
}

static void block_again(struct rt_thread *th)
{
	uint64_t mask;

	if (!rt_tracee_getsigmask(th->tid, &mask) && !(mask & TRAP_BIT))
		rt_tracee_setsigmask(th->tid, mask | TRAP_BIT);
}

bool rt_sigtrap_touched(const struct rt_thread *th)
{
	return th->proc && (th->proc->sigtrap.disp != RT_TRAP_DEFAULT ||
			    th->trap_blocked);
}

int rt_sigtrap_repair(struct rt_thread *th)
{
	struct rt_process *p = th->proc;
	bool reset, block = th->trap_blocked;
	int deferred = 0, err;

	if (!rt_sigtrap_touched(th))
		return 0;
	switch (p->sigtrap.disp) {
	case RT_TRAP_IGNORED:
		reset = true;
		break;
	case RT_TRAP_CAUGHT:
		/* reset only when SIGTRAP was blocked in the thread, as it
		 * is while its handler runs: then it was blocked, whatever
		 * was noted; and not reset says it was not */
		reset = !(rt_tracee_status_sigset(p->pid, "SigCgt") &
			  TRAP_BIT);
		block = reset;
		break;
	default:
		reset = false;
		break;
	}
	if (reset && !p->sigtrap.given_up &&
	    (err = put_back_action(th, &deferred)))
		cannot(p, err);
	if (block)
		block_again(th);
	return deferred;
}
