// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Tracing what cargo built: rtrace runs each executable as cargo would
 * (tests and benches in their package's directory, benches with --bench),
 * each into its own log in TARGET/rtrace/, and prints its report; then
 * `rtrace report` adds all the logs up in one table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cargo-rtrace.h"
#include "rtrace/util.h"

/* cargo's target directory is the one holding CACHEDIR.TAG, whatever the
 * profile and --target layout below it. */
static char *target_dir(const char *exe)
{
	char *dir = xstrdup(exe), *slash;

	while ((slash = strrchr(dir, '/')) && slash != dir) {
		char *tag;
		bool found;

		*slash = '\0';
		tag = xasprintf("%s/CACHEDIR.TAG", dir);
		found = access(tag, F_OK) == 0;
		free(tag);
		if (found)
			return dir;
	}
	free(dir);
	return xstrdup(".");
}

static char *log_path(const struct crt_opts *o, const struct crt_exe *e)
{
	const char *base = strrchr(e->path, '/');
	char *dir = o->log_dir ? xstrdup(o->log_dir) : NULL, *path;

	if (!dir) {
		char *target = target_dir(e->path);

		dir = xasprintf("%s/rtrace", target);
		free(target);
	}
	if (mkdir(dir, 0777) && errno != EEXIST)
		fprintf(stderr, "cargo-rtrace: cannot create %s: %s\n", dir,
			strerror(errno));
	path = xasprintf("%s/%s.data", dir, base ? base + 1 : e->path);
	free(dir);
	return path;
}

/* DIR/prev/NAME.data: the log of the run before, for `rtrace diff`;
 * in a folder of its own, so that the *.data files of DIR are this
 * run's logs only. */
static char *prev_path(const char *log)
{
	const char *slash = strrchr(log, '/');

	return xasprintf("%.*sprev/%s", (int)(slash ? slash + 1 - log : 0),
			 log, slash ? slash + 1 : log);
}

/* An old run's log is not this run's: it moves aside, one run deep. */
static void keep_previous(const char *log)
{
	char *prev = prev_path(log), *dir = xstrdup(prev);
	char *cut = strrchr(dir, '/');

	if (cut)
		*cut = '\0';
	if (access(log, F_OK) == 0 &&
	    ((mkdir(dir, 0777) && errno != EEXIST) || rename(log, prev))) {
		fprintf(stderr, "cargo-rtrace: cannot keep %s as %s: %s\n",
			log, prev, strerror(errno));
		unlink(log);
	}
	free(dir);
	free(prev);
}

/* Which log is which test target's, and what to compare it with. */
static void say_log(const struct crt_exe *e, const char *log)
{
	char *prev = prev_path(log);

	if (access(prev, R_OK) == 0)
		fprintf(stderr, "cargo-rtrace: %s: log %s (the previous run's: "
			"rtrace diff %s %s)\n", e->what, log, prev, log);
	else
		fprintf(stderr, "cargo-rtrace: %s: log %s\n", e->what, log);
	free(prev);
}

/* Whether @glob selects a function of @exe: `rtrace -l` says so. */
static bool selects(const struct crt_opts *o, const char *exe,
		    const char *glob)
{
	char *argv[] = { (char *)o->rtrace, "-l", "-q", "-f", (char *)glob,
			 "--", (char *)exe, NULL };
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int status = crt_spawn_wait(argv, NULL, devnull, devnull);

	close(devnull);
	return status == 0;
}

/* -f as given, else the executable's crate and its package's library
 * (an integration test is a crate of its own that calls the library),
 * when the library is linked in. */
static void add_globs(const struct crt_opts *o, const struct crt_exe *e,
		      struct crt_argv *a)
{
	char *glob;

	for (size_t i = 0; i < o->globs.n; i++) {
		crt_argv_push(a, "-f");
		crt_argv_push(a, o->globs.v[i]);
	}
	if (o->globs.n)
		return;
	glob = xasprintf("%s::*", e->crate);
	crt_argv_push(a, "-f");
	crt_argv_push(a, glob);
	free(glob);
	if (!e->lib_crate)
		return;
	glob = xasprintf("%s::*", e->lib_crate);
	if (selects(o, e->path, glob)) {
		crt_argv_push(a, "-f");
		crt_argv_push(a, glob);
	}
	free(glob);
}

/* --by: as given, else one table per test for `cargo rtrace test`. */
static void add_by(const struct crt_opts *o, struct crt_argv *a)
{
	const char *by = o->by ? o->by : o->cmd == CRT_TEST ? "test" : NULL;

	if (!by)
		return;
	crt_argv_push(a, "--by");
	crt_argv_push(a, by);
}

static int trace_one(const struct crt_opts *o, const struct crt_exe *e,
		     const char *log)
{
	struct crt_argv a = { 0 };
	int status;

	crt_argv_push(&a, o->rtrace);
	crt_argv_push(&a, "-o");
	crt_argv_push(&a, log);
	add_globs(o, e, &a);
	add_by(o, &a);
	for (size_t i = 0; i < o->rtrace_args.n; i++)
		crt_argv_push(&a, o->rtrace_args.v[i]);
	crt_argv_push(&a, "--");
	crt_argv_push(&a, e->path);
	if (o->cmd == CRT_BENCH)	/* what cargo bench passes */
		crt_argv_push(&a, "--bench");
	for (size_t i = 0; i < o->prog_args.n; i++)
		crt_argv_push(&a, o->prog_args.v[i]);
	fprintf(stderr, "cargo-rtrace: tracing %s (%s)\n", e->what, e->path);
	/* cargo runs tests and benches in their package's directory */
	status = crt_spawn_wait(a.v, o->cmd == CRT_RUN ? NULL : e->pkg_dir, -1,
				-1);
	crt_argv_free(&a);
	return status;
}

/* The report of every log, on stderr like the reports before it. */
static int report_all(const struct crt_opts *o, const struct crt_argv *logs)
{
	struct crt_argv a = { 0 };
	int status;

	crt_argv_push(&a, o->rtrace);
	crt_argv_push(&a, "report");
	add_by(o, &a);
	for (size_t i = 0; i < o->report_args.n; i++)
		crt_argv_push(&a, o->report_args.v[i]);
	crt_argv_push(&a, "--");
	for (size_t i = 0; i < logs->n; i++)
		crt_argv_push(&a, logs->v[i]);
	fprintf(stderr, "cargo-rtrace: the %zu executables together:\n",
		logs->n);
	status = crt_spawn_wait(a.v, NULL, STDERR_FILENO, -1);
	crt_argv_free(&a);
	return status;
}

int crt_trace_all(const struct crt_opts *o, const struct crt_build *b)
{
	struct crt_argv logs = { 0 };
	int first = 0;

	for (size_t i = 0; i < b->n; i++) {
		char *log = log_path(o, &b->exes[i]);
		int status;

		keep_previous(log);
		status = trace_one(o, &b->exes[i], log);

		if (status && !first)
			first = status;
		if (access(log, R_OK) == 0) {
			say_log(&b->exes[i], log);
			crt_argv_push(&logs, log);
		}
		free(log);
	}
	if (logs.n > 1) {
		int status = report_all(o, &logs);

		if (status && !first)
			first = status;
	}
	crt_argv_free(&logs);
	return first;
}
