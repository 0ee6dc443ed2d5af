/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small executable written for a test: one code section at a given
 * address and a symbol table, so that rt_symbols_open() reads synthetic
 * functions.  The machine code comes from the test (an -ARCH file).
 */
#ifndef RTRACE_TEST_FAKEELF_H
#define RTRACE_TEST_FAKEELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/probes.h"
#include "rtrace/symbols.h"

struct fake_sym {
	const char *name;    /* the symbol as in a binary */
	uint64_t addr;       /* link-time address, inside the code */
	uint64_t size;
	bool local;          /* STB_LOCAL rather than STB_GLOBAL */
};

struct fake_elf {
	uint64_t base;               /* address of the code's first byte */
	const uint8_t *code;
	size_t len;
	const struct fake_sym *syms;
	size_t nsyms;
	uint64_t entry;              /* e_entry; 0: base */
};

/* Writes @e as an executable into a new file under $TMPDIR (or /tmp):
 * returns its path, which the caller unlinks and frees, or NULL. */
char *fake_elf_write(const struct fake_elf *e);

/* The symbols of @e, read from a file removed once read; NULL on failure.
 * Free with rt_symbols_free(). */
struct rt_symbols *fake_elf_symbols(const struct fake_elf *e);

/* The function of @p (may be NULL) named @name, or NULL. */
const struct rt_plan_func *fake_plan_func(const struct rt_plan *p,
					  const char *name);

#endif
