/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The function table of an executable, read with libdw (Dwfl) and libelf:
 * .symtab, else .dynsym, else a separate debug file found by build-id or
 * debuglink.  Functions are keyed by address; several can share a demangled
 * name (monomorphizations under legacy mangling).  Addresses are link-time:
 * add the load bias of a live process to get run-time addresses.
 */
#ifndef RTRACE_SYMBOLS_H
#define RTRACE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/raddr.h"

struct rt_symbols;

struct rt_func {
	rt_raddr addr;      /* link-time address */
	uint64_t size;      /* bytes, from the symbol */
	const char *name;   /* demangled, hash suffix removed */
	const char *raw;    /* symbol as in the binary */
	const char *file;   /* source file from DWARF, or NULL */
	unsigned line;      /* source line, or 0 */
	bool global;        /* a global or weak symbol (not local) */
	const char **aliases;  /* raw names of other symbols at the same
				* address (libc's free is also cfree and
				* __libc_free), or NULL */
	unsigned naliases;
};

enum rt_symbols_flags {
	RT_SYMS_QUIET = 1 << 0,  /* failures at debug level, not as errors */
	RT_SYMS_NO_DEBUG = 1 << 1, /* the file's own symbols only (a shared
				    * library's .dynsym): no separate debug
				    * file is looked for or read */
};

/* Opens executable @path and reads its function table.  On failure returns
 * -errno after logging one line that says what is wrong and what to do
 * (missing, not ELF, wrong architecture, no symbols), unless RT_SYMS_QUIET.
 * Free with rt_symbols_free(). */
int rt_symbols_open(const char *path, unsigned flags, struct rt_symbols **out);

/* Frees the table and every string in it; accepts NULL. */
void rt_symbols_free(struct rt_symbols *s);

/* Path the table was read from; valid until rt_symbols_free(). */
const char *rt_symbols_path(const struct rt_symbols *s);

/* Number of functions, and function @i in address order (valid until
 * rt_symbols_free()). */
size_t rt_symbols_count(const struct rt_symbols *s);
const struct rt_func *rt_symbols_func(const struct rt_symbols *s, size_t i);

/* Function containing link-time address @addr, or NULL. */
const struct rt_func *rt_symbols_lookup(const struct rt_symbols *s,
					rt_raddr addr);

/* The function containing @addr; failing a symbol, code whose bounds the
 * unwind tables (.eh_frame) give, under a made-up name ("code@0x..."),
 * which the table keeps until rt_symbols_free().  NULL when neither. */
const struct rt_func *rt_symbols_code_at(const struct rt_symbols *s,
					 rt_raddr addr);

/* Index of the function that starts exactly at @addr, or -1. */
long rt_symbols_index_at(const struct rt_symbols *s, rt_raddr addr);

/* Copies @len bytes of the file image at link-time address @addr into
 * @buf; 0, or -ENOENT when the range is not inside one loaded section. */
int rt_symbols_read(const struct rt_symbols *s, rt_raddr addr, void *buf,
		    size_t len);

/* The same from the image's read-only data (jump tables): loaded on first
 * use, hence not const.  0 or -ENOENT. */
int rt_symbols_read_rodata(struct rt_symbols *s, rt_raddr addr, void *buf,
			   size_t len);

/* The program interpreter (dynamic linker) the executable asks for, or
 * NULL for a static one; valid until rt_symbols_free(). */
const char *rt_symbols_interp(const struct rt_symbols *s);

/* Whether function @f is called @name: its demangled name, its symbol or
 * one of its aliases (a version suffix such as @@GLIBC_2.2.5 aside). */
bool rt_func_named(const struct rt_func *f, const char *name);

/* Index of the function named @name (as rt_func_named() says), or -1.
 * O(n). */
long rt_symbols_find(const struct rt_symbols *s, const char *name);

/* Whether the executable imports a function that starts other programs
 * (execve, posix_spawn...), so that what it runs may be traced instead. */
bool rt_symbols_can_exec(const struct rt_symbols *s);

/* Whether the executable is position independent (ET_DYN), and its
 * link-time entry point: the load bias is AT_ENTRY minus this. */
bool rt_symbols_is_pie(const struct rt_symbols *s);
rt_raddr rt_symbols_entry(const struct rt_symbols *s);

/* Lowest and highest link-time addresses of executable sections. */
void rt_symbols_text_range(const struct rt_symbols *s, rt_raddr *lo,
			   rt_raddr *hi);

/* The crate that defines the program's main ("demo" for demo::main), as
 * a new string the caller frees, or NULL when there is none. */
char *rt_symbols_main_crate(const struct rt_symbols *s);

/* Fills file/line of every function whose index is set in @want (an array
 * of rt_symbols_count() booleans), from DWARF; functions without line data
 * keep NULL/0.  Returns 0 (missing DWARF is not an error). */
int rt_symbols_load_lines(struct rt_symbols *s, const bool *want);

/* libdw's handle on the DWARF of the executable (or of its separate debug
 * file), and in *bias what to add to its addresses to get link-time ones;
 * NULL when there is none.  Owned by the table: valid until
 * rt_symbols_free(). */
struct Dwarf;
struct Dwarf *rt_symbols_dwarf(const struct rt_symbols *s, uint64_t *bias);

#endif
