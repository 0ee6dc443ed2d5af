// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrace: a function tracer for Rust programs.  Subcommand dispatch; the
 * exit statuses are listed in session.h and in --help.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rtrace/cli.h"
#include "rtrace/diff.h"
#include "rtrace/log.h"
#include "rtrace/prompt.h"
#include "rtrace/script.h"
#include "rtrace/session.h"
#include "rtrace/views.h"

#ifndef RTRACE_VERSION
#define RTRACE_VERSION "0"
#endif

/* What was printed reached its file: a report to a full disk or a
 * closed pipe fails, in one line, with a status a script sees. */
static int output_written(int code)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return code;
	pr_err("cannot write the output: %s", strerror(errno ? errno : EIO));
	return code ? code : RT_EXIT_TRACE;
}

int main(int argc, char **argv)
{
	struct rt_opts o;
	int code;

	rt_opts_init(&o);
	if (rt_cli_parse(argc, argv, &o)) {
		rt_opts_release(&o);
		return RT_EXIT_USAGE;
	}
	switch (o.cmd) {
	case RT_CMD_HELP:
		rt_cli_help(stdout, o.help_topic);
		code = RT_EXIT_OK;
		break;
	case RT_CMD_VERSION:
		printf("rtrace %s\n", RTRACE_VERSION);
		code = RT_EXIT_OK;
		break;
	case RT_CMD_REPORT:
		code = o.view == RT_VIEW_TABLE ? rt_session_report(&o)
					       : rt_views_report(&o);
		break;
	case RT_CMD_EXPORT:
		code = rt_views_export(&o);
		break;
	case RT_CMD_DIFF:
		code = rt_diff_main(&o, stdout);
		break;
	case RT_CMD_LIST:
		code = rt_session_list(&o);
		break;
	case RT_CMD_SCRIPT:
		code = rt_script_run_file(&o, o.script_path);
		break;
	case RT_CMD_PROMPT:
		code = rt_prompt_main(&o);
		break;
	default:
		code = rt_session_record(&o);
		break;
	}
	rt_opts_release(&o);
	return output_written(code);
}
