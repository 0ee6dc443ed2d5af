// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bare-ptrace: the floor under any ptrace-based tracer, one breakpoint
 * round trip with nothing else around it.
 *
 *   bare-ptrace [N]    (default 100000)
 *
 * A child hits an int3 N times in a tight loop.  For each stop the parent
 * does exactly what rtrace's hot path does and nothing more:
 *
 *   waitpid(__WALL), PTRACE_GETREGS, PTRACE_SETREGS, PTRACE_CONT
 *
 * The registers are written back unchanged: the int3 has already moved
 * the instruction pointer past itself.  The child is seized the way rtrace
 * seizes a program (PTRACE_SEIZE with EXITKILL, from a group-stop), so the
 * kernel's path through a stop is the same.
 *
 * It prints one line, for bench/run to read:
 *
 *   bare-ptrace: N stops, T ns, X ns per stop
 *
 * where T is the CLOCK_MONOTONIC time from the first breakpoint stop to
 * the last, N - 1 round trips: X = T / (N - 1).  The seize, the child's
 * start and its exit are not included.  Exit status 0, or 1 with a
 * message.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bare-ptrace: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void child(unsigned long n)
{
	raise(SIGSTOP);  /* wait to be seized */
	for (unsigned long i = 0; i < n; i++)
		__asm__ volatile("int3" ::: "memory");
	_exit(0);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	struct user_regs_struct regs;
	unsigned long stops = 0;
	uint64_t t0 = 0, t1 = 0;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		child(n);

	if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status))
		die("waitpid (initial stop)");
	if (ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_EXITKILL) < 0)
		die("PTRACE_SEIZE");
	/* Seized in a group-stop: SIGCONT ends it.  The stops that follow
	 * before the first int3 (the end of the group-stop, the SIGCONT's
	 * delivery) are passed through and not timed. */
	kill(pid, SIGCONT);
	for (;;) {
		if (waitpid(pid, &status, __WALL) != pid)
			die("waitpid");
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (status >> 16 || WSTOPSIG(status) != SIGTRAP) {
			/* an event stop, or a signal that is not ours:
			 * resume, passing a signal on */
			if (ptrace(PTRACE_CONT, pid, 0,
				   status >> 16 ? 0 : WSTOPSIG(status)) < 0)
				die("PTRACE_CONT");
			continue;
		}
		if (ptrace(PTRACE_GETREGS, pid, 0, &regs) < 0)
			die("PTRACE_GETREGS");
		if (ptrace(PTRACE_SETREGS, pid, 0, &regs) < 0)
			die("PTRACE_SETREGS");
		t1 = now_ns();
		if (!stops++)
			t0 = t1;
		if (ptrace(PTRACE_CONT, pid, 0, 0) < 0)
			die("PTRACE_CONT");
	}
	if (stops != n) {
		fprintf(stderr, "bare-ptrace: %lu stops, expected %lu\n", stops, n);
		return 1;
	}
	printf("bare-ptrace: %lu stops, %llu ns, %.1f ns per stop\n", stops,
	       (unsigned long long)(t1 - t0),
	       stops > 1 ? (double)(t1 - t0) / (double)(stops - 1) : 0.0);
	return 0;
}
