// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Launching.  PTRACE_TRACEME would make the child a traditional tracee, in
 * which group-stops cannot be told from signal stops without extra calls.
 * Instead the child stops itself with SIGSTOP, the parent seizes the
 * stopped child and sends SIGCONT (the same dance strace does), and the
 * child goes on to exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PR_FMT "launch"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/launch.h"
#include "rtrace/log.h"
#include "rtrace/tracee.h"
#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (access(path, X_OK) != 0)
		return -EACCES;
	return 0;
}

static char *search_path(const char *name, int *err)
{
	const char *path = getenv("PATH");
	char *dirs, *save = NULL;

	*err = -ENOENT;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	dirs = xstrdup(path);
	for (char *d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		char *cand = xasprintf("%s/%s", *d ? d : ".", name);
		int e = check_exec(cand);

		if (!e) {
			free(dirs);
			*err = 0;
			return cand;
		}
		if (e == -EACCES)
			*err = e;
		free(cand);
	}
	free(dirs);
	return NULL;
}

char *rt_launch_resolve(const char *name, int *err)
{
	char *path;

	if (strchr(name, '/')) {
		*err = check_exec(name);
		path = *err ? NULL : xstrdup(name);
	} else {
		path = search_path(name, err);
	}
	if (path)
		return path;
	if (*err == -ENOENT)
		pr_err("%s: program not found%s", name,
		       strchr(name, '/') ? "" : " in PATH");
	else if (*err == -EACCES)
		pr_err("%s: permission denied (not executable)", name);
	else if (*err == -EISDIR)
		pr_err("%s: is a directory, not a program", name);
	else
		pr_err("%s: %s", name, strerror(-*err));
	return NULL;
}

/* SIGXFSZ as rtrace found it, for the programs it starts. */
static struct sigaction xfsz_before;
static bool xfsz_ignored;

void rt_launch_ignore_sigxfsz(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	if (xfsz_ignored)
		return;
	sigemptyset(&ign.sa_mask);
	if (sigaction(SIGXFSZ, &ign, &xfsz_before) == 0)
		xfsz_ignored = true;
}

static void __noreturn run_child(const char *path, char *const argv[],
				 int errfd)
{
	int e;

	/* an ignored signal stays ignored across execv: give back the
	 * program's own disposition */
	if (xfsz_ignored)
		sigaction(SIGXFSZ, &xfsz_before, NULL);
	/* wait here until the parent has seized us */
	kill(getpid(), SIGSTOP);
	execv(path, argv);
	e = errno;
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* waitpid() for the child's stop before its exec, through the signals
 * rtrace's own timer may send meanwhile. */
static pid_t wait_stopped(pid_t child, int *status)
{
	pid_t got;

	do
		got = waitpid(child, status, WUNTRACED);
	while (got < 0 && errno == EINTR);
	return got;
}

int rt_launch_take_over(pid_t child, unsigned long options)
{
	struct rt_wait w;
	int status, err;

	if (wait_stopped(child, &status) != child ||
	    (rt_waitstatus_decode(child, status, &w), w.kind != RT_STOP_SIGNAL))
		return -ECHILD;
	err = rt_tracee_seize(child, options);
	if (err) {
		kill(child, SIGKILL);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		return err;
	}
	kill(child, SIGCONT);
	return 0;
}

/* The kernel runs a set-user-ID or set-group-ID program that a process
 * without privilege traces with its tracer's ids: said, since the
 * program may then behave differently (or refuse to run). */
static void say_set_id(const char *path)
{
	struct stat st;
	bool uid, gid;

	if (stat(path, &st) != 0 || geteuid() == 0)
		return;
	uid = (st.st_mode & S_ISUID) && st.st_uid != geteuid();
	gid = (st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) &&
	      st.st_gid != getegid();
	if (uid || gid)
		pr_warn("%s is set-%s-ID: traced without privilege, it runs "
			"with your ids, not its %s's (the kernel's rule for a "
			"traced program)", path, uid ? "user" : "group",
			uid ? "owner" : "group");
}

/* Reads the exec failure the child reports, if any. */
static int child_exec_error(int fd)
{
	int e = 0;

	if (read(fd, &e, sizeof(e)) == sizeof(e))
		return -e;
	return 0;
}

int rt_launch(const char *path, char *const argv[], unsigned long options,
	      pid_t *pid)
{
	int errpipe[2], err;
	pid_t child;

	if (pipe2(errpipe, O_CLOEXEC) != 0) {
		err = -errno;
		pr_err("cannot start %s: %s", path, strerror(-err));
		return err;
	}
	say_set_id(path);
	child = fork();
	if (child < 0) {
		err = -errno;
		pr_err("cannot fork: %s", strerror(-err));
		goto out;
	}
	if (child == 0)
		run_child(path, argv, errpipe[1]);
	err = rt_launch_take_over(child, options);
	if (err == -ECHILD) {
		err = child_exec_error(errpipe[0]);
		err = err ? err : -ECHILD;
		pr_err("%s: the program did not start", path);
		goto out;
	}
	if (err) {
		pr_err("cannot trace %s: %s", path, strerror(-err));
		goto out;
	}
	*pid = child;
out:
	close(errpipe[0]);
	close(errpipe[1]);
	return err;
}
