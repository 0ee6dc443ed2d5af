// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writes the seed corpus of the log-reader harness with the log writer:
 *
 *   fuzz-seed-evlog DIR
 *
 * Small logs, each a few hundred bytes, that between them hold every block
 * type and the shapes `rtrace record` produces: one thread, several
 * threads and processes with renames, a table split in two blocks, a log
 * without an end block, count-only and coverage sessions, a sparse
 * function id, a calibration curve, call stacks (--stack), a flight
 * recorder's window (--keep), and a log cut inside its last block.  Each is written in both formats: packed events
 * (format version 2, NAME) and 40-byte records (version 1, NAME-v1).
 * tests/fuzz/make-seeds.sh runs it; the output is checked in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrace/evlog.h"
#include "rtrace/profsave.h"

static const char *dir;
static const char *suffix = "";	/* "-v1" while writing version 1 */

static struct rt_log_info info(uint32_t flags, uint32_t npts)
{
	struct rt_log_info in = {
		.start_ns = 1000000, .start_real_ns = 1700000000000000000ULL,
		.stop_cost_ns = 2500, .pid = 4242, .flags = flags,
		.cmdline = "target/debug/demo 10", .cwd = "/src/demo",
		.host = "ci", .version = "0.1.0",
	};

	in.cost.n = npts;
	for (uint32_t i = 0; i < npts && i < RT_STOP_COST_POINTS; i++) {
		in.cost.interval_ns[i] = 1000u << i;
		in.cost.cost_ns[i] = 2000 + 300 * i;
	}
	return in;
}

static const struct rt_log_func funcs[] = {
	{ 0, 0, 0x401000, 64, 12, "demo::main", "_ZN4demo4main17h0123456789abcdefE",
	  "/src/demo/demo", "src/main.rs", 0 },
	{ 1, 0, 0x401040, 32, 20, "demo::fib", "_ZN4demo3fib17hfedcba9876543210E",
	  "/src/demo/demo", "src/main.rs", 0 },
	{ 2, 4, 0x401060, 16, 0, "<demo::S as core::fmt::Debug>::fmt",
	  "_RNvXCs4fqI2P2rA04_4demoNtB2_1SNtNtCs7QvxJc2PFQl_4core3fmt5Debug3fmt",
	  "/src/demo/demo", NULL, RT_FUNC_HELPER },
};

static struct rt_event ev(uint64_t ts, uint32_t tid, uint32_t func,
			  uint8_t kind, uint64_t sp)
{
	return (struct rt_event){ .ts = ts, .sp = sp, .tid = tid, .pid = 4242,
				  .func = func, .kind = kind, .nstops = 1 };
}

static char *path_of(const char *name)
{
	static char p[4096];

	snprintf(p, sizeof(p), "%s/%s%s", dir, name, suffix);
	return p;
}

static struct rt_evlog_writer *create(const char *name, uint32_t flags,
				      uint32_t npts)
{
	struct rt_log_info in = info(flags, npts);
	struct rt_evlog_writer *w;

	if (rt_evlog_create(path_of(name), &in, &w) < 0)
		exit(1);
	return w;
}

static void finish(struct rt_evlog_writer *w, bool with_end)
{
	struct rt_log_end end = { .end_ns = 9000000, .status = 0,
				  .how = RT_END_EXITED, .stops = 12,
				  .events = rt_evlog_nevents(w) };

	if (rt_evlog_close(w, with_end ? &end : NULL) < 0)
		exit(1);
}

/* main -> fib -> fib (recursion), a tail jump, the end of the thread. */
static void calls(struct rt_evlog_writer *w, uint32_t tid, uint64_t t)
{
	struct rt_event e[] = {
		ev(t + 1, tid, RT_FUNC_NONE, RT_EV_THREAD_START, 0),
		ev(t + 10, tid, 0, RT_EV_ENTRY, 0x7ff0),
		ev(t + 20, tid, 1, RT_EV_ENTRY, 0x7fe0),
		ev(t + 30, tid, 1, RT_EV_ENTRY, 0x7fd0),
		ev(t + 40, tid, 1, RT_EV_EXIT, 0x7fd0),
		ev(t + 45, tid, RT_FUNC_NONE, RT_EV_CALIB, 0),
		ev(t + 50, tid, 1, RT_EV_TAIL, 0x7fe0),
		ev(t + 60, tid, 2, RT_EV_EXIT, 0x7fe0),
		ev(t + 70, tid, RT_FUNC_NONE, RT_EV_DELAY, 0),
		ev(t + 80, tid, 0, RT_EV_EXIT, 0x7ff0),
		ev(t + 90, tid, RT_FUNC_NONE, RT_EV_THREAD_END, 0),
	};

	e[5].value = 2100;
	e[6].value = 0x401060;
	e[7].flags = RT_EVF_HELPER;
	e[8].value = 500;
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		rt_evlog_append(w, &e[i]);
}

static void one_thread(void)
{
	struct rt_evlog_writer *w = create("one-thread", 0, 3);

	rt_evlog_write_funcs(w, funcs, 3);
	rt_evlog_write_process(w, 4242, 1, "/src/demo/demo");
	rt_evlog_write_thread(w, 4242, 4242, "demo", 0);
	calls(w, 4242, 0);
	finish(w, true);
}

static void threads(void)
{
	struct rt_evlog_writer *w = create("threads", 0, 8);

	rt_evlog_write_funcs(w, funcs, 2);
	rt_evlog_write_thread(w, 4242, 4242, "demo", 0);
	calls(w, 4242, 0);
	rt_evlog_write_funcs(w, funcs + 2, 1);
	rt_evlog_write_thread(w, 4243, 4242, "worker", 0);
	rt_evlog_write_thread(w, 4243, 4242, "tests::one", RT_THREAD_TEST);
	calls(w, 4243, 1000);
	rt_evlog_write_process(w, 4300, 4242, "/bin/child");
	{
		struct rt_event e = ev(2000, 4300, RT_FUNC_NONE, RT_EV_EXEC, 0);

		e.pid = 4300;
		rt_evlog_append(w, &e);
	}
	finish(w, true);
}

static void no_end(void)
{
	struct rt_evlog_writer *w = create("no-end", RT_LOG_ATTACHED, 0);

	rt_evlog_write_funcs(w, funcs, 3);
	calls(w, 77, 0);
	finish(w, false);
}

static void count_only(void)
{
	struct rt_evlog_writer *w = create("count-only",
					   RT_LOG_COUNT_ONLY | RT_LOG_COVERAGE,
					   1);
	struct rt_event e = ev(5, 1, 0, RT_EV_ENTRY, 0);

	rt_evlog_write_funcs(w, funcs, 1);
	rt_evlog_append(w, &e);
	finish(w, true);
}

static void sparse_ids(void)
{
	struct rt_evlog_writer *w = create("sparse-ids", 0, 2);
	struct rt_log_func f = funcs[1];
	struct rt_event e = ev(5, 1, 300, RT_EV_ENTRY, 0x1000);

	f.id = 300;
	rt_evlog_write_funcs(w, &f, 1);
	rt_evlog_append(w, &e);
	e.kind = RT_EV_EXIT;
	rt_evlog_append(w, &e);
	finish(w, true);
}

/* --stack: entries name the stack recorded before them. */
static void stacks(void)
{
	struct rt_evlog_writer *w = create("stacks", 0, 2);
	struct rt_log_frame fr[] = {
		{ 0x401040, 20, "demo::fib", "src/main.rs" },
		{ 0x401010, 12, "demo::main", "src/main.rs" },
		{ 0x7f0000001234, 0, "??", NULL },
	};
	struct rt_event e = ev(5, 1, 1, RT_EV_ENTRY, 0x7fe0);

	rt_evlog_write_funcs(w, funcs, 3);
	rt_evlog_write_stack(w, 1, fr, 3);
	rt_evlog_write_stack(w, 2, fr + 1, 1);
	e.value = 1;
	rt_evlog_append(w, &e);
	e.kind = RT_EV_EXIT;
	e.value = 0;
	rt_evlog_append(w, &e);
	e = ev(7, 1, 0, RT_EV_ENTRY, 0x7ff0);
	e.value = 2;
	rt_evlog_append(w, &e);
	finish(w, true);
}

/* A flight recorder (--keep): tables, then the window record and the
 * window's events at the end. */
static void window(void)
{
	struct rt_evlog_writer *w = create("window", RT_LOG_WINDOW, 2);

	if (rt_evlog_keep_last(w, 0, 1 << 20) < 0)
		exit(1);
	rt_evlog_write_funcs(w, funcs, 3);
	rt_evlog_write_thread(w, 4242, 4242, "demo", 0);
	calls(w, 4242, 10);
	rt_evlog_write_process(w, 4242, 1, "/src/demo/demo");
	finish(w, true);
}

/* A log whose last block was being written when rtrace died. */
static void cut(void)
{
	char *p = strdup(path_of("one-thread"));
	char *q = strdup(path_of("cut"));
	FILE *in = fopen(p, "rb"), *out = fopen(q, "wb");
	char buf[4096];
	size_t n;

	if (!in || !out)
		exit(1);
	n = fread(buf, 1, sizeof(buf), in);
	/* drop the end block and part of the last events */
	fwrite(buf, 1, n > 68 ? n - 68 : n, out);
	fclose(in);
	fclose(out);
	free(p);
	free(q);
}

/* What --keep=none writes: the tables and the profile the writer's tap
 * made of the events, which stay out of the file. */
static void profile(void)
{
	struct rt_evlog_writer *w = create("profile", 0, 3);
	struct rt_proftap *t = rt_proftap_new("profile", NULL);
	struct rt_log_end end = { .end_ns = 9000000, .how = RT_END_EXITED };
	uint8_t *b = NULL;
	size_t n = 0;

	rt_evlog_set_tap(w, rt_proftap_blocks, t);
	rt_evlog_keep_events(w, false);
	rt_evlog_write_funcs(w, funcs, 3);
	rt_evlog_write_thread(w, 4242, 4242, "demo", 0);
	calls(w, 4242, 0);
	rt_evlog_write_thread(w, 4243, 4242, "tests::one", RT_THREAD_TEST);
	calls(w, 4243, 1000);
	rt_evlog_flush(w);
	rt_evlog_set_tap(w, NULL, NULL);
	if (rt_proftap_finish(t, &end, &b, &n) < 0 ||
	    rt_evlog_write_profile(w, b, n) < 0)
		exit(1);
	free(b);
	rt_proftap_free(t);
	finish(w, true);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz-seed-evlog DIR\n");
		return 2;
	}
	dir = argv[1];
	for (int v1 = 0; v1 < 2; v1++) {
		if (v1 && setenv("RTRACE_LOG_VERSION", "1", 1) < 0)
			return 1;
		suffix = v1 ? "-v1" : "";
		one_thread();
		threads();
		no_end();
		count_only();
		sparse_ids();
		stacks();
		window();
		cut();
		profile();
	}
	return 0;
}
