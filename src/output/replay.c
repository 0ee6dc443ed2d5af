// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The replay: the recorded timeline as it happened, one line per entry and
 * per exit, indented by call depth, like a C program (the idea of uftrace's
 * replay).  A call that calls nothing traced takes one line, "f();", with
 * its duration.  Lines come in the order of the events, threads
 * interleaved; the thread id is on every line.
 *
 * Written as the analysis goes: knowing whether an entry's own exit comes
 * next needs one pending entry, nothing more, so memory never grows with
 * the log.  Any other line first prints the pending entry as "f() {".
 *
 * With --min-total, whether a call is shown is known only at its exit.
 * A call's total includes its callees', so once a call long enough ends,
 * every call that encloses it is long enough too: their entries, held on
 * a stack per thread (as deep as the calls, never longer), are printed
 * then.  Those lines come late, so threads may interleave out of order;
 * one thread's lines keep theirs.
 */
#include <errno.h>
#include <stdlib.h>

#include "rtrace/output.h"
#include "rtrace/render.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct pending {
	bool set;
	uint32_t thread, depth, func, tid, flags;
	uint64_t start;
};

/* The entries of one thread's open calls, under --min-total. */
struct held {
	VEC(struct pending) open;
	size_t printed;        /* open[0..printed) have their "f() {" out */
};

struct rt_replay {
	FILE *out;
	const struct rt_view_ctx *v;
	bool times;            /* false for a log of entries only */
	struct pending p;
	uint64_t lines;
	bool capped;           /* a line was deeper than RT_INDENT_LEVELS */
	bool min_total;        /* --min-total, on a log with times */
	VEC(struct held) held; /* by thread index, with --min-total */
};

static bool in_window(const struct rt_replay *rp, uint64_t ts)
{
	const struct rt_opts *o = rp->v->o;

	return ts >= o->since_ns && (!o->until_ns || ts < o->until_ns);
}

/* Whether the replay shows call @c, and at which depth. */
static bool shown(struct rt_replay *rp, const struct rt_call *c, uint32_t *d)
{
	const struct rt_opts *o = rp->v->o;
	int root;

	if (o->tid && c->tid != o->tid)
		return false;
	root = rt_fkeys_root(rp->v->keys, c);
	if (root < 0)
		return false;
	*d = c->depth - root;
	return !o->depth || *d < o->depth;
}

static void print_flags(FILE *out, uint32_t flags, bool at_end)
{
	if (!at_end) {
		if (flags & RT_CALL_TAIL)
			fputs("  [tail call]", out);
		return;
	}
	if (flags & RT_CALL_UNWOUND)
		fputs("  [unwound]", out);
	if (flags & RT_CALL_INCOMPLETE)
		fputs("  [still running at the end]", out);
	if (flags & RT_CALL_APPROX_END)
		fputs("  [end approximate]", out);
	if (flags & RT_CALL_PARTIAL)
		fputs("  [running before rtrace attached]", out);
}

/* The columns: timestamp, duration (blank for an entry), thread id, then
 * the indentation of @depth. */
static void print_columns(struct rt_replay *rp, uint64_t ts, const char *dur,
			  uint32_t tid, uint32_t depth)
{
	/* a line per call: printf would cost more than the analysis */
	rt_put_fixed(rp->out, ts, 9, 14);
	fputc_unlocked(' ', rp->out);
	fputs_unlocked(dur, rp->out);
	rt_put_fixed(rp->out, tid, 0, 9);
	rt_put_spaces(rp->out, 2);
	rp->capped |= rt_put_indent(rp->out, depth, 2, depth);
	rp->lines++;
}

static const char *name_of(struct rt_replay *rp, uint32_t func)
{
	return rt_fkeys_name(rp->v->keys, rt_fkeys_key(rp->v->keys, func));
}

static void print_entry(struct rt_replay *rp, const struct pending *p)
{
	if (!in_window(rp, p->start))
		return;
	print_columns(rp, p->start, "           ", p->tid, p->depth);
	fputs_unlocked(name_of(rp, p->func), rp->out);
	fputs_unlocked("() {", rp->out);
	print_flags(rp->out, p->flags, false);
	fputc('\n', rp->out);
}

static void flush_pending(struct rt_replay *rp)
{
	if (!rp->p.set)
		return;
	rp->p.set = false;
	print_entry(rp, &rp->p);
}

/* The line of a call that ends: "f();" when nothing was printed inside
 * it (then its entry line is this one), else its closing brace. */
static void print_exit(struct rt_replay *rp, const struct rt_call *c,
		       uint32_t d, bool leaf)
{
	char dur[32] = "           ";  /* 11 columns */

	if (rp->times)
		rt_fmt_duration_col(dur, sizeof(dur), c->total, 11);
	if (!in_window(rp, leaf ? c->start : c->end))
		return;
	print_columns(rp, leaf ? c->start : c->end, dur, c->tid, d);
	if (leaf) {
		fputs_unlocked(name_of(rp, c->func), rp->out);
		fputs_unlocked("();", rp->out);
		print_flags(rp->out, c->flags, false);
	} else {
		fputs_unlocked("} /* ", rp->out);
		fputs_unlocked(name_of(rp, c->func), rp->out);
		fputs_unlocked(" */", rp->out);
	}
	print_flags(rp->out, c->flags, true);
	fputc('\n', rp->out);
}

static struct held *held_of(struct rt_replay *rp, uint32_t thread)
{
	while (rp->held.n <= thread)
		(void)vec_push_zero(&rp->held);
	return &rp->held.v[thread];
}

static void held_enter(struct rt_replay *rp, const struct rt_call *c,
		       uint32_t d)
{
	struct held *h = held_of(rp, c->thread);

	vec_push(&h->open, ((struct pending){
		.set = true, .thread = c->thread, .depth = d, .func = c->func,
		.tid = c->tid, .flags = c->flags, .start = c->start,
	}));
}

/* A call ends under --min-total: shown when long enough, after the
 * entries of the calls around it that are not out yet. */
static void held_leave(struct rt_replay *rp, const struct rt_call *c,
		       uint32_t d)
{
	struct held *h = held_of(rp, c->thread);
	bool opened;

	while (h->open.n && vec_last(&h->open)->depth > d)
		h->open.n--;	/* calls left by unwinding, unseen */
	if (!h->open.n)
		return;
	opened = h->printed == h->open.n;
	h->open.n--;
	h->printed = MIN(h->printed, h->open.n);
	if (c->total < rp->v->o->min_total_ns)
		return;
	for (; h->printed < h->open.n; h->printed++)
		print_entry(rp, &h->open.v[h->printed]);
	print_exit(rp, c, d, !opened);
}

static void on_enter(void *ctx, const struct rt_call *c)
{
	struct rt_replay *rp = ctx;
	uint32_t d;

	if (!shown(rp, c, &d))
		return;
	if (rp->min_total) {
		held_enter(rp, c, d);
		return;
	}
	flush_pending(rp);
	rp->p = (struct pending){
		.set = true, .thread = c->thread, .depth = d, .func = c->func,
		.tid = c->tid, .flags = c->flags, .start = c->start,
	};
}

static void on_leave(void *ctx, const struct rt_call *c)
{
	struct rt_replay *rp = ctx;
	bool leaf = rp->p.set && rp->p.thread == c->thread;
	uint32_t d;

	if (!shown(rp, c, &d))
		return;
	if (rp->min_total) {
		held_leave(rp, c, d);
		return;
	}
	leaf = leaf && rp->p.depth == d;
	if (leaf)
		rp->p.set = false;	/* its own entry, held back */
	else
		flush_pending(rp);
	print_exit(rp, c, d, leaf);
}

struct rt_replay *rt_replay_new(FILE *out, const struct rt_view_ctx *v)
{
	struct rt_replay *rp = xcalloc(1, sizeof(*rp));
	char w[256];

	rp->out = out;
	rp->v = v;
	rp->times = !(v->info->flags & (RT_LOG_COUNT_ONLY | RT_LOG_COVERAGE));
	fprintf(out, "# rtrace replay: %s\n", v->log_path);
	fprintf(out, "# command:  %s\n", v->info->cmdline);
	if (rt_fmt_window(w, sizeof(w), v->info, rt_evlog_window(v->r)))
		fprintf(out, "# events:   %s\n", w);
	fputs(rp->times ? "# time: seconds since the program started, on the "
			  "timeline without rtrace's costs;\n"
			  "# duration: the call's total time, callees "
			  "included\n"
			: "# time: seconds since the program started; entries "
			  "only were recorded: no durations\n", out);
	rp->min_total = rp->times && v->o->min_total_ns;
	if (rp->min_total)
		fputs("# calls shorter than --min-total are left out, with "
		      "what they called\n", out);
	else if (v->o->min_total_ns)
		fputs("# --min-total left aside: this log has no durations\n",
		      out);
	fprintf(out, "#\n# %12s %11s %8s  %s\n", "TIME", "DURATION", "TID",
		"FUNCTION");
	return rp;
}

struct rt_sink rt_replay_sink(struct rt_replay *rp)
{
	return (struct rt_sink){ .enter = on_enter, .leave = on_leave,
				 .ctx = rp };
}

int rt_replay_finish(struct rt_replay *rp)
{
	int err;

	flush_pending(rp);
	if (!rp->lines)
		fputs("(no traced call in the selection)\n", rp->out);
	if (rp->capped)
		fprintf(rp->out, "# calls deeper than %d levels are indented "
			"as level %d, their depth in brackets\n",
			RT_INDENT_LEVELS, RT_INDENT_LEVELS);
	err = ferror(rp->out) ? -EIO : 0;
	vec_for_each(&rp->held, h)
		vec_free(&h->open);
	vec_free(&rp->held);
	free(rp);
	return err;
}
