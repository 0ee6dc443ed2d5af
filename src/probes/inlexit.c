// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where an inlined call ends.  An inlined instance has no return of its
 * own: its code is a range of its caller's.  When that range is a single
 * one and nothing in it leaves it but by running off its end (a call
 * comes back; a return, an indirect jump or a jump elsewhere does not),
 * the first byte past it is where every pass through the instance that
 * began at its entry ends, and a probe there times the call.  Code
 * elsewhere may jump to that byte too: the analysis drops an end with no
 * open entry.  A ud2 after a call that does not return is plain code that
 * never runs.
 */
#include "rtrace/inlined.h"

/* Whether @in, in the range [lo, hi) entered at @entry, may only go on
 * within it or to hi. */
static bool stays(const struct rt_insn *in, rt_raddr lo, rt_raddr hi,
		  rt_raddr entry)
{
	switch (in->cls) {
	case RT_INSN_PLAIN:
	case RT_INSN_CALL:
	case RT_INSN_CALL_INDIRECT:
	case RT_INSN_SYSCALL:
		return true;
	case RT_INSN_JMP:
	case RT_INSN_JCC:
		return in->target >= lo && in->target <= hi &&
		       in->target != entry;
	default:
		/* returns, indirect jumps, traps, loop and the like */
		return false;
	}
}

bool rt_inlined_falls_through(const struct rt_insn *from, size_t n,
			      rt_raddr hi, rt_raddr entry)
{
	rt_raddr lo = n ? from[0].addr : hi, at = lo;
	size_t i = 0;

	if (lo >= hi || entry < lo || entry >= hi)
		return false;
	for (; i < n && from[i].addr < hi; i++) {
		/* a gap, or a byte not decoded as the caller's code */
		if (from[i].addr != at || !stays(&from[i], lo, hi, entry))
			return false;
		at += from[i].len;
	}
	return at == hi && i < n && from[i].addr == hi;
}
