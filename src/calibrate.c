// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Calibration of the per-stop cost.  The child times ROUNDS pairs of loops
 * (LOOPS calls of a function that only returns, then LOOPS calls of one
 * that hits a breakpoint first) and writes both figures to a pipe; the
 * parent handles each breakpoint stop exactly as the probe-hit path does
 * (wait, read registers, read the clock, write registers, continue).  The
 * difference per call, a trimmed mean over the rounds, is what a stop costs the
 * program.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PR_FMT "calibrate"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/arch.h"
#include "rtrace/calibrate.h"
#include "rtrace/log.h"
#include "rtrace/tracee.h"
#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

#define ROUNDS 16
#define LOOPS 40

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

static uint64_t time_loop(code_fn fn)
{
	uint64_t t0 = now_ns();

	for (int i = 0; i < LOOPS; i++)
		fn();
	return now_ns() - t0;
}

static void __noreturn child_main(int fd)
{
	size_t plen, tlen;
	const uint8_t *pcode = rt_arch_ret_code(&plen);
	const uint8_t *tcode = rt_arch_trap_ret_code(&tlen);
	code_fn plain = load_code(pcode, plen);
	code_fn trap = load_code(tcode, tlen);
	uint64_t res[ROUNDS][2];

	kill(getpid(), SIGSTOP);
	if (!plain || !trap)
		_exit(1);
	for (int r = 0; r < ROUNDS; r++) {
		res[r][0] = time_loop(plain);
		res[r][1] = time_loop(trap);
	}
	_exit(write_all(fd, res, sizeof(res)) ? 1 : 0);
}

/* Handles the child's stops like probe hits until it exits. */
static int serve(pid_t pid)
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
			(void)now_ns();
			rt_arch_set_ip(&regs, rt_arch_ip(&regs));
			rt_tracee_setregs(pid, &regs);
		}
		rt_tracee_cont(pid, w.kind == RT_STOP_SIGNAL ? w.sig : 0);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int run_child(int fds[2], pid_t *pid)
{
	int status;
	struct rt_wait w;

	*pid = fork();
	if (*pid < 0)
		return -errno;
	if (*pid == 0) {
		close(fds[0]);
		child_main(fds[1]);
	}
	close(fds[1]);
	if (waitpid(*pid, &status, WUNTRACED) != *pid)
		return -ECHILD;
	rt_waitstatus_decode(*pid, status, &w);
	if (w.kind != RT_STOP_SIGNAL ||
	    rt_tracee_seize(*pid, rt_tracee_options(false, true))) {
		kill(*pid, SIGKILL);
		waitpid(*pid, &status, 0);
		return -EPERM;
	}
	kill(*pid, SIGCONT);
	return serve(*pid);
}

int rt_calibrate_stop_cost(uint64_t *ns)
{
	uint64_t res[ROUNDS][2], per[ROUNDS];
	int fds[2], err;
	pid_t pid;

	*ns = 0;
	if (pipe(fds) != 0)
		return -errno;
	err = run_child(fds, &pid);
	if (!err && read(fds[0], res, sizeof(res)) != sizeof(res))
		err = -EIO;
	close(fds[0]);
	if (err) {
		pr_warn("cannot calibrate the cost of a stop (%s); times are "
			"not compensated", strerror(-err));
		return err;
	}
	for (int r = 0; r < ROUNDS; r++)
		per[r] = res[r][1] > res[r][0] ?
				 (res[r][1] - res[r][0]) / LOOPS : 0;
	/* the mean is what sums of many stops lose; trimming the outer
	 * quarters keeps a descheduled round from skewing it */
	qsort(per, ROUNDS, sizeof(per[0]), cmp_u64);
	for (int r = ROUNDS / 4; r < ROUNDS - ROUNDS / 4; r++)
		*ns += per[r];
	*ns /= ROUNDS - 2 * (ROUNDS / 4);
	pr_dbg("one stop costs the program %llu ns (trimmed mean of %d "
	       "rounds)", (unsigned long long)*ns, ROUNDS);
	return 0;
}
