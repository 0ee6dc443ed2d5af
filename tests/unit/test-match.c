// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Pattern semantics on demangled names.  The names are what libiberty (and
 * rustfilt) print for symbols of a small demo crate built by rustc 1.95 in
 * both manglings; see test-demangle.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrace/demangle.h"
#include "rtrace/match.h"
#include "unittest.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Whether @glob selects the demangled @name (no raw symbol). */
static bool sel(const char *glob, const char *name)
{
	return rt_glob_match(glob, name, NULL);
}

TEST_CASE(star_crosses_colons)
{
	TEST_TRUE(sel("demo::*", "demo::main"));
	TEST_TRUE(sel("demo::*", "demo::a::b::c"));
	TEST_TRUE(sel("demo::*::new", "demo::shapes::Shape::new"));
	TEST_TRUE(sel("*::fmt", "<demo::Shape as core::fmt::Debug>::fmt"));
	TEST_TRUE(sel("*main", "demo::main"));
	/* the whole name must match */
	TEST_TRUE(!sel("demo", "demo::main"));
	TEST_TRUE(!sel("demo::main", "demo::main::helper"));
	TEST_TRUE(!sel("demo::*", "demox::main"));
	TEST_TRUE(!sel("demo::*", NULL));
}

TEST_CASE(exclude_beats_include)
{
	const char *inc[] = { "demo::*" };
	const char *exc[] = { "demo::helper*", "demo::Shape::*" };
	struct rt_matcher *m;

	TEST_EQ(rt_matcher_new(inc, 1, exc, 2, &m), 0);
	TEST_TRUE(rt_matcher_select(m, "demo::main", NULL));
	TEST_TRUE(!rt_matcher_select(m, "demo::helper", NULL));
	TEST_TRUE(!rt_matcher_select(m, "demo::helpers::run", NULL));
	/* an exclude works on the derived paths too */
	TEST_TRUE(!rt_matcher_select(m, "<demo::Shape>::new", NULL));
	TEST_TRUE(!rt_matcher_select(
		m, "<demo::Shape as core::fmt::Debug>::fmt", NULL));
	TEST_TRUE(rt_matcher_select(m, "<demo::X as core::fmt::Display>::fmt",
				    NULL));
	TEST_EQ(rt_matcher_hits(m, 0), 2);
	rt_matcher_free(m);
}

TEST_CASE(no_include_selects_nothing)
{
	struct rt_matcher *m;

	TEST_EQ(rt_matcher_new(NULL, 0, NULL, 0, &m), 0);
	TEST_TRUE(!rt_matcher_select(m, "demo::main", NULL));
	TEST_EQ(rt_matcher_hits(m, 0), 0);
	rt_matcher_free(m);
	rt_matcher_free(NULL);
}

TEST_CASE(trait_impls)
{
	/* legacy and v0 print trait impls the same way */
	TEST_TRUE(sel("demo::*", "<demo::Shape as core::fmt::Debug>::fmt"));
	TEST_TRUE(sel("demo::Shape::fmt",
		      "<demo::Shape as core::fmt::Debug>::fmt"));
	TEST_TRUE(sel("core::fmt::Debug::fmt",
		      "<demo::Shape as core::fmt::Debug>::fmt"));
	TEST_TRUE(sel("demo::*", "<demo::Shape as demo::Area>::area"));
	TEST_TRUE(sel("demo::*", "<demo::Foo as core::ops::drop::Drop>::drop"));
	/* a foreign type implementing a trait of ours */
	TEST_TRUE(sel("demo::*", "<u32 as demo::Area>::area"));
	TEST_TRUE(sel("demo::Area::area", "<u32 as demo::Area>::area"));
	TEST_TRUE(sel("u32::*", "<u32 as demo::Area>::area"));
	/* a blanket impl of core, even when monomorphized for our type */
	TEST_TRUE(sel("core::*", "<&T as core::fmt::Display>::fmt"));
	TEST_TRUE(sel("&T::fmt", "<&T as core::fmt::Display>::fmt"));
	TEST_TRUE(!sel("demo::*", "<&demo::X as core::fmt::Display>::fmt"));
	TEST_TRUE(sel("*demo::X*", "<&demo::X as core::fmt::Display>::fmt"));
}

TEST_CASE(generic_self_type)
{
	const char *vec_drop =
		"<alloc::vec::Vec<demo::X> as core::ops::drop::Drop>::drop";
	const char *legacy_drop =
		"<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop";

	/* our type only appears in the generic arguments */
	TEST_TRUE(!sel("demo::*", vec_drop));
	TEST_TRUE(sel("*demo::X*", vec_drop));
	TEST_TRUE(sel("alloc::vec::Vec<demo::X>::drop", vec_drop));
	TEST_TRUE(sel("core::ops::drop::Drop::drop", vec_drop));
	TEST_TRUE(sel("alloc::*", legacy_drop));
	TEST_TRUE(!sel("demo::*", legacy_drop));
}

TEST_CASE(nested_impls)
{
	const char *legacy =
		"<<alloc::vec::into_iter::IntoIter<T,A> as core::ops::drop::"
		"Drop>::drop::DropGuard<T,A> as core::ops::drop::Drop>::drop";
	const char *v0 =
		"<<alloc::vec::into_iter::IntoIter<_, _> as core::ops::drop::"
		"Drop>::drop::DropGuard<std::ffi::os_str::OsString, "
		"alloc::alloc::Global> as core::ops::drop::Drop>::drop";
	const char *proj = "<alloc::vec::Vec<<demo::X as demo::Tr>::Out> as "
			   "core::ops::drop::Drop>::drop";
	const char *fnptr = "<fn(u32) -> u32 as core::fmt::Debug>::fmt";

	TEST_TRUE(sel("alloc::vec::into_iter::IntoIter<T,A>::drop::"
		      "DropGuard<T,A>::drop", legacy));
	TEST_TRUE(sel("alloc::*", legacy));
	TEST_TRUE(!sel("demo::*", legacy));
	TEST_TRUE(sel("alloc::*", v0));
	TEST_TRUE(!sel("std::*", v0));
	TEST_TRUE(sel("*OsString*", v0));
	/* " as " inside the self type's generic arguments is not the split */
	TEST_TRUE(!sel("demo::*", proj));
	TEST_TRUE(sel("alloc::vec::Vec<<demo::X as demo::Tr>::Out>::drop",
		      proj));
	/* the '>' of "->" closes nothing */
	TEST_TRUE(sel("core::fmt::Debug::fmt", fnptr));
	TEST_TRUE(sel("fn(u32) -> u32::fmt", fnptr));
}

TEST_CASE(malformed_names)
{
	static const char *const names[] = {
		"<", ">", "<>", "<>::f", "<demo::broken", "<demo::a as >::f",
		"<demo::X as demo::T>f", "<demo::X)>::f", "<<<<<<", "->>",
		"< as >::f",
	};

	/* nothing to derive, nothing to crash on: only the name itself */
	for (size_t i = 0; i < LEN(names); i++) {
		TEST_TRUE(!sel("demo::*", names[i]));
		TEST_TRUE(sel("*", names[i]));
	}
	TEST_TRUE(!sel("demo::X*", "<demo::X as demo::T>f"));
}

TEST_CASE(v0_inherent_impls)
{
	TEST_TRUE(sel("demo::*", "<demo::Shape>::new"));
	TEST_TRUE(sel("demo::Shape::new", "<demo::Shape>::new"));
	TEST_TRUE(sel("demo::Shape::*", "<demo::Shape>::new"));
	TEST_TRUE(!sel("demo::*", "<core::fmt::Arguments>::new::<2, 1>"));
	TEST_TRUE(sel("core::fmt::*", "<core::fmt::Arguments>::new::<2, 1>"));
	TEST_TRUE(sel("alloc::*", "<alloc::vec::Vec<demo::X>>::push"));
	TEST_TRUE(!sel("demo::*", "<alloc::vec::Vec<demo::X>>::push"));
}

TEST_CASE(closures)
{
	static const char *const names[] = {
		"demo::main::{{closure}}",	/* legacy */
		"demo::main::{closure#0}",	/* v0 */
		"<demo::Shape>::new::{closure#1}",
		"<demo::Shape as demo::Area>::area::{closure#0}",
	};

	for (size_t i = 0; i < LEN(names); i++)
		TEST_TRUE(sel("demo::*", names[i]));
	TEST_TRUE(sel("demo::main::*", names[0]));
	TEST_TRUE(sel("demo::main::*", names[1]));
	TEST_TRUE(!sel("demo::main", names[0]));
	TEST_TRUE(sel("demo::Shape::new::*", names[2]));
	TEST_TRUE(sel("demo::Shape::area::{closure*", names[3]));
	/* std's closure shim is not ours */
	TEST_TRUE(!sel("demo::*",
		       "<std::rt::lang_start<()>::{closure#0} as core::ops::"
		       "function::FnOnce<()>>::call_once::{shim:vtable#0}"));
	TEST_TRUE(sel("std::rt::*",
		      "<std::rt::lang_start<()>::{closure#0} as core::ops::"
		      "function::FnOnce<()>>::call_once::{shim:vtable#0}"));
}

TEST_CASE(generic_monomorphizations)
{
	const char *inc[] = { "demo::generic*", "demo::generic::<u32>" };
	struct rt_matcher *m;

	TEST_EQ(rt_matcher_new(inc, 2, NULL, 0, &m), 0);
	/* legacy: two monomorphizations, one name */
	TEST_TRUE(rt_matcher_select(m, "demo::generic", NULL));
	TEST_TRUE(rt_matcher_select(m, "demo::generic", NULL));
	/* v0 keeps the arguments */
	TEST_TRUE(rt_matcher_select(m, "demo::generic::<u32>", NULL));
	TEST_TRUE(rt_matcher_select(m, "demo::generic::<&str>", NULL));
	TEST_TRUE(!rt_matcher_select(m, "demo::gen", NULL));
	TEST_EQ(rt_matcher_hits(m, 0), 4);
	TEST_EQ(rt_matcher_hits(m, 1), 1);
	rt_matcher_free(m);
}

TEST_CASE(drop_in_place_not_ours)
{
	TEST_TRUE(!sel("demo::*", "core::ptr::drop_in_place<demo::Foo>"));
	TEST_TRUE(!sel("demo::*", "core::ptr::drop_in_place::<demo::Foo>"));
	TEST_TRUE(sel("core::ptr::drop_in_place*",
		      "core::ptr::drop_in_place<demo::Foo>"));
	TEST_TRUE(sel("*drop_in_place*demo::Foo*",
		      "core::ptr::drop_in_place::<demo::Foo>"));
}

TEST_CASE(raw_symbol_globs)
{
	const char *legacy = "_ZN4demo4main17h38e95565b6f46d0eE";
	const char *v0 = "_RNvCs2ndz2m94zur_4demo4main";

	TEST_TRUE(rt_glob_match("_ZN4demo*", "demo::main", legacy));
	TEST_TRUE(rt_glob_match("_ZN*17h38e95565b6f46d0eE", "demo::main",
				legacy));
	TEST_TRUE(!rt_glob_match("_ZN4demo*", "demo::main", v0));
	TEST_TRUE(rt_glob_match("_R*4demo4main", "demo::main", v0));
	TEST_TRUE(!rt_glob_match("_R*", "demo::main", legacy));
	/* a raw glob never looks at the demangled name, nor the reverse */
	TEST_TRUE(!rt_glob_match("_ZN4demo*", "_ZN4demo4main", NULL));
	TEST_TRUE(!rt_glob_match("*4demo4main*", "demo::main", legacy));
	TEST_TRUE(!rt_glob_match("demo::*", NULL, legacy));
}

/* rt_glob_check()'s verdict, and its reason (NULL when valid). */
static const char *check(const char *glob)
{
	const char *why = "unset";
	int ret = rt_glob_check(glob, &why);

	if ((ret == 0) != (why == NULL))
		return "inconsistent";
	return why;
}

TEST_CASE(invalid_globs)
{
	TEST_STREQ(check(""), "empty pattern");
	TEST_STREQ(check(NULL), "empty pattern");
	TEST_STREQ(check("demo::[abc"), "'[' without a matching ']'");
	TEST_STREQ(check("demo::[[:alpha:]"), "'[' without a matching ']'");
	TEST_STREQ(check("demo::[[:alpha]"), "'[' without a matching ']'");
	TEST_STREQ(check("demo::[]"), "'[' without a matching ']'");
	TEST_STREQ(check("demo::[a\\"), "'[' without a matching ']'");
	TEST_STREQ(check("demo::*\\"), "trailing backslash");
	TEST_STREQ(check("\\"), "trailing backslash");
	TEST_TRUE(rt_glob_check("x[", NULL) == -EINVAL);
	/* well formed */
	TEST_TRUE(check("demo::*") == NULL);
	TEST_TRUE(check("demo::[abc]*") == NULL);
	TEST_TRUE(check("demo::[]]") == NULL);
	TEST_TRUE(check("demo::[!a]x") == NULL);
	TEST_TRUE(check("demo::[[:alpha:]]*") == NULL);
	TEST_TRUE(check("demo::\\[*") == NULL);
	TEST_TRUE(check("demo\\\\") == NULL);
	TEST_TRUE(check("*demo::X*]") == NULL);
}

/* Runs rt_matcher_new() with stderr going to a buffer, to see the log. */
static int matcher_new_logged(const char *const *inc, size_t ninc,
			      const char *const *exc, size_t nexc,
			      struct rt_matcher **m, char *log, size_t size)
{
	char tmp[] = "/tmp/rtrace-match-XXXXXX";
	int fd = mkstemp(tmp), saved = dup(2), ret;
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	ret = rt_matcher_new(inc, ninc, exc, nexc, m);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, log, size - 1, 0);
	log[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(tmp);
	return ret;
}

TEST_CASE(invalid_globs_in_matcher)
{
	const char *inc[] = { "demo::*" };
	const char *bad_inc[] = { "demo::*", "demo::[x" };
	const char *bad_exc[] = { "demo::x\\" };
	struct rt_matcher *m = NULL;
	char log[512];

	TEST_EQ(matcher_new_logged(bad_inc, 2, NULL, 0, &m, log, sizeof(log)),
		-EINVAL);
	TEST_TRUE(m == NULL);
	TEST_TRUE(strstr(log, "invalid pattern 'demo::[x': '[' without a "
			      "matching ']'") != NULL);
	TEST_EQ(matcher_new_logged(inc, 1, bad_exc, 1, &m, log, sizeof(log)),
		-EINVAL);
	TEST_TRUE(strstr(log, "invalid pattern 'demo::x\\': trailing "
			      "backslash") != NULL);
}

TEST_CASE(hit_counters)
{
	const char *inc[] = { "demo::*", "*::fmt", "nothing::*" };
	const char *exc[] = { "demo::skip" };
	static const char *const names[] = {
		"demo::main",
		"<demo::Shape as core::fmt::Debug>::fmt",
		"<u32 as core::fmt::Display>::fmt",
		"demo::skip",
		"std::rt::lang_start",
	};
	struct rt_matcher *m;
	size_t nsel = 0;

	TEST_EQ(rt_matcher_new(inc, 3, exc, 1, &m), 0);
	for (size_t i = 0; i < LEN(names); i++)
		nsel += rt_matcher_select(m, names[i], NULL);
	TEST_EQ(nsel, 3);
	TEST_EQ(rt_matcher_hits(m, 0), 2);
	TEST_EQ(rt_matcher_hits(m, 1), 2);
	TEST_EQ(rt_matcher_hits(m, 2), 0);
	TEST_EQ(rt_matcher_hits(m, 3), 0);
	rt_matcher_reset(m);
	TEST_EQ(rt_matcher_hits(m, 0), 0);
	TEST_EQ(rt_matcher_hits(m, 1), 0);
	TEST_TRUE(rt_matcher_select(m, "demo::main", NULL));
	TEST_EQ(rt_matcher_hits(m, 0), 1);
	rt_matcher_free(m);
}

/* rt_crate_of() as a comparable string ("(null)" for NULL). */
static bool crate_is(const char *name, const char *want)
{
	char *got = rt_crate_of(name);
	bool ok = got ? want && strcmp(got, want) == 0 : !want;

	if (!ok)
		fprintf(stderr, "  crate of \"%s\": \"%s\", want \"%s\"\n",
			name ? name : "(null)", got ? got : "(null)",
			want ? want : "(null)");
	free(got);
	return ok;
}

TEST_CASE(crate_of)
{
	TEST_TRUE(crate_is("demo::main", "demo"));
	TEST_TRUE(crate_is("demo::main::{closure#0}", "demo"));
	TEST_TRUE(crate_is("std::thread::main_thread::MAIN", "std"));
	TEST_TRUE(crate_is("<std::x as y>::z", "std"));
	TEST_TRUE(crate_is("<demo::Shape as core::fmt::Debug>::fmt", "demo"));
	TEST_TRUE(crate_is("<demo::Shape>::new", "demo"));
	TEST_TRUE(crate_is("core::ptr::drop_in_place<demo::Foo>", "core"));
	TEST_TRUE(crate_is("core::ptr::drop_in_place::<demo::Foo>", "core"));
	TEST_TRUE(crate_is("<alloc::vec::Vec<demo::X> as core::ops::drop::"
			   "Drop>::drop", "alloc"));
	/* self types that are not paths: the trait's crate */
	TEST_TRUE(crate_is("<u32 as demo::Area>::area", "demo"));
	TEST_TRUE(crate_is("<&T as core::fmt::Display>::fmt", "core"));
	TEST_TRUE(crate_is("<&mut demo::X as core::fmt::Debug>::fmt", "core"));
	TEST_TRUE(crate_is("<[T] as alloc::slice::Concat<Str>>::concat",
			   "alloc"));
	TEST_TRUE(crate_is("<(A, B) as core::fmt::Debug>::fmt", "core"));
	TEST_TRUE(crate_is("<T as core::convert::Into<U>>::into", "core"));
	TEST_TRUE(crate_is("<dyn core::any::Any as core::fmt::Debug>::fmt",
			   "core"));
	TEST_TRUE(crate_is("<fn(u32) -> u32 as core::fmt::Debug>::fmt",
			   "core"));
	TEST_TRUE(crate_is("<<alloc::vec::into_iter::IntoIter<T,A> as core::"
			   "ops::drop::Drop>::drop::DropGuard<T,A> as core::"
			   "ops::drop::Drop>::drop", "alloc"));
	TEST_TRUE(crate_is("<demo::main::{closure#0} as core::ops::function::"
			   "FnOnce<(u32,)>>::call_once", "demo"));
	/* C++ */
	TEST_TRUE(crate_is("std::vector<int, std::allocator<int> >::push_back"
			   "(int const&)", "std"));
	TEST_TRUE(crate_is("foo::bar()", "foo"));
	/* no path */
	TEST_TRUE(crate_is("main", NULL));
	TEST_TRUE(crate_is("", NULL));
	TEST_TRUE(crate_is(NULL, NULL));
	TEST_TRUE(crate_is("<[_]>::to_vec", NULL));
	TEST_TRUE(crate_is("<u32>::area", NULL));
	TEST_TRUE(crate_is("<demo::broken", NULL));
	TEST_TRUE(crate_is("_ZN7foo$u7e$3bar17h0123456789abcdefE", NULL));
}

/* Builds "<demo::Big<x...x> as core::fmt::Debug>::fmt" with @n x's. */
static char *long_name(size_t n)
{
	const char *head = "<demo::Big<", *tail = "> as core::fmt::Debug>::fmt";
	char *s = malloc(strlen(head) + n + strlen(tail) + 1);

	strcpy(s, head);
	memset(s + strlen(head), 'x', n);
	strcpy(s + strlen(head) + n, tail);
	return s;
}

TEST_CASE(long_names)
{
	char *name = long_name(10000);
	char *crate = rt_crate_of(name);

	/* derived paths that do not fit the stack buffer */
	TEST_TRUE(sel("demo::*", name));
	TEST_TRUE(sel("core::fmt::Debug::fmt", name));
	TEST_TRUE(sel("demo::Big<x*x>::fmt", name));
	TEST_STREQ(crate, "demo");
	free(crate);
	free(name);
}

TEST_CASE(deep_nesting)
{
	/* deeper than followed: the outer levels still derive */
	const char *name = "<<<<<demo::A as t::B>::x as t::C>::y as t::D>::z "
			   "as t::E>::w as t::F>::f";

	TEST_TRUE(sel("t::F::f", name));
	TEST_TRUE(sel("t::E::w::f", name));
	TEST_TRUE(sel("t::D::z::w::f", name));
	TEST_TRUE(sel("*", name));
	TEST_TRUE(crate_is(name, "demo"));
}

/*
 * The pitfall end to end: raw symbols of the demo crate, both manglings,
 * through rt_demangle() and a 'demo::*' matcher.
 */
TEST_CASE(demo_symbols)
{
	static const struct {
		const char *raw;
		bool want;
	} syms[] = {
		{ "_ZN4demo4main17h38e95565b6f46d0eE", true },
		{ "_ZN4demo4main28_$u7b$$u7b$closure$u7d$$u7d$17h5e3a6357c0362edbE", true },
		{ "_ZN48_$LT$demo..Shape$u20$as$u20$core..fmt..Debug$GT$3fmt17h8c918b717150ecddE.llvm.7", true },
		{ "_ZN34_$LT$u32$u20$as$u20$demo..Area$GT$4area17hd416623c3d7b1618E", true },
		{ "_ZN4core3ptr30drop_in_place$LT$demo..Foo$GT$17he6ce86fcb37d060cE", false },
		{ "_ZN42_$LT$$RF$T$u20$as$u20$core..fmt..Debug$GT$3fmt17hf05310134ec36940E", false },
		{ "_RNCNvCs2ndz2m94zur_4demo4main0B3_", true },
		{ "_RNvMs1_Cs2ndz2m94zur_4demoNtB5_5Shape3new", true },
		{ "_RNvXs0_Cs2ndz2m94zur_4demoNtB5_5ShapeNtB5_4Area4area", true },
		{ "_RINvCs2ndz2m94zur_4demo7genericmEB2_", true },
		{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeNtCs2ndz2m94zur_4demo3FooEBI_", false },
		{ "_RNvXso_NtCslNYArtu3iFV_5alloc3vecINtB5_3VecNtCs2ndz2m94zur_4demo1XENtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4dropBH_", false },
		{ "_RNvNtNtCsjrHSEGnQ3l9_3std6thread11main_thread4MAIN.0", false },
	};
	const char *inc[] = { "demo::*" };
	struct rt_matcher *m;
	int bad = 0;

	TEST_EQ(rt_matcher_new(inc, 1, NULL, 0, &m), 0);
	for (size_t i = 0; i < LEN(syms); i++) {
		char *name = rt_demangle(syms[i].raw);

		if (rt_matcher_select(m, name, syms[i].raw) != syms[i].want) {
			fprintf(stderr, "  %s (%s): want %d\n", name,
				syms[i].raw, syms[i].want);
			bad++;
		}
		free(name);
	}
	TEST_EQ(bad, 0);
	TEST_EQ(rt_matcher_hits(m, 0), 8);
	rt_matcher_free(m);
}
