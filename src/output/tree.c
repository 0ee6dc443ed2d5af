// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The call tree: every calling context with its calls, total and self
 * time, children by total, largest first.  Text draws the tree with
 * box-drawing characters; JSON nests objects.  --depth and --min-total
 * prune it: a context deeper than the depth, or with less total time, is
 * left out with everything below it (its time stays in its caller's total).
 * The walk is iterative: recursion thousands of calls deep makes a tree as
 * deep, and the C stack must not follow it.
 */
#include <errno.h>
#include <stdlib.h>

#include "rtrace/marks.h"
#include "rtrace/output.h"
#include "rtrace/render.h"
#include "rtrace/util.h"

struct walk {
	const struct rt_cct *t;
	const bool *shown;
	uint32_t node;
};

static uint32_t next_shown(const struct walk *w, uint32_t n)
{
	while (n && !w->shown[n])
		n = rt_cct_node(w->t, n)->next;
	return n;
}

/* The next node shown, in preorder (0 at the end), and how many nodes the
 * step closed (left with everything below them) in *closed. */
static uint32_t walk_next(struct walk *w, unsigned *closed)
{
	uint32_t n = w->node, c = next_shown(w, rt_cct_node(w->t, n)->first_child);

	*closed = 0;
	while (!c && n) {
		(*closed)++;
		c = next_shown(w, rt_cct_node(w->t, n)->next);
		n = rt_cct_node(w->t, n)->parent;
	}
	w->node = c;
	return c;
}

/* Which nodes are shown; returns how many are not. */
static size_t prune(const struct rt_cct *t, const struct rt_opts *o,
		    bool *shown)
{
	size_t hidden = 0;

	shown[0] = true;
	for (size_t i = 1; i < rt_cct_size(t); i++) {
		const struct rt_cct_node *n = rt_cct_node(t, i);

		shown[i] = shown[n->parent] &&
			   (!o->depth || n->depth <= o->depth) &&
			   n->total >= o->min_total_ns;
		hidden += !shown[i];
	}
	return hidden;
}

static void print_header(FILE *out, const struct rt_view_ctx *v)
{
	char c[32], w[256];

	fprintf(out, "# rtrace tree: %s\n", v->log_path);
	fprintf(out, "# command:  %s\n", v->info->cmdline);
	fprintf(out, "# calls:    %s in %u thread%s, %u process%s\n",
		rt_fmt_count(c, sizeof(c), v->sum->calls), v->sum->threads,
		rt_s(v->sum->threads), v->sum->processes,
		v->sum->processes == 1 ? "" : "es");
	if (rt_fmt_window(w, sizeof(w), v->info, rt_evlog_window(v->r)))
		fprintf(out, "# events:   %s\n", w);
	if (v->info->flags & (RT_LOG_COUNT_ONLY | RT_LOG_COVERAGE))
		fputs("# counts only: entries were recorded, not returns: no "
		      "times, no callers\n", out);
	if (rt_fmt_losses(w, sizeof(w), rt_evlog_losses(v->r)))
		fprintf(out, "# lost:     %s: its counts may be lower than the "
			"program's\n", w);
	fprintf(out, "\n%10s %11s %11s  %s\n", "calls", "total", "self",
		"function");
}

/* The branches left of node @n: for each ancestor below the top level,
 * a bar when more of its siblings follow.  Past RT_INDENT_LEVELS, blanks
 * and the depth: the ancestors are not walked, so a tree as deep as it is
 * long costs time and output linear in its size.  Returns whether the
 * line was capped. */
static bool print_branches(FILE *out, const struct walk *w, uint32_t n)
{
	const struct rt_cct_node *nd = rt_cct_node(w->t, n);
	uint32_t depth = nd->depth, i = depth;
	bool *more;

	if (depth - 1 > RT_INDENT_LEVELS)
		return rt_put_indent(out, depth - 1, 3, depth);
	more = xcalloc(depth + 1, sizeof(*more));

	for (uint32_t a = n; a; a = rt_cct_node(w->t, a)->parent)
		more[i--] = next_shown(w, rt_cct_node(w->t, a)->next) != 0;
	for (i = 2; i < depth; i++)
		fputs(more[i] ? "│  " : "   ", out);
	if (depth > 1)
		fputs(more[depth] ? "├─ " : "└─ ", out);
	free(more);
	return false;
}

/* Returns whether the line's indentation was capped. */
static bool print_node(FILE *out, const struct walk *w, uint32_t n)
{
	const struct rt_cct_node *nd = rt_cct_node(w->t, n);
	char t[32], s[32];
	bool capped;

	fprintf(out, "%10llu %s %s  ", (unsigned long long)nd->calls,
		rt_fmt_duration_col(t, sizeof(t), nd->total, 11),
		rt_fmt_duration_col(s, sizeof(s), nd->self, 11));
	capped = print_branches(out, w, n);
	fputs(rt_cct_name(w->t, n), out);
	if (nd->unwound)
		fprintf(out, " [%llu unwound]", (unsigned long long)nd->unwound);
	fputc('\n', out);
	return capped;
}

static void write_text(FILE *out, const struct rt_view_ctx *v, struct walk *w,
		       size_t hidden)
{
	unsigned closed;
	size_t shown = 0;
	bool capped = false;

	print_header(out, v);
	for (uint32_t n = walk_next(w, &closed); n; n = walk_next(w, &closed)) {
		capped |= print_node(out, w, n);
		shown++;
	}
	if (!shown && !hidden)
		fputs("(no traced function was called)\n", out);
	if (hidden)
		fprintf(out, "... %zu more calling context%s (--depth, "
			"--min-total)\n", hidden, rt_s(hidden));
	if (capped)
		fprintf(out, "contexts deeper than %d levels are indented as "
			"level %d, their depth in brackets.\n",
			RT_INDENT_LEVELS, RT_INDENT_LEVELS);
	fputs("\ncalls, total and self are those of the function called "
	      "through the path above it;\ntotal: time from entry to return, "
	      "callees included; self: total minus traced callees.\n", out);
}

static void json_node(FILE *out, const struct walk *w, uint32_t n)
{
	const struct rt_cct_node *nd = rt_cct_node(w->t, n);

	fputs("{\"name\": ", out);
	rt_json_string(out, rt_cct_name(w->t, n));
	fprintf(out, ", \"calls\": %llu, \"total_ns\": %llu, \"self_ns\": "
		"%llu, \"unwound\": %llu, \"children\": [",
		(unsigned long long)nd->calls, (unsigned long long)nd->total,
		(unsigned long long)nd->self, (unsigned long long)nd->unwound);
}

static void write_json(FILE *out, const struct rt_view_ctx *v, struct walk *w)
{
	char line[256];
	unsigned closed;
	uint32_t n = walk_next(w, &closed);

	fputs("{\"log\": ", out);
	rt_json_string(out, v->log_path);
	fputs(", \"command\": ", out);
	rt_json_string(out, v->info->cmdline);
	if (rt_fmt_window(line, sizeof(line), v->info, rt_evlog_window(v->r))) {
		fputs(", \"events\": ", out);
		rt_json_string(out, line);
	}
	fprintf(out, ", \"calls\": %llu, \"tree\": [",
		(unsigned long long)v->sum->calls);
	for (bool first = true; n; first = false) {
		/* a step that closed nothing went down to a first child */
		if (!first && closed)
			fputs(", ", out);
		json_node(out, w, n);
		n = walk_next(w, &closed);
		for (unsigned i = 0; i < closed; i++)
			fputs("]}", out);
	}
	fputs("]}\n", out);
}

int rt_tree_write(FILE *out, const struct rt_view_ctx *v, struct rt_cct *t)
{
	bool *shown = xcalloc(rt_cct_size(t), sizeof(*shown));
	struct walk w = { .t = t, .shown = shown };
	size_t hidden;

	rt_cct_sort(t, RT_CCT_BY_TOTAL);
	hidden = prune(t, v->o, shown);
	if (v->o->format == RT_FMT_JSON)
		write_json(out, v, &w);
	else
		write_text(out, v, &w, hidden);
	free(shown);
	return ferror(out) ? -EIO : 0;
}
