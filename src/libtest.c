// SPDX-License-Identifier: GPL-2.0-or-later
/* Test names of libtest harnesses, from their symbols. */
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
	VEC(char *) names;   /* candidate test names, crate dropped */
};

static bool is_harness(const struct rt_symbols *syms)
{
	for (size_t i = 0; i < rt_symbols_count(syms); i++)
		if (strcmp(rt_symbols_func(syms, i)->name,
			   "test::test_main_static") == 0)
			return true;
	return false;
}

/* "krate::tests::f::{{closure}}" -> "tests::f" when krate is @crate. */
static char *candidate(const char *name, const char *crate)
{
	static const char *const suffixes[] = { "::{{closure}}",
						"::{closure#0}" };
	size_t len = strlen(name), clen = strlen(crate);

	if (strncmp(name, crate, clen) != 0 || strncmp(name + clen, "::", 2))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t slen = strlen(suffixes[i]);

		size_t tlen = len - slen - clen - 2;

		/* the test function itself is not a closure or a generic */
		if (len > clen + 2 + slen &&
		    strcmp(name + len - slen, suffixes[i]) == 0 &&
		    !memchr(name + clen + 2, '{', tlen) &&
		    !memchr(name + clen + 2, '<', tlen))
			return xstrndup(name + clen + 2, tlen);
	}
	return NULL;
}

struct rt_libtest *rt_libtest_new(const struct rt_symbols *syms)
{
	struct rt_libtest *lt;
	char *crate;

	if (!is_harness(syms))
		return NULL;
	crate = rt_symbols_main_crate(syms);
	if (!crate)
		return NULL;
	lt = xcalloc(1, sizeof(*lt));
	for (size_t i = 0; i < rt_symbols_count(syms); i++) {
		char *c = candidate(rt_symbols_func(syms, i)->name, crate);

		if (c)
			vec_push(&lt->names, c);
	}
	pr_dbg("%s: libtest harness, %zu candidate tests", crate,
	       lt->names.n);
	free(crate);
	return lt;
}

void rt_libtest_free(struct rt_libtest *lt)
{
	if (!lt)
		return;
	vec_for_each(&lt->names, n)
		free(*n);
	vec_free(&lt->names);
	free(lt);
}

const char *rt_libtest_name(const struct rt_libtest *lt, const char *comm)
{
	size_t len = strlen(comm);
	const char *found = NULL;

	if (!lt || !len)
		return NULL;
	vec_for_each(&lt->names, n) {
		bool fits = len < COMM_LEN ? strcmp(*n, comm) == 0
					  : strncmp(*n, comm, len) == 0;

		if (!fits)
			continue;
		if (found && strcmp(found, *n) != 0)
			return NULL;  /* two tests share the first 15 bytes */
		found = *n;
	}
	return found;
}
