// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Folded stacks, the input of flamegraph.pl, inferno and speedscope: one
 * line per calling context, its functions from the outermost joined by
 * ';', then a space and its weight: self time in ns (so that the lines of
 * a function add up to its self time in the report), or its calls.  The
 * time a function waited in libc's blocking calls is a frame of its own
 * above it, "[blocked]": not the function's self time, but in its width.
 * Contexts of weight 0 are left out.  A ';' inside a name (an array type,
 * "[u8; 4]") would split the frame: it is written as ':'.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/render.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

typedef VEC(char) strbuf;

/* Appends a frame's name to @path, ';' replaced. */
static void append_name(strbuf *path, const char *name)
{
	size_t len = strlen(name);

	vec_reserve(path, path->n + len + 2);
	if (path->n)
		path->v[path->n++] = ';';
	for (size_t i = 0; i < len; i++)
		path->v[path->n++] = name[i] == ';' ? ':' : name[i];
}

/* A context deeper than RT_INDENT_LEVELS: @path holds the outermost
 * frames, then the frames between them and the function are one frame,
 * "[N frames]".  A line per context of the whole path would make the
 * output grow with contexts times depth; this keeps each function's
 * weight, which the last frame carries. */
static void write_deep(FILE *out, const strbuf *path,
		       const struct rt_cct_node *nd, const char *name,
		       uint64_t w)
{
	strbuf self = { 0 };

	append_name(&self, name);
	fprintf(out, "%.*s;[%u frames];%.*s %llu\n", (int)path->n, path->v,
		nd->depth - 1 - RT_INDENT_LEVELS, (int)self.n, self.v,
		(unsigned long long)w);
	vec_free(&self);
}

int rt_folded_write(FILE *out, const struct rt_view_ctx *v, struct rt_cct *t)
{
	bool calls = v->o->weight == RT_WEIGHT_CALLS;
	VEC(size_t) mark = { 0 };   /* path length before each depth's frame */
	strbuf path = { 0 };

	rt_cct_sort(t, RT_CCT_BY_NAME);
	for (uint32_t n = rt_cct_next(t, 0); n; n = rt_cct_next(t, n)) {
		const struct rt_cct_node *nd = rt_cct_node(t, n);
		uint64_t w = calls ? nd->calls : nd->self;

		/* back to the path of its parent, then its own frame */
		while (mark.n && mark.n >= nd->depth)
			path.n = mark.v[--mark.n];
		if (nd->depth > RT_INDENT_LEVELS) {
			if (w)
				write_deep(out, &path, nd, rt_cct_name(t, n), w);
			continue;
		}
		vec_push(&mark, path.n);
		append_name(&path, rt_cct_name(t, n));
		if (w)
			fprintf(out, "%.*s %llu\n", (int)path.n, path.v,
				(unsigned long long)w);
	}
	vec_free(&mark);
	vec_free(&path);
	return ferror(out) ? -EIO : 0;
}
