/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Typed values of a stopped thread: the arguments of the function it is
 * stopped in and its return value, found by name in the DWARF (libdw),
 * located at the stop's instruction pointer and printed as their Rust
 * types read.  The tracee's memory is read through tracee.h; a bad
 * pointer prints <unreadable>, never fails.
 */
#ifndef RTRACE_VALUES_H
#define RTRACE_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <elfutils/libdwfl.h>

#include "rtrace/arch.h"
#include "rtrace/tracee.h"

/* Where a stopped thread's values are read. */
struct rt_vframe {
	Dwfl *dwfl;              /* the process's modules (borrowed) */
	struct rt_mem *mem;      /* its memory (borrowed) */
	struct rt_regs regs;     /* the thread's, ip at the probe */
	const struct rt_fpregs *fp; /* its float registers (borrowed), or
				     * NULL: floats in them are not read */
	bool at_exit;            /* stopped at a return, not the entry */
};

/* Prints "NAME: TYPE = VALUE" to @f for @what: a parameter's name, "args"
 * (every parameter, one line each) or "retval" (at an exit).  Returns 0,
 * or -ENOENT when the function has no such parameter, -ENODATA when no
 * debug information describes the function, -EINVAL for a parameter at an
 * exit; then @why (static) says it and nothing is printed. */
int rt_values_print(FILE *f, const struct rt_vframe *fr, const char *what,
		    const char **why);

/* Writes @len bytes of text @s as a Rust string literal ("a\n"), escaped
 * as Rust's {:?} escapes it; "..." follows when @more. */
void rt_values_put_text(FILE *f, const uint8_t *s, size_t len, bool more);

/* Writes the @size-byte little-endian integer @b (1 to 16 bytes), signed
 * when @sign, in decimal. */
void rt_values_put_int(FILE *f, const uint8_t *b, size_t size, bool sign);

/* Writes the little-endian float (@size 4) or double (@size 8) @b as
 * Rust's {:?} writes an f32 or an f64 (1.0, 0.1, 1e20, NaN). */
void rt_values_put_float(FILE *f, const uint8_t *b, size_t size);

/* Writes Unicode scalar value @c as Rust's {:?} writes a char ('x'). */
void rt_values_put_char(FILE *f, uint32_t c);

#endif
