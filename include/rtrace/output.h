/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output formats.  Each formatter is one file in src/output/ exposing a
 * struct rt_output_ops; the registry finds it by name.
 */
#ifndef RTRACE_OUTPUT_H
#define RTRACE_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "rtrace/opts.h"
#include "rtrace/report.h"

struct rt_output_ops {
	const char *name;
	/* Prints @rep to @out; 0 or -errno. */
	int (*write)(FILE *out, const struct rt_report *rep,
		     const struct rt_opts *o);
};

extern const struct rt_output_ops rt_output_text;
extern const struct rt_output_ops rt_output_json;
extern const struct rt_output_ops rt_output_csv;

/* How the run ended, and what the figures are (times compensated or
 * raw, counts only...): the text report's header sentences, each one
 * line to @out; the HTML report says the same. */
void rt_text_ending(FILE *out, const struct rt_report *rep);
void rt_text_figures(FILE *out, const struct rt_report *rep);

/* Which events a flight recorder's log (RT_LOG_WINDOW in @info) holds,
 * for people ("the last 30.0 s of the run (from 2.0 s on), 1.2 M events
 * before them dropped (--keep=30s)") into @buf; NULL for other logs.
 * @win is the log's window record (NULL when the log lacks it). */
const char *rt_fmt_window(char *buf, size_t len,
			  const struct rt_log_info *info,
			  const struct rt_log_window *win);

/* The lines the text report prints under its table (rows left out, what
 * the columns and marks mean, what was not probed, where the program
 * stopped), to @out: the HTML report carries them too. */
void rt_text_notes(FILE *out, const struct rt_report *rep);

/* The formatter for @fmt; static data. */
const struct rt_output_ops *rt_output_for(enum rt_format fmt);

/* Formats a duration for people ("812 ns", "1.204 ms") into @buf. */
const char *rt_fmt_duration(char *buf, size_t len, uint64_t ns);

/* Formats a size for people ("812 B", "96.0 MiB") into @buf. */
const char *rt_fmt_bytes(char *buf, size_t len, uint64_t bytes);

/* Formats a count with thousands separators ("12,345") into @buf. */
const char *rt_fmt_count(char *buf, size_t len, uint64_t n);

/* Writes @s as a JSON string literal, quotes included. */
void rt_json_string(FILE *out, const char *s);

/* Writes @s as a CSV field, quoted when it needs to be. */
void rt_csv_field(FILE *out, const char *s);

/* Writes, after a function's name, how many of its calls @st the compiler
 * inlined and at how many places (@sites probed, @refused not), and how
 * many have a time when some have none: " [3 inlined, 2 sites, 1 not
 * probed; timed: 1]"; nothing for a function never inlined. */
void rt_inlined_mark(FILE *out, const struct rt_fstats *st, unsigned sites,
		     unsigned refused);

/* Writes where function @fn is, after its name, for a row whose name
 * another row shares (--instances): " (closures.rs:50)", the source
 * file's base name and the declaration's line, else " (0x16d00)". */
void rt_where_mark(FILE *out, const struct rt_log_func *fn);

/* Writes what the table says of row @r after its name: where it is when
 * another row has its name, its inlined calls, and its instances,
 * unwound calls and calls already running at the start, each in
 * brackets (the text and HTML tables alike). */
void rt_row_notes(FILE *out, const struct rt_report_row *r);

#endif
