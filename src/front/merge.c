// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report of several logs.  Each log gets its own report (its own stop
 * cost, its own threads and tests), built with no --limit and no
 * --min-total; their rows are then folded by name (and test), and the
 * result goes through the same formatters as one log's report.  The
 * header describes the set: the logs, their commands, the sum of their
 * durations, threads, events and calls, and the first ending that was
 * not a clean exit with status 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "merge"
#define PR_DOMAIN RT_DOM_ANALYSIS
#include "rtrace/evlog.h"
#include "rtrace/exit.h"
#include "rtrace/log.h"
#include "rtrace/marks.h"
#include "rtrace/merge.h"
#include "rtrace/output.h"
#include "rtrace/report.h"
#include "rtrace/util.h"

struct merged {
	size_t n;
	struct rt_evlog_reader **readers;
	struct rt_report **reps;
	struct rt_report out;      /* what the formatters print */
	struct rt_log_info info;   /* out.info */
	struct rt_log_end end;     /* out.end, unless a log is cut short */
	char *log_path, *cmdline;
};

int rt_merge_check(const struct rt_opts *o)
{
	const char *what = o->view == RT_VIEW_TREE ? "tree" :
			   o->view == RT_VIEW_REPLAY ? "replay" :
			   o->view == RT_VIEW_GRAPH ? "--graph" :
			   o->mem ? "--mem" : o->show_stacks ? "--stacks" :
			   o->by == RT_BY_THREAD ? "--by thread" :
			   o->by == RT_BY_PROCESS ? "--by process" : NULL;

	if (!what)
		return 0;
	fprintf(stderr, "rtrace: %s reads one log; only the table merges "
		"several (see rtrace --help)\n", what);
	return -EINVAL;
}

static void merged_free(struct merged *m)
{
	for (size_t i = 0; i < m->n; i++) {
		rt_report_free(m->reps[i]);
		rt_evlog_reader_free(m->readers[i]);
	}
	free(m->reps);
	free(m->readers);
	free(m->out.rows);
	free(m->out.refused);
	free(m->out.uncalled);
	free(m->out.tests);
	free(m->log_path);
	free(m->cmdline);
}

/* Every log's own report, whole: cutting and sorting come after. */
static int open_logs(struct merged *m, const struct rt_opts *o,
		     char *const *paths, size_t n)
{
	struct rt_opts sub = *o;

	sub.limit = 0;
	sub.min_total_ns = 0;
	/* groups that mean something across programs: tests, or none */
	sub.by = o->by == RT_BY_TEST ? RT_BY_TEST : RT_BY_NONE;
	m->readers = xcalloc(n, sizeof(*m->readers));
	m->reps = xcalloc(n, sizeof(*m->reps));
	for (m->n = 0; m->n < n; m->n++) {
		size_t i = m->n;

		if (rt_evlog_open(paths[i], &m->readers[i]))
			return -EINVAL;
		if (rt_report_build(m->readers[i], &sub, paths[i], &m->reps[i])) {
			rt_evlog_reader_free(m->readers[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* The mode every log can give: times only when all have them, counts
 * only when none holds first calls alone.  The enum runs from the most
 * to the least a log records. */
static enum rt_report_mode common_mode(const struct merged *m,
				       const char **weakest)
{
	enum rt_report_mode mode = RT_REPORT_TIMES;

	for (size_t i = 0; i < m->n; i++)
		if (m->reps[i]->mode > mode) {
			mode = m->reps[i]->mode;
			*weakest = m->reps[i]->log_path;
		}
	return mode;
}

/* A row of a log recorded with more than @mode, as @mode records it:
 * calls without times, or, for coverage, whether the function ran. */
static void lower_row(struct rt_fstats *st, enum rt_report_mode mode)
{
	uint64_t calls = st->calls, inlined = st->inlined;

	memset(st, 0, sizeof(*st));
	st->calls = mode == RT_REPORT_COVERAGE ? calls != 0 : calls;
	st->inlined = mode == RT_REPORT_COVERAGE ? 0 : inlined;
}

/* Logs recorded in different modes add up in the least of them; the
 * note says which log decided it and what was left out. */
static void lower_modes(struct merged *m)
{
	const char *weakest = NULL;
	bool mixed = false;

	m->out.mode = common_mode(m, &weakest);
	for (size_t i = 0; i < m->n; i++) {
		struct rt_report *r = m->reps[i];

		if (r->mode == m->out.mode)
			continue;
		mixed = true;
		for (size_t j = 0; j < r->nrows; j++)
			lower_row(&r->rows[j].st, m->out.mode);
	}
	if (mixed)
		pr_warn("%s was recorded with %s: the merged report gives %s",
			weakest, m->out.mode == RT_REPORT_COUNT ? "--count" :
			"--coverage", m->out.mode == RT_REPORT_COUNT ?
			"counts only, no times" :
			"which functions ran, no counts");
}

/* The log that says how the set ended: the first one that did not exit
 * with status 0, else the first. */
static const struct rt_report *telling_end(const struct merged *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct rt_log_end *e = m->reps[i]->end;

		if (!e || e->how != RT_END_EXITED || e->status != 0)
			return m->reps[i];
	}
	return m->reps[0];
}

static char *join(const struct merged *m, bool commands, const char *sep)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < m->n; i++)
		len += strlen(commands ? m->reps[i]->info->cmdline
				       : m->reps[i]->log_path) + strlen(sep);
	s = xcalloc(1, len);
	for (size_t i = 0; i < m->n; i++) {
		if (i)
			strcat(s, sep);
		strcat(s, commands ? m->reps[i]->info->cmdline
				   : m->reps[i]->log_path);
	}
	return s;
}

/* The header's figures: sums, the stop cost weighted by stops. */
static void merge_header(struct merged *m)
{
	struct rt_analysis_summary *sum = &m->out.sum;
	const struct rt_report *tell = telling_end(m);
	uint64_t wall = 0, cost_x_stops = 0, stops = 0;
	bool cut = false;

	for (size_t i = 0; i < m->n; i++) {
		const struct rt_report *r = m->reps[i];

		wall += rt_report_run_ns(r);
		sum->events += r->sum.events;
		sum->calls += r->sum.calls;
		sum->inlined_calls += r->sum.inlined_calls;
		sum->threads += r->sum.threads;
		sum->processes += r->sum.processes;
		sum->unwound += r->sum.unwound;
		sum->incomplete += r->sum.incomplete;
		sum->stops += r->sum.stops;
		sum->stop_events += r->sum.stop_events;
		sum->inline_cost_ns = MAX(sum->inline_cost_ns,
					  r->sum.inline_cost_ns);
		cost_x_stops += r->sum.stop_cost_ns * r->sum.stops;
		stops += r->sum.stops;
		cut |= r->cut || !r->end;
	}
	sum->stop_cost_ns = stops ? cost_x_stops / stops
				  : m->reps[0]->sum.stop_cost_ns;
	sum->last_ts = wall;
	m->log_path = join(m, false, " + ");
	m->cmdline = join(m, true, "; ");
	m->info = *m->reps[0]->info;
	m->info.start_ns = 0;
	m->info.cmdline = m->cmdline;
	if (tell->end) {
		m->end = *tell->end;
		m->end.end_ns = wall;
	}
	m->out.log_path = m->log_path;
	m->out.info = &m->info;
	m->out.end = cut ? NULL : &m->end;
	m->out.cut = cut;
}

static void collect_rows(struct merged *m)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < m->n; i++)
		total += m->reps[i]->nrows;
	m->out.rows = xcalloc(total + 1, sizeof(*m->out.rows));
	for (size_t i = 0; i < m->n; i++) {
		const struct rt_report *r = m->reps[i];

		for (size_t j = 0; j < r->nrows; j++) {
			struct rt_report_row row = r->rows[j];

			/* a test's key is its place in the merged list */
			if (m->out.by == RT_BY_TEST && row.key)
				row.key = rt_report_test_key(&m->out,
							     row.key_name);
			m->out.rows[k++] = row;
		}
	}
	m->out.nrows_all = k;
}

static int cmp_key_name(const void *a, const void *b)
{
	const struct rt_report_row *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* One row per (key, name).  Instances: the most any one log had (the
 * same function in two binaries is one function to the reader). */
static void fold_rows(struct rt_report *out)
{
	size_t k = 0;

	qsort(out->rows, out->nrows_all, sizeof(*out->rows), cmp_key_name);
	for (size_t i = 0; i < out->nrows_all; i++) {
		struct rt_report_row *prev = k ? &out->rows[k - 1] : NULL;
		const struct rt_report_row *row = &out->rows[i];

		if (prev && prev->key == row->key &&
		    strcmp(prev->name, row->name) == 0) {
			rt_report_add_stats(&prev->st, &row->st);
			prev->instances = MAX(prev->instances, row->instances);
			rt_report_add_inlined(prev, row, false);
			continue;
		}
		out->rows[k++] = *row;
	}
	out->nrows_all = k;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool has_row(const struct rt_report *out, const char *name)
{
	for (size_t i = 0; i < out->nrows_all; i++)
		if (strcmp(out->rows[i].name, name) == 0)
			return true;
	return false;
}

/* Functions not probed (any log), and those probed but called in none. */
static void merge_unused(struct merged *m)
{
	struct rt_report *out = &m->out;
	size_t nref = 0, nun = 0, k = 0;

	for (size_t i = 0; i < m->n; i++) {
		nref += m->reps[i]->nrefused;
		nun += m->reps[i]->nuncalled;
	}
	out->refused = xcalloc(nref + 1, sizeof(*out->refused));
	out->uncalled = xcalloc(nun + 1, sizeof(*out->uncalled));
	for (size_t i = 0; i < m->n; i++) {
		const struct rt_report *r = m->reps[i];

		for (size_t j = 0; j < r->nrefused; j++) {
			size_t d = 0;

			while (d < out->nrefused &&
			       strcmp(out->refused[d].name, r->refused[j].name))
				d++;
			if (d == out->nrefused)
				out->refused[out->nrefused++] = r->refused[j];
		}
		for (size_t j = 0; j < r->nuncalled; j++)
			if (!has_row(out, r->uncalled[j]))
				out->uncalled[out->nuncalled++] = r->uncalled[j];
	}
	qsort(out->uncalled, out->nuncalled, sizeof(char *), cmp_str);
	for (size_t i = 0; i < out->nuncalled; i++)
		if (!k || strcmp(out->uncalled[k - 1], out->uncalled[i]))
			out->uncalled[k++] = out->uncalled[i];
	out->nuncalled = k;
	/* under --by test a function has a row per test: count names */
	out->nfuncs_probed = k;
	for (size_t i = 0; i < out->nrows_all; i++) {
		size_t j = 0;

		while (j < i && strcmp(out->rows[j].name, out->rows[i].name))
			j++;
		out->nfuncs_probed += j == i;
	}
}

/* --min-total, then --sort and --limit as one log's report applies them. */
static void cut_and_sort(struct rt_report *out, const struct rt_opts *o)
{
	size_t k = 0;

	for (size_t i = 0; i < out->nrows_all; i++)
		if (out->rows[i].st.total >= o->min_total_ns)
			out->rows[k++] = out->rows[i];
	out->nrows_all = k;
	rt_report_sort(out, o);
}

int rt_merge_report(const struct rt_opts *o, char *const *paths, size_t n,
		    FILE *out)
{
	struct merged m = { 0 };
	int err;

	if (rt_merge_check(o))
		return RT_EXIT_USAGE;
	err = open_logs(&m, o, paths, n);
	if (!err) {
		m.out.by = o->by == RT_BY_TEST ? RT_BY_TEST : RT_BY_NONE;
		lower_modes(&m);
		merge_header(&m);
		collect_rows(&m);
		fold_rows(&m.out);
		merge_unused(&m);
		cut_and_sort(&m.out, o);
		err = rt_output_for(o->format)->write(out, &m.out, o);
		if (err)
			pr_err("cannot write the report: %s", strerror(-err));
	}
	merged_free(&m);
	return err ? RT_EXIT_USAGE : RT_EXIT_OK;
}
