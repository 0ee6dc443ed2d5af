// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The glob compiler and matcher, and the demangler in front of it.
 *
 * Input: lines.  Line 1 is a demangled function name, line 2 its raw
 * symbol, each further line a glob; a glob written "!glob" is an exclude.
 * A line "-" stands for NULL (a function without a name).  The harness
 * checks each glob, matches it alone, builds a matcher from all of them,
 * selects the function, and asks for the crate of the name; the raw symbol
 * is also demangled and the result goes through the same calls.
 *
 * Properties: no memory error, no leak; rt_matcher_select() is exactly "some
 * include glob matches and no exclude glob does", with each include's
 * hit counted, when computed glob by glob with rt_glob_match(); a crate is
 * a non-empty identifier; the demangler returns a string for any input.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/demangle.h"
#include "rtrace/log.h"
#include "rtrace/match.h"
#include "fuzz.h"

#define MAX_GLOBS 16

struct input {
	char *buf;
	const char *name, *raw;
	const char *inc[MAX_GLOBS], *exc[MAX_GLOBS];
	size_t ninc, nexc;
};

static const char *field(char *s)
{
	return strcmp(s, "-") == 0 ? NULL : s;
}

static void split(const uint8_t *data, size_t size, struct input *in)
{
	char *save = NULL, *line;
	int i = 0;

	memset(in, 0, sizeof(*in));
	in->buf = malloc(size + 1);
	if (!in->buf)
		abort();
	memcpy(in->buf, data, size);
	in->buf[size] = '\0';
	for (line = strtok_r(in->buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save), i++) {
		if (i == 0)
			in->name = field(line);
		else if (i == 1)
			in->raw = field(line);
		else if (line[0] == '!' && in->nexc < MAX_GLOBS)
			in->exc[in->nexc++] = line + 1;
		else if (line[0] != '!' && in->ninc < MAX_GLOBS)
			in->inc[in->ninc++] = line;
	}
}

static void check_crate(const char *name)
{
	char *crate = rt_crate_of(name);

	if (!crate)
		return;
	FUZZ_CHECK(crate[0] && !isdigit((unsigned char)crate[0]));
	for (const char *p = crate; *p; p++)
		FUZZ_CHECK(isalnum((unsigned char)*p) || *p == '_');
	/* the crate is a prefix of the name or of a path inside it */
	FUZZ_CHECK(strstr(name, crate) != NULL);
	free(crate);
}

/* rt_matcher_select() against the globs one by one. */
static void check_select(const struct input *in, const char *name)
{
	struct rt_matcher *m;
	bool want_inc = false, want_exc = false, got;

	if (rt_matcher_new(in->inc, in->ninc, in->exc, in->nexc, &m) < 0)
		return;
	for (size_t i = 0; i < in->nexc; i++)
		want_exc |= rt_glob_match(in->exc[i], name, in->raw);
	for (size_t i = 0; i < in->ninc; i++)
		want_inc |= rt_glob_match(in->inc[i], name, in->raw);
	got = rt_matcher_select(m, name, in->raw);
	FUZZ_CHECK(got == (want_inc && !want_exc));
	for (size_t i = 0; i < in->ninc; i++)
		FUZZ_CHECK(rt_matcher_hits(m, i) ==
			   (size_t)(!want_exc &&
				    rt_glob_match(in->inc[i], name, in->raw)));
	rt_matcher_reset(m);
	for (size_t i = 0; i < in->ninc; i++)
		FUZZ_CHECK(rt_matcher_hits(m, i) == 0);
	rt_matcher_free(m);
}

static void check_globs(const char *const *globs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *why = NULL;
		int rc = rt_glob_check(globs[i], &why);

		FUZZ_CHECK(rc == 0 ? why == NULL : rc == -EINVAL && why);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	rt_log_verbose = -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in;
	char *demangled;

	/* fnmatch(3) is exponential in the number of '*' by design; long
	 * inputs only measure that */
	if (size > 1024)
		return 0;
	split(data, size, &in);
	check_globs(in.inc, in.ninc);
	check_globs(in.exc, in.nexc);
	if (in.name)
		check_crate(in.name);
	check_select(&in, in.name);

	demangled = rt_demangle(in.raw);
	FUZZ_CHECK(!in.raw == !demangled);
	if (demangled) {
		check_crate(demangled);
		check_select(&in, demangled);
	}
	free(demangled);
	free(in.buf);
	return 0;
}
