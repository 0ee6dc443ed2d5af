// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rt_demangle() against rustfilt.  The expected strings of the Rust vectors
 * were produced once by rustfilt 0.2.1 on symbols taken from a small demo
 * crate built by rustc 1.95 (legacy and -C symbol-mangling-version=v0) and
 * pasted here; the C++ ones come from c++filt.  When rustfilt is installed,
 * the oracle test also runs it on the same inputs and compares live.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrace/demangle.h"
#include "unittest.h"

struct dm_vec {
	const char *sym;	/* what rt_demangle() gets */
	const char *oracle;	/* what rustfilt gets, NULL if not Rust */
	const char *want;
};

/* A Rust symbol: rustfilt sees the same input. */
#define R(sym, want) { sym, sym, want }
/* A Rust symbol with a compiler suffix, which rustfilt would keep
 * ("demo::main.cold"): it gets the symbol without the suffix. */
#define S(sym, suffix, want) { sym suffix, sym, want }
/* Not Rust: the expected value comes from c++filt or is the input. */
#define C(sym, want) { sym, NULL, want }

static const struct dm_vec legacy_vecs[] = {
	R("_ZN4demo4main17h38e95565b6f46d0eE",
	  "demo::main"),
	R("_ZN4demo4main28_$u7b$$u7b$closure$u7d$$u7d$17h5e3a6357c0362edbE",
	  "demo::main::{{closure}}"),
	R("_ZN4demo5Shape3new17hb4979b90457bab2dE",
	  "demo::Shape::new"),
	R("_ZN4demo7generic17hd7fe66c317df466cE",
	  "demo::generic"),
	R("_ZN48_$LT$demo..Shape$u20$as$u20$core..fmt..Debug$GT$3fmt17h8c918b717150ecddE",
	  "<demo::Shape as core::fmt::Debug>::fmt"),
	R("_ZN34_$LT$u32$u20$as$u20$demo..Area$GT$4area17hd416623c3d7b1618E",
	  "<u32 as demo::Area>::area"),
	R("_ZN42_$LT$$RF$T$u20$as$u20$core..fmt..Debug$GT$3fmt17hf05310134ec36940E",
	  "<&T as core::fmt::Debug>::fmt"),
	R("_ZN4core3ptr30drop_in_place$LT$demo..Foo$GT$17he6ce86fcb37d060cE",
	  "core::ptr::drop_in_place<demo::Foo>"),
	R("_ZN70_$LT$alloc..vec..Vec$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h34b774ab3dd9cde1E",
	  "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop"),
	R("_ZN157_$LT$$LT$alloc..vec..into_iter..IntoIter$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$..drop..DropGuard$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h077f5e790660fc66E",
	  "<<alloc::vec::into_iter::IntoIter<T,A> as core::ops::drop::Drop>::drop::DropGuard<T,A> as core::ops::drop::Drop>::drop"),
	R("_ZN4core3fmt3num50_$LT$impl$u20$core..fmt..Debug$u20$for$u20$u32$GT$3fmt17h04064f62c3f1657aE",
	  "core::fmt::num::<impl core::fmt::Debug for u32>::fmt"),
	R("_ZN4core3ops8function6FnOnce40call_once$u7b$$u7b$vtable.shim$u7d$$u7d$17he86b06e89e6b508aE",
	  "core::ops::function::FnOnce::call_once{{vtable.shim}}"),
};

static const struct dm_vec v0_vecs[] = {
	R("_RNvCs2ndz2m94zur_4demo4main",
	  "demo::main"),
	R("_RNCNvCs2ndz2m94zur_4demo4main0B3_",
	  "demo::main::{closure#0}"),
	R("_RNvMs1_Cs2ndz2m94zur_4demoNtB5_5Shape3new",
	  "<demo::Shape>::new"),
	R("_RNvXs0_Cs2ndz2m94zur_4demoNtB5_5ShapeNtB5_4Area4area",
	  "<demo::Shape as demo::Area>::area"),
	R("_RNvXCs2ndz2m94zur_4demoNtB2_3FooNtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4drop",
	  "<demo::Foo as core::ops::drop::Drop>::drop"),
	R("_RINvCs2ndz2m94zur_4demo7genericmEB2_",
	  "demo::generic::<u32>"),
	R("_RINvCs2ndz2m94zur_4demo7genericReEB2_",
	  "demo::generic::<&str>"),
	R("_RINvCs2ndz2m94zur_4demo4showRNtB2_1XEB2_",
	  "demo::show::<&demo::X>"),
	R("_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeNtCs2ndz2m94zur_4demo3FooEBI_",
	  "core::ptr::drop_in_place::<demo::Foo>"),
	R("_RNvXs1i_NtCsgEmfK2I1SDS_4core3fmtRNtCs2ndz2m94zur_4demo1XNtB6_7Display3fmtBy_",
	  "<&demo::X as core::fmt::Display>::fmt"),
	R("_RNvXso_NtCslNYArtu3iFV_5alloc3vecINtB5_3VecNtCs2ndz2m94zur_4demo1XENtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4dropBH_",
	  "<alloc::vec::Vec<demo::X> as core::ops::drop::Drop>::drop"),
	R("_RNvXNvXse_NtNtCslNYArtu3iFV_5alloc3vec9into_iterINtB8_8IntoIterppENtNtNtCsgEmfK2I1SDS_4core3ops4drop4Drop4dropINtB2_9DropGuardNtNtNtCsjrHSEGnQ3l9_3std3ffi6os_str8OsStringNtNtBc_5alloc6GlobalEB12_4dropCs2ndz2m94zur_4demo",
	  "<<alloc::vec::into_iter::IntoIter<_, _> as core::ops::drop::Drop>::drop::DropGuard<std::ffi::os_str::OsString, alloc::alloc::Global> as core::ops::drop::Drop>::drop"),
	R("_RNSNvYNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0INtNtNtCsgEmfK2I1SDS_4core3ops8function6FnOnceuE9call_once6vtableCs2ndz2m94zur_4demo",
	  "<std::rt::lang_start<()>::{closure#0} as core::ops::function::FnOnce<()>>::call_once::{shim:vtable#0}"),
	R("_RINvMs2_NtCsgEmfK2I1SDS_4core3fmtNtB6_9Arguments3newKj2_Kj1_ECs2ndz2m94zur_4demo",
	  "<core::fmt::Arguments>::new::<2, 1>"),
	R("_RNvNtNtCsjrHSEGnQ3l9_3std6thread11main_thread4MAIN",
	  "std::thread::main_thread::MAIN"),
};

static const struct dm_vec suffix_vecs[] = {
	S("_ZN4demo4main17h38e95565b6f46d0eE", ".llvm.4215967811540497467",
	  "demo::main"),
	S("_ZN4demo4main17h38e95565b6f46d0eE", ".cold", "demo::main"),
	S("_ZN4demo4main17h38e95565b6f46d0eE", ".part.0", "demo::main"),
	S("_ZN4demo4main17h38e95565b6f46d0eE", ".cold.1", "demo::main"),
	/* '.' inside the mangled identifiers must not end the name */
	S("_ZN4core3ops8function6FnOnce40call_once$u7b$$u7b$vtable.shim$u7d$$u7d$17he86b06e89e6b508aE",
	  ".llvm.99",
	  "core::ops::function::FnOnce::call_once{{vtable.shim}}"),
	S("_ZN48_$LT$demo..Shape$u20$as$u20$core..fmt..Debug$GT$3fmt17h8c918b717150ecddE",
	  ".llvm.12", "<demo::Shape as core::fmt::Debug>::fmt"),
	S("_RNCNvCs2ndz2m94zur_4demo4main0B3_", ".llvm.777",
	  "demo::main::{closure#0}"),
	S("_RNvNtNtCsjrHSEGnQ3l9_3std6thread11main_thread4MAIN", ".0",
	  "std::thread::main_thread::MAIN"),
	S("_RNvXs0_Cs2ndz2m94zur_4demoNtB5_5ShapeNtB5_4Area4area", ".cold",
	  "<demo::Shape as demo::Area>::area"),
};

static const struct dm_vec cxx_vecs[] = {
	C("_ZN3foo3barEv", "foo::bar()"),
	C("_ZNK3Foo3getEv", "Foo::get() const"),
	C("_ZNSt6vectorIiSaIiEE9push_backERKi",
	  "std::vector<int, std::allocator<int> >::push_back(int const&)"),
	/* c++filt adds " [clone .cold]"; the clone is the same function */
	C("_Z3foov.cold", "foo()"),
	C("_ZN3Foo3barEv.constprop.0", "Foo::bar()"),
	/* only the C++ demangler takes it; c++filt keeps the hash:
	 * "foo::bar::h0123456789abcdef()" */
	C("_ZN3foo3bar17h0123456789abcdefEv", "foo::bar()"),
};

static const struct dm_vec plain_vecs[] = {
	C("main", "main"),
	C("main.cold", "main"),
	C("helper.llvm.42", "helper"),
	C("compute.part.0", "compute"),
	/* a '.' that is not a clone suffix stays */
	C("DW.ref.rust_eh_personality", "DW.ref.rust_eh_personality"),
	C("_R", "_R"),
	C("_Rfoo.cold", "_Rfoo"),
	/* mangled but refused by libiberty (and rustfilt): kept as is */
	C("_ZN7foo$u7e$3bar17h0123456789abcdefE",
	  "_ZN7foo$u7e$3bar17h0123456789abcdefE"),
	C("_ZN7foo$u7e$3bar17h0123456789abcdefE.llvm.3",
	  "_ZN7foo$u7e$3bar17h0123456789abcdefE"),
	C("", ""),
};

#define TABLE(t) { t, ARRAY_LEN(t) }
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const struct dm_vec *v;
	size_t n;
} all_tables[] = {
	TABLE(legacy_vecs), TABLE(v0_vecs),    TABLE(suffix_vecs),
	TABLE(cxx_vecs),    TABLE(plain_vecs),
};

/* Runs every vector of a table; prints each mismatch, returns their count. */
static int check_vecs(const struct dm_vec *v, size_t n)
{
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		char *got = rt_demangle(v[i].sym);

		if (!got || strcmp(got, v[i].want) != 0) {
			fprintf(stderr, "  %s\n    got  \"%s\"\n    want \"%s\"\n",
				v[i].sym, got ? got : "(null)", v[i].want);
			bad++;
		}
		free(got);
	}
	return bad;
}

TEST_CASE(legacy)
{
	TEST_EQ(check_vecs(legacy_vecs, ARRAY_LEN(legacy_vecs)), 0);
}

TEST_CASE(v0)
{
	TEST_EQ(check_vecs(v0_vecs, ARRAY_LEN(v0_vecs)), 0);
}

TEST_CASE(suffixes)
{
	TEST_EQ(check_vecs(suffix_vecs, ARRAY_LEN(suffix_vecs)), 0);
}

TEST_CASE(cxx_fallback)
{
	TEST_EQ(check_vecs(cxx_vecs, ARRAY_LEN(cxx_vecs)), 0);
}

TEST_CASE(not_mangled)
{
	TEST_EQ(check_vecs(plain_vecs, ARRAY_LEN(plain_vecs)), 0);
	TEST_TRUE(rt_demangle(NULL) == NULL);
}

/* Whether @s holds a legacy hash component "::h" + 16 hex digits. */
static bool has_hash(const char *s)
{
	for (const char *p = strstr(s, "::h"); p; p = strstr(p + 1, "::h")) {
		int i = 0;

		while (i < 16 && isxdigit((unsigned char)p[3 + i]))
			i++;
		if (i == 16)
			return true;
	}
	return false;
}

TEST_CASE(no_hash_survives)
{
	int bad = 0;

	for (size_t t = 0; t < ARRAY_LEN(all_tables); t++) {
		for (size_t i = 0; i < all_tables[t].n; i++) {
			const char *sym = all_tables[t].v[i].sym;
			char *got = rt_demangle(sym);

			if (!got || has_hash(got)) {
				fprintf(stderr, "  %s -> %s\n", sym, got);
				bad++;
			}
			free(got);
		}
	}
	TEST_EQ(bad, 0);
}

/* Path of an executable @name found in $PATH, or NULL. */
static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, path, name);
		if (len && access(buf, X_OK) == 0)
			return strdup(buf);
		path += len + (path[len] == ':');
	}
	return NULL;
}

/* Writes the oracle inputs of every table to @fp, one per line. */
static size_t write_oracle_inputs(FILE *fp)
{
	size_t n = 0;

	for (size_t t = 0; t < ARRAY_LEN(all_tables); t++) {
		for (size_t i = 0; i < all_tables[t].n; i++) {
			if (!all_tables[t].v[i].oracle)
				continue;
			fprintf(fp, "%s\n", all_tables[t].v[i].oracle);
			n++;
		}
	}
	return n;
}

/* Compares one line of rustfilt output with the pasted expectation and with
 * rt_demangle(); returns the number of mismatches (0 or 1). */
static int compare_one(const struct dm_vec *v, const char *line)
{
	char *got = rt_demangle(v->sym);
	int bad = 0;

	if (strcmp(line, v->want) != 0 || !got || strcmp(got, line) != 0) {
		fprintf(stderr, "  %s\n    rustfilt \"%s\"\n    pasted   \"%s\"\n"
			"    rtrace   \"%s\"\n", v->oracle, line, v->want,
			got ? got : "(null)");
		bad = 1;
	}
	free(got);
	return bad;
}

/* Reads rustfilt's output for the oracle inputs, in table order. */
static int compare_oracle(FILE *out, size_t *seen)
{
	char line[4096];
	int bad = 0;

	for (size_t t = 0; t < ARRAY_LEN(all_tables); t++) {
		for (size_t i = 0; i < all_tables[t].n; i++) {
			const struct dm_vec *v = &all_tables[t].v[i];

			if (!v->oracle)
				continue;
			if (!fgets(line, sizeof(line), out))
				return bad + 1;
			line[strcspn(line, "\n")] = '\0';
			bad += compare_one(v, line);
			(*seen)++;
		}
	}
	return bad;
}

TEST_CASE(rustfilt_oracle)
{
	char tmp[] = "/tmp/rtrace-demangle-XXXXXX", cmd[4200];
	char *rustfilt = find_in_path("rustfilt");
	size_t n, seen = 0;
	int fd, bad;
	FILE *fp;

	if (!rustfilt) {
		fprintf(stderr, "  rustfilt not installed: skipping the live "
				"comparison\n");
		return;
	}
	fd = mkstemp(tmp);
	TEST_TRUE(fd >= 0);
	fp = fdopen(fd, "w");
	n = write_oracle_inputs(fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "%s -i %s", rustfilt, tmp);
	free(rustfilt);
	fp = popen(cmd, "r");
	TEST_TRUE(fp != NULL);
	bad = compare_oracle(fp, &seen);
	TEST_EQ(pclose(fp), 0);
	unlink(tmp);
	TEST_EQ(bad, 0);
	TEST_EQ(seen, n);
}
