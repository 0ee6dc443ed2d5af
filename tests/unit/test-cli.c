// SPDX-License-Identifier: GPL-2.0-or-later
/* The command line to struct rt_opts (cli.c): commands, options, operands,
 * and the one-line complaints, through rt_cli_parse_caught(). */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "rtrace/cli.h"
#include "unittest.h"

#define ARGS(...) ((char *[]){ "rtrace", __VA_ARGS__, NULL })
#define NARGS(...) ((int)(sizeof((char *[]){ "rtrace", __VA_ARGS__ }) / \
			  sizeof(char *)))

/* The parsed options point into argv: a copy that outlives the compound
 * literal of the statement that made it. */
static char **kept(int argc, char **argv)
{
	static char *copy[32];

	memcpy(copy, argv, (size_t)(argc + 1) * sizeof(*argv));
	return copy;
}

/* Parses the words after "rtrace": 0 or the error, *why its first line. */
#define PARSE(o, why, ...)                                                     \
	(rt_opts_init(o), *(why) = NULL,                                       \
	 rt_cli_parse_caught(NARGS(__VA_ARGS__),                               \
			     kept(NARGS(__VA_ARGS__), ARGS(__VA_ARGS__)), (o), \
			     (why)))

TEST_CASE(a_program_and_its_own_options)
{
	struct rt_opts o;
	char *why;

	TEST_EQ(PARSE(&o, &why, "-f", "a::*", "-f", "b::*", "./app", "-f",
		      "x"), 0);
	TEST_EQ(o.cmd, RT_CMD_RUN);
	TEST_EQ(o.include.n, 2);
	TEST_STREQ(o.include.v[1], "b::*");
	/* what follows the program is the program's */
	TEST_EQ(o.argc, 3);
	TEST_STREQ(o.argv[0], "./app");
	TEST_STREQ(o.argv[1], "-f");
	TEST_STREQ(o.log_path, "rtrace.data");
	TEST_TRUE(o.inlined);
	rt_opts_release(&o);
}

TEST_CASE(commands_and_their_operands)
{
	struct rt_opts o;
	char *why;

	TEST_EQ(PARSE(&o, &why, "record", "-o", "x.data", "--", "./app"), 0);
	TEST_EQ(o.cmd, RT_CMD_RECORD);
	TEST_STREQ(o.log_path, "x.data");
	rt_opts_release(&o);

	TEST_EQ(PARSE(&o, &why, "report", "run.data"), 0);
	TEST_EQ(o.cmd, RT_CMD_REPORT);
	TEST_STREQ(o.log_path, "run.data");
	rt_opts_release(&o);

	TEST_EQ(PARSE(&o, &why, "report"), 0);
	TEST_STREQ(o.log_path, "rtrace.data");
	rt_opts_release(&o);

	TEST_EQ(PARSE(&o, &why, "-l", "-f", "a::*", "./app"), 0);
	TEST_EQ(o.cmd, RT_CMD_LIST);
	rt_opts_release(&o);

	TEST_EQ(PARSE(&o, &why, "report", "--help"), 0);
	TEST_EQ(o.cmd, RT_CMD_HELP);
	TEST_STREQ(o.help_topic, "report");
	rt_opts_release(&o);
}

TEST_CASE(values_are_read_and_checked)
{
	struct rt_opts o;
	char *why;

	TEST_EQ(PARSE(&o, &why, "--engine", "trap", "--count", "--stack=8",
		      "-p", "1234"), 0);
	TEST_EQ(o.engine, RT_ENGINE_TRAP);
	TEST_TRUE(o.count_only);
	TEST_EQ(o.stack_depth, 8);
	TEST_EQ(o.attach_pid, 1234);
	rt_opts_release(&o);

	TEST_EQ(PARSE(&o, &why, "report", "--min-total=1.5ms", "--format",
		      "json", "--sort", "calls", "r.data"), 0);
	TEST_EQ(o.min_total_ns, 1500000);
	TEST_EQ(o.format, RT_FMT_JSON);
	TEST_EQ(o.sort, RT_SORT_CALLS);
	rt_opts_release(&o);

	/* the jump probes, by their name and by their old one */
	TEST_EQ(PARSE(&o, &why, "--engine=jump", "./app"), 0);
	TEST_EQ(o.engine, RT_ENGINE_INLINE);
	rt_opts_release(&o);
	TEST_EQ(PARSE(&o, &why, "--engine=inline", "./app"), 0);
	TEST_EQ(o.engine, RT_ENGINE_INLINE);
	rt_opts_release(&o);

	/* --keep: 5m is a time, 5M a size */
	TEST_EQ(PARSE(&o, &why, "--keep=none", "./app"), 0);
	TEST_EQ(o.keep.mode, RT_KEEP_NONE);
	rt_opts_release(&o);
	TEST_EQ(PARSE(&o, &why, "--keep=5m", "./app"), 0);
	TEST_EQ(o.keep.mode, RT_KEEP_LAST);
	TEST_EQ(o.keep.ns, 300000000000ULL);
	TEST_EQ(o.keep.bytes, 0);
	rt_opts_release(&o);
	TEST_EQ(PARSE(&o, &why, "--keep", "1.5GiB", "./app"), 0);
	TEST_EQ(o.keep.mode, RT_KEEP_LAST);
	TEST_EQ(o.keep.ns, 0);
	TEST_EQ(o.keep.bytes, 3ULL << 29);
	rt_opts_release(&o);
	TEST_EQ(PARSE(&o, &why, "--keep=5M", "--keep=all", "./app"), 0);
	TEST_EQ(o.keep.mode, RT_KEEP_ALL);
	rt_opts_release(&o);

	TEST_EQ(PARSE(&o, &why, "--no-inlined", "./app"), 0);
	TEST_TRUE(!o.inlined);
	rt_opts_release(&o);
}

/* Whether the words are refused with one line that says @expect. */
static bool refused(const char *expect, int argc, char **argv)
{
	struct rt_opts o;
	char *why = NULL;
	bool ok;

	rt_opts_init(&o);
	ok = rt_cli_parse_caught(argc, argv, &o, &why) == -EINVAL && why &&
	     strstr(why, expect) && !strchr(why, '\n');
	if (!ok)
		fprintf(stderr, "expected '%s', got '%s'\n", expect,
			why ? why : "(nothing)");
	free(why);
	rt_opts_release(&o);
	return ok;
}

#define REFUSED(expect, ...)                                                   \
	TEST_TRUE(refused(expect, NARGS(__VA_ARGS__), ARGS(__VA_ARGS__)))

TEST_CASE(bad_words_get_one_line)
{
	REFUSED("no program to trace", "-f", "a::*");
	REFUSED("unknown option '--bogus'", "--bogus", "./app");
	REFUSED("option '--engine' needs a value", "--engine");
	REFUSED("--engine is jump (or its old name inline) or trap, not 'warp'",
		"--engine", "warp", "./app");
	REFUSED("exclude each other", "--count", "--coverage", "./app");
	REFUSED("--keep is all, none, a time such as 30s or 5m, or a size of "
		"at least 1M such as 200M or 1G, not '100K'", "--keep=100K",
		"./app");
	REFUSED("not 'lots'", "--keep", "lots", "./app");
	REFUSED("not '-5s'", "--keep=-5s", "./app");
	REFUSED("no program to start", "-p", "1", "./app");
	REFUSED("-l works on a program", "report", "-l");
	REFUSED("takes no value", "--count=3", "./app");
}
