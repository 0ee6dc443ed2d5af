// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Command files: lines to commands (`source` followed in place), the
 * checks that need the whole script, and the error list.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/util.h"
#include "script-int.h"

#define SOURCE_DEPTH_MAX 16
/* A command file is a few lines written by hand: a larger one is not a
 * command file (a binary or a log given by mistake), and /dev/zero or a
 * pipe would be read without end. */
#define SCRIPT_SIZE_MAX (1u << 20)

struct rt_script *rt_script_new(void)
{
	return xcalloc(1, sizeof(struct rt_script));
}

static void cmd_release(struct rt_script_cmd *c)
{
	for (size_t i = 0; i < c->nwords; i++)
		free(c->words[i]);
	free(c->words);
	free(c->cols);
	free(c->vals);
}

void rt_script_free(struct rt_script *s)
{
	if (!s)
		return;
	vec_for_each(&s->cmds, c)
		cmd_release(c);
	vec_free(&s->cmds);
	vec_for_each(&s->errors, e)
		free(e->msg);
	vec_free(&s->errors);
	vec_for_each(&s->files, f)
		free(*f);
	vec_free(&s->files);
	free(s);
}

const char *rt_script_file_name(struct rt_script *s, const char *path)
{
	vec_for_each(&s->files, f)
		if (strcmp(*f, path) == 0)
			return *f;
	vec_push(&s->files, xstrdup(path));
	return *vec_last(&s->files);
}

void rt_script_error(struct rt_script *s, const char *file, unsigned line,
		     unsigned col, const char *fmt, ...)
{
	struct rt_script_error *e = vec_push_zero(&s->errors);
	va_list ap;

	e->file = file;
	e->line = line;
	e->col = col;
	va_start(ap, fmt);
	if (vasprintf(&e->msg, fmt, ap) < 0)
		abort();
	va_end(ap);
}

static size_t file_index(const struct rt_script *s, const char *file)
{
	for (size_t i = 0; i < s->files.n; i++)
		if (s->files.v[i] == file)
			return i;
	return s->files.n;
}

struct keyed_error {
	size_t file, seq;
	struct rt_script_error e;
};

static int cmp_error(const void *a, const void *b)
{
	const struct keyed_error *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->e.line != y->e.line)
		return x->e.line < y->e.line ? -1 : 1;
	if (x->e.col != y->e.col)
		return x->e.col < y->e.col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void rt_script_sort_errors(struct rt_script *s)
{
	size_t n = s->errors.n;
	struct keyed_error *k = xcalloc(n + 1, sizeof(*k));

	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed_error){ file_index(s, s->errors.v[i].file),
					     i, s->errors.v[i] };
	qsort(k, n, sizeof(*k), cmp_error);
	for (size_t i = 0; i < n; i++)
		s->errors.v[i] = k[i].e;
	free(k);
}

void rt_script_print_errors(const struct rt_script *s, FILE *out)
{
	vec_for_each(&s->errors, e) {
		if (e->col)
			fprintf(out, "rtrace: %s:%u:%u: %s\n", e->file, e->line,
				e->col, e->msg);
		else if (e->line)
			fprintf(out, "rtrace: %s:%u: %s\n", e->file, e->line,
				e->msg);
		else
			fprintf(out, "rtrace: %s: %s\n", e->file, e->msg);
	}
}

/* A `source`d file's path: as given when absolute, else next to the
 * file that names it.  A new string. */
static char *beside(const char *from, const char *path)
{
	char *dir, *copy, *out;

	if (path[0] == '/' || !strchr(from, '/'))
		return xstrdup(path);
	copy = xstrdup(from);
	dir = dirname(copy);
	out = xasprintf("%s/%s", dir, path);
	free(copy);
	return out;
}

static void parse_line(struct rt_script *s, const char *file, unsigned line,
		       const char *text, bool flatten);

/* Reads the command file @path; 0 or -errno, with the reason for a
 * person in *@why. */
static int read_script(const char *path, char **text, size_t *len,
		       const char **why)
{
	int err = read_regular_file(path, SCRIPT_SIZE_MAX, text, len);

	if (err == -EINVAL)
		*why = "not a regular file";
	else if (err == -EFBIG)
		*why = "larger than 1 MiB, not a command file";
	else
		*why = strerror(-err);
	return err;
}

static void source_file(struct rt_script *s, const struct rt_script_cmd *c)
{
	char *path = beside(c->file, c->words[0]), *text;
	const char *name = rt_script_file_name(s, path), *why;
	int err;

	free(path);
	if (s->depth >= SOURCE_DEPTH_MAX) {
		rt_script_error(s, c->file, c->line, c->cols[0], "source: "
				"files nested %d deep (does %s source itself?)",
				SOURCE_DEPTH_MAX, name);
		return;
	}
	err = read_script(name, &text, NULL, &why);
	if (err) {
		rt_script_error(s, c->file, c->line, c->cols[0], "source: "
				"cannot read %s: %s", name, why);
		return;
	}
	s->depth++;
	rt_script_parse_text(s, name, text, true);
	s->depth--;
	free(text);
}

static void parse_line(struct rt_script *s, const char *file, unsigned line,
		       const char *text, bool flatten)
{
	rt_word_vec w = { 0 };
	const char *why = NULL;
	unsigned col = 0;
	struct rt_script_cmd c = { .file = file, .line = line };

	if (rt_lex_line(text, &w, &col, &why)) {
		rt_script_error(s, file, line, col, "%s", why);
	} else if (w.n) {
		c.col = w.v[0].col;
		c.broken = rt_script_decode(s, &c, &w) != 0;
		if (!c.broken && flatten && c.kind == RT_SC_SOURCE) {
			source_file(s, &c);
			cmd_release(&c);
		} else {
			vec_push(&s->cmds, c);
		}
	}
	rt_words_clear(&w);
	vec_free(&w);
}

size_t rt_script_parse_text(struct rt_script *s, const char *name,
			    const char *text, bool flatten_source)
{
	size_t before = s->errors.n;
	const char *file = rt_script_file_name(s, name);
	unsigned line = 1 + s->line0;

	for (const char *p = text; *p; line++) {
		size_t len = strcspn(p, "\n");
		char *one = xstrndup(p, len);

		if (memchr(one, '\0', len) || strlen(one) != len)
			rt_script_error(s, file, line, 0, "a NUL byte: not a "
					"text file");
		else
			parse_line(s, file, line, one, flatten_source);
		free(one);
		p += len;
		if (*p == '\n')
			p++;
	}
	return s->errors.n - before;
}

size_t rt_script_parse_file(struct rt_script *s, const char *path)
{
	const char *name = rt_script_file_name(s, path);
	size_t before = s->errors.n;
	const char *why;
	char *text;
	size_t len;
	int err = read_script(path, &text, &len, &why);

	if (err) {
		rt_script_error(s, name, 0, 0, "cannot read it: %s", why);
		return 1;
	}
	if (strlen(text) != len)
		rt_script_error(s, name, 0, 0, "a NUL byte: not a text file");
	else
		rt_script_parse_text(s, name, text, true);
	free(text);
	return s->errors.n - before;
}

/* ---- whole-script checks ----------------------------------------------------- */

size_t rt_script_check(struct rt_script *s)
{
	size_t before = s->errors.n, n = 0;
	const char **counted = xcalloc(s->cmds.n + 1, sizeof(*counted));

	vec_for_each(&s->cmds, c)
		if (c->kind == RT_SC_ON && c->action == RT_ACT_COUNT && c->name)
			counted[n++] = c->name;
	vec_for_each(&s->cmds, c) {
		const char *m;
		bool found = false;

		if (c->kind != RT_SC_EXPECT || c->expect != RT_EXPECT_COUNTER ||
		    !c->name)
			continue;
		for (size_t i = 0; i < n; i++)
			found |= strcmp(counted[i], c->name) == 0;
		if (found)
			continue;
		m = rt_suggest(c->name, counted, n);
		rt_script_error(s, c->file, c->line, c->cols[1], "no action "
				"counts '%s'%s%s%s: on GLOB entry do count %s",
				c->name, m ? " (did you mean '" : "",
				m ? m : "", m ? "'?)" : "", c->name);
	}
	free(counted);
	return s->errors.n - before;
}

/* ---- comparisons -------------------------------------------------------------- */

const char *rt_cmp_str(enum rt_cmp op)
{
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };

	return op < ARRAY_SIZE(ops) ? ops[op] : "?";
}

bool rt_cmp_holds(enum rt_cmp op, uint64_t a, uint64_t b)
{
	switch (op) {
	case RT_CMP_EQ: return a == b;
	case RT_CMP_NE: return a != b;
	case RT_CMP_LT: return a < b;
	case RT_CMP_LE: return a <= b;
	case RT_CMP_GT: return a > b;
	case RT_CMP_GE: return a >= b;
	}
	return false;
}
