// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The trap guard of an attached process (trapguard.h).  Every system
 * call it makes in the program is a quiet one (rt_remote_syscall_quiet()):
 * a breakpoint's SIGILL forced on a thread that blocks SIGILL would set
 * the action back to SIG_DFL under it.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define PR_FMT "trapguard"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/arch-jump.h"
#include "rtrace/arch.h"
#include "rtrace/guardian.h"
#include "rtrace/jumparea.h"
#include "rtrace/log.h"
#include "rtrace/probes.h"
#include "rtrace/remote.h"
#include "rtrace/sigtrap.h"
#include "rtrace/tasks.h"
#include "rtrace/tracee.h"
#include "rtrace/trapguard-layout.h"
#include "rtrace/trapguard.h"
#include "rtrace/util.h"

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000
#endif

static int quiet_call(pid_t tid, struct rt_mem *mem, long nr,
		      const uint64_t args[6], long *res, int *deferred)
{
	int err = rt_remote_syscall_quiet(tid, mem, nr, args, NULL, 0, -1, res,
					  deferred);

	return err ? err : *res < 0 && *res > -4096 ? (int)*res : 0;
}

static int map_guard(pid_t tid, struct rt_mem *mem, rt_raddr *at,
		     int *deferred)
{
	const uint64_t args[6] = { 0, RT_TG_SIZE, PROT_READ | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS,
				   (uint64_t)-1, 0 };
	long res = 0;
	int err = quiet_call(tid, mem, SYS_mmap, args, &res, deferred);

	if (!err)
		*at = (rt_raddr)res;
	return err;
}

static void unmap_guard(pid_t tid, struct rt_mem *mem, rt_raddr at,
			int *deferred)
{
	const uint64_t args[6] = { at, RT_TG_SIZE };
	long res;

	quiet_call(tid, mem, SYS_munmap, args, &res, deferred);
}

static int write_code(struct rt_mem *mem, rt_raddr at)
{
	const struct rt_trapguard_code *tg = rt_arch_trapguard_code();
	const uint32_t state = RT_TG_ALIVE;
	int err = rt_mem_write(mem, at, tg->code, tg->len);

	return err ? err : rt_mem_write(mem, at + RT_TG_STATE, &state,
					sizeof(state));
}

static int set_handler(pid_t tid, struct rt_mem *mem, int signo, rt_raddr at,
		       int *deferred)
{
	const struct rt_trapguard_code *tg = rt_arch_trapguard_code();
	struct rt_kaction a = { .handler = at + tg->handler,
				.flags = SA_SIGINFO | SA_ONSTACK |
					 SA_RESTORER,
				.restorer = at + tg->restorer };

	return rt_sigtrap_action(tid, mem, signo, &a, true, deferred);
}

static void cannot(struct rt_process *p, const char *what, int err)
{
	pr_warn("process %d: no trap guard (%s: %s): if rtrace is killed, "
		"a thread at one of its breakpoints dies", p->pid, what,
		strerror(-err));
}

/* The trap signals the program leaves at their default action, as a bit
 * set of 1 << enum rt_trap_sig: those the guard may take. */
static unsigned free_signals(struct rt_process *p, pid_t tid, int *deferred)
{
	unsigned sigs = 0;

	for (int i = 0; i < RT_NTRAPSIG; i++) {
		struct rt_kaction now;
		int err;

		if (p->sigtrap[i].disp != RT_TRAP_DEFAULT)
			continue;
		/* read back: the program may have set it since it was noted */
		err = rt_sigtrap_action(tid, p->mem, rt_trapsig_signo(i), &now,
					false, deferred);
		if (err)
			cannot(p, "rt_sigaction", err);
		else if (now.handler == (uint64_t)(uintptr_t)SIG_DFL)
			sigs |= 1U << i;
	}
	return sigs;
}

void rt_trapguard_install(struct rt_process *p, pid_t tid, int *deferred)
{
	rt_raddr at = 0;
	unsigned sigs;
	int err;

	if (p->trapguard || !p->mem || !rt_guardian_running())
		return;
	sigs = free_signals(p, tid, deferred);
	if (!sigs)
		return;
	err = map_guard(tid, p->mem, &at, deferred);
	if (err) {
		cannot(p, "mmap", err);
		return;
	}
	err = write_code(p->mem, at);
	if (!err)  /* the guardian first: rtrace may die in between */
		rt_guardian_trapguard(p->mem, at);
	for (int i = 0; !err && i < RT_NTRAPSIG; i++)
		if (sigs & (1U << i))
			err = set_handler(tid, p->mem, rt_trapsig_signo(i), at,
					  deferred);
	p->trapguard = at;
	if (err) {
		cannot(p, "its code", err);
		rt_trapguard_remove(p, tid, deferred);
		return;
	}
	pr_dbg("process %d: trap guard at %" PRIxRADDR, p->pid, at);
}

/* Adds @n breakpoints of rtrace's own code to those a thread goes past. */
static void resume_past(struct rt_process *p, const uint64_t *at, size_t n)
{
	uint64_t count = p->trapguard_resume + n;

	if (!p->trapguard || count > RT_TG_RESUME_MAX)
		return;
	if (rt_mem_write(p->mem, p->trapguard + RT_TG_RESUME +
					 p->trapguard_resume * sizeof(*at),
			 at, n * sizeof(*at)) ||
	    rt_mem_write(p->mem, p->trapguard + RT_TG_NRESUME, &count,
			 sizeof(count))) {
		pr_dbg("process %d: the guard's resume list not written",
		       p->pid);
		return;
	}
	p->trapguard_resume = (uint32_t)count;
}

void rt_trapguard_note_recorder(struct rt_process *p)
{
	const struct rt_recorder *rec = rt_arch_recorder();
	uint64_t at[2];

	if (!p->ia)
		return;
	at[0] = rt_inline_recorder(p->ia) + rec->bell_miss;
	at[1] = rt_inline_recorder(p->ia) + rec->bell_full;
	resume_past(p, at, ARRAY_SIZE(at));
}

void rt_trapguard_note_plan(struct rt_process *p, const struct rt_plan *plan)
{
	uint64_t at[RT_PLAN_CALIB_STOPS];
	size_t tlen;

	rt_arch_trap_bytes(&tlen);
	for (size_t i = 0; i < ARRAY_SIZE(at); i++)
		at[i] = rt_plan_calib_addr(plan) + i * tlen;
	resume_past(p, at, ARRAY_SIZE(at));
}

static void set_state(struct rt_process *p, uint32_t state)
{
	if (p->trapguard && p->mem)
		rt_mem_write(p->mem, p->trapguard + RT_TG_STATE, &state,
			     sizeof(state));
}

void rt_trapguard_pass(struct rt_process *p)
{
	set_state(p, RT_TG_PASS);
}

/* Sets @signo back to its default where the guard's handler is its
 * action; whether the guard's code is still the program's: its own
 * handler returns through the guard's restorer. */
static bool put_default(pid_t tid, struct rt_mem *mem, int signo, rt_raddr at,
			int *deferred)
{
	const struct rt_trapguard_code *tg = rt_arch_trapguard_code();
	struct rt_kaction a;

	if (rt_sigtrap_action(tid, mem, signo, &a, false, deferred))
		return true;
	if (a.handler == at + tg->handler) {
		memset(&a, 0, sizeof(a));
		return rt_sigtrap_action(tid, mem, signo, &a, true, deferred);
	}
	return a.restorer == at + tg->restorer;
}

void rt_trapguard_remove(struct rt_process *p, pid_t tid, int *deferred)
{
	rt_raddr at = p->trapguard;
	bool kept = false;

	if (!at || !p->mem)
		return;
	/* should the handler stay, it stands aside */
	set_state(p, RT_TG_PASS);
	p->trapguard = 0;
	for (int i = 0; i < RT_NTRAPSIG; i++)
		kept |= put_default(tid, p->mem, rt_trapsig_signo(i), at,
				    deferred);
	if (!kept)
		unmap_guard(tid, p->mem, at, deferred);
}
