// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * From a log to report rows.  Under legacy mangling every instance of a
 * generic function demangles to the same name, and a binary may hold the
 * same function twice; people ask about names, so rows are merged by
 * (key, name) unless --instances asks for one row per function.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "report"
#define PR_DOMAIN RT_DOM_ANALYSIS
#include "rtrace/evlog.h"
#include "rtrace/log.h"
#include "rtrace/match.h"
#include "rtrace/profsave.h"
#include "rtrace/refusal.h"
#include "rtrace/report.h"
#include "rtrace/util.h"

void rt_report_add_stats(struct rt_fstats *into, const struct rt_fstats *st)
{
	into->calls += st->calls;
	into->total += st->total;
	into->self += st->self;
	into->blocked += st->blocked;
	into->taken += st->taken;
	into->sum_incl += st->sum_incl;
	into->min = MIN(into->min, st->min);
	into->max = MAX(into->max, st->max);
	into->unwound += st->unwound;
	into->incomplete += st->incomplete;
	into->partial += st->partial;
	into->inlined += st->inlined;
	into->untimed += st->untimed;
}

void rt_report_add_inlined(struct rt_report_row *into,
			   const struct rt_report_row *r, bool sum)
{
	if (!into->inlined_why)
		into->inlined_why = r->inlined_why;
	if (sum) {
		into->inlined_sites += r->inlined_sites;
		into->inlined_refused += r->inlined_refused;
		into->inlined_packed += r->inlined_packed;
		into->lost += r->lost;
		return;
	}
	into->lost = MAX(into->lost, r->lost);
	into->inlined_sites = MAX(into->inlined_sites, r->inlined_sites);
	into->inlined_refused = MAX(into->inlined_refused, r->inlined_refused);
	into->inlined_packed = MAX(into->inlined_packed, r->inlined_packed);
}

static int cmp_merge(const void *a, const void *b, void *arg)
{
	const struct rt_report_row *x = a, *y = b;
	bool by_name = *(const bool *)arg;
	int c;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	c = by_name ? strcmp(x->name, y->name) : 0;
	if (c)
		return c;
	return x->fn->id < y->fn->id ? -1 : x->fn->id > y->fn->id;
}

static bool same_row(const struct rt_report_row *a,
		     const struct rt_report_row *b, bool by_name)
{
	if (a->key != b->key)
		return false;
	return by_name ? strcmp(a->name, b->name) == 0 : a->fn == b->fn;
}

/* Sorts rows by key and folds those of one function (or, @by_name, of one
 * name: the instances of a generic) into one. */
static size_t merge_rows(struct rt_report_row *rows, size_t n, bool by_name)
{
	size_t out = 0;

	qsort_r(rows, n, sizeof(*rows), cmp_merge, &by_name);
	for (size_t i = 0; i < n; i++) {
		struct rt_report_row *prev = out ? &rows[out - 1] : NULL;

		if (prev && same_row(prev, &rows[i], by_name)) {
			/* a function's rows of several threads have its
			 * instances once; several functions of one name
			 * (a generic's copies) add theirs up */
			rt_report_add_stats(&prev->st, &rows[i].st);
			prev->instances += prev->fn != rows[i].fn;
			rt_report_add_inlined(prev, &rows[i],
					      prev->fn != rows[i].fn);
			continue;
		}
		rows[out++] = rows[i];
	}
	return out;
}

/* --instances: the rows that share their name with another of their
 * group (closures, duplicate symbols) say where they are. */
static void mark_ambiguous(struct rt_report_row *rows, size_t n)
{
	bool by_name = true;

	qsort_r(rows, n, sizeof(*rows), cmp_merge, &by_name);
	for (size_t i = 1; i < n; i++)
		if (same_row(&rows[i - 1], &rows[i], true))
			rows[i - 1].ambiguous = rows[i].ambiguous = true;
}

static uint64_t sort_value(const struct rt_report_row *r, enum rt_sort key)
{
	switch (key) {
	case RT_SORT_TOTAL: return r->st.total;
	case RT_SORT_CALLS: return r->st.calls;
	case RT_SORT_AVG:
		return rt_fstats_avg(&r->st);
	case RT_SORT_MAX: return r->st.max;
	default: return r->st.self;
	}
}

static int cmp_sort(const void *a, const void *b, void *arg)
{
	const struct rt_report_row *x = a, *y = b;
	enum rt_sort key = *(const enum rt_sort *)arg;
	uint64_t vx, vy;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (key == RT_SORT_NAME)
		return strcmp(x->name, y->name);
	vx = sort_value(x, key);
	vy = sort_value(y, key);
	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The test a thread worked for: its own when libtest named it after one,
 * else that of the thread that created it. */
static const struct rt_thread_info *test_thread(const struct rt_report *rep,
						uint32_t seq)
{
	for (int hops = 0; seq && hops < 1000; hops++) {
		const struct rt_thread_info *ti = &rep->sum.thread_info[seq - 1];

		if (ti->flags & RT_THREAD_TEST)
			return ti;
		seq = ti->creator;
	}
	return NULL;
}

uint32_t rt_report_test_key(struct rt_report *rep, const char *name)
{
	for (size_t i = 0; i < rep->ntests; i++)
		if (strcmp(rep->tests[i], name) == 0)
			return i + 1;
	rep->tests = xrealloc(rep->tests, (rep->ntests + 1) *
						  sizeof(*rep->tests));
	rep->tests[rep->ntests++] = name;
	return rep->ntests;
}

/* Gives a row of thread @seq its group under --by. */
static void set_group(struct rt_report *rep, struct rt_evlog_reader *r,
		      struct rt_report_row *row, uint32_t seq)
{
	const struct rt_thread_info *ti = seq ? &rep->sum.thread_info[seq - 1]
					      : NULL;

	switch (rep->by) {
	case RT_BY_THREAD:
		row->key = seq;
		row->id = ti ? ti->tid : 0;
		row->key_name = ti ? ti->name : NULL;
		break;
	case RT_BY_PROCESS:
		row->key = row->id = ti ? ti->pid : 0;
		row->key_name = rt_evlog_process_exe(r, row->id);
		if (row->key_name && !*row->key_name)
			row->key_name = NULL;
		break;
	case RT_BY_TEST:
		ti = test_thread(rep, seq);
		row->key = ti ? rt_report_test_key(rep, ti->name) : 0;
		row->key_name = ti ? ti->name : "(no test)";
		break;
	default:
		break;
	}
}

/* --min-total, and -f when the report reads a log (in a live run, -f
 * chose what was traced: every row matches it). */
static bool keep_row(const struct rt_report_row *row, const struct rt_opts *o)
{
	bool named = o->cmd != RT_CMD_RUN && o->include.n;

	if (row->st.total < o->min_total_ns)
		return false;
	for (size_t i = 0; named && i < o->include.n; i++)
		if (rt_glob_match(o->include.v[i], row->name, row->fn->raw))
			return true;
	return !named;
}

static size_t filter_rows(struct rt_report_row *rows, size_t n,
			  const struct rt_opts *o)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (keep_row(&rows[i], o))
			rows[k++] = rows[i];
	return k;
}

static bool was_called(const struct rt_profile *prof, uint32_t id);

/* A function whose every event was lost has a row too, of no call:
 * marked, its count a lower bound, rather than listed as never called.
 * @k rows are made; returns how many then. */
static size_t add_lost_rows(struct rt_report *rep, struct rt_evlog_reader *r,
			    const struct rt_profile *prof, size_t k)
{
	size_t n = rt_evlog_nfuncs(r);
	size_t cap = rt_profile_nrows(prof) + 1;

	for (size_t i = 0; i < n; i++) {
		const struct rt_log_func *fn = rt_evlog_func(r, i);

		if (!fn || !fn->lost || was_called(prof, fn->id))
			continue;
		if (k + 1 >= cap) {
			cap = 2 * cap + 8;
			rep->rows = xrealloc(rep->rows, cap * sizeof(*rep->rows));
		}
		rep->rows[k++] = (struct rt_report_row){
			.name = fn->name, .fn = fn, .instances = 1,
			.lost = fn->lost, .st.min = UINT64_MAX,
		};
	}
	return k;
}

static void build_rows(struct rt_report *rep, struct rt_evlog_reader *r,
		       const struct rt_profile *prof, const struct rt_opts *o)
{
	size_t n = rt_profile_nrows(prof), k = 0;

	rep->rows = xcalloc(n + 1, sizeof(*rep->rows));
	for (size_t i = 0; i < n; i++) {
		const struct rt_profile_row *pr = rt_profile_row(prof, i);
		const struct rt_log_func *fn = rt_evlog_func(r, pr->func);

		/* the allocator's rows are the memory report's */
		if (!fn || (fn->flags & (RT_FUNC_MEM_ALLOC | RT_FUNC_MEM_FREE |
					 RT_FUNC_MEM_REALLOC)))
			continue;
		rep->rows[k] = (struct rt_report_row){
			.name = fn->name, .fn = fn, .instances = 1,
			.inlined_sites = fn->inlined_sites,
			.inlined_refused = fn->inlined_refused,
			.inlined_why = fn->inlined_why,
			.inlined_packed = fn->inlined_packed,
			.lost = fn->lost,
			.st = pr->st,
		};
		set_group(rep, r, &rep->rows[k++], pr->key);
	}
	k = add_lost_rows(rep, r, prof, k);
	k = merge_rows(rep->rows, k, false);
	if (!o->instances)
		k = merge_rows(rep->rows, k, true);
	else
		mark_ambiguous(rep->rows, k);
	rep->nrows_all = filter_rows(rep->rows, k, o);
	rt_report_sort(rep, o);
}

void rt_report_sort(struct rt_report *rep, const struct rt_opts *o)
{
	size_t k = rep->nrows_all;

	qsort_r(rep->rows, k, sizeof(*rep->rows), cmp_sort, (void *)&o->sort);
	rep->nrows = o->limit > 0 && (size_t)o->limit < k ? (size_t)o->limit : k;
}

static bool was_called(const struct rt_profile *prof, uint32_t id)
{
	for (size_t i = 0; i < rt_profile_nrows(prof); i++)
		if (rt_profile_row(prof, i)->func == id)
			return true;
	return false;
}

/* The inline engine's sites: how many were patched, and the functions
 * that kept a breakpoint somewhere. */
static void count_sites(struct rt_report *rep, const struct rt_log_func *fn)
{
	rep->sites += fn->sites;
	rep->inline_sites += fn->inline_sites;
	if (fn->inline_sites < fn->sites)
		rep->trapped[rep->ntrapped++] = (struct rt_report_trapped){
			fn->name, fn->sites, fn->inline_sites };
}

static int cmp_stopped(const void *a, const void *b)
{
	uint64_t x = ((const struct rt_report_stopped *)a)->stops;
	uint64_t y = ((const struct rt_report_stopped *)b)->stops;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* With the inline engine: the functions whose breakpoints stopped the
 * program, most stops first. */
static void collect_stopped(struct rt_report *rep, struct rt_evlog_reader *r)
{
	size_t n = rt_evlog_nfuncs(r);

	rep->stopped = xcalloc(n + 1, sizeof(*rep->stopped));
	for (size_t i = 0; rep->inline_sites && i < n; i++) {
		const struct rt_log_func *fn = rt_evlog_func(r, i);

		if (fn && fn->id < rep->sum.nfunc_stops &&
		    rep->sum.func_stops[fn->id])
			rep->stopped[rep->nstopped++] =
				(struct rt_report_stopped){
					fn->name, rep->sum.func_stops[fn->id] };
	}
	qsort(rep->stopped, rep->nstopped, sizeof(*rep->stopped),
	      cmp_stopped);
}

/* The selected functions that could not be probed, and those probed that
 * were never called. */
static void collect_unused(struct rt_report *rep, struct rt_evlog_reader *r,
			   const struct rt_profile *prof)
{
	size_t n = rt_evlog_nfuncs(r);

	rep->refused = xcalloc(n + 1, sizeof(*rep->refused));
	rep->uncalled = xcalloc(n + 1, sizeof(*rep->uncalled));
	rep->trapped = xcalloc(n + 1, sizeof(*rep->trapped));
	for (size_t i = 0; i < n; i++) {
		const struct rt_log_func *fn = rt_evlog_func(r, i);

		if (!fn || (fn->flags & RT_FUNC_HELPER))
			continue;
		count_sites(rep, fn);
		if (!fn->refusal) {
			rep->nfuncs_probed++;
			if (!was_called(prof, fn->id) && !fn->lost)
				rep->uncalled[rep->nuncalled++] = fn->name;
			continue;
		}
		rep->refused[rep->nrefused++] = (struct rt_report_refused){
			fn->name, rt_refusal_str(fn->refusal),
		};
	}
}

/* The rows and the summary the log's profile block holds in place of
 * those of its events (which, if any, are a recent window only), unless
 * --window asks for the window's. */
static int saved_profile(struct rt_evlog_reader *r, const struct rt_opts *o,
			 const char *log_path, struct rt_report *rep,
			 struct rt_profile **prof)
{
	size_t n;
	const uint8_t *b = rt_evlog_profile(r, &n);
	struct rt_analysis_summary sum;
	struct rt_profile *saved;
	bool raw;
	int err;

	if (!b)
		return 0;
	if (o->window_table) {
		if (rt_evlog_window(r))
			return 0;  /* its events' table is the one asked */
		pr_err("%s keeps no events (recorded with --keep=none): "
		       "--window has none to show; report without it",
		       log_path);
		return -EINVAL;
	}
	err = rt_profsave_decode(b, n, log_path, &sum, &saved, &raw);
	if (err)
		return err;
	if (raw != o->raw_times) {
		pr_err("%s holds a profile made %s --raw-times: its times "
		       "cannot be made again %s it", log_path,
		       raw ? "with" : "without", raw ? "without" : "with");
		rt_analysis_summary_release(&sum);
		rt_profile_free(saved);
		return -EINVAL;
	}
	rt_analysis_summary_release(&rep->sum);
	rep->sum = sum;
	rt_profile_free(*prof);
	*prof = saved;
	return 0;
}

int rt_report_build(struct rt_evlog_reader *r, const struct rt_opts *o,
		    const char *log_path, struct rt_report **out)
{
	struct rt_analysis_opts aopts = { .raw_times = o->raw_times,
					  .stop_cost_ns = -1 };
	struct rt_report *rep = xcalloc(1, sizeof(*rep));
	/* split by thread: every other grouping is made from it afterwards */
	struct rt_profile *prof = rt_profile_new(RT_SPLIT_THREAD);
	struct rt_sink sink = rt_profile_sink(prof);
	int err = rt_analyse(r, &aopts, &sink, 1, &rep->sum);

	if (!err)
		err = saved_profile(r, o, log_path, rep, &prof);
	if (err) {
		/* the summary is filled up to the malformed block */
		rt_analysis_summary_release(&rep->sum);
		rt_profile_free(prof);
		free(rep);
		return err;
	}
	rep->log_path = log_path;
	rep->info = rt_evlog_info(r);
	rep->end = rt_evlog_end(r);
	rep->window = rt_evlog_window(r);
	rep->losses = rt_evlog_losses(r);
	rep->cut = rt_evlog_cut(r) || !rep->end;
	rep->by = o->by;
	if (rep->by == RT_BY_AUTO)
		rep->by = rep->sum.processes > 1 ? RT_BY_PROCESS : RT_BY_NONE;
	rep->mode = rep->info->flags & RT_LOG_COVERAGE ? RT_REPORT_COVERAGE :
		    rep->info->flags & RT_LOG_COUNT_ONLY ? RT_REPORT_COUNT :
							   RT_REPORT_TIMES;
	build_rows(rep, r, prof, o);
	collect_unused(rep, r, prof);
	collect_stopped(rep, r);
	rt_profile_free(prof);
	*out = rep;
	return 0;
}

void rt_report_free(struct rt_report *rep)
{
	if (!rep)
		return;
	free(rep->rows);
	free(rep->refused);
	free(rep->trapped);
	free(rep->stopped);
	free(rep->uncalled);
	free(rep->tests);
	rt_analysis_summary_release(&rep->sum);
	free(rep);
}
