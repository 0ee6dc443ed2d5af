// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rows' marks and shares (marks.h).
 *
 * "Too short" compares a row's average call with what the time of one
 * call is uncertain by: two events (its entry and its exit), each off by
 * about what it costs when recorded in the program (the clock read and
 * the record: the inline cost in the log), or by a tenth of a stop's cost
 * when recorded at a stop (the calibration's spread, docs/how-it-works.md
 * "Times").  Under SHORT_FACTOR times that, the figure is mostly noise.
 */
#include <string.h>

#include "rtrace/marks.h"
#include "rtrace/output.h"
#include "rtrace/refusal.h"

#define SHORT_FACTOR 4ULL
#define STOP_ERROR_DIV 10  /* a stop's cost is known within a tenth */

static const struct {
	char letter;
	const char *word;
} marks[RT_MARKS] = {
	{ 'C', "compensated" }, { 'S', "stops" }, { 'T', "short" },
	{ 'B', "blocked" }, { 'P', "partial" }, { 'V', "vectorised" },
	{ 'L', "lost" },
};

uint64_t rt_report_run_ns(const struct rt_report *rep)
{
	uint64_t end = rep->end ? rep->end->end_ns : rep->sum.last_ts;

	return end > rep->info->start_ns ? end - rep->info->start_ns : 0;
}

double rt_report_pct(const struct rt_report *rep, uint64_t ns)
{
	uint64_t run = rt_report_run_ns(rep);

	return run ? 100.0 * (double)ns / (double)run : 0.0;
}

/* Whether the row's functions were probed at a stop: those the report
 * lists with the inline engine; every one without it (no site patched,
 * no event recorded in the program: a merged report knows only the
 * latter). */
static bool stopped(const struct rt_report *rep, const char *name)
{
	if (!rep->inline_sites && !rep->sum.inline_cost_ns)
		return rep->sum.stop_events != 0;
	for (size_t i = 0; i < rep->nstopped; i++)
		if (strcmp(rep->stopped[i].name, name) == 0)
			return true;
	return false;
}

/* Under this average (ns), calls recorded at stops (@stops) or in the
 * program are too short to time; 0 when the report does not know what an
 * event costs: for the calls recorded in the program, with --raw-times
 * (nothing is taken out, the cost is not read), so such calls are not
 * marked then (docs/how-it-works.md). */
static uint64_t short_ns(const struct rt_report *rep, bool stops)
{
	uint64_t event = stops ? rep->info->stop_cost_ns / STOP_ERROR_DIV :
				 rep->sum.inline_cost_ns;

	return SHORT_FACTOR * 2 * event;
}

/* Why the log stopped taking events before the run's end, or NULL. */
static const char *stopped_early(const struct rt_report *rep)
{
	if (!rep->end)
		return NULL;
	if (rep->end->flags & RT_END_FSIZE)
		return "rtrace's file size limit";
	if (rep->end->flags & RT_END_SPACE)
		return "disk space ran low";
	if (rep->end->dropped)
		return "a write of the log failed";
	return NULL;
}

unsigned rt_row_marks(const struct rt_report *rep,
		      const struct rt_report_row *r)
{
	uint64_t timed = rt_fstats_timed(&r->st);
	unsigned m = 0;
	bool stops;

	if (r->inlined_refused)
		m |= RT_MARK_PARTIAL;
	if (r->inlined_packed)
		m |= RT_MARK_VECTOR;
	if (r->lost || (rep->losses && rep->losses->unattributed) ||
	    stopped_early(rep))
		m |= RT_MARK_LOST;
	if (rep->mode != RT_REPORT_TIMES || !timed)
		return m;
	stops = stopped(rep, r->name);
	if (r->st.taken > r->st.total)
		m |= RT_MARK_COMPENSATED;
	if (stops)
		m |= RT_MARK_STOPS;
	if (r->st.sum_incl / timed < short_ns(rep, stops))
		m |= RT_MARK_SHORT;
	if (r->st.blocked > r->st.self)
		m |= RT_MARK_BLOCKED;
	return m;
}

bool rt_report_any_blocked(const struct rt_report *rep)
{
	if (rep->mode != RT_REPORT_TIMES)
		return false;
	for (size_t i = 0; i < rep->nrows; i++)
		if (rep->rows[i].st.blocked)
			return true;
	return false;
}

const char *rt_marks_letters(unsigned m, char *buf)
{
	size_t n = 0;

	for (unsigned i = 0; i < RT_MARKS; i++)
		if (m & (1u << i))
			buf[n++] = marks[i].letter;
	buf[n] = '\0';
	return buf;
}

const char *rt_loss_why(uint32_t reasons)
{
	static const char *const why[] = {
		"rtrace did not answer for seconds",
		"more threads recorded at once than the event area has slots "
		"for",
		"the program turned recording off, writing rtrace's event area",
		"the program wrote over rtrace's event area",
	};
	/* the reasons, each said once, joined as a sentence is */
	static char buf[512];
	size_t n = 0, len = 0, k = 0;

	for (size_t i = 0; i < ARRAY_SIZE(why); i++)
		n += !!(reasons & (1u << i));
	if (!n)
		return "the log does not say why";
	if (reasons == RT_LOSS_SILENT)
		return "rtrace did not answer for seconds, and the program "
		       "went on without recording";
	for (size_t i = 0; i < ARRAY_SIZE(why); i++) {
		if (!(reasons & (1u << i)))
			continue;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%s%s",
					k ? ", " : "",
					k && k == n - 1 ? "and " : "", why[i]);
		k++;
	}
	return buf;
}

const char *rt_fmt_losses(char *buf, size_t len,
			  const struct rt_log_losses *l)
{
	char c[32];

	if (!l)
		return NULL;
	snprintf(buf, len, "%s event%s not recorded (%s)",
		 rt_fmt_count(c, sizeof(c), l->events), rt_s(l->events),
		 rt_loss_why(l->reasons));
	return buf;
}

const char *rt_mark_word(unsigned i)
{
	return i < RT_MARKS ? marks[i].word : "";
}

/* The rule the T marks were computed with: the thresholds short_ns()
 * gave them. */
static void short_legend(FILE *out, const struct rt_report *rep)
{
	uint64_t jump = short_ns(rep, false), stop = short_ns(rep, true);
	char a[32], b[32];

	fputs("T: its calls are too short to time: on average under ", out);
	if (!jump)	/* only the calls that stop can be marked */
		fprintf(out, "%s for calls recorded at stops%s",
			rt_fmt_duration(b, sizeof(b), stop),
			!rep->inline_sites ? "" :
			!rep->sum.stop_cost_ns ? " (with --raw-times, calls "
			"recorded without a stop are not marked)" :
			" (calls recorded without a stop are not marked: the "
			"log does not say what an event costs)");
	else if (jump != stop)
		fprintf(out, "%s (%s with stops)",
			rt_fmt_duration(a, sizeof(a), jump),
			rt_fmt_duration(b, sizeof(b), stop));
	else
		fputs(rt_fmt_duration(a, sizeof(a), jump), out);
	fprintf(out, ", %d times what the clock and the compensation may "
		"be off by per call.\n", (int)SHORT_FACTOR);
}

/* Why the P rows' instances were refused: each reason once. */
static void partial_reasons(FILE *out, const struct rt_report *rep)
{
	unsigned said = 0;

	for (size_t i = 0; i < rep->nrows; i++) {
		unsigned why = rep->rows[i].inlined_why;

		if (!rep->rows[i].inlined_refused || why >= 32 ||
		    (said & (1u << why)))
			continue;
		fprintf(out, "%s%s", said ? "; " : "", rt_refusal_str(why));
		said |= 1u << why;
	}
}

/* The lines of the marks of inlined calls, which every mode has. */
static void inlined_legend(FILE *out, const struct rt_report *rep,
			   unsigned any)
{
	if (any & RT_MARK_PARTIAL) {
		fputs("P: partial: some places it was inlined at could not "
		      "be probed (\"R not probed\" in its [...]): its count "
		      "is a lower bound; why: ", out);
		partial_reasons(out, rep);
		fputs(" (rtrace -l lists them).\n", out);
	}
	if (any & RT_MARK_VECTOR)
		fputs("V: vectorised: the compiler merged some of its inlined "
		      "calls into vector code that does several per pass: its "
		      "count is of passes, a lower bound.\n", out);
	if (any & RT_MARK_LOST) {
		fputs("L: lost: its count is a lower bound: ", out);
		if (rep->losses)
			fprintf(out, "some events were not recorded (%s)%s",
				rt_loss_why(rep->losses->reasons),
				stopped_early(rep) ? "; " : "");
		if (stopped_early(rep))
			fprintf(out, "recording stopped before the end (%s)",
				stopped_early(rep));
		fputs(".\n", out);
	}
}

/* The lines of the shares and of the marks of times. */
static void times_legend(FILE *out, const struct rt_report *rep,
			 unsigned any)
{
	fputs("%: share of the run's duration (the header's); threads' "
	      "times add up, so shares can too.\n", out);
	if (any & RT_MARK_COMPENSATED)
		fputs("C: rtrace's own cost, taken out, was more than half of "
		      "the time measured: the figure is a small difference of "
		      "estimates (--raw-times shows what was measured).\n", out);
	if (any & RT_MARK_STOPS)
		fputs("S: its probes stopped the program (breakpoints): its "
		      "times carry the cost of those stops, estimated and taken "
		      "out (rtrace -l says why a probe is a breakpoint).\n", out);
	if (any & RT_MARK_SHORT)
		short_legend(out, rep);
	if (any & RT_MARK_BLOCKED)
		fputs("B: it spent more of its own time blocked (waiting in "
		      "libc: sleep, futex, join, read...) than running its "
		      "own code.\n", out);
}

void rt_marks_legend(FILE *out, const struct rt_report *rep)
{
	unsigned any = 0;

	for (size_t i = 0; i < rep->nrows; i++)
		any |= rt_row_marks(rep, &rep->rows[i]);
	if (rep->mode == RT_REPORT_TIMES)
		times_legend(out, rep, any);
	inlined_legend(out, rep, any);
}
