// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Symbol demangling through libiberty.
 *
 * A Rust binary holds two manglings at once: std is v0 ("_R..."), user
 * crates are legacy ("_ZN...17h<hash>E") unless built otherwise, and C or
 * C++ code linked in brings Itanium names.  libiberty's DMGL_RUST handles
 * both Rust forms; what is left to us is the part around the demangler:
 *
 *  - Compilers append clone suffixes after the mangled name (".llvm.<n>",
 *    ".cold", ".part.0", ".constprop.0", and ".0" on statics).  They name
 *    the same source function, so we cut them off before demangling; the
 *    demangled name then groups a function with its outlined pieces.
 *  - The legacy hash ("::h0123456789abcdef") identifies a monomorphization,
 *    not a function.  DMGL_RUST drops it, but a name that only the C++
 *    demangler accepts would keep it, so we remove any that survives.
 *  - v0 crate disambiguators ("demo[1a2b3c4d5e6f7a8b]::main") are dropped
 *    too, as libiberty does without DMGL_VERBOSE.  Users write globs such
 *    as 'demo::*' and cannot know the disambiguator; rustfilt prints the
 *    same short form.  v0 generic arguments ("demo::generic::<u32>") are
 *    kept, as rustfilt keeps them.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>
/* libiberty.h, pulled in by demangle.h, has its own copy of this macro */
#undef ARRAY_SIZE

#define PR_FMT "demangle"
#define PR_DOMAIN RT_DOM_MATCH
#include "rtrace/demangle.h"
#include "rtrace/log.h"
#include "rtrace/util.h"

/* Length of a Rust legacy hash component without its "::": 'h' + 16 hex. */
#define HASH_LEN 17

/*
 * Clone suffixes that LLVM and GCC append to names that are not mangled
 * (for mangled ones, anything after the mangled name is a suffix).  C
 * names may contain '.' for other reasons ("DW.ref.x"), so only these cut.
 */
static const char *const clone_words[] = {
	"llvm", "cold", "part", "constprop", "isra", "lto_priv", "clone",
	"localalias",
};

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether @sym looks like a Rust v0 name: "_R" then a tag (uppercase) or
 * the encoding version (a digit). */
static bool is_v0(const char *sym)
{
	unsigned char tag;

	if (!str_starts(sym, "_R"))
		return false;
	tag = sym[2];
	return isupper(tag) || isdigit(tag);
}

/* Whether @s (just after a '.') starts with a clone word ending at '.' or
 * at the end of the string. */
static bool is_clone_word(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(clone_words); i++) {
		size_t n = strlen(clone_words[i]);

		if (strncmp(s, clone_words[i], n) == 0 &&
		    (s[n] == '.' || s[n] == '\0'))
			return true;
	}
	return false;
}

/*
 * End of a Rust legacy name "_ZN" { <len> <ident> } "E", or 0 when @sym is
 * not of that form.  The identifiers are length-prefixed and may contain
 * '.' themselves ("..", "vtable.shim"), so the end must be found by walking
 * the lengths rather than by looking for the first '.'.
 */
static size_t legacy_end(const char *sym)
{
	const char *p = sym + 3;

	while (isdigit((unsigned char)*p)) {
		char *q;
		unsigned long n = strtoul(p, &q, 10);

		if (strnlen(q, n) < n)
			return 0;
		p = q + n;
	}
	if (p == sym + 3 || *p != 'E')
		return 0;
	return p + 1 - sym;
}

/* Length of @sym without its compiler suffix. */
static size_t mangled_len(const char *sym)
{
	const char *dot;

	if (is_v0(sym))
		/* the v0 grammar uses only [A-Za-z0-9_] */
		return strspn(sym, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "abcdefghijklmnopqrstuvwxyz0123456789_");
	if (str_starts(sym, "_ZN")) {
		size_t end = legacy_end(sym);

		if (end && (sym[end] == '.' || sym[end] == '\0'))
			return end;
	}
	if (str_starts(sym, "_Z"))
		/* Itanium names never contain '.' */
		return strcspn(sym, ".");
	for (dot = strchr(sym, '.'); dot; dot = strchr(dot + 1, '.')) {
		if (dot > sym && is_clone_word(dot + 1))
			return dot - sym;
	}
	return strlen(sym);
}

/* Whether @p points at "::h" + 16 hex digits ending the path component. */
static bool at_hash(const char *p)
{
	if (strncmp(p, "::h", 3) != 0)
		return false;
	for (int i = 3; i < 2 + HASH_LEN; i++)
		if (!isxdigit((unsigned char)p[i]))
			return false;
	return !is_ident(p[2 + HASH_LEN]);
}

/* Removes, in place, every legacy hash component that the C++ demangler
 * left in @s. */
static void strip_hashes(char *s)
{
	char *w = s;

	for (const char *r = s; *r;) {
		if (at_hash(r)) {
			r += 2 + HASH_LEN;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

/* libiberty on a NUL-terminated mangled name: Rust first, then C++. */
static char *demangle_mangled(const char *base)
{
	char *out = cplus_demangle(base, DMGL_RUST);

	if (!out && str_starts(base, "_Z"))
		out = cplus_demangle(base, DMGL_PARAMS | DMGL_ANSI);
	if (out)
		strip_hashes(out);
	return out;
}

char *rt_demangle(const char *sym)
{
	size_t len;
	char *base, *out;

	if (!sym)
		return NULL;
	len = mangled_len(sym);
	base = xstrndup(sym, len);
	if (!str_starts(base, "_Z") && !is_v0(base))
		return base;
	out = demangle_mangled(base);
	if (!out) {
		pr_dbg2("not demangled: %s", sym);
		return base;
	}
	free(base);
	return out;
}
