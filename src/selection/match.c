// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Function selection: fnmatch(3) globs on demangled names.
 *
 * Rust names a trait method "<Self as Trait>::method" and, under v0
 * mangling, an inherent method "<Self>::method".  Neither starts with the
 * crate, so a naive 'my_crate::*' would miss them (a pitfall of other
 * tracers).  Each such name is therefore also tried as "Self::method" and
 * "Trait::method", following nested impls ("<<A as B>::x as C>::f") a few
 * levels down.  Matching runs over every function of every image at
 * start-up, so the derived paths go into a stack buffer, and the heap is
 * used only for names too long for it.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "match"
#define PR_DOMAIN RT_DOM_MATCH
#include "rtrace/log.h"
#include "rtrace/match.h"
#include "rtrace/symbols.h"
#include "rtrace/util.h"

/* "<A as B>" nesting levels followed; 1 + 2 + 4 + 8 paths at most. */
#define MAX_NEST 3
#define MAX_PATHS 16
#define STACK_BUF 2048

struct rt_matcher {
	const char *const *inc;
	size_t ninc;
	const char *const *exc;
	size_t nexc;
	size_t *hits;		/* one per include glob */
};

/* A name and the paths derived from it, for one match. */
struct paths {
	const char *p[MAX_PATHS];
	size_t n;
	size_t name_len;	/* no derived path is longer */
	char *cur, *end;	/* free room in the current buffer */
	char *heap;
	char stack[STACK_BUF];
};

/* "<self as trait>rest" or "<self>rest", cut into spans. */
struct impl_split {
	const char *self;
	size_t self_len;
	const char *trait;	/* NULL for "<self>" */
	size_t trait_len;
	const char *rest;
	size_t rest_len;
};

static bool is_open(char c)
{
	return c == '<' || c == '(' || c == '[' || c == '{';
}

/* A '>' that closes a bracket; the one of "->" in "fn() -> u32" does not. */
static bool is_close(const char *s, size_t i)
{
	if (s[i] == '>')
		return i == 0 || s[i - 1] != '-';
	return s[i] == ')' || s[i] == ']' || s[i] == '}';
}

/*
 * Splits @s (@len bytes, starting with '<') at its top-level " as " and
 * matching '>'.  Self and trait may hold generic arguments with their own
 * '<', '>' and " as " ("<Vec<<T as X>::Y> as Drop>"), so only the ones at
 * bracket depth 0 count.  Returns false when @s is not of that form.
 */
static bool split_impl(const char *s, size_t len, struct impl_split *sp)
{
	size_t depth = 0, as = 0;

	for (size_t i = 1; i < len; i++) {
		if (is_open(s[i])) {
			depth++;
		} else if (is_close(s, i)) {
			if (depth) {
				depth--;
				continue;
			}
			if (s[i] != '>')
				return false;
			sp->self = s + 1;
			sp->self_len = (as ? as : i) - 1;
			sp->trait = as ? s + as + 4 : NULL;
			sp->trait_len = as ? i - as - 4 : 0;
			sp->rest = s + i + 1;
			sp->rest_len = len - i - 1;
			return sp->self_len && (!as || sp->trait_len);
		} else if (!depth && !as && strncmp(s + i, " as ", 4) == 0) {
			as = i;
		}
	}
	return false;
}

/* Room for @len bytes and a NUL, or NULL (then the path is not tried). */
static char *paths_room(struct paths *ps, size_t len)
{
	char *r;

	if ((size_t)(ps->end - ps->cur) <= len) {
		if (ps->heap)
			return NULL;
		/* paths already in the stack buffer stay valid */
		ps->heap = xmalloc(MAX_PATHS * (ps->name_len + 1));
		ps->cur = ps->heap;
		ps->end = ps->heap + MAX_PATHS * (ps->name_len + 1);
	}
	r = ps->cur;
	ps->cur += len + 1;
	return r;
}

static void paths_add(struct paths *ps, const char *name, int nest);

/* Adds "@head@rest" and what derives from it. */
static void paths_add_joined(struct paths *ps, const char *head,
			     size_t head_len, const struct impl_split *sp,
			     int nest)
{
	char *d = paths_room(ps, head_len + sp->rest_len);

	if (!d)
		return;
	memcpy(d, head, head_len);
	memcpy(d + head_len, sp->rest, sp->rest_len);
	d[head_len + sp->rest_len] = '\0';
	paths_add(ps, d, nest);
}

static void paths_add(struct paths *ps, const char *name, int nest)
{
	struct impl_split sp;

	if (ps->n == MAX_PATHS)
		return;
	ps->p[ps->n++] = name;
	if (name[0] != '<' || nest == MAX_NEST)
		return;
	if (!split_impl(name, strlen(name), &sp))
		return;
	/* "<A as B>::f" and "<A as B>": anything else is not a path */
	if (sp.rest_len && strncmp(sp.rest, "::", 2) != 0)
		return;
	paths_add_joined(ps, sp.self, sp.self_len, &sp, nest + 1);
	if (sp.trait)
		paths_add_joined(ps, sp.trait, sp.trait_len, &sp, nest + 1);
}

static void paths_init(struct paths *ps, const char *name)
{
	ps->n = 0;
	ps->name_len = strlen(name);
	ps->heap = NULL;
	ps->cur = ps->stack;
	ps->end = ps->stack + sizeof(ps->stack);
	paths_add(ps, name, 0);
}

static void paths_release(struct paths *ps)
{
	zfree(&ps->heap);
}

static bool is_raw_glob(const char *glob)
{
	return str_starts(glob, "_ZN") || str_starts(glob, "_R");
}

/* One glob against the prepared paths (@ps may be NULL: no name). */
static bool glob_match_paths(const char *glob, const struct paths *ps,
			     const char *raw)
{
	if (is_raw_glob(glob))
		return raw && fnmatch(glob, raw, 0) == 0;
	for (size_t i = 0; ps && i < ps->n; i++)
		if (fnmatch(glob, ps->p[i], 0) == 0)
			return true;
	return false;
}

/* Past the bracket expression opening at @p ("[...]"), or NULL if it is
 * never closed.  Follows fnmatch: a leading ']' is a member, "[:alpha:]"
 * holds a ']' of its own, and a backslash escapes. */
static const char *skip_bracket(const char *p)
{
	p++;
	if (*p == '!' || *p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p; p++) {
		if (*p == '[' && p[1] && strchr(":.=", p[1])) {
			const char end[3] = { p[1], ']', '\0' };
			const char *q = strstr(p + 2, end);

			if (!q)
				return NULL;
			p = q + 1;
		} else if (*p == '\\') {
			if (!*++p)
				return NULL;
		} else if (*p == ']') {
			return p + 1;
		}
	}
	return NULL;
}

int rt_glob_check(const char *glob, const char **why)
{
	const char *reason = NULL, *p = glob;

	if (!glob || !*glob)
		reason = "empty pattern";
	while (!reason && *p) {
		if (*p == '\\') {
			if (!p[1])
				reason = "trailing backslash";
			p += 2;
		} else if (*p == '[') {
			p = skip_bracket(p);
			if (!p)
				reason = "'[' without a matching ']'";
		} else {
			p++;
		}
	}
	if (why)
		*why = reason;
	return reason ? -EINVAL : 0;
}

bool rt_glob_match(const char *glob, const char *name, const char *raw)
{
	struct paths ps;
	bool ret;

	if (!glob)
		return false;
	if (is_raw_glob(glob) || !name)
		return glob_match_paths(glob, NULL, raw);
	paths_init(&ps, name);
	ret = glob_match_paths(glob, &ps, raw);
	paths_release(&ps);
	return ret;
}

/* Checks every glob of a list, logging the first bad one. */
static int check_globs(const char *const *globs, size_t n)
{
	const char *why;

	for (size_t i = 0; i < n; i++) {
		if (rt_glob_check(globs[i], &why) < 0) {
			pr_err("invalid pattern '%s': %s",
			       globs[i] ? globs[i] : "", why);
			return -EINVAL;
		}
	}
	return 0;
}

int rt_matcher_new(const char *const *inc, size_t ninc,
		   const char *const *exc, size_t nexc,
		   struct rt_matcher **out)
{
	struct rt_matcher *m;

	if (check_globs(inc, ninc) < 0 || check_globs(exc, nexc) < 0)
		return -EINVAL;
	m = xcalloc(1, sizeof(*m));
	m->inc = inc;
	m->ninc = ninc;
	m->exc = exc;
	m->nexc = nexc;
	m->hits = xcalloc(ninc, sizeof(*m->hits));
	*out = m;
	return 0;
}

void rt_matcher_free(struct rt_matcher *m)
{
	if (!m)
		return;
	zfree(&m->hits);
	free(m);
}

/* Whether some exclude glob matches. */
static bool excluded(const struct rt_matcher *m, const struct paths *ps,
		     const char *raw)
{
	for (size_t i = 0; i < m->nexc; i++)
		if (glob_match_paths(m->exc[i], ps, raw))
			return true;
	return false;
}

/* Whether some include glob matches; counts a hit for each one that does,
 * so call it only for a function that no exclude glob removed. */
static bool included(struct rt_matcher *m, const struct paths *ps,
		     const char *raw)
{
	bool any = false;

	for (size_t i = 0; i < m->ninc; i++) {
		if (glob_match_paths(m->inc[i], ps, raw)) {
			m->hits[i]++;
			any = true;
		}
	}
	return any;
}

bool rt_matcher_select(struct rt_matcher *m, const char *name, const char *raw)
{
	struct paths ps, *pp = NULL;
	bool sel;

	if (name) {
		paths_init(&ps, name);
		pp = &ps;
	}
	/* excludes first: a hit counts only for a selected function */
	sel = !excluded(m, pp, raw) && included(m, pp, raw);
	if (pp)
		paths_release(pp);
	return sel;
}

size_t rt_matcher_hits(const struct rt_matcher *m, size_t i)
{
	return m && i < m->ninc ? m->hits[i] : 0;
}

void rt_matcher_reset(struct rt_matcher *m)
{
	if (m && m->ninc)
		memset(m->hits, 0, m->ninc * sizeof(*m->hits));
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Length of the bracketed group opening at @s[0], or 0 if unclosed. */
static size_t group_len(const char *s, size_t len)
{
	size_t depth = 0;

	for (size_t i = 0; i < len; i++) {
		if (is_open(s[i]))
			depth++;
		else if (is_close(s, i) && --depth == 0)
			return i + 1;
	}
	return 0;
}

/*
 * The crate of the path @s (@len bytes): its first identifier, provided a
 * "::" follows it (after generic arguments, if any).  For an impl, the
 * crate of the self type, or of the trait when the self type is not a path
 * (a primitive, reference, slice, tuple or type parameter).
 */
static bool crate_span(const char *s, size_t len, const char **crate,
		       size_t *clen)
{
	struct impl_split sp;
	size_t n = 0;

	if (len && s[0] == '<') {
		if (!split_impl(s, len, &sp))
			return false;
		if (crate_span(sp.self, sp.self_len, crate, clen))
			return true;
		return sp.trait && crate_span(sp.trait, sp.trait_len, crate,
					      clen);
	}
	while (n < len && is_ident(s[n]))
		n++;
	if (!n || isdigit((unsigned char)s[0]))
		return false;
	*crate = s;
	*clen = n;
	if (n < len && s[n] == '<') {
		size_t g = group_len(s + n, len - n);

		if (!g)
			return false;
		n += g;
	}
	return len - n >= 2 && s[n] == ':' && s[n + 1] == ':';
}

char *rt_crate_of(const char *name)
{
	const char *crate;
	size_t len;

	if (!name || !crate_span(name, strlen(name), &crate, &len))
		return NULL;
	return xstrndup(crate, len);
}

size_t rt_select_funcs(const struct rt_symbols *syms, struct rt_matcher *m,
		       size_t **idx)
{
	size_t n = 0, count = rt_symbols_count(syms);
	size_t *out = xmalloc((count + 1) * sizeof(*out));

	for (size_t i = 0; i < count; i++) {
		const struct rt_func *f = rt_symbols_func(syms, i);

		if (rt_matcher_select(m, f->name, f->raw))
			out[n++] = i;
	}
	*idx = out;
	return n;
}
