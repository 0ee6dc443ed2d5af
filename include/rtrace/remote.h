/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * System calls made inside a stopped tracee on rtrace's behalf: the thread's
 * registers are saved, a syscall-then-trap sequence is written at its
 * current instruction, the thread runs it, and everything is restored.  Used
 * to map and unmap the scratch area.
 */
#ifndef RTRACE_REMOTE_H
#define RTRACE_REMOTE_H

#include <stdint.h>
#include <sys/types.h>

#include "rtrace/tracee.h"

/* Runs system call @nr with @args in stopped thread @tid of the process
 * whose memory is @mem; *result gets the kernel's return (-errno on
 * failure).  A signal that arrives meanwhile is kept in *deferred_sig (0 if
 * none) for the caller to deliver later.  Returns 0, or -errno when the
 * thread could not be made to run the call (it is then left as it was if
 * it still exists): -EPERM when the thread's seccomp filter could kill or
 * trap it for this call, or cannot be read (rt_seccomp_check()). */
int rt_remote_syscall(pid_t tid, struct rt_mem *mem, long nr,
		      const uint64_t args[6], long *result, int *deferred_sig);

/* The most data rt_remote_syscall_quiet() places on the stack. */
#define RT_REMOTE_DATA_MAX 256

/* As rt_remote_syscall(), but the thread never executes a breakpoint: it
 * is run to the call's exit stop (PTRACE_SYSCALL), one stop more, so
 * that no SIGILL is forced on it (the kernel resets an ignored or
 * blocked SIGILL when it forces one).  @len bytes of @data (at most
 * RT_REMOTE_DATA_MAX, the caller's) are put on the thread's stack, below
 * what its code may use, for the call: argument @data_arg (-1: none) is
 * set to their address, and @data gets them back after the call. */
int rt_remote_syscall_quiet(pid_t tid, struct rt_mem *mem, long nr,
			    const uint64_t args[6], void *data, size_t len,
			    int data_arg, long *result, int *deferred_sig);

/* Moves a thread stopped at PTRACE_EVENT_EXEC to the exit of its execve.
 * At the event stop the kernel has yet to store execve's result in the
 * return register, and would overwrite whatever a remote call put there;
 * at the syscall-exit stop the registers are final.  0 or -errno. */
int rt_remote_finish_syscall(pid_t tid, int *deferred_sig);

/* mmap(@hint, @len, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_ANONYMOUS|
 * MAP_FIXED_NOREPLACE) in the tracee: 0 and *addr, or -errno. */
int rt_remote_mmap_exec(pid_t tid, struct rt_mem *mem, rt_raddr hint,
			size_t len, rt_raddr *addr, int *deferred_sig);

/* munmap in the tracee: 0 or -errno. */
int rt_remote_munmap(pid_t tid, struct rt_mem *mem, rt_raddr addr,
		     size_t len, int *deferred_sig);

/* A memory for a process whose /proc/PID/mem rtrace may not open (it is
 * not dumpable): each access makes stopped thread @tid move the bytes
 * with process_vm_readv/writev on itself (a write framed by mprotect
 * calls: code is read-only), every system call made by
 * single-stepping the syscall instruction at @syscall_insn, the data
 * passing through @bounce_len bytes shared with the process (at @bounce
 * in rtrace, @bounce_at in it).  @tid must stay stopped while the memory
 * is used.  *out is the caller's (rt_mem_close()); 0 or -errno. */
int rt_remote_mem_proxy(pid_t tid, rt_raddr syscall_insn, uint8_t *bounce,
			rt_raddr bounce_at, size_t bounce_len,
			int *deferred_sig, struct rt_mem **out);

#endif
