// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The only file that calls ptrace(2), and the only door to a tracee's
 * memory.  Wrappers return 0 or -errno and never print for ESRCH: a thread
 * that died between two calls is an event the tracer handles, not an error.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#define PR_FMT "tracee"
#define PR_DOMAIN RT_DOM_TRACEE
#include "rtrace/log.h"
#include "rtrace/tracee.h"
#include "rtrace/util.h"

static int checked(long r, const char *what, pid_t tid)
{
	int err;

	rt_syscalls++;
	if (r != -1)
		return 0;
	err = -errno;
	if (err != -ESRCH)
		pr_dbg("%s(%d): %s", what, tid, strerror(-err));
	return err;
}

unsigned long rt_tracee_options(bool follow, bool exitkill)
{
	/* Threads are always followed, and fork/vfork children always seized:
	 * a child inherits the breakpoints in its copy of the text, so even
	 * with --no-follow it must be caught to take them out. */
	unsigned long o = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
			  PTRACE_O_TRACEEXIT | PTRACE_O_TRACEFORK |
			  PTRACE_O_TRACEVFORK | PTRACE_O_TRACESYSGOOD;

	(void)follow;
	if (exitkill)
		o |= PTRACE_O_EXITKILL;
	return o;
}

int rt_tracee_seize(pid_t tid, unsigned long options)
{
	return checked(ptrace(PTRACE_SEIZE, tid, 0, options), "seize", tid);
}

int rt_tracee_interrupt(pid_t tid)
{
	return checked(ptrace(PTRACE_INTERRUPT, tid, 0, 0), "interrupt", tid);
}

int rt_tracee_cont(pid_t tid, int sig)
{
	return checked(ptrace(PTRACE_CONT, tid, 0, (long)sig), "cont", tid);
}

int rt_tracee_syscall(pid_t tid, int sig)
{
	return checked(ptrace(PTRACE_SYSCALL, tid, 0, (long)sig), "syscall",
		       tid);
}

int rt_tracee_step(pid_t tid, int sig)
{
	return checked(ptrace(PTRACE_SINGLESTEP, tid, 0, (long)sig), "step",
		       tid);
}

int rt_tracee_listen(pid_t tid)
{
	return checked(ptrace(PTRACE_LISTEN, tid, 0, 0), "listen", tid);
}

uint64_t rt_tracee_status_sigset(pid_t tid, const char *field)
{
	char path[64], key[16], buf[2048];
	const char *line;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	snprintf(key, sizeof(key), "\n%s:", field);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	line = strstr(buf, key);
	return line ? strtoull(line + strlen(key), NULL, 16) : 0;
}

bool rt_tracee_signal_pending(pid_t tid, int sig)
{
	return (rt_tracee_status_sigset(tid, "SigPnd") >> (sig - 1)) & 1;
}

bool rt_tracee_signal_queued(pid_t pid, int sig)
{
	uint64_t set = rt_tracee_status_sigset(pid, "SigPnd") |
		       rt_tracee_status_sigset(pid, "ShdPnd");

	return (set >> (sig - 1)) & 1;
}

int rt_tracee_detach(pid_t tid, int sig)
{
	return checked(ptrace(PTRACE_DETACH, tid, 0, (long)sig), "detach",
		       tid);
}

/* The general registers as a register set: PTRACE_GETREGS and SETREGS
 * exist on a few architectures only (not on arm64); the set that a core
 * file's NT_PRSTATUS note holds exists on all, in struct rt_regs's
 * layout (arch-regs.h). */
int rt_tracee_getregs(pid_t tid, struct rt_regs *r)
{
	struct iovec iov = { .iov_base = r, .iov_len = sizeof(*r) };

	return checked(ptrace(PTRACE_GETREGSET, tid, NT_PRSTATUS, &iov),
		       "getregs", tid);
}

int rt_tracee_getfpregs(pid_t tid, struct rt_fpregs *f)
{
	struct iovec iov = { .iov_base = f, .iov_len = sizeof(*f) };

	return checked(ptrace(PTRACE_GETREGSET, tid, NT_PRFPREG, &iov),
		       "getfpregs", tid);
}

int rt_tracee_setregs(pid_t tid, const struct rt_regs *r)
{
	struct iovec iov = { .iov_base = (void *)r, .iov_len = sizeof(*r) };

	return checked(ptrace(PTRACE_SETREGSET, tid, NT_PRSTATUS, &iov),
		       "setregs", tid);
}

int rt_tracee_getsiginfo(pid_t tid, siginfo_t *si)
{
	return checked(ptrace(PTRACE_GETSIGINFO, tid, 0, si), "getsiginfo",
		       tid);
}

int rt_tracee_getsigmask(pid_t tid, uint64_t *mask)
{
	return checked(ptrace(PTRACE_GETSIGMASK, tid, sizeof(*mask), mask),
		       "getsigmask", tid);
}

int rt_tracee_setsigmask(pid_t tid, uint64_t mask)
{
	return checked(ptrace(PTRACE_SETSIGMASK, tid, sizeof(mask), &mask),
		       "setsigmask", tid);
}

int rt_tracee_seccomp_filter(pid_t tid, unsigned long index,
			     struct sock_filter *buf, size_t cap)
{
	long n = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, index, NULL);
	int err = checked(n, "seccomp-get-filter", tid);

	if (err)
		return err;
	if ((size_t)n > cap)
		return -E2BIG;
	err = checked(ptrace(PTRACE_SECCOMP_GET_FILTER, tid, index, buf),
		      "seccomp-get-filter", tid);
	return err ? err : (int)n;
}

int rt_tracee_eventmsg(pid_t tid, unsigned long *msg)
{
	return checked(ptrace(PTRACE_GETEVENTMSG, tid, 0, msg), "geteventmsg",
		       tid);
}

/* ---- memory ------------------------------------------------------------ */

struct rt_mem {
	pid_t pid;
	int fd;                /* -1 for a proxy */
	rt_mem_io_fn *io;      /* the proxy's door, or NULL */
	void *ctx;
	rt_raddr call_site;    /* code no thread runs, or 0 */
};

int rt_mem_new_proxy(pid_t pid, rt_mem_io_fn *io, void *ctx,
		     struct rt_mem **out)
{
	struct rt_mem *m = xcalloc(1, sizeof(*m));

	m->pid = pid;
	m->fd = -1;
	m->io = io;
	m->ctx = ctx;
	*out = m;
	return 0;
}

int rt_mem_open(pid_t pid, struct rt_mem **out)
{
	char path[64];
	struct rt_mem *m;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;

		pr_dbg("open %s: %s", path, strerror(-err));
		return err;
	}
	m = xcalloc(1, sizeof(*m));
	m->pid = pid;
	m->fd = fd;
	*out = m;
	return 0;
}

void rt_mem_close(struct rt_mem *m)
{
	if (!m)
		return;
	if (m->fd >= 0)
		close(m->fd);
	free(m->ctx);
	free(m);
}

int rt_mem_fd(const struct rt_mem *m)
{
	return m ? m->fd : -1;
}

pid_t rt_mem_pid(const struct rt_mem *m)
{
	return m->pid;
}

void rt_mem_set_call_site(struct rt_mem *m, rt_raddr at)
{
	if (m)
		m->call_site = at;
}

rt_raddr rt_mem_call_site(const struct rt_mem *m)
{
	return m ? m->call_site : 0;
}

/* pread or pwrite until done: /proc/PID/mem may move less than asked */
static int mem_io(struct rt_mem *m, rt_raddr addr, char *buf, size_t len,
		  bool write)
{
	if (m->io)
		return m->io(m->ctx, addr, buf, len, write);
	while (len) {
		ssize_t r = write ? pwrite(m->fd, buf, len, (off_t)addr)
				  : pread(m->fd, buf, len, (off_t)addr);

		rt_syscalls++;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		buf += r;
		addr += r;
		len -= r;
	}
	return 0;
}

int rt_mem_read(struct rt_mem *m, rt_raddr addr, void *buf, size_t len)
{
	return mem_io(m, addr, buf, len, false);
}

int rt_mem_write(struct rt_mem *m, rt_raddr addr, const void *buf,
		 size_t len)
{
	/* the buffer is only read: mem_io's cast drops const for pread's
	 * sake, never to write through it */
	return mem_io(m, addr, (char *)buf, len, true);
}
