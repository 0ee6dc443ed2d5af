// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Remote system calls.  The code is placed at the thread's current
 * instruction pointer because that page is known to be mapped executable;
 * the original bytes go back before the thread ever runs normally again.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define PR_FMT "remote"
#define PR_DOMAIN RT_DOM_TRACEE
#include "rtrace/arch.h"
#include "rtrace/log.h"
#include "rtrace/remote.h"
#include "rtrace/seccomp.h"
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

int rt_remote_syscall(pid_t tid, struct rt_mem *mem, long nr,
		      const uint64_t args[6], long *result, int *deferred_sig)
{
	struct rt_regs saved, regs;
	size_t len;
	const uint8_t *code = rt_arch_syscall_code(&len);
	uint8_t orig[32];
	rt_raddr at;
	int err, err2;

	err = rt_tracee_getregs(tid, &saved);
	if (err)
		return err;
	at = rt_arch_ip(&saved);
	/* the program's seccomp filter judges rtrace's calls as its own, and
	 * may kill it for one it would never make */
	if (!remote_allowed(tid, nr, args, at))
		return -EPERM;
	err = rt_mem_read(mem, at, orig, len);
	if (!err)
		err = rt_mem_write(mem, at, code, len);
	if (err)
		return err;
	regs = saved;
	rt_arch_syscall_setup(&regs, at, nr, args);
	err = rt_tracee_setregs(tid, &regs);
	if (!err)
		err = run_until(tid, rt_tracee_cont, RT_STOP_TRAP,
				deferred_sig);
	if (!err)
		err = rt_tracee_getregs(tid, &regs);
	if (!err)
		*result = rt_arch_syscall_result(&regs);
	/* put everything back even after a failure, keeping the first error */
	err2 = rt_mem_write(mem, at, orig, len);
	if (!err2)
		err2 = rt_tracee_setregs(tid, &saved);
	return err ? err : err2;
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
