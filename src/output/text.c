// SPDX-License-Identifier: GPL-2.0-or-later
/* The table people read: one row per function, sorted by self time. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtrace/marks.h"
#include "rtrace/output.h"
#include "rtrace/waitstatus.h"

#define HOTSPOTS 3

static bool use_color(FILE *out, const struct rt_opts *o)
{
	const char *nc = getenv("NO_COLOR");

	if (o->color >= 0)
		return o->color;
	return isatty(fileno(out)) && !(nc && *nc);
}

void rt_text_ending(FILE *out, const struct rt_report *rep)
{
	int sig;

	if (!rep->end) {
		fputs("the log is cut short (rtrace was killed or the disk "
		      "filled up); figures cover what was written\n", out);
		return;
	}
	switch (rep->end->how) {
	case RT_END_INTERRUPTED:
		fputs("interrupted; ", out);
		break;
	case RT_END_DETACHED:
		fputs("detached from the running program\n", out);
		return;
	case RT_END_FAILED:
		fputs("rtrace lost control of the program\n", out);
		return;
	case RT_END_RUNNING:
		fputs("not yet: the program runs on, traced (an interim "
		      "report)\n", out);
		return;
	}
	if (rt_waitstatus_signaled(rep->end->status, &sig))
		fprintf(out, "the program was killed by signal %d (%s)\n", sig,
			strsignal(sig));
	else
		fprintf(out, "the program exited with status %d\n",
			rt_waitstatus_shell_code(rep->end->status));
}

const char *rt_fmt_window(char *buf, size_t len,
			  const struct rt_log_info *info,
			  const struct rt_log_window *win)
{
	char k[32], d[32], f[32], x[32];

	if (!(info->flags & RT_LOG_WINDOW))
		return NULL;
	if (!win) {
		snprintf(buf, len, "none: a flight recorder's log cut short "
			 "before its window was written");
		return buf;
	}
	if (win->keep_ns)
		rt_fmt_duration(k, sizeof(k), win->keep_ns);
	else
		rt_fmt_bytes(k, sizeof(k), win->keep_bytes);
	if (!win->events) {
		snprintf(buf, len, "none: the flight recorder (--keep=%s) "
			 "kept no event, %s dropped", k,
			 rt_fmt_count(x, sizeof(x), win->dropped_events));
		return buf;
	}
	if (!win->dropped_events) {
		snprintf(buf, len, "all the run's: the flight recorder "
			 "(--keep=%s) dropped none", k);
		return buf;
	}
	snprintf(buf, len, "the last %s of the run (from %s on), %s event%s "
		 "before them dropped (--keep=%s)",
		 rt_fmt_duration(d, sizeof(d), win->end_ns > win->first_ts ?
					win->end_ns - win->first_ts : 0),
		 rt_fmt_duration(f, sizeof(f), win->first_ts > info->start_ns ?
					win->first_ts - info->start_ns : 0),
		 rt_fmt_count(x, sizeof(x), win->dropped_events),
		 rt_s(win->dropped_events), k);
	return buf;
}

static void print_header(FILE *out, const struct rt_report *rep)
{
	char d[32], e[32], c[32], w[256];

	fprintf(out, "# rtrace report: %s\n", rep->log_path);
	fprintf(out, "# command:  %s\n", rep->info->cmdline);
	fprintf(out, "# duration: %s   threads: %u   processes: %u   "
		"events: %s   calls: %s\n",
		rt_fmt_duration(d, sizeof(d), rt_report_run_ns(rep)),
		rep->sum.threads,
		rep->sum.processes, rt_fmt_count(e, sizeof(e), rep->sum.events),
		rt_fmt_count(c, sizeof(c), rep->sum.calls));
	if (rt_fmt_window(w, sizeof(w), rep->info, rep->window))
		fprintf(out, "# events:   %s\n", w);
	fputs("# ended:    ", out);
	rt_text_ending(out, rep);
	if (rep->end && rep->end->flags & RT_END_SPACE)
		fputs("# log:      cut for space: disk space ran low, and "
		      "recording stopped early; figures cover what was "
		      "recorded\n", out);
	if (rep->end && rep->end->flags & RT_END_FSIZE)
		fputs("# log:      cut at rtrace's file size limit (ulimit "
		      "-f): recording stopped early; figures cover what was "
		      "recorded\n", out);
	if (rt_fmt_losses(w, sizeof(w), rep->losses))
		fprintf(out, "# lost:     %s: the counts of the rows marked L "
			"are lower bounds\n", w);
	fputs("# ", out);
	rt_text_figures(out, rep);
}

void rt_text_figures(FILE *out, const struct rt_report *rep)
{
	char d[32], i[32];

	if (rep->mode == RT_REPORT_COUNT)
		fputs("counts only (--count): entries were probed, not "
		      "returns; no times\n", out);
	else if (rep->mode == RT_REPORT_COVERAGE)
		fputs("coverage (--coverage): each function's first call "
		      "only\n", out);
	else if (rep->sum.stop_cost_ns && rep->sum.inline_cost_ns)
		fprintf(out, "times exclude rtrace's cost of %s per stop and "
			"%s per jump-probe event (--raw-times keeps it)\n",
			rt_fmt_duration(d, sizeof(d), rep->sum.stop_cost_ns),
			rt_fmt_duration(i, sizeof(i), rep->sum.inline_cost_ns));
	else if (rep->sum.stop_cost_ns)
		fprintf(out, "times exclude rtrace's cost of %s per stop "
			"(--raw-times keeps it)\n",
			rt_fmt_duration(d, sizeof(d), rep->sum.stop_cost_ns));
	else if (rep->sum.inline_cost_ns)  /* no stop inside a call */
		fprintf(out, "times exclude rtrace's cost of %s per "
			"jump-probe event (--raw-times keeps it)\n",
			rt_fmt_duration(i, sizeof(i), rep->sum.inline_cost_ns));
	else
		fputs("times are raw: they include rtrace's costs (per stop, "
		      "per jump-probe event)\n",
		      out);
}

#define TRAPPED_SHOWN 5

/* With the inline engine: the sites that kept a breakpoint. */
static void print_trapped(FILE *out, const struct rt_report *rep)
{
	if (!rep->inline_sites)
		return;
	fprintf(out, "jump probes: %" PRIu64 " of %" PRIu64
		" function site%s patched",
		rep->inline_sites, rep->sites, rt_s(rep->sites));
	for (size_t i = 0; i < rep->ntrapped && i < TRAPPED_SHOWN; i++)
		fprintf(out, "%s%s (%u of %u)", i ? ", " : "; breakpoints in ",
			rep->trapped[i].name,
			rep->trapped[i].sites - rep->trapped[i].inline_sites,
			rep->trapped[i].sites);
	if (rep->ntrapped > TRAPPED_SHOWN)
		fprintf(out, " and %zu more", rep->ntrapped - TRAPPED_SHOWN);
	fputs(rep->ntrapped ? " (rtrace -l says why)\n" : "\n", out);
}

/* With the inline engine, when more than 1 % of the events were recorded
 * at a breakpoint: where, since those functions' times carry the stops'
 * cost (what compensation takes out is an estimate). */
static void print_stopped(FILE *out, const struct rt_report *rep)
{
	char c[32];

	if (!rep->nstopped || rep->sum.stop_events * 100 <= rep->sum.events)
		return;
	fprintf(out, "stops: %.1f %% of the events stopped the program, at "
		"breakpoints in ",
		100.0 * rep->sum.stop_events / rep->sum.events);
	for (size_t i = 0; i < rep->nstopped && i < TRAPPED_SHOWN; i++)
		fprintf(out, "%s%s (%s)", i ? ", " : "", rep->stopped[i].name,
			rt_fmt_count(c, sizeof(c), rep->stopped[i].stops));
	if (rep->nstopped > TRAPPED_SHOWN)
		fprintf(out, " and %zu more", rep->nstopped - TRAPPED_SHOWN);
	fputs(": their times, and their callers', carry the cost of those "
	      "stops\n", out);
}

/* A time column: "-" when no call has a time. */
static const char *time_col(char *buf, size_t len, uint64_t timed,
			    uint64_t ns)
{
	return timed ? rt_fmt_duration(buf, len, ns) : "-";
}

/* A share column: "-" when no call has a time. */
static const char *pct_col(char *buf, size_t len, uint64_t timed, double pct)
{
	if (!timed)
		return "-";
	snprintf(buf, len, "%.1f", pct);
	return buf;
}

static void print_row(FILE *out, const struct rt_report *rep,
		      const struct rt_report_row *r, bool hot, bool blocked)
{
	char t[32], s[32], a[32], mn[32], mx[32], m[RT_MARKS + 1];
	char tp[16], sp[16], b[32], bp[16];
	uint64_t timed = rt_fstats_timed(&r->st);

	fprintf(out, "%s%10llu %11s %6s %11s %6s",
		hot ? "\033[1;31m" : "", (unsigned long long)r->st.calls,
		time_col(t, sizeof(t), timed, r->st.total),
		pct_col(tp, sizeof(tp), timed, rt_report_pct(rep, r->st.total)),
		time_col(s, sizeof(s), timed, r->st.self),
		pct_col(sp, sizeof(sp), timed, rt_report_pct(rep, r->st.self)));
	if (blocked)
		fprintf(out, " %11s %6s",
			time_col(b, sizeof(b), timed, r->st.blocked),
			pct_col(bp, sizeof(bp), timed,
				rt_report_pct(rep, r->st.blocked)));
	fprintf(out, " %11s %11s %11s  %-3s %s",
		time_col(a, sizeof(a), timed, rt_fstats_avg(&r->st)),
		time_col(mn, sizeof(mn), timed, r->st.min),
		time_col(mx, sizeof(mx), timed, r->st.max),
		rt_marks_letters(rt_row_marks(rep, r), m), r->name);
	rt_row_notes(out, r);
	fputs(hot ? "\033[0m\n" : "\n", out);
}

static void print_group(FILE *out, const struct rt_report *rep, size_t i)
{
	const struct rt_report_row *r = &rep->rows[i];

	if (rep->by == RT_BY_NONE || (i && rep->rows[i - 1].key == r->key))
		return;
	switch (rep->by) {
	case RT_BY_THREAD:
		fprintf(out, "\n== thread %u%s%s%s ==\n", r->id,
			r->key_name ? " (" : "",
			r->key_name ? r->key_name : "",
			r->key_name ? ")" : "");
		break;
	case RT_BY_PROCESS:
		fprintf(out, "\n== process %u%s%s ==\n", r->id,
			r->key_name ? " " : "", r->key_name ? r->key_name : "");
		break;
	default:
		fprintf(out, "\n== test %s ==\n", r->key_name);
		break;
	}
}

/* Counts alone: the marks of inlined calls (P, V) have a column when
 * some row has one. */
static void print_counts(FILE *out, const struct rt_report *rep)
{
	bool marked = false;
	char m[RT_MARKS + 1];

	for (size_t i = 0; i < rep->nrows; i++)
		marked |= rt_row_marks(rep, &rep->rows[i]) != 0;
	for (size_t i = 0; i < rep->nrows; i++) {
		print_group(out, rep, i);
		fprintf(out, "%10llu  ",
			(unsigned long long)rep->rows[i].st.calls);
		if (marked)
			fprintf(out, "%-2s ", rt_marks_letters(
				rt_row_marks(rep, &rep->rows[i]), m));
		fputs(rep->rows[i].name, out);
		/* counts alone: no times to say anything of */
		rt_inlined_mark(out, &(struct rt_fstats){
				.inlined = rep->rows[i].st.inlined },
				rep->rows[i].inlined_sites,
				rep->rows[i].inlined_refused);
		fputc('\n', out);
	}
}

static void print_uncalled(FILE *out, const struct rt_report *rep)
{
	fprintf(out, "\ncovered: %zu of %zu probed %s called%s\n",
		rep->nfuncs_probed - rep->nuncalled, rep->nfuncs_probed,
		rep->nfuncs_probed == 1 ? "function was" : "functions were",
		rep->nuncalled ? "; never called:" : "");
	for (size_t i = 0; i < rep->nuncalled; i++)
		fprintf(out, "  %s\n", rep->uncalled[i]);
}

static void print_times(FILE *out, const struct rt_report *rep, bool color)
{
	bool blocked = rt_report_any_blocked(rep);

	fprintf(out, "\n%10s %11s %6s %11s %6s", "calls", "total", "%", "self",
		"%");
	if (blocked)
		fprintf(out, " %11s %6s", "blocked", "%");
	fprintf(out, " %11s %11s %11s  %-3s %s\n", "avg", "min", "max", "",
		"function");
	for (size_t i = 0, rank = 0; i < rep->nrows; i++, rank++) {
		print_group(out, rep, i);
		if (i && rep->rows[i - 1].key != rep->rows[i].key)
			rank = 0;
		print_row(out, rep, &rep->rows[i], color && rank < HOTSPOTS,
			  blocked);
	}
}

/* Whether a shown row has the "[N inlined, S sites]" mark (@inl), and
 * whether one has calls with no time (@untimed): their legends go only
 * under a table that has them. */
static void shown_marks(const struct rt_report *rep, bool *inl, bool *untimed)
{
	*inl = *untimed = false;
	for (size_t i = 0; i < rep->nrows; i++) {
		*inl |= rep->rows[i].st.inlined || rep->rows[i].inlined_sites;
		*untimed |= rep->rows[i].st.untimed != 0;
	}
}

static void print_inlined_legend(FILE *out, const struct rt_report *rep)
{
	bool inl, untimed;

	shown_marks(rep, &inl, &untimed);
	if (!inl)
		return;
	fprintf(out, "[N inlined, S sites]: N of the calls were inlined by the "
		"compiler (at S places), counted at their entry%s\n",
		rep->mode != RT_REPORT_TIMES ? "." :
		"; timed where their instance's end is probed too.");
	if (untimed && rep->mode == RT_REPORT_TIMES)
		fputs("[timed: T]: only T of the calls have a time: the time "
		      "columns are theirs (- when none has one).\n", out);
}

void rt_text_notes(FILE *out, const struct rt_report *rep)
{
	bool counts = rep->mode != RT_REPORT_TIMES;

	if (rep->nrows < rep->nrows_all)
		fprintf(out, "... %zu more row%s (--limit)\n",
			rep->nrows_all - rep->nrows,
			rt_s(rep->nrows_all - rep->nrows));
	if (rep->nrows_all == 0)
		fputs("(no traced function was called)\n", out);
	if (rep->mode == RT_REPORT_COVERAGE)
		print_uncalled(out, rep);
	else if (!counts)
		fputs("\ntotal: time from entry to return, callees included (an "
		      "outer recursive call only); self: total minus traced "
		      "callees;\navg/min/max: per call, callees included.\n",
		      out);
	if (!counts && rt_report_any_blocked(rep))
		fputs("blocked: time in libc's calls that wait (sleep, futex, "
		      "join, read, poll...) made by the function itself: in "
		      "total, not in self.\n", out);
	print_inlined_legend(out, rep);
	if (rep->nrefused)
		fprintf(out, "not probed: %zu selected function%s (rtrace -l "
			"says why)\n", rep->nrefused, rt_s(rep->nrefused));
	rt_marks_legend(out, rep);
	print_trapped(out, rep);
	print_stopped(out, rep);
}

static int text_write(FILE *out, const struct rt_report *rep,
		      const struct rt_opts *o)
{
	bool color = use_color(out, o) && o->sort == RT_SORT_SELF;

	print_header(out, rep);
	if (rep->mode != RT_REPORT_TIMES) {
		fprintf(out, "\n%10s  %s\n", rep->mode == RT_REPORT_COUNT ?
					     "calls" : "called", "function");
		print_counts(out, rep);
	} else {
		print_times(out, rep, color);
	}
	rt_text_notes(out, rep);
	return ferror(out) ? -EIO : 0;
}

const struct rt_output_ops rt_output_text = {
	.name = "text",
	.write = text_write,
};
