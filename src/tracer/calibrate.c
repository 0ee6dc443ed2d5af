// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Calibration of the per-stop cost.  The child busy-waits for a set
 * interval, reads the clock, hits a breakpoint, reads the clock again: the
 * difference, less the same sequence without the breakpoint, is what that
 * stop cost it.  The parent handles each breakpoint stop exactly as the
 * probe-hit path does (wait, read registers, read the clock, write
 * registers, continue), so the figure includes everything a real hit
 * costs.  Each interval gets a trimmed mean over its samples: the mean is
 * what a sum over many stops loses, and the trim keeps one descheduled
 * sample from skewing it.
 *
 * A stop's cost falls on both sides of the time stamp the tracer gives the
 * event: trap, wake-up and register read before it; log, register write,
 * continue and the thread's wake-up after.  A call that begins at an event
 * recorded in the process and ends at a stop pays only the part before,
 * so the split is measured too: the child leaves its clock reading before
 * the breakpoint in a shared page, and the parent, at the stop, writes
 * back how long before its own reading that was.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define PR_FMT "calibrate"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/arch.h"
#include "rtrace/calibrate.h"
#include "rtrace/launch.h"
#include "rtrace/log.h"
#include "rtrace/tracee.h"
#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

/* Busy intervals before each stop, and samples taken at each. */
static const struct {
	uint64_t gap_ns;
	unsigned samples;
} points[] = {
	{ 0, 60 }, { 20000, 30 }, { 60000, 20 },
	{ 150000, 15 }, { 400000, 10 }, { 1000000, 8 },
};

#define NPOINTS ARRAY_SIZE(points)
#define MAX_SAMPLES 60

/* Shared by the child and the parent, which reads and writes it only
 * while the child is stopped. */
struct split {
	volatile uint64_t t0;   /* the child's clock just before the trap */
	volatile uint64_t pre;  /* the parent's clock at the stop, less t0 */
};

/* What the child reports per interval. */
struct point_cost {
	uint64_t cost, pre;
};

typedef void (*code_fn)(void);

static code_fn load_code(const uint8_t *code, size_t len)
{
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		return NULL;
	memcpy(page, code, len);
	if (mprotect(page, 4096, PROT_READ | PROT_EXEC) != 0)
		return NULL;
	return (code_fn)page;
}

static void spin(uint64_t ns)
{
	uint64_t t0 = now_ns();

	while (now_ns() - t0 < ns)
		;
}

/* How long a call of @fn takes after @gap ns of work; with @sp, the
 * clock before the call is left there for the parent. */
static uint64_t timed_call(code_fn fn, uint64_t gap, struct split *sp)
{
	uint64_t t0;

	spin(gap);
	t0 = now_ns();
	if (sp)
		sp->t0 = t0;
	fn();
	return now_ns() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Mean of the middle 60 % of @v (sorted in place). */
static uint64_t trimmed_mean(uint64_t *v, unsigned n)
{
	unsigned lo = n / 5, hi = n - n / 5;
	uint64_t sum = 0;

	qsort(v, n, sizeof(*v), cmp_u64);
	for (unsigned i = lo; i < hi; i++)
		sum += v[i];
	return hi > lo ? sum / (hi - lo) : 0;
}

static void __noreturn child_main(int fd, struct split *sp, pid_t parent)
{
	size_t plen, tlen;
	const uint8_t *pcode = rt_arch_ret_code(&plen);
	const uint8_t *tcode = rt_arch_trap_ret_code(&tlen);
	code_fn plain = load_code(pcode, plen);
	code_fn trap = load_code(tcode, tlen);
	uint64_t base[MAX_SAMPLES], hit[MAX_SAMPLES], pre[MAX_SAMPLES];
	struct point_cost res[NPOINTS];

	/* killed with rtrace, even one killed before it took the child
	 * over: a child left stopped would hold rtrace's stderr forever */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	kill(getpid(), SIGSTOP);
	if (!plain || !trap)
		_exit(1);
	for (size_t p = 0; p < NPOINTS; p++) {
		unsigned n = points[p].samples;
		uint64_t b, h;

		for (unsigned i = 0; i < n; i++) {
			base[i] = timed_call(plain, points[p].gap_ns, NULL);
			hit[i] = timed_call(trap, points[p].gap_ns, sp);
			pre[i] = sp->pre;
		}
		b = trimmed_mean(base, n);
		h = trimmed_mean(hit, n);
		res[p].cost = h - MIN(b, h);
		res[p].pre = MIN(trimmed_mean(pre, n), res[p].cost);
	}
	_exit(write_all(fd, res, sizeof(res)) ? 1 : 0);
}

/* Handles the child's stops like probe hits until it exits. */
static int serve(pid_t pid, struct split *sp)
{
	struct rt_regs regs;
	struct rt_wait w;

	for (;;) {
		int err = rt_wait_tid(pid, &w);

		if (err == -EINTR)
			continue;
		if (err)
			return err;
		if (w.kind == RT_STOP_EXITED || w.kind == RT_STOP_KILLED)
			return w.kind == RT_STOP_EXITED && w.code == 0 ? 0
								      : -EIO;
		if (w.kind == RT_STOP_TRAP) {
			rt_tracee_getregs(pid, &regs);
			sp->pre = now_ns() - sp->t0;
			rt_arch_trap_resolve(&regs, w.sig);
			rt_tracee_setregs(pid, &regs);
		}
		rt_tracee_cont(pid, w.kind == RT_STOP_SIGNAL &&
					    w.sig != SIGCONT ? w.sig : 0);
	}
}

static int run_child(int fds[2], struct split *sp, pid_t *pid)
{
	pid_t parent = getpid();

	*pid = fork();
	if (*pid < 0)
		return -errno;
	if (*pid == 0) {
		close(fds[0]);
		child_main(fds[1], sp, parent);
	}
	if (rt_launch_take_over(*pid, rt_tracee_options(false, true)))
		return -EPERM;
	return serve(*pid, sp);
}

int rt_calibrate_stop_cost(struct rt_stop_cost *cost)
{
	struct point_cost res[NPOINTS];
	struct split *sp;
	int fds[2], err;
	pid_t pid;

	memset(cost, 0, sizeof(*cost));
	sp = mmap(NULL, sizeof(*sp), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sp == MAP_FAILED)
		sp = NULL;
	if (!sp || pipe2(fds, O_CLOEXEC) != 0) {
		err = -errno;
		if (sp)
			munmap(sp, sizeof(*sp));
		return err;
	}
	err = run_child(fds, sp, &pid);
	close(fds[1]);
	if (!err && read(fds[0], res, sizeof(res)) != sizeof(res))
		err = -EIO;
	close(fds[0]);
	munmap(sp, sizeof(*sp));
	if (err) {
		pr_warn("cannot calibrate the cost of a stop (%s); times are "
			"not compensated", strerror(-err));
		return err;
	}
	for (size_t p = 0; p < NPOINTS; p++) {
		/* the tracer sees stops this far apart */
		cost->interval_ns[p] = points[p].gap_ns + res[p].cost;
		cost->cost_ns[p] = res[p].cost;
		cost->pre_ns[p] = res[p].pre;
		pr_dbg("stops %llu ns apart cost %llu ns, %llu before the "
		       "time stamp", (unsigned long long)cost->interval_ns[p],
		       (unsigned long long)res[p].cost,
		       (unsigned long long)res[p].pre);
		if (p && cost->interval_ns[p] < cost->interval_ns[p - 1])
			cost->interval_ns[p] = cost->interval_ns[p - 1];
	}
	cost->n = NPOINTS;
	cost->has_pre = true;
	return 0;
}
