// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One image's plan (imageplan.c) on a small synthetic executable: which
 * functions are probed for a role under which options, the entry hook,
 * the kinds the jump engine may patch, the sites a function whose hits
 * must stop keeps, and the load bias.  Role and jump-kind rules are also
 * checked on their own, against the table the options imply.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "rtrace/imageplan.h"
#include "rtrace/match.h"
#include "fakeelf.h"
#include "unittest.h"

#define BASE 0x401000ULL

/* The code, by hand:
 *   work    0x401000: push %rbp; mov %rsp,%rbp; pop %rbp; ret
 *   tail    0x401010: nop; jmp work (a tail jump, rel32)
 *   malloc  0x401020: xor %eax,%eax; ret
 *   __rust_alloc 0x401030: xor %eax,%eax; ret
 *   sigaction    0x401040: xor %eax,%eax; ret
 *   _start  0x401050: call work; hlt */
static const uint8_t code[] = {
	0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3, 0xcc, 0xcc,
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0x90, 0xe9, 0xea, 0xff, 0xff, 0xff, 0xcc, 0xcc,  /* 0x401011: to 0x401000 */
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0x31, 0xc0, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0x31, 0xc0, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0x31, 0xc0, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xe8, 0xab, 0xff, 0xff, 0xff, 0xf4,              /* 0x401055-0x55 */
};

static const struct fake_sym syms[] = {
	{ "work", BASE, 6, false },
	{ "tail", BASE + 0x10, 6, false },
	{ "malloc", BASE + 0x20, 3, false },
	{ "__rust_alloc", BASE + 0x30, 3, false },
	{ "sigaction", BASE + 0x40, 3, false },
	{ "_start", BASE + 0x50, 6, false },
};

static struct rt_symbols *open_fake(void)
{
	return fake_elf_symbols(&(struct fake_elf){
		.base = BASE, .code = code, .len = sizeof(code),
		.syms = syms, .nsyms = 6, .entry = BASE + 0x50 });
}

/* The plan of the fake executable with "work" and "tail" selected. */
static struct rt_plan *plan_of(struct rt_symbols *s,
			       const struct rt_imageplan_policy *pol,
			       rt_raddr bias)
{
	size_t idx[2] = { rt_symbols_find(s, "work"),
			  rt_symbols_find(s, "tail") };
	struct rt_plan *plan = NULL;

	if (rt_imageplan_build(s, idx, 2, NULL, pol,
			       &(struct rt_imageplan_image){
				       .exe = true, .bias = bias,
				       .first_id = 1 }, &plan))
		return NULL;
	return plan;
}

TEST_CASE(jump_kinds_follow_the_engine_and_the_stops)
{
	const unsigned all = RT_PROBE_ENTRY | RT_PROBE_EXIT | RT_PROBE_TAIL;

	TEST_EQ(rt_imageplan_jump_kinds(&(struct rt_imageplan_policy){
			.jumps = true }), all);
	TEST_EQ(rt_imageplan_jump_kinds(&(struct rt_imageplan_policy){
			.jumps = false }), 0);
	TEST_EQ(rt_imageplan_jump_kinds(&(struct rt_imageplan_policy){
			.jumps = true, .stack_depth = 4 }), 0);
	TEST_EQ(rt_imageplan_jump_kinds(&(struct rt_imageplan_policy){
			.jumps = true, .coverage = true }), 0);
	/* --count records entries only, which jumps do as well */
	TEST_EQ(rt_imageplan_jump_kinds(&(struct rt_imageplan_policy){
			.jumps = true, .count_only = true }), all);
	TEST_EQ(rt_imageplan_jump_kinds(&(struct rt_imageplan_policy){
			.jumps = true, .mem = true }), all);
}

TEST_CASE(roles_by_name_binding_and_options)
{
	struct rt_func malloc_fn = { .name = "malloc", .raw = "malloc",
				     .global = true };
	struct rt_func shim = { .name = "__rustc::__rust_alloc",
				.raw = "_RNvCs1_7___rustc12___rust_alloc",
				.global = true };
	struct rt_func not_shim = { .name = "my::x__rust_alloc",
				    .raw = "x", .global = true };
	struct rt_func sig = { .name = "sigaction", .raw = "sigaction",
			       .global = true };
	struct rt_func sig_local = { .name = "sigaction", .raw = "sigaction" };
	struct rt_func sleep_fn = { .name = "nanosleep", .raw = "nanosleep",
				    .global = true };
	struct rt_imageplan_policy none = { 0 }, mem = { .mem = true },
				   blk = { .blocking = true },
				   blk_count = { .blocking = true,
						 .count_only = true };

	TEST_EQ(rt_imageplan_role(&malloc_fn, &none, true), 0);
	TEST_EQ(rt_imageplan_role(&malloc_fn, &mem, true), RT_ROLE_ALLOC);
	TEST_EQ(rt_imageplan_role(&shim, &mem, false), RT_ROLE_ALLOC);
	TEST_EQ(rt_imageplan_role(&not_shim, &mem, false), 0);
	/* the signal calls are watched whatever the options */
	TEST_EQ(rt_imageplan_role(&sig, &none, false), RT_ROLE_SIGACTION);
	TEST_EQ(rt_imageplan_role(&sig_local, &none, true), 0);
	TEST_EQ(rt_imageplan_role(&sleep_fn, &blk, true), RT_ROLE_BLOCKING);
	TEST_EQ(rt_imageplan_role(&sleep_fn, &blk, false), 0);
	TEST_EQ(rt_imageplan_role(&sleep_fn, &none, true), 0);
	TEST_EQ(rt_imageplan_role(&sleep_fn, &blk_count, true), 0);
	TEST_TRUE(rt_imageplan_is_libc("/lib/x86_64-linux-gnu/libc.so.6"));
	TEST_TRUE(rt_imageplan_is_libc("libc-2.31.so"));
	TEST_TRUE(rt_imageplan_is_libc("/usr/lib/libpthread.so.0"));
	TEST_TRUE(!rt_imageplan_is_libc("/usr/lib/libcrypto.so.3"));
	TEST_TRUE(!rt_imageplan_is_libc("/opt/libc/app"));
}

TEST_CASE(plain_plan_has_the_signal_call_and_no_hook)
{
	struct rt_symbols *s = open_fake();
	struct rt_plan *p;

	TEST_TRUE(s != NULL);
	p = plan_of(s, &(struct rt_imageplan_policy){ .jumps = true }, 0);
	TEST_TRUE(p != NULL);
	TEST_EQ(rt_plan_func(p, 0)->fn->name[0], 'w');
	TEST_EQ(rt_plan_func(p, 0)->id, 1);
	TEST_TRUE(fake_plan_func(p, "sigaction") != NULL);
	TEST_EQ(fake_plan_func(p, "sigaction")->role, RT_ROLE_SIGACTION);
	/* a static program loads no libraries: no hook at its entry */
	TEST_TRUE(fake_plan_func(p, "_start") == NULL);
	TEST_TRUE(fake_plan_func(p, "malloc") == NULL);
	TEST_TRUE(fake_plan_func(p, "__rust_alloc") == NULL);
	TEST_EQ(fake_plan_func(p, "work")->nexit, 1);
	TEST_EQ(fake_plan_func(p, "tail")->ntail, 1);
	rt_plan_put(p);
	rt_symbols_free(s);
}

TEST_CASE(mem_adds_the_allocator_and_the_entry_hook)
{
	struct rt_symbols *s = open_fake();
	struct rt_plan *p;

	TEST_TRUE(s != NULL);
	p = plan_of(s, &(struct rt_imageplan_policy){ .jumps = true,
						       .mem = true }, 0);
	TEST_TRUE(p != NULL);
	TEST_EQ(fake_plan_func(p, "malloc")->role, RT_ROLE_ALLOC);
	TEST_EQ(fake_plan_func(p, "__rust_alloc")->role, RT_ROLE_ALLOC);
	TEST_EQ(fake_plan_func(p, "_start")->role, RT_ROLE_MODULES);
	TEST_STREQ(rt_imageplan_func_use(fake_plan_func(p, "_start")),
		   "library hook");
	TEST_STREQ(rt_imageplan_func_use(fake_plan_func(p, "malloc")),
		   "allocator");
	TEST_STREQ(rt_imageplan_func_use(fake_plan_func(p, "work")), "traced");
	/* the hook is an entry probe at the entry point */
	TEST_TRUE(rt_plan_lookup(p, BASE + 0x50) != NULL);
	TEST_EQ(rt_plan_lookup(p, BASE + 0x50)->kinds, RT_PROBE_ENTRY);
	rt_plan_put(p);
	rt_symbols_free(s);
}

/* Whether any site of function @name is patched with a jump. */
static bool any_jump(const struct rt_plan *p, const char *name)
{
	const struct rt_plan_func *pf = fake_plan_func(p, name);
	bool jump = false;

	for (size_t i = 0; pf && i < rt_plan_nprobes(p); i++)
		jump |= rt_plan_probe(p, i)->func == pf->id &&
			rt_probe_inline(rt_plan_probe(p, i));
	return jump;
}

TEST_CASE(jumps_only_where_the_policy_lets_them)
{
	struct rt_symbols *s = open_fake();
	const char *pat[] = { "work" };
	struct rt_matcher *m = NULL;
	struct rt_plan *p;

	TEST_TRUE(s != NULL);
	p = plan_of(s, &(struct rt_imageplan_policy){ .jumps = true }, 0);
	/* work's first three instructions are 5 bytes: room for a jump */
	TEST_TRUE(any_jump(p, "work"));
	rt_plan_put(p);
	p = plan_of(s, &(struct rt_imageplan_policy){ .jumps = false }, 0);
	TEST_TRUE(!any_jump(p, "work"));
	rt_plan_put(p);
	p = plan_of(s, &(struct rt_imageplan_policy){ .jumps = true,
						       .stack_depth = 8 }, 0);
	TEST_TRUE(!any_jump(p, "work"));
	rt_plan_put(p);
	TEST_EQ(rt_matcher_new(pat, 1, NULL, 0, &m), 0);
	p = plan_of(s, &(struct rt_imageplan_policy){ .jumps = true,
						       .stop_at = m }, 0);
	/* a function whose hits must stop keeps its breakpoints */
	TEST_TRUE(fake_plan_func(p, "work") != NULL);
	TEST_TRUE(!any_jump(p, "work"));
	TEST_TRUE(rt_plan_lookup(p, BASE) != NULL);
	rt_plan_put(p);
	rt_matcher_free(m);
	rt_symbols_free(s);
}

TEST_CASE(count_only_probes_entries_at_the_bias)
{
	struct rt_symbols *s = open_fake();
	const rt_raddr bias = 0x10000;
	struct rt_plan *p;

	TEST_TRUE(s != NULL);
	p = plan_of(s, &(struct rt_imageplan_policy){ .count_only = true },
		    bias);
	TEST_TRUE(p != NULL);
	TEST_TRUE(rt_plan_lookup(p, BASE + bias) != NULL);
	TEST_EQ(rt_plan_lookup(p, BASE + bias)->kinds, RT_PROBE_ENTRY);
	/* work's ret, at 0x401005, has no probe */
	TEST_TRUE(rt_plan_lookup(p, BASE + 5 + bias) == NULL);
	TEST_TRUE(rt_plan_lookup(p, BASE) == NULL);
	rt_plan_put(p);
	p = plan_of(s, &(struct rt_imageplan_policy){ 0 }, bias);
	TEST_TRUE(rt_plan_lookup(p, BASE + 5 + bias) != NULL);
	TEST_EQ(rt_plan_lookup(p, BASE + 5 + bias)->kinds, RT_PROBE_EXIT);
	rt_plan_put(p);
	rt_symbols_free(s);
}

TEST_CASE(dynamic_linker_hook)
{
	static const struct fake_sym ld_syms[] = {
		{ "_dl_debug_state", BASE, 6, false },
	};
	struct rt_symbols *ld = fake_elf_symbols(&(struct fake_elf){
		.base = BASE, .code = code, .len = sizeof(code),
		.syms = ld_syms, .nsyms = 1 });
	struct rt_symbols *s = open_fake();
	struct rt_plan *p = NULL;

	TEST_TRUE(ld != NULL && s != NULL);
	TEST_EQ(rt_imageplan_linker(ld, &(struct rt_imageplan_image){
			.bias = 0x1000, .first_id = 5 }, &p), 0);
	TEST_EQ(rt_plan_nfuncs(p), 1);
	TEST_EQ(rt_plan_func(p, 0)->id, 5);
	TEST_EQ(rt_plan_func(p, 0)->role, RT_ROLE_MODULES);
	TEST_EQ(rt_plan_nprobes(p), 1);
	TEST_EQ(rt_plan_probe(p, 0)->addr, BASE + 0x1000);
	TEST_EQ(rt_plan_probe(p, 0)->kinds, RT_PROBE_ENTRY);
	rt_plan_put(p);
	p = NULL;
	/* an image without the function has no hook */
	TEST_EQ(rt_imageplan_linker(s, &(struct rt_imageplan_image){ 0 }, &p),
		-ENOENT);
	TEST_TRUE(p == NULL);
	rt_symbols_free(ld);
	rt_symbols_free(s);
}
