/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the inline engine may replace code by a jump to a trampoline, and
 * what that trampoline does.  A site is patched only when that is provably
 * safe: the bytes replaced are whole instructions that can move (or
 * padding nothing runs), no branch, return address or jump table lands
 * inside them, and no other site lies within them.  Every other site keeps
 * its breakpoint, with the reason.  Pure: decoded code in, decisions out.
 */
#ifndef RTRACE_PATCHSITE_H
#define RTRACE_PATCHSITE_H

#include <stdbool.h>
#include <stddef.h>

#include "rtrace/arch.h"
#include "rtrace/arch-jump.h"
#include "rtrace/probes.h"

/* Bytes [lo, hi). */
struct rt_patch_span {
	rt_raddr lo, hi;
};

/* The bytes between functions (padding) that the patched regions and
 * relays of one image's functions took, sorted and disjoint: shared by
 * the rt_patch_plan() calls of an image so that no two functions' sites
 * use the same.  Owned by the caller: zeroed before the first call,
 * vec_free() after the last. */
typedef VEC(struct rt_patch_span) rt_patch_claims;

/* One function as the planner sees it. */
struct rt_patch_func {
	const struct rt_insn *insns;   /* the whole function, decoded */
	size_t n;
	rt_raddr lo, hi;               /* its run-time bounds */
	unsigned kinds;                /* RT_PROBE_* kinds that may be
					* patched; 0 = none */
	/* copies @len bytes at run-time address @addr, past the end of the
	 * function, when no code (symbol or unwind entry) covers them:
	 * 0, else -errno; may be NULL */
	int (*read_after)(void *ctx, rt_raddr addr, void *buf, size_t len);
	void *ctx;
	const rt_raddr *marks;         /* where else the function may be
					* entered: its jump tables' targets,
					* its landing pads */
	size_t nmarks;
	bool tables_known;             /* every jump through a register is a
					* table whose targets are in @marks */
	rt_patch_claims *claims;       /* may be NULL: then no relay goes
					* into another function's padding */
	bool relays_inlined_only;      /* relays for the sites of inlined
					* calls alone: the function's own
					* were planned before, and stand
					* here only as obstacles */
};

/* Decides, for the @n probes of function @f (in address order), which
 * are patched: sets patch_lo, patch_len, patch_code, patch_orig,
 * patch_how, patch_join, joined, relay_lo and inline_why of each (what
 * a relay's bytes were is the image's to know: codeorig.h).  A patched region may hold a tiny function's return (patch_join),
 * whose probe is then joined; a short region hops to a relay in dead
 * bytes of @f, none of which two probes share. */
void rt_patch_plan(const struct rt_patch_func *f, struct rt_probe *probes,
		   size_t n);

/* The trampoline of patched probe @pr: its instructions are decoded into
 * @insns (the caller's, reused) and @out points into it.  The @ninl
 * events @inl of the inlined calls that end or begin at the site
 * (RT_PROBE_INLINED) are recorded as the breakpoint records them: after
 * the function's own entry, before its exit.  0, -EILSEQ when the saved
 * bytes do not decode as they did, or -E2BIG when the trampoline cannot
 * record them all (too many, or recorded only when a branch is taken). */
int rt_patch_tramp(const struct rt_probe *pr, const struct rt_inl_rec *inl,
		   size_t ninl, rt_insn_vec *insns, struct rt_tramp_spec *out);

/* Whether breakpoint probe @pr (placed: its slot is known) can resume
 * through a trampoline: a plain entry of a traced function whose first
 * instruction runs in a slot.  The trampoline records the entry in the process
 * once the thread runs again, so that the call's time leaves out the
 * stop, however long the thread then waited for a CPU. */
bool rt_patch_resume_fits(const struct rt_probe *pr);

/* The resume trampoline of @pr (rt_patch_resume_fits()): the entry
 * recorded, then a jump to the probe's slot. */
void rt_patch_resume_tramp(const struct rt_probe *pr,
			   struct rt_tramp_spec *out);

/* Whether the trampoline of patched probe @pr, at instruction @site, is
 * split: the @ninl inlined calls that begin at a conditional jump, and
 * nothing else there, are recorded after it, on either way out (so
 * twice: at most RT_PATCH_SPLIT_MAX of them). */
#define RT_PATCH_SPLIT_MAX 2
bool rt_patch_split(const struct rt_probe *pr, const struct rt_insn *site,
		    size_t ninl);

#endif
