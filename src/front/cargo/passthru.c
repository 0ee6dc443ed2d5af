// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrace's own options on cargo rtrace's command line.  Every long option
 * rtrace accepts (its getopt table, so a new one needs no change here)
 * goes to each rtrace run, and those of the report also to the merged
 * report at the end.  Names both programs know are settled here: cargo
 * keeps -q/-v, both get --color, and the options that make no sense once
 * per executable are refused with the way to get what they do.
 */
#include <stdio.h>
#include <string.h>

#include "cargo-rtrace.h"
#include "rtrace/cli.h"
#include "rtrace/util.h"

/* cargo's own, though rtrace has them too */
static const char *const cargo_own[] = { "quiet", "verbose", "help",
					 "version" };
/* the merged report reads them too */
static const char *const report_opts[] = { "format", "sort", "limit",
					   "instances", "raw-times", "color",
					   "min-total" };

static const struct {
	const char *name, *why;
} refused[] = {
	{ "output", "each executable gets its own log: give --log-dir" },
	{ "pid", "cargo rtrace starts what cargo built: use rtrace -p" },
	{ "list", "use rtrace -l on the executable" },
	{ "interactive", "use rtrace -i on the executable" },
};

static bool in(const char *const *set, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(set[i], name) == 0)
			return true;
	return false;
}

static bool is_rtrace_option(const char *name)
{
	for (size_t i = 0; rt_cli_option_name(i); i++)
		if (strcmp(rt_cli_option_name(i), name) == 0)
			return true;
	return false;
}

/* "--name" or "--name=value" at @a: the name, in @buf. */
static const char *long_name(const char *a, char *buf, size_t len)
{
	size_t n;

	if (strncmp(a, "--", 2) || !a[2])
		return NULL;
	n = strcspn(a + 2, "=");
	if (n >= len)
		return NULL;
	memcpy(buf, a + 2, n);
	buf[n] = '\0';
	return buf;
}

/* rtrace's short options that cargo does not have (-p, -q, -v, -h, -V
 * are cargo's), as their long names; the value must be a word of its
 * own. */
static const char *short_name(const char *a)
{
	static const char *const longs[][2] = {
		{ "-x", "script" }, { "-s", "sort" }, { "-o", "output" },
		{ "-l", "list" }, { "-i", "interactive" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(longs); i++)
		if (strcmp(a, longs[i][0]) == 0)
			return longs[i][1];
	return NULL;
}

static int refuse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		if (strcmp(refused[i].name, name) == 0) {
			fprintf(stderr, "cargo-rtrace: --%s does not fit cargo "
				"rtrace: %s\n", name, refused[i].why);
			return 2;
		}
	return 0;
}

static void push_both(struct crt_opts *o, bool report, const char *s)
{
	crt_argv_push(&o->rtrace_args, s);
	if (report)
		crt_argv_push(&o->report_args, s);
}

int crt_take_rtrace_option(struct crt_opts *o, char **argv, int argc, int *i)
{
	const char *a = argv[*i], *name;
	char buf[64];
	bool report, value;

	name = a[0] == '-' && a[1] != '-' ? short_name(a) :
					    long_name(a, buf, sizeof(buf));
	if (!name || !is_rtrace_option(name) ||
	    in(cargo_own, ARRAY_SIZE(cargo_own), name))
		return 0;
	if (refuse(name))
		return -2;
	report = in(report_opts, ARRAY_SIZE(report_opts), name);
	value = rt_cli_option_takes_value(name) && !strchr(a, '=');
	if (value && *i + 1 >= argc) {
		fprintf(stderr, "cargo-rtrace: option '%s' needs a value (see "
			"cargo rtrace --help)\n", a);
		return -2;
	}
	if (strcmp(name, "color") == 0)
		crt_argv_push(&o->cargo_args, a);
	push_both(o, report, a);
	if (value) {
		++*i;
		if (strcmp(name, "color") == 0)
			crt_argv_push(&o->cargo_args, argv[*i]);
		push_both(o, report, argv[*i]);
	}
	return 1;
}
