// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Option parsing.  Options stop at the first non-option word (the program
 * to trace), so the program's own options never reach rtrace:
 * `rtrace -f 'x::*' ./app -v` passes -v to app.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "cli"
#define PR_DOMAIN RT_DOM_CLI
#include "rtrace/cli.h"
#include "rtrace/log.h"
#include "rtrace/util.h"
#include "rtrace/viewopts.h"

enum long_only {
	OPT_NO_FOLLOW = 256,
	OPT_FORMAT,
	OPT_LIMIT,
	OPT_BY,
	OPT_INSTANCES,
	OPT_RAW_TIMES,
	OPT_REPORT_FILE,
	OPT_COLOR,
	OPT_DEBUG,
	OPT_COUNT,
	OPT_COVERAGE,
	OPT_STATS,
	OPT_DURATION,
	OPT_STACK,
	OPT_STACKS,
	OPT_MEM,
	OPT_HEAP_SERIES,
};

static const struct option long_opts[] = {
	{ "function", required_argument, NULL, 'f' },
	{ "exclude", required_argument, NULL, 'e' },
	{ "list", no_argument, NULL, 'l' },
	{ "output", required_argument, NULL, 'o' },
	{ "no-follow", no_argument, NULL, OPT_NO_FOLLOW },
	{ "count", no_argument, NULL, OPT_COUNT },
	{ "coverage", no_argument, NULL, OPT_COVERAGE },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "stack", required_argument, NULL, OPT_STACK },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ "mem", no_argument, NULL, OPT_MEM },
	{ "heap-series", no_argument, NULL, OPT_HEAP_SERIES },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "sort", required_argument, NULL, 's' },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "by", required_argument, NULL, OPT_BY },
	{ "instances", no_argument, NULL, OPT_INSTANCES },
	{ "raw-times", no_argument, NULL, OPT_RAW_TIMES },
	{ "report-file", required_argument, NULL, OPT_REPORT_FILE },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "debug", required_argument, NULL, OPT_DEBUG },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	RT_VIEW_LONG_OPTS,
	{ 0 },
};

static const char help_text[] =
"Usage: rtrace [OPTIONS] [--] PROGRAM [ARGS...]\n"
"       rtrace record [OPTIONS] [--] PROGRAM [ARGS...]\n"
"       rtrace report [OPTIONS] [LOG]\n"
"       rtrace tree [OPTIONS] [LOG]\n"
"       rtrace replay [OPTIONS] [LOG]\n"
"       rtrace export --format=FMT [-o FILE] [OPTIONS] [LOG]\n"
"       rtrace [record] -p PID [OPTIONS]\n"
"       rtrace -l [-f GLOB]... [--] PROGRAM\n"
"\n"
"Trace the functions of a Rust program with breakpoints: exact call counts,\n"
"and total (inclusive) and self (exclusive) times per function.  No\n"
"recompilation, no root.  The program's output is left untouched; the\n"
"report goes to stderr.\n"
"\n"
"Commands:\n"
"  (none)          record PROGRAM into the log, then print the report\n"
"  record          record PROGRAM into the log only\n"
"  report [LOG]    print the report of a log (default rtrace.data)\n"
"  tree [LOG]      print the call tree: every calling context, its calls,\n"
"                  total and self time (= report --tree)\n"
"  replay [LOG]    print the timeline: each entry and exit, indented by\n"
"                  depth, with times, thread by thread (= report --replay)\n"
"  export [LOG]    write the log as a Chrome/Perfetto trace, folded stacks,\n"
"                  an SVG flame graph or an HTML report\n"
"\n"
"Selecting functions:\n"
"  -f, --function=GLOB  trace functions whose demangled name matches GLOB;\n"
"                       repeatable.  '*' matches any text, '::' included.\n"
"                       'my_crate::*' also selects my_crate's trait impls\n"
"                       such as <my_crate::T as core::fmt::Display>::fmt.\n"
"                       Default: the crate that defines main, 'CRATE::*'.\n"
"  -e, --exclude=GLOB   do not trace functions matching GLOB; repeatable\n"
"  -l, --list           list the selected functions with their probe sites\n"
"                       and those that cannot be probed (and why); run\n"
"                       nothing\n"
"\n"
"Recording:\n"
"  -o, --output=FILE    write the log to FILE (default rtrace.data)\n"
"  -p, --pid=PID        trace the running process PID: join it, trace until\n"
"                       Ctrl-C, SIGTERM or --duration, then leave it running\n"
"                       with its code restored\n"
"      --duration=TIME  stop tracing after TIME (10s, 500ms, 2m): detach\n"
"                       and let the program go on\n"
"      --mem            profile memory: probe the allocator (Rust's\n"
"                       __rust_alloc shims, libc's malloc family); each\n"
"                       allocation costs two more probe hits.  The report\n"
"                       adds allocations, bytes, frees, live bytes and the\n"
"                       peak per function (report --mem: that table only)\n"
"      --stack=N        record the calling stack (N frames) at every entry:\n"
"                       unwound with the program's unwind tables, costs\n"
"                       one unwind per call\n"
"      --no-follow      do not record forked children or the programs\n"
"                       started by exec; they run untraced\n"
"      --count          count calls only: a breakpoint on entries, none on\n"
"                       returns; half the stops, exact counts, no times\n"
"      --coverage       which selected functions run at all: each\n"
"                       breakpoint is taken out at its first hit, so the\n"
"                       program soon runs at native speed\n"
"      --stats          print the stops and rtrace's system calls per hit\n"
"\n"
"Reporting (report, and the live report):\n"
"      --format=FMT     text (default), json or csv\n"
"  -s, --sort=KEY       self (default), total, calls, avg, max or name;\n"
"                       with --mem: bytes (default), allocs, live, name\n"
"      --limit=N        print only the first N rows\n"
"      --by=WHAT        a table per thread, process or test (a libtest\n"
"                       binary), or none; default: per process when the\n"
"                       program started others, else one table\n"
"      --heap-series    with --mem: the heap size over time, as CSV\n"
"      --stacks         the distinct calling stacks of each function,\n"
"                       with counts (recorded with --stack)\n"
"      --instances      one row per function instance (monomorphizations,\n"
"                       duplicate symbols) instead of merging by name\n"
"      --raw-times      keep rtrace's own cost per stop in the times\n"
"      --report-file=FILE  write the live report to FILE, not stderr\n"
"      --color=WHEN     auto (default), always or never; NO_COLOR is\n"
"                       respected\n"
"\n"
"Views (report, tree, replay, export; the live report with --tree,\n"
"--replay, --graph, --export):\n"
"  -f, --function=GLOB  reading a log: the table keeps the functions that\n"
"                       match GLOB; the other views keep the calls of\n"
"                       matching functions and what they call, and trees\n"
"                       and stacks start there; repeatable\n"
"      --min-total=TIME leave out the rows, call tree contexts and graph\n"
"                       entries with less total time (20us, 1.5ms, 2s)\n"
"      --graph=GLOB     the call graph of the functions matching GLOB,\n"
"                       instead of the table: callers and callees, with\n"
"                       the calls and the time of each edge (text, json)\n"
"      --tree           the call tree instead of the table (text, json)\n"
"      --replay         the timeline instead of the table (text)\n"
"      --depth=N        tree, replay, chrome: N levels of calls at most\n"
"      --tid=N          the calls of thread N only (not the table)\n"
"      --since=TIME, --until=TIME\n"
"                       replay and chrome: only what happened in this time\n"
"                       window, counted from the program's start\n"
"      --weight=W       folded, svg, html: frames weigh their self time\n"
"                       (self, default) or their calls (calls)\n"
"      --export=FMT:FILE  after the run (or record), also write FILE in\n"
"                       format FMT (chrome, folded, svg, html); repeatable\n"
"\n"
"Export (rtrace export):\n"
"      --format=FMT     chrome (trace event JSON for ui.perfetto.dev and\n"
"                       chrome://tracing), folded (flamegraph.pl, inferno,\n"
"                       speedscope), svg (interactive flame graph) or html\n"
"                       (summary, flame graph, call tree in one file);\n"
"                       default: from -o FILE's extension (.json .folded\n"
"                       .svg .html)\n"
"  -o, --output=FILE    the file to write (default: standard output)\n"
"\n"
"General:\n"
"  -q, --quiet          no summary line; errors and warnings only\n"
"  -v, --verbose        say more (-vv: debug messages of every module)\n"
"      --debug=LIST     debug messages of some modules, e.g. tracer,probes\n"
"  -h, --help           show this help\n"
"  -V, --version        show the version\n"
"\n"
"Examples:\n"
"  rtrace -f 'demo::*' ./demo 1000           trace and report\n"
"  rtrace -f 'my_crate::parse*' -- target/debug/deps/my_crate-1a2b3c\n"
"  rtrace record -o run.data -f 'demo::*' -- ./demo 1000\n"
"  rtrace report --sort total --limit 10 run.data\n"
"  rtrace report --format json run.data      the same figures, for scripts\n"
"  rtrace report --graph 'demo::index::*' run.data   callers and callees\n"
"  rtrace tree --depth 3 --min-total 1ms run.data\n"
"  rtrace replay --tid 4242 --since 1s --until 1.2s run.data\n"
"  rtrace export -o trace.json run.data      open it in ui.perfetto.dev\n"
"  rtrace export --format folded run.data | flamegraph.pl > flame.svg\n"
"  rtrace --export html:report.html -f 'demo::*' ./demo 1000\n"
"  rtrace -l -f 'demo::*' ./demo             what would be traced, and why not\n"
"  rtrace -p 4242 -f 'server::*' --duration 10s   join, trace 10 s, leave\n"
"\n"
"Exit status:\n"
"  When a program was run: its exit status, or 128+N when signal N killed\n"
"  it.  Otherwise 0 on success.  Before the program runs, rtrace's own\n"
"  failures are: 2 bad usage or input (options, patterns, symbols, logs),\n"
"  125 tracing failed (ptrace refused, I/O), 126 the program cannot be\n"
"  executed (permissions, not an ELF program), 127 program not found.\n";

void rt_cli_help(FILE *out)
{
	fputs(help_text, out);
}

static int bad(const char *fmt, const char *arg)
{
	fputs("rtrace: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs(" (see rtrace --help)\n", stderr);
	return -EINVAL;
}

static int pick(const char *arg, const char *const *names, size_t n,
		const char *what, int *out)
{
	for (size_t i = 0; i < n; i++) {
		if (names[i] && strcmp(arg, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	fprintf(stderr, "rtrace: unknown %s '%s' (one of:", what, arg);
	for (size_t i = 0; i < n; i++)
		if (names[i])
			fprintf(stderr, " %s", names[i]);
	fputs(")\n", stderr);
	return -EINVAL;
}

static int parse_report_opt(int c, const char *arg, struct rt_opts *o)
{
	static const char *const formats[] = { RT_FORMAT_NAMES };
	static const char *const sorts[] = { "self", "total", "calls",
					     "avg", "max", "name", "bytes",
					     "allocs", "live" };
	static const char *const bys[] = { NULL, "none", "thread", "process",
					   "test" };
	static const char *const colors[] = { "never", "always", "auto" };
	int v = 0, err = 0;	/* pick() leaves v alone when it fails */
	char *end;

	switch (c) {
	case OPT_FORMAT:
		err = pick(arg, formats, ARRAY_SIZE(formats), "format", &v);
		o->format = v;
		break;
	case 's':
		err = pick(arg, sorts, ARRAY_SIZE(sorts), "sort key", &v);
		o->sort = v;
		break;
	case OPT_BY:
		err = pick(arg, bys, ARRAY_SIZE(bys), "--by value", &v);
		o->by = v;
		break;
	case OPT_COLOR:
		err = pick(arg, colors, ARRAY_SIZE(colors), "--color value", &v);
		o->color = v == 2 ? -1 : v;
		break;
	case OPT_LIMIT:
		o->limit = strtol(arg, &end, 10);
		if (*end || end == arg || o->limit < 0)
			return bad("--limit needs a positive number, not '%s'",
				   arg);
		break;
	}
	return err;
}

static int parse_pid(const char *arg, struct rt_opts *o)
{
	char *end;
	long pid = strtol(arg, &end, 10);

	if (*end || end == arg || pid <= 0 || pid > 0x3fffffff)
		return bad("-p needs a process id, not '%s'", arg);
	o->attach_pid = pid;
	return 0;
}

static int parse_depth(const char *arg, struct rt_opts *o)
{
	char *end;
	long n = strtol(arg, &end, 10);

	if (*end || end == arg || n < 1 || n > 256)
		return bad("--stack needs a depth from 1 to 256, not '%s'", arg);
	o->stack_depth = n;
	return 0;
}

static int parse_one(int c, const char *arg, struct rt_opts *o)
{
	switch (c) {
	case 'f': vec_push(&o->include, arg); break;
	case 'e': vec_push(&o->exclude, arg); break;
	case 'l': o->cmd = RT_CMD_LIST; break;
	case 'o': o->log_path = arg; break;
	case 'q': o->quiet = true; rt_log_verbose = -1; break;
	case 'v': rt_log_verbose = MAX(rt_log_verbose, 0) + 1; break;
	case 'h': o->cmd = RT_CMD_HELP; break;
	case 'V': o->cmd = RT_CMD_VERSION; break;
	case OPT_NO_FOLLOW: o->no_follow = true; break;
	case OPT_COUNT: o->count_only = true; break;
	case OPT_COVERAGE: o->coverage = true; break;
	case OPT_STATS: o->stats = true; break;
	case 'p': return parse_pid(arg, o);
	case OPT_DURATION:
		if (parse_duration_ns(arg, &o->duration_ns) || !o->duration_ns)
			return bad("--duration needs a time such as 10s or "
				   "500ms, not '%s'", arg);
		break;
	case OPT_STACK: return parse_depth(arg, o);
	case OPT_STACKS: o->show_stacks = true; break;
	case OPT_MEM: o->mem = true; break;
	case OPT_HEAP_SERIES: o->heap_series = o->mem = true; break;
	case OPT_INSTANCES: o->instances = true; break;
	case OPT_RAW_TIMES: o->raw_times = true; break;
	case OPT_REPORT_FILE: o->report_path = arg; break;
	case OPT_DEBUG: return rt_log_set_debug(arg);
	case OPT_FORMAT: case 's': case OPT_BY: case OPT_COLOR: case OPT_LIMIT:
		return parse_report_opt(c, arg, o);
	default:
		if (c >= RT_OPT_VIEW_FIRST && c <= RT_OPT_VIEW_LAST)
			return rt_viewopts_parse(c, arg, o);
		return -EINVAL;  /* getopt printed the problem */
	}
	return 0;
}

/* The first word may name a command; anything else is the program. */
static int parse_command(int argc, char **argv, struct rt_opts *o)
{
	if (argc < 2)
		return 1;
	if (strcmp(argv[1], "record") == 0)
		o->cmd = RT_CMD_RECORD;
	else if (strcmp(argv[1], "report") == 0)
		o->cmd = RT_CMD_REPORT;
	else if (!rt_viewopts_command(argv[1], o))
		return 1;
	return 2;
}

static int check_operands(struct rt_opts *o)
{
	if (o->count_only && o->coverage)
		return bad("%s", "--count and --coverage exclude each other");
	if (o->cmd == RT_CMD_HELP || o->cmd == RT_CMD_VERSION)
		return 0;
	if (rt_viewopts_check(o))
		return -EINVAL;
	if (o->cmd == RT_CMD_EXPORT)
		return 0;
	if (o->cmd == RT_CMD_REPORT) {
		if (o->argc > 1)
			return bad("report takes one log file, not '%s'",
				   o->argv[1]);
		o->log_path = o->argc ? o->argv[0] :
			      o->log_path ? o->log_path : "rtrace.data";
		return 0;
	}
	if (o->attach_pid && o->argc)
		return bad("-p traces a running process: no program to start "
			   "as well (%s)", o->argv[0]);
	if (o->argc == 0 && !o->attach_pid)
		return bad("%s", "no program to trace given (or -p PID)");
	if (!o->log_path)
		o->log_path = "rtrace.data";
	return 0;
}

/*
 * getopt's own messages name the program by its path and take two lines;
 * with opterr off, ':' (a value missing) and '?' (anything else) come here,
 * with the offending word at argv[optind - 1] or the letter in optopt.
 */
static int bad_option(int c, char **argv)
{
	const char *word = argv[optind - 1];
	char letter[3] = { '-', (char)optopt, '\0' };

	/* a short option in a cluster (-qx): the word is the whole cluster */
	if (optopt && !str_starts(word, "--"))
		word = letter;
	if (c == ':')
		return bad("option '%s' needs a value", word);
	if (str_starts(word, "--") && strchr(word, '='))
		return bad("option '%s' takes no value", word);
	return bad("unknown option '%s'", word);
}

int rt_cli_parse(int argc, char **argv, struct rt_opts *o)
{
	int first = parse_command(argc, argv, o), c, err;
	bool listing = false;

	/* "+" stops at the first operand: the program's options are its own */
	optind = first;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:f:e:lo:s:qvhVp:", long_opts,
				NULL)) != -1) {
		if (c == 'l' && o->cmd != RT_CMD_RUN)
			return bad("%s", "-l works on a program, not with "
				   "a command");
		listing |= c == 'l';
		if (c == '?' || c == ':')
			return bad_option(c, argv);
		err = parse_one(c, optarg, o);
		if (err)
			return -EINVAL;
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	if (listing && o->cmd != RT_CMD_HELP && o->cmd != RT_CMD_VERSION)
		o->cmd = RT_CMD_LIST;
	return check_operands(o);
}
