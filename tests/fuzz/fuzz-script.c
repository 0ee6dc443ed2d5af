// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command-file parser of rtrace -x and -i.
 *
 * Input: the text of a command file.  The harness parses it as rtrace -x
 * does (rt_script_parse_text(), `source` kept as a command: no file is
 * read), runs the whole-script and order checks, sorts and prints the
 * errors, and turns every report, replay and export command into the
 * words the CLI parser would get.
 *
 * Properties: no memory error, no leak; every command and every error
 * points into the text: a line from 1 to the number of lines, a column
 * within that line (0 for a whole line); a command flagged broken has an
 * error on its line; view commands give a NULL-terminated word list of
 * the length they say.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/script.h"
#include "fuzz.h"

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sink = fopen("/dev/null", "w");
	return 0;
}

/* Length of each line of @text, from 1 (index 0 unused). */
static size_t *line_lengths(const char *text, size_t *nlines)
{
	size_t n = 1, cap = 16, *len = calloc(cap, sizeof(*len));

	for (const char *p = text; len; p++) {
		if (n + 1 >= cap) {
			size_t *bigger = realloc(len, 2 * cap * sizeof(*len));

			if (!bigger) {
				free(len);
				return NULL;
			}
			memset(bigger + cap, 0, cap * sizeof(*len));
			len = bigger;
			cap *= 2;
		}
		if (!*p)
			break;
		if (*p == '\n')
			n++;
		else
			len[n]++;
	}
	*nlines = n;
	return len;
}

static void check_places(const struct rt_script *s, const size_t *len,
			 size_t nlines)
{
	vec_for_each(&s->cmds, c) {
		FUZZ_CHECK(c->line >= 1 && c->line <= nlines);
		FUZZ_CHECK(c->col >= 1 && c->col <= len[c->line] + 1);
	}
	vec_for_each(&s->errors, e) {
		if (e->line == 0)
			continue;  /* about the whole file */
		FUZZ_CHECK(e->line <= nlines);
		FUZZ_CHECK(e->col <= len[e->line] + 1);
		FUZZ_CHECK(e->msg && *e->msg);
	}
}

static void check_views(const struct rt_script *s)
{
	vec_for_each(&s->cmds, c) {
		char **argv;
		int argc = -1;

		if (c->kind != RT_SC_REPORT && c->kind != RT_SC_REPLAY &&
		    c->kind != RT_SC_EXPORT)
			continue;
		if (c->broken)
			continue;
		argv = rt_script_view_argv(c, &argc);
		FUZZ_CHECK(argv && argc >= 1);
		FUZZ_CHECK(argv[argc] == NULL);
		free(argv);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rt_script *s;
	size_t nlines = 0, *len;
	char *text;

	if (size > 16384)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	len = line_lengths(text, &nlines);
	s = rt_script_new();
	rt_script_parse_text(s, "fuzz.rtx", text, false);
	rt_script_check(s);
	rt_script_check_order(s, size & 1);
	rt_script_sort_errors(s);
	if (len)
		check_places(s, len, nlines);
	check_views(s);
	rt_script_print_errors(s, sink ? sink : stderr);
	rt_script_free(s);
	free(len);
	free(text);
	return 0;
}
