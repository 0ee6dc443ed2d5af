// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The call graph of the functions that match a glob, in the manner of
 * gprof's: for each, its callers above it, itself, and its callees below,
 * with the calls and the time of each edge.  Functions by total time,
 * largest first; edges too.  Edges are sorted once by callee and once by
 * caller, so that each function finds its own by binary search.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/match.h"
#include "rtrace/output.h"
#include "rtrace/render.h"
#include "rtrace/util.h"

struct graph {
	const struct rt_view_ctx *v;
	const struct rt_callgraph *g;
	const struct rt_cg_edge **by_callee, **by_caller;
	const struct rt_cg_func **funcs;    /* the selected functions */
	size_t nedges, nfuncs;
};

static int cmp_edge_time(const struct rt_cg_edge *x, const struct rt_cg_edge *y)
{
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return 0;
}

static int cmp_by_callee(const void *a, const void *b)
{
	const struct rt_cg_edge *x = *(const struct rt_cg_edge *const *)a;
	const struct rt_cg_edge *y = *(const struct rt_cg_edge *const *)b;

	if (x->callee != y->callee)
		return x->callee < y->callee ? -1 : 1;
	return cmp_edge_time(x, y) ? cmp_edge_time(x, y)
				   : (x->caller > y->caller) - (x->caller < y->caller);
}

static int cmp_by_caller(const void *a, const void *b)
{
	const struct rt_cg_edge *x = *(const struct rt_cg_edge *const *)a;
	const struct rt_cg_edge *y = *(const struct rt_cg_edge *const *)b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return cmp_edge_time(x, y) ? cmp_edge_time(x, y)
				   : (x->callee > y->callee) - (x->callee < y->callee);
}

static int cmp_func(const void *a, const void *b)
{
	const struct rt_cg_func *x = *(const struct rt_cg_func *const *)a;
	const struct rt_cg_func *y = *(const struct rt_cg_func *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/* The first edge of @sorted whose @caller_side key is @key, or @n. */
static size_t first_edge(const struct rt_cg_edge **sorted, size_t n,
			 uint32_t key, bool caller_side)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t k = caller_side ? sorted[mid]->caller : sorted[mid]->callee;

		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool selected(const struct graph *gr, const struct rt_cg_func *f,
		     const char *glob)
{
	const struct rt_log_func *fn = rt_evlog_func(gr->v->r, f->key);
	const char *name = rt_fkeys_name(gr->v->keys, f->key);

	return f->total >= gr->v->o->min_total_ns &&
	       rt_glob_match(glob, name, fn ? fn->raw : NULL);
}

static void prepare(struct graph *gr, const char *glob)
{
	const struct rt_callgraph *g = gr->g;
	size_t n = rt_callgraph_nfuncs(g);

	gr->nedges = rt_callgraph_nedges(g);
	gr->by_callee = xcalloc(gr->nedges + 1, sizeof(*gr->by_callee));
	gr->by_caller = xcalloc(gr->nedges + 1, sizeof(*gr->by_caller));
	for (size_t i = 0; i < gr->nedges; i++)
		gr->by_callee[i] = gr->by_caller[i] = rt_callgraph_edge(g, i);
	qsort(gr->by_callee, gr->nedges, sizeof(*gr->by_callee), cmp_by_callee);
	qsort(gr->by_caller, gr->nedges, sizeof(*gr->by_caller), cmp_by_caller);
	gr->funcs = xcalloc(n + 1, sizeof(*gr->funcs));
	for (size_t i = 0; i < n; i++)
		if (selected(gr, rt_callgraph_func(g, i), glob))
			gr->funcs[gr->nfuncs++] = rt_callgraph_func(g, i);
	qsort(gr->funcs, gr->nfuncs, sizeof(*gr->funcs), cmp_func);
}

static const char *key_name(const struct graph *gr, uint32_t key)
{
	return key == RT_CG_NONE ? "(no traced caller)"
				 : rt_fkeys_name(gr->v->keys, key);
}

/* ---- text ------------------------------------------------------------------ */

static void text_edges(FILE *out, const struct graph *gr, uint32_t key,
		       bool callers)
{
	const struct rt_cg_edge **e = callers ? gr->by_callee : gr->by_caller;
	char t[32];

	for (size_t i = first_edge(e, gr->nedges, key, !callers);
	     i < gr->nedges && (callers ? e[i]->callee : e[i]->caller) == key;
	     i++) {
		fprintf(out, "%10llu %s %11s      %s\n",
			(unsigned long long)e[i]->calls,
			rt_fmt_duration_col(t, sizeof(t), e[i]->total, 11), "",
			key_name(gr, callers ? e[i]->caller : e[i]->callee));
	}
}

static void text_func(FILE *out, const struct graph *gr,
		      const struct rt_cg_func *f)
{
	char t[32], s[32];

	text_edges(out, gr, f->key, true);
	fprintf(out, "%10llu %s %s  %s\n", (unsigned long long)f->calls,
		rt_fmt_duration_col(t, sizeof(t), f->total, 11),
		rt_fmt_duration_col(s, sizeof(s), f->self, 11),
		key_name(gr, f->key));
	text_edges(out, gr, f->key, false);
}

static void write_text(FILE *out, const struct graph *gr, const char *glob)
{
	static const char rule[] = "-----------------------------------------"
				   "--------------------------------------\n";

	fprintf(out, "# rtrace call graph: %s\n", gr->v->log_path);
	fprintf(out, "# command:  %s\n", gr->v->info->cmdline);
	fprintf(out, "# functions matching %s: %zu\n\n", glob, gr->nfuncs);
	fprintf(out, "%10s %11s %11s  %s\n", "calls", "total", "self",
		"function");
	for (size_t i = 0; i < gr->nfuncs; i++) {
		fputs(rule, out);
		text_func(out, gr, gr->funcs[i]);
	}
	fputs(gr->nfuncs ? rule : "(no function called matches)\n", out);
	fputs("\nEach block: the function's callers (indented, above), the "
	      "function, its callees\n(indented, below).  A caller line: the "
	      "calls of the function it made and their\ntotal time; a callee "
	      "line: the calls the function made of it and their total\ntime.  "
	      "A recursive call's time is in the outermost call's only.\n", out);
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_edges(FILE *out, const struct graph *gr, uint32_t key,
		       bool callers)
{
	const struct rt_cg_edge **e = callers ? gr->by_callee : gr->by_caller;
	size_t i = first_edge(e, gr->nedges, key, !callers), first = i;

	fprintf(out, "\"%s\": [", callers ? "callers" : "callees");
	for (; i < gr->nedges && (callers ? e[i]->callee : e[i]->caller) == key;
	     i++) {
		uint32_t other = callers ? e[i]->caller : e[i]->callee;

		fputs(i > first ? ", {\"name\": " : "{\"name\": ", out);
		if (other == RT_CG_NONE)
			fputs("null", out);
		else
			rt_json_string(out, key_name(gr, other));
		fprintf(out, ", \"calls\": %llu, \"total_ns\": %llu}",
			(unsigned long long)e[i]->calls,
			(unsigned long long)e[i]->total);
	}
	fputc(']', out);
}

static void write_json(FILE *out, const struct graph *gr, const char *glob)
{
	fputs("{\"log\": ", out);
	rt_json_string(out, gr->v->log_path);
	fputs(", \"command\": ", out);
	rt_json_string(out, gr->v->info->cmdline);
	fputs(", \"graph\": ", out);
	rt_json_string(out, glob);
	fputs(", \"functions\": [", out);
	for (size_t i = 0; i < gr->nfuncs; i++) {
		const struct rt_cg_func *f = gr->funcs[i];

		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
		rt_json_string(out, key_name(gr, f->key));
		fprintf(out, ", \"calls\": %llu, \"total_ns\": %llu, "
			"\"self_ns\": %llu, ", (unsigned long long)f->calls,
			(unsigned long long)f->total,
			(unsigned long long)f->self);
		json_edges(out, gr, f->key, true);
		fputs(", ", out);
		json_edges(out, gr, f->key, false);
		fputc('}', out);
	}
	fputs("]}\n", out);
}

int rt_graph_write(FILE *out, const struct rt_view_ctx *v,
		   const struct rt_callgraph *g, const char *glob)
{
	struct graph gr = { .v = v, .g = g };

	prepare(&gr, glob);
	if (v->o->format == RT_FMT_JSON)
		write_json(out, &gr, glob);
	else
		write_text(out, &gr, glob);
	free(gr.by_callee);
	free(gr.by_caller);
	free(gr.funcs);
	return ferror(out) ? -EIO : 0;
}
