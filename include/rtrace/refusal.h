/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why a probe site cannot be displaced: decided by the arch code, stored
 * in the log per function, and said by -l and the report, which need
 * the words and nothing of the arch code.
 */
#ifndef RTRACE_REFUSAL_H
#define RTRACE_REFUSAL_H

/* Why a site cannot be displaced; RT_REFUSE_NONE when it can. */
enum rt_refusal {
	RT_REFUSE_NONE,
	RT_REFUSE_UNDECODABLE,     /* the function's bytes do not decode */
	RT_REFUSE_NO_CODE,         /* size 0, or bytes outside any section */
	RT_REFUSE_BRANCH_OTHER,    /* loop/jrcxz/xbegin at a probe site */
	RT_REFUSE_STACK_CALL,      /* indirect call through a stack operand */
	RT_REFUSE_OUT_OF_RANGE,    /* the scratch slot cannot reach a target */
	RT_REFUSE_TRAP_SITE,       /* the site already holds a breakpoint */
	RT_REFUSE_MID_INSN,        /* the site is not where an instruction
				    * of its function begins (an inlined
				    * call's entry, from DWARF) */
	RT_REFUSE_LOOP_HEAD,       /* an inlined call's entry that a branch
				    * inside the call goes back to: it runs
				    * once per iteration, not per call */
	RT_REFUSE_MAX,
};

/* Short text for a refusal, for -l and the report; static string. */
const char *rt_refusal_str(enum rt_refusal why);

#endif
