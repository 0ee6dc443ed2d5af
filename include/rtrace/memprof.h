/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory profile (--mem): allocator calls, as the analysis completes
 * them, turned into allocations, frees and live bytes per traced function,
 * the peak heap, and the heap over time.
 *
 * An allocation belongs to the innermost traced function of its thread
 * (self) and to every traced function on the stack (total); with none, to
 * "outside".  A call of the allocator made inside another (Rust's shim
 * calling malloc) is the same allocation and counts once.
 */
#ifndef RTRACE_MEMPROF_H
#define RTRACE_MEMPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rtrace/evlog.h"
#include "rtrace/opts.h"

#define RT_MEM_OUTSIDE RT_FUNC_NONE  /* the key of "outside" */

struct rt_mem_row {
	uint32_t func;            /* function id, or RT_MEM_OUTSIDE */
	uint64_t allocs, bytes;   /* made while it was the innermost */
	uint64_t frees, freed;    /* frees made while it was the innermost,
				   * and the bytes they released */
	uint64_t live;            /* bytes it allocated, live at the end */
	uint64_t live_allocs;
	uint64_t at_peak;         /* bytes it allocated, live at the peak */
	uint64_t allocs_total, bytes_total;  /* while on the stack at all */
};

struct rt_mem_point {
	uint64_t t;               /* ns since the log's start */
	uint64_t heap;            /* live bytes */
};

struct rt_memprof {
	struct rt_mem_row *rows;  /* one per function that allocated or freed */
	size_t nrows;
	uint64_t peak, peak_t;    /* the largest heap, and when */
	uint32_t peak_func;       /* innermost function of the peak's
				   * allocation */
	uint64_t heap_end;        /* live bytes at the end */
	uint64_t allocs, frees;   /* all of them */
	uint64_t unknown_frees;   /* frees of memory allocated before or
				   * outside the trace */
	uint64_t failed;          /* allocations that returned nothing */
	uint64_t unseen;          /* allocations whose result rtrace could
				   * not see (the allocator ended by a jump
				   * into code without a symbol) */
	const char *allocator;    /* a custom global allocator's type, or
				   * NULL for the standard one */
	struct rt_mem_point *series;  /* the heap over time, thinned */
	size_t npoints;
};

/* Reads the log of @r (two passes: the second finds who held the memory at
 * the peak) and builds its memory profile.  Returns 0, -ENODATA when the
 * log holds no allocator probes (recorded without --mem), or -errno;
 * *@out is NULL on failure.  Free with rt_memprof_free(). */
int rt_memprof_build(struct rt_evlog_reader *r, struct rt_memprof **out);

/* Frees a profile; accepts NULL. */
void rt_memprof_free(struct rt_memprof *m);

/* Prints the memory table (text, JSON or CSV from o->format; the order
 * of o->sort: bytes by default, allocs, live, name), the peak, and the
 * allocator. */
int rt_memprof_print(FILE *out, const struct rt_memprof *m,
		     struct rt_evlog_reader *r, const struct rt_opts *o);

/* Prints the heap over time as CSV: "t_ns,heap_bytes" lines. */
int rt_memprof_print_series(FILE *out, const struct rt_memprof *m);

#endif
