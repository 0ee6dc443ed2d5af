/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report: one pass of the analysis over a log, turned into the rows a
 * person reads — per function (monomorphizations and duplicate symbols
 * merged by name unless asked not to), optionally per thread or process,
 * sorted and cut to size.  Formatters (output.h) print it.
 */
#ifndef RTRACE_REPORT_H
#define RTRACE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "rtrace/analysis.h"
#include "rtrace/evlog.h"
#include "rtrace/opts.h"
#include "rtrace/profile.h"

struct rt_report_row {
	const char *name;          /* function name (owned by the reader) */
	const struct rt_log_func *fn;  /* first instance */
	uint32_t key;              /* its group under --by (order), else 0 */
	uint32_t id;               /* tid or pid with --by thread/process */
	const char *key_name;      /* thread name, process exe or test name,
				    * or NULL */
	unsigned instances;        /* functions merged into this row */
	unsigned inlined_sites;    /* their inlined instances probed */
	unsigned inlined_refused;  /* and those not probed: calls missed */
	unsigned inlined_why;      /* enum rt_refusal most of those had */
	unsigned inlined_packed;   /* probed ones that are vectorised */
	uint64_t lost;             /* its events the program did not record
				    * (rt_log_func.lost): a lower bound */
	bool ambiguous;            /* --instances: another row has its name;
				    * fn says where this one is */
	struct rt_fstats st;
};

struct rt_report_refused {
	const char *name;
	const char *reason;        /* static string */
};

/* A function some of whose sites kept a breakpoint (inline engine). */
struct rt_report_trapped {
	const char *name;
	unsigned sites, inline_sites;
};

/* A function whose breakpoints stopped the program, and how often. */
struct rt_report_stopped {
	const char *name;
	uint64_t stops;            /* probe events recorded at a stop */
};

enum rt_report_mode {
	RT_REPORT_TIMES,      /* entries and exits: counts and times */
	RT_REPORT_COUNT,      /* --count: entries only */
	RT_REPORT_COVERAGE,   /* --coverage: first entries only */
};

struct rt_report {
	const char *log_path;
	enum rt_report_mode mode;
	const struct rt_log_info *info;
	const struct rt_log_end *end;   /* NULL when the log is cut short */
	bool cut;                       /* the file ends inside a block */
	const struct rt_log_window *window;  /* a flight recorder's, or
					      * NULL */
	const struct rt_log_losses *losses;  /* events not recorded, or
					      * NULL: none said */
	struct rt_analysis_summary sum;
	enum rt_by by;                  /* never RT_BY_AUTO */
	size_t nrows;                   /* after --limit */
	size_t nrows_all;               /* before --limit */
	struct rt_report_row *rows;
	size_t nrefused;
	struct rt_report_refused *refused;
	size_t nfuncs_probed;           /* functions in the tables */
	uint64_t sites, inline_sites;   /* probe sites, patched ones */
	struct rt_report_trapped *trapped;  /* when some were patched */
	size_t ntrapped;
	struct rt_report_stopped *stopped;  /* when some were patched: most
					     * stops first */
	size_t nstopped;
	const char **uncalled;          /* probed, never called (names) */
	size_t nuncalled;
	const char **tests;             /* names of the --by test groups */
	size_t ntests;
};

/* Analyses the log of @r with the report options of @o.  Returns 0 or
 * -errno (logged).  The report borrows strings from @r: free it with
 * rt_report_free() before the reader. */
int rt_report_build(struct rt_evlog_reader *r, const struct rt_opts *o,
		    const char *log_path, struct rt_report **out);

/* Orders the nrows_all rows of @rep by o->sort (groups first) and sets
 * nrows to o->limit of them. */
void rt_report_sort(struct rt_report *rep, const struct rt_opts *o);

/* Adds the figures of @st to @into: counts and times add up, min and max
 * stay extremes. */
void rt_report_add_stats(struct rt_fstats *into, const struct rt_fstats *st);

/* The key (index + 1) of test @name in @rep's list of tests, added when
 * new: the list holds @name itself, which the caller keeps alive. */
uint32_t rt_report_test_key(struct rt_report *rep, const char *name);

/* Folds the inlined instances and the lost events of row @r into @into:
 * summed when @sum (two functions of one name, each its own instances),
 * else the larger of each (one function in several logs).  The refusal
 * kept is @into's unless it has none. */
void rt_report_add_inlined(struct rt_report_row *into,
			   const struct rt_report_row *r, bool sum);

/* Frees a report; accepts NULL. */
void rt_report_free(struct rt_report *rep);

#endif
