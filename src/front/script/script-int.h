/* SPDX-License-Identifier: GPL-2.0-or-later */
/* (private) What the files of the command-language parser share. */
#ifndef RTRACE_SCRIPT_INT_H
#define RTRACE_SCRIPT_INT_H

#include <stdarg.h>

#include "rtrace/compiler.h"
#include "rtrace/script.h"

struct rt_word {
	char *s;          /* unquoted, owned by the caller after the split */
	unsigned col;     /* from 1, of its first character (or quote) */
};

typedef VEC(struct rt_word) rt_word_vec;

/*
 * Splits one line into words.  Blanks separate them; '...' quotes
 * literally, "..." too except that a backslash escapes the next character;
 * a # where a word could start begins a comment.  Returns 0, or -EINVAL
 * with *col and *why (static) at an unterminated quote.  The words are
 * appended to @out, which must be emptied by the caller.
 */
int rt_lex_line(const char *line, rt_word_vec *out, unsigned *col,
		const char **why);

/* Frees the strings of @w and empties it. */
void rt_words_clear(rt_word_vec *w);

/* Adds an error at @line:@col of @file to @s; the message is formatted. */
void rt_script_error(struct rt_script *s, const char *file, unsigned line,
		     unsigned col, const char *fmt, ...) __printf(5, 6);

/* Decodes the words of one command into @c (kind, fields), adding errors
 * to @s.  @w[0] is the command word.  Returns 0 when the command is
 * good. */
int rt_script_decode(struct rt_script *s, struct rt_script_cmd *c,
		     const rt_word_vec *w);

/* The name of command kind @kind ("backtrace"); static. */
const char *rt_script_command_name_of(enum rt_sc kind);

/* The file name @path as kept by @s (one copy per name). */
const char *rt_script_file_name(struct rt_script *s, const char *path);

/* ---- a running session (run.c, actions.c) -------------------------------- */

#include "rtrace/arch.h"
#include "rtrace/hooks.h"
#include "rtrace/opts.h"

struct rt_report;
struct rt_evlog_reader;

/* A break or tbreak. */
struct rt_brk {
	unsigned id;                       /* from 1, as `info breaks` shows */
	const struct rt_script_cmd *cmd;   /* its glob, break or tbreak */
	bool deleted;
	uint64_t hits;
};

struct rt_counter {
	const char *name;                  /* owned by the script */
	uint64_t n;
};

/* The thread a break (or finish) keeps stopped. */
struct rt_stopped {
	bool on;
	pid_t pid, tid;
	uint32_t func;
	char *name;                        /* its function, owned */
	bool entry, exit;
	unsigned brk;                      /* the break's id, 0 for finish */
	struct rt_regs regs;               /* at the hit, ip at the probe */
	struct rt_tracer *tr;
};

struct rt_script_session {
	VEC(struct rt_script *) scripts;   /* every command read, owned */
	struct rt_opts opts;               /* the command line, then set,
					    * trace, exclude, record */
	const char *file;                  /* file, or the command line's */
	rt_str_vec args;
	bool cli_program;                  /* the command line named it */
	int cli_argc;                      /* ... with this many args */
	char *tmp_log;                     /* where runs go without record */
	const char *last_log;              /* the last run's log, or NULL */
	struct rt_evlog_reader *reader;    /* the last run's, for expect */
	struct rt_report *rep;
	VEC(struct rt_brk) breaks;
	unsigned next_brk;
	VEC(const struct rt_script_cmd *) actions;  /* on ... do */
	VEC(struct rt_counter) counters;
	struct rt_stopped stop;
	uint64_t skip;                     /* continue N: stops to pass */
	struct {
		bool on;
		pid_t tid;
		uint64_t sp;
		uint32_t func;
	} finish;
	bool running, started, attached;
	bool quit;
	unsigned failed;                   /* expects that failed, commands
					    * that could not run */
	bool bad;                          /* exit status 2 */
	/* where commands come from: the file, or the prompt */
	struct rt_script *list;
	size_t cursor;
	rt_script_reader read;
	void *read_ctx;
	struct rt_session_hooks hooks;
};

/* The probe-action callback (tracer.h) of session @ctx. */
int rt_sess_on_hit(void *ctx, const struct rt_hit *hit);

/* Runs the stop-time command @c (backtrace, print, info, finish...);
 * returns 0, or -EINVAL after saying why it cannot run now. */
int rt_sess_stop_cmd(struct rt_script_session *s,
		     const struct rt_script_cmd *c);

/* break, tbreak, delete, on: changes what stops and what acts. */
void rt_sess_probe_cmd(struct rt_script_session *s,
		       const struct rt_script_cmd *c);

/* info breaks / info counters. */
void rt_sess_info(struct rt_script_session *s, const struct rt_script_cmd *c);

/* The value of counter @name (0 when never counted). */
uint64_t rt_sess_counter(const struct rt_script_session *s, const char *name);

/* Prints "rtrace: FILE:LINE:COL: message" about command @c, and counts it
 * as a command that could not run. */
void rt_sess_fail(struct rt_script_session *s, const struct rt_script_cmd *c,
		  const char *fmt, ...) __printf(3, 4);

#endif
