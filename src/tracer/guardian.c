// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The guardian of an attached session (guardian.h).
 *
 * It is started by a double fork, so that it is nobody's child rtrace
 * waits for (rtrace waits for any child: its tracees), and it talks with
 * rtrace over a socket pair: rtrace sends each process's memory (the
 * descriptor itself), the address of its event area's control words, and
 * every write over the program's code before it makes it (its
 * breakpoints, and the instructions of each system call it makes in the
 * program, put back after the call); at a normal end it says goodbye.
 * When the socket ends without a goodbye, rtrace is gone: the guardian
 * sets each area's recording off (the recorder then counts events as
 * lost, and never stops at a breakpoint of its own) and writes the
 * original bytes back wherever rtrace's are still there, newest first.  Jumps to
 * trampolines stay: they run on without rtrace, into a recorder that
 * does nothing.
 *
 * When the process has a trap guard (trapguard.h), the guardian then
 * writes there the breakpoints it put back and says it is done: a thread
 * that met one of them after rtrace died waits in the guard's handler
 * until then, and runs the original instruction.
 *
 * What it cannot do: a thread that was stopped at one of rtrace's
 * breakpoints when rtrace died is resumed by the kernel one byte past it,
 * with no signal, in the middle of the instruction the breakpoint
 * replaced; nor help one rtrace was moving through its scratch code; the
 * kernel gives no way to take such a stop over without being the tracer.
 * Jumps make such stops rare; --engine trap makes every hit one.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PR_FMT "guardian"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/guardian.h"
#include "rtrace/inline-layout.h"
#include "rtrace/jumparea.h"
#include "rtrace/log.h"
#include "rtrace/probes.h"
#include "rtrace/tasks.h"
#include "rtrace/tracee.h"
#include "rtrace/trapguard-layout.h"
#include "rtrace/util.h"

enum msg_type {
	MSG_PROCESS,     /* a process's memory (descriptor attached): a new
			  * one (an exec) makes the old sites moot */
	MSG_AREA,        /* the control words of its event area */
	MSG_SITES,       /* code rtrace writes in it */
	MSG_GUARD,       /* its trap guard (trapguard.h) is at .ctl */
	MSG_BYE,         /* rtrace ends as it should */
};

/* Bytes rtrace writes over the program's code (a breakpoint, a system
 * call made in the program): put back when they are still there. */
#define SITE_MAX 16
struct site {
	uint64_t addr;
	uint8_t len;
	uint8_t orig[SITE_MAX];
	uint8_t ours[SITE_MAX];
};

#define SITES_PER_MSG 128

struct msg {
	uint32_t type;
	int32_t pid;
	uint64_t ctl;               /* MSG_PROCESS: 0 when no event area */
	uint32_t nsites;
	struct site sites[SITES_PER_MSG];
};

/* rtrace's end of the socket; -1: no guardian */
static int sock = -1;

/* The processes whose memory went to the guardian (rtrace's side). */
static VEC(pid_t) told;

/* ---- the guardian's side -------------------------------------------------- */

struct watched {
	pid_t pid;
	int mem;
	uint64_t ctl;
	uint64_t guard;             /* 0: none */
	VEC(struct site) sites;
};

static VEC(struct watched) watched;

static struct watched *watched_of(pid_t pid)
{
	vec_for_each(&watched, w)
		if (w->pid == pid)
			return w;
	return NULL;
}

static ssize_t receive(int fd, struct msg *m, int *passed)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n;

	*passed = -1;
	do
		n = recvmsg(fd, &h, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	c = n > 0 ? CMSG_FIRSTHDR(&h) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(passed, CMSG_DATA(c), sizeof(int));
	return n;
}

/* Whether @w's process has ended: its memory reads as empty.  A
 * program that forks at every request would otherwise leave one entry,
 * and one descriptor, per child. */
static bool ended(const struct watched *w)
{
	uint8_t b;

	return w->mem >= 0 && w->sites.n &&
	       pread(w->mem, &b, 1, (off_t)w->sites.v[0].addr) == 0;
}

static void forget_ended(void)
{
	size_t kept = 0;

	for (size_t i = 0; i < watched.n; i++) {
		struct watched *w = &watched.v[i];

		if (ended(w)) {
			close(w->mem);
			vec_free(&w->sites);
			continue;
		}
		watched.v[kept++] = *w;
	}
	watched.n = kept;
}

/* A newer memory of the same process (it exec'd): the old one's
 * breakpoints went with the old image. */
static void note_process(const struct msg *m, int mem)
{
	struct watched *w;

	forget_ended();
	w = watched_of(m->pid);
	if (!w) {
		struct watched fresh = { .pid = m->pid, .mem = -1 };

		vec_push(&watched, fresh);
		w = vec_last(&watched);
	}
	if (w->mem >= 0)
		close(w->mem);
	w->mem = mem;
	w->ctl = 0;
	w->guard = 0;
	w->sites.n = 0;
}

static void note_area(const struct msg *m)
{
	struct watched *w = watched_of(m->pid);

	if (w)
		w->ctl = m->ctl;
}

static void note_guard(const struct msg *m)
{
	struct watched *w = watched_of(m->pid);

	if (w)
		w->guard = m->ctl;
}

static void note_sites(const struct msg *m)
{
	struct watched *w = watched_of(m->pid);

	for (uint32_t i = 0; w && i < m->nsites && i < SITES_PER_MSG; i++)
		vec_push(&w->sites, m->sites[i]);
}

/* Tells @w's trap guard which breakpoint sites hold their original
 * code again, then that its threads may go on (trapguard.S). */
static void release_guard(const struct watched *w)
{
	size_t tlen;
	const uint8_t *trap = rt_arch_trap_bytes(&tlen);
	const uint32_t state = RT_TG_RESTORED;
	uint64_t n = 0;
	VEC(uint64_t) at = { 0 };

	for (size_t i = 0; i < w->sites.n && at.n < RT_TG_REWIND_MAX; i++) {
		const struct site *st = &w->sites.v[i];

		if (st->len == tlen && !memcmp(st->ours, trap, tlen))
			vec_push(&at, st->addr);
	}
	n = at.n;
	if ((!n || pwrite(w->mem, at.v, n * sizeof(*at.v),
			  (off_t)(w->guard + RT_TG_REWIND)) >= 0) &&
	    pwrite(w->mem, &n, sizeof(n),
		   (off_t)(w->guard + RT_TG_NREWIND)) >= 0)
		pwrite(w->mem, &state, sizeof(state),
		       (off_t)(w->guard + RT_TG_STATE));
	vec_free(&at);
}

/* rtrace is gone: recording off, its code out, where still there. */
static void give_back(void)
{
	const uint32_t off = RT_OFF_GONE;

	vec_for_each(&watched, w) {
		if (w->mem < 0)
			continue;
		if (w->ctl && pwrite(w->mem, &off, sizeof(off),
				     (off_t)(w->ctl + RT_IA_CTL_OFF)) < 0)
			continue;  /* the process is gone too */
		/* the newest first: a later write may cover an earlier one */
		for (size_t i = w->sites.n; i-- > 0;) {
			const struct site *st = &w->sites.v[i];
			uint8_t now[SITE_MAX];

			if (pread(w->mem, now, st->len, (off_t)st->addr) ==
				    (ssize_t)st->len &&
			    !memcmp(now, st->ours, st->len) &&
			    pwrite(w->mem, st->orig, st->len,
				   (off_t)st->addr) < 0)
				break;
		}
		if (w->guard)
			release_guard(w);
	}
}

static void say_given_back(void)
{
	char line[160];
	int n = snprintf(line, sizeof(line),
			 "rtrace: rtrace ended without detaching; its "
			 "guardian put the code of %zu process%s back, which "
			 "run%s on untraced\n", watched.n,
			 watched.n == 1 ? "" : "es", watched.n == 1 ? "s" : "");

	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

static void ignore_stop_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT,
				    SIGPIPE, SIGALRM, SIGTSTP, SIGUSR1 };
	sigset_t none;

	/* Ctrl-C reaches the whole group: rtrace detaches and says bye;
	 * `pkill -USR1 rtrace`, rtrace's interim report, reaches this
	 * process too */
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static _Noreturn void guard(int fd)
{
	static struct msg m;
	int passed;

	prctl(PR_SET_NAME, "rtrace-guard");
	ignore_stop_signals();
	for (;;) {
		ssize_t n = receive(fd, &m, &passed);

		if (n <= 0)
			break;
		if (m.type == MSG_BYE)
			_exit(0);
		if (m.type == MSG_PROCESS && passed >= 0)
			note_process(&m, passed);
		else if (m.type == MSG_AREA)
			note_area(&m);
		else if (m.type == MSG_SITES)
			note_sites(&m);
		else if (m.type == MSG_GUARD)
			note_guard(&m);
		else if (passed >= 0)
			close(passed);
	}
	give_back();
	if (watched.n)
		say_given_back();
	_exit(0);
}

/* ---- rtrace's side --------------------------------------------------------- */

/* Everything but the socket and stderr closed: the guardian must hold
 * no log, no terminal input, no pipe someone waits to see closed. */
static void close_all_but(int keep)
{
	long max = sysconf(_SC_OPEN_MAX);

	for (int fd = 0; fd < (max > 0 && max < 65536 ? max : 65536); fd++)
		if (fd != keep && fd != STDERR_FILENO)
			close(fd);
}

int rt_guardian_start(void)
{
	int sv[2], status;
	pid_t mid;

	if (sock >= 0)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	mid = fork();
	if (mid < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (mid == 0) {
		close_all_but(sv[1]);
		if (fork() == 0)
			guard(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	sock = sv[0];
	return 0;
}

static void send_msg(const struct msg *m, size_t len, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)m, len };
	struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		h.msg_control = cbuf;
		h.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&h);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	while (sendmsg(sock, &h, MSG_NOSIGNAL) < 0) {
		if (errno == EINTR)
			continue;
		pr_warn("its guardian is gone (%s): if rtrace is killed, "
			"the program may die with it", strerror(errno));
		close(sock);
		sock = -1;
		return;
	}
}

void rt_guardian_stop(void)
{
	static const struct msg bye = { .type = MSG_BYE };

	if (sock < 0)
		return;
	send_msg(&bye, sizeof(bye), -1);
	if (sock >= 0)
		close(sock);
	sock = -1;
}

static bool was_told(pid_t pid)
{
	vec_for_each(&told, t)
		if (*t == pid)
			return true;
	return false;
}

/* The guardian has @mem's process, or gets it now. */
static bool tell_process(const struct rt_mem *mem)
{
	struct msg m = { .type = MSG_PROCESS };
	int fd;

	if (!mem || sock < 0)  /* a child rtrace may not open: no help */
		return false;
	m.pid = rt_mem_pid(mem);
	fd = rt_mem_fd(mem);
	if (fd < 0)
		return false;  /* reached without a descriptor: no help */
	if (was_told(m.pid))
		return true;
	send_msg(&m, offsetof(struct msg, sites), fd);
	if (sock >= 0)
		vec_push(&told, m.pid);
	return sock >= 0;
}

bool rt_guardian_running(void)
{
	return sock >= 0;
}

void rt_guardian_trapguard(const struct rt_mem *mem, rt_raddr at)
{
	struct msg m = { .type = MSG_GUARD, .ctl = at };

	if (!tell_process(mem))
		return;
	m.pid = rt_mem_pid(mem);
	send_msg(&m, offsetof(struct msg, sites), -1);
}

static void send_sites(const struct msg *m)
{
	send_msg(m, offsetof(struct msg, sites) +
			    m->nsites * sizeof(struct site), -1);
}

void rt_guardian_armed(struct rt_process *p, const struct rt_plan *plan,
		       bool jumps)
{
	static struct msg m;
	size_t tlen;
	const uint8_t *trap = rt_arch_trap_bytes(&tlen);

	if (!tell_process(p->mem))
		return;
	if (p->ia) {
		m = (struct msg){ .type = MSG_AREA, .pid = p->pid,
				  .ctl = rt_inline_base(p->ia) + RT_IA_CTL };
		send_msg(&m, offsetof(struct msg, sites), -1);
	}
	m = (struct msg){ .type = MSG_SITES, .pid = p->pid };
	for (size_t i = 0, n = rt_plan_nprobes(plan); i < n && sock >= 0;
	     i++) {
		const struct rt_probe *pr = rt_plan_probe(plan, i);
		struct site *s = &m.sites[m.nsites];

		if (jumps && rt_probe_inline(pr))
			continue;  /* a jump: safe without rtrace */
		s->addr = pr->addr;
		s->len = (uint8_t)tlen;
		memcpy(s->orig, pr->orig, tlen);
		memcpy(s->ours, trap, tlen);
		if (++m.nsites == SITES_PER_MSG) {
			send_sites(&m);
			m.nsites = 0;
		}
	}
	if (m.nsites && sock >= 0)
		send_sites(&m);
}

void rt_guardian_code(const struct rt_mem *mem, rt_raddr at,
		      const uint8_t *orig, const uint8_t *ours, size_t len)
{
	struct msg m = { .type = MSG_SITES, .nsites = 1 };

	if (len > SITE_MAX || !tell_process(mem))
		return;
	m.pid = rt_mem_pid(mem);
	m.sites[0].addr = at;
	m.sites[0].len = (uint8_t)len;
	memcpy(m.sites[0].orig, orig, len);
	memcpy(m.sites[0].ours, ours, len);
	send_sites(&m);
}

void rt_guardian_exec(struct rt_process *p)
{
	for (size_t i = 0; i < told.n; i++)
		if (told.v[i] == p->pid)
			told.v[i--] = told.v[--told.n];
}
