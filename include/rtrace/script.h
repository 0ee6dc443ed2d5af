/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command files (.rtx) and prompt lines: text to a checked list of
 * commands.  Pure: nothing runs and nothing is printed here; the only I/O
 * is reading the files given (and those they `source`).  Every problem is
 * kept with its file, line and column, and the parser goes on to find the
 * next one, so that a file's errors are all listed at once.  The command
 * language is documented in docs/commands.md.
 */
#ifndef RTRACE_SCRIPT_H
#define RTRACE_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rtrace/vec.h"

enum rt_sc {
	RT_SC_FILE, RT_SC_ARGS, RT_SC_RUN, RT_SC_ATTACH, RT_SC_DETACH,
	RT_SC_KILL, RT_SC_TRACE, RT_SC_EXCLUDE, RT_SC_SET, RT_SC_RECORD,
	RT_SC_REPORT, RT_SC_REPLAY, RT_SC_EXPORT, RT_SC_EXPECT, RT_SC_ECHO,
	RT_SC_SOURCE, RT_SC_QUIT, RT_SC_HELP, RT_SC_BREAK, RT_SC_TBREAK,
	RT_SC_DELETE, RT_SC_ON, RT_SC_INFO, RT_SC_BACKTRACE, RT_SC_PRINT,
	RT_SC_FINISH, RT_SC_CONTINUE,
};

enum rt_expect_kind {
	RT_EXPECT_CALLS,       /* expect calls GLOB OP N */
	RT_EXPECT_CALLED,      /* expect called GLOB */
	RT_EXPECT_NOT_CALLED,  /* expect not-called GLOB */
	RT_EXPECT_COUNTER,     /* expect counter NAME OP N */
};

enum rt_cmp { RT_CMP_EQ, RT_CMP_NE, RT_CMP_LT, RT_CMP_LE, RT_CMP_GT, RT_CMP_GE };

enum rt_action { RT_ACT_PRINT, RT_ACT_LOG, RT_ACT_COUNT };

enum rt_info { RT_INFO_THREADS, RT_INFO_BREAKS, RT_INFO_COUNTERS,
	       RT_INFO_REPORT };

/* A value `print` shows. */
struct rt_pval {
	enum { RT_PV_ARG, RT_PV_REG, RT_PV_RETVAL, RT_PV_TID,
	       RT_PV_NAME } kind;
	unsigned arg;            /* RT_PV_ARG: 0..5 */
	const char *text;        /* as written: "arg1", "$rax", "retval",
				  * "tid", an argument's name or "args"
				  * (RT_PV_NAME, typed from the DWARF) */
};

struct rt_script_cmd {
	enum rt_sc kind;
	const char *file;        /* where it was written (owned by the script) */
	unsigned line, col;      /* of its first word, from 1 */
	char **words;            /* the words after the command word */
	unsigned *cols;          /* the column of each */
	size_t nwords;
	/* decoded */
	const char *glob;        /* trace, exclude, break, tbreak, delete, on,
				  * expect calls/called/not-called */
	unsigned glob_col;
	const char *name;        /* counter of expect counter, on ... count;
				  * set: the option; help, info: the topic */
	enum rt_expect_kind expect;
	enum rt_cmp op;
	uint64_t n;              /* expect's N; attach's PID; backtrace's
				  * and continue's count (0: none given) */
	bool at_exit;            /* on GLOB exit */
	enum rt_action action;   /* on ... do ACTION */
	enum rt_info info;
	struct rt_pval *vals;    /* print VALUE..., on ... do print VALUE... */
	size_t nvals;
	int format;              /* export: enum rt_format */
	size_t first_opt;        /* report/replay/export: index of the first
				  * word that is an option or the LOG */
	bool has_log;            /* report/replay/export: a LOG was given */
	bool broken;             /* it has an error of its own: the checks
				  * of the whole script pass it by */
};

struct rt_script_error {
	const char *file;        /* owned by the script */
	unsigned line, col;      /* col 0: the whole line or file */
	char *msg;
};

struct rt_script {
	VEC(struct rt_script_cmd) cmds;
	VEC(struct rt_script_error) errors;
	VEC(char *) files;       /* file names, owned */
	unsigned depth;          /* of `source` nesting while parsing */
	unsigned line0;          /* added to the line numbers of
				  * rt_script_parse_text() (prompt lines) */
};

/* An empty script; free with rt_script_free(). */
struct rt_script *rt_script_new(void);

/* Frees the script, its commands and every string in them; accepts NULL. */
void rt_script_free(struct rt_script *s);

/* Parses command file @path into @s, `source`d files included in place
 * (their paths taken relative to the file that names them).  Problems go
 * to s->errors; returns how many were added. */
size_t rt_script_parse_file(struct rt_script *s, const char *path);

/* Parses @text (lines) as if read from a file named @name, appending to
 * @s; a `source` command is kept as a command (the prompt runs it).
 * Returns how many errors were added. */
size_t rt_script_parse_text(struct rt_script *s, const char *name,
			    const char *text, bool flatten_source);

/* Whole-script checks that need every command: counters named by `expect
 * counter` and never counted, `print retval` at an entry.  Returns how
 * many errors were added. */
size_t rt_script_check(struct rt_script *s);

/* The words `rtrace report|replay|export ...` that command @c (report,
 * replay or export) stands for, for cli.c's parser: a new NULL-terminated
 * array (free it, not its strings, which belong to @c); *argc its length. */
char **rt_script_view_argv(const struct rt_script_cmd *c, int *argc);

/* Checks that need the order of the commands of @s: a run with no program
 * before it (@have_program: the command line gives one), a command for a
 * stopped program with no break before it, an expect, report, replay or
 * export with no run before it.  Returns how many errors were added. */
size_t rt_script_check_order(struct rt_script *s, bool have_program);

/* Checks every pattern of @s (trace, break, tbreak, on, expect) against
 * the functions of the program (@cli_program, else the first `file`),
 * with a suggestion for a near miss.  Nothing is checked when there is no
 * program yet, or it cannot be read (the run will say why), or it starts
 * other programs.  Returns how many errors were added. */
size_t rt_script_check_patterns(struct rt_script *s, const char *cli_program);

/* Puts the errors in the order of the files and lines they are about. */
void rt_script_sort_errors(struct rt_script *s);

/* Prints every error, one line each: "rtrace: FILE:LINE:COL: message". */
void rt_script_print_errors(const struct rt_script *s, FILE *out);

/* The name of command @i (from 0) of the language, or NULL past the last;
 * static strings, for completion and help. */
const char *rt_script_command_name(size_t i);

/* The syntax line and the one-line description of command @name, or
 * NULL; static strings. */
const char *rt_script_command_syntax(const char *name);
const char *rt_script_command_help(const char *name);

/* The closest of @cands[0..n) to @word by edit distance (insertions,
 * deletions, substitutions and swaps of neighbours), when it is near
 * enough to be a slip of the keyboard; else NULL.  Returns one of @cands. */
const char *rt_suggest(const char *word, const char *const *cands, size_t n);

/* Edit distance between @a and @b as rt_suggest() counts it. */
unsigned rt_edit_distance(const char *a, const char *b);

/* The text of comparison @op ("<="); static. */
const char *rt_cmp_str(enum rt_cmp op);

/* Whether @a OP @b holds. */
bool rt_cmp_holds(enum rt_cmp op, uint64_t a, uint64_t b);

/* ---- expectations (expect.c) -------------------------------------------- */

struct rt_report;

/* The calls report @rep counts for the functions whose names match @glob,
 * summed over its rows; *nfuncs gets how many traced functions match,
 * called or not (0: the pattern names nothing that was traced). */
uint64_t rt_expect_calls(const struct rt_report *rep, const char *glob,
			 size_t *nfuncs);

/* The events not recorded of the functions whose names match @glob (all
 * the run's when some are no function's): 0 when their counts are
 * exact, else they are lower bounds (mark L). */
uint64_t rt_expect_lost(const struct rt_report *rep, const char *glob);

/* Whether expectation @c (an RT_SC_EXPECT) holds for @got calls of
 * @nfuncs matching functions (or a counter's value @got), @lost of their
 * events not recorded: then @got is a lower bound, and an expectation
 * that the true count might break fails too, saying so.  When it does
 * not hold, *why is a new string the caller frees, such as "x::f was
 * called 3 times (expected == 1)"; else NULL. */
bool rt_expect_holds(const struct rt_script_cmd *c, uint64_t got,
		     size_t nfuncs, uint64_t lost, char **why);

/* ---- sessions (run.c) ----------------------------------------------------- */

struct rt_opts;
struct rt_script_session;

/* Reads the next line at the prompt @prompt for session @s: a new string
 * the caller frees, without its newline, or NULL at the end of input. */
typedef char *(*rt_script_reader)(void *ctx, struct rt_script_session *s,
				  const char *prompt);

/* Runs command file @path, checked whole before anything runs, with the
 * options of @o; PROGRAM ARGS of @o, when given, stand for the file's
 * `file` and `args`.  Returns the exit status: 0 every expectation held,
 * 1 one failed or a command could not run, 2 a bad script or a run that
 * could not start. */
int rt_script_run_file(const struct rt_opts *o, const char *path);

/* Runs the commands @rd reads, one line at a time, until quit or the end
 * of input (rtrace -i).  Returns the exit status as above. */
int rt_script_run_prompt(const struct rt_opts *o, rt_script_reader rd,
			 void *ctx);

/* The program session @s runs next (file, or the command line), or NULL;
 * valid until the next command. */
const char *rt_script_session_program(const struct rt_script_session *s);

#endif
