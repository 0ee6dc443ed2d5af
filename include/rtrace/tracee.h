/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tracee I/O: the only door to ptrace(2) and to a tracee's memory.
 * Register access, resumption and options are thin checked wrappers; memory
 * goes through pread/pwrite on /proc/PID/mem, which writes read-only text
 * for a tracer and moves whole ranges in one system call.
 *
 * Functions return 0 or -errno.  -ESRCH means the thread is gone (or not
 * stopped): callers treat it as an event, not an error, so it is logged at
 * debug level only.
 */
#ifndef RTRACE_TRACEE_H
#define RTRACE_TRACEE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rtrace/arch.h"
#include "rtrace/raddr.h"

/* Options rtrace always sets; @follow adds fork/vfork/exec following. */
unsigned long rt_tracee_options(bool follow, bool exitkill);

/* Attaches to @tid with PTRACE_SEIZE and @options. */
int rt_tracee_seize(pid_t tid, unsigned long options);

/* Stops a seized, running thread (PTRACE_INTERRUPT). */
int rt_tracee_interrupt(pid_t tid);

/* Resumes a stopped thread, delivering @sig (0 for none). */
int rt_tracee_cont(pid_t tid, int sig);

/* Resumes a thread until its next system call entry or exit. */
int rt_tracee_syscall(pid_t tid, int sig);

/* Resumes a thread for exactly one instruction (setup paths only). */
int rt_tracee_step(pid_t tid, int sig);

/* Lets a thread in group-stop stay stopped while still reporting events. */
int rt_tracee_listen(pid_t tid);

/* Detaches, delivering @sig (0 for none). */
int rt_tracee_detach(pid_t tid, int sig);

/* Register file of a stopped thread. */
int rt_tracee_getregs(pid_t tid, struct rt_regs *r);
int rt_tracee_setregs(pid_t tid, const struct rt_regs *r);

/* Floating-point and vector registers of a stopped thread, into @f. */
int rt_tracee_getfpregs(pid_t tid, struct rt_fpregs *f);

/* Siginfo of the signal a thread stopped with. */
int rt_tracee_getsiginfo(pid_t tid, siginfo_t *si);

/* Whether signal @sig is pending for thread @tid itself (its SigPnd in
 * /proc; not the process-wide set).  Reads with open/read only, so that
 * rtrace's crash rescue may call it. */
bool rt_tracee_signal_pending(pid_t tid, int sig);

/* The blocked signals of stopped thread @tid (bit N-1 for signal N) into
 * *mask, or set from @mask (PTRACE_GETSIGMASK, PTRACE_SETSIGMASK). */
int rt_tracee_getsigmask(pid_t tid, uint64_t *mask);
int rt_tracee_setsigmask(pid_t tid, uint64_t mask);

/* The signal set on line @field ("SigPnd", "SigBlk", "SigIgn", "SigCgt")
 * of /proc/@tid/status (a process or thread id), 0 when unreadable.
 * Reads with open/read only, so that rtrace's crash rescue may call it. */
uint64_t rt_tracee_status_sigset(pid_t tid, const char *field);

/* Seccomp filter @index (0: the newest) of stopped thread @tid into @buf
 * (@cap instructions at most): its length, or -errno (-ENOENT past the
 * oldest, -EACCES without CAP_SYS_ADMIN, -E2BIG when longer than @cap). */
struct sock_filter;
int rt_tracee_seccomp_filter(pid_t tid, unsigned long index,
			     struct sock_filter *buf, size_t cap);

/* Whether signal @sig waits to be delivered in process @pid: pending for
 * its main thread or for the whole process (SigPnd or ShdPnd). */
bool rt_tracee_signal_queued(pid_t pid, int sig);

/* The event message of a ptrace-event stop (new tid, exit status...). */
int rt_tracee_eventmsg(pid_t tid, unsigned long *msg);

/* ---- memory ----------------------------------------------------------- */

struct rt_mem;

/* Opens /proc/@pid/mem for reading and writing; free with rt_mem_close(). */
int rt_mem_open(pid_t pid, struct rt_mem **out);

/* Moves @len bytes between @buf and the tracee at @addr (@write: to the
 * tracee) for a memory rtrace cannot open: 0 or -errno. */
typedef int rt_mem_io_fn(void *ctx, rt_raddr addr, void *buf, size_t len,
			 bool write);

/* A memory of process @pid reached through @io instead of /proc/PID/mem;
 * @ctx is passed to it and freed (free()) by rt_mem_close(). */
int rt_mem_new_proxy(pid_t pid, rt_mem_io_fn *io, void *ctx,
		     struct rt_mem **out);

/* Closes; accepts NULL. */
void rt_mem_close(struct rt_mem *m);

/* The descriptor of /proc/PID/mem behind @m (still @m's), or -1 for a
 * memory reached another way. */
int rt_mem_fd(const struct rt_mem *m);

/* The process @m reaches. */
pid_t rt_mem_pid(const struct rt_mem *m);

/* Where rtrace may put code it runs in a stopped thread (a system call
 * of its own): an address of executable code that no thread of the
 * process runs (its executable's entry point, long past), so that no
 * other thread meets rtrace's bytes there should rtrace die before it
 * puts the code back.  0 (the default): none known. */
void rt_mem_set_call_site(struct rt_mem *m, rt_raddr at);
rt_raddr rt_mem_call_site(const struct rt_mem *m);

/* Reads or writes exactly @len bytes at @addr; -EIO when the range is
 * not (wholly) mapped. */
int rt_mem_read(struct rt_mem *m, rt_raddr addr, void *buf, size_t len);
int rt_mem_write(struct rt_mem *m, rt_raddr addr, const void *buf,
		 size_t len);

#endif
