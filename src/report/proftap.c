// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The profile made from a log writer's tap.  The blocks the writer hands
 * over feed a stream reader; the report's own analysis pass and profile
 * sink turn them into rows as they come, so that a log with no events
 * still gives the report a full log would.
 */
#include <errno.h>
#include <stdlib.h>

#define PR_FMT "profile"
#define PR_DOMAIN RT_DOM_ANALYSIS
#include "rtrace/blockq.h"
#include "rtrace/log.h"
#include "rtrace/profsave.h"
#include "rtrace/util.h"

struct rt_proftap {
	char *name;
	struct rt_analysis_opts opts;
	struct rt_evlog_reader *r;	/* opened on the first blocks */
	struct rt_analysis_pass *pass;
	struct rt_profile *prof;	/* split by thread, as a report's */
	struct rt_sink sink;
	int err;			/* the first error, sticky */
	struct rt_blockq *q;		/* to the analysis thread */
};

/* How far the analysis may fall behind before the writer waits for it:
 * some 3 M events of packed blocks, a tenth of a second of analysis. */
#define BEHIND_MAX (16u << 20)

/* The analysis thread's work: one or more whole blocks. */
static void analyse(void *ctx, const uint8_t *bytes, size_t n)
{
	struct rt_proftap *t = ctx;

	rt_fault("analysed");
	if (t->err)
		return;
	if (!t->r) {
		/* the writer's first blocks start with the file header */
		t->err = rt_evlog_open_stream(bytes, n, t->name, &t->r);
		if (t->err)
			return;
		t->pass = rt_analysis_pass_new(t->r, &t->opts, &t->sink, 1);
	} else {
		rt_evlog_feed(t->r, bytes, n);
	}
	t->err = rt_analysis_pass_run(t->pass);
}

struct rt_proftap *rt_proftap_new(const char *name,
				  const struct rt_analysis_opts *opts)
{
	struct rt_proftap *t = xcalloc(1, sizeof(*t));

	t->name = xstrdup(name);
	t->opts = opts ? *opts
		       : (struct rt_analysis_opts){ .stop_cost_ns = -1 };
	t->prof = rt_profile_new(RT_SPLIT_THREAD);
	t->sink = rt_profile_sink(t->prof);
	t->q = rt_blockq_new(analyse, t, BEHIND_MAX);
	return t;
}

void rt_proftap_blocks(void *ctx, const uint8_t *bytes, size_t n)
{
	struct rt_proftap *t = ctx;

	rt_blockq_put(t->q, bytes, n);
}

void rt_proftap_hold(struct rt_proftap *t)
{
	if (t)
		rt_blockq_hold(t->q);
}

void rt_proftap_release(struct rt_proftap *t)
{
	if (t)
		rt_blockq_release(t->q);
}

int rt_proftap_finish(struct rt_proftap *t, const struct rt_log_end *end,
		      uint8_t **out, size_t *n)
{
	struct rt_analysis_summary sum = { 0 };
	int err;

	/* every block analysed, and no other thread left to touch @t */
	rt_blockq_end(t->q);
	t->q = NULL;
	err = t->err;
	*out = NULL;
	*n = 0;
	if (!t->pass)
		return err ? err : -ENODATA;
	err = rt_analysis_pass_finish(t->pass, end, &sum);
	t->pass = NULL;
	/* the thread names in @sum are the reader's: encoded before it
	 * goes */
	if (!err)
		rt_profsave_encode(&sum, t->prof, t->opts.raw_times, out, n);
	rt_analysis_summary_release(&sum);
	return err;
}

void rt_proftap_free(struct rt_proftap *t)
{
	if (!t)
		return;
	rt_blockq_end(t->q);
	if (t->pass)
		rt_analysis_pass_finish(t->pass, NULL, NULL);
	rt_evlog_reader_free(t->r);
	rt_profile_free(t->prof);
	free(t->name);
	free(t);
}
