/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The session configuration: every knob of a run, a recording or a report.
 * Zero-initialised means the defaults; rt_opts_init() sets the few that are
 * not zero.  Filled by cli.c (and by command files), read by everyone.
 */
#ifndef RTRACE_OPTS_H
#define RTRACE_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "rtrace/vec.h"

enum rt_command {
	RT_CMD_RUN,        /* record, then report on stderr */
	RT_CMD_RECORD,     /* record only */
	RT_CMD_REPORT,     /* report from a log */
	RT_CMD_LIST,       /* list what would be traced */
	RT_CMD_EXPORT,     /* export a log: chrome, folded, svg, html */
	RT_CMD_DIFF,       /* compare two logs */
	RT_CMD_HELP,
	RT_CMD_VERSION,
	RT_CMD_SCRIPT,     /* -x FILE: a command file */
	RT_CMD_PROMPT,     /* -i: commands at a prompt */
};

/* text/json/csv: the report's views; the others: rtrace export. */
enum rt_format {
	RT_FMT_TEXT,
	RT_FMT_JSON,
	RT_FMT_CSV,
	RT_FMT_CHROME,     /* Chrome trace event JSON (Perfetto) */
	RT_FMT_FOLDED,     /* folded stacks (flamegraph.pl, inferno) */
	RT_FMT_SVG,        /* SVG flame graph */
	RT_FMT_HTML,       /* self-contained HTML report */
};

/* What a report shows: the per-function table, the call graph of
 * --graph GLOB, the call tree (rtrace tree), the timeline (rtrace replay). */
enum rt_view { RT_VIEW_TABLE, RT_VIEW_GRAPH, RT_VIEW_TREE, RT_VIEW_REPLAY };

/* What the frames of folded stacks and flame graphs weigh. */
enum rt_weight { RT_WEIGHT_SELF, RT_WEIGHT_CALLS };

enum rt_sort {
	RT_SORT_SELF,
	RT_SORT_TOTAL,
	RT_SORT_CALLS,
	RT_SORT_AVG,
	RT_SORT_MAX,
	RT_SORT_NAME,
	RT_SORT_BYTES,       /* --mem: bytes allocated */
	RT_SORT_ALLOCS,      /* --mem: allocations */
	RT_SORT_LIVE,        /* --mem: bytes live at the end */
};

/* How the report splits its table.  AUTO: by process when the log holds
 * several, else one table. */
enum rt_by { RT_BY_AUTO, RT_BY_NONE, RT_BY_THREAD, RT_BY_PROCESS, RT_BY_TEST };

/* How probes are hit: --engine. */
enum rt_engine {
	RT_ENGINE_AUTO,    /* the default: inline */
	RT_ENGINE_TRAP,    /* a breakpoint, one stop per hit */
	RT_ENGINE_INLINE,  /* jumps to trampolines where provably safe */
};

typedef VEC(const char *) rt_str_vec;

struct rt_session_hooks;  /* hooks.h: what a scripted session plugs in */

/* --keep: which events the log keeps. */
enum rt_keep_mode {
	RT_KEEP_ALL,        /* every event (the default) */
	RT_KEEP_NONE,       /* none: the log holds the profile the events
			     * add up to, made while recording */
	RT_KEEP_LAST,       /* the most recent ones (a flight recorder),
			     * plus the whole run's profile */
};

struct rt_keep {
	enum rt_keep_mode mode;
	uint64_t ns;               /* RT_KEEP_LAST: the last ns of events */
	uint64_t bytes;            /* RT_KEEP_LAST: or the last bytes */
};

struct rt_opts {
	enum rt_command cmd;
	rt_str_vec include;        /* -f GLOB */
	rt_str_vec exclude;        /* --exclude GLOB */
	const char *log_path;      /* -o for run/record, FILE for report */
	char **argv;               /* program and arguments (not owned) */
	int argc;
	bool no_follow;            /* --no-follow */
	bool inlined;              /* a probe at each inlined instance of a
				    * selected function (the default;
				    * --no-inlined turns it off) */
	bool raw_times;            /* --raw-times */
	bool count_only;           /* --count: entries only, no times */
	enum rt_engine engine;     /* --engine */
	bool coverage;             /* --coverage: first call of each only */
	bool stats;                /* --stats: stops and system calls */
	int attach_pid;            /* -p PID: join a running process */
	uint64_t duration_ns;      /* --duration: stop tracing after it */
	struct rt_keep keep;       /* --keep */
	unsigned stack_depth;      /* --stack N: capture stacks at entries */
	bool show_stacks;          /* report --stacks */
	bool mem;                  /* --mem: profile the allocator */
	bool no_blocked;           /* --no-blocked: libc's waiting calls
				    * not probed */
	bool heap_series;          /* report --heap-series */
	const char *save_profile;  /* report --save-profile=FILE */
	bool window_table;         /* report --window: the table of a
				    * flight recorder's events only */
	bool instances;            /* --instances: do not merge by name */
	bool list_all;             /* -l with no -f: every function */
	enum rt_format format;     /* --format */
	enum rt_sort sort;         /* --sort */
	enum rt_by by;             /* --by */
	long limit;                /* --limit, 0 = all */
	const char *report_path;   /* --report-file: live report there */
	bool quiet;                /* -q: no summary line, warnings only */
	bool progress;             /* --progress: the progress line even when
				    * stderr is no terminal */
	int color;                 /* --color: -1 auto, 0 never, 1 always */
	/* the views (views.h); -f narrows them when they read a log */
	enum rt_view view;         /* tree, replay, --graph, --tree... */
	const char *graph;         /* --graph GLOB */
	uint64_t min_total_ns;     /* --min-total: rows and tree nodes */
	unsigned depth;            /* --depth: tree, replay, chrome; 0 = all */
	uint32_t tid;              /* --tid: one thread only; 0 = all */
	uint64_t since_ns;         /* --since: replay and chrome window */
	uint64_t until_ns;         /* --until; 0 = to the end */
	enum rt_weight weight;     /* --weight: folded stacks, flame graph */
	const char *export_path;   /* export -o FILE; NULL = stdout */
	rt_str_vec exports;        /* --export FMT:FILE after a live run */
	/* scripted sessions (-x, -i; script.h) */
	const char *script_path;   /* -x FILE */
	rt_str_vec also_trace;     /* break/on patterns: traced on top of -f
				    * (or of the default) */
	rt_str_vec stop_at;        /* break/on patterns: their functions keep
				    * breakpoints, whatever the engine */
	const struct rt_session_hooks *hooks;  /* NULL outside scripts */
	const char *help_topic;    /* COMMAND --help: that command's help */
};

/* Sets the defaults that are not zero. */
void rt_opts_init(struct rt_opts *o);

/* Frees the vectors inside @o (not the strings, which belong to argv). */
void rt_opts_release(struct rt_opts *o);

#endif
