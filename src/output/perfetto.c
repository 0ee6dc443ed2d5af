// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Chrome trace event format (JSON), which Perfetto's UI and
 * chrome://tracing open: one complete event ("ph": "X") per call, on the
 * track of its thread, with thread and process names as metadata events.
 *
 * A complete event needs the call's end, so it is written when the call
 * ends: children come before their parents in the file.  The format
 * allows any order (viewers sort by timestamp), with one catch: two events
 * of a thread that start at the same timestamp nest in the order of the
 * file, child first, which is backwards; and a call of 0 ns at the start
 * of its next sibling could be read as its child.  So on each thread's
 * track every entry is laid out at least 1 ns after the boundary (entry
 * or exit) before it: no two calls of a thread start together, and
 * sorting by timestamp alone gives the nesting.  Timestamps are the analysis's timeline (ns
 * since the log's start, rtrace's cost per stop taken out), written in
 * microseconds with three decimals, so no nanosecond is lost.
 *
 * Where the cost per stop was taken out, the timeline is kept from
 * running backwards, so a call's extent on it may differ from its total
 * time: "args" carry the exact total and self times of the report.  With
 * --raw-times the two agree.
 *
 * Per thread, only the calls now open are kept (their start on the track),
 * so memory never grows with the log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/output.h"
#include "rtrace/render.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct track {
	uint64_t cursor;           /* the last boundary laid out on it */
	bool used;
	VEC(uint64_t) open;        /* track starts of the open calls */
};

struct rt_chrome {
	FILE *out;
	const struct rt_view_ctx *v;
	VEC(struct track) tracks;  /* by rt_call.thread */
	VEC(char *) names;         /* by function key: JSON string literal */
	uint64_t events;
};

static struct track *track_of(struct rt_chrome *ch, uint32_t thread)
{
	while (ch->tracks.n <= thread)
		vec_push(&ch->tracks, ((struct track){ 0 }));
	return &ch->tracks.v[thread];
}

/* The function's name as a JSON literal, escaped once per function. */
static const char *json_name(struct rt_chrome *ch, uint32_t func)
{
	uint32_t key = rt_fkeys_key(ch->v->keys, func);
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	while (ch->names.n <= key)
		vec_push(&ch->names, NULL);
	if (ch->names.v[key])
		return ch->names.v[key];
	m = open_memstream(&buf, &len);
	if (!m)
		return "\"?\"";
	rt_json_string(m, rt_fkeys_name(ch->v->keys, key));
	fclose(m);
	ch->names.v[key] = buf;
	return buf;
}

/* Lays out the next boundary of @tr, at @ts or later: an entry after the
 * previous boundary, an exit not before it. */
static uint64_t place(struct track *tr, uint64_t ts, bool entry)
{
	uint64_t min = tr->cursor + entry;

	if (!tr->used || ts >= min)
		min = ts;
	tr->used = true;
	tr->cursor = min;
	return min;
}

static bool kept(struct rt_chrome *ch, const struct rt_call *c)
{
	const struct rt_opts *o = ch->v->o;
	int root;

	if (o->tid && c->tid != o->tid)
		return false;
	root = rt_fkeys_root(ch->v->keys, c);
	return root >= 0 && (!o->depth || c->depth - root < o->depth);
}

static void on_enter(void *ctx, const struct rt_call *c)
{
	struct rt_chrome *ch = ctx;
	struct track *tr;

	if (!kept(ch, c))
		return;
	tr = track_of(ch, c->thread);
	vec_push(&tr->open, place(tr, c->start, true));
}

static void print_args(FILE *out, const struct rt_call *c)
{
	static const struct { uint32_t flag; const char *name; } flags[] = {
		{ RT_CALL_UNWOUND, "unwound" },
		{ RT_CALL_TAIL, "tail_call" },
		{ RT_CALL_INCOMPLETE, "incomplete" },
		{ RT_CALL_APPROX_END, "approx_end" },
		{ RT_CALL_PARTIAL, "partial" },
	};

	fputs_unlocked(",\"args\":{\"total_ns\":", out);
	rt_put_u64(out, c->total);
	fputs_unlocked(",\"self_ns\":", out);
	rt_put_u64(out, c->self);
	/* its time is in an enclosing activation's already (the report's
	 * total counts the outermost one only) */
	if (!c->outermost)
		fputs(",\"recursive\":true", out);
	for (size_t i = 0; c->flags && i < ARRAY_SIZE(flags); i++)
		if (c->flags & flags[i].flag)
			fprintf(out, ",\"%s\":true", flags[i].name);
	fputs_unlocked("}}", out);
}

static void on_leave(void *ctx, const struct rt_call *c)
{
	struct rt_chrome *ch = ctx;
	const struct rt_opts *o = ch->v->o;
	uint64_t start, end;
	struct track *tr;

	if (!kept(ch, c))
		return;
	tr = track_of(ch, c->thread);
	end = place(tr, c->end, false);
	start = tr->open.n ? tr->open.v[--tr->open.n] : end;
	/* the window keeps the calls that overlap it */
	if (c->end < o->since_ns || (o->until_ns && c->start >= o->until_ns))
		return;
	/* printf would cost more than the analysis: a call is a line */
	fputs_unlocked(ch->events++ ? ",\n{\"name\":" : "\n{\"name\":", ch->out);
	fputs_unlocked(json_name(ch, c->func), ch->out);
	fputs_unlocked(",\"cat\":\"function\",\"ph\":\"X\",\"pid\":", ch->out);
	rt_put_u64(ch->out, c->pid);
	fputs_unlocked(",\"tid\":", ch->out);
	rt_put_u64(ch->out, c->tid);
	fputs_unlocked(",\"ts\":", ch->out);
	rt_put_fixed(ch->out, start, 3, 0);
	fputs_unlocked(",\"dur\":", ch->out);
	rt_put_fixed(ch->out, end - start, 3, 0);
	print_args(ch->out, c);
}

struct rt_chrome *rt_chrome_new(FILE *out, const struct rt_view_ctx *v)
{
	struct rt_chrome *ch = xcalloc(1, sizeof(*ch));
	char w[256];

	ch->out = out;
	ch->v = v;
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":\"rtrace\","
	      "\"log\":", out);
	rt_json_string(out, v->log_path);
	fputs(",\"command\":", out);
	rt_json_string(out, v->info->cmdline);
	if (rt_fmt_window(w, sizeof(w), v->info, rt_evlog_window(v->r))) {
		fputs(",\"events\":", out);
		rt_json_string(out, w);
	}
	fputs("},\n\"traceEvents\":[", out);
	return ch;
}

struct rt_sink rt_chrome_sink(struct rt_chrome *ch)
{
	return (struct rt_sink){ .enter = on_enter, .leave = on_leave,
				 .ctx = ch };
}

static void metadata(struct rt_chrome *ch, const char *what, uint32_t pid,
		     uint32_t tid, const char *name)
{
	fprintf(ch->out, "%s\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,",
		ch->events++ ? "," : "", what, pid);
	if (tid)
		fprintf(ch->out, "\"tid\":%u,", tid);
	fputs("\"args\":{\"name\":", ch->out);
	rt_json_string(ch->out, name);
	fputs("}}", ch->out);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Each process's program, and the name of each thread (its last). */
static void write_names(struct rt_chrome *ch)
{
	const struct rt_analysis_summary *sum = ch->v->sum;
	uint32_t n = sum ? sum->threads : 0;
	uint32_t *pids = xcalloc(n + 1, sizeof(*pids));

	for (uint32_t i = 0; i < n; i++)
		pids[i] = sum->thread_info[i].pid;
	qsort(pids, n, sizeof(*pids), cmp_u32);
	for (uint32_t i = 0; i < n; i++) {
		const char *exe = rt_evlog_process_exe(ch->v->r, pids[i]);

		if (i && pids[i] == pids[i - 1])
			continue;
		if (exe && *exe)
			metadata(ch, "process_name", pids[i], 0, base_name(exe));
	}
	free(pids);
	for (uint32_t i = 0; i < n; i++) {
		const struct rt_thread_info *ti = &sum->thread_info[i];

		if (ti->name)
			metadata(ch, "thread_name", ti->pid, ti->tid, ti->name);
	}
}

int rt_chrome_finish(struct rt_chrome *ch)
{
	int err;

	write_names(ch);
	fputs("\n]}\n", ch->out);
	err = ferror(ch->out) ? -EIO : 0;
	vec_for_each(&ch->tracks, tr)
		vec_free(&tr->open);
	vec_free(&ch->tracks);
	vec_for_each(&ch->names, s)
		free(*s);
	vec_free(&ch->names);
	free(ch);
	return err;
}
