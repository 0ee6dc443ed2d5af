/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One logging header for every module.  Each .c file defines PR_FMT (its
 * module name, printed as a prefix) and PR_DOMAIN (the debug domain that
 * --debug=NAME turns on) before including this file.
 *
 *   pr_err   always printed; the message a user acts on
 *   pr_warn  always printed unless -q
 *   pr_info  printed with -v
 *   pr_dbg   printed with -vv or --debug=DOMAIN (pr_dbg2/3: deeper levels)
 */
#ifndef RTRACE_LOG_H
#define RTRACE_LOG_H

#include <stdbool.h>

#include "rtrace/compiler.h"

enum rt_log_domain {
	RT_DOM_MAIN,
	RT_DOM_CLI,
	RT_DOM_SYMBOLS,
	RT_DOM_MATCH,
	RT_DOM_PROBES,
	RT_DOM_ARCH,
	RT_DOM_TRACEE,
	RT_DOM_TRACER,
	RT_DOM_EVLOG,
	RT_DOM_ANALYSIS,
	RT_DOM_OUTPUT,
	RT_DOM_SCRIPT,
	RT_DOM_MAX,
};

#ifndef PR_FMT
#define PR_FMT "rtrace"
#endif
#ifndef PR_DOMAIN
#define PR_DOMAIN RT_DOM_MAIN
#endif

/* Global verbosity: -1 quiet, 0 default, 1 -v, 2 -vv ... */
extern int rt_log_verbose;

/* Turns on debug output for a comma-separated list of domain names; returns 0
 * or -EINVAL naming the first unknown domain through pr_err. */
int rt_log_set_debug(const char *list);

/* Whether debug level @level is on for @dom. */
bool rt_log_enabled(enum rt_log_domain dom, int level);

/* Called before each message is printed (NULL: nothing): the progress
 * line clears itself there, so that no message lands on it. */
extern void (*rt_log_before_print)(void);

/* Prints one message; use the pr_* macros rather than calling this. */
void rt_log_print(int level, enum rt_log_domain dom, const char *mod,
		  const char *file, int line, const char *fmt, ...) __printf(6, 7);

#define RT_LVL_ERR -2
#define RT_LVL_WARN -1
#define RT_LVL_INFO 0

#define pr_err(fmt, ...)                                                       \
	rt_log_print(RT_LVL_ERR, PR_DOMAIN, PR_FMT, __FILE__, __LINE__, fmt,   \
		     ##__VA_ARGS__)
#define pr_warn(fmt, ...)                                                      \
	rt_log_print(RT_LVL_WARN, PR_DOMAIN, PR_FMT, __FILE__, __LINE__, fmt,  \
		     ##__VA_ARGS__)
#define pr_info(fmt, ...)                                                      \
	rt_log_print(RT_LVL_INFO, PR_DOMAIN, PR_FMT, __FILE__, __LINE__, fmt,  \
		     ##__VA_ARGS__)
#define pr_dbgN(n, fmt, ...)                                                   \
	do {                                                                   \
		if (unlikely(rt_log_enabled(PR_DOMAIN, n)))                    \
			rt_log_print(n, PR_DOMAIN, PR_FMT, __FILE__, __LINE__, \
				     fmt, ##__VA_ARGS__);                      \
	} while (0)
#define pr_dbg(fmt, ...) pr_dbgN(1, fmt, ##__VA_ARGS__)
#define pr_dbg2(fmt, ...) pr_dbgN(2, fmt, ##__VA_ARGS__)
#define pr_dbg3(fmt, ...) pr_dbgN(3, fmt, ##__VA_ARGS__)

#endif
