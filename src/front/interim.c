// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The interim report (interim.h).  A grandchild of rtrace makes it, as
 * the guardian is made: the middle process ends at once and is reaped
 * here, so the report's process is never rtrace's child and the trace
 * loop's waits for the program never see it.  It holds the write end of
 * a pipe: the end of file on the read end says the report is out.
 *
 * The grandchild inherits rtrace's handlers (the stop signals pass
 * Ctrl-C on to the program, the rescue writes to its memory) and its
 * descriptors; it puts every signal back to its default and closes what
 * it does not need before it does anything.  It leaves
 * with _exit(), so nothing of rtrace's (the log's buffer) is flushed
 * twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PR_FMT "session"
#define PR_DOMAIN RT_DOM_MAIN
#include "rtrace/interim.h"
#include "rtrace/log.h"
#include "rtrace/output.h"
#include "rtrace/profsave.h"
#include "rtrace/report.h"
#include "rtrace/util.h"

static int busy_fd = -1;
static struct rt_proftap *profile;

void rt_interim_profile(struct rt_proftap *t)
{
	profile = t;
}

static void default_signals(void)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t none;

	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);  /* SIGKILL, SIGSTOP: refused */
	/* `pkill -USR1 rtrace` asks rtrace, not this report, which it
	 * would end */
	signal(SIGUSR1, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Closes every descriptor but stdin, stdout, stderr and @fd: the
 * report's process must hold nothing of rtrace's (the guardian's socket,
 * whose end tells the guardian that rtrace is gone; the program's
 * memory; the log being written). */
static void keep_only_stdio_and(int fd)
{
	if (dup2(fd, 3) < 0)
		return;
	close_range(4, ~0U, 0);
}

/* The profile made so far, given to @r as its profile block.  This
 * process has a copy of rtrace's memory: ending the copy's analysis
 * leaves rtrace's own going on. */
static int profile_so_far(struct rt_evlog_reader *r)
{
	uint8_t *b = NULL;
	size_t n = 0;
	int err = rt_proftap_finish(profile, NULL, &b, &n);

	if (!err)
		rt_evlog_set_profile(r, b, n);
	free(b);
	return err;
}

/* The report of the log so far; it ends now, the program still runs. */
static int print_report(const struct rt_opts *o, FILE *out)
{
	struct rt_log_end end = { .end_ns = now_ns(), .how = RT_END_RUNNING };
	struct rt_opts whole = *o;
	struct rt_evlog_reader *r;
	struct rt_report *rep = NULL;
	int err = rt_evlog_open(o->log_path, &r);

	/* a flight recorder's window reaches the log at the end: until
	 * then, the profile so far is all there is */
	whole.window_table = false;

	if (err)
		return 1;
	if (profile)
		err = profile_so_far(r);
	if (!err)
		err = rt_report_build(r, &whole, o->log_path, &rep);
	if (!err) {
		rep->end = &end;
		rep->cut = rt_evlog_cut(r);
		fputs("rtrace: interim report (the trace goes on)\n", out);
		err = rt_output_for(o->format)->write(out, rep, &whole);
		fflush(out);
	}
	rt_report_free(rep);
	rt_evlog_reader_free(r);
	return err ? 1 : 0;
}

int rt_interim_start(const struct rt_opts *o, struct rt_evlog_writer *w,
		     FILE *out)
{
	int pfd[2], status;
	struct stat st;
	pid_t mid;

	if (rt_interim_busy())
		return -EBUSY;
	/* -o /dev/null: nothing to read back */
	if (stat(o->log_path, &st) != 0 || !S_ISREG(st.st_mode)) {
		pr_warn("no interim report: the log, %s, is not a file",
			o->log_path);
		return -EINVAL;
	}
	rt_evlog_flush(w);
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		pr_warn("no interim report: %s", strerror(errno));
		return -errno;
	}
	/* what the buffers hold must not come out twice */
	fflush(stdout);
	fflush(stderr);
	/* the child finishes its copy of the profile: no block half
	 * analysed in it */
	rt_proftap_hold(profile);
	mid = fork();
	if (mid != 0)
		rt_proftap_release(profile);
	if (mid == 0) {
		close(pfd[0]);
		if (fork() == 0) {
			default_signals();
			keep_only_stdio_and(pfd[1]);
			_exit(print_report(o, out));
		}
		_exit(0);
	}
	close(pfd[1]);
	if (mid < 0) {
		close(pfd[0]);
		pr_warn("no interim report: %s", strerror(errno));
		return -errno;
	}
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	busy_fd = pfd[0];
	return 0;
}

/* Whether the report's end of the pipe is still open, waiting up to
 * @ms (-1: until it closes). */
static bool still_printing(int ms)
{
	struct pollfd p = { .fd = busy_fd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return true;
	close(busy_fd);
	busy_fd = -1;
	return false;
}

bool rt_interim_busy(void)
{
	return busy_fd >= 0 && still_printing(0);
}

void rt_interim_wait(void)
{
	if (busy_fd >= 0)
		still_printing(-1);
}
