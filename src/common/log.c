// SPDX-License-Identifier: GPL-2.0-or-later
/* Message printing with per-module debug domains. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "log"
#define PR_DOMAIN RT_DOM_MAIN
#include "rtrace/log.h"

int rt_log_verbose;
void (*rt_log_before_print)(void);

static int debug_level[RT_DOM_MAX];

static const char *const domain_names[RT_DOM_MAX] = {
	[RT_DOM_MAIN] = "main",         [RT_DOM_CLI] = "cli",
	[RT_DOM_SYMBOLS] = "symbols",   [RT_DOM_MATCH] = "match",
	[RT_DOM_PROBES] = "probes",     [RT_DOM_ARCH] = "arch",
	[RT_DOM_TRACEE] = "tracee",     [RT_DOM_TRACER] = "tracer",
	[RT_DOM_EVLOG] = "evlog",       [RT_DOM_ANALYSIS] = "analysis",
	[RT_DOM_OUTPUT] = "output",     [RT_DOM_SCRIPT] = "script",
};

int rt_log_set_debug(const char *list)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		int level = 1, d;

		/* "tracer:2" asks for a deeper level in one domain */
		const char *colon = memchr(p, ':', len);
		size_t nlen = colon ? (size_t)(colon - p) : len;

		if (colon)
			level = atoi(colon + 1);
		for (d = 0; d < RT_DOM_MAX; d++) {
			if (strlen(domain_names[d]) == nlen &&
			    strncmp(domain_names[d], p, nlen) == 0)
				break;
		}
		if (nlen == 3 && strncmp(p, "all", 3) == 0) {
			for (d = 0; d < RT_DOM_MAX; d++)
				debug_level[d] = level;
		} else if (d == RT_DOM_MAX) {
			pr_err("unknown debug domain '%.*s' (known: main, cli, "
			       "symbols, match, probes, arch, tracee, tracer, "
			       "evlog, analysis, output, script, all)",
			       (int)nlen, p);
			return -EINVAL;
		} else {
			debug_level[d] = level;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

bool rt_log_enabled(enum rt_log_domain dom, int level)
{
	return debug_level[dom] >= level || rt_log_verbose >= level + 1;
}

/* One message line, its arguments in @ap. */
static void print_line(int level, const char *mod, const char *file,
		       int line, const char *fmt, va_list ap)
{
	int saved = errno;

	if (rt_log_before_print)
		rt_log_before_print();
	fputs("rtrace: ", stderr);
	if (level == RT_LVL_WARN)
		fputs("warning: ", stderr);
	if (level > RT_LVL_INFO || rt_log_verbose >= 1)
		fprintf(stderr, "%s: ", mod);
	vfprintf(stderr, fmt, ap);
	if (rt_log_verbose >= 2 && level <= RT_LVL_WARN)
		fprintf(stderr, " (%s:%d)", file, line);
	fputc('\n', stderr);
	errno = saved;
}

void rt_log_print(int level, enum rt_log_domain dom, const char *mod,
		  const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	(void)dom;
	/* -q (verbose -1) keeps warnings: they say what a run lost */
	if (level == RT_LVL_INFO && rt_log_verbose < 1)
		return;
	va_start(ap, fmt);
	print_line(level, mod, file, line, fmt, ap);
	va_end(ap);
}
