// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `expect`: the counts of a finished run, taken from the same report that
 * `rtrace report` prints (report.c), compared as the script says.  Pure
 * functions of the report, so that the unit tests can feed them made-up
 * rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/match.h"
#include "rtrace/report.h"
#include "rtrace/util.h"
#include "script-int.h"

uint64_t rt_expect_calls(const struct rt_report *rep, const char *glob,
			 size_t *nfuncs)
{
	uint64_t calls = 0;

	*nfuncs = 0;
	for (size_t i = 0; i < rep->nrows_all; i++) {
		const struct rt_report_row *row = &rep->rows[i];

		if (!rt_glob_match(glob, row->name, row->fn ? row->fn->raw
							    : NULL))
			continue;
		calls += row->st.calls;
		(*nfuncs)++;
	}
	/* probed and never called: they have no row, yet they count as
	 * matched (0 calls), unlike a pattern that names nothing traced */
	for (size_t i = 0; i < rep->nuncalled; i++)
		if (rt_glob_match(glob, rep->uncalled[i], NULL))
			(*nfuncs)++;
	return calls;
}

uint64_t rt_expect_lost(const struct rt_report *rep, const char *glob)
{
	uint64_t lost = 0;

	if (!rep->losses)
		return 0;
	if (rep->losses->unattributed)
		return rep->losses->events;
	for (size_t i = 0; i < rep->nrows_all; i++) {
		const struct rt_report_row *row = &rep->rows[i];

		if (rt_glob_match(glob, row->name, row->fn ? row->fn->raw
							   : NULL))
			lost += row->lost;
	}
	return lost;
}

static const char *times(uint64_t n)
{
	return n == 1 ? "time" : "times";
}

/* Whether a count of at least @got decides expectation @c: whatever the
 * true count, the outcome is that of @got. */
static bool decided_at_least(const struct rt_script_cmd *c, uint64_t got)
{
	switch (c->expect) {
	case RT_EXPECT_CALLED:
	case RT_EXPECT_NOT_CALLED:
		return got > 0;
	case RT_EXPECT_CALLS:
		/* >= holds, < fails, once the bound reaches n; ==, !=, <=
		 * and > are decided once it is past n */
		if (c->op == RT_CMP_GE || c->op == RT_CMP_LT)
			return got >= c->n;
		return got > c->n;
	default:
		return true;
	}
}

/* What expectation @c asks, in the script's words, into @buf. */
static const char *expected(const struct rt_script_cmd *c, char *buf,
			    size_t len)
{
	if (c->expect == RT_EXPECT_CALLED)
		return "called";
	if (c->expect == RT_EXPECT_NOT_CALLED)
		return "not-called";
	snprintf(buf, len, "%s %llu", rt_cmp_str(c->op),
		 (unsigned long long)c->n);
	return buf;
}

bool rt_expect_holds(const struct rt_script_cmd *c, uint64_t got,
		     size_t nfuncs, uint64_t lost, char **why)
{
	char buf[48];
	bool ok;

	*why = NULL;
	if (c->expect != RT_EXPECT_COUNTER && nfuncs == 0) {
		*why = xasprintf("no traced function matches %s (trace it, "
				 "or check the pattern)", c->glob);
		return false;
	}
	if (lost && !decided_at_least(c, got)) {
		*why = xasprintf("%s was called at least %llu %s, a lower "
				 "bound (%llu of its events were not "
				 "recorded: mark L in the report), which "
				 "cannot tell whether it holds (expected %s)",
				 c->glob, (unsigned long long)got, times(got),
				 (unsigned long long)lost,
				 expected(c, buf, sizeof(buf)));
		return false;
	}
	switch (c->expect) {
	case RT_EXPECT_CALLED:
		if (got)
			return true;
		*why = xasprintf("%s was never called (expected called)",
				 c->glob);
		return false;
	case RT_EXPECT_NOT_CALLED:
		if (!got)
			return true;
		*why = xasprintf("%s was called %llu %s (expected not-called)",
				 c->glob, (unsigned long long)got, times(got));
		return false;
	case RT_EXPECT_CALLS:
		ok = rt_cmp_holds(c->op, got, c->n);
		if (!ok)
			*why = xasprintf("%s was called %llu %s (expected %s "
					 "%llu)", c->glob,
					 (unsigned long long)got, times(got),
					 rt_cmp_str(c->op),
					 (unsigned long long)c->n);
		return ok;
	case RT_EXPECT_COUNTER:
		ok = rt_cmp_holds(c->op, got, c->n);
		if (!ok)
			*why = xasprintf("counter %s is %llu (expected %s "
					 "%llu)", c->name,
					 (unsigned long long)got,
					 rt_cmp_str(c->op),
					 (unsigned long long)c->n);
		return ok;
	}
	return false;
}
