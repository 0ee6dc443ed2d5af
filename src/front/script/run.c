// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Running a session: commands one after the other, from a checked file
 * (rtrace -x) or from the prompt (rtrace -i).  A run goes through the same
 * flow as the command line (session.c), with the session's hooks plugged
 * in; when a break stops the program, the commands that follow run inside
 * that stop until one lets the program go (continue, finish, kill,
 * detach).  report, replay and export parse their options with cli.c's
 * parser and call the functions `rtrace report` and `rtrace export` call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PR_FMT "script"
#define PR_DOMAIN RT_DOM_SCRIPT
#include "rtrace/cli.h"
#include "rtrace/evlog.h"
#include "rtrace/interim.h"
#include "rtrace/log.h"
#include "rtrace/report.h"
#include "rtrace/session.h"
#include "rtrace/util.h"
#include "rtrace/views.h"
#include "script-int.h"

#define NEXT_NONE (-1)   /* exec_cmd(): the program stays as it is */

static enum rt_stop_next loop(struct rt_script_session *s);

/* ---- the program ---------------------------------------------------------- */

const char *rt_script_session_program(const struct rt_script_session *s)
{
	return s->file;
}

static void set_args(struct rt_script_session *s, char *const *w, size_t n)
{
	s->args.n = 0;
	for (size_t i = 0; i < n; i++)
		vec_push(&s->args, w[i]);
}

/* file and args: the command line's program, when it named one, stands */
static void program_cmd(struct rt_script_session *s,
			const struct rt_script_cmd *c)
{
	if (c->kind == RT_SC_FILE && !s->cli_program)
		s->file = c->words[0];
	else if (c->kind == RT_SC_ARGS && (!s->cli_program || !s->cli_argc))
		set_args(s, c->words, c->nwords);
}

/* The log of a run that `record` did not name: a file of our own,
 * removed when the session ends. */
static const char *run_log(struct rt_script_session *s)
{
	char tmpl[] = "/tmp/rtrace-session-XXXXXX";
	const char *dir = getenv("TMPDIR");
	int fd;

	if (s->opts.log_path)
		return s->opts.log_path;
	if (s->tmp_log)
		return s->tmp_log;
	s->tmp_log = dir && *dir ? xasprintf("%s/rtrace-session-XXXXXX", dir)
				 : xstrdup(tmpl);
	fd = mkstemp(s->tmp_log);
	if (fd < 0) {
		free(s->tmp_log);
		s->tmp_log = xstrdup("rtrace.data");
		return s->tmp_log;
	}
	close(fd);
	return s->tmp_log;
}

static void drop_report(struct rt_script_session *s)
{
	rt_report_free(s->rep);
	rt_evlog_reader_free(s->reader);
	s->rep = NULL;
	s->reader = NULL;
}

/* What breaks, actions and expectations name is traced on top of the
 * trace patterns (or of the default), with the commands that say so. */
static void extra_patterns(struct rt_script_session *s, rt_str_vec *out,
			   rt_str_vec *stops)
{
	/* breaks and actions act at hits: those functions keep their
	 * breakpoints (the inline engine records without stopping) */
	vec_for_each(&s->breaks, b)
		if (!b->deleted) {
			vec_push(out, b->cmd->glob);
			vec_push(stops, b->cmd->glob);
		}
	vec_for_each(&s->actions, a) {
		vec_push(out, (*a)->glob);
		vec_push(stops, (*a)->glob);
	}
	vec_for_each(&s->scripts, sc)
		vec_for_each(&(*sc)->cmds, c)
			if (c->kind == RT_SC_EXPECT &&
			    c->expect != RT_EXPECT_COUNTER)
				vec_push(out, c->glob);
}

/* @pid: the process to join, or 0 to start the program. */
static void start_run(struct rt_script_session *s, struct rt_opts *o,
		      pid_t pid, char ***argv)
{
	*o = s->opts;
	/* record only: the script prints reports when it says so */
	o->cmd = s->opts.cmd == RT_CMD_LIST ? RT_CMD_LIST : RT_CMD_RECORD;
	memset(&o->also_trace, 0, sizeof(o->also_trace));
	memset(&o->stop_at, 0, sizeof(o->stop_at));
	extra_patterns(s, &o->also_trace, &o->stop_at);
	o->hooks = &s->hooks;
	o->log_path = run_log(s);
	if (pid) {
		o->attach_pid = pid;
		*argv = NULL;
	} else {
		*argv = xcalloc(s->args.n + 2, sizeof(**argv));
		(*argv)[0] = (char *)s->file;
		for (size_t i = 0; i < s->args.n; i++)
			(*argv)[i + 1] = (char *)s->args.v[i];
		o->argv = *argv;
		o->argc = s->args.n + 1;
		o->attach_pid = 0;
	}
	drop_report(s);
	s->last_log = NULL;
	s->counters.n = 0;
	s->skip = 0;
	s->finish.on = false;
	s->started = false;
	s->attached = pid != 0;
	s->running = true;
}

static void do_run(struct rt_script_session *s, const struct rt_script_cmd *c)
{
	/* attach PID, or run after set pid PID (-p): a process to join */
	pid_t pid = c->kind == RT_SC_ATTACH ? (pid_t)c->n : s->opts.attach_pid;
	struct rt_opts o;
	char **argv;
	int code;

	if (c->kind == RT_SC_RUN && c->nwords)
		set_args(s, c->words, c->nwords);
	if (!pid && !s->file) {
		rt_sess_fail(s, c, "run: no program: say which with file "
			     "PROGRAM (or rtrace -i PROGRAM)");
		return;
	}
	start_run(s, &o, pid, &argv);
	code = o.cmd == RT_CMD_LIST ? rt_session_list(&o)
				    : rt_session_record(&o);
	/* a hold the run never reported (it failed meanwhile) is over */
	s->running = s->stop.on = false;
	vec_free(&o.also_trace);
	vec_free(&o.stop_at);
	free(argv);
	if (o.cmd == RT_CMD_LIST) {
		s->bad |= code != 0;
		return;
	}
	if (!s->started) {
		rt_sess_fail(s, c, "%s: the program could not be %s",
			     c->kind == RT_SC_RUN ? "run" : "attach",
			     pid ? "joined" : "started");
		/* a file stops there; at the prompt one can fix and retry */
		s->bad = s->quit = !s->read;
		return;
	}
	s->last_log = o.log_path;
	pr_info("the program ended with exit status %d", code);
}

/* ---- the session's hooks ----------------------------------------------------- */

static void sess_started(void *ctx, pid_t pid, bool attached)
{
	struct rt_script_session *s = ctx;

	(void)pid;
	(void)attached;
	s->started = true;
}

/* The command that brought pattern @glob into the run, or NULL. */
static const struct rt_script_cmd *cmd_of(struct rt_script_session *s,
					  const char *glob)
{
	vec_for_each(&s->scripts, sc)
		vec_for_each(&(*sc)->cmds, c)
			if (c->glob == glob)
				return c;
	return NULL;
}

/* The nearest function name to a pattern without wildcards. */
static const char *nearest(const struct rt_symbols *syms, const char *glob)
{
	size_t n = rt_symbols_count(syms);
	const char **names;
	const char *best;

	if (strpbrk(glob, "*?["))
		return NULL;
	names = xcalloc(n + 1, sizeof(*names));
	for (size_t i = 0; i < n; i++)
		names[i] = rt_symbols_func(syms, i)->name;
	best = rt_suggest(glob, names, n);
	free(names);
	return best;
}

/* A pattern of the script that matches nothing in the program: said at
 * the line that holds it, before the program runs. */
static int sess_check(void *ctx, const struct rt_selection *sel)
{
	struct rt_script_session *s = ctx;
	int bad = 0;

	for (size_t i = 0; i < sel->ninclude && !sel->later; i++) {
		const struct rt_script_cmd *c;
		const char *m;

		if (rt_matcher_hits(sel->matcher, i))
			continue;
		c = cmd_of(s, sel->include[i]);
		if (!c)
			continue;  /* -f: session.c says it */
		m = nearest(sel->syms, c->glob);
		fprintf(stderr, "rtrace: %s:%u:%u: pattern '%s' matches no "
			"function in %s%s%s%s\n", c->file, c->line, c->glob_col,
			c->glob, rt_symbols_path(sel->syms),
			m ? " (did you mean '" : "", m ? m : "", m ? "'?)" : "");
		bad = -EINVAL;
	}
	return bad;
}

static enum rt_stop_next sess_on_stop(void *ctx, struct rt_tracer *tr)
{
	struct rt_script_session *s = ctx;
	enum rt_stop_next next;

	s->stop.tr = tr;
	if (s->stop.brk)
		printf("stopped at %s entry (break %u, thread %d)\n",
		       s->stop.name, s->stop.brk, s->stop.tid);
	else
		printf("stopped at %s exit (finish, thread %d)\n",
		       s->stop.name, s->stop.tid);
	fflush(stdout);
	next = loop(s);
	s->stop.on = false;
	s->stop.tr = NULL;
	return next;
}

/* ---- report, replay, export, expect ---------------------------------------- */

static int ensure_report(struct rt_script_session *s)
{
	struct rt_opts o;
	int err;

	if (s->rep)
		return 0;
	rt_opts_init(&o);
	o.cmd = RT_CMD_REPORT;
	o.by = RT_BY_NONE;
	err = rt_evlog_open(s->last_log, &s->reader);
	if (!err)
		err = rt_report_build(s->reader, &o, s->last_log, &s->rep);
	rt_opts_release(&o);
	if (err)
		drop_report(s);
	return err;
}

static void do_expect(struct rt_script_session *s,
		      const struct rt_script_cmd *c)
{
	size_t nfuncs = 1;
	uint64_t got, lost = 0;
	char *why;

	if (c->expect == RT_EXPECT_COUNTER) {
		got = rt_sess_counter(s, c->name);
	} else if (!s->last_log) {
		rt_sess_fail(s, c, "expect: no run before it to check");
		return;
	} else if (ensure_report(s)) {
		rt_sess_fail(s, c, "expect: cannot read the log %s",
			     s->last_log);
		return;
	} else {
		got = rt_expect_calls(s->rep, c->glob, &nfuncs);
		lost = rt_expect_lost(s->rep, c->glob);
	}
	if (rt_expect_holds(c, got, nfuncs, lost, &why)) {
		if (s->read)
			printf("expect held\n");
		return;
	}
	fflush(stdout);
	fprintf(stderr, "rtrace: %s:%u: expect failed: %s\n", c->file, c->line,
		why);
	free(why);
	s->failed++;
}

/* The session's settings without its patterns: a view reads a log. */
static void view_opts(const struct rt_script_session *s, struct rt_opts *o)
{
	*o = s->opts;
	memset(&o->include, 0, sizeof(o->include));
	memset(&o->exclude, 0, sizeof(o->exclude));
	memset(&o->exports, 0, sizeof(o->exports));
	memset(&o->also_trace, 0, sizeof(o->also_trace));
	memset(&o->stop_at, 0, sizeof(o->stop_at));
	o->hooks = NULL;
	o->cmd = RT_CMD_RUN;
	o->argv = NULL;
	o->argc = 0;
	o->log_path = o->export_path = NULL;
	o->attach_pid = 0;
	o->view = RT_VIEW_TABLE;
}

static void do_view(struct rt_script_session *s, const struct rt_script_cmd *c)
{
	int argc, code, verbose = rt_log_verbose;
	char **argv = rt_script_view_argv(c, &argc), *why = NULL;
	struct rt_opts o;

	view_opts(s, &o);
	if (rt_cli_parse_caught(argc, argv, &o, &why)) {
		rt_sess_fail(s, c, "%s", why);
		goto out;
	}
	if (!o.argc && !s->last_log) {
		rt_sess_fail(s, c, "%s: no run before it (or name a LOG)",
			     argv[1]);
		goto out;
	}
	if (!o.argc)
		o.log_path = s->last_log;
	fflush(stdout);
	if (o.cmd == RT_CMD_EXPORT)
		code = rt_views_export(&o);
	else
		code = o.view == RT_VIEW_TABLE ? rt_session_report(&o)
					       : rt_views_report(&o);
	fflush(stdout);
	if (code)
		s->failed++;
out:
	rt_log_verbose = verbose;
	rt_opts_release(&o);
	free(why);
	free(argv);
}

/* ---- the other commands --------------------------------------------------- */

static void do_set(struct rt_script_session *s, const struct rt_script_cmd *c)
{
	char *why = NULL;

	if (rt_cli_set(&s->opts, c->name, c->nwords > 1 ? c->words[1] : NULL,
		       &why))
		rt_sess_fail(s, c, "set %s: %s", c->name, why);
	free(why);
}

static void do_help(const struct rt_script_cmd *c)
{
	const char *name;

	if (c->name) {
		printf("%s\n    %s\n", rt_script_command_syntax(c->name),
		       rt_script_command_help(c->name));
		return;
	}
	for (size_t i = 0; (name = rt_script_command_name(i)); i++)
		printf("  %-10s %s\n", name, rt_script_command_help(name));
}

static void do_echo(const struct rt_script_cmd *c)
{
	for (size_t i = 0; i < c->nwords; i++)
		printf("%s%s", i ? " " : "", c->words[i]);
	putchar('\n');
}

/* `source FILE` at the prompt: checked whole, then its commands run
 * before the next line is read. */
static void do_source(struct rt_script_session *s,
		      const struct rt_script_cmd *c)
{
	struct rt_script *sc = rt_script_new();

	if (rt_script_parse_file(sc, c->words[0]) || rt_script_check(sc)) {
		rt_script_print_errors(sc, stderr);
		rt_script_free(sc);
		s->failed++;
		return;
	}
	vec_push(&s->scripts, sc);
	s->list = sc;
	s->cursor = 0;
}

/* ---- one command ------------------------------------------------------------ */

static bool needs_stop(const struct rt_script_cmd *c)
{
	switch (c->kind) {
	case RT_SC_BACKTRACE: case RT_SC_PRINT: case RT_SC_CONTINUE:
	case RT_SC_FINISH: case RT_SC_KILL: case RT_SC_DETACH:
		return true;
	case RT_SC_INFO:
		return c->info == RT_INFO_THREADS || c->info == RT_INFO_REPORT;
	default:
		return false;
	}
}

/* Commands that want a finished run, or start one. */
static bool needs_end(const struct rt_script_cmd *c)
{
	switch (c->kind) {
	case RT_SC_RUN: case RT_SC_ATTACH: case RT_SC_REPORT:
	case RT_SC_REPLAY: case RT_SC_EXPORT: case RT_SC_EXPECT:
		return !(c->kind == RT_SC_EXPECT &&
			 c->expect == RT_EXPECT_COUNTER);
	default:
		return false;
	}
}

static bool can_run_now(struct rt_script_session *s,
			const struct rt_script_cmd *c, const char *word)
{
	if (needs_stop(c) && !s->stop.on) {
		rt_sess_fail(s, c, "%s: the program is not stopped (break "
			     "GLOB stops it)", word);
		return false;
	}
	if (needs_end(c) && s->running) {
		rt_sess_fail(s, c, "%s: the program is stopped at %s; "
			     "continue, kill or detach first", word,
			     s->stop.name);
		return false;
	}
	return true;
}

/* info report: the calls recorded so far, as the report of the run
 * will show them, while the program is held. */
static void interim_report(struct rt_script_session *s)
{
	struct rt_opts o = s->opts;

	o.log_path = run_log(s);
	if (!rt_interim_start(&o, rt_tracer_log(s->stop.tr), stdout))
		rt_interim_wait();
}

/* Returns an enum rt_stop_next when the command lets a stopped program
 * go, else NEXT_NONE. */
static int exec_cmd(struct rt_script_session *s, const struct rt_script_cmd *c)
{
	if (!can_run_now(s, c, rt_script_command_name_of(c->kind)))
		return NEXT_NONE;
	switch (c->kind) {
	case RT_SC_FILE: case RT_SC_ARGS: program_cmd(s, c); break;
	case RT_SC_RUN: case RT_SC_ATTACH: do_run(s, c); break;
	case RT_SC_CONTINUE:
		s->skip = c->n ? c->n - 1 : 0;
		return RT_NEXT_CONTINUE;
	case RT_SC_FINISH:
		return rt_sess_stop_cmd(s, c) ? NEXT_NONE : RT_NEXT_CONTINUE;
	case RT_SC_KILL: return RT_NEXT_KILL;
	case RT_SC_DETACH: return RT_NEXT_DETACH;
	case RT_SC_QUIT:
		s->quit = true;
		if (s->running)
			return s->attached ? RT_NEXT_DETACH : RT_NEXT_KILL;
		break;
	case RT_SC_TRACE: vec_push(&s->opts.include, c->glob); break;
	case RT_SC_EXCLUDE: vec_push(&s->opts.exclude, c->glob); break;
	case RT_SC_SET: do_set(s, c); break;
	case RT_SC_RECORD: s->opts.log_path = c->words[0]; break;
	case RT_SC_REPORT: case RT_SC_REPLAY: case RT_SC_EXPORT:
		do_view(s, c);
		break;
	case RT_SC_EXPECT: do_expect(s, c); break;
	case RT_SC_ECHO: do_echo(c); break;
	case RT_SC_SOURCE: do_source(s, c); break;
	case RT_SC_HELP: do_help(c); break;
	case RT_SC_BREAK: case RT_SC_TBREAK: case RT_SC_DELETE: case RT_SC_ON:
		rt_sess_probe_cmd(s, c);
		break;
	case RT_SC_INFO:
		if (c->info == RT_INFO_REPORT)
			interim_report(s);
		else if (c->info == RT_INFO_THREADS)
			rt_sess_stop_cmd(s, c);
		else
			rt_sess_info(s, c);
		break;
	case RT_SC_BACKTRACE: case RT_SC_PRINT:
		rt_sess_stop_cmd(s, c);
		break;
	}
	return NEXT_NONE;
}

/* ---- where commands come from ----------------------------------------------- */

/* One prompt line as a script of its own (the commands keep pointers
 * into it); NULL at the end of input. */
static bool read_line(struct rt_script_session *s)
{
	static unsigned lineno;
	char *line = s->read(s->read_ctx, s, s->stop.on ? "(rtrace: stopped) "
							: "(rtrace) ");
	struct rt_script *sc;

	if (!line)
		return false;
	sc = rt_script_new();
	sc->line0 = lineno++;
	if (rt_script_parse_text(sc, "<prompt>", line, false) ||
	    rt_script_check(sc)) {
		/* the line does not run: for the exit status, a command
		 * that could not run */
		rt_script_print_errors(sc, stderr);
		rt_script_free(sc);
		s->failed++;
	} else {
		vec_push(&s->scripts, sc);
		s->list = sc;
		s->cursor = 0;
	}
	free(line);
	return true;
}

static const struct rt_script_cmd *next_cmd(struct rt_script_session *s)
{
	for (;;) {
		if (s->list && s->cursor < s->list->cmds.n)
			return &s->list->cmds.v[s->cursor++];
		if (!s->read)
			return NULL;
		if (!read_line(s)) {
			s->quit = true;  /* end of input: as quit */
			return NULL;
		}
	}
}

/* Runs commands until the input ends, quit, or (at a stop) one that lets
 * the program go.  Without a command left, a stopped program goes on. */
static enum rt_stop_next loop(struct rt_script_session *s)
{
	const struct rt_script_cmd *c;

	while (!s->quit && (c = next_cmd(s))) {
		int next = exec_cmd(s, c);

		fflush(stdout);
		if (next != NEXT_NONE)
			return next;
	}
	if (s->quit && s->running)
		return s->attached ? RT_NEXT_DETACH : RT_NEXT_KILL;
	return RT_NEXT_CONTINUE;
}

/* ---- sessions --------------------------------------------------------------- */

static void copy_strs(rt_str_vec *dst, const rt_str_vec *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < src->n; i++)
		vec_push(dst, src->v[i]);
}

static struct rt_script_session *sess_new(const struct rt_opts *o)
{
	struct rt_script_session *s = xcalloc(1, sizeof(*s));

	s->opts = *o;
	copy_strs(&s->opts.include, &o->include);
	copy_strs(&s->opts.exclude, &o->exclude);
	copy_strs(&s->opts.exports, &o->exports);
	memset(&s->opts.also_trace, 0, sizeof(s->opts.also_trace));
	memset(&s->opts.stop_at, 0, sizeof(s->opts.stop_at));
	s->opts.cmd = RT_CMD_RECORD;
	s->opts.argv = NULL;
	s->opts.argc = 0;
	if (o->argc) {
		s->cli_program = true;
		s->cli_argc = o->argc - 1;
		s->file = o->argv[0];
		set_args(s, o->argv + 1, o->argc - 1);
	}
	s->hooks = (struct rt_session_hooks){
		.ctx = s, .check = sess_check, .started = sess_started,
		.on_hit = rt_sess_on_hit, .on_stop = sess_on_stop,
	};
	return s;
}

/* Ends the session and says how: the exit status. */
static int sess_free(struct rt_script_session *s)
{
	int code = s->bad ? RT_EXIT_USAGE : s->failed ? 1 : 0;

	drop_report(s);
	if (s->tmp_log) {
		unlink(s->tmp_log);
		free(s->tmp_log);
	}
	free(s->stop.name);
	vec_for_each(&s->scripts, sc)
		rt_script_free(*sc);
	vec_free(&s->scripts);
	vec_free(&s->args);
	vec_free(&s->breaks);
	vec_free(&s->actions);
	vec_free(&s->counters);
	rt_opts_release(&s->opts);
	free(s);
	return code;
}

int rt_script_run_file(const struct rt_opts *o, const char *path)
{
	struct rt_script *sc = rt_script_new();
	struct rt_script_session *s;

	/* every check, so that all the errors of the file are listed */
	rt_script_parse_file(sc, path);
	if (sc->cmds.n || !sc->errors.n) {
		rt_script_check(sc);
		rt_script_check_order(sc, o->argc > 0 || o->attach_pid);
		rt_script_check_patterns(sc, o->argc ? o->argv[0] : NULL);
	}
	if (sc->errors.n) {
		rt_script_sort_errors(sc);
		rt_script_print_errors(sc, stderr);
		rt_script_free(sc);
		return RT_EXIT_USAGE;
	}
	s = sess_new(o);
	vec_push(&s->scripts, sc);
	s->list = sc;
	loop(s);
	return sess_free(s);
}

int rt_script_run_prompt(const struct rt_opts *o, rt_script_reader rd,
			 void *ctx)
{
	struct rt_script_session *s = sess_new(o);

	s->read = rd;
	s->read_ctx = ctx;
	loop(s);
	return sess_free(s);
}
