// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Two runs compared (diff.h).
 *
 * Each log gets its own report, whole and by function name (no groups,
 * no limit); the two lists of rows are sorted by name and walked side by
 * side.  A change is new minus old; the relative change is taken on the
 * old figure, and is "new" when the old one was zero.  When either run
 * holds no times (--count, --coverage), only calls are compared, and the
 * output says so.  A function whose calls in a run have no time (calls the
 * compiler inlined, their end not probed) has an unknown time there, not
 * zero: shown as "-" (null in JSON, empty in CSV), and no change is
 * computed from it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "diff"
#define PR_DOMAIN RT_DOM_ANALYSIS
#include "rtrace/diff.h"
#include "rtrace/evlog.h"
#include "rtrace/exit.h"
#include "rtrace/log.h"
#include "rtrace/marks.h"
#include "rtrace/output.h"
#include "rtrace/render.h"
#include "rtrace/report.h"
#include "rtrace/util.h"

struct side {
	const char *path;
	struct rt_evlog_reader *reader;
	struct rt_report *rep;
	const struct rt_report_row **rows;   /* by name */
};

/* One function: its figures in either run (NULL: not called there). */
struct pair {
	const char *name;
	const struct rt_fstats *old, *new;
	bool old_low, new_low;    /* that run's count is a lower bound */
};

static const struct rt_fstats none;

int rt_diff_check(const struct rt_opts *o)
{
	const char *what = o->view != RT_VIEW_TABLE ? "a view" :
			   o->mem ? "--mem" : o->show_stacks ? "--stacks" :
			   o->by != RT_BY_AUTO && o->by != RT_BY_NONE ? "--by" :
			   o->instances ? "--instances" :
			   o->sort == RT_SORT_AVG || o->sort == RT_SORT_MAX ||
				   o->sort == RT_SORT_BYTES ||
				   o->sort == RT_SORT_ALLOCS ||
				   o->sort == RT_SORT_LIVE ? "this --sort" : NULL;

	if (o->argc != 2) {
		fprintf(stderr, "rtrace: diff compares two logs: rtrace diff "
			"OLD NEW (see rtrace --help)\n");
		return -EINVAL;
	}
	if (!what)
		return 0;
	fprintf(stderr, "rtrace: diff compares the tables of two runs by "
		"function name: %s does not apply (--sort self, total, calls "
		"or name; see rtrace --help)\n", what);
	return -EINVAL;
}

static int cmp_row_name(const void *a, const void *b)
{
	const struct rt_report_row *x = *(const struct rt_report_row *const *)a;
	const struct rt_report_row *y = *(const struct rt_report_row *const *)b;

	return strcmp(x->name, y->name);
}

static int open_side(struct side *s, const char *path,
		     const struct rt_opts *o)
{
	struct rt_opts sub = *o;

	sub.limit = 0;
	sub.min_total_ns = 0;
	sub.by = RT_BY_NONE;
	sub.sort = RT_SORT_NAME;
	s->path = path;
	if (rt_evlog_open(path, &s->reader))
		return -EINVAL;
	if (rt_report_build(s->reader, &sub, path, &s->rep))
		return -EINVAL;
	s->rows = xcalloc(s->rep->nrows_all + 1, sizeof(*s->rows));
	for (size_t i = 0; i < s->rep->nrows_all; i++)
		s->rows[i] = &s->rep->rows[i];
	qsort(s->rows, s->rep->nrows_all, sizeof(*s->rows), cmp_row_name);
	return 0;
}

static void close_side(struct side *s)
{
	free(s->rows);
	rt_report_free(s->rep);
	rt_evlog_reader_free(s->reader);
}

/* Whether @row's count is a lower bound in @rep (marks P, V, L). */
static bool lower_bound(const struct rt_report *rep,
			const struct rt_report_row *row)
{
	return rt_row_marks(rep, row) &
	       (RT_MARK_PARTIAL | RT_MARK_VECTOR | RT_MARK_LOST);
}

/* The two sorted lists walked side by side. */
static size_t join(const struct side *a, const struct side *b,
		   struct pair **out)
{
	size_t i = 0, j = 0, n = 0, na = a->rep->nrows_all,
	       nb = b->rep->nrows_all;
	struct pair *v = xcalloc(na + nb + 1, sizeof(*v));

	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 :
			strcmp(a->rows[i]->name, b->rows[j]->name);

		v[n].name = c <= 0 ? a->rows[i]->name : b->rows[j]->name;
		if (c <= 0) {
			v[n].old_low = lower_bound(a->rep, a->rows[i]);
			v[n].old = &a->rows[i++]->st;
		}
		if (c >= 0) {
			v[n].new_low = lower_bound(b->rep, b->rows[j]);
			v[n].new = &b->rows[j++]->st;
		}
		n++;
	}
	*out = v;
	return n;
}

static const struct rt_fstats *or_none(const struct rt_fstats *st)
{
	return st ? st : &none;
}

/* Whether a side's times are known: not called there (no time at all),
 * or some call of it timed (the calls the compiler inlined may have none:
 * their time is unknown, not zero). */
static bool known(const struct rt_fstats *st)
{
	return !st || rt_fstats_timed(st);
}

/* Whether the change of the times can be computed. */
static bool both_known(const struct pair *p)
{
	return known(p->old) && known(p->new);
}

static int64_t change(const struct pair *p, enum rt_sort key)
{
	const struct rt_fstats *a = or_none(p->old), *b = or_none(p->new);

	switch (key) {
	case RT_SORT_TOTAL:
		return both_known(p) ? (int64_t)(b->total - a->total) : 0;
	case RT_SORT_CALLS:
		return (int64_t)(b->calls - a->calls);
	default:
		return both_known(p) ? (int64_t)(b->self - a->self) : 0;
	}
}

static enum rt_sort sort_key;

static int cmp_pairs(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	int64_t ca, cb;

	if (sort_key == RT_SORT_NAME)
		return strcmp(a->name, b->name);
	ca = llabs(change(a, sort_key));
	cb = llabs(change(b, sort_key));
	if (ca != cb)
		return ca > cb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* --min-total (on either side), the sort, --limit. */
static size_t cut_and_sort(struct pair *v, size_t n, const struct rt_opts *o,
			   bool timed)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (MAX(or_none(v[i].old)->total, or_none(v[i].new)->total) >=
		    o->min_total_ns)
			v[k++] = v[i];
	sort_key = timed || o->sort == RT_SORT_NAME ? o->sort : RT_SORT_CALLS;
	qsort(v, k, sizeof(*v), cmp_pairs);
	if (o->limit > 0 && (size_t)o->limit < k)
		k = (size_t)o->limit;
	return k;
}

static bool has_times(const struct rt_report *rep)
{
	return rep->mode == RT_REPORT_TIMES;
}

/* ---- text --------------------------------------------------------------- */

static const char *status_of(const struct pair *p)
{
	return !p->old ? " (new)" : !p->new ? " (gone)" : "";
}

/* What the row says of counts that are lower bounds (marks P, V, L in
 * the runs' reports). */
static const char *bounds_of(const struct pair *p)
{
	if (p->old_low && p->new_low)
		return " (both counts are lower bounds)";
	if (p->old_low)
		return " (the old count is a lower bound)";
	return p->new_low ? " (the new count is a lower bound)" : "";
}

/* "+12.5%", "-100%", "new", or "" when both are zero. */
static const char *relative(char *buf, size_t len, uint64_t a, uint64_t b)
{
	if (a == 0)
		snprintf(buf, len, "%s", b ? "new" : "");
	else
		snprintf(buf, len, "%+.1f%%",
			 ((double)b - (double)a) * 100.0 / (double)a);
	return buf;
}

/* A signed duration, right-aligned in @width columns ("µs" takes one
 * column but two bytes). */
static const char *signed_duration(char *buf, size_t len, int64_t d,
				   int width)
{
	char mag[32], sig[40];

	if (d == 0)
		return rt_fmt_duration_col(buf, len, 0, width);
	rt_fmt_duration(mag, sizeof(mag), (uint64_t)llabs(d));
	snprintf(sig, sizeof(sig), "%c%.30s", d < 0 ? '-' : '+', mag);
	snprintf(buf, len, "%*s", width + (strstr(sig, "µ") ? 1 : 0), sig);
	return buf;
}

static void text_header(FILE *out, const struct side *a,
			const struct side *b, bool timed)
{
	const struct side *s[2] = { a, b };

	fprintf(out, "# rtrace diff: %s -> %s\n", a->path, b->path);
	for (int i = 0; i < 2; i++) {
		char d[32], c[32];
		const struct rt_report *r = s[i]->rep;

		fprintf(out, "# %s: %s   duration: %s   calls: %s\n",
			i ? "new" : "old", r->info->cmdline,
			rt_fmt_duration(d, sizeof(d), r->sum.last_ts >
						r->info->start_ns ?
				r->sum.last_ts - r->info->start_ns : 0),
			rt_fmt_count(c, sizeof(c), r->sum.calls));
	}
	if (!timed)
		fprintf(out, "# times: not compared (a log was recorded with "
			"--count or --coverage): calls only\n");
	fprintf(out, "\n%12s %12s %9s  %11s %11s %12s %8s  %11s %12s  %s\n",
		"calls old", "calls new", "calls %", "self old", "self new",
		"self +/-", "self %", "total new", "total +/-", "function");
}

/* A side's time in @width columns, "-" when it is not known. */
static const char *time_col(char *buf, size_t len, const struct rt_fstats *st,
			    uint64_t ns, int width)
{
	if (known(st))
		return rt_fmt_duration_col(buf, len, ns, width);
	snprintf(buf, len, "%*s", width, "-");
	return buf;
}

/* The change of a time, "-" when either side's is not known. */
static const char *change_col(char *buf, size_t len, const struct pair *p,
			      uint64_t a, uint64_t b, int width)
{
	if (both_known(p))
		return signed_duration(buf, len, (int64_t)(b - a), width);
	snprintf(buf, len, "%*s", width, "-");
	return buf;
}

static void text_row(FILE *out, const struct pair *p, bool timed)
{
	const struct rt_fstats *a = or_none(p->old), *b = or_none(p->new);
	char ca[32], cb[32], rc[16], sa[32], sb[32], ds[64], rs[16], tb[32],
		dt[64];

	fprintf(out, "%12s %12s %9s",
		rt_fmt_count(ca, sizeof(ca), a->calls),
		rt_fmt_count(cb, sizeof(cb), b->calls),
		relative(rc, sizeof(rc), a->calls, b->calls));
	if (timed)
		fprintf(out, "  %s %s %s %8s  %s %s",
			time_col(sa, sizeof(sa), p->old, a->self, 11),
			time_col(sb, sizeof(sb), p->new, b->self, 11),
			change_col(ds, sizeof(ds), p, a->self, b->self, 12),
			both_known(p) ? relative(rs, sizeof(rs), a->self,
						 b->self) : "",
			time_col(tb, sizeof(tb), p->new, b->total, 11),
			change_col(dt, sizeof(dt), p, a->total, b->total, 12));
	else
		fprintf(out, "  %11s %11s %12s %8s  %11s %12s", "-", "-", "-",
			"", "-", "-");
	fprintf(out, "  %s%s%s\n", p->name, status_of(p), bounds_of(p));
}

static void write_text(FILE *out, const struct side *a, const struct side *b,
		       const struct pair *v, size_t n, bool timed)
{
	size_t added = 0, gone = 0;

	text_header(out, a, b, timed);
	for (size_t i = 0; i < n; i++) {
		text_row(out, &v[i], timed);
		added += !v[i].old;
		gone += !v[i].new;
	}
	fprintf(out, "\n%zu function%s compared; %zu called only in the new "
		"run (new), %zu only in the old one (gone).  +/-: new minus "
		"old.\n", n, rt_s(n), added, gone);
}

/* ---- json and csv ------------------------------------------------------- */

static void json_side(FILE *out, const char *key, const struct side *s)
{
	const struct rt_report *r = s->rep;

	fprintf(out, "  \"%s\": {\"log\": ", key);
	rt_json_string(out, s->path);
	fputs(", \"command\": ", out);
	rt_json_string(out, r->info->cmdline);
	fprintf(out, ", \"calls\": %" PRIu64 ", \"times\": %s},\n",
		r->sum.calls, has_times(r) ? "true" : "false");
}

static void json_stats(FILE *out, const char *key,
		       const struct rt_fstats *st, bool low)
{
	if (!st) {
		fprintf(out, "\"%s\": null", key);
		return;
	}
	fprintf(out, "\"%s\": {\"calls\": %" PRIu64 ", ", key, st->calls);
	/* only when so, as a report's marks */
	if (low)
		fputs("\"lower_bound\": true, ", out);
	if (known(st))
		fprintf(out, "\"total_ns\": %" PRIu64 ", \"self_ns\": %" PRIu64
			"}", st->total, st->self);
	else
		fputs("\"total_ns\": null, \"self_ns\": null}", out);
}

/* new minus old; the times null when either side's is not known */
static void json_change(FILE *out, const struct pair *p)
{
	const struct rt_fstats *x = or_none(p->old), *y = or_none(p->new);

	fprintf(out, ", \"change\": {\"calls\": %" PRId64 ", ",
		(int64_t)(y->calls - x->calls));
	if (both_known(p))
		fprintf(out, "\"total_ns\": %" PRId64 ", \"self_ns\": %" PRId64
			"}}", (int64_t)(y->total - x->total),
			(int64_t)(y->self - x->self));
	else
		fputs("\"total_ns\": null, \"self_ns\": null}}", out);
}

static void write_json(FILE *out, const struct side *a, const struct side *b,
		       const struct pair *v, size_t n, bool timed)
{
	fputs("{\n", out);
	json_side(out, "old", a);
	json_side(out, "new", b);
	fprintf(out, "  \"times_compared\": %s,\n  \"functions\": [",
		timed ? "true" : "false");
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", out);
		rt_json_string(out, v[i].name);
		fprintf(out, ", \"status\": \"%s\", ", !v[i].old ? "new" :
			!v[i].new ? "gone" : "both");
		json_stats(out, "old", v[i].old, v[i].old_low);
		fputs(", ", out);
		json_stats(out, "new", v[i].new, v[i].new_low);
		json_change(out, &v[i]);
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", out);
}

/* A side's time as a CSV field: empty when it is not known. */
static void csv_time(FILE *out, const struct rt_fstats *st, uint64_t ns)
{
	if (known(st))
		fprintf(out, ",%" PRIu64, ns);
	else
		fputc(',', out);
}

static void write_csv(FILE *out, const struct pair *v, size_t n)
{
	fputs("name,status,calls_old,calls_new,total_ns_old,total_ns_new,"
	      "self_ns_old,self_ns_new,lower_bound_old,lower_bound_new\n",
	      out);
	for (size_t i = 0; i < n; i++) {
		const struct rt_fstats *x = or_none(v[i].old),
				       *y = or_none(v[i].new);

		rt_csv_field(out, v[i].name);
		fprintf(out, ",%s,%" PRIu64 ",%" PRIu64, !v[i].old ? "new" :
			!v[i].new ? "gone" : "both", x->calls, y->calls);
		csv_time(out, v[i].old, x->total);
		csv_time(out, v[i].new, y->total);
		csv_time(out, v[i].old, x->self);
		csv_time(out, v[i].new, y->self);
		fprintf(out, ",%d,%d\n", v[i].old_low, v[i].new_low);
	}
}

static void write_out(FILE *out, const struct rt_opts *o,
		      const struct side *a, const struct side *b,
		      const struct pair *v, size_t n, bool timed)
{
	if (o->format == RT_FMT_JSON)
		write_json(out, a, b, v, n, timed);
	else if (o->format == RT_FMT_CSV)
		write_csv(out, v, n);
	else
		write_text(out, a, b, v, n, timed);
}

int rt_diff_main(const struct rt_opts *o, FILE *out)
{
	struct side a = { 0 }, b = { 0 };
	struct pair *v = NULL;
	int err = rt_diff_check(o);

	if (!err)
		err = open_side(&a, o->argv[0], o);
	if (!err)
		err = open_side(&b, o->argv[1], o);
	if (!err) {
		bool timed = has_times(a.rep) && has_times(b.rep);
		size_t n = join(&a, &b, &v);

		n = cut_and_sort(v, n, o, timed);

		write_out(out, o, &a, &b, v, n, timed);
	}
	free(v);
	if (a.reader)
		close_side(&a);
	if (b.reader)
		close_side(&b);
	return err ? RT_EXIT_USAGE : RT_EXIT_OK;
}
