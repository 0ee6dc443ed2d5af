/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The renderers of the views beyond the per-function table (output.h):
 * call tree, call graph, replay, Chrome trace JSON, folded stacks, SVG flame
 * graph and HTML report.  Each is one file in src/output/.  The aggregated
 * views print a finished rt_cct or rt_callgraph; replay and the Chrome
 * trace are sinks that write as the analysis goes, so that their memory
 * never grows with the log.
 */
#ifndef RTRACE_RENDER_H
#define RTRACE_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rtrace/analysis.h"
#include "rtrace/callgraph.h"
#include "rtrace/cct.h"
#include "rtrace/evlog.h"
#include "rtrace/fkeys.h"
#include "rtrace/opts.h"
#include "rtrace/report.h"

/* What every renderer may need to know about the log and the options.
 * @sum is NULL while the analysis runs, and filled after it. */
struct rt_view_ctx {
	const char *log_path;
	struct rt_evlog_reader *r;
	const struct rt_log_info *info;
	const struct rt_analysis_summary *sum;
	struct rt_fkeys *keys;
	const struct rt_opts *o;
};

/* ---- aggregated views: 0 or -EIO ------------------------------------------ */

/* The call tree (out/tree.c), as text or, with --format json, nested
 * objects; pruned by --depth and --min-total.  Sorts @t by total. */
int rt_tree_write(FILE *out, const struct rt_view_ctx *v, struct rt_cct *t);

/* The call graph of the functions matching @glob (out/graph.c): callers
 * and callees of each, with calls and time per edge; text or JSON. */
int rt_graph_write(FILE *out, const struct rt_view_ctx *v,
		   const struct rt_callgraph *g, const char *glob);

/* Folded stacks (out/folded.c), "a;b;c 1234": one line per calling
 * context, weighted by self time in ns, or by calls with --weight calls.
 * Sorts @t by name. */
int rt_folded_write(FILE *out, const struct rt_view_ctx *v, struct rt_cct *t);

/* An interactive SVG flame graph (out/svg.c), self-contained; @embedded
 * leaves out the XML prolog, for an HTML page.  Sorts @t by name. */
int rt_flame_write(FILE *out, const struct rt_view_ctx *v, struct rt_cct *t,
		   bool embedded);

/* The width in pixels of the flame graph's frames area, and the narrowest
 * frame drawn (narrower ones are left out, as flamegraph.pl does). */
#define RT_FLAME_WIDTH 1180
#define RT_FLAME_MIN_PX 0.1

/* A self-contained HTML page (out/html.c): the summary table of @rep, the
 * flame graph and the call tree of @t. */
int rt_html_write(FILE *out, const struct rt_view_ctx *v,
		  const struct rt_report *rep, struct rt_cct *t);

/* ---- streaming views -------------------------------------------------------- */

/* The replay (out/replay.c): the timeline, one line per entry and per
 * exit (one line for a call that calls nothing traced), indented by depth,
 * with timestamps, durations and thread ids; --tid, --function, --depth,
 * --since and --until narrow it.  Writes its header at once.  Free with
 * rt_replay_finish(), which returns 0 or -EIO. */
struct rt_replay;
struct rt_replay *rt_replay_new(FILE *out, const struct rt_view_ctx *v);
struct rt_sink rt_replay_sink(struct rt_replay *rp);
int rt_replay_finish(struct rt_replay *rp);

/* The Chrome trace event JSON (out/perfetto.c): one complete event per
 * call, written when the call ends; thread and process names at the end,
 * from @v->sum (set by then).  Free with rt_chrome_finish(), which returns
 * 0 or -EIO. */
struct rt_chrome;
struct rt_chrome *rt_chrome_new(FILE *out, const struct rt_view_ctx *v);
struct rt_sink rt_chrome_sink(struct rt_chrome *ch);
int rt_chrome_finish(struct rt_chrome *ch);

/* ---- helpers shared by the renderers (out/markup.c) ------------------------- */

/* Writes @s escaped for XML and HTML text and attribute values. */
void rt_xml_string(FILE *out, const char *s);

/* A duration for people (rt_fmt_duration), right-aligned in @width
 * columns: "µs" takes one column but two bytes, which printf's widths
 * count.  Returns @buf. */
const char *rt_fmt_duration_col(char *buf, size_t len, uint64_t ns,
				int width);

/* Writes @ns as seconds with nine decimals ("12.000345678"). */
void rt_fmt_seconds(FILE *out, uint64_t ns);

/* Writers for the views that write a line per call, where printf's
 * format parsing would cost more than the analysis: @v in decimal; @v /
 * 10^@digits with @digits decimals ("12.345"), right-aligned in @width
 * columns; @n spaces. */
void rt_put_u64(FILE *out, uint64_t v);
void rt_put_fixed(FILE *out, uint64_t v, int digits, int width);
void rt_put_spaces(FILE *out, size_t n);

/* The views that indent by call depth (tree, replay, the HTML call tree)
 * indent at most RT_INDENT_LEVELS levels: recursion 40,000 deep would
 * otherwise make their output grow with lines times depth (gigabytes of
 * spaces).  A deeper line is indented as that level, and its depth is
 * written as a number, "[40000] ", before the name.  Folded stacks keep as
 * many outermost frames, then one "[N frames]" frame, then the function. */
#define RT_INDENT_LEVELS 32

/* Writes the indentation of @levels levels of @width columns each, capped
 * as above, with "[@depth] " when capped.  Returns whether it was. */
bool rt_put_indent(FILE *out, uint32_t levels, unsigned width,
		   uint32_t depth);

#endif
