// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The words for each refusal (refusal.h).
 */
#include "rtrace/refusal.h"

static const char *const refusal_text[RT_REFUSE_MAX] = {
	[RT_REFUSE_NONE] = "probed",
	[RT_REFUSE_UNDECODABLE] = "bytes do not decode",
	[RT_REFUSE_NO_CODE] = "no code (size 0 or outside any section)",
	[RT_REFUSE_BRANCH_OTHER] = "loop/jrcxz-type branch at a probe site",
	[RT_REFUSE_STACK_CALL] = "indirect call through the stack pointer",
	[RT_REFUSE_OUT_OF_RANGE] = "scratch slot out of reach (beyond 2 GiB)",
	[RT_REFUSE_TRAP_SITE] = "a breakpoint is already at the site",
	[RT_REFUSE_MID_INSN] = "not the start of an instruction",
	/* one literal: a split one reads as a missing comma */
	[RT_REFUSE_LOOP_HEAD] =
		"the head of a loop inside the inlined call (it would count iterations, not calls)",
};

const char *rt_refusal_str(enum rt_refusal why)
{
	if ((unsigned)why >= RT_REFUSE_MAX || !refusal_text[why])
		return "unknown reason";
	return refusal_text[why];
}
