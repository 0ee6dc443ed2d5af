// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A self-contained HTML report: one file that opens anywhere, offline (no
 * script, style or font is fetched).  The summary table (sortable by a
 * click on a column), the flame graph (out/svg.c, inline) and the call tree
 * as nested <details> elements, which a browser folds and unfolds without
 * any script.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/marks.h"
#include "rtrace/output.h"
#include "rtrace/render.h"
#include "rtrace/util.h"

#define OPEN_LEVELS 2   /* call tree levels unfolded at first */
/* The call tree lists the contexts that took at least this share of the
 * total time, as the flame graph draws those at least 0.1 px wide: a
 * program with millions of contexts would make a page no browser opens. */
#define TREE_MIN_SHARE 10000

static const char style[] =
"<style>\n"
"body { font-family: sans-serif; margin: 1.5em; color: #222; }\n"
"h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }\n"
"table.meta td { padding: 1px 12px 1px 0; }\n"
"table.fn { border-collapse: collapse; font-size: 0.9em; }\n"
"table.fn th { cursor: pointer; background: #eee; text-align: right; }\n"
"table.fn th, table.fn td { padding: 2px 8px; border-bottom: 1px solid #ddd; }\n"
"table.fn td { text-align: right; font-family: monospace; white-space: nowrap; }\n"
"table.fn td.name, table.fn th.name { text-align: left; white-space: normal; }\n"
"table.fn td.mark { white-space: nowrap; }\n"
".mark { font-weight: bold; color: #a40; }\n"
"abbr.mark { cursor: help; margin-right: 1px; }\n"
"ul.tree, ul.tree ul { list-style: none; padding: 0; margin: 0; }\n"
"ul.tree, .tree-head { font-family: monospace; font-size: 0.9em; }\n"
"ul.tree summary, ul.tree .leaf, .tree-head { white-space: pre; }\n"
"ul.tree .leaf, .tree-head { display: block; padding-left: 1.1em; }\n"
"ul.tree summary { cursor: pointer; }\n"
".flame svg { max-width: 100%; height: auto; }\n"
".note { color: #555; font-size: 0.9em; }\n"
"</style>\n";

/* Sorts the summary table by the clicked column (numbers descending,
 * names ascending); the numbers are in data-v attributes. */
static const char table_script[] =
"<script>\n"
"(function () {\n"
"  var t = document.querySelector('table.fn');\n"
"  if (!t) return;\n"
"  [].forEach.call(t.querySelectorAll('th'), function (th, col) {\n"
"    th.addEventListener('click', function () {\n"
"      var body = t.tBodies[0], rows = [].slice.call(body.rows);\n"
"      rows.sort(function (a, b) {\n"
"        var x = a.cells[col], y = b.cells[col];\n"
"        if (x.hasAttribute('data-v'))\n"
"          return +y.getAttribute('data-v') - +x.getAttribute('data-v');\n"
"        return x.textContent < y.textContent ? -1 : x.textContent > y.textContent;\n"
"      });\n"
"      rows.forEach(function (r) { body.appendChild(r); });\n"
"    });\n"
"  });\n"
"})();\n"
"</script>\n";

static void meta_row(FILE *out, const char *key, const char *value)
{
	fprintf(out, "<tr><td>%s</td><td>", key);
	rt_xml_string(out, value);
	fputs("</td></tr>\n", out);
}

typedef void rt_say_fn(FILE *, const struct rt_report *);

/* What @say writes of @rep, in a buffer to free; NULL without memory. */
static char *said(rt_say_fn *say, const struct rt_report *rep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return NULL;
	say(mem, rep);
	fclose(mem);
	return buf;
}

/* The lines of @text that say something. */
static size_t count_lines(const char *text)
{
	size_t n = 0;

	for (const char *p = text; p && *p; p++)
		n += *p != '\n' && (p[1] == '\n' || !p[1]);
	return n;
}

/* What @say writes of @rep, line by line: a row of the meta table each
 * under @key, or, without one, a note each.  The HTML report says what
 * the text report says, in the same words. */
static void text_lines(FILE *out, const char *key, rt_say_fn *say,
		       const struct rt_report *rep)
{
	char *buf = said(say, rep), *line, *next;

	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line)
			continue;
		if (key) {
			meta_row(out, key, line);
			continue;
		}
		fputs("<p class=\"note\">", out);
		/* a line of the marks' legend: its letter as in the table */
		if (line[0] >= 'A' && line[0] <= 'Z' && line[1] == ':')
			fprintf(out, "<b class=\"mark\">%c</b>", *line++);
		rt_xml_string(out, line);
		fputs("</p>\n", out);
	}
	free(buf);
}

static void write_meta(FILE *out, const struct rt_view_ctx *v,
		       const struct rt_report *rep)
{
	char d[32], e[32], c[32], line[160];
	char *notes;

	fputs("<table class=\"meta\">\n", out);
	meta_row(out, "command", v->info->cmdline);
	meta_row(out, "log", v->log_path);
	rt_fmt_duration(d, sizeof(d), rt_report_run_ns(rep));
	snprintf(line, sizeof(line), "%s; %u thread%s, %u process%s; %s "
		 "event%s, %s call%s", d, rep->sum.threads,
		 rt_s(rep->sum.threads), rep->sum.processes,
		 rep->sum.processes == 1 ? "" : "es",
		 rt_fmt_count(e, sizeof(e), rep->sum.events),
		 rt_s(rep->sum.events),
		 rt_fmt_count(c, sizeof(c), rep->sum.calls),
		 rt_s(rep->sum.calls));
	meta_row(out, "recorded", line);
	if (rt_fmt_window(line, sizeof(line), v->info, rep->window))
		meta_row(out, "events", line);
	text_lines(out, "figures", rt_text_figures, rep);
	text_lines(out, "ended", rt_text_ending, rep);
	if (rt_fmt_losses(line, sizeof(line), rep->losses))
		meta_row(out, "lost", line);
	notes = said(rt_text_notes, rep);
	if (count_lines(notes))
		fprintf(out, "<tr><td>notes</td><td><a href=\"#notes\">%zu "
			"under the table</a>: what the figures and the marks "
			"mean, and what to beware of</td></tr>\n",
			count_lines(notes));
	free(notes);
	fputs("</table>\n", out);
}

/* @ns as a share of the run (marks.h), one decimal, as the text. */
static void pct_cell(FILE *out, const struct rt_report *rep, uint64_t ns)
{
	double pct = rt_report_pct(rep, ns);

	fprintf(out, "<td data-v=\"%.4f\">%.1f</td>", pct, pct);
}

static void cell(FILE *out, uint64_t ns)
{
	char b[32];

	fprintf(out, "<td data-v=\"%llu\">%s</td>", (unsigned long long)ns,
		rt_fmt_duration(b, sizeof(b), ns));
}

/* The time columns of a row with their shares of the run: over its
 * timed calls, "-" when none has a time (sorted as 0). */
static void time_cells(FILE *out, const struct rt_report *rep,
		       const struct rt_fstats *st, bool blocked)
{
	if (!rt_fstats_timed(st)) {
		for (int i = 0; i < (blocked ? 9 : 7); i++)
			fputs("<td data-v=\"0\">-</td>", out);
		return;
	}
	cell(out, st->total);
	pct_cell(out, rep, st->total);
	cell(out, st->self);
	pct_cell(out, rep, st->self);
	if (blocked) {
		cell(out, st->blocked);
		pct_cell(out, rep, st->blocked);
	}
	cell(out, rt_fstats_avg(st));
	cell(out, st->min);
	cell(out, st->max);
}

/* A row's marks, each with its line of the legend as a tooltip. */
static void marks_cell(FILE *out, const struct rt_report *rep,
		       const struct rt_report_row *r, const char *legend)
{
	char m[RT_MARKS + 1];

	fputs("<td class=\"name mark\">", out);
	for (const char *c = rt_marks_letters(rt_row_marks(rep, r), m); *c; c++) {
		const char *l = legend;
		const char *end;

		while (l && *l && !(l[0] == *c && l[1] == ':'))
			l = (end = strchr(l, '\n')) ? end + 1 : NULL;
		fputs("<abbr class=\"mark\"", out);
		if (l && *l) {
			char *line = xstrndup(l, strcspn(l, "\n"));

			fputs(" title=\"", out);
			rt_xml_string(out, line);
			fputc('"', out);
			free(line);
		}
		fprintf(out, ">%c</abbr>", *c);
	}
	fputs("</td>", out);
}

static void write_table(FILE *out, const struct rt_report *rep)
{
	bool blocked = rt_report_any_blocked(rep);
	char *legend = said(rt_marks_legend, rep);

	fputs("<h2>Functions</h2>\n<table class=\"fn\"><thead><tr><th>calls"
	      "</th><th>total</th><th>%</th><th>self</th><th>%</th>", out);
	fputs(blocked ? "<th>blocked</th><th>%</th>" : "", out);
	fputs("<th>avg</th><th>min</th><th>max</th><th class=\"name\">mark"
	      "</th><th class=\"name\">function</th>", out);
	fputs(rep->by != RT_BY_NONE ? "<th class=\"name\">group</th>" : "", out);
	fputs("</tr></thead>\n<tbody>\n", out);
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rt_report_row *r = &rep->rows[i];

		fprintf(out, "<tr><td data-v=\"%llu\">%llu</td>",
			(unsigned long long)r->st.calls,
			(unsigned long long)r->st.calls);
		time_cells(out, rep, &r->st, blocked);
		marks_cell(out, rep, r, legend);
		fputs("<td class=\"name\">", out);
		rt_xml_string(out, r->name);
		rt_row_notes(out, r);
		fputs("</td>", out);
		if (rep->by != RT_BY_NONE) {
			fprintf(out, "<td class=\"name\">%u ", r->id);
			rt_xml_string(out, r->key_name);
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	free(legend);
	fputs("</tbody></table>\n<p class=\"note\">Click a column to sort; "
	      "hover over a mark for what it means.</p>\n<div id=\"notes\">\n",
	      out);
	text_lines(out, NULL, rt_text_notes, rep);
	fputs("</div>\n", out);
}

/* ---- the call tree ----------------------------------------------------------- */

/* The figures in fixed columns, then the name indented by its depth: the
 * lists themselves are not indented, so the columns stay aligned.  The
 * <details> nest one level per depth, each opened and closed once, so
 * only the indentation could grow with depth: it is capped.  Returns
 * whether it was. */
static bool tree_label(FILE *out, const struct rt_cct *t, uint32_t n)
{
	const struct rt_cct_node *nd = rt_cct_node(t, n);
	char c[32], tt[32], s[32];
	bool capped;

	fprintf(out, "%10s %s %s  ", rt_fmt_count(c, sizeof(c), nd->calls),
		rt_fmt_duration_col(tt, sizeof(tt), nd->total, 11),
		rt_fmt_duration_col(s, sizeof(s), nd->self, 11));
	capped = rt_put_indent(out, nd->depth - 1, 2, nd->depth);
	rt_xml_string(out, rt_cct_name(t, n));
	return capped;
}

static bool has_shown_child(const struct rt_cct *t, const bool *shown,
			    uint32_t n)
{
	rt_cct_for_each_child(t, n, c)
		if (shown[c])
			return true;
	return false;
}

/* Which contexts the tree lists (--depth, --min-total, and a share of
 * the total time); returns how many it leaves out. */
static size_t prune(const struct rt_cct *t, const struct rt_opts *o,
		    bool *shown)
{
	uint64_t all = 0, min;
	size_t hidden = 0;

	rt_cct_for_each_child(t, 0, c)
		all += rt_cct_node(t, c)->total;
	min = MAX(o->min_total_ns, all / TREE_MIN_SHARE);
	shown[0] = true;
	for (uint32_t i = 1; i < rt_cct_size(t); i++) {
		const struct rt_cct_node *nd = rt_cct_node(t, i);

		shown[i] = shown[nd->parent] && nd->total >= min &&
			   (!o->depth || nd->depth <= o->depth);
		hidden += !shown[i];
	}
	return hidden;
}

static void write_tree(FILE *out, const struct rt_view_ctx *v, struct rt_cct *t)
{
	bool *shown = xcalloc(rt_cct_size(t) + 1, sizeof(*shown));
	uint32_t open = 0;  /* depth of the innermost unclosed <details> */
	size_t hidden;
	bool capped = false;

	rt_cct_sort(t, RT_CCT_BY_TOTAL);
	hidden = prune(t, v->o, shown);
	fprintf(out, "<h2>Call tree</h2>\n<p class=\"note\">Each function "
		"called through the path above it; click a line to fold or "
		"unfold it.</p>\n<span class=\"tree-head\">%10s %11s %11s  "
		"function</span>\n<ul class=\"tree\">\n", "calls", "total",
		"self");
	for (uint32_t n = rt_cct_next(t, 0); n; n = rt_cct_next(t, n)) {
		uint32_t d = rt_cct_node(t, n)->depth;

		if (!shown[n])
			continue;
		for (; open >= d; open--)
			fputs("</ul></details></li>\n", out);
		if (!has_shown_child(t, shown, n)) {
			fputs("<li><span class=\"leaf\">", out);
			capped |= tree_label(out, t, n);
			fputs("</span></li>\n", out);
			continue;
		}
		fprintf(out, "<li><details%s><summary>",
			d <= OPEN_LEVELS ? " open" : "");
		capped |= tree_label(out, t, n);
		fputs("</summary><ul>\n", out);
		open = d;
	}
	for (; open > 0; open--)
		fputs("</ul></details></li>\n", out);
	fputs("</ul>\n", out);
	if (hidden)
		fprintf(out, "<p class=\"note\">%zu more calling context%s, "
			"each under 0.01%% of the total time or below --depth "
			"and --min-total (rtrace tree lists them all).</p>\n",
			hidden, rt_s(hidden));
	if (capped)
		fprintf(out, "<p class=\"note\">Contexts deeper than %d levels "
			"are indented as level %d, their depth in brackets."
			"</p>\n", RT_INDENT_LEVELS, RT_INDENT_LEVELS);
	free(shown);
}

int rt_html_write(FILE *out, const struct rt_view_ctx *v,
		  const struct rt_report *rep, struct rt_cct *t)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\""
	      "utf-8\">\n<title>rtrace report: ", out);
	rt_xml_string(out, v->info->cmdline);
	fprintf(out, "</title>\n%s</head>\n<body>\n<h1>rtrace report</h1>\n",
		style);
	write_meta(out, v, rep);
	write_table(out, rep);
	fputs("<h2>Flame graph</h2>\n<p class=\"note\">Hover over a frame for "
	      "its figures; click to zoom in, \"Reset zoom\" to go back.</p>\n"
	      "<div class=\"flame\">\n", out);
	rt_flame_write(out, v, t, true);
	fputs("</div>\n", out);
	write_tree(out, v, t);
	fputs(table_script, out);
	fputs("</body>\n</html>\n", out);
	return ferror(out) ? -EIO : 0;
}
