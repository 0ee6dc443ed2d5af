// SPDX-License-Identifier: GPL-2.0-or-later
/* A command's help cut from a whole help text shaped like rtrace's. */
#include <stdlib.h>

#include "rtrace/helptopic.h"
#include "unittest.h"

static const char help[] =
"Usage: rtrace [OPTIONS] PROGRAM\n"
"       rtrace report [OPTIONS] [LOG...]\n"
"       rtrace tree [LOG]\n"
"\n"
"Commands:\n"
"  report [LOG...] the report\n"
"                  of a log\n"
"  tree [LOG]      the tree\n"
"\n"
"Recording:\n"
"      --count      counts only\n"
"      --mem        memory too\n"
"                   (report --mem: its table)\n"
"\n"
"Reporting (report):\n"
"      --format=F   text or json\n"
"\n"
"Views (report, tree):\n"
"      --depth=N    levels\n"
"\n"
"General:\n"
"  -h, --help       help\n"
"\n"
"Examples:\n"
"  rtrace report run.data\n"
"  rtrace tree run.data\n"
"\n"
"Exit status:\n"
"  0 or 2.\n";

static char *topic(const char *command, bool *known)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	*known = rt_help_topic(out, help, command);
	fclose(out);
	return buf;
}

TEST_CASE(report_gets_its_own_parts)
{
	bool known;
	char *t = topic("report", &known);

	TEST_TRUE(known);
	TEST_TRUE(strstr(t, "Usage: rtrace report [OPTIONS] [LOG...]\n"));
	TEST_TRUE(!strstr(t, "PROGRAM"));
	TEST_TRUE(strstr(t, "  report [LOG...] the report\n"
			    "                  of a log\n"));
	TEST_TRUE(!strstr(t, "the tree"));
	TEST_TRUE(strstr(t, "--format=F") && strstr(t, "--depth=N"));
	TEST_TRUE(strstr(t, "      --mem        memory too\n"
			    "                   (report --mem: its table)\n"));
	TEST_TRUE(!strstr(t, "--count"));
	TEST_TRUE(strstr(t, "  rtrace report run.data\n"));
	TEST_TRUE(!strstr(t, "rtrace tree run.data"));
	TEST_TRUE(strstr(t, "Exit status:\n  0 or 2.\n"));
	TEST_TRUE(strstr(t, "man rtrace-report"));
	free(t);
}

TEST_CASE(tree_leaves_out_the_report)
{
	bool known;
	char *t = topic("tree", &known);

	TEST_TRUE(known);
	TEST_TRUE(strstr(t, "Usage: rtrace tree [LOG]\n"));
	TEST_TRUE(!strstr(t, "rtrace report"));
	TEST_TRUE(!strstr(t, "--mem"));
	free(t);
}

TEST_CASE(unknown_command_prints_nothing)
{
	bool known;
	char *t = topic("frobnicate", &known);

	TEST_TRUE(!known);
	TEST_STREQ(t, "");
	free(t);
}
