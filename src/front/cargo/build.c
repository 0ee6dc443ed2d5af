// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The build: cargo with --message-format=json-render-diagnostics, so that
 * the compiler's messages reach the terminal as usual on stderr while
 * stdout carries one JSON object per line.  The "compiler-artifact"
 * objects with an "executable" are what cargo would have run; the
 * library targets among them name the crate that a package's tests and
 * benches exercise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "cargo-rtrace.h"
#include "rtrace/util.h"
#include "rtrace/waitstatus.h"

/* rtrace needs the symbol table and is better with line tables: the
 * release and bench profiles have no debug information by default, and a
 * project may strip its symbols.  A value the user set in the environment
 * wins. */
static void keep_debug_info(void)
{
	static const char *const profiles[] = { "DEV", "RELEASE", "TEST",
						"BENCH" };

	for (size_t i = 0; i < ARRAY_SIZE(profiles); i++) {
		char *debug = xasprintf("CARGO_PROFILE_%s_DEBUG", profiles[i]);
		char *strip = xasprintf("CARGO_PROFILE_%s_STRIP", profiles[i]);

		setenv(debug, "true", 0);
		setenv(strip, "false", 0);
		free(debug);
		free(strip);
	}
}

static char *crate_name(const char *target)
{
	char *s = xstrdup(target);

	for (char *p = s; *p; p++)
		if (*p == '-')
			*p = '_';
	return s;
}

static bool has_kind(json_t *target, const char *kind)
{
	json_t *kinds = json_object_get(target, "kind"), *k;
	size_t i;

	json_array_foreach(kinds, i, k)
		if (json_is_string(k) && strcmp(json_string_value(k), kind) == 0)
			return true;
	return false;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? xstrndup(path, slash - path) : xstrdup(".");
}

/* What cargo prints when it runs this executable: "unittests src/lib.rs",
 * "tests/corpus.rs". */
static char *describe(json_t *target, json_t *profile, const char *pkg_dir)
{
	const char *src = json_string_value(json_object_get(target, "src_path"));
	size_t len = strlen(pkg_dir);
	bool harness = json_is_true(json_object_get(profile, "test")) &&
		       (has_kind(target, "lib") || has_kind(target, "bin"));

	if (!src)
		src = "?";
	else if (strncmp(src, pkg_dir, len) == 0 && src[len] == '/')
		src += len + 1;
	return harness ? xasprintf("unittests %s", src) : xstrdup(src);
}

static void add_exe(struct crt_build *b, json_t *msg, json_t *target)
{
	const char *exe = json_string_value(json_object_get(msg, "executable"));
	const char *manifest = json_string_value(json_object_get(msg,
							"manifest_path"));
	const char *name = json_string_value(json_object_get(target, "name"));
	struct crt_exe *e;

	if (!exe || !manifest || !name)
		return;
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->exes[i].path, exe) == 0)
			return;
	b->exes = xrealloc(b->exes, (b->n + 1) * sizeof(*b->exes));
	e = &b->exes[b->n++];
	*e = (struct crt_exe){
		.path = xstrdup(exe),
		.crate = crate_name(name),
		.pkg_dir = dir_of(manifest),
	};
	e->what = describe(target, json_object_get(msg, "profile"), e->pkg_dir);
}

/* The library targets, by package directory: a package's tests and
 * benches exercise its library, whose crate is named after it. */
struct libs {
	struct crt_argv dirs, names;
};

static void add_lib(struct libs *libs, json_t *msg, json_t *target)
{
	const char *manifest = json_string_value(json_object_get(msg,
							"manifest_path"));
	const char *name = json_string_value(json_object_get(target, "name"));
	char *dir, *crate;

	if (!manifest || !name || !has_kind(target, "lib"))
		return;
	dir = dir_of(manifest);
	crate = crate_name(name);
	crt_argv_push(&libs->dirs, dir);
	crt_argv_push(&libs->names, crate);
	free(dir);
	free(crate);
}

/* Whether cargo would run this executable: for test and bench, only the
 * harnesses (cargo test also builds the crate's programs, for the
 * integration tests to start, but does not run them). */
static bool runs(const struct crt_opts *o, json_t *msg, json_t *target)
{
	json_t *profile = json_object_get(msg, "profile");

	if (!json_is_string(json_object_get(msg, "executable")) ||
	    has_kind(target, "custom-build"))
		return false;
	return o->cmd == CRT_RUN ||
	       json_is_true(json_object_get(profile, "test"));
}

static void read_message(const struct crt_opts *o, struct crt_build *b,
			 const char *line, struct libs *libs)
{
	json_t *msg = json_loads(line, 0, NULL), *target;
	const char *reason;

	if (!msg)
		return;		/* not a message: a build script's output */
	reason = json_string_value(json_object_get(msg, "reason"));
	target = json_object_get(msg, "target");
	if (reason && strcmp(reason, "compiler-artifact") == 0 && target) {
		if (runs(o, msg, target))
			add_exe(b, msg, target);
		add_lib(libs, msg, target);
	}
	json_decref(msg);
}

static void attach_libs(struct crt_build *b, const struct libs *libs)
{
	for (size_t i = 0; i < b->n; i++) {
		struct crt_exe *e = &b->exes[i];

		for (size_t j = 0; j < libs->dirs.n && !e->lib_crate; j++)
			if (strcmp(libs->dirs.v[j], e->pkg_dir) == 0 &&
			    strcmp(libs->names.v[j], e->crate) != 0)
				e->lib_crate = xstrdup(libs->names.v[j]);
	}
}

/* cargo test --no-run, cargo bench --no-run, cargo build (for run). */
static void cargo_argv(const struct crt_opts *o, struct crt_argv *a)
{
	static const char *const sub[] = {
		[CRT_TEST] = "test", [CRT_RUN] = "build", [CRT_BENCH] = "bench",
	};

	crt_argv_push(a, o->cargo);
	crt_argv_push(a, sub[o->cmd]);
	crt_argv_push(a, "--message-format=json-render-diagnostics");
	if (o->cmd != CRT_RUN)
		crt_argv_push(a, "--no-run");
	for (size_t i = 0; i < o->cargo_args.n; i++)
		crt_argv_push(a, o->cargo_args.v[i]);
}

static pid_t start_cargo(const struct crt_opts *o, int *out)
{
	struct crt_argv a = { 0 };
	int fds[2];
	pid_t pid;

	cargo_argv(o, &a);
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execvp(a.v[0], a.v);
		fprintf(stderr, "cargo-rtrace: cannot run %s: %s\n", a.v[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	crt_argv_free(&a);
	if (pid < 0) {
		close(fds[0]);
		return -errno;
	}
	*out = fds[0];
	return pid;
}

int crt_build(const struct crt_opts *o, struct crt_build *b)
{
	struct libs libs = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int fd = -1, status;
	FILE *in;
	pid_t pid;

	keep_debug_info();
	pid = start_cargo(o, &fd);
	if (pid < 0) {
		fprintf(stderr, "cargo-rtrace: cannot run %s: %s\n", o->cargo,
			strerror(-pid));
		return 127;
	}
	in = fdopen(fd, "r");
	if (!in)
		close(fd);	/* cargo then stops on a broken pipe */
	while (in && getline(&line, &cap, in) > 0)
		read_message(o, b, line, &libs);
	free(line);
	if (in)
		fclose(in);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	attach_libs(b, &libs);
	crt_argv_free(&libs.dirs);
	crt_argv_free(&libs.names);
	status = rt_waitstatus_shell_code(status);
	if (status)	/* cargo said why */
		return status;
	if (!b->n) {
		fprintf(stderr, "cargo-rtrace: cargo built no executable\n");
		return 2;
	}
	if (o->cmd == CRT_RUN && b->n > 1) {	/* cargo run refuses too */
		fprintf(stderr, "cargo-rtrace: cargo built %zu programs; pick "
			"one with --bin NAME or --example NAME\n", b->n);
		return 2;
	}
	return 0;
}

void crt_build_free(struct crt_build *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->exes[i].path);
		free(b->exes[i].crate);
		free(b->exes[i].lib_crate);
		free(b->exes[i].pkg_dir);
		free(b->exes[i].what);
	}
	zfree(&b->exes);
	b->n = 0;
}
