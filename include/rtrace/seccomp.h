/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a thread's seccomp filters would do with a system call rtrace is
 * about to make in it.  A sandboxed program (OpenSSH's privilege
 * separation, Firecracker, systemd's SystemCallFilter=) can be killed by
 * the kernel for a call it never makes itself, so rtrace looks before it
 * injects one: it reads the filters (PTRACE_SECCOMP_GET_FILTER, which
 * needs CAP_SYS_ADMIN) and runs them on the call, as the kernel would.
 */
#ifndef RTRACE_SECCOMP_H
#define RTRACE_SECCOMP_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtrace/raddr.h"

/* What a call would meet. */
enum rt_seccomp_verdict {
	RT_SECCOMP_RUNS,     /* no filter, or every filter allows (or logs) it */
	RT_SECCOMP_FAILS,    /* refused with an error (ERRNO, or TRACE to a
			      * tracer that asked for no such stops):
			      * harmless, the call just fails */
	RT_SECCOMP_UNSAFE,   /* would kill, trap (SIGSYS) or wait for a
			      * supervisor: never make it */
	RT_SECCOMP_UNKNOWN,  /* filtered, and the filters cannot be read */
};

/* The seccomp mode of thread @tid from /proc (0 none, 1 strict, 2
 * filter), or -errno. */
int rt_seccomp_mode(pid_t tid);

/* Runs classic BPF program @prog (@n instructions) on @data as the
 * kernel's seccomp does: *ret gets the filter's return value.  0, or
 * -EINVAL for a program the kernel would not have accepted (a jump or
 * load out of bounds, an unknown instruction).  Pure. */
int rt_seccomp_run(const struct sock_filter *prog, size_t n,
		   const struct seccomp_data *data, uint32_t *ret);

/* The action that wins among filter results @rets (@n of them), by the
 * kernel's precedence.  Pure. */
uint32_t rt_seccomp_combine(const uint32_t *rets, size_t n);

/* What system call @nr with @args, made at @ip in stopped thread @tid,
 * would meet. */
enum rt_seccomp_verdict rt_seccomp_check(pid_t tid, long nr,
					 const uint64_t args[6], rt_raddr ip);

#endif
