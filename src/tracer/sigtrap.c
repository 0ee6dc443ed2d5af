// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The program's own SIGTRAP and SIGILL, kept through rtrace's traps
 * (sigtrap.h).  Each of rtrace's traps goes through the kernel's
 * force_sig_info_to_task(), which, when the signal is ignored or blocked
 * in the thread, sets its handler to SIG_DFL and unblocks it there,
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

#define KSIG_DFL 0ULL
#define KSIG_IGN 1ULL

int rt_trapsig_signo(enum rt_trap_sig i)
{
	return i == RT_TRAPSIG_ILL ? SIGILL : SIGTRAP;
}

/* The trap signal @signo is, or RT_NTRAPSIG. */
static enum rt_trap_sig index_of(uint64_t signo)
{
	return signo == SIGTRAP ? RT_TRAPSIG_TRAP :
	       signo == SIGILL	? RT_TRAPSIG_ILL :
				  RT_NTRAPSIG;
}

/* Its bit in a kernel signal set. */
static uint64_t sig_bit(enum rt_trap_sig i)
{
	return 1ULL << (rt_trapsig_signo(i) - 1);
}

static enum rt_trap_disp disp_of(uint64_t handler)
{
	return handler == KSIG_DFL ? RT_TRAP_DEFAULT :
	       handler == KSIG_IGN ? RT_TRAP_IGNORED :
				     RT_TRAP_CAUGHT;
}

/* Says once per process why its action of trap signal @i stays as the
 * kernel left it; it is not tried again. */
static void cannot(struct rt_process *p, enum rt_trap_sig i, int err)
{
	const char *name = i == RT_TRAPSIG_ILL ? "SIGILL" : "SIGTRAP";

	if (p->sigtrap[i].given_up || err == -ESRCH)  /* gone: nothing to keep */
		return;
	p->sigtrap[i].given_up = true;
	if (err == -EPERM)
		pr_warn("process %d: its seccomp filter could kill it for the "
			"rt_sigaction call that puts back its %s action "
			"(or rtrace cannot read it without CAP_SYS_ADMIN); "
			"rtrace's breakpoints may leave %s at its "
			"default action", p->pid, name, name);
	else
		pr_warn("process %d: cannot put back its %s action (%s); "
			"rtrace's breakpoints may leave %s at its default "
			"action", p->pid, name, strerror(-err), name);
}

int rt_sigtrap_action(pid_t tid, struct rt_mem *mem, int signo,
		      struct rt_kaction *a, bool set, int *deferred)
{
	const uint64_t args[6] = { (uint64_t)signo, 0, 0, sizeof(a->mask) };
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

static int kaction(struct rt_thread *th, enum rt_trap_sig i,
		   struct rt_kaction *a, bool set, int *deferred)
{
	return rt_sigtrap_action(th->tid, th->proc->mem, rt_trapsig_signo(i),
				 a, set, deferred);
}

/* The trap signals blocked in kernel signal set @mask. */
static uint8_t blocked_in(uint64_t mask)
{
	uint8_t b = 0;

	for (int i = 0; i < RT_NTRAPSIG; i++)
		if (mask & sig_bit(i))
			b |= 1U << i;
	return b;
}

void rt_sigtrap_note_mask(struct rt_thread *th)
{
	uint64_t mask = 0;

	if (!rt_tracee_getsigmask(th->tid, &mask))
		th->trap_blocked = blocked_in(mask);
}

static void note_one(struct rt_process *p, struct rt_thread *th,
		     enum rt_trap_sig i, uint64_t ign, uint64_t cgt,
		     int *deferred)
{
	struct rt_sigtrap *s = &p->sigtrap[i];
	int err;

	memset(s, 0, sizeof(*s));
	if (ign & sig_bit(i)) {
		/* an exec keeps SIG_IGN and clears the rest; an attach may
		 * find flags: read below when needed */
		s->disp = RT_TRAP_IGNORED;
		s->want = KSIG_IGN;
	} else if (cgt & sig_bit(i)) {
		s->disp = RT_TRAP_CAUGHT;
		err = kaction(th, i, &s->act, false, deferred);
		if (err)
			cannot(p, i, err);
		s->act_known = !err;
		s->want = s->act.handler;
	}
}

void rt_sigtrap_note(struct rt_process *p, struct rt_thread *th)
{
	uint64_t ign = rt_tracee_status_sigset(p->pid, "SigIgn");
	uint64_t cgt = rt_tracee_status_sigset(p->pid, "SigCgt");
	int deferred = 0;

	rt_sigtrap_note_mask(th);
	for (int i = 0; i < RT_NTRAPSIG; i++)
		note_one(p, th, i, ign, cgt, &deferred);
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
	uint64_t a0 = rt_arch_arg(&th->regs, 0), a1 = rt_arch_arg(&th->regs, 1);
	enum rt_trap_sig i = index_of(a0);
	uint64_t word;
	uint8_t b;

	/* what the call asks for; it fails only for arguments that would
	 * set nothing (a bad signal number or how) */
	if ((action && i == RT_NTRAPSIG) || !peek(th, a1, &word, sizeof(word)))
		return;
	if (action) {
		struct rt_sigtrap *s = &th->proc->sigtrap[i];

		/* the handler is the first member of libc's struct too; the
		 * flags, mask and restorer libc passes are read back from the
		 * kernel when first needed */
		s->want = word;
		s->disp = disp_of(word);
		s->act_known = false;
		return;
	}
	b = blocked_in(word);
	if (a0 == SIG_SETMASK)
		th->trap_blocked = b;
	else if (a0 == SIG_BLOCK)
		th->trap_blocked |= b;
	else if (a0 == SIG_UNBLOCK)
		th->trap_blocked &= (uint8_t)~b;
}

/* The program's handler back in place of the SIG_DFL the kernel put. */
static int put_back_action(struct rt_thread *th, enum rt_trap_sig i,
			   int *deferred)
{
	struct rt_sigtrap *s = &th->proc->sigtrap[i];
	struct rt_kaction a;
	int err;

	if (!s->act_known) {
		err = kaction(th, i, &s->act, false, deferred);
		if (err)
			return err;
		s->act_known = true;
	}
	a = s->act;
	a.handler = s->want;
	return kaction(th, i, &a, true, deferred);
}

static void block_again(struct rt_thread *th, uint64_t bits)
{
	uint64_t mask;

	if (!rt_tracee_getsigmask(th->tid, &mask) && (mask & bits) != bits)
		rt_tracee_setsigmask(th->tid, mask | bits);
}

bool rt_sigtrap_touched(const struct rt_thread *th)
{
	const struct rt_process *p = th->proc;

	return p && (p->sigtrap[RT_TRAPSIG_TRAP].disp != RT_TRAP_DEFAULT ||
		     p->sigtrap[RT_TRAPSIG_ILL].disp != RT_TRAP_DEFAULT ||
		     th->trap_blocked);
}

/* Puts back trap signal @i in @th, @set being the signals that still
 * have an action (caught or ignored); its bit goes to *@block when it is
 * to be blocked again. */
static void repair_one(struct rt_thread *th, enum rt_trap_sig i,
		       uint64_t set, uint64_t *block, int *deferred)
{
	struct rt_process *p = th->proc;
	bool reset, blocked = th->trap_blocked & (1U << i);
	int err;

	switch (p->sigtrap[i].disp) {
	case RT_TRAP_IGNORED:  /* still ignored: this trap raised another */
		reset = !(set & sig_bit(i));
		break;
	case RT_TRAP_CAUGHT:
		/* reset only when the signal was blocked in the thread, as it
		 * is while its handler runs: then it was blocked, whatever
		 * was noted; and not reset says it was not */
		reset = !(set & sig_bit(i));
		blocked = reset;
		break;
	default:
		reset = false;
		break;
	}
	if (reset && !p->sigtrap[i].given_up &&
	    (err = put_back_action(th, i, deferred)))
		cannot(p, i, err);
	if (blocked)
		*block |= sig_bit(i);
}

int rt_sigtrap_repair(struct rt_thread *th)
{
	struct rt_process *p = th->proc;
	uint64_t cgt = 0, ign = 0, block = 0;
	int deferred = 0;

	if (!rt_sigtrap_touched(th))
		return 0;
	if (p->sigtrap[RT_TRAPSIG_TRAP].disp != RT_TRAP_DEFAULT ||
	    p->sigtrap[RT_TRAPSIG_ILL].disp != RT_TRAP_DEFAULT) {
		cgt = rt_tracee_status_sigset(p->pid, "SigCgt");
		ign = rt_tracee_status_sigset(p->pid, "SigIgn");
	}
	for (int i = 0; i < RT_NTRAPSIG; i++)
		repair_one(th, i, cgt | ign, &block, &deferred);
	if (block)
		block_again(th, block);
	return deferred;
}
