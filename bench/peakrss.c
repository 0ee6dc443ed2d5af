// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * peakrss: run a program and say how much memory it used at its peak.
 *
 *   peakrss OUT PROGRAM [ARGS...]
 *
 * Forks, runs PROGRAM, waits for it with wait4() and writes two lines to
 * the file OUT:
 *
 *   maxrss_kb <ru_maxrss>
 *   cpu_us <ru_utime + ru_stime, in microseconds>
 *
 * then exits with PROGRAM's status (128+N for signal N).  Its stdin,
 * stdout and stderr are PROGRAM's.
 *
 * Why not measure from the benchmark runner itself: ru_maxrss counts the
 * memory of the process image that exec replaced, and a child forked by
 * the Python runner starts as a copy of it (some 25 MB), which would hide
 * any program smaller than that.  This wrapper is small, so the figure is
 * the program's own as soon as the program is larger than about 1 MB.
 * Like /usr/bin/time, it reports the largest of PROGRAM and of the
 * descendants PROGRAM waited for (for rtrace: the program it traced).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	FILE *out;
	pid_t pid;

	if (argc < 3) {
		fputs("usage: peakrss OUT PROGRAM [ARGS...]\n", stderr);
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("peakrss: fork");
		return 125;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("peakrss: wait4");
		return 125;
	}
	out = fopen(argv[1], "w");
	if (!out || fprintf(out, "maxrss_kb %ld\ncpu_us %lld\n", ru.ru_maxrss,
			    (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
					    1000000 +
				    ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) < 0 ||
	    fclose(out)) {
		perror(argv[1]);
		return 125;
	}
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
				     WEXITSTATUS(status);
}
