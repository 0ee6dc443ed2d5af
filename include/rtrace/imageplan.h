/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The plan of one image, from its symbols, the functions the patterns
 * selected in it and the run's options: the selected functions' sites,
 * and those rtrace probes for its own use (the allocator with --mem,
 * libc's signal and waiting calls, the hook at the program's entry point).
 * One builder for `rtrace -l` and for every image a run arms, so that the
 * list shows what a run arms.
 */
#ifndef RTRACE_IMAGEPLAN_H
#define RTRACE_IMAGEPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/inlined.h"
#include "rtrace/match.h"
#include "rtrace/opts.h"
#include "rtrace/probes.h"
#include "rtrace/raddr.h"
#include "rtrace/symbols.h"

/* What the options say about every image's plan. */
struct rt_imageplan_policy {
	bool jumps;                 /* the jump engine (not --engine trap) */
	bool mem;                   /* --mem: the allocator's entry points */
	bool blocking;              /* libc's calls that may wait (not
				     * --no-blocked) */
	bool count_only;            /* --count: entries only */
	bool coverage;              /* --coverage: entries only, taken out */
	unsigned stack_depth;       /* --stack: every hit stops */
	struct rt_matcher *stop_at; /* functions whose every hit stops, or
				     * NULL; owned by the caller */
};

/* Where one image is and how its memory is read. */
struct rt_imageplan_image {
	bool exe;                   /* the executable (not a library) */
	rt_raddr bias;              /* load bias (0 offline) */
	/* reads the image's memory (GOT slots behind PLT stubs); NULL for
	 * none */
	int (*read)(void *ctx, rt_raddr addr, void *buf, size_t len);
	void *read_ctx;
	uint32_t first_id;          /* log id of its first function */
};

/* The policy options @o ask for, with the functions @stop_at (owned by the
 * caller, may be NULL) stopping at every hit. */
struct rt_imageplan_policy rt_imageplan_policy_of(const struct rt_opts *o,
						  struct rt_matcher *stop_at);

/* The RT_PROBE_* kinds of traced functions the jump engine may patch
 * under @pol: none when each hit needs a stop (the trap engine, call
 * stacks, coverage).  The only place this rule is written; pure. */
unsigned rt_imageplan_jump_kinds(const struct rt_imageplan_policy *pol);

/* The role (enum rt_func_role) @fn is probed for under @pol, or
 * RT_ROLE_TRACED for none; @libc says its image is libc or libpthread
 * (their waiting calls are the only blocking ones). */
uint8_t rt_imageplan_role(const struct rt_func *fn,
			  const struct rt_imageplan_policy *pol, bool libc);

/* Whether the image at @path is libc or libpthread (glibc's, musl's). */
bool rt_imageplan_is_libc(const char *path);

/* A short label for role @role ("allocator", "signal call"...); static. */
const char *rt_imageplan_role_str(uint8_t role);

/* Whether Rust's __rust_alloc shim in @syms leads to std's allocator
 * (true too when there is no shim): otherwise the program has a
 * #[global_allocator] of its own. */
bool rt_imageplan_std_allocator(const struct rt_symbols *syms);

/* The plan of @syms: the selected functions @idx[0..n) and their inlined
 * instances @inl (taken over, may be NULL), the functions probed for a
 * role, and in an executable with something to probe that loads libraries
 * (or with --mem) the hook at its entry point.  Loads the source lines of
 * the selected functions.  *plan is NULL when nothing is to be probed.
 * Returns 0 or -errno; free the plan with rt_plan_put(). */
int rt_imageplan_build(struct rt_symbols *syms, const size_t *idx, size_t n,
		       struct rt_inlined *inl,
		       const struct rt_imageplan_policy *pol,
		       const struct rt_imageplan_image *img,
		       struct rt_plan **plan);

/* What @pf is probed for: "traced", its role's label, or "end of a tail
 * call" (a helper whose returns end frames that jumped into it); static. */
const char *rt_imageplan_func_use(const struct rt_plan_func *pf);

/* The plan of the dynamic linker @ld: the hook its _dl_debug_state() is,
 * called each time the list of libraries changed (with --mem, to find
 * those dlopen()ed).  Returns 0, -ENOENT without that function, or
 * -errno; free the plan with rt_plan_put(). */
int rt_imageplan_linker(const struct rt_symbols *ld,
			const struct rt_imageplan_image *img,
			struct rt_plan **plan);

/* Prints, at debug level of the probes domain, each site of @plan as
 * armed in the image at @path loaded at @bias: its address less the bias
 * (as `rtrace -l` shows it), kind, whether it is a jump (@jumps: the
 * image's jumps were written) or a breakpoint, function and role. */
void rt_imageplan_debug_armed(const struct rt_plan *plan, const char *path,
			      rt_raddr bias, bool jumps);

/* "entry", "return", "tail jump" or "inlined": the first kind of @pr;
 * static string. */
const char *rt_imageplan_site_str(const struct rt_probe *pr);

#endif
