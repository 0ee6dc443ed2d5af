// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cargo-rtrace: the cargo subcommand `cargo rtrace test|run|bench`.
 * cargo runs it as `cargo-rtrace rtrace ARGS...`; it may also be run
 * directly as `cargo-rtrace ARGS...`.
 *
 * Exit status: that of the first traced program (or rtrace run) that did
 * not exit with 0; cargo's when the build failed; 2 for bad usage or no
 * Cargo.toml; 127 when cargo or rtrace cannot be found.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cargo-rtrace.h"
#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

static const char help_text[] =
"Usage: cargo rtrace test  [OPTIONS] [CARGO ARGS...] [-- TEST ARGS...]\n"
"       cargo rtrace run   [OPTIONS] [CARGO ARGS...] [-- PROGRAM ARGS...]\n"
"       cargo rtrace bench [OPTIONS] [CARGO ARGS...] [-- BENCH ARGS...]\n"
"\n"
"Build the crate with cargo (symbols and debug information kept), trace\n"
"every executable it produced with rtrace, one log per executable in\n"
"TARGET/rtrace/, and print the report of each, then of all together.\n"
"Arguments that are not rtrace's go to cargo (--release, --features,\n"
"--test NAME, -p PKG...).\n"
"\n"
"Options:\n"
"  -f, --function=GLOB  trace the functions matching GLOB; repeatable.\n"
"                       Default: the executable's crate and its package's\n"
"                       library, 'CRATE::*'\n"
"  -e, --exclude=GLOB   do not trace the functions matching GLOB\n"
"      --by=WHAT        a table per test, thread, process or none;\n"
"                       default: per test for test, else none\n"
"      --log-dir=DIR    write the logs in DIR (default TARGET/rtrace); the\n"
"                       previous run's log of each executable moves to\n"
"                       DIR/prev/, for rtrace diff\n"
"  -h, --help           show this help\n"
"\n"
"Every other option of rtrace goes to each rtrace run (--count, --mem,\n"
"--stack=N, --engine=E, -x FILE, --stats...; see rtrace --help), and the\n"
"report's (--sort, --format, --limit, --min-total, --instances,\n"
"--raw-times, --color) to the merged report too.  -q and -v are cargo's;\n"
"--color goes to both.  -o, -p, -l and -i do not fit: each executable\n"
"has its own log.\n"
"\n"
"Environment: CARGO (the cargo to run), RTRACE (the rtrace to run;\n"
"default: the one installed beside cargo-rtrace, else from PATH).\n"
"\n"
"Examples:\n"
"  cargo rtrace test                     every test binary, per test\n"
"  cargo rtrace test --test corpus       one integration test\n"
"  cargo rtrace run --release -- 2000    the program, optimised\n"
"  cargo rtrace bench -f 'wordcount::text::*'\n";

void crt_argv_push(struct crt_argv *a, const char *s)
{
	a->v = xrealloc(a->v, (a->n + 2) * sizeof(*a->v));
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

void crt_argv_free(struct crt_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	zfree(&a->v);
	a->n = 0;
}

int crt_spawn_wait(char *const argv[], const char *cwd, int out_fd,
		   int err_fd)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (out_fd >= 0)
			dup2(out_fd, STDOUT_FILENO);
		if (err_fd >= 0)
			dup2(err_fd, STDERR_FILENO);
		if (cwd && chdir(cwd)) {
			fprintf(stderr, "cargo-rtrace: %s: %s\n", cwd,
				strerror(errno));
			_exit(127);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "cargo-rtrace: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return 127;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	return rt_waitstatus_shell_code(status);
}

/* The value of option @name at argv[*i]: "--name=V", "--name V", "-xV"
 * or "-x V" (@shrt may be 0).  NULL when argv[*i] is not that option. */
static const char *opt_value(char **argv, int argc, int *i, const char *name,
			     char shrt, bool *missing)
{
	const char *a = argv[*i];
	size_t len = strlen(name);

	if (!a)
		return NULL;
	if (a[0] == '-' && a[1] == '-' && strncmp(a + 2, name, len) == 0) {
		if (a[2 + len] == '=')
			return a + 3 + len;
		if (a[2 + len])
			return NULL;
	} else if (!shrt || a[0] != '-' || a[1] != shrt) {
		return NULL;
	} else if (a[2]) {
		return a + 2;
	}
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

/* Takes rtrace's options at argv[*i]; returns false when it is cargo's. */
static bool take_option(struct crt_opts *o, char **argv, int argc, int *i,
			bool *missing)
{
	const char *v, *a = argv[*i];

	if (!a)
		return false;
	if ((v = opt_value(argv, argc, i, "function", 'f', missing))) {
		crt_argv_push(&o->globs, v);
	} else if ((v = opt_value(argv, argc, i, "exclude", 'e', missing))) {
		crt_argv_push(&o->rtrace_args, "-e");
		crt_argv_push(&o->rtrace_args, v);
	} else if ((v = opt_value(argv, argc, i, "by", 0, missing))) {
		o->by = v;
	} else if ((v = opt_value(argv, argc, i, "log-dir", 0, missing))) {
		o->log_dir = v;
	} else {
		return false;
	}
	return true;
}

static int usage(const char *fmt, const char *arg)
{
	fputs("cargo-rtrace: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see cargo rtrace --help)\n", stderr);
	return 2;
}

static int parse_command(struct crt_opts *o, const char *cmd)
{
	if (strcmp(cmd, "test") == 0)
		o->cmd = CRT_TEST;
	else if (strcmp(cmd, "run") == 0)
		o->cmd = CRT_RUN;
	else if (strcmp(cmd, "bench") == 0)
		o->cmd = CRT_BENCH;
	else
		return usage("unknown command '%s': test, run or bench", cmd);
	return 0;
}

/* argv[0] is the program, then "rtrace" when cargo ran it.  Returns 0,
 * -1 after printing the help, or the exit status of a usage error. */
static int parse_args(struct crt_opts *o, int argc, char **argv)
{
	int i = 1;

	if (i < argc && strcmp(argv[i], "rtrace") == 0)
		i++;
	if (i >= argc)
		return usage("a command is needed%s: test, run or bench", "");
	if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
		fputs(help_text, stdout);
		return -1;
	}
	if (parse_command(o, argv[i++]))
		return 2;
	for (; i < argc; i++) {
		bool missing = false;
		int taken;

		if (strcmp(argv[i], "--") == 0) {
			while (++i < argc)
				crt_argv_push(&o->prog_args, argv[i]);
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(help_text, stdout);
			return -1;
		}
		if (take_option(o, argv, argc, &i, &missing))
			continue;
		if (missing)
			return usage("option '%s' needs a value", argv[i]);
		taken = crt_take_rtrace_option(o, argv, argc, &i);
		if (taken < 0)
			return -taken;
		if (taken)
			continue;
		crt_argv_push(&o->cargo_args, argv[i]);
	}
	return 0;
}

/* $CARGO (cargo sets it for its subcommands), else cargo on PATH, else
 * rustup's ~/.cargo/bin/cargo. */
static const char *find_cargo(char *buf, size_t len)
{
	const char *env = getenv("CARGO"), *path = getenv("PATH");
	const char *home = getenv("HOME");

	if (env && *env)
		return env;
	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, len, "%.*s/cargo", (int)n, path);
		if (n && access(buf, X_OK) == 0)
			return buf;
		path += n + (path[n] == ':');
	}
	snprintf(buf, len, "%s/.cargo/bin/cargo", home ? home : "");
	return home && access(buf, X_OK) == 0 ? buf : NULL;
}

/* $RTRACE, else the rtrace installed (or built) beside this program,
 * else rtrace on PATH. */
static const char *find_rtrace(char *buf, size_t len)
{
	const char *env = getenv("RTRACE");
	ssize_t n = readlink("/proc/self/exe", buf, len - sizeof("rtrace"));
	char *slash;

	if (env && *env)
		return env;
	if (n > 0) {
		buf[n] = '\0';
		slash = strrchr(buf, '/');
		if (slash) {
			strcpy(slash + 1, "rtrace");
			if (access(buf, X_OK) == 0)
				return buf;
		}
	}
	return "rtrace";
}

/* cargo's own message for a missing manifest is a paragraph; ours says
 * where we looked. */
static int check_manifest(const struct crt_opts *o)
{
	char dir[PATH_MAX], *slash;

	for (size_t i = 0; i < o->cargo_args.n; i++) {
		const char *a = o->cargo_args.v[i];

		if (str_starts(a, "--manifest-path"))
			return 0;	/* cargo checks it */
	}
	if (!getcwd(dir, sizeof(dir) - sizeof("/Cargo.toml")))
		return 0;
	for (;;) {
		size_t n = strlen(dir);

		strcpy(dir + n, "/Cargo.toml");
		if (access(dir, F_OK) == 0)
			return 0;
		dir[n] = '\0';
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	if (!getcwd(dir, sizeof(dir)))
		strcpy(dir, ".");
	fprintf(stderr, "cargo-rtrace: no Cargo.toml in %s or any directory "
		"above it: run it inside a crate, or give --manifest-path\n",
		dir);
	return 2;
}

static void opts_free(struct crt_opts *o)
{
	crt_argv_free(&o->cargo_args);
	crt_argv_free(&o->prog_args);
	crt_argv_free(&o->globs);
	crt_argv_free(&o->rtrace_args);
	crt_argv_free(&o->report_args);
}

int main(int argc, char **argv)
{
	char cargo_buf[PATH_MAX], rtrace_buf[PATH_MAX];
	struct crt_opts o = { 0 };
	struct crt_build b = { 0 };
	int err = parse_args(&o, argc, argv);

	if (err) {
		err = err < 0 ? 0 : err;
		goto out;
	}
	err = check_manifest(&o);
	if (err)
		goto out;
	o.cargo = find_cargo(cargo_buf, sizeof(cargo_buf));
	if (!o.cargo) {
		fprintf(stderr, "cargo-rtrace: cargo not found on PATH nor in "
			"~/.cargo/bin (install Rust with rustup)\n");
		err = 127;
		goto out;
	}
	o.rtrace = find_rtrace(rtrace_buf, sizeof(rtrace_buf));
	err = crt_build(&o, &b);
	if (!err)
		err = crt_trace_all(&o, &b);
out:
	crt_build_free(&b);
	opts_free(&o);
	return err;
}
