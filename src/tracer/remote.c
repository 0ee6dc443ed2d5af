// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Remote system calls.  The code is placed where no thread runs: the
 * executable's entry point (rt_mem_call_site()), else the thread's own
 * instruction pointer, a page known to be mapped executable; the
 * original bytes go back before the thread ever runs normally again.
 * Not at the thread's instruction pointer when it can be helped: other
 * threads run the same code, and should rtrace die during the call (a
 * kill -9), they would meet its system call and breakpoint there before
 * its guardian puts the bytes back.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PR_FMT "remote"
#define PR_DOMAIN RT_DOM_TRACEE
#include "rtrace/arch.h"
#include "rtrace/log.h"
#include "rtrace/guardian.h"
#include "rtrace/remote.h"
#include "rtrace/seccomp.h"
#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* Resumes the thread with @resume until it reports a stop of kind @until.
 * Signals that come first are held back (the thread is resumed without
 * them) and the last one is handed to the caller to deliver when the
 * thread really resumes. */
static int run_until(pid_t tid, int (*resume)(pid_t, int),
		     enum rt_stop_kind until, int *deferred_sig)
{
	struct rt_wait w;
	int err = resume(tid, 0);

	while (!err) {
		err = rt_wait_tid(tid, &w);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err || w.kind == until)
			break;
		if (w.kind == RT_STOP_EXITED || w.kind == RT_STOP_KILLED)
			return -ESRCH;
		if (w.kind == RT_STOP_SIGNAL && deferred_sig)
			*deferred_sig = w.sig;
		pr_dbg("remote work in %d interrupted by stop %d/%d", tid,
		       w.kind, w.sig);
		err = resume(tid, 0);
	}
	return err;
}

int rt_remote_finish_syscall(pid_t tid, int *deferred_sig)
{
	return run_until(tid, rt_tracee_syscall, RT_STOP_SYSCALL, deferred_sig);
}

/* Whether system call @nr may be made at @at in @tid: yes when its
 * seccomp filters let it run or fail; no when they would kill, trap or
 * hold the thread for it, or cannot be read (without CAP_SYS_ADMIN). */
static bool remote_allowed(pid_t tid, long nr, const uint64_t args[6],
			   rt_raddr at)
{
	enum rt_seccomp_verdict v = rt_seccomp_check(tid, nr, args, at);

	if (v == RT_SECCOMP_RUNS || v == RT_SECCOMP_FAILS)
		return true;
	pr_dbg("thread %d: system call %ld not made: its seccomp filter %s",
	       tid, nr, v == RT_SECCOMP_UNSAFE ? "would kill or trap it"
					       : "cannot be read");
	return false;
}

/* Runs the call set up in @tid's registers to its end: to the breakpoint
 * after it, or, when @quiet, to the system call's exit stop. */
static int run_call(pid_t tid, bool quiet, int *deferred_sig)
{
	int err;

	if (!quiet)
		return run_until(tid, rt_tracee_cont, RT_STOP_TRAP,
				 deferred_sig);
	err = run_until(tid, rt_tracee_syscall, RT_STOP_SYSCALL, deferred_sig);
	if (!err)  /* that was the entry; the exit comes next */
		err = run_until(tid, rt_tracee_syscall, RT_STOP_SYSCALL,
				deferred_sig);
	return err;
}

/*
 * A thread stopped in a system call that a signal (or an attach's
 * interrupt) cut short is restarted by the kernel on its way out of the
 * signal-delivery path, by what its registers say.  A quiet call ends at
 * its own exit stop, which that path does not follow: put back there, the
 * registers would reach the program with -ERESTARTSYS in them.  So the
 * thread is stopped once more, in that path, by a SIGSTOP (which the
 * program cannot block, catch or ignore) that the caller's resume drops.
 */
static int stop_in_signal_path(pid_t tid, int *deferred_sig)
{
	struct rt_wait w;
	int err;

	if (syscall(SYS_tkill, tid, SIGSTOP))
		return -errno;
	err = rt_tracee_cont(tid, 0);
	while (!err) {
		err = rt_wait_tid(tid, &w);
		if (err)
			break;
		if (w.kind == RT_STOP_EXITED || w.kind == RT_STOP_KILLED)
			return -ESRCH;
		if (w.kind == RT_STOP_SIGNAL && w.sig == SIGSTOP)
			return 0;
		if (w.kind == RT_STOP_SIGNAL && deferred_sig)
			*deferred_sig = w.sig;
		err = rt_tracee_cont(tid, 0);
	}
	return err;
}

/* A remote call's data on the stack: @len bytes of @buf at *at (0 when
 * there are none), the bytes it covers kept in @keep. */
struct stack_data {
	void *buf;
	size_t len;
	rt_raddr at;
	uint8_t keep[RT_REMOTE_DATA_MAX];
};

static int place_data(struct rt_mem *mem, const struct rt_regs *r,
		      struct stack_data *d)
{
	int err;

	if (!d || !d->len)
		return 0;
	if (d->len > sizeof(d->keep))
		return -E2BIG;
	d->at = rt_arch_stack_scratch(r, d->len);
	err = rt_mem_read(mem, d->at, d->keep, d->len);
	if (!err)
		err = rt_mem_write(mem, d->at, d->buf, d->len);
	return err;
}

/* The call's data back into its buffer, the stack as it was. */
static int take_data(struct rt_mem *mem, struct stack_data *d, bool ran)
{
	int err = 0;

	if (!d || !d->len || !d->at)
		return 0;
	if (ran)
		err = rt_mem_read(mem, d->at, d->buf, d->len);
	if (rt_mem_write(mem, d->at, d->keep, d->len) && !err)
		err = -EIO;
	return err;
}

/*
 * A thread stopped at a clone or fork event is still inside that system
 * call: on the way out the kernel stores its result over the registers
 * of the call made there, and a quiet call's first syscall stop would be
 * that exit.  It is taken to the exit first (not from a vfork, whose exit
 * waits for a child that rtrace holds).
 */
static int leave_event(pid_t tid, int *deferred_sig)
{
	siginfo_t si;
	int ev;

	if (rt_tracee_getsiginfo(tid, &si) || si.si_signo != SIGTRAP)
		return 0;
	ev = si.si_code >> 8;
	if (ev != PTRACE_EVENT_CLONE && ev != PTRACE_EVENT_FORK)
		return 0;
	return rt_remote_finish_syscall(tid, deferred_sig);
}

static int inject(pid_t tid, struct rt_mem *mem, long nr, uint64_t args[6],
		  struct stack_data *data, int data_arg, bool quiet,
		  long *result, int *deferred_sig)
{
	struct rt_regs saved, regs;
	size_t len;
	const uint8_t *code = rt_arch_syscall_code(&len);
	uint8_t orig[32];
	rt_raddr at;
	int err, err2;

	err = leave_event(tid, deferred_sig);
	if (!err)
		err = rt_tracee_getregs(tid, &saved);
	if (err)
		return err;
	at = rt_mem_call_site(mem) ? rt_mem_call_site(mem) : rt_arch_ip(&saved);
	err = place_data(mem, &saved, data);
	if (err)
		return err;
	if (data && data->len && data_arg >= 0)
		args[data_arg] = data->at;
	/* the program's seccomp filter judges rtrace's calls as its own, and
	 * may kill it for one it would never make */
	if (!remote_allowed(tid, nr, args, at)) {
		take_data(mem, data, false);
		return -EPERM;
	}
	err = rt_mem_read(mem, at, orig, len);
	if (!err) {
		/* rtrace killed before it puts them back: its guardian will */
		rt_guardian_code(mem, at, orig, code, len);
		err = rt_mem_write(mem, at, code, len);
	}
	if (err) {
		take_data(mem, data, false);
		return err;
	}
	regs = saved;
	rt_arch_syscall_setup(&regs, at, nr, args);
	err = rt_tracee_setregs(tid, &regs);
	if (!err)
		err = run_call(tid, quiet, deferred_sig);
	if (!err)
		err = rt_tracee_getregs(tid, &regs);
	if (!err)
		*result = rt_arch_syscall_result(&regs);
	/* put everything back even after a failure, keeping the first error */
	err2 = rt_mem_write(mem, at, orig, len);
	if (!err2)
		err2 = take_data(mem, data, !err);
	if (!err2)
		err2 = rt_tracee_setregs(tid, &saved);
	if (!err2 && quiet && rt_arch_syscall_restarts(&saved))
		err2 = stop_in_signal_path(tid, deferred_sig);
	return err ? err : err2;
}

int rt_remote_syscall(pid_t tid, struct rt_mem *mem, long nr,
		      const uint64_t args[6], long *result, int *deferred_sig)
{
	uint64_t a[6];

	memcpy(a, args, sizeof(a));
	return inject(tid, mem, nr, a, NULL, -1, false, result, deferred_sig);
}

int rt_remote_syscall_quiet(pid_t tid, struct rt_mem *mem, long nr,
			    const uint64_t args[6], void *data, size_t len,
			    int data_arg, long *result, int *deferred_sig)
{
	struct stack_data d = { .buf = data, .len = len };
	uint64_t a[6];

	memcpy(a, args, sizeof(a));
	return inject(tid, mem, nr, a, &d, data_arg, true, result,
		      deferred_sig);
}

int rt_remote_mmap_exec(pid_t tid, struct rt_mem *mem, rt_raddr hint,
			size_t len, rt_raddr *addr, int *deferred_sig)
{
	const uint64_t args[6] = {
		hint, len, PROT_READ | PROT_EXEC,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		(uint64_t)-1, 0,
	};
	long res;
	int err = rt_remote_syscall(tid, mem, SYS_mmap, args, &res,
				    deferred_sig);

	if (err)
		return err;
	if (res < 0 && res > -4096)
		return (int)res;
	/* kernels before 4.17 ignore MAP_FIXED_NOREPLACE and treat the
	 * address as a hint: a mapping elsewhere is a failure here */
	if ((rt_raddr)res != hint) {
		const uint64_t un[6] = { (uint64_t)res, len };

		rt_remote_syscall(tid, mem, SYS_munmap, un, &res, deferred_sig);
		return -EEXIST;
	}
	*addr = (rt_raddr)res;
	return 0;
}

int rt_remote_munmap(pid_t tid, struct rt_mem *mem, rt_raddr addr,
		     size_t len, int *deferred_sig)
{
	const uint64_t args[6] = { addr, len };
	long res;
	int err = rt_remote_syscall(tid, mem, SYS_munmap, args, &res,
				    deferred_sig);

	return err ? err : (int)res;
}

/* ---- memory through the process itself ------------------------------------
 *
 * A process that made itself non-dumpable (prctl(PR_SET_DUMPABLE, 0), as
 * OpenSSH and many daemons do) refuses an unprivileged tracer its
 * /proc/PID/mem, and PTRACE_PEEKDATA/POKEDATA too (ptrace_access_vm()
 * checks the same dumpable flag); its own /proc/self/mem is then root's
 * file.  But process_vm_readv/writev on itself is always allowed (same
 * thread group).  So rtrace makes the process move the bytes: each system
 * call by single-stepping a `syscall` instruction already in its code (no
 * byte written for it), the data and the iovecs through memory both share.
 * process_vm_writev honours page protections, so a write into code is
 * framed by two mprotect calls (code is r-x).
 */

struct proxy {
	pid_t tid;              /* a stopped thread of the process */
	rt_raddr insn;          /* a syscall instruction in its code */
	uint8_t *local;         /* the shared bounce buffer, rtrace's view */
	rt_raddr remote;        /* the same, the process's view */
	size_t len;
	int *dsig;
};

/* The bounce buffer: two iovecs, then the data. */
#define PROXY_LOCAL_IOV 0
#define PROXY_REMOTE_IOV 16
#define PROXY_DATA 64
#define PAGE 4096ULL

static int step_syscall(const struct proxy *px, long nr,
			const uint64_t args[6], long *res)
{
	struct rt_regs saved, regs;
	int err, err2;

	if (!remote_allowed(px->tid, nr, args, px->insn))
		return -EPERM;
	err = rt_tracee_getregs(px->tid, &saved);
	if (err)
		return err;
	regs = saved;
	rt_arch_syscall_setup(&regs, px->insn, nr, args);
	err = rt_tracee_setregs(px->tid, &regs);
	if (!err)
		err = run_until(px->tid, rt_tracee_step, RT_STOP_TRAP, px->dsig);
	if (!err)
		err = rt_tracee_getregs(px->tid, &regs);
	if (!err)
		*res = rt_arch_syscall_result(&regs);
	err2 = rt_tracee_setregs(px->tid, &saved);
	if (!err && *res < 0 && *res > -4096)
		err = (int)*res;
	return err ? err : err2;
}

static int protect(const struct proxy *px, rt_raddr addr, size_t n,
		   int prot)
{
	rt_raddr lo = addr & ~(PAGE - 1), hi = ALIGN_UP(addr + n, PAGE);
	const uint64_t args[6] = { lo, hi - lo, (uint64_t)prot };
	long res;

	return step_syscall(px, SYS_mprotect, args, &res);
}

static int proxy_chunk(const struct proxy *px, rt_raddr addr, uint8_t *buf,
		       size_t n, bool write)
{
	const uint64_t iov[4] = { px->remote + PROXY_DATA, n, addr, n };
	const uint64_t args[6] = { (uint64_t)px->tid,
				   px->remote + PROXY_LOCAL_IOV, 1,
				   px->remote + PROXY_REMOTE_IOV, 1, 0 };
	long res = 0;
	int err = 0;

	memcpy(px->local + PROXY_LOCAL_IOV, iov, sizeof(iov));
	if (write) {
		memcpy(px->local + PROXY_DATA, buf, n);
		err = protect(px, addr, n, PROT_READ | PROT_WRITE | PROT_EXEC);
	}
	if (!err)
		err = step_syscall(px, write ? SYS_process_vm_writev
					     : SYS_process_vm_readv, args, &res);
	if (write && protect(px, addr, n, PROT_READ | PROT_EXEC) && !err)
		err = -EIO;
	if (!err && (size_t)res != n)
		err = -EIO;
	if (!err && !write)
		memcpy(buf, px->local + PROXY_DATA, n);
	return err;
}

static int proxy_io(void *ctx, rt_raddr addr, void *buf, size_t len,
		    bool write)
{
	const struct proxy *px = ctx;
	const size_t room = px->len - PROXY_DATA;
	int err = 0;

	for (size_t done = 0; !err && done < len; done += room)
		err = proxy_chunk(px, addr + done, (uint8_t *)buf + done,
				  MIN(room, len - done), write);
	return err;
}

int rt_remote_mem_proxy(pid_t tid, rt_raddr syscall_insn, uint8_t *bounce,
			rt_raddr bounce_at, size_t bounce_len,
			int *deferred_sig, struct rt_mem **out)
{
	struct proxy *px;

	if (bounce_len <= PROXY_DATA)
		return -EINVAL;
	px = xmalloc(sizeof(*px));
	*px = (struct proxy){ tid, syscall_insn, bounce, bounce_at,
			      bounce_len, deferred_sig };
	return rt_mem_new_proxy(tid, proxy_io, px, out);
}
