// SPDX-License-Identifier: GPL-2.0-or-later
/* The report as one JSON object, for scripts. */
#include <errno.h>

#include "rtrace/marks.h"
#include "rtrace/output.h"
#include "rtrace/refusal.h"
#include "rtrace/waitstatus.h"

static const char *ending(const struct rt_report *rep)
{
	if (!rep->end)
		return "cut";
	switch (rep->end->how) {
	case RT_END_EXITED: return "exited";
	case RT_END_INTERRUPTED: return "interrupted";
	case RT_END_DETACHED: return "detached";
	case RT_END_RUNNING: return "running";
	default: return "failed";
	}
}

static void json_u64(FILE *out, const char *key, uint64_t v, bool comma)
{
	fprintf(out, "\"%s\": %llu%s", key, (unsigned long long)v,
		comma ? ", " : "");
}

/* A time over the timed calls, or null when no call has one. */
static void json_time(FILE *out, const struct rt_fstats *st, const char *key,
		      uint64_t v)
{
	if (!rt_fstats_timed(st))
		fprintf(out, "\"%s\": null, ", key);
	else
		json_u64(out, key, v, true);
}

/* A flight recorder's window: times in ns since the log's start. */
static void json_window(FILE *out, const struct rt_log_info *info,
			const struct rt_log_window *win)
{
	uint64_t t0 = info->start_ns;

	fputs("\"window\": {", out);
	json_u64(out, "first_ns", win->first_ts > t0 ? win->first_ts - t0 : 0,
		 true);
	json_u64(out, "last_ns", win->last_ts > t0 ? win->last_ts - t0 : 0,
		 true);
	json_u64(out, "end_ns", win->end_ns > t0 ? win->end_ns - t0 : 0, true);
	json_u64(out, "events", win->events, true);
	json_u64(out, "bytes", win->bytes, true);
	json_u64(out, "dropped_events", win->dropped_events, true);
	json_u64(out, "dropped_blocks", win->dropped_blocks, true);
	json_u64(out, "keep_ns", win->keep_ns, true);
	json_u64(out, "keep_bytes", win->keep_bytes, false);
	fputs("}, ", out);
}

static void json_header(FILE *out, const struct rt_report *rep)
{
	fputs("{\"command\": ", out);
	rt_json_string(out, rep->info->cmdline);
	fputs(", ", out);
	json_u64(out, "pid", rep->info->pid, true);
	json_u64(out, "wall_ns", rt_report_run_ns(rep), true);
	json_u64(out, "threads", rep->sum.threads, true);
	json_u64(out, "processes", rep->sum.processes, true);
	json_u64(out, "events", rep->sum.events, true);
	json_u64(out, "calls", rep->sum.calls, true);
	json_u64(out, "inlined_calls", rep->sum.inlined_calls, true);
	json_u64(out, "stop_cost_ns", rep->sum.stop_cost_ns, true);
	json_u64(out, "jump_cost_ns", rep->sum.inline_cost_ns, true);
	json_u64(out, "sites", rep->sites, true);
	json_u64(out, "jump_sites", rep->inline_sites, true);
	json_u64(out, "stop_events", rep->sum.stop_events, true);
	fprintf(out, "\"end\": \"%s\", \"exit_status\": %d, ", ending(rep),
		rep->end && rep->end->how != RT_END_RUNNING ?
			rt_waitstatus_shell_code(rep->end->status) : -1);
	/* only when set, so that other reports keep their bytes */
	if (rep->end && rep->end->flags & RT_END_SPACE)
		fputs("\"cut_for_space\": true, ", out);
	if (rep->end && rep->end->flags & RT_END_FSIZE)
		fputs("\"cut_for_file_size\": true, ", out);
	/* only when some were, as the above */
	if (rep->losses) {
		json_u64(out, "lost_events", rep->losses->events, true);
		fputs("\"lost_why\": ", out);
		rt_json_string(out, rt_loss_why(rep->losses->reasons));
		fputs(", ", out);
	}
	if (rep->window)
		json_window(out, rep->info, rep->window);
	fprintf(out, "\"mode\": \"%s\", ",
		rep->mode == RT_REPORT_COUNT ? "count" :
		rep->mode == RT_REPORT_COVERAGE ? "coverage" : "times");
}

/* The marks (marks.h) of row @r, as a list of words. */
static void json_mark_list(FILE *out, const struct rt_report *rep,
			   const struct rt_report_row *r)
{
	unsigned m = rt_row_marks(rep, r), n = 0;

	fputs("\"marks\": [", out);
	for (unsigned i = 0; i < RT_MARKS; i++)
		if (m & (1u << i))
			fprintf(out, "%s\"%s\"", n++ ? ", " : "",
				rt_mark_word(i));
	fputc(']', out);
}

/* The shares of the run and the marks of row @r. */
static void json_marks(FILE *out, const struct rt_report *rep,
		       const struct rt_report_row *r)
{
	if (!rt_fstats_timed(&r->st))
		fputs("\"total_pct\": null, \"self_pct\": null, "
		      "\"blocked_pct\": null, ",
		      out);	/* no call has a time: no share either */
	else
		fprintf(out, "\"total_pct\": %.2f, \"self_pct\": %.2f, "
			"\"blocked_pct\": %.2f, ",
			rt_report_pct(rep, r->st.total),
			rt_report_pct(rep, r->st.self),
			rt_report_pct(rep, r->st.blocked));
	json_mark_list(out, rep, r);
}

/* The inlined instances of row @r that could not be probed, and why,
 * and those vectorised (marks P and V). */
static void json_inlined(FILE *out, const struct rt_report_row *r)
{
	json_u64(out, "inlined_sites_refused", r->inlined_refused, true);
	fputs("\"inlined_refused_reason\": ", out);
	if (r->inlined_refused)
		rt_json_string(out, rt_refusal_str(r->inlined_why));
	else
		fputs("null", out);
	fputs(", ", out);
	json_u64(out, "inlined_sites_vectorised", r->inlined_packed, true);
}

/* Where a row's function is, when another row has its name. */
static void json_where(FILE *out, const struct rt_log_func *fn)
{
	json_u64(out, "address", fn->addr, true);
	fputs("\"file\": ", out);
	if (fn->file)
		rt_json_string(out, fn->file);
	else
		fputs("null", out);
	fputs(", ", out);
	json_u64(out, "line", fn->line, true);
}

static void json_row(FILE *out, const struct rt_report *rep,
		     const struct rt_report_row *r)
{
	uint64_t timed = rt_fstats_timed(&r->st);

	fputs("{\"name\": ", out);
	rt_json_string(out, r->name);
	fputs(", ", out);
	if (rep->by == RT_BY_THREAD) {
		json_u64(out, "tid", r->id, true);
		fputs("\"thread\": ", out);
		rt_json_string(out, r->key_name ? r->key_name : "");
		fputs(", ", out);
	} else if (rep->by == RT_BY_PROCESS) {
		json_u64(out, "pid", r->id, true);
	} else if (rep->by == RT_BY_TEST) {
		fputs("\"test\": ", out);
		rt_json_string(out, r->key_name);
		fputs(", ", out);
	}
	json_u64(out, "calls", r->st.calls, true);
	json_u64(out, "inlined_calls", r->st.inlined, true);
	json_u64(out, "inlined_sites", r->inlined_sites, true);
	/* counts alone (--count, --coverage): only what was recorded */
	if (rep->mode != RT_REPORT_TIMES) {
		if (r->ambiguous)
			json_where(out, r->fn);
		json_u64(out, "instances", r->instances, true);
		json_inlined(out, r);
		json_mark_list(out, rep, r);
		fputc('}', out);
		return;
	}
	json_u64(out, "timed_calls", timed, true);
	json_time(out, &r->st, "total_ns", r->st.total);
	json_time(out, &r->st, "self_ns", r->st.self);
	json_time(out, &r->st, "blocked_ns", r->st.blocked);
	json_time(out, &r->st, "avg_ns", rt_fstats_avg(&r->st));
	json_time(out, &r->st, "min_ns", timed ? r->st.min : 0);
	json_time(out, &r->st, "max_ns", r->st.max);
	json_u64(out, "unwound", r->st.unwound, true);
	json_u64(out, "partial", r->st.partial, true);
	json_u64(out, "instances", r->instances, true);
	json_inlined(out, r);
	if (r->lost)
		json_u64(out, "lost_events", r->lost, true);
	if (r->ambiguous)
		json_where(out, r->fn);
	json_marks(out, rep, r);
	fputc('}', out);
}

static int json_write(FILE *out, const struct rt_report *rep,
		      const struct rt_opts *o)
{
	json_header(out, rep);
	fputs("\"functions\": [", out);
	for (size_t i = 0; i < rep->nrows; i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		json_row(out, rep, &rep->rows[i]);
	}
	fputs("],\n\"not_probed\": [", out);
	for (size_t i = 0; i < rep->nrefused; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", out);
		rt_json_string(out, rep->refused[i].name);
		fputs(", \"reason\": ", out);
		rt_json_string(out, rep->refused[i].reason);
		fputc('}', out);
	}
	fputs("],\n\"breakpoint_sites\": [", out);
	/* (with breakpoints everywhere, the list would be every function) */
	for (size_t i = 0; rep->inline_sites && i < rep->ntrapped; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", out);
		rt_json_string(out, rep->trapped[i].name);
		fprintf(out, ", \"sites\": %u, \"jump\": %u}",
			rep->trapped[i].sites, rep->trapped[i].inline_sites);
	}
	fputs("],\n\"stopped\": [", out);
	for (size_t i = 0; i < rep->nstopped; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", out);
		rt_json_string(out, rep->stopped[i].name);
		fprintf(out, ", \"stops\": %llu}",
			(unsigned long long)rep->stopped[i].stops);
	}
	fputs("],\n\"not_called\": [", out);
	for (size_t i = 0; i < rep->nuncalled; i++) {
		fputs(i ? ", " : "", out);
		rt_json_string(out, rep->uncalled[i]);
	}
	fputs("]}\n", out);
	return ferror(out) ? -EIO : 0;
}

const struct rt_output_ops rt_output_json = {
	.name = "json",
	.write = json_write,
};
