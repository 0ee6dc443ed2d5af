/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Registers by name, for a script's `print $rax` (part of the arch
 * interface, beside arch.h; implemented in arch/<cpu>/regnames.c).  Names
 * are those of the CPU's manuals in lower case, plus "pc" and "sp" for the
 * instruction and stack pointers on every CPU.
 */
#ifndef RTRACE_ARCHREG_H
#define RTRACE_ARCHREG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/arch.h"

/* The value of register @name (without '$') in @r into *out; false when
 * the CPU has no such register. */
bool rt_arch_reg_by_name(const struct rt_regs *r, const char *name,
			 uint64_t *out);

/* Register name @i (from 0), or NULL past the last; static strings. */
const char *rt_arch_reg_name(size_t i);

#endif
