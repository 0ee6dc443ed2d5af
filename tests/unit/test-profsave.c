// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The profile a recording makes from its log writer's tap, and the bytes
 * of the profile block: a hand-made summary and rows survive the round
 * trip field by field; every cut of the block, a byte too many, a newer
 * version and forged counts are refused with -EBADMSG, never a crash; a
 * profile fed by the tap equals the one a report makes from the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrace/evlog.h"
#include "rtrace/profsave.h"
#include "rtrace/util.h"
#include "unittest.h"

#define T_ARGS bool *rt_test_failed__
#define T_PASS rt_test_failed__

static struct rt_thread_info threads[] = {
	{ .tid = 10, .pid = 10, .flags = 0, .name = "main", .calls = 7 },
	{ .tid = 11, .pid = 10, .creator = 1, .flags = RT_THREAD_TEST,
	  .name = "tests::one", .calls = 3 },
	{ .tid = 12, .pid = 13, .creator = 2, .name = NULL, .calls = 0 },
};

static uint64_t stops[] = { 0, 5, 0, 9 };

static struct rt_analysis_summary make_summary(void)
{
	return (struct rt_analysis_summary){
		.events = 101, .calls = 10, .inlined_calls = 2,
		.first_ts = 1000, .last_ts = 99999, .threads = 3,
		.processes = 2, .unmatched_exits = 4, .unknown_funcs = 1,
		.unwound = 3, .incomplete = 2, .stop_cost_ns = 12345,
		.stops = 77, .stop_events = 14, .func_stops = stops,
		.nfunc_stops = 4, .inline_cost_ns = 9,
		.thread_info = threads,
	};
}

/* Row @i's figures: each field its own value. */
static struct rt_fstats make_stats(unsigned i)
{
	return (struct rt_fstats){
		.calls = i + 1, .total = 1000 * i + 2, .self = 100 * i + 3,
		.blocked = i + 4, .taken = i + 5, .min = i + 6, .max = i + 7,
		.sum_incl = i + 8, .unwound = i + 9, .incomplete = i + 10,
		.partial = i + 11, .inlined = i + 12, .untimed = i + 13,
	};
}

/* Rows in an order no sort gives: the block must keep it. */
static struct rt_profile *make_profile(void)
{
	static const uint32_t keys[] = { 2, 1, 3, 1 };
	static const uint32_t funcs[] = { 3, 0, 1, 3 };
	struct rt_profile *p = rt_profile_new(RT_SPLIT_THREAD);

	for (unsigned i = 0; i < 4; i++) {
		struct rt_fstats st = make_stats(i);

		rt_profile_add_row(p, keys[i], funcs[i], &st);
	}
	return p;
}

static void encode_sample(uint8_t **b, size_t *n, bool raw)
{
	struct rt_analysis_summary sum = make_summary();
	struct rt_profile *p = make_profile();

	rt_profsave_encode(&sum, p, raw, b, n);
	rt_profile_free(p);
}

static void check_summary(T_ARGS, const struct rt_analysis_summary *got)
{
	struct rt_analysis_summary want = make_summary();

	TEST_EQ(got->events, want.events);
	TEST_EQ(got->calls, want.calls);
	TEST_EQ(got->inlined_calls, want.inlined_calls);
	TEST_EQ(got->first_ts, want.first_ts);
	TEST_EQ(got->last_ts, want.last_ts);
	TEST_EQ(got->threads, want.threads);
	TEST_EQ(got->processes, want.processes);
	TEST_EQ(got->unmatched_exits, want.unmatched_exits);
	TEST_EQ(got->unknown_funcs, want.unknown_funcs);
	TEST_EQ(got->unwound, want.unwound);
	TEST_EQ(got->incomplete, want.incomplete);
	TEST_EQ(got->stop_cost_ns, want.stop_cost_ns);
	TEST_EQ(got->stops, want.stops);
	TEST_EQ(got->stop_events, want.stop_events);
	TEST_EQ(got->inline_cost_ns, want.inline_cost_ns);
	TEST_EQ(got->nfunc_stops, 4);
	TEST_MEMEQ(got->func_stops, stops, sizeof(stops));
	for (unsigned i = 0; i < 3; i++) {
		const struct rt_thread_info *a = &got->thread_info[i];

		TEST_EQ(a->tid, threads[i].tid);
		TEST_EQ(a->pid, threads[i].pid);
		TEST_EQ(a->creator, threads[i].creator);
		TEST_EQ(a->flags, threads[i].flags);
		TEST_EQ(a->calls, threads[i].calls);
		if (threads[i].name)
			TEST_STREQ(a->name, threads[i].name);
		else
			TEST_TRUE(a->name == NULL);
	}
}

TEST_CASE(round_trip)
{
	struct rt_analysis_summary sum;
	struct rt_profile *got = NULL, *want = make_profile();
	bool raw = false;
	uint8_t *b;
	size_t n;

	encode_sample(&b, &n, true);
	TEST_EQ(rt_profsave_decode(b, n, "t", &sum, &got, &raw), 0);
	free(b);
	TEST_TRUE(raw);
	check_summary(T_PASS, &sum);
	TEST_EQ(rt_profile_nrows(got), rt_profile_nrows(want));
	for (size_t i = 0; i < rt_profile_nrows(want); i++) {
		const struct rt_profile_row *g = rt_profile_row(got, i);
		const struct rt_profile_row *w = rt_profile_row(want, i);

		TEST_EQ(g->key, w->key);
		TEST_EQ(g->func, w->func);
		TEST_MEMEQ(&g->st, &w->st, sizeof(g->st));
	}
	rt_analysis_summary_release(&sum);
	rt_profile_free(got);
	rt_profile_free(want);
}

static int decode(const uint8_t *b, size_t n)
{
	struct rt_analysis_summary sum;
	struct rt_profile *p = NULL;
	bool raw;
	int rc = rt_profsave_decode(b, n, "t", &sum, &p, &raw);

	if (!rc) {
		rt_analysis_summary_release(&sum);
		rt_profile_free(p);
	}
	return rc;
}

TEST_CASE(cut_or_damaged)
{
	uint8_t *b, *more;
	size_t n;
	uint32_t v;

	encode_sample(&b, &n, false);
	/* every cut, a byte too many */
	for (size_t cut = 0; cut < n; cut++) {
		uint8_t *copy = xmalloc(cut + 1);

		memcpy(copy, b, cut);
		if (decode(copy, cut) != -EBADMSG) {
			free(copy);
			free(b);
			TEST_FAIL__("a block cut at %zu of %zu bytes is read", cut, n);
		}
		free(copy);
	}
	more = xcalloc(1, n + 1);
	memcpy(more, b, n);
	TEST_EQ(decode(more, n + 1), -EBADMSG);
	free(more);
	/* a newer version */
	v = RT_PROFSAVE_VERSION + 1;
	memcpy(b, &v, 4);
	TEST_EQ(decode(b, n), -EBADMSG);
	v = RT_PROFSAVE_VERSION;
	memcpy(b, &v, 4);
	/* a forged count: the stops per function (after 2 + 13 * 2 + 1
	 * words) */
	memset(b + 4 * 29, 0xff, 4);
	TEST_EQ(decode(b, n), -EBADMSG);
	free(b);
}

/* ---- the tap against the file ------------------------------------------ */

static const struct rt_log_info info = {
	.start_ns = 1000, .stop_cost_ns = 50, .pid = 10,
	.cmdline = "./app", .cwd = "/", .host = "h", .version = "0",
};

/* A thread's calls: f0 calling f1 (which recurses into itself) and f2,
 * @n times, and a second thread that ends with a call open. */
static void append_calls(struct rt_evlog_writer *w, unsigned n)
{
	uint64_t ts = 2000;

	for (unsigned i = 0; i < n; i++) {
		const struct rt_event ev[] = {
			{ ts, 0x1000, 0, 10, 10, 0, RT_EV_ENTRY, 0, 1 },
			{ ts + 10, 0xff0, 0, 10, 10, 1, RT_EV_ENTRY, 0, 1 },
			{ ts + 15, 0xfe0, 0, 10, 10, 1, RT_EV_ENTRY, 0, 1 },
			{ ts + 30, 0xfe0, 0, 10, 10, 1, RT_EV_EXIT, 0, 1 },
			{ ts + 40 + i % 7, 0xff0, 0, 10, 10, 1, RT_EV_EXIT, 0, 1 },
			{ ts + 60, 0xff0, 0, 10, 10, 2, RT_EV_ENTRY, 0, 0 },
			{ ts + 90, 0xff0, 0, 10, 10, 2, RT_EV_EXIT, 0, 0 },
			{ ts + 100, 0x1000, 0, 10, 10, 0, RT_EV_EXIT, 0, 1 },
		};

		for (size_t k = 0; k < ARRAY_SIZE(ev); k++)
			rt_evlog_append(w, &ev[k]);
		ts += 200;
	}
	rt_evlog_append(w, &(struct rt_event){ ts, 0, 10, 11, 10,
		RT_FUNC_NONE, RT_EV_THREAD_START, 0, 0 });
	rt_evlog_append(w, &(struct rt_event){ ts + 5, 0x2000, 0, 11, 10, 2,
		RT_EV_ENTRY, 0, 1 });
}

static void write_log(T_ARGS, const char *path, struct rt_proftap *t)
{
	static const char *names[] = { "app::outer", "app::rec", "app::leaf" };
	struct rt_log_func f[3];
	struct rt_evlog_writer *w = NULL;
	struct rt_log_end end = { .end_ns = 10000000, .how = RT_END_EXITED };
	uint8_t *b = NULL;
	size_t n = 0;

	for (uint32_t i = 0; i < 3; i++)
		f[i] = (struct rt_log_func){ .id = i, .addr = 0x5000 + 64 * i,
			.size = 64, .name = names[i], .raw = names[i],
			.module = "/app" };
	TEST_EQ(rt_evlog_create(path, &info, &w), 0);
	rt_evlog_set_tap(w, rt_proftap_blocks, t);
	TEST_EQ(rt_evlog_write_funcs(w, f, 3), 0);
	TEST_EQ(rt_evlog_write_thread(w, 10, 10, "main", 0), 0);
	append_calls(w, 40000);  /* several event blocks */
	TEST_EQ(rt_evlog_flush(w), 0);
	rt_evlog_set_tap(w, NULL, NULL);
	TEST_EQ(rt_proftap_finish(t, &end, &b, &n), 0);
	TEST_EQ(rt_evlog_write_profile(w, b, n), 0);
	free(b);
	TEST_EQ(rt_evlog_close(w, &end), 0);
}

TEST_CASE(tap_equals_file)
{
	char path[] = "/tmp/rtrace-test-profsave-XXXXXX";
	struct rt_proftap *t = rt_proftap_new("tapped", NULL);
	struct rt_evlog_reader *r = NULL;
	struct rt_profile *file = rt_profile_new(RT_SPLIT_THREAD), *saved = NULL;
	struct rt_sink sink = rt_profile_sink(file);
	struct rt_analysis_summary fsum, ssum;
	const uint8_t *b;
	size_t n;
	bool raw;
	int fd = mkstemp(path);

	TEST_TRUE(fd >= 0);
	close(fd);
	write_log(T_PASS, path, t);
	rt_proftap_free(t);
	TEST_EQ(rt_evlog_open(path, &r), 0);
	TEST_EQ(rt_analyse(r, NULL, &sink, 1, &fsum), 0);
	b = rt_evlog_profile(r, &n);
	TEST_TRUE(b != NULL);
	TEST_EQ(rt_profsave_decode(b, n, path, &ssum, &saved, &raw), 0);
	TEST_EQ(ssum.calls, 40000 * 4 + 1);
	TEST_EQ(ssum.calls, fsum.calls);
	TEST_EQ(ssum.events, fsum.events);
	TEST_EQ(ssum.threads, 2);
	TEST_EQ(ssum.incomplete, fsum.incomplete);
	TEST_STREQ(ssum.thread_info[0].name, "main");
	TEST_EQ(rt_profile_nrows(saved), rt_profile_nrows(file));
	TEST_EQ(rt_profile_nrows(file), 4);
	for (size_t i = 0; i < rt_profile_nrows(file); i++) {
		const struct rt_profile_row *a = rt_profile_row(file, i);
		const struct rt_profile_row *s = rt_profile_row(saved, i);

		TEST_EQ(a->key, s->key);
		TEST_EQ(a->func, s->func);
		TEST_MEMEQ(&a->st, &s->st, sizeof(a->st));
	}
	/* by hand: app::rec's first leave makes the first row, and both
	 * activations of each round count; the second thread's call is
	 * left open */
	TEST_EQ(rt_profile_row(file, 0)->func, 1);
	TEST_EQ(rt_profile_row(file, 0)->st.calls, 80000);
	TEST_EQ(rt_profile_row(file, 3)->st.incomplete, 1);
	rt_analysis_summary_release(&fsum);
	rt_analysis_summary_release(&ssum);
	rt_profile_free(saved);
	rt_profile_free(file);
	rt_evlog_reader_free(r);
	unlink(path);
}
