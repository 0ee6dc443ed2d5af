// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The views' flows: open the log, set up the sink of the view, run one
 * streaming pass of the analysis through it, render.  The call tree, the
 * folded stacks, the flame graph and the call graph aggregate by calling
 * context or edge; replay and the Chrome trace write as the pass goes.
 * The HTML report makes two passes: the summary table (report.c) and the
 * calling-context tree.
 *
 * -f/--function focuses the views read from a log; in a live run it
 * selected what was traced, so there every view shows all of it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define PR_FMT "views"
#define PR_DOMAIN RT_DOM_OUTPUT
#include "rtrace/exit.h"
#include "rtrace/log.h"
#include "rtrace/render.h"
#include "rtrace/util.h"
#include "rtrace/views.h"

struct view_run {
	struct rt_view_ctx v;
	struct rt_evlog_reader *r;
	struct rt_fkeys *keys;
	struct rt_analysis_summary sum;
};

static int view_open(struct view_run *vr, const struct rt_opts *o,
		     const char *path)
{
	bool focus = o->cmd != RT_CMD_RUN && o->cmd != RT_CMD_RECORD;
	int err;

	memset(vr, 0, sizeof(*vr));
	err = rt_evlog_open(path, &vr->r);
	if (err)
		return err;
	vr->keys = rt_fkeys_new(vr->r, o->instances, o->include.v,
				focus ? o->include.n : 0);
	vr->v = (struct rt_view_ctx){
		.log_path = path, .r = vr->r, .info = rt_evlog_info(vr->r),
		.keys = vr->keys, .o = o,
	};
	return 0;
}

static void view_close(struct view_run *vr)
{
	rt_analysis_summary_release(&vr->sum);
	rt_fkeys_free(vr->keys);
	rt_evlog_reader_free(vr->r);
}

static int analyse(struct view_run *vr, struct rt_sink sink)
{
	struct rt_analysis_opts a = { .raw_times = vr->v.o->raw_times,
				      .stop_cost_ns = -1 };
	int err = rt_analyse(vr->r, &a, &sink, 1, &vr->sum);

	vr->v.sum = &vr->sum;
	return err;
}

/* ---- one function per view ------------------------------------------------- */

/* tree, folded, svg: the calling-context tree, then its renderer */
static int run_cct(struct view_run *vr, FILE *out)
{
	struct rt_cct *t = rt_cct_new(vr->keys, vr->v.o->tid);
	int err = analyse(vr, rt_cct_sink(t));

	if (!err && vr->v.o->format == RT_FMT_FOLDED)
		err = rt_folded_write(out, &vr->v, t);
	else if (!err && vr->v.o->format == RT_FMT_SVG)
		err = rt_flame_write(out, &vr->v, t, false);
	else if (!err)
		err = rt_tree_write(out, &vr->v, t);
	rt_cct_free(t);
	return err;
}

static int run_graph(struct view_run *vr, FILE *out)
{
	struct rt_callgraph *g = rt_callgraph_new(vr->keys, vr->v.o->tid);
	int err = analyse(vr, rt_callgraph_sink(g));

	if (!err)
		err = rt_graph_write(out, &vr->v, g, vr->v.o->graph);
	rt_callgraph_free(g);
	return err;
}

static int run_replay(struct view_run *vr, FILE *out)
{
	struct rt_replay *rp = rt_replay_new(out, &vr->v);
	int err = analyse(vr, rt_replay_sink(rp));
	int werr = rt_replay_finish(rp);

	return err ? err : werr;
}

static int run_chrome(struct view_run *vr, FILE *out)
{
	struct rt_chrome *ch = rt_chrome_new(out, &vr->v);
	int err = analyse(vr, rt_chrome_sink(ch));
	int werr = rt_chrome_finish(ch);

	return err ? err : werr;
}

static int run_html(struct view_run *vr, FILE *out)
{
	struct rt_report *rep = NULL;
	struct rt_cct *t;
	int err = rt_report_build(vr->r, vr->v.o, vr->v.log_path, &rep);

	if (err)
		return err;
	t = rt_cct_new(vr->keys, vr->v.o->tid);
	err = analyse(vr, rt_cct_sink(t));
	if (!err)
		err = rt_html_write(out, &vr->v, rep, t);
	rt_cct_free(t);
	rt_report_free(rep);
	return err;
}

static int run_view(struct view_run *vr, FILE *out)
{
	const struct rt_opts *o = vr->v.o;

	if (o->cmd == RT_CMD_EXPORT) {
		switch (o->format) {
		case RT_FMT_CHROME: return run_chrome(vr, out);
		case RT_FMT_HTML: return run_html(vr, out);
		case RT_FMT_FOLDED: case RT_FMT_SVG: return run_cct(vr, out);
		default: break;
		}
	}
	switch (o->view) {
	case RT_VIEW_GRAPH: return run_graph(vr, out);
	case RT_VIEW_REPLAY: return run_replay(vr, out);
	default: return run_cct(vr, out);
	}
}

/* ---- the flows -------------------------------------------------------------- */

/* Opens @path for writing ("-": standard output). */
static FILE *open_output(const char *path)
{
	FILE *f;

	if (!path || strcmp(path, "-") == 0)
		return stdout;
	f = fopen(path, "w");
	if (!f)
		pr_err("cannot write %s: %s", path, strerror(errno));
	return f;
}

/* A writer that saw the stream fail says -EIO, the stream's error flag
 * having kept no cause; the last flush, which fails the same way (a full
 * disk is still full), gives the cause. */
static int close_output(FILE *f, const char *path, int err)
{
	bool unsaid = !err || err == -EIO;

	if (f == stdout || f == stderr) {
		if (fflush(f) && unsaid)
			err = -errno;
	} else if (fclose(f) && unsaid) {
		err = -errno;
	}
	if (err == -EIO || err == -ENOSPC)
		pr_err("cannot write %s: %s", path ? path : "the output",
		       strerror(-err));
	return err;
}

int rt_views_need_events(struct rt_evlog_reader *r, const char *path)
{
	int rc = rt_evlog_profile_only(r);

	if (rc < 0)
		return RT_EXIT_USAGE;  /* the reader said why */
	if (!rc)
		return 0;
	pr_err("%s holds a profile only (recorded with --keep=none): this "
	       "view needs single calls; record without --keep=none",
	       path);
	return RT_EXIT_USAGE;
}

/* The view of the log @path, written to @out_path or to @out. */
static int view_log(const struct rt_opts *o, const char *path,
		    const char *out_path, FILE *out)
{
	struct view_run vr;
	int err = view_open(&vr, o, path);

	if (err)
		return RT_EXIT_USAGE;
	if (rt_views_need_events(vr.r, path)) {
		view_close(&vr);
		return RT_EXIT_USAGE;
	}
	if (!out)
		out = open_output(out_path);
	if (out) {
		err = run_view(&vr, out);
		err = close_output(out, out_path, err);
	}
	view_close(&vr);
	return out && !err ? RT_EXIT_OK : RT_EXIT_USAGE;
}

int rt_views_report(const struct rt_opts *o)
{
	return view_log(o, o->log_path, NULL, stdout);
}

int rt_views_export(const struct rt_opts *o)
{
	return view_log(o, o->log_path, o->export_path, NULL);
}

/* One --export FMT:FILE after a live run or a recording (checked by
 * viewopts.c). */
static void live_export(const struct rt_opts *o, const char *spec)
{
	static const struct { const char *name; enum rt_format fmt; } fmts[] = {
		{ "chrome", RT_FMT_CHROME }, { "folded", RT_FMT_FOLDED },
		{ "svg", RT_FMT_SVG }, { "html", RT_FMT_HTML },
	};
	const char *colon = strchr(spec, ':');
	struct rt_opts eo = *o;

	eo.cmd = RT_CMD_EXPORT;
	eo.include.n = 0;  /* -f selected what was traced: no focus */
	for (size_t i = 0; colon && i < ARRAY_SIZE(fmts); i++) {
		if (strncmp(spec, fmts[i].name, colon - spec) ||
		    fmts[i].name[colon - spec])
			continue;
		eo.format = fmts[i].fmt;
		if (view_log(&eo, o->log_path, colon + 1, NULL) == RT_EXIT_OK &&
		    !o->quiet)
			fprintf(stderr, "rtrace: wrote %s\n", colon + 1);
		return;
	}
}

bool rt_views_live(const struct rt_opts *o)
{
	struct rt_opts vo = *o;
	FILE *out;

	for (size_t i = 0; i < o->exports.n; i++)
		live_export(o, o->exports.v[i]);
	if (o->view == RT_VIEW_TABLE || o->cmd != RT_CMD_RUN)
		return false;
	vo.cmd = RT_CMD_REPORT;
	vo.include.n = 0;  /* -f selected what was traced: no focus */
	out = o->report_path ? open_output(o->report_path) : stderr;
	if (out)
		view_log(&vo, o->log_path, o->report_path, out);
	return true;
}
