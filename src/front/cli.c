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
#include "rtrace/helptopic.h"
#include "rtrace/diff.h"
#include "rtrace/log.h"
#include "rtrace/merge.h"
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
	OPT_KEEP,
	OPT_STACK,
	OPT_STACKS,
	OPT_MEM,
	OPT_HEAP_SERIES,
	OPT_ENGINE,
	OPT_INLINED,
	OPT_NO_INLINED,
	OPT_PROGRESS,
	OPT_NO_BLOCKED,
	OPT_SAVE_PROFILE,
	OPT_WINDOW,
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
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "inlined", no_argument, NULL, OPT_INLINED },
	{ "no-inlined", no_argument, NULL, OPT_NO_INLINED },
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "stack", required_argument, NULL, OPT_STACK },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ "mem", no_argument, NULL, OPT_MEM },
	{ "no-blocked", no_argument, NULL, OPT_NO_BLOCKED },
	{ "heap-series", no_argument, NULL, OPT_HEAP_SERIES },
	{ "save-profile", required_argument, NULL, OPT_SAVE_PROFILE },
	{ "window", no_argument, NULL, OPT_WINDOW },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "sort", required_argument, NULL, 's' },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "by", required_argument, NULL, OPT_BY },
	{ "instances", no_argument, NULL, OPT_INSTANCES },
	{ "raw-times", no_argument, NULL, OPT_RAW_TIMES },
	{ "report-file", required_argument, NULL, OPT_REPORT_FILE },
	{ "color", required_argument, NULL, OPT_COLOR },
	{ "quiet", no_argument, NULL, 'q' },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "verbose", no_argument, NULL, 'v' },
	{ "debug", required_argument, NULL, OPT_DEBUG },
	{ "script", required_argument, NULL, 'x' },
	{ "interactive", no_argument, NULL, 'i' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	RT_VIEW_LONG_OPTS,
	{ 0 },
};

static const char help_text[] =
"Usage: rtrace [OPTIONS] [--] PROGRAM [ARGS...]\n"
"       rtrace record [OPTIONS] [--] PROGRAM [ARGS...]\n"
"       rtrace report [OPTIONS] [LOG...]\n"
"       rtrace tree [OPTIONS] [LOG]\n"
"       rtrace replay [OPTIONS] [LOG]\n"
"       rtrace export --format=FMT [-o FILE] [OPTIONS] [LOG]\n"
"       rtrace diff [OPTIONS] OLD NEW\n"
"       rtrace [record] -p PID [OPTIONS]\n"
"       rtrace -l [-f GLOB]... [--] PROGRAM\n"
"       rtrace -x FILE [OPTIONS] [-- PROGRAM [ARGS...]]\n"
"       rtrace -i [OPTIONS] [PROGRAM [ARGS...]]\n"
"\n"
"Trace the functions of a Rust program: exact call counts, and total\n"
"(inclusive) and self (exclusive) times per function.  Probes are jumps\n"
"to code rtrace adds to the process, which records each call without\n"
"stopping it (jump probes, the default engine), and breakpoints only\n"
"where a jump is not provably safe.  No recompilation, no root.  The\n"
"program's output is left untouched; the report goes to stderr.\n"
"\n"
"Commands:\n"
"  (none)          record PROGRAM into the log, then print the report\n"
"  record          record PROGRAM into the log only\n"
"  report [LOG...] print the report of a log (default rtrace.data); of\n"
"                  several logs, one table that adds them up by name\n"
"  tree [LOG]      print the call tree: every calling context, its calls,\n"
"                  total and self time (= report --tree)\n"
"  replay [LOG]    print the timeline: each entry and exit, indented by\n"
"                  depth, with times, thread by thread (= report --replay)\n"
"  export [LOG]    write the log as a Chrome/Perfetto trace, folded stacks,\n"
"                  an SVG flame graph or an HTML report\n"
"  diff OLD NEW    compare two runs: per function, calls, self and total\n"
"                  time in each and the change, largest change in self\n"
"                  time first (--sort total, calls or name; --format json\n"
"                  or csv); functions called in one run only are marked\n"
"                  new or gone\n"
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
"                       nothing (-v: how each patched site is reached)\n"
"\n"
"Recording:\n"
"  -o, --output=FILE    write the log to FILE (default rtrace.data)\n"
"  -p, --pid=PID        trace the running process PID: join it, trace until\n"
"                       Ctrl-C, SIGTERM or --duration, then leave it running\n"
"                       with its code restored\n"
"      --duration=TIME  stop tracing after TIME (10s, 500ms, 2m): detach\n"
"                       and let the program go on\n"
"      --keep=WHAT      which events the log keeps: all (the default);\n"
"                       none: only the profile they add up to, made while\n"
"                       recording, so the log's size follows the number\n"
"                       of functions, not of calls (the table, --by and\n"
"                       diff read it; the views of single calls need\n"
"                       events); a time (30s, 5m) or a size (200M, 1G):\n"
"                       a flight recorder that keeps the most recent\n"
"                       events that long or that large, plus the whole\n"
"                       run's profile\n"
"      --mem            profile memory: probe the allocator (Rust's\n"
"                       __rust_alloc shims, libc's malloc family); each\n"
"                       allocation costs two more probe hits.  The report\n"
"                       adds allocations, bytes, frees, live bytes and the\n"
"                       peak per function (report --mem: that table only)\n"
"      --no-blocked     do not probe libc's calls that wait (sleep, futex,\n"
"                       join, read, poll...): their time stays the self\n"
"                       time of the function that made them, and the\n"
"                       report has no blocked column\n"
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
"      --progress       the progress line (elapsed time, calls, events per\n"
"                       second, stops, the log's size) even when stderr is\n"
"                       not a terminal: then a line a second.  On a\n"
"                       terminal it is on, rewritten 4 times a second.\n"
"                       SIGUSR1 prints an interim report of the calls\n"
"                       recorded so far; the trace goes on\n"
"      --stats          print the stops and rtrace's system calls per hit,\n"
"                       the share of events the jump probes recorded\n"
"                       without a stop, and the functions whose\n"
"                       breakpoints stopped the program\n"
"      --engine=E       jump (default; also spelt inline, the old name):\n"
"                       jump probes, a jump to a trampoline that records\n"
"                       the event inside the process, without a stop,\n"
"                       where that is provably safe, and a breakpoint\n"
"                       elsewhere (-l says where and why);\n"
"                       trap: a breakpoint everywhere, a stop per hit\n"
"      --no-inlined     out-of-line calls only.  By default the calls the\n"
"                       compiler inlined count too: a probe (a jump where\n"
"                       the rules allow, else a breakpoint) where the DWARF\n"
"                       says a selected function was inlined; timed where\n"
"                       the inlined code is left only through its end and\n"
"                       a probe fits there; a function that exists only\n"
"                       inlined can be selected\n"
"      --inlined        count the calls the compiler inlined (the default)\n"
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
"      --save-profile=FILE  report: write FILE, the log LOG would be had\n"
"                       it been recorded with --keep=none (its profile,\n"
"                       no events)\n"
"      --window         a flight recorder's log (--keep=TIME|SIZE): the\n"
"                       table of the events it kept, not of the whole run\n"
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
"      --min-total=TIME leave out the rows, call tree contexts, graph\n"
"                       entries and replayed calls with less total time\n"
"                       (20us, 1.5ms, 2s)\n"
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
"Scripted sessions (docs/commands.md):\n"
"  -x, --script=FILE    run the commands of FILE (file, args, trace, break,\n"
"                       on, run, backtrace, print (arguments by name with\n"
"                       their types), expect, report, export...),\n"
"                       checked whole first; PROGRAM ARGS, when given, are\n"
"                       the program to run.  Every long option here is also\n"
"                       a command: set NAME [VALUE].  Exit status: 0 when\n"
"                       every expect held, 1 when one failed or a command\n"
"                       could not run (all are listed), 2 for a bad script\n"
"                       or a run that could not start\n"
"  -i, --interactive    the same commands at a prompt, with line editing,\n"
"                       history and tab completion of commands and function\n"
"                       names\n"
"\n"
"General:\n"
"  -q, --quiet          no progress line and no summary line; errors and\n"
"                       warnings only\n"
"  -v, --verbose        say more (-vv: debug messages of every module)\n"
"      --debug=LIST     debug messages of some modules, e.g. tracer,probes\n"
"  -h, --help           show this help; after a command (report --help):\n"
"                       that command's options only\n"
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
"  rtrace diff before.data after.data        what a change did, per function\n"
"  rtrace replay --tid 4242 --since 1s --until 1.2s run.data\n"
"  rtrace export -o trace.json run.data      open it in ui.perfetto.dev\n"
"  rtrace export --format folded run.data | flamegraph.pl > flame.svg\n"
"  rtrace --export html:report.html -f 'demo::*' ./demo 1000\n"
"  rtrace -l -f 'demo::*' ./demo             what would be traced, and why not\n"
"  rtrace -p 4242 -f 'server::*' --duration 10s   join, trace 10 s, leave\n"
"  rtrace -x session.rtx -- ./demo 1000      scripted session, expect for CI\n"
"  rtrace -i ./demo 1000                     interactive prompt\n"
"\n"
"Exit status:\n"
"  When a program was run: its exit status, or 128+N when signal N killed\n"
"  it.  Otherwise 0 on success.  Before the program runs, rtrace's own\n"
"  failures are: 2 bad usage or input (options, patterns, symbols, logs),\n"
"  125 tracing failed (ptrace refused, I/O), 126 the program cannot be\n"
"  executed (permissions, not an ELF program), 127 program not found.\n"
"  -x and -i: 0 every expect held, 1 an expect failed or a command could\n"
"  not run, 2 a bad script or the program could not be started.\n";

void rt_cli_help(FILE *out, const char *command)
{
	if (!command || !rt_help_topic(out, help_text, command))
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

/* A duration is tried first, so that 5m is five minutes and 5M five
 * MiB. */
static int parse_keep(const char *arg, struct rt_keep *k)
{
	if (strcmp(arg, "all") == 0) {
		*k = (struct rt_keep){ RT_KEEP_ALL, 0, 0 };
		return 0;
	}
	if (strcmp(arg, "none") == 0) {
		*k = (struct rt_keep){ RT_KEEP_NONE, 0, 0 };
		return 0;
	}
	*k = (struct rt_keep){ .mode = RT_KEEP_LAST };
	if (!parse_duration_ns(arg, &k->ns) && k->ns)
		return 0;
	k->ns = 0;
	if (!parse_size_bytes(arg, &k->bytes) && k->bytes >= 1 << 20)
		return 0;
	return bad("--keep is all, none, a time such as 30s or 5m, or a size "
		   "of at least 1M such as 200M or 1G, not '%s'", arg);
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
	case 'x': o->cmd = RT_CMD_SCRIPT; o->script_path = arg; break;
	case 'i': o->cmd = RT_CMD_PROMPT; break;
	case OPT_NO_FOLLOW: o->no_follow = true; break;
	case OPT_INLINED: o->inlined = true; break;
	case OPT_NO_INLINED: o->inlined = false; break;
	case OPT_COUNT: o->count_only = true; break;
	case OPT_COVERAGE: o->coverage = true; break;
	case OPT_STATS: o->stats = true; break;
	case OPT_PROGRESS: o->progress = true; break;
	case OPT_ENGINE:
		/* "inline" is the old name of the jump probes */
		if (strcmp(arg, "jump") == 0 || strcmp(arg, "inline") == 0)
			o->engine = RT_ENGINE_INLINE;
		else if (strcmp(arg, "trap") == 0)
			o->engine = RT_ENGINE_TRAP;
		else
			return bad("--engine is jump (or its old name inline) "
				   "or trap, not '%s'", arg);
		break;
	case 'p': return parse_pid(arg, o);
	case OPT_DURATION:
		if (parse_duration_ns(arg, &o->duration_ns) || !o->duration_ns)
			return bad("--duration needs a time such as 10s or "
				   "500ms, not '%s'", arg);
		break;
	case OPT_KEEP: return parse_keep(arg, &o->keep);
	case OPT_STACK: return parse_depth(arg, o);
	case OPT_STACKS: o->show_stacks = true; break;
	case OPT_MEM: o->mem = true; break;
	case OPT_NO_BLOCKED: o->no_blocked = true; break;
	case OPT_HEAP_SERIES: o->heap_series = o->mem = true; break;
	case OPT_SAVE_PROFILE: o->save_profile = arg; break;
	case OPT_WINDOW: o->window_table = true; break;
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
	else if (strcmp(argv[1], "diff") == 0)
		o->cmd = RT_CMD_DIFF;
	else if (!rt_viewopts_command(argv[1], o))
		return 1;
	return 2;
}

/* What --keep=none and --save-profile go with. */
static int check_keep(const struct rt_opts *o)
{
	bool recording = o->cmd == RT_CMD_RUN || o->cmd == RT_CMD_RECORD;

	if (o->save_profile && (o->cmd != RT_CMD_REPORT || o->argc > 1))
		return bad("%s", "--save-profile goes with report and one log");
	if (!recording || o->keep.mode != RT_KEEP_NONE)
		return 0;
	if (o->mem || o->stack_depth)
		return bad("--keep=none keeps no events, which %s needs: "
			   "record without it", o->mem ? "--mem" : "--stack");
	if (o->view != RT_VIEW_TABLE || o->exports.n)
		return bad("%s", "--keep=none keeps no events: the views of "
			   "single calls need them; record without it");
	return 0;
}

static int check_operands(struct rt_opts *o)
{
	if (o->count_only && o->coverage)
		return bad("%s", "--count and --coverage exclude each other");
	if (check_keep(o))
		return -EINVAL;
	if (o->cmd == RT_CMD_HELP || o->cmd == RT_CMD_VERSION ||
	    o->cmd == RT_CMD_SCRIPT || o->cmd == RT_CMD_PROMPT)
		return 0;  /* a script may give the program later */
	if (rt_viewopts_check(o))
		return -EINVAL;
	if (o->cmd == RT_CMD_EXPORT)
		return 0;
	if (o->cmd == RT_CMD_DIFF)
		return rt_diff_check(o);
	if (o->cmd == RT_CMD_REPORT) {
		/* several logs: only the table, which merges them */
		if (o->argc > 1 && rt_merge_check(o))
			return -EINVAL;
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
	while ((c = getopt_long(argc, argv, "+:f:e:lo:s:qvhVp:x:i", long_opts,
				NULL)) != -1) {
		if ((c == 'x' || c == 'i') && o->cmd != RT_CMD_RUN)
			return bad("%s", "-x and -i start a session of their own, "
				   "not with a command or each other");
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
	if (o->cmd == RT_CMD_HELP && first == 2)
		o->help_topic = argv[1];
	return check_operands(o);
}

/* ---- the same options from a script: set NAME VALUE ---------------------- */

const char *rt_cli_option_name(size_t i)
{
	return i < ARRAY_SIZE(long_opts) - 1 ? long_opts[i].name : NULL;
}

/* Options that are actions or modes of the command line, not settings. */
static bool not_a_setting(int c)
{
	return c == 'h' || c == 'V' || c == 'x' || c == 'i';
}

/* A flag's value: on (also when not given), off, yes, no, true, false. */
static int flag_value(const char *v, bool *on)
{
	static const char *const ons[] = { "on", "yes", "true", "1" };
	static const char *const offs[] = { "off", "no", "false", "0" };

	*on = true;
	for (size_t i = 0; v && i < ARRAY_SIZE(ons); i++) {
		if (strcmp(v, ons[i]) == 0)
			return 0;
		if (strcmp(v, offs[i]) == 0) {
			*on = false;
			return 0;
		}
	}
	return v ? -EINVAL : 0;
}

/* `set FLAG off`: what the flag's absence from the command line means. */
static void unset_flag(int c, struct rt_opts *o)
{
	switch (c) {
	case 'l': o->cmd = RT_CMD_RUN; break;
	case 'q': o->quiet = false; rt_log_verbose = 0; break;
	case 'v': rt_log_verbose = MIN(rt_log_verbose, 0); break;
	case OPT_NO_FOLLOW: o->no_follow = false; break;
	case OPT_INLINED: o->inlined = false; break;
	case OPT_NO_INLINED: o->inlined = true; break;
	case OPT_COUNT: o->count_only = false; break;
	case OPT_COVERAGE: o->coverage = false; break;
	case OPT_STATS: o->stats = false; break;
	case OPT_PROGRESS: o->progress = false; break;
	case OPT_STACKS: o->show_stacks = false; break;
	case OPT_MEM: o->mem = o->heap_series = false; break;
	case OPT_NO_BLOCKED: o->no_blocked = false; break;
	case OPT_HEAP_SERIES: o->heap_series = false; break;
	case OPT_INSTANCES: o->instances = false; break;
	case OPT_WINDOW: o->window_table = false; break;
	case OPT_RAW_TIMES: o->raw_times = false; break;
	case RT_OPT_TREE: case RT_OPT_REPLAY: o->view = RT_VIEW_TABLE; break;
	}
}

/* The first line of what the option parsers printed, without "rtrace: "
 * and the pointer to --help, as a new string. */
static char *first_line(const char *text)
{
	static const char tail[] = " (see rtrace --help)";
	size_t n;
	char *s;

	if (str_starts(text, "rtrace: "))
		text += strlen("rtrace: ");
	n = strcspn(text, "\n");
	s = xstrndup(text, n);
	if (n > strlen(tail) && strcmp(s + n - strlen(tail), tail) == 0)
		s[n - strlen(tail)] = '\0';
	return s;
}

struct caught_call {
	int (*fn)(struct caught_call *cc);
	struct rt_opts *o;
	const struct option *lo;
	const char *value;
	int argc;
	char **argv;
};

/*
 * The option parsers (here and in viewopts.c) print their complaint on
 * stderr; a script wants it as text, to put its file and line in front.
 * glibc lets a program assign stderr (its manual says so), so the call
 * runs with stderr pointed at a memory stream.
 */
static int run_caught(struct caught_call *cc, char **why)
{
	FILE *saved = stderr, *mem;
	char *buf = NULL;
	size_t len = 0;
	int err;

	fflush(stderr);
	mem = open_memstream(&buf, &len);
	if (!mem)
		return cc->fn(cc);
	stderr = mem;
	err = cc->fn(cc);
	fclose(mem);
	stderr = saved;
	if (err && why)
		*why = first_line(buf && *buf ? buf : "invalid value");
	free(buf);
	return err;
}

static int apply_set(struct caught_call *cc)
{
	bool on;

	if (cc->lo->has_arg == required_argument) {
		if (!cc->value || !*cc->value) {
			fprintf(stderr, "%s needs a value\n", cc->lo->name);
			return -EINVAL;
		}
		return parse_one(cc->lo->val, cc->value, cc->o);
	}
	if (flag_value(cc->value, &on)) {
		fprintf(stderr, "%s is on or off, not '%s'\n", cc->lo->name,
			cc->value);
		return -EINVAL;
	}
	if (!on) {
		unset_flag(cc->lo->val, cc->o);
		return 0;
	}
	return parse_one(cc->lo->val, NULL, cc->o);
}

int rt_cli_set(struct rt_opts *o, const char *name, const char *value,
	       char **why)
{
	struct caught_call cc = { .fn = apply_set, .o = o, .value = value };

	for (const struct option *lo = long_opts; lo->name; lo++)
		if (strcmp(lo->name, name) == 0 && !not_a_setting(lo->val))
			cc.lo = lo;
	if (!cc.lo) {
		if (why)
			*why = xasprintf("unknown setting '%s'", name);
		return -ENOENT;
	}
	return run_caught(&cc, why);
}

bool rt_cli_option_takes_value(const char *name)
{
	for (const struct option *lo = long_opts; lo->name; lo++)
		if (strcmp(lo->name, name) == 0)
			return lo->has_arg == required_argument;
	return false;
}

static int parse_caught(struct caught_call *cc)
{
	/* getopt keeps state between argument vectors; optind = 0 makes it
	 * start afresh (glibc) */
	optind = 0;
	(void)getopt(1, (char *[]){ "rtrace", NULL }, "+");
	return rt_cli_parse(cc->argc, cc->argv, cc->o);
}

int rt_cli_parse_caught(int argc, char **argv, struct rt_opts *o, char **why)
{
	struct caught_call cc = { .fn = parse_caught, .o = o, .argc = argc,
				  .argv = argv };

	return run_caught(&cc, why);
}
