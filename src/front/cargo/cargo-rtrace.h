/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * (private) cargo-rtrace: `cargo rtrace test|run|bench` builds a crate
 * with cargo, keeping symbols and debug information, and traces every
 * executable cargo produced with rtrace, one log per executable, then
 * prints the report of all of them together.
 *
 *   main.c     options, the flow, exit status
 *   build.c    cargo with JSON messages: the executables it produced
 *   passthru.c rtrace's own options, passed on
 *   trace.c    rtrace on each executable, then the merged report
 */
#ifndef CARGO_RTRACE_H
#define CARGO_RTRACE_H

#include <stdbool.h>
#include <stddef.h>

enum crt_cmd { CRT_TEST, CRT_RUN, CRT_BENCH };

/* A growable NULL-terminated argument vector; strings are owned. */
struct crt_argv {
	char **v;
	size_t n;
};

struct crt_opts {
	enum crt_cmd cmd;
	struct crt_argv cargo_args;    /* for cargo, in the user's order */
	struct crt_argv prog_args;     /* after --, for each program */
	struct crt_argv globs;         /* -f; empty: the default */
	struct crt_argv rtrace_args;   /* -e, --count, --mem... as given */
	struct crt_argv report_args;   /* --sort, --format...: the merged
					* report's too */
	const char *by;                /* --by, or NULL */
	const char *log_dir;           /* --log-dir, or NULL: TARGET/rtrace */
	const char *cargo;             /* the cargo program to run */
	const char *rtrace;            /* the rtrace program to run */
};

/* One executable built by cargo. */
struct crt_exe {
	char *path;         /* absolute */
	char *crate;        /* its crate's name, '-' made '_' */
	char *lib_crate;    /* the library of its package, or NULL */
	char *pkg_dir;      /* the directory of its Cargo.toml */
	char *what;         /* "unittests src/lib.rs", "tests/corpus.rs"... */
};

struct crt_build {
	struct crt_exe *exes;
	size_t n;
};

/* Appends a copy of @s to @a. */
void crt_argv_push(struct crt_argv *a, const char *s);

/* Frees the strings and the vector of @a and zeroes it; accepts empty. */
void crt_argv_free(struct crt_argv *a);

/* Runs cargo for @o->cmd without running anything it builds, with the
 * debug-information override, and fills @b with the executables it
 * produced.  Returns 0, or the exit status to leave with after one line
 * on stderr (cargo's own status when the build failed).  Free @b with
 * crt_build_free(). */
int crt_build(const struct crt_opts *o, struct crt_build *b);

/* Frees what crt_build() filled in; accepts an empty build. */
void crt_build_free(struct crt_build *b);

/* Traces each executable of @b, then prints the merged report when there
 * are several.  Returns the first non-zero exit status of a traced program
 * (or of rtrace), else 0. */
int crt_trace_all(const struct crt_opts *o, const struct crt_build *b);

/* Takes rtrace's option at argv[*i] (and its value, moving *i past it)
 * into @o's rtrace_args (and report_args for the report's options).
 * Returns 1 when taken, 0 when it is not rtrace's (cargo's, then), or
 * -2 after one line on stderr for an option that does not fit. */
int crt_take_rtrace_option(struct crt_opts *o, char **argv, int argc,
			   int *i);

/* Runs @argv (argv[0] searched in PATH) in directory @cwd (NULL: this
 * one) with standard output on @out_fd and standard error on @err_fd (-1:
 * unchanged) and waits for it.  Returns its exit status as a shell sees
 * it, 127 when it cannot be started. */
int crt_spawn_wait(char *const argv[], const char *cwd, int out_fd,
		   int err_fd);

#endif
