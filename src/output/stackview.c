// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Distinct call stacks per function.  A sink counts calls by (function,
 * captured stack); memory grows with the number of distinct pairs.  The
 * stacks themselves, symbolised when they were recorded, come from the
 * log.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "stacks"
#define PR_DOMAIN RT_DOM_OUTPUT
#include "rtrace/analysis.h"
#include "rtrace/hashidx.h"
#include "rtrace/log.h"
#include "rtrace/output.h"
#include "rtrace/stackview.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct pair {
	uint32_t func, stack;
	uint64_t calls;
};

struct tally {
	VEC(struct pair) pairs;
	struct rt_hashidx index;   /* pairs by (func, stack) */
};

static bool pair_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct tally *t = ctx;
	const struct pair *p = &t->pairs.v[pos];
	const uint32_t *k = key;  /* func, stack */

	return p->func == k[0] && p->stack == k[1];
}

static void on_enter(void *ctx, const struct rt_call *c)
{
	struct tally *t = ctx;
	uint64_t h = rt_hash_pair(c->func, c->captured);
	uint32_t k[2] = { c->func, c->captured };
	uint32_t at;

	if (c->flags & RT_CALL_PARTIAL)
		return;
	at = rt_hashidx_find(&t->index, h, pair_is, t, k);
	if (at != RT_HASHIDX_NONE) {
		t->pairs.v[at].calls++;
		return;
	}
	vec_push(&t->pairs, ((struct pair){ c->func, c->captured, 1 }));
	rt_hashidx_add(&t->index, h, (uint32_t)t->pairs.n - 1);
}

static bool same_frames(const struct rt_log_stack *a,
			const struct rt_log_stack *b)
{
	if (!a || !b || a->n != b->n)
		return a == b;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct rt_log_frame *x = &a->frames[i], *y = &b->frames[i];

		if (x->line != y->line || strcmp(x->name, y->name) ||
		    strcmp(x->file ? x->file : "", y->file ? y->file : ""))
			return false;
	}
	return true;
}

static int cmp_func_stack(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/*
 * Stacks that differ only in return addresses read the same once
 * symbolised (an unrolled loop calls from several places of one line):
 * people ask about the readable stack, so those are added up.
 */
static void merge_same(struct tally *t, struct rt_evlog_reader *r)
{
	size_t out = 0, group = 0;   /* first output pair of this function */

	if (!t->pairs.n)  /* no calls: no array, and qsort wants one */
		return;
	qsort(t->pairs.v, t->pairs.n, sizeof(*t->pairs.v), cmp_func_stack);
	for (size_t i = 0; i < t->pairs.n; i++) {
		struct pair *p = &t->pairs.v[i];
		const struct rt_log_stack *st = rt_evlog_stack(r, p->stack);
		size_t j;

		if (!out || t->pairs.v[out - 1].func != p->func)
			group = out;
		for (j = group; j < out; j++)
			if (same_frames(rt_evlog_stack(r, t->pairs.v[j].stack),
					st))
				break;
		if (j < out)
			t->pairs.v[j].calls += p->calls;
		else
			t->pairs.v[out++] = *p;
	}
	t->pairs.n = out;
}

/* The analysis hands on only calls of functions in the log's table; the
 * fallback keeps this file safe on its own. */
static const char *func_name(struct rt_evlog_reader *r, uint32_t id)
{
	const struct rt_log_func *fn = rt_evlog_func(r, id);

	return fn ? fn->name : "?";
}

/* By function name, then by calls, most first. */
static int cmp_pair(const void *a, const void *b, void *arg)
{
	const struct pair *x = a, *y = b;
	struct rt_evlog_reader *r = arg;
	int c = strcmp(func_name(r, x->func), func_name(r, y->func));

	if (c)
		return c;
	return x->calls > y->calls ? -1 : x->calls < y->calls;
}

static void text_frames(FILE *out, const struct rt_log_stack *st)
{
	for (uint32_t i = 0; st && i < st->n; i++) {
		const struct rt_log_frame *f = &st->frames[i];

		if (i)
			fprintf(out, "%10s  <- %s", "", f->name);
		else
			fprintf(out, "  %s", f->name);
		if (f->file)
			fprintf(out, " (%s:%u)", f->file, f->line);
		fputc('\n', out);
	}
	if (!st)
		fputs("  (no stack captured)\n", out);
}

static void print_text(FILE *out, struct rt_evlog_reader *r,
		       const struct tally *t, const struct rt_opts *o)
{
	const char *cur = NULL;
	long shown = 0;

	for (size_t i = 0; i < t->pairs.n; i++) {
		const struct pair *p = &t->pairs.v[i];
		const char *name = func_name(r, p->func);

		if (!cur || strcmp(cur, name) != 0) {
			fprintf(out, "%s%s\n", cur ? "\n" : "", name);
			cur = name;
			shown = 0;
		}
		if (o->limit && shown++ >= o->limit)
			continue;
		fprintf(out, "%10llu", (unsigned long long)p->calls);
		text_frames(out, rt_evlog_stack(r, p->stack));
	}
	if (!t->pairs.n)
		fputs("(no traced function was called)\n", out);
}

static void json_frames(FILE *out, const struct rt_log_stack *st)
{
	fputs("\"frames\": [", out);
	for (uint32_t i = 0; st && i < st->n; i++) {
		fputs(i ? ", {\"name\": " : "{\"name\": ", out);
		rt_json_string(out, st->frames[i].name);
		fputs(", \"file\": ", out);
		rt_json_string(out, st->frames[i].file ? st->frames[i].file
						       : "");
		fprintf(out, ", \"line\": %u}", st->frames[i].line);
	}
	fputc(']', out);
}

static void print_json(FILE *out, struct rt_evlog_reader *r,
		       const struct tally *t)
{
	fputs("{\"stacks\": [", out);
	for (size_t i = 0; i < t->pairs.n; i++) {
		const struct pair *p = &t->pairs.v[i];

		fputs(i ? ",\n  {\"function\": " : "\n  {\"function\": ", out);
		rt_json_string(out, func_name(r, p->func));
		fprintf(out, ", \"calls\": %llu, ",
			(unsigned long long)p->calls);
		json_frames(out, rt_evlog_stack(r, p->stack));
		fputc('}', out);
	}
	fputs("]}\n", out);
}

int rt_stackview_print(struct rt_evlog_reader *r, const struct rt_opts *o,
		       FILE *out)
{
	struct tally t = { 0 };
	struct rt_sink sink = { .enter = on_enter, .ctx = &t };
	struct rt_analysis_opts aopts = { .stop_cost_ns = -1 };
	int err;

	err = rt_analyse(r, &aopts, &sink, 1, NULL);
	if (!err) {
		merge_same(&t, r);
		if (t.pairs.n)
			qsort_r(t.pairs.v, t.pairs.n, sizeof(*t.pairs.v),
				cmp_pair, r);
		if (o->format == RT_FMT_JSON)
			print_json(out, r, &t);
		else
			print_text(out, r, &t, o);
		err = ferror(out) ? -EIO : 0;
	}
	vec_free(&t.pairs);
	rt_hashidx_free(&t.index);
	return err;
}
