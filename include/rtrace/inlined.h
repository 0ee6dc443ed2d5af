/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inlined calls: the instances (DW_TAG_inlined_subroutine) of the selected
 * functions that the compiler inlined into other functions.  A function is
 * known by the linkage name of the instance's abstract origin, demangled as
 * the symbol table's names are, so that the patterns select it the same
 * way whether or not an out-of-line copy of it exists.  Addresses are
 * link-time, as in symbols.h.
 */
#ifndef RTRACE_INLINED_H
#define RTRACE_INLINED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/arch.h"
#include "rtrace/match.h"
#include "rtrace/raddr.h"
#include "rtrace/symbols.h"

/* A selected function with inlined instances. */
struct rt_inlined_fn {
	struct rt_func fn;   /* name and raw from the abstract origin, the
			      * declaration's file:line; addr and size 0
			      * when it has no out-of-line copy */
	long sym;            /* index of its out-of-line copy in the
			      * rt_symbols, or -1: it exists only inlined */
};

/* One inlined instance: one call site. */
struct rt_inlined_site {
	rt_raddr addr;                 /* link-time entry address */
	rt_raddr lo;                   /* start of the address range that
					* holds it */
	rt_raddr end;                  /* end of that range (past addr) */
	bool single;                   /* that range is the instance's only
					* one: [lo, end) holds all its code */
	uint32_t fn;                   /* index in rt_inlined_func() */
	const struct rt_func *caller;  /* the out-of-line function whose
					* code holds it (owned by the
					* rt_symbols), or NULL */
	const char *call_file;         /* source of the call, or NULL */
	unsigned call_line;            /* 0 when not known */
	unsigned depth;                /* instances it is nested in (of
					* any function) */
};

struct rt_inlined;

/* Finds, in the DWARF of @syms, every inlined instance of the functions
 * @m selects: those of @idx[0..n) (the selected symbols, by index) and
 * those without a symbol, which @m is asked about (and counts as hits of
 * its globs).  Nested instances each count.  Missing DWARF is no error (an
 * empty table).  Returns 0 or -errno; free with rt_inlined_free(). */
int rt_inlined_find(const struct rt_symbols *syms, struct rt_matcher *m,
		    const size_t *idx, size_t n, struct rt_inlined **out);

/* Frees the table and its strings; accepts NULL.  The rt_symbols it was
 * found in must outlive it (callers point into them). */
void rt_inlined_free(struct rt_inlined *in);

/* Functions with instances, in no particular order; valid until
 * rt_inlined_free(). */
size_t rt_inlined_nfuncs(const struct rt_inlined *in);
const struct rt_inlined_fn *rt_inlined_func(const struct rt_inlined *in,
					    size_t i);

/* Instances in address order, outermost first at one address; valid
 * until rt_inlined_free(). */
size_t rt_inlined_nsites(const struct rt_inlined *in);
const struct rt_inlined_site *rt_inlined_site(const struct rt_inlined *in,
					      size_t i);

/* Whether an instance whose code is the whole of [lo, @hi), lo being the
 * address of @from[0], entered at @entry, is left only by falling through
 * @hi: @from (@n instructions in address order, the rest of the code of
 * the function that holds it) has whole instructions from lo to @hi and
 * one at @hi, and none of those in the range returns, jumps indirectly,
 * jumps outside [lo, hi] or back to @entry (that would enter it again
 * without leaving it).  Calls are fine: they come back.  Its exit can
 * then be probed at @hi. */
bool rt_inlined_falls_through(const struct rt_insn *from, size_t n,
			      rt_raddr hi, rt_raddr entry);

#endif
