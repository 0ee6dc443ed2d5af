// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Every view of `rtrace report`, `tree`, `replay` and `export` on
 * arbitrary logs: the table (text, JSON, CSV), the call tree (text,
 * JSON), the replay, the call graph, --stacks, --mem and --heap-series,
 * and the chrome, folded, svg and html exports, each through the same
 * entry points as the command line (rt_session_report(), rt_views_*()),
 * its output written to a stream that only measures it.
 *
 * Properties: no memory error, no leak; each view returns an exit status
 * of 0 or 2; memory stays within what the file justifies (libFuzzer's
 * -rss_limit_mb / -malloc_limit_mb, views.options; the replay build, which
 * has neither, runs under a 1 GiB address-space limit); the lines of the
 * views that indent by depth stay as wide as RT_INDENT_LEVELS levels and
 * the longest name allow, however deep the calls go.
 */
#include <string.h>
#include <sys/resource.h>

#include "rtrace/evlog.h"
#include "rtrace/log.h"
#include "rtrace/opts.h"
#include "rtrace/render.h"
#include "rtrace/session.h"
#include "rtrace/util.h"
#include "rtrace/views.h"
#include "fuzz.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_ASAN 1
#endif

#ifdef FUZZ_ASAN
/* ASan keeps freed memory in quarantine (256 MB by default): RSS would
 * then measure the quarantine, not what the views hold, and libFuzzer's
 * -rss_limit_mb of views.options could not tell one from the other. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=16";
}
#endif

/* What a view wrote: bytes and its widest line. */
static struct {
	size_t bytes, line, widest;
} seen;

static ssize_t measure(void *cookie, const char *buf, size_t n)
{
	(void)cookie;
	for (size_t i = 0; i < n; i++) {
		seen.line = buf[i] == '\n' ? 0 : seen.line + 1;
		if (seen.line > seen.widest)
			seen.widest = seen.line;
	}
	seen.bytes += n;
	return (ssize_t)n;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const cookie_io_functions_t io = { .write = measure };

	(void)argc;
	(void)argv;
	rt_log_verbose = -1;
	/* the views write to standard output: make it the measuring stream */
	stdout = fopencookie(NULL, "w", io);
#ifndef FUZZ_ASAN
	/* without libFuzzer's limits, a view that sizes a table from a
	 * number in the file fails here instead of filling the machine */
	struct rlimit as = { 1UL << 30, 1UL << 30 };

	setrlimit(RLIMIT_AS, &as);
#endif
	return stdout ? 0 : -1;
}

/* The longest function name of the log: the widest a line may grow
 * beyond its fixed columns and the capped indentation. */
static size_t longest_name(const char *path)
{
	struct rt_evlog_reader *r;
	struct rt_event ev;
	size_t n = 0;

	if (rt_evlog_open(path, &r))
		return 0;
	while (rt_evlog_next(r, &ev) > 0)
		;
	for (size_t i = 0; i < rt_evlog_nfuncs(r); i++) {
		const struct rt_log_func *fn = rt_evlog_func(r, (uint32_t)i);

		if (fn && strlen(fn->name) > n)
			n = strlen(fn->name);
	}
	rt_evlog_reader_free(r);
	return n;
}

enum run { RUN_REPORT, RUN_VIEW, RUN_EXPORT };

/* Runs one view of @o; @width, when not 0, bounds its lines. */
static void one(struct rt_opts *o, enum run how, size_t width)
{
	int code;

	seen.bytes = seen.line = seen.widest = 0;
	if (how == RUN_VIEW)
		code = rt_views_report(o);
	else if (how == RUN_EXPORT)
		code = rt_views_export(o);
	else
		code = rt_session_report(o);
	fflush(stdout);
	FUZZ_CHECK(code == 0 || code == 2);
	if (width)
		FUZZ_CHECK(seen.widest <= width);
}

static void views(const char *path, size_t name)
{
	/* bars of 5 bytes (UTF-8) per level, "[depth] ", columns, marks */
	size_t indented = name + 5 * (RT_INDENT_LEVELS + 2) + 256;
	/* the outermost frames, "[N frames]", the function, the weight */
	size_t folded = (name + 1) * (RT_INDENT_LEVELS + 2) + 64;
	static const enum rt_format table[] = { RT_FMT_TEXT, RT_FMT_JSON,
						RT_FMT_CSV };
	static const struct { enum rt_format f; bool lines; } ex[] = {
		{ RT_FMT_CHROME, false }, { RT_FMT_FOLDED, true },
		{ RT_FMT_SVG, false }, { RT_FMT_HTML, false },
	};
	struct rt_opts o;

	rt_opts_init(&o);
	o.cmd = RT_CMD_REPORT;
	o.log_path = path;
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		o.format = table[i];
		one(&o, RUN_REPORT, 0);
		o.mem = true;
		one(&o, RUN_REPORT, 0);
		o.mem = false;
	}
	o.format = RT_FMT_TEXT;
	o.show_stacks = true;
	one(&o, RUN_REPORT, 0);
	o.show_stacks = false;
	o.mem = o.heap_series = true;
	one(&o, RUN_REPORT, 0);
	o.mem = o.heap_series = false;

	o.view = RT_VIEW_TREE;
	one(&o, RUN_VIEW, indented);
	o.format = RT_FMT_JSON;
	one(&o, RUN_VIEW, 0);
	o.format = RT_FMT_TEXT;
	o.view = RT_VIEW_REPLAY;
	one(&o, RUN_VIEW, indented);
	o.view = RT_VIEW_GRAPH;
	o.graph = "*";
	one(&o, RUN_VIEW, 0);

	o.cmd = RT_CMD_EXPORT;
	for (size_t i = 0; i < ARRAY_SIZE(ex); i++) {
		o.format = ex[i].f;
		one(&o, RUN_EXPORT, ex[i].lines ? folded : 0);
	}
	rt_opts_release(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file_put(data, size);

	if (path)
		views(path, longest_name(path));
	return 0;
}
