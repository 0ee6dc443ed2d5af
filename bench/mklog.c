// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mklog: a synthetic but well-formed event log of any length, for the
 * report benchmark; and the log reader alone, as its baseline.
 *
 *   mklog write LOG N [THREADS]   write a log of about N events
 *   mklog read LOG                read LOG with the log reader only
 *
 * write goes through the real writer (include/rtrace/evlog.h), so the
 * file is what rtrace itself would write: a session block with a
 * stop-cost curve, a process, a function table of NFUNCS functions, the
 * names of THREADS threads (default 4), then the threads' events,
 * interleaved in bursts, in time order.  Each thread walks a random call
 * tree (a fixed seed: the same N always gives the same file): ENTRY and
 * EXIT events, nested at most MAX_DEPTH deep, with the stack pointer of a
 * frame falling with its depth as on a real stack, some recursion, one
 * stop per event; every frame is closed before its thread ends.  Last, an
 * end block: the program exited with status 0.  It prints
 *
 *   mklog: wrote E events (C calls) to LOG
 *
 * where E counts every event (thread starts and ends included) and C the
 * calls, which `rtrace report --format json LOG` must also count.
 *
 * read streams the log through rt_evlog_next() and does nothing with the
 * events: the cost of decoding, the floor under any report.  It prints
 *
 *   mklog: read E events in T ns
 *
 * Links against rtrace's own libraries (librtrace_core.a and the rest);
 * bench/run builds it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtrace/evlog.h"

#define NFUNCS 64
#define MAX_DEPTH 12
#define MAX_THREADS 64
#define PID 4242
#define STACK_TOP 0x7ffff0000000ull
#define FRAME 0x60		/* stack bytes per frame */

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: deterministic, fast, good enough for shapes */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t bound)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (uint32_t)((rnd_state * 0x2545f4914f6cdd1dull) >> 32) % bound;
}

struct thread {
	uint32_t tid;
	int depth;
	uint32_t stack[MAX_DEPTH];	/* function ids of the open frames */
};

static uint64_t clock_ns = 1000000000ull;	/* the synthetic clock */

static void emit(struct rt_evlog_writer *w, const struct thread *t,
		 uint8_t kind, uint32_t func, uint64_t sp, uint64_t value)
{
	struct rt_event ev = {
		.ts = clock_ns, .sp = sp, .value = value, .tid = t->tid,
		.pid = PID, .func = func, .kind = kind, .nstops = 1,
	};

	/* time to the next stop: a stop's cost and some work */
	clock_ns += 31000 + rnd(60000);
	rt_evlog_append(w, &ev);
}

static void enter(struct rt_evlog_writer *w, struct thread *t, uint32_t f)
{
	t->stack[t->depth++] = f;
	emit(w, t, RT_EV_ENTRY, f, STACK_TOP - t->depth * FRAME, 0);
}

static void leave(struct rt_evlog_writer *w, struct thread *t)
{
	uint32_t f = t->stack[--t->depth];

	emit(w, t, RT_EV_EXIT, f, STACK_TOP - (t->depth + 1) * FRAME, f);
}

/* One step of thread @t's call tree: enter a function (mostly a new one,
 * now and then the caller again: recursion) or return from one.  Returns
 * 1 for a call, 0 for a return. */
static int step(struct rt_evlog_writer *w, struct thread *t)
{
	if (t->depth == 0 || (t->depth < MAX_DEPTH && rnd(100) < 52)) {
		enter(w, t, t->depth && rnd(16) == 0 ?
				    t->stack[t->depth - 1] : rnd(NFUNCS));
		return 1;
	}
	leave(w, t);
	return 0;
}

static int write_log(const char *path, uint64_t n, unsigned nthreads)
{
	struct rt_log_info info = {
		.start_ns = clock_ns - 1000,
		.start_real_ns = now_ns(CLOCK_REALTIME),
		.stop_cost_ns = 30000,
		.cost = { .n = 2, .interval_ns = { 1000, 1000000 },
			  .cost_ns = { 30000, 33000 } },
		.pid = PID,
		.cmdline = "synthetic (bench/mklog)",
		.cwd = "/", .host = "bench", .version = "bench",
	};
	struct rt_log_func funcs[NFUNCS];
	char names[NFUNCS][32], raws[NFUNCS][64];
	struct thread threads[MAX_THREADS] = { 0 };
	struct rt_evlog_writer *w;
	uint64_t events = 0, calls = 0;
	struct rt_log_end end;
	int err;

	err = rt_evlog_create(path, &info, &w);
	if (err)
		return 1;
	rt_evlog_write_process(w, PID, 1, "/synthetic/prog");
	for (unsigned i = 0; i < NFUNCS; i++) {
		snprintf(names[i], sizeof(names[i]), "synth::mod%u::f%02u",
			 i / 8, i);
		snprintf(raws[i], sizeof(raws[i]),
			 "_ZN5synth4mod%u3f%02u17h%016xE", i / 8, i, i);
		funcs[i] = (struct rt_log_func){
			.id = i, .addr = 0x555555554000ull + 0x100 * i,
			.size = 0x80, .line = 10 + i, .name = names[i],
			.raw = raws[i], .module = "/synthetic/prog",
			.file = "synth.rs",
		};
	}
	rt_evlog_write_funcs(w, funcs, NFUNCS);

	for (unsigned i = 0; i < nthreads; i++) {
		char name[16];

		threads[i].tid = PID + i;
		snprintf(name, sizeof(name), i ? "worker-%u" : "prog", i);
		rt_evlog_write_thread(w, threads[i].tid, PID, name, 0);
		emit(w, &threads[i], RT_EV_THREAD_START, RT_FUNC_NONE, 0,
		     i ? PID : 0);
		events++;
	}
	/* bursts of 1 to 64 steps per thread, round robin, until about n
	 * events; then every thread unwinds to depth 0 and ends */
	for (unsigned i = 0; events < n; i = (i + 1) % nthreads) {
		for (uint32_t k = 1 + rnd(64); k && events < n; k--) {
			calls += step(w, &threads[i]);
			events++;
		}
	}
	for (unsigned i = 0; i < nthreads; i++) {
		while (threads[i].depth) {
			leave(w, &threads[i]);
			events++;
		}
		emit(w, &threads[i], RT_EV_THREAD_END, RT_FUNC_NONE,
		     STACK_TOP, 0);
		events++;
	}
	end = (struct rt_log_end){
		.end_ns = clock_ns, .status = 0, .how = RT_END_EXITED,
		.stops = events, .events = events,
	};
	if (rt_evlog_close(w, &end))
		return 1;
	printf("mklog: wrote %llu events (%llu calls) to %s\n",
	       (unsigned long long)events, (unsigned long long)calls, path);
	return 0;
}

static int read_log(const char *path)
{
	struct rt_evlog_reader *r;
	struct rt_event ev;
	uint64_t t0, n = 0;
	int ret;

	t0 = now_ns(CLOCK_MONOTONIC);
	if (rt_evlog_open(path, &r))
		return 1;
	while ((ret = rt_evlog_next(r, &ev)) > 0)
		n++;
	rt_evlog_reader_free(r);
	if (ret < 0)
		return 1;
	printf("mklog: read %llu events in %llu ns\n", (unsigned long long)n,
	       (unsigned long long)(now_ns(CLOCK_MONOTONIC) - t0));
	return 0;
}

static int usage(void)
{
	fputs("usage: mklog write LOG N [THREADS]\n"
	      "       mklog read LOG\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && argc <= 5 && !strcmp(argv[1], "write")) {
		unsigned long long n = strtoull(argv[3], NULL, 10);
		unsigned long t = argc > 4 ? strtoul(argv[4], NULL, 10) : 4;

		if (t < 1 || t > MAX_THREADS)
			return usage();
		return write_log(argv[2], n, (unsigned)t);
	}
	if (argc == 3 && !strcmp(argv[1], "read"))
		return read_log(argv[2]);
	return usage();
}
