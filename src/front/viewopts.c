// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The views' part of the command line.  Each option is one case; the
 * checks that need every option (which formats a view can print, export's
 * operands) run once parsing is over.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/util.h"
#include "rtrace/viewopts.h"

static int bad(const char *fmt, const char *arg)
{
	fputs("rtrace: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see rtrace --help)\n", stderr);
	return -EINVAL;
}

bool rt_viewopts_command(const char *word, struct rt_opts *o)
{
	if (strcmp(word, "tree") == 0) {
		o->cmd = RT_CMD_REPORT;
		o->view = RT_VIEW_TREE;
	} else if (strcmp(word, "replay") == 0) {
		o->cmd = RT_CMD_REPORT;
		o->view = RT_VIEW_REPLAY;
	} else if (strcmp(word, "export") == 0) {
		o->cmd = RT_CMD_EXPORT;
	} else {
		return false;
	}
	return true;
}

static int set_view(struct rt_opts *o, enum rt_view v, const char *opt)
{
	if (o->view != RT_VIEW_TABLE && o->view != v)
		return bad("%s: one view at a time (tree, replay or --graph)",
			   opt);
	o->view = v;
	return 0;
}

static int parse_time(const char *opt, const char *arg, uint64_t *ns)
{
	char what[64];

	if (!parse_duration_ns(arg, ns))
		return 0;
	snprintf(what, sizeof(what), "%s needs a time such as 1.5ms, 20us or "
		 "2s, not '%%s'", opt);
	return bad(what, arg);
}

static int parse_number(const char *opt, const char *arg, unsigned long max,
			unsigned long *n)
{
	char what[64], *end;

	errno = 0;
	*n = strtoul(arg, &end, 10);
	if (!*end && end != arg && !errno && *n >= 1 && *n <= max &&
	    arg[0] != '-')
		return 0;
	snprintf(what, sizeof(what), "%s needs a number from 1 to %lu, not "
		 "'%%s'", opt, max);
	return bad(what, arg);
}

/* --export FMT:FILE, FMT one of the export formats. */
static int check_export(const char *arg)
{
	static const char *const fmts[] = { "chrome:", "folded:", "svg:",
					    "html:" };

	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++)
		if (str_starts(arg, fmts[i]) && arg[strlen(fmts[i])])
			return 0;
	return bad("--export needs FORMAT:FILE, FORMAT one of chrome, folded, "
		   "svg, html; not '%s'", arg);
}

int rt_viewopts_parse(int c, const char *arg, struct rt_opts *o)
{
	unsigned long n;
	int err = 0;

	switch (c) {
	case RT_OPT_GRAPH:
		o->graph = arg;
		return set_view(o, RT_VIEW_GRAPH, "--graph");
	case RT_OPT_TREE: return set_view(o, RT_VIEW_TREE, "--tree");
	case RT_OPT_REPLAY: return set_view(o, RT_VIEW_REPLAY, "--replay");
	case RT_OPT_MIN_TOTAL:
		return parse_time("--min-total", arg, &o->min_total_ns);
	case RT_OPT_SINCE: return parse_time("--since", arg, &o->since_ns);
	case RT_OPT_UNTIL: return parse_time("--until", arg, &o->until_ns);
	case RT_OPT_DEPTH:
		err = parse_number("--depth", arg, 1000000, &n);
		o->depth = n;
		return err;
	case RT_OPT_TID:
		err = parse_number("--tid", arg, UINT32_MAX, &n);
		o->tid = n;
		return err;
	case RT_OPT_WEIGHT:
		if (strcmp(arg, "self") && strcmp(arg, "calls"))
			return bad("--weight is self or calls, not '%s'", arg);
		o->weight = strcmp(arg, "calls") ? RT_WEIGHT_SELF
						 : RT_WEIGHT_CALLS;
		return 0;
	case RT_OPT_EXPORT:
		vec_push(&o->exports, arg);
		return check_export(arg);
	}
	return -EINVAL;
}

/* export's format, from -o's extension when --format is not given. */
static int export_format(struct rt_opts *o)
{
	static const struct { const char *ext; enum rt_format fmt; } exts[] = {
		{ ".json", RT_FMT_CHROME }, { ".folded", RT_FMT_FOLDED },
		{ ".svg", RT_FMT_SVG }, { ".html", RT_FMT_HTML },
		{ ".htm", RT_FMT_HTML },
	};
	const char *dot = o->export_path ? strrchr(o->export_path, '.') : NULL;

	for (size_t i = 0; o->format == RT_FMT_TEXT && dot &&
			   i < ARRAY_SIZE(exts); i++)
		if (strcmp(dot, exts[i].ext) == 0)
			o->format = exts[i].fmt;
	if (o->format >= RT_FMT_CHROME)
		return 0;
	return bad("export needs --format chrome, folded, svg or html%s",
		   o->format == RT_FMT_TEXT ? "" : ", not json or csv "
		   "(those are rtrace report's)");
}

static int check_export_cmd(struct rt_opts *o)
{
	if (o->argc > 1)
		return bad("export takes one log file, not '%s'", o->argv[1]);
	if (o->view != RT_VIEW_TABLE)
		return bad("%s", "export writes one format: tree, replay and "
			   "--graph are views of rtrace report");
	o->export_path = o->log_path;
	o->log_path = o->argc ? o->argv[0] : "rtrace.data";
	return export_format(o);
}

/* Which --format each view can print. */
static int check_format(const struct rt_opts *o)
{
	static const char *const views[] = { "the table", "--graph", "tree",
					     "replay" };
	static const char *const names[] = { RT_FORMAT_NAMES };
	bool ok;

	switch (o->view) {
	case RT_VIEW_TABLE: ok = o->format <= RT_FMT_CSV; break;
	case RT_VIEW_REPLAY: ok = o->format == RT_FMT_TEXT; break;
	default: ok = o->format <= RT_FMT_JSON; break;
	}
	if (ok)
		return 0;
	fprintf(stderr, "rtrace: %s cannot be printed as %s%s (see rtrace "
		"--help)\n", views[o->view], names[o->format],
		o->format >= RT_FMT_CHROME ? ": that is rtrace export's, or "
					     "--export FMT:FILE" : "");
	return -EINVAL;
}

int rt_viewopts_check(struct rt_opts *o)
{
	if (o->until_ns && o->until_ns <= o->since_ns)
		return bad("%s", "--until must come after --since");
	if (o->cmd == RT_CMD_EXPORT)
		return check_export_cmd(o);
	if (o->cmd == RT_CMD_RECORD && o->view != RT_VIEW_TABLE)
		return bad("%s", "record prints no report: --tree, --replay and "
			   "--graph go with a live run or rtrace report");
	return check_format(o);
}
