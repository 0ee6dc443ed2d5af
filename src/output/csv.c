// SPDX-License-Identifier: GPL-2.0-or-later
/* The report as CSV: a header line, then one line per row. */
#include <errno.h>

#include "rtrace/marks.h"
#include "rtrace/output.h"
#include "rtrace/refusal.h"

/* Total, self, avg, min and max: over the timed calls, empty fields when
 * no call has a time. */
static void csv_times(FILE *out, const struct rt_fstats *st)
{
	if (!rt_fstats_timed(st)) {
		fputs(",,,,,", out);
		return;
	}
	fprintf(out, ",%llu,%llu,%llu,%llu,%llu", (unsigned long long)st->total,
		(unsigned long long)st->self,
		(unsigned long long)rt_fstats_avg(st),
		(unsigned long long)(rt_fstats_timed(st) ? st->min : 0),
		(unsigned long long)st->max);
}

/* The shares of the run: empty fields, like the times, when no call has
 * a time. */
static void csv_shares(FILE *out, const struct rt_report *rep,
		       const struct rt_fstats *st)
{
	if (!rt_fstats_timed(st))
		fputs(",,", out);
	else
		fprintf(out, ",%.2f,%.2f", rt_report_pct(rep, st->total),
			rt_report_pct(rep, st->self));
}

/* The blocked time and its share (columns added last, so that the
 * columns before them stay where they were); empty like the times. */
static void csv_blocked(FILE *out, const struct rt_fstats *st,
			const struct rt_report *rep)
{
	if (!rt_fstats_timed(st))
		fputs(",,\n", out);
	else
		fprintf(out, ",%llu,%.2f\n", (unsigned long long)st->blocked,
			rt_report_pct(rep, st->blocked));
}

/* The figures of a row with times. */
static void csv_timed_row(FILE *out, const struct rt_report *rep,
			  const struct rt_report_row *r)
{
	char m[RT_MARKS + 1];

	csv_times(out, &r->st);
	fprintf(out, ",%llu,%u,%llu,%u,%llu",
		(unsigned long long)r->st.unwound, r->instances,
		(unsigned long long)r->st.inlined, r->inlined_sites,
		(unsigned long long)rt_fstats_timed(&r->st));
	csv_shares(out, rep, &r->st);
	fprintf(out, ",%s,%u,%u", rt_marks_letters(rt_row_marks(rep, r), m),
		r->inlined_refused, r->inlined_packed);
	csv_blocked(out, &r->st, rep);
}

/* The figures of a row without times (--count, --coverage). */
static void csv_count_row(FILE *out, const struct rt_report *rep,
			  const struct rt_report_row *r)
{
	char m[RT_MARKS + 1];

	fprintf(out, ",%llu,%u,%u,%u,", (unsigned long long)r->st.inlined,
		r->inlined_sites, r->instances, r->inlined_refused);
	if (r->inlined_refused)
		rt_csv_field(out, rt_refusal_str(r->inlined_why));
	fprintf(out, ",%u,%s\n", r->inlined_packed,
		rt_marks_letters(rt_row_marks(rep, r), m));
}

static int csv_write(FILE *out, const struct rt_report *rep,
		     const struct rt_opts *o)
{
	bool keyed = rep->by != RT_BY_NONE;
	bool timed = rep->mode == RT_REPORT_TIMES;

	fputs(keyed ? "key,key_name," : "", out);
	/* counts alone (--count, --coverage): only what was recorded, the
	 * columns of the JSON rows */
	fputs(timed ? "name,calls,total_ns,self_ns,avg_ns,min_ns,max_ns,"
		      "unwound,instances,inlined_calls,inlined_sites,"
		      "timed_calls,total_pct,self_pct,marks,"
		      "inlined_sites_refused,inlined_sites_vectorised,"
		      "blocked_ns,blocked_pct\n" :
		      "name,calls,inlined_calls,inlined_sites,instances,"
		      "inlined_sites_refused,inlined_refused_reason,"
		      "inlined_sites_vectorised,marks\n",
	      out);
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rt_report_row *r = &rep->rows[i];

		if (keyed) {
			fprintf(out, "%u,", rep->by == RT_BY_TEST ? r->key : r->id);
			rt_csv_field(out, r->key_name);
			fputc(',', out);
		}
		rt_csv_field(out, r->name);
		fprintf(out, ",%llu", (unsigned long long)r->st.calls);
		if (timed)
			csv_timed_row(out, rep, r);
		else
			csv_count_row(out, rep, r);
	}
	return ferror(out) ? -EIO : 0;
}

const struct rt_output_ops rt_output_csv = {
	.name = "csv",
	.write = csv_write,
};
