// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test names of libtest harnesses.  A test's name is its function's path
 * without the crate ("tests::parses_numbers"); the candidates are the paths
 * of the harness crate's functions (generic instances and closures aside).
 * A thread name of fewer than 15 bytes must equal a candidate; a name of
 * 15 bytes was cut by the kernel and must begin one.
 */
#include <stdlib.h>
#include <string.h>

#define PR_FMT "libtest"
#define PR_DOMAIN RT_DOM_SYMBOLS
#include "rtrace/libtest.h"
#include "rtrace/log.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

/* The kernel's thread names hold 15 bytes and a NUL. */
#define COMM_LEN 15

struct rt_libtest {
	char *crate;
	VEC(char *) names;   /* candidate test names, sorted, unique */
};

static bool is_harness(const struct rt_symbols *syms)
{
	for (size_t i = 0; i < rt_symbols_count(syms); i++)
		if (strcmp(rt_symbols_func(syms, i)->name,
			   "test::test_main_static") == 0)
			return true;
	return false;
}

/* The path of @name inside @crate, when it is a plain function there. */
static const char *inner_path(const char *name, const char *crate)
{
	size_t clen = strlen(crate);

	if (strncmp(name, crate, clen) != 0 || strncmp(name + clen, "::", 2))
		return NULL;
	name += clen + 2;
	return strpbrk(name, "{<") ? NULL : name;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct rt_libtest *rt_libtest_new(const struct rt_symbols *syms)
{
	struct rt_libtest *lt;
	char *crate;
	size_t out = 0;

	if (!is_harness(syms) || !(crate = rt_symbols_main_crate(syms)))
		return NULL;
	lt = xcalloc(1, sizeof(*lt));
	lt->crate = crate;
	for (size_t i = 0; i < rt_symbols_count(syms); i++) {
		const char *p = inner_path(rt_symbols_func(syms, i)->name, crate);

		if (p && strcmp(p, "main") != 0)
			vec_push(&lt->names, xstrdup(p));
	}
	if (lt->names.n)  /* a harness with no test of its own */
		qsort(lt->names.v, lt->names.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < lt->names.n; i++) {
		if (out && strcmp(lt->names.v[out - 1], lt->names.v[i]) == 0)
			free(lt->names.v[i]);
		else
			lt->names.v[out++] = lt->names.v[i];
	}
	lt->names.n = out;
	pr_dbg("%s: libtest harness, %zu candidate tests", crate, out);
	return lt;
}

void rt_libtest_free(struct rt_libtest *lt)
{
	if (!lt)
		return;
	vec_for_each(&lt->names, n)
		free(*n);
	vec_free(&lt->names);
	free(lt->crate);
	free(lt);
}

static bool fits(const char *name, const char *comm, size_t len)
{
	return len < COMM_LEN ? strcmp(name, comm) == 0
			      : strncmp(name, comm, len) == 0;
}

const char *rt_libtest_name(const struct rt_libtest *lt, const char *comm,
			    bool *ambiguous)
{
	size_t len = strlen(comm);
	const char *found = NULL;

	*ambiguous = false;
	if (!lt || !len)
		return NULL;
	vec_for_each(&lt->names, n) {
		if (!fits(*n, comm, len))
			continue;
		if (found) {
			*ambiguous = true;  /* two share the first 15 bytes */
			return NULL;
		}
		found = *n;
	}
	return found;
}

/* @func without the suffix of the closure libtest calls a test through:
 * the test's closure may be the first thing on its thread's stack. */
static char *without_closure(const char *func)
{
	static const char *const suffixes[] = { "::{{closure}}",
						"::{closure#0}" };
	size_t len = strlen(func);

	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t slen = strlen(suffixes[i]);

		if (len > slen && strcmp(func + len - slen, suffixes[i]) == 0)
			return xstrndup(func, len - slen);
	}
	return xstrdup(func);
}

const char *rt_libtest_fit(const struct rt_libtest *lt, const char *comm,
			   const char *func)
{
	char *name = lt ? without_closure(func) : NULL;
	const char *p = name ? inner_path(name, lt->crate) : NULL;
	const char *found = NULL;

	if (p && fits(p, comm, strlen(comm))) {
		vec_for_each(&lt->names, n)
			if (strcmp(*n, p) == 0)
				found = *n;
	}
	free(name);
	return found;
}
