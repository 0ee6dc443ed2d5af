// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The views beyond the table, on a small log written here: the call tree
 * (text and JSON), the call graph (text and JSON), the replay, the Chrome
 * trace, folded stacks, the report's --function and --min-total (text and
 * CSV), and the flame graph's and HTML page's structure.
 *
 * Expected outputs come from construction.  The log has no per-stop cost
 * (stop_cost_ns 0, nstops 0), so every time below is the difference of two
 * timestamps of the stream; each derivation is in the comment next to it.
 * Timestamps are ns after T0, the log's start (so the timeline's positions
 * are the same numbers).
 *
 * The program, pid 1, "./app --flag", two threads:
 *
 *   tid 10 "main"      100 main {                         S0
 *                      200   parse {                      S1
 *                      250     lex {  300 }               S2
 *                      400     lex {  420 }               S2
 *                      500   }
 *                      600   emit {  700 }                S1
 *                      800   parse' {  850 }  (a second instance of parse,
 *                                              another id, the same name)
 *                     1000 }
 *   tid 11 "worker"    150 starts (created by tid 10)
 *                      310 <T as Tr>::f {                 W0
 *                      350   lex {  380 }                 W1
 *                      450 }
 *                      460 ends
 *
 * Durations: main 900; parse 300 (self 300 - 50 - 20 = 230); lex 50, 20
 * and 30; emit 100; parse' 50; f 140 (self 140 - 30 = 110); main's self
 * 900 - 300 - 100 - 50 = 450.  8 calls.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrace/analysis.h"
#include "rtrace/callgraph.h"
#include "rtrace/cct.h"
#include "rtrace/cli.h"
#include "rtrace/evlog.h"
#include "rtrace/fkeys.h"
#include "rtrace/opts.h"
#include "rtrace/output.h"
#include "rtrace/render.h"
#include "rtrace/report.h"
#include "rtrace/util.h"
#include "rtrace/views.h"
#include "unittest.h"

#define T0 5000000000ULL
#define PID 1
#define S0 0x7ffc0000ULL
#define S1 (S0 - 0x40)
#define S2 (S0 - 0x80)
#define W0 0x7f000000ULL
#define W1 (W0 - 0x40)

enum { MAIN, PARSE, LEX, EMIT, F, PARSE2, NFUNCS };

static const char LOG_NAME[] = "t.rtlog";  /* the name the views print */

static struct rt_event ev(uint64_t ts, enum rt_event_kind kind, uint32_t func,
			  uint64_t sp, uint32_t tid)
{
	return (struct rt_event){ .ts = T0 + ts, .kind = kind, .func = func,
				  .sp = sp, .tid = tid, .pid = PID };
}

static struct rt_event thread_ev(uint64_t ts, enum rt_event_kind kind,
				 uint32_t tid, uint64_t value)
{
	struct rt_event e = ev(ts, kind, RT_FUNC_NONE, 0, tid);

	e.value = value;
	return e;
}

/* ---- the log ------------------------------------------------------------- */

struct logfile {
	char dir[64];
	char *path;
};

/* The inlined instances the log gives emit (0 but in one case). */
static uint32_t emit_sites;

static int write_log(struct logfile *lf, const struct rt_event *e, size_t n)
{
	static const struct rt_log_info info = {
		.start_ns = T0, .stop_cost_ns = 0, .pid = PID,
		.cmdline = "./app --flag", .version = "test",
	};
	static struct rt_log_func funcs[] = {
		{ .id = MAIN, .addr = 0x401000, .size = 64, .name = "main",
		  .raw = "_ZN3app4main17h0000000000000000E" },
		{ .id = PARSE, .addr = 0x401040, .size = 16, .name = "parse" },
		{ .id = LEX, .addr = 0x401050, .size = 16, .name = "lex" },
		{ .id = EMIT, .addr = 0x401060, .size = 16, .name = "emit" },
		{ .id = F, .addr = 0x401070, .size = 16, .name = "<T as Tr>::f" },
		{ .id = PARSE2, .addr = 0x401080, .size = 16, .name = "parse" },
	};
	const struct rt_log_end end = { .end_ns = T0 + 2000,
					.how = RT_END_EXITED };
	struct rt_evlog_writer *w;

	funcs[3].inlined_sites = emit_sites;
	strcpy(lf->dir, "/tmp/rtrace-test-views-XXXXXX");
	if (!mkdtemp(lf->dir))
		return -1;
	lf->path = xasprintf("%s/t.rtlog", lf->dir);
	if (rt_evlog_create(lf->path, &info, &w) ||
	    rt_evlog_write_funcs(w, funcs, ARRAY_SIZE(funcs)) ||
	    rt_evlog_write_process(w, PID, 0, "/usr/bin/app") ||
	    rt_evlog_write_thread(w, 10, PID, "main", 0) ||
	    rt_evlog_write_thread(w, 11, PID, "worker", 0))
		return -1;
	for (size_t i = 0; i < n; i++)
		rt_evlog_append(w, &e[i]);
	return rt_evlog_close(w, &end);
}

static void remove_log(struct logfile *lf)
{
	unlink(lf->path);
	rmdir(lf->dir);
	free(lf->path);
}

static int program_log(struct logfile *lf)
{
	const struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, MAIN, S0, 10),
		thread_ev(150, RT_EV_THREAD_START, 11, 10),
		ev(200, RT_EV_ENTRY, PARSE, S1, 10),
		ev(250, RT_EV_ENTRY, LEX, S2, 10),
		ev(300, RT_EV_EXIT, LEX, S2, 10),
		ev(310, RT_EV_ENTRY, F, W0, 11),
		ev(350, RT_EV_ENTRY, LEX, W1, 11),
		ev(380, RT_EV_EXIT, LEX, W1, 11),
		ev(400, RT_EV_ENTRY, LEX, S2, 10),
		ev(420, RT_EV_EXIT, LEX, S2, 10),
		ev(450, RT_EV_EXIT, F, W0, 11),
		thread_ev(460, RT_EV_THREAD_END, 11, 0),
		ev(500, RT_EV_EXIT, PARSE, S1, 10),
		ev(600, RT_EV_ENTRY, EMIT, S1, 10),
		ev(700, RT_EV_EXIT, EMIT, S1, 10),
		ev(800, RT_EV_ENTRY, PARSE2, S1, 10),
		ev(850, RT_EV_EXIT, PARSE2, S1, 10),
		ev(1000, RT_EV_EXIT, MAIN, S0, 10),
	};

	return write_log(lf, e, ARRAY_SIZE(e));
}

/* ---- running a view into a string ---------------------------------------- */

enum view { V_TREE, V_GRAPH, V_REPLAY, V_CHROME, V_FOLDED, V_SVG };

struct run {
	struct rt_evlog_reader *r;
	struct rt_fkeys *keys;
	struct rt_analysis_summary sum;
	struct rt_view_ctx v;
	char *buf;
	size_t len;
	FILE *out;
};

static void run_open(struct run *x, const struct logfile *lf,
		     const struct rt_opts *o)
{
	memset(x, 0, sizeof(*x));
	if (rt_evlog_open(lf->path, &x->r))
		abort();
	x->keys = rt_fkeys_new(x->r, o->instances, o->include.v, o->include.n);
	x->v = (struct rt_view_ctx){ .log_path = LOG_NAME, .r = x->r,
				     .info = rt_evlog_info(x->r),
				     .keys = x->keys, .o = o };
	x->out = open_memstream(&x->buf, &x->len);
}

static int analyse(struct run *x, struct rt_sink sink)
{
	const struct rt_analysis_opts a = { .stop_cost_ns = -1 };
	int err = rt_analyse(x->r, &a, &sink, 1, &x->sum);

	x->v.sum = &x->sum;
	return err;
}

/* The output of view @which of the log, as a string the caller frees. */
static char *view(const struct logfile *lf, const struct rt_opts *o,
		  enum view which)
{
	struct run x;
	struct rt_cct *t = NULL;
	struct rt_callgraph *g = NULL;
	struct rt_replay *rp = NULL;
	struct rt_chrome *ch = NULL;

	run_open(&x, lf, o);
	switch (which) {
	case V_GRAPH:
		g = rt_callgraph_new(x.keys, o->tid);
		analyse(&x, rt_callgraph_sink(g));
		rt_graph_write(x.out, &x.v, g, o->graph);
		break;
	case V_REPLAY:
		rp = rt_replay_new(x.out, &x.v);
		analyse(&x, rt_replay_sink(rp));
		rt_replay_finish(rp);
		break;
	case V_CHROME:
		ch = rt_chrome_new(x.out, &x.v);
		analyse(&x, rt_chrome_sink(ch));
		rt_chrome_finish(ch);
		break;
	default:
		t = rt_cct_new(x.keys, o->tid);
		analyse(&x, rt_cct_sink(t));
		if (which == V_TREE)
			rt_tree_write(x.out, &x.v, t);
		else if (which == V_FOLDED)
			rt_folded_write(x.out, &x.v, t);
		else
			rt_flame_write(x.out, &x.v, t, false);
		break;
	}
	fclose(x.out);
	rt_cct_free(t);
	rt_callgraph_free(g);
	rt_analysis_summary_release(&x.sum);
	rt_fkeys_free(x.keys);
	rt_evlog_reader_free(x.r);
	return x.buf;
}

/* Compares line by line, so that a failure shows the first difference. */
#define TEST_TEXT(got, want)                                                   \
	do {                                                                   \
		const char *g__ = (got), *w__ = (want);                        \
		int line__ = 1;                                                \
		while (*g__ && *g__ == *w__) {                                 \
			line__ += *g__ == '\n';                                \
			g__++, w__++;                                          \
		}                                                              \
		if (*g__ || *w__) {                                            \
			fprintf(stderr, "  line %d differs:\n  got:  %.*s\n"   \
				"  want: %.*s\n", line__,                      \
				(int)strcspn(g__, "\n"), g__,                  \
				(int)strcspn(w__, "\n"), w__);                 \
			TEST_STREQ(got, want);                                 \
		}                                                              \
	} while (0)

#define WITH_LOG(lf)                                                           \
	struct logfile lf;                                                     \
	TEST_EQ(program_log(&lf), 0)

static void opts(struct rt_opts *o)
{
	rt_opts_init(o);
	o->cmd = RT_CMD_REPORT;
}

/* ---- the call tree --------------------------------------------------------- */

static const char tree_legend[] =
	"\ncalls, total and self are those of the function called through "
	"the path above it;\ntotal: time from entry to return, callees "
	"included; self: total minus traced callees.\n";

TEST_CASE(tree_text)
{
	struct rt_opts o;
	char *s, *want;

	WITH_LOG(lf);
	opts(&o);
	s = view(&lf, &o, V_TREE);
	/* both parse instances merge by name into one context under main:
	 * 2 calls, 300 + 50 = 350 total, 230 + 50 = 280 self; the lex
	 * under them: 50 + 20.  Roots by total: main 900, f 140; main's
	 * children: parse 350, emit 100. */
	want = xasprintf(
		"# rtrace tree: t.rtlog\n"
		"# command:  ./app --flag\n"
		"# calls:    8 in 2 threads, 1 process\n"
		"\n"
		"     calls       total        self  function\n"
		"         1      900 ns      450 ns  main\n"
		"         2      350 ns      280 ns  ├─ parse\n"
		"         2       70 ns       70 ns  │  └─ lex\n"
		"         1      100 ns      100 ns  └─ emit\n"
		"         1      140 ns      110 ns  <T as Tr>::f\n"
		"         1       30 ns       30 ns  └─ lex\n"
		"%s", tree_legend);
	TEST_TEXT(s, want);
	free(s);
	free(want);
	remove_log(&lf);
}

TEST_CASE(tree_pruned)
{
	struct rt_opts o;
	char *s, *want;

	WITH_LOG(lf);
	opts(&o);
	/* --depth 2 drops the lex under parse (depth 3); --min-total 100ns
	 * drops f's lex (depth 2, 30 ns): 2 contexts hidden */
	o.depth = 2;
	o.min_total_ns = 100;
	s = view(&lf, &o, V_TREE);
	want = xasprintf(
		"# rtrace tree: t.rtlog\n"
		"# command:  ./app --flag\n"
		"# calls:    8 in 2 threads, 1 process\n"
		"\n"
		"     calls       total        self  function\n"
		"         1      900 ns      450 ns  main\n"
		"         2      350 ns      280 ns  ├─ parse\n"
		"         1      100 ns      100 ns  └─ emit\n"
		"         1      140 ns      110 ns  <T as Tr>::f\n"
		"... 2 more calling contexts (--depth, --min-total)\n"
		"%s", tree_legend);
	TEST_TEXT(s, want);
	free(s);
	free(want);
	remove_log(&lf);
}

TEST_CASE(tree_focus_and_tid)
{
	struct rt_opts o;
	char *s, *want;

	WITH_LOG(lf);
	opts(&o);
	/* -f 'pars?': the tree starts at the parse calls (both merged); the
	 * header still counts the log's calls */
	vec_push(&o.include, "pars?");
	s = view(&lf, &o, V_TREE);
	want = xasprintf(
		"# rtrace tree: t.rtlog\n"
		"# command:  ./app --flag\n"
		"# calls:    8 in 2 threads, 1 process\n"
		"\n"
		"     calls       total        self  function\n"
		"         2      350 ns      280 ns  parse\n"
		"         2       70 ns       70 ns  └─ lex\n"
		"%s", tree_legend);
	TEST_TEXT(s, want);
	free(s);
	free(want);
	/* --tid 11: the worker's calls only */
	o.include.n = 0;
	o.tid = 11;
	s = view(&lf, &o, V_TREE);
	want = xasprintf(
		"# rtrace tree: t.rtlog\n"
		"# command:  ./app --flag\n"
		"# calls:    8 in 2 threads, 1 process\n"
		"\n"
		"     calls       total        self  function\n"
		"         1      140 ns      110 ns  <T as Tr>::f\n"
		"         1       30 ns       30 ns  └─ lex\n"
		"%s", tree_legend);
	TEST_TEXT(s, want);
	free(s);
	free(want);
	rt_opts_release(&o);
	remove_log(&lf);
}

TEST_CASE(tree_json)
{
	struct rt_opts o;
	char *s;

	WITH_LOG(lf);
	opts(&o);
	o.format = RT_FMT_JSON;
	s = view(&lf, &o, V_TREE);
	/* the same figures as tree_text, nested */
	TEST_TEXT(s,
		  "{\"log\": \"t.rtlog\", \"command\": \"./app --flag\", "
		  "\"calls\": 8, \"tree\": ["
		  "{\"name\": \"main\", \"calls\": 1, \"total_ns\": 900, "
		  "\"self_ns\": 450, \"unwound\": 0, \"children\": ["
		  "{\"name\": \"parse\", \"calls\": 2, \"total_ns\": 350, "
		  "\"self_ns\": 280, \"unwound\": 0, \"children\": ["
		  "{\"name\": \"lex\", \"calls\": 2, \"total_ns\": 70, "
		  "\"self_ns\": 70, \"unwound\": 0, \"children\": []}]}, "
		  "{\"name\": \"emit\", \"calls\": 1, \"total_ns\": 100, "
		  "\"self_ns\": 100, \"unwound\": 0, \"children\": []}]}, "
		  "{\"name\": \"<T as Tr>::f\", \"calls\": 1, \"total_ns\": 140, "
		  "\"self_ns\": 110, \"unwound\": 0, \"children\": ["
		  "{\"name\": \"lex\", \"calls\": 1, \"total_ns\": 30, "
		  "\"self_ns\": 30, \"unwound\": 0, \"children\": []}]}]}\n");
	free(s);
	remove_log(&lf);
}

/* ---- the call graph -------------------------------------------------------- */

static const char graph_rule[] =
	"-------------------------------------------------------------------"
	"------------\n";
static const char graph_legend[] =
	"\nEach block: the function's callers (indented, above), the function, "
	"its callees\n(indented, below).  A caller line: the calls of the "
	"function it made and their\ntotal time; a callee line: the calls the "
	"function made of it and their total\ntime.  A recursive call's time "
	"is in the outermost call's only.\n";

TEST_CASE(graph_text)
{
	struct rt_opts o;
	char *s, *want;

	WITH_LOG(lf);
	opts(&o);
	o.graph = "[mp]a*";
	s = view(&lf, &o, V_GRAPH);
	/* "[mp]a*" matches main and parse; by total: main 900, parse 350.
	 * main: called by nobody traced; calls parse (2 calls: 300 + 50)
	 * and emit (100), by time.
	 * parse: called by main twice (350); calls lex twice (70). */
	want = xasprintf(
		"# rtrace call graph: t.rtlog\n"
		"# command:  ./app --flag\n"
		"# functions matching [mp]a*: 2\n"
		"\n"
		"     calls       total        self  function\n"
		"%s"
		"         1      900 ns                  (no traced caller)\n"
		"         1      900 ns      450 ns  main\n"
		"         2      350 ns                  parse\n"
		"         1      100 ns                  emit\n"
		"%s"
		"         2      350 ns                  main\n"
		"         2      350 ns      280 ns  parse\n"
		"         2       70 ns                  lex\n"
		"%s%s", graph_rule, graph_rule, graph_rule, graph_legend);
	TEST_TEXT(s, want);
	free(s);
	free(want);
	remove_log(&lf);
}

TEST_CASE(graph_json)
{
	struct rt_opts o;
	char *s;

	WITH_LOG(lf);
	opts(&o);
	o.graph = "lex";
	o.format = RT_FMT_JSON;
	s = view(&lf, &o, V_GRAPH);
	/* lex: 3 calls, 50 + 20 + 30 = 100; callers parse (2 calls, 70)
	 * and f (1, 30), by time; no callee */
	TEST_TEXT(s,
		  "{\"log\": \"t.rtlog\", \"command\": \"./app --flag\", "
		  "\"graph\": \"lex\", \"functions\": [\n"
		  "  {\"name\": \"lex\", \"calls\": 3, \"total_ns\": 100, "
		  "\"self_ns\": 100, \"callers\": ["
		  "{\"name\": \"parse\", \"calls\": 2, \"total_ns\": 70}, "
		  "{\"name\": \"<T as Tr>::f\", \"calls\": 1, \"total_ns\": 30}"
		  "], \"callees\": []}]}\n");
	free(s);
	remove_log(&lf);
}

/* ---- replay ------------------------------------------------------------------ */

static const char replay_head[] =
	"# rtrace replay: t.rtlog\n"
	"# command:  ./app --flag\n"
	"# time: seconds since the program started, on the timeline without "
	"rtrace's costs;\n"
	"# duration: the call's total time, callees included\n"
	"#\n"
	"#         TIME    DURATION      TID  FUNCTION\n";

TEST_CASE(replay_text)
{
	struct rt_opts o;
	char *s, *want;

	WITH_LOG(lf);
	opts(&o);
	s = view(&lf, &o, V_REPLAY);
	/* in event order; a call whose exit comes right after its entry is
	 * one line at its entry time; f's entry is followed by the worker's
	 * lex entry, so it opens a block; the worker's lines interleave
	 * with main's by time */
	want = xasprintf(
		"%s"
		"   0.000000100                   10  main() {\n"
		"   0.000000200                   10    parse() {\n"
		"   0.000000250       50 ns       10      lex();\n"
		"   0.000000310                   11  <T as Tr>::f() {\n"
		"   0.000000350       30 ns       11    lex();\n"
		"   0.000000400       20 ns       10      lex();\n"
		"   0.000000450      140 ns       11  } /* <T as Tr>::f */\n"
		"   0.000000500      300 ns       10    } /* parse */\n"
		"   0.000000600      100 ns       10    emit();\n"
		"   0.000000800       50 ns       10    parse();\n"
		"   0.000001000      900 ns       10  } /* main */\n",
		replay_head);
	TEST_TEXT(s, want);
	free(s);
	free(want);
	remove_log(&lf);
}

TEST_CASE(replay_filters)
{
	struct rt_opts o;
	char *s, *want;

	WITH_LOG(lf);
	opts(&o);
	/* thread 10, lines from 150 ns to before 700 ns, 2 levels at most:
	 * the lex calls (level 3) go, so parse calls nothing shown and takes
	 * one line, at its entry (200); main's entry (100) and exit (1000)
	 * and parse' (800) are outside the window */
	o.tid = 10;
	o.depth = 2;
	o.since_ns = 150;
	o.until_ns = 700;
	s = view(&lf, &o, V_REPLAY);
	want = xasprintf(
		"%s"
		"   0.000000200      300 ns       10    parse();\n"
		"   0.000000600      100 ns       10    emit();\n",
		replay_head);
	TEST_TEXT(s, want);
	free(s);
	free(want);
	/* -f emit: its call only, at depth 0 */
	o = (struct rt_opts){ .cmd = RT_CMD_REPORT };
	vec_push(&o.include, "emit");
	s = view(&lf, &o, V_REPLAY);
	want = xasprintf(
		"%s"
		"   0.000000600      100 ns       10  emit();\n", replay_head);
	TEST_TEXT(s, want);
	free(s);
	free(want);
	rt_opts_release(&o);
	remove_log(&lf);
}

/* ---- Chrome trace ---------------------------------------------------------- */

TEST_CASE(chrome_json)
{
	struct rt_opts o;
	char *s;

	WITH_LOG(lf);
	opts(&o);
	s = view(&lf, &o, V_CHROME);
	/* one complete event per call, in the order the calls end, ts and
	 * dur in µs; then the process (the executable's base name) and the
	 * threads' names */
	TEST_TEXT(s,
		  "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":"
		  "\"rtrace\",\"log\":\"t.rtlog\",\"command\":\"./app --flag\"},\n"
		  "\"traceEvents\":[\n"
		  "{\"name\":\"lex\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":10,\"ts\":0.250,\"dur\":0.050,\"args\":{\"total_ns\":50,"
		  "\"self_ns\":50}},\n"
		  "{\"name\":\"lex\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":11,\"ts\":0.350,\"dur\":0.030,\"args\":{\"total_ns\":30,"
		  "\"self_ns\":30}},\n"
		  "{\"name\":\"lex\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":10,\"ts\":0.400,\"dur\":0.020,\"args\":{\"total_ns\":20,"
		  "\"self_ns\":20}},\n"
		  "{\"name\":\"<T as Tr>::f\",\"cat\":\"function\",\"ph\":\"X\","
		  "\"pid\":1,\"tid\":11,\"ts\":0.310,\"dur\":0.140,\"args\":{"
		  "\"total_ns\":140,\"self_ns\":110}},\n"
		  "{\"name\":\"parse\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":10,\"ts\":0.200,\"dur\":0.300,\"args\":{\"total_ns\":300,"
		  "\"self_ns\":230}},\n"
		  "{\"name\":\"emit\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":10,\"ts\":0.600,\"dur\":0.100,\"args\":{\"total_ns\":100,"
		  "\"self_ns\":100}},\n"
		  "{\"name\":\"parse\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":10,\"ts\":0.800,\"dur\":0.050,\"args\":{\"total_ns\":50,"
		  "\"self_ns\":50}},\n"
		  "{\"name\":\"main\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":10,\"ts\":0.100,\"dur\":0.900,\"args\":{\"total_ns\":900,"
		  "\"self_ns\":450}},\n"
		  "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{"
		  "\"name\":\"app\"}},\n"
		  "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":10,"
		  "\"args\":{\"name\":\"main\"}},\n"
		  "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":11,"
		  "\"args\":{\"name\":\"worker\"}}\n"
		  "]}\n");
	free(s);
	remove_log(&lf);
}

TEST_CASE(chrome_same_start)
{
	/* a and its callee b enter at the same time (1100), b ends at 1150
	 * and c, b's sibling, starts then.  On the track, b starts 1 ns
	 * after a (a viewer would nest two equal starts in file order, and b
	 * is written first), and c 1 ns after b's end: no two calls start
	 * together, and c's 1170 - 1151 = 19 ns.  d, which a later event at
	 * a shallower stack pointer closes, has its unwound flag in args. */
	const struct rt_event e[] = {
		ev(1100, RT_EV_ENTRY, MAIN, S0, 10),
		ev(1100, RT_EV_ENTRY, PARSE, S1, 10),
		ev(1150, RT_EV_EXIT, PARSE, S1, 10),
		ev(1150, RT_EV_ENTRY, EMIT, S1, 10),
		ev(1160, RT_EV_ENTRY, LEX, S2, 10),
		ev(1170, RT_EV_EXIT, EMIT, S1, 10),
		ev(1200, RT_EV_EXIT, MAIN, S0, 10),
	};
	struct logfile lf;
	struct rt_opts o;
	char *s;

	TEST_EQ(write_log(&lf, e, ARRAY_SIZE(e)), 0);
	opts(&o);
	s = view(&lf, &o, V_CHROME);
	/* lex (d above) left with emit's exit at 1170: 10 ns, unwound */
	TEST_TEXT(s,
		  "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"tool\":"
		  "\"rtrace\",\"log\":\"t.rtlog\",\"command\":\"./app --flag\"},\n"
		  "\"traceEvents\":[\n"
		  "{\"name\":\"parse\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":10,\"ts\":1.101,\"dur\":0.049,\"args\":{\"total_ns\":50,"
		  "\"self_ns\":50}},\n"
		  "{\"name\":\"lex\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":10,\"ts\":1.160,\"dur\":0.010,\"args\":{\"total_ns\":10,"
		  "\"self_ns\":10,\"unwound\":true}},\n"
		  "{\"name\":\"emit\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":10,\"ts\":1.151,\"dur\":0.019,\"args\":{\"total_ns\":20,"
		  "\"self_ns\":10}},\n"
		  "{\"name\":\"main\",\"cat\":\"function\",\"ph\":\"X\",\"pid\":1,"
		  "\"tid\":10,\"ts\":1.100,\"dur\":0.100,\"args\":{\"total_ns\":100,"
		  "\"self_ns\":30}},\n"
		  "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{"
		  "\"name\":\"app\"}},\n"
		  "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":10,"
		  "\"args\":{\"name\":\"main\"}}\n"
		  "]}\n");
	free(s);
	remove_log(&lf);
}

/* ---- folded stacks ----------------------------------------------------------- */

TEST_CASE(folded)
{
	struct rt_opts o;
	char *s;

	WITH_LOG(lf);
	opts(&o);
	s = view(&lf, &o, V_FOLDED);
	/* names in byte order at each level ('<' sorts before 'm'); self
	 * times: f 110, its lex 30, main 450, emit 100, parse 230 + 50,
	 * lex under parse 50 + 20.  They add up to 1040, the sum of the
	 * report's self column (450 + 280 + 100 + 100 + 110). */
	TEST_TEXT(s,
		  "<T as Tr>::f 110\n"
		  "<T as Tr>::f;lex 30\n"
		  "main 450\n"
		  "main;emit 100\n"
		  "main;parse 280\n"
		  "main;parse;lex 70\n");
	free(s);
	o.weight = RT_WEIGHT_CALLS;
	s = view(&lf, &o, V_FOLDED);
	TEST_TEXT(s,
		  "<T as Tr>::f 1\n"
		  "<T as Tr>::f;lex 1\n"
		  "main 1\n"
		  "main;emit 1\n"
		  "main;parse 2\n"
		  "main;parse;lex 2\n");
	free(s);
	/* --instances: parse' is a context of its own (key PARSE2) */
	o.weight = RT_WEIGHT_SELF;
	o.instances = true;
	s = view(&lf, &o, V_FOLDED);
	TEST_TEXT(s,
		  "<T as Tr>::f 110\n"
		  "<T as Tr>::f;lex 30\n"
		  "main 450\n"
		  "main;emit 100\n"
		  "main;parse 230\n"
		  "main;parse;lex 70\n"
		  "main;parse 50\n");
	free(s);
	remove_log(&lf);
}

/* The same through the export flow, into a file. */
TEST_CASE(export_flow)
{
	struct rt_opts o;
	char *out, *s = NULL;

	WITH_LOG(lf);
	opts(&o);
	o.cmd = RT_CMD_EXPORT;
	o.format = RT_FMT_FOLDED;
	o.log_path = lf.path;
	out = xasprintf("%s/out.folded", lf.dir);
	o.export_path = out;
	vec_push(&o.include, "<T as *>::*");
	TEST_EQ(rt_views_export(&o), 0);
	TEST_EQ(read_file(out, &s, NULL), 0);
	/* -f focuses: f's contexts only */
	TEST_TEXT(s, "<T as Tr>::f 110\n<T as Tr>::f;lex 30\n");
	free(s);
	unlink(out);
	free(out);
	rt_opts_release(&o);
	remove_log(&lf);
}

/* ---- the table's --function and --min-total ---------------------------------- */

static char *report(const struct logfile *lf, const struct rt_opts *o)
{
	struct rt_evlog_reader *r;
	struct rt_report *rep;
	char *buf = NULL;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	if (rt_evlog_open(lf->path, &r) ||
	    rt_report_build(r, o, LOG_NAME, &rep))
		abort();
	rt_output_for(o->format)->write(out, rep, o);
	fclose(out);
	rt_report_free(rep);
	rt_evlog_reader_free(r);
	return buf;
}

TEST_CASE(report_csv_min_total)
{
	struct rt_opts o;
	char *s;

	WITH_LOG(lf);
	opts(&o);
	o.format = RT_FMT_CSV;
	o.min_total_ns = 101;
	s = report(&lf, &o);
	/* totals: main 900, parse 350, f 140 stay; lex (100) and emit (100)
	 * go.  By self: main 450, parse 280, f 110.  parse: 2 calls of 300
	 * and 50 (avg 175, min 50, max 300), 2 instances.  Nothing
	 * inlined: every call has a time.  Shares of the 2000 ns run; no
	 * mark, the log has no costs to take out. */
	TEST_TEXT(s,
		  "name,calls,total_ns,self_ns,avg_ns,min_ns,max_ns,unwound,"
		  "instances,inlined_calls,inlined_sites,timed_calls,total_pct,"
		  "self_pct,marks,inlined_sites_refused,"
		  "inlined_sites_vectorised,blocked_ns,blocked_pct\n"
		  "main,1,900,450,900,900,900,0,1,0,0,1,45.00,22.50,,0,0,0,"
		  "0.00\n"
		  "parse,2,350,280,175,50,300,0,2,0,0,2,17.50,14.00,,0,0,0,"
		  "0.00\n"
		  "<T as Tr>::f,1,140,110,140,140,140,0,1,0,0,1,7.00,5.50,,0,0,"
		  "0,0.00\n");
	free(s);
	remove_log(&lf);
}

TEST_CASE(report_text_function)
{
	struct rt_opts o;
	char *s, *table;

	WITH_LOG(lf);
	opts(&o);
	o.color = 0;
	vec_push(&o.include, "lex");
	vec_push(&o.include, "e*");
	s = report(&lf, &o);
	table = strstr(s, "\n     calls");
	TEST_TRUE(table != NULL);
	/* lex: 3 calls, 100 total and self, avg 33 (100 / 3), min 20, max
	 * 50; emit: 100 too, one call; equal self, so by name; 100 ns is 5 %
	 * of the 2000 ns run */
	TEST_TEXT(table,
		  "\n     calls       total      %        self      %         avg"
		  "         min         max      function\n"
		  "         1      100 ns    5.0      100 ns    5.0      100 ns "
		  "     100 ns      100 ns      emit\n"
		  "         3      100 ns    5.0      100 ns    5.0       33 ns "
		  "      20 ns       50 ns      lex\n"
		  "\ntotal: time from entry to return, callees included (an "
		  "outer recursive call only); self: total minus traced "
		  "callees;\navg/min/max: per call, callees included.\n"
		  "%: share of the run's duration (the header's); threads' "
		  "times add up, so shares can too.\n");
	free(s);
	/* in a live run -f chose what was traced: no narrowing */
	o.cmd = RT_CMD_RUN;
	o.format = RT_FMT_CSV;
	s = report(&lf, &o);
	TEST_TRUE(strstr(s, "\nmain,") != NULL);
	free(s);
	rt_opts_release(&o);
	remove_log(&lf);
}

/* An inlined call of @func at @ts in main's code: timed when its end is
 * probed (@timed), or its end (@end). */
static struct rt_event inl_ev(uint64_t ts, uint32_t func, bool timed,
			      bool end)
{
	struct rt_event e = ev(ts, end ? RT_EV_EXIT : RT_EV_ENTRY, func,
			       S0 - 8, 10);

	e.flags = RT_EVF_INLINED | (timed ? RT_EVF_TIMED : 0);
	e.value = 0x401010 + func;
	return e;
}

/* emit's one inlined instance runs in two threads: the row that adds the
 * threads up still has one site (the instance is one place in the code,
 * whichever threads run it). */
TEST_CASE(report_inlined_sites_once_across_threads)
{
	struct rt_event e[] = {
		inl_ev(150, EMIT, false, false),
		inl_ev(400, EMIT, false, false),
	};
	struct logfile lf;
	struct rt_opts o;
	char *s;

	e[1].tid = 11;
	emit_sites = 1;
	TEST_EQ(write_log(&lf, e, ARRAY_SIZE(e)), 0);
	emit_sites = 0;
	opts(&o);
	o.color = 0;
	s = report(&lf, &o);
	TEST_TRUE(strstr(s, " emit [2 inlined, 1 site; timed: 0]\n") != NULL);
	free(s);
	remove_log(&lf);
}

/*
 * main (100..1000) runs emit inlined twice, untimed, and lex inlined
 * twice: once timed (200..260), once not.  emit's row has no time at all
 * ("-", null, empty fields); lex's has the 60 ns of its timed call, and
 * both say how many of their calls are timed.  main's self loses 60.
 */
TEST_CASE(report_untimed_inlined_calls)
{
	const struct rt_event e[] = {
		ev(100, RT_EV_ENTRY, MAIN, S0, 10),
		inl_ev(150, EMIT, false, false),
		inl_ev(200, LEX, true, false),
		inl_ev(260, LEX, false, true),
		inl_ev(300, LEX, false, false),
		inl_ev(400, EMIT, false, false),
		ev(1000, RT_EV_EXIT, MAIN, S0, 10),
	};
	struct logfile lf;
	struct rt_opts o;
	char *s;

	TEST_EQ(write_log(&lf, e, ARRAY_SIZE(e)), 0);
	opts(&o);
	o.color = 0;
	s = report(&lf, &o);
	/* shares of the 2 µs run: lex's 60 ns is 3.0 %, emit has none */
	TEST_TRUE(strstr(s, "\n         2           -      -           -      - "
			    "          -           -           -      emit "
			    "[2 inlined, 0 sites; timed: 0]\n") != NULL);
	TEST_TRUE(strstr(s, "\n         2       60 ns    3.0       60 ns    3.0 "
			    "      60 ns       60 ns       60 ns      lex "
			    "[2 inlined, 0 sites; timed: 1]\n") != NULL);
	TEST_TRUE(strstr(s, "\n         1      900 ns   45.0      840 ns ") !=
		  NULL);
	TEST_TRUE(strstr(s, "\n[timed: T]: only T of the calls have a time") !=
		  NULL);
	free(s);
	o.format = RT_FMT_CSV;
	s = report(&lf, &o);
	TEST_TRUE(strstr(s, "\nemit,2,,,,,,0,1,2,0,0,,,,0,0,,\n") != NULL);
	TEST_TRUE(strstr(s, "\nlex,2,60,60,60,60,60,0,1,2,0,1,3.00,3.00,,0,0,0,"
			    "0.00\n") != NULL);
	free(s);
	o.format = RT_FMT_JSON;
	s = report(&lf, &o);
	TEST_TRUE(strstr(s, "\"name\": \"emit\", \"calls\": 2, "
			    "\"inlined_calls\": 2, \"inlined_sites\": 0, "
			    "\"timed_calls\": 0, \"total_ns\": null, "
			    "\"self_ns\": null, \"blocked_ns\": null, "
			    "\"avg_ns\": null, "
			    "\"min_ns\": null, \"max_ns\": null, ") != NULL);
	TEST_TRUE(strstr(s, "\"timed_calls\": 1, \"total_ns\": 60, ") != NULL);
	free(s);
	rt_opts_release(&o);
	/* the page's table: "-" in the time columns, the mark after the
	 * name */
	opts(&o);
	o.cmd = RT_CMD_EXPORT;
	o.format = RT_FMT_HTML;
	o.log_path = lf.path;
	o.export_path = xasprintf("%s/out.html", lf.dir);
	TEST_EQ(rt_views_export(&o), 0);
	TEST_EQ(read_file(o.export_path, &s, NULL), 0);
	TEST_TRUE(strstr(s, "<td data-v=\"0\">-</td><td class=\"name mark\"></td>"
			    "<td class=\"name\">emit "
			    "[2 inlined, 0 sites; timed: 0]</td>") != NULL);
	free(s);
	unlink(o.export_path);
	free((char *)o.export_path);
	remove_log(&lf);
}

/* ---- flame graph and HTML: structure ------------------------------------------- */

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

TEST_CASE(flame_svg)
{
	struct rt_opts o;
	char *s;

	WITH_LOG(lf);
	opts(&o);
	s = view(&lf, &o, V_SVG);
	/* 6 contexts and the root, all wider than 0.1 px (the narrowest,
	 * f's lex, weighs 30 of 1040 ns: 34 px) */
	TEST_TRUE(strstr(s, "data-frames=\"7\"") != NULL);
	TEST_EQ(count(s, "<g class=\"f\""), 7);
	/* the root weighs every self time; main's frame 450 + 100 + 280 +
	 * 70 = 900, starting after f's (110 + 30) */
	TEST_TRUE(strstr(s, "data-d=\"0\" data-x=\"0\" data-w=\"1040\"") != NULL);
	TEST_TRUE(strstr(s, "data-d=\"1\" data-x=\"140\" data-w=\"900\"") != NULL);
	/* names are escaped for XML; nothing is fetched */
	TEST_TRUE(strstr(s, "<title>&lt;T as Tr&gt;::f\n") != NULL);
	TEST_TRUE(strstr(s, "<T as") == NULL);
	TEST_TRUE(strstr(s, "href") == NULL);
	TEST_TRUE(strstr(s, "<script><![CDATA[") != NULL);
	free(s);
	remove_log(&lf);
}

TEST_CASE(html_page)
{
	struct rt_opts o;
	char *out, *s = NULL;

	WITH_LOG(lf);
	opts(&o);
	o.cmd = RT_CMD_EXPORT;
	o.format = RT_FMT_HTML;
	o.log_path = lf.path;
	out = xasprintf("%s/out.html", lf.dir);
	o.export_path = out;
	TEST_EQ(rt_views_export(&o), 0);
	TEST_EQ(read_file(out, &s, NULL), 0);
	/* 5 table rows (parse merged), the flame graph's 7 frames, and the
	 * tree's 6 contexts: 3 with children shown (details), 3 leaves */
	TEST_EQ(count(s, "<tr><td data-v="), 5);
	TEST_EQ(count(s, "<g class=\"f\""), 7);
	TEST_EQ(count(s, "<details"), 3);
	TEST_EQ(count(s, "class=\"leaf\">"), 3);
	TEST_TRUE(strstr(s, "<td class=\"name\">&lt;T as Tr&gt;::f</td>") != NULL);
	TEST_TRUE(strstr(s, "src=") == NULL);
	/* links within the page only: the summary's to the notes */
	TEST_EQ(count(s, "href="), 1);
	TEST_TRUE(strstr(s, "<a href=\"#notes\">") != NULL);
	TEST_TRUE(strstr(s, "<div id=\"notes\">") != NULL);
	TEST_TRUE(strstr(s, "</html>\n") != NULL);
	free(s);
	unlink(out);
	free(out);
	remove_log(&lf);
}

/* "µs" is one column and two bytes: the columns of the text views align. */
TEST_CASE(duration_columns)
{
	char b[32];

	TEST_STREQ(rt_fmt_duration_col(b, sizeof(b), 43456, 11), "  43.456 µs");
	TEST_STREQ(rt_fmt_duration_col(b, sizeof(b), 43456000, 11),
		   "  43.456 ms");
	TEST_STREQ(rt_fmt_duration_col(b, sizeof(b), 7, 11), "       7 ns");
	TEST_STREQ(rt_fmt_duration_col(b, sizeof(b), 7, 2), "7 ns");
}

/* ---- the command line ----------------------------------------------------------- */

static int parse(struct rt_opts *o, const char *line)
{
	static char buf[512];
	char *argv[32];
	int argc = 0;

	snprintf(buf, sizeof(buf), "rtrace %s", line);
	for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	rt_opts_init(o);
	return rt_cli_parse(argc, argv, o);
}

TEST_CASE(cli)
{
	struct rt_opts o;

	TEST_EQ(parse(&o, "tree --depth 3 --min-total 1.5ms --tid 7 run.log"), 0);
	TEST_EQ(o.cmd, RT_CMD_REPORT);
	TEST_EQ(o.view, RT_VIEW_TREE);
	TEST_EQ(o.depth, 3);
	TEST_EQ(o.min_total_ns, 1500000);
	TEST_EQ(o.tid, 7);
	TEST_STREQ(o.log_path, "run.log");
	rt_opts_release(&o);

	TEST_EQ(parse(&o, "replay --since 1s --until 1200ms -f a::* -f b"), 0);
	TEST_EQ(o.view, RT_VIEW_REPLAY);
	TEST_EQ(o.since_ns, 1000000000);
	TEST_EQ(o.until_ns, 1200000000);
	TEST_EQ(o.include.n, 2);
	TEST_STREQ(o.log_path, "rtrace.data");
	rt_opts_release(&o);

	TEST_EQ(parse(&o, "report --graph a::* --format json x.log"), 0);
	TEST_EQ(o.view, RT_VIEW_GRAPH);
	TEST_STREQ(o.graph, "a::*");
	TEST_EQ(o.format, RT_FMT_JSON);
	rt_opts_release(&o);

	/* export: -o is the output, and its extension the format */
	TEST_EQ(parse(&o, "export -o flame.svg --weight calls run.log"), 0);
	TEST_EQ(o.cmd, RT_CMD_EXPORT);
	TEST_EQ(o.format, RT_FMT_SVG);
	TEST_EQ(o.weight, RT_WEIGHT_CALLS);
	TEST_STREQ(o.export_path, "flame.svg");
	TEST_STREQ(o.log_path, "run.log");
	rt_opts_release(&o);
	TEST_EQ(parse(&o, "export --format chrome"), 0);
	TEST_EQ(o.format, RT_FMT_CHROME);
	TEST_TRUE(o.export_path == NULL);
	rt_opts_release(&o);

	/* a live run: the program's options are its own */
	TEST_EQ(parse(&o, "--export html:r.html --export chrome:t.json --tree "
			  "-f a::* ./prog --depth 2"), 0);
	TEST_EQ(o.cmd, RT_CMD_RUN);
	TEST_EQ(o.exports.n, 2);
	TEST_STREQ(o.exports.v[1], "chrome:t.json");
	TEST_EQ(o.view, RT_VIEW_TREE);
	TEST_EQ(o.depth, 0);
	TEST_EQ(o.argc, 3);
	rt_opts_release(&o);

	/* what does not go together (each prints one line on stderr) */
	TEST_NE(parse(&o, "export run.log"), 0);
	rt_opts_release(&o);
	TEST_NE(parse(&o, "export --format csv run.log"), 0);
	rt_opts_release(&o);
	TEST_NE(parse(&o, "replay --format json"), 0);
	rt_opts_release(&o);
	TEST_NE(parse(&o, "tree --format svg"), 0);
	rt_opts_release(&o);
	TEST_NE(parse(&o, "tree --graph x"), 0);
	rt_opts_release(&o);
	TEST_NE(parse(&o, "replay --since 2s --until 1s"), 0);
	rt_opts_release(&o);
	TEST_NE(parse(&o, "tree --depth 0"), 0);
	rt_opts_release(&o);
	TEST_NE(parse(&o, "--export pdf:x.pdf ./prog"), 0);
	rt_opts_release(&o);
	TEST_NE(parse(&o, "record --tree ./prog"), 0);
	rt_opts_release(&o);
}
