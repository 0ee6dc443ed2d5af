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
	RT_CMD_HELP,
	RT_CMD_VERSION,
};

enum rt_format { RT_FMT_TEXT, RT_FMT_JSON, RT_FMT_CSV };

enum rt_sort {
	RT_SORT_SELF,
	RT_SORT_TOTAL,
	RT_SORT_CALLS,
	RT_SORT_AVG,
	RT_SORT_MAX,
	RT_SORT_NAME,
};

/* How the report splits its table.  AUTO: by process when the log holds
 * several, else one table. */
enum rt_by { RT_BY_AUTO, RT_BY_NONE, RT_BY_THREAD, RT_BY_PROCESS, RT_BY_TEST };

typedef VEC(const char *) rt_str_vec;

struct rt_opts {
	enum rt_command cmd;
	rt_str_vec include;        /* -f GLOB */
	rt_str_vec exclude;        /* --exclude GLOB */
	const char *log_path;      /* -o for run/record, FILE for report */
	char **argv;               /* program and arguments (not owned) */
	int argc;
	bool no_follow;            /* --no-follow */
	bool raw_times;            /* --raw-times */
	bool count_only;           /* --count: entries only, no times */
	bool coverage;             /* --coverage: first call of each only */
	bool stats;                /* --stats: stops and system calls */
	int attach_pid;            /* -p PID: join a running process */
	uint64_t duration_ns;      /* --duration: stop tracing after it */
	bool instances;            /* --instances: do not merge by name */
	bool list_all;             /* -l with no -f: every function */
	enum rt_format format;     /* --format */
	enum rt_sort sort;         /* --sort */
	enum rt_by by;             /* --by */
	long limit;                /* --limit, 0 = all */
	const char *report_path;   /* --report-file: live report there */
	bool quiet;                /* -q: no summary line, warnings only */
	int color;                 /* --color: -1 auto, 0 never, 1 always */
};

/* Sets the defaults that are not zero. */
void rt_opts_init(struct rt_opts *o);

/* Frees the vectors inside @o (not the strings, which belong to argv). */
void rt_opts_release(struct rt_opts *o);

#endif
