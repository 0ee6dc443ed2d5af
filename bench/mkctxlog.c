// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mkctxlog: a synthetic event log shaped like a real program, for the
 * throughput of the views (tree, graph, replay, exports).
 *
 *   mkctxlog LOG N [THREADS]    write a log of about N events
 *
 * mklog (its sibling) draws random call trees: almost every call there is
 * a calling context of its own, the worst case for the views that
 * aggregate by context (tree, folded stacks, flame graph).  Programs have
 * a fixed call graph instead, and few contexts.  Here each of THREADS
 * threads (default 4) runs, over and over, the same program: main calls
 * step() in a loop; step calls parse, which calls lex 3 times and a
 * recursive expr 1-4 deep, then eval (calls lookup twice) and emit.  About
 * 20 distinct contexts; nothing but ENTRY and EXIT events, one stop each,
 * written through rtrace's own log writer.  It prints
 *
 *   mkctxlog: wrote E events (C calls) to LOG
 *
 * Build: cc -O2 -D_GNU_SOURCE -I include bench/mkctxlog.c build/librtrace_core.a
 *        build/librtrace_arch.a build/librtrace_util.a -lcapstone -ldw -lelf
 *        -liberty -lm
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rtrace/evlog.h"

enum { MAIN, STEP, PARSE, LEX, EXPR, EVAL, LOOKUP, EMIT, NFUNCS };

static const char *const names[NFUNCS] = {
	"app::main", "app::step", "app::parse::parse", "app::parse::lex",
	"app::parse::expr", "<app::Eval as app::Run>::eval", "app::env::lookup",
	"app::emit",
};

#define PID 4242
#define STACK_TOP 0x7ffff0000000ull
#define FRAME 0x60

struct gen {
	struct rt_evlog_writer *w;
	uint64_t clock, events, calls;
	uint32_t tid;
	unsigned depth;
};

static void event(struct gen *g, uint8_t kind, uint32_t func)
{
	struct rt_event ev = {
		.ts = g->clock, .sp = STACK_TOP - g->depth * FRAME,
		.tid = g->tid, .pid = PID, .func = func, .kind = kind,
		.nstops = 1,
	};

	g->clock += 40 + (g->events * 7919 % 300);  /* ns between stops */
	rt_evlog_append(g->w, &ev);
	g->events++;
}

static void enter(struct gen *g, uint32_t f)
{
	g->depth++;
	event(g, RT_EV_ENTRY, f);
	g->calls++;
}

static void leave(struct gen *g, uint32_t f)
{
	event(g, RT_EV_EXIT, f);
	g->depth--;
}

static void leaf(struct gen *g, uint32_t f)
{
	enter(g, f);
	leave(g, f);
}

static void expr(struct gen *g, unsigned n)
{
	enter(g, EXPR);
	if (n > 1)
		expr(g, n - 1);
	leave(g, EXPR);
}

/* One step: 2 * (1 + 1 + 3 + (1..4) + 1 + 2 + 1) events. */
static void step(struct gen *g, uint64_t i)
{
	enter(g, STEP);
	enter(g, PARSE);
	for (int k = 0; k < 3; k++)
		leaf(g, LEX);
	expr(g, 1 + i % 4);
	leave(g, PARSE);
	enter(g, EVAL);
	leaf(g, LOOKUP);
	leaf(g, LOOKUP);
	leave(g, EVAL);
	leaf(g, EMIT);
	leave(g, STEP);
}

int main(int argc, char **argv)
{
	struct rt_log_info info = {
		.start_ns = 1000000000ull, .stop_cost_ns = 0, .pid = PID,
		.cmdline = "synthetic (bench/mkctxlog)", .version = "bench",
	};
	struct rt_log_func funcs[NFUNCS];
	struct rt_log_end end = { .how = RT_END_EXITED };
	struct gen g = { .clock = info.start_ns + 1000 };
	uint64_t n, per_thread;
	unsigned threads;

	if (argc < 3) {
		fputs("usage: mkctxlog LOG N [THREADS]\n", stderr);
		return 2;
	}
	n = strtoull(argv[2], NULL, 10);
	threads = argc > 3 ? atoi(argv[3]) : 4;
	if (!threads || rt_evlog_create(argv[1], &info, &g.w))
		return 1;
	for (uint32_t i = 0; i < NFUNCS; i++)
		funcs[i] = (struct rt_log_func){ .id = i, .name = names[i],
						 .addr = 0x401000 + i * 0x40,
						 .size = 0x40 };
	rt_evlog_write_funcs(g.w, funcs, NFUNCS);
	rt_evlog_write_process(g.w, PID, 1, "/usr/bin/app");
	per_thread = n / threads;
	for (unsigned t = 0; t < threads; t++) {
		uint64_t start = g.events;

		g.tid = PID + t;
		rt_evlog_write_thread(g.w, g.tid, PID, t ? "worker" : "app", 0);
		enter(&g, MAIN);
		for (uint64_t i = 0; g.events - start + 30 < per_thread; i++)
			step(&g, i);
		leave(&g, MAIN);
	}
	end.end_ns = g.clock;
	end.events = g.events;
	if (rt_evlog_close(g.w, &end))
		return 1;
	printf("mkctxlog: wrote %llu events (%llu calls) to %s\n",
	       (unsigned long long)g.events, (unsigned long long)g.calls,
	       argv[1]);
	return 0;
}
