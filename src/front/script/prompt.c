// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrace -i: the prompt.  libedit's readline interface reads the lines
 * (editing, history) and asks here for completions: the command word, the
 * keywords that follow some commands, and function names of the program
 * for the commands that take a pattern.  Anything else (file, source,
 * record, export FILE) falls back to libedit's file name completion.
 * When standard input is not a terminal, lines are read plainly and no
 * prompt is printed, so that commands can be piped in.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#define PR_FMT "prompt"
#define PR_DOMAIN RT_DOM_SCRIPT
#include "rtrace/cli.h"
#include "rtrace/log.h"
#include "rtrace/prompt.h"
#include "rtrace/script.h"
#include "rtrace/symbols.h"
#include "rtrace/util.h"

#define HISTORY_MAX 1000

/* libedit's completion callbacks take no context: the one prompt's. */
static struct {
	struct rt_script_session *sess;
	char *program;              /* whose names are loaded */
	VEC(const char *) names;    /* its functions, sorted, unique */
	struct rt_symbols *syms;
	const char *const *cands;   /* what the word is completed from */
	size_t ncands;
	size_t next;                /* rl_completion_matches' iteration */
} pr;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The program's function names, loaded once per program. */
static void load_names(void)
{
	const char *prog = pr.sess ? rt_script_session_program(pr.sess) : NULL;
	size_t k = 0;

	if (!prog || (pr.program && strcmp(prog, pr.program) == 0))
		return;
	free(pr.program);
	rt_symbols_free(pr.syms);
	vec_free(&pr.names);
	pr.syms = NULL;
	pr.program = xstrdup(prog);
	if (rt_symbols_open(prog, 0, &pr.syms))
		return;
	for (size_t i = 0; i < rt_symbols_count(pr.syms); i++)
		vec_push(&pr.names, rt_symbols_func(pr.syms, i)->name);
	qsort(pr.names.v, pr.names.n, sizeof(*pr.names.v), cmp_str);
	for (size_t i = 0; i < pr.names.n; i++)
		if (!k || strcmp(pr.names.v[i], pr.names.v[k - 1]) != 0)
			pr.names.v[k++] = pr.names.v[i];
	pr.names.n = k;
}

static char *candidate(const char *text, int state)
{
	size_t len = strlen(text);

	if (!state)
		pr.next = 0;
	while (pr.next < pr.ncands) {
		const char *c = pr.cands[pr.next++];

		if (c && strncmp(c, text, len) == 0)
			return strdup(c);  /* libedit frees it */
	}
	return NULL;
}

static const char *const *command_names(size_t *n)
{
	static const char *names[64];

	for (*n = 0; *n < ARRAY_SIZE(names) - 1 &&
		     (names[*n] = rt_script_command_name(*n)); (*n)++)
		;
	return names;
}

static const char *const *option_names(size_t *n)
{
	static const char *names[128];

	for (*n = 0; *n < ARRAY_SIZE(names) - 1 &&
		     (names[*n] = rt_cli_option_name(*n)); (*n)++)
		;
	return names;
}

/* What word @idx (from 0) of a line whose first word is @cmd and second
 * @arg1 is completed from; false for file names. */
static bool cands_for(const char *cmd, const char *arg1, int idx)
{
	static const char *const expects[] = { "calls", "called",
					       "not-called", "counter" };
	static const char *const infos[] = { "threads", "breaks",
					     "counters", "report" };
	static const char *const fmts[] = { "chrome", "folded", "svg",
					    "html", "perfetto" };
	static const char *const whens[] = { "entry", "exit" };
	static const char *const pattern_cmds[] = { "trace", "exclude",
		"break", "tbreak", "delete", "on" };
	bool pattern = false;

	if (!cmd)
		return false;
#define USE(a) (pr.cands = (a), pr.ncands = ARRAY_SIZE(a), true)
	for (size_t i = 0; i < ARRAY_SIZE(pattern_cmds); i++)
		pattern |= strcmp(cmd, pattern_cmds[i]) == 0 && idx == 1;
	if (strcmp(cmd, "expect") == 0 && idx == 1)
		return USE(expects);
	if (strcmp(cmd, "expect") == 0 && idx == 2 && arg1 &&
	    strcmp(arg1, "counter") != 0)
		pattern = true;
	if (pattern) {
		load_names();
		pr.cands = pr.names.v;
		pr.ncands = pr.names.n;
		return true;
	}
	if (strcmp(cmd, "on") == 0 && idx == 2)
		return USE(whens);
	if (strcmp(cmd, "info") == 0 && idx == 1)
		return USE(infos);
	if (strcmp(cmd, "export") == 0 && idx == 1)
		return USE(fmts);
	if (strcmp(cmd, "help") == 0 && idx == 1) {
		pr.cands = command_names(&pr.ncands);
		return true;
	}
	if (strcmp(cmd, "set") == 0 && idx == 1) {
		pr.cands = option_names(&pr.ncands);
		return true;
	}
#undef USE
	return false;
}

/* How many words begin before column @start of @line. */
static int words_before(const char *line, int start)
{
	int n = 0;

	for (int i = 0; i < start && line[i]; i++)
		if (line[i] != ' ' && line[i] != '\t' &&
		    (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t'))
			n++;
	return n;
}

static char **complete(const char *text, int start, int end)
{
	char *head = strndup(rl_line_buffer, start), *save = NULL;
	char *cmd = strtok_r(head, " \t", &save);
	char *arg1 = cmd ? strtok_r(NULL, " \t", &save) : NULL;
	int idx = words_before(rl_line_buffer, start);
	bool handled = true;
	char **m = NULL;

	(void)end;
	if (idx == 0)
		pr.cands = command_names(&pr.ncands);
	else
		handled = cands_for(cmd, arg1, idx);
	if (handled)
		m = rl_completion_matches(text, candidate);
	/* a file name otherwise: libedit's own completion */
	rl_attempted_completion_over = handled;
	free(head);
	return m;
}

/* ---- reading lines ---------------------------------------------------------- */

static char *read_plain(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, stdin);

	if (n < 0) {
		free(line);
		return NULL;
	}
	line[strcspn(line, "\n")] = '\0';
	return line;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* One line from libedit; Ctrl-C drops the line being typed and asks
 * again, as shells do, rather than ending rtrace. */
static char *read_edited(const char *prompt)
{
	struct sigaction sa = { .sa_handler = on_interrupt }, old;
	char *line;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);  /* no SA_RESTART: the read returns */
	do {
		interrupted = 0;
		line = readline(prompt);
		if (!line && interrupted)
			putchar('\n');
	} while (!line && interrupted);
	sigaction(SIGINT, &old, NULL);
	if (line && *line)
		add_history(line);
	if (!line)
		putchar('\n');  /* Ctrl-D: end the prompt's line */
	return line;
}

static char *reader(void *ctx, struct rt_script_session *s, const char *prompt)
{
	bool *tty = ctx;

	pr.sess = s;
	fflush(stdout);
	return *tty ? read_edited(prompt) : read_plain();
}

static char *history_path(void)
{
	const char *home = getenv("HOME");

	return home && *home ? xasprintf("%s/.rtrace_history", home) : NULL;
}

int rt_prompt_main(const struct rt_opts *o)
{
	bool tty = isatty(STDIN_FILENO);
	char *hist = tty ? history_path() : NULL;
	int code;

	if (tty) {
		using_history();
		stifle_history(HISTORY_MAX);
		if (hist)
			read_history(hist);
		/* function names hold ':' and '<': only blanks end a word */
		rl_completer_word_break_characters = " \t";
		rl_attempted_completion_function = complete;
	}
	code = rt_script_run_prompt(o, reader, &tty);
	if (hist)
		write_history(hist);
	free(hist);
	free(pr.program);
	rt_symbols_free(pr.syms);
	vec_free(&pr.names);
	return code;
}
