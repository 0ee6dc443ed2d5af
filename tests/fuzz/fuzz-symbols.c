// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The symbol loader on mutated ELF files: rt_symbols_open() on the input
 * written to a file, then what the session and the probe planner ask of
 * the table: each function, lookups by address, the code bytes, the text
 * range, the main crate, and the source lines from DWARF.
 *
 * Properties: no memory error, no leak; functions come in strictly
 * increasing address order, each with a name and a raw name; looking up a
 * function's own address finds that function; rt_symbols_read() copies
 * only ranges inside a loaded executable section.  libelf and libdw are
 * not instrumented: a crash inside them shows with their frames on top.
 */
#include <stdlib.h>
#include <string.h>

#include "rtrace/log.h"
#include "rtrace/symbols.h"
#include "fuzz.h"

/* Functions whose bytes are read, and bytes read of each. */
#define READ_FUNCS 64
#define READ_MAX 4096

/* Reading every byte of a string lets the sanitizer check it. */
static volatile size_t sink;

static void check_func(const struct rt_symbols *s, size_t i,
		       const struct rt_func *prev)
{
	const struct rt_func *f = rt_symbols_func(s, i);
	rt_raddr lo, hi;
	uint8_t *buf;
	size_t n;

	FUZZ_CHECK(f && f->name && f->raw && f->raw[0]);
	FUZZ_CHECK(!prev || prev->addr < f->addr);
	FUZZ_CHECK(rt_symbols_index_at(s, f->addr) == (long)i);
	FUZZ_CHECK(f->size == 0 || rt_symbols_lookup(s, f->addr) == f);
	sink += strlen(f->name);
	if (i >= READ_FUNCS)
		return;
	n = f->size < READ_MAX ? f->size : READ_MAX;
	buf = malloc(n + 1);
	if (!buf)
		abort();
	if (rt_symbols_read(s, f->addr, buf, n) == 0) {
		rt_symbols_text_range(s, &lo, &hi);
		FUZZ_CHECK(lo <= f->addr && f->addr + n <= hi);
	}
	free(buf);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* never ask a debuginfod server for a build-id a mutation made up */
	unsetenv("DEBUGINFOD_URLS");
	rt_log_verbose = -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file_put(data, size);
	struct rt_symbols *s;
	rt_raddr lo, hi;
	bool *want;
	size_t n;

	if (!path || rt_symbols_open(path, RT_SYMS_QUIET, &s) < 0)
		return 0;
	n = rt_symbols_count(s);
	FUZZ_CHECK(n > 0 && strcmp(rt_symbols_path(s), path) == 0);
	for (size_t i = 0; i < n; i++)
		check_func(s, i, i ? rt_symbols_func(s, i - 1) : NULL);
	FUZZ_CHECK(rt_symbols_func(s, n) == NULL);
	rt_symbols_text_range(s, &lo, &hi);
	FUZZ_CHECK(lo <= hi);
	rt_symbols_lookup(s, lo);
	rt_symbols_lookup(s, hi);
	rt_symbols_lookup(s, rt_symbols_entry(s));
	rt_symbols_can_exec(s);
	rt_symbols_is_pie(s);
	free(rt_symbols_main_crate(s));

	want = malloc(n);
	if (!want)
		abort();
	memset(want, 1, n);
	FUZZ_CHECK(rt_symbols_load_lines(s, want) == 0);
	for (size_t i = 0; i < n; i++) {
		const struct rt_func *f = rt_symbols_func(s, i);

		if (f->file)
			sink += strlen(f->file);
	}
	free(want);
	rt_symbols_free(s);
	return 0;
}
