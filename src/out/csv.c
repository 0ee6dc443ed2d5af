// SPDX-License-Identifier: GPL-2.0-or-later
/* The report as CSV: a header line, then one line per row. */
#include <errno.h>

#include "rtrace/marks.h"
#include "rtrace/output.h"

static int csv_write(FILE *out, const struct rt_report *rep,
		     const struct rt_opts *o)
{
	bool keyed = rep->by != RT_BY_NONE;

	fputs(keyed ? "key,key_name," : "", out);
	fputs("name,calls,total_ns,self_ns,avg_ns,min_ns,max_ns,unwound,"
	      "instances,total_pct,self_pct,marks\n", out);
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rt_report_row *r = &rep->rows[i];
		char m[RT_MARKS + 1];

		if (keyed) {
			fprintf(out, "%u,", rep->by == RT_BY_TEST ? r->key : r->id);
			rt_csv_field(out, r->key_name);
			fputc(',', out);
		}
		rt_csv_field(out, r->name);
		fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%u,%.2f,%.2f,"
			"%s\n",
			(unsigned long long)r->st.calls,
			(unsigned long long)r->st.total,
			(unsigned long long)r->st.self,
			(unsigned long long)(rt_fstats_timed(&r->st) ?
					     r->st.sum_incl /
						     rt_fstats_timed(&r->st) :
					     0),
			(unsigned long long)(rt_fstats_timed(&r->st) ?
					     r->st.min : 0),
			(unsigned long long)r->st.max,
			(unsigned long long)r->st.unwound, r->instances,
			rt_report_pct(rep, r->st.total),
			rt_report_pct(rep, r->st.self),
			rt_marks_letters(rt_row_marks(rep, r), m));
	}
	return ferror(out) ? -EIO : 0;
}

const struct rt_output_ops rt_output_csv = {
	.name = "csv",
	.write = csv_write,
};
