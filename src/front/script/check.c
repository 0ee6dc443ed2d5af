// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The checks of a whole command file that need the order of its commands
 * or the program's symbols, made before anything runs: a `run` with no
 * program, a `backtrace` that nothing could stop for, an `expect` with no
 * run before it, a pattern that names no function of the program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/match.h"
#include "rtrace/symbols.h"
#include "rtrace/util.h"
#include "script-int.h"

struct order {
	bool program, stopper, ran;
};

static void check_one(struct rt_script *s, const struct rt_script_cmd *c,
		      struct order *st)
{
	const char *w = rt_script_command_name_of(c->kind);

	switch (c->kind) {
	case RT_SC_FILE: st->program = true; break;
	case RT_SC_SET:
		/* set pid PID: run joins that process */
		st->program |= c->name && strcmp(c->name, "pid") == 0;
		break;
	case RT_SC_BREAK: case RT_SC_TBREAK: st->stopper = true; break;
	case RT_SC_RUN:
		if (!st->program)
			rt_script_error(s, c->file, c->line, c->col, "run: no "
					"program before it: file PROGRAM (or "
					"rtrace -x FILE -- PROGRAM)");
		st->ran = true;
		break;
	case RT_SC_ATTACH: st->ran = true; break;
	case RT_SC_BACKTRACE: case RT_SC_PRINT: case RT_SC_CONTINUE:
	case RT_SC_FINISH: case RT_SC_KILL: case RT_SC_DETACH:
		if (!st->stopper)
			rt_script_error(s, c->file, c->line, c->col, "%s: "
					"nothing before it stops the program "
					"(break GLOB)", w);
		break;
	case RT_SC_EXPECT:
		if (c->expect != RT_EXPECT_COUNTER && !st->ran)
			rt_script_error(s, c->file, c->line, c->col, "expect: "
					"no run before it to check");
		break;
	case RT_SC_REPORT: case RT_SC_REPLAY: case RT_SC_EXPORT:
		if (!c->has_log && !st->ran)
			rt_script_error(s, c->file, c->line, c->col, "%s: no "
					"run before it (or name a LOG)", w);
		break;
	default:
		break;
	}
}

size_t rt_script_check_order(struct rt_script *s, bool have_program)
{
	size_t before = s->errors.n, n = s->cmds.n;
	struct order st = { .program = have_program };

	for (size_t i = 0; i < n; i++)
		if (!s->cmds.v[i].broken)
			check_one(s, &s->cmds.v[i], &st);
	return s->errors.n - before;
}

/* ---- patterns against the program ------------------------------------------- */

static bool has_pattern(const struct rt_script_cmd *c)
{
	switch (c->kind) {
	case RT_SC_TRACE: case RT_SC_BREAK: case RT_SC_TBREAK: case RT_SC_ON:
		return true;
	case RT_SC_EXPECT:
		return c->expect != RT_EXPECT_COUNTER;
	default:
		return false;
	}
}

static bool any_match(const struct rt_symbols *syms, const char *glob)
{
	for (size_t i = 0; i < rt_symbols_count(syms); i++) {
		const struct rt_func *f = rt_symbols_func(syms, i);

		if (rt_glob_match(glob, f->name, f->raw))
			return true;
	}
	return false;
}

static void check_glob(struct rt_script *s, const struct rt_script_cmd *c,
		       const struct rt_symbols *syms)
{
	size_t n = rt_symbols_count(syms);
	const char **names, *m = NULL;

	if (any_match(syms, c->glob))
		return;
	if (!strpbrk(c->glob, "*?[")) {
		names = xcalloc(n + 1, sizeof(*names));
		for (size_t i = 0; i < n; i++)
			names[i] = rt_symbols_func(syms, i)->name;
		m = rt_suggest(c->glob, names, n);
		free(names);
	}
	rt_script_error(s, c->file, c->line, c->glob_col, "pattern '%s' "
			"matches no function in %s%s%s%s", c->glob,
			rt_symbols_path(syms), m ? " (did you mean '" : "",
			m ? m : "", m ? "'?)" : "");
}

/* The program a command file runs: the command line's, else its first
 * `file` (a later `file` is checked when it runs). */
static const char *program_of(const struct rt_script *s, const char *cli)
{
	if (cli)
		return cli;
	vec_for_each(&s->cmds, c)
		if (c->kind == RT_SC_FILE)
			return c->words[0];
	return NULL;
}

/* Whether @path is an ELF file we can read; anything else is left to the
 * run, which says what is wrong with it once. */
static bool readable_elf(const char *path)
{
	char magic[4] = "";
	FILE *f = strchr(path, '/') ? fopen(path, "rb") : NULL;
	bool ok;

	if (!f)
		return false;
	ok = fread(magic, 1, 4, f) == 4 && memcmp(magic, "\x7f" "ELF", 4) == 0;
	fclose(f);
	return ok;
}

size_t rt_script_check_patterns(struct rt_script *s, const char *cli_program)
{
	size_t before = s->errors.n;
	const char *prog = program_of(s, cli_program);
	struct rt_symbols *syms = NULL;

	if (!prog || !readable_elf(prog))
		return 0;
	/* one that starts other programs (cargo) has its functions there */
	if (rt_symbols_open(prog, 0, &syms) || rt_symbols_can_exec(syms)) {
		rt_symbols_free(syms);
		return 0;
	}
	vec_for_each(&s->cmds, c)
		if (has_pattern(c) && c->glob && !c->broken)
			check_glob(s, c, syms);
	rt_symbols_free(syms);
	return s->errors.n - before;
}
