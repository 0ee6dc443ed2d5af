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
 */
#include <errno.h>
#include <stdlib.h>

#include "rtrace/output.h"
#include "rtrace/render.h"
#include "rtrace/util.h"

struct pending {
	bool set;
	uint32_t thread, depth, func, tid, flags;
	uint64_t start;
};

struct rt_replay {
	FILE *out;
	const struct rt_view_ctx *v;
	bool times;            /* false for a log of entries only */
	struct pending p;
	uint64_t lines;
	bool capped;           /* a line was deeper than RT_INDENT_LEVELS */
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

static void flush_pending(struct rt_replay *rp)
{
	struct pending *p = &rp->p;

	if (!p->set)
		return;
	p->set = false;
	if (!in_window(rp, p->start))
		return;
	print_columns(rp, p->start, "           ", p->tid, p->depth);
	fputs_unlocked(name_of(rp, p->func), rp->out);
	fputs_unlocked("() {", rp->out);
	print_flags(rp->out, p->flags, false);
	fputc('\n', rp->out);
}

static void on_enter(void *ctx, const struct rt_call *c)
{
	struct rt_replay *rp = ctx;
	uint32_t d;

	if (!shown(rp, c, &d))
		return;
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
	char dur[32] = "           ";  /* 11 columns */
	uint32_t d;

	if (!shown(rp, c, &d))
		return;
	if (rp->times)
		rt_fmt_duration_col(dur, sizeof(dur), c->total, 11);
	if (leaf && rp->p.depth == d) {
		/* its own entry was the last line held back */
		rp->p.set = false;
		if (!in_window(rp, c->start))
			return;
		print_columns(rp, c->start, dur, c->tid, d);
		fputs_unlocked(name_of(rp, c->func), rp->out);
		fputs_unlocked("();", rp->out);
		print_flags(rp->out, c->flags, false);
	} else {
		flush_pending(rp);
		if (!in_window(rp, c->end))
			return;
		print_columns(rp, c->end, dur, c->tid, d);
		fputs_unlocked("} /* ", rp->out);
		fputs_unlocked(name_of(rp, c->func), rp->out);
		fputs_unlocked(" */", rp->out);
	}
	print_flags(rp->out, c->flags, true);
	fputc('\n', rp->out);
}

struct rt_replay *rt_replay_new(FILE *out, const struct rt_view_ctx *v)
{
	struct rt_replay *rp = xcalloc(1, sizeof(*rp));

	rp->out = out;
	rp->v = v;
	rp->times = !(v->info->flags & (RT_LOG_COUNT_ONLY | RT_LOG_COVERAGE));
	fprintf(out, "# rtrace replay: %s\n", v->log_path);
	fprintf(out, "# command:  %s\n", v->info->cmdline);
	fputs(rp->times ? "# time: seconds since the program started, on the "
			  "timeline without rtrace's costs;\n"
			  "# duration: the call's total time, callees "
			  "included\n"
			: "# time: seconds since the program started; entries "
			  "only were recorded: no durations\n", out);
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
	free(rp);
	return err;
}
