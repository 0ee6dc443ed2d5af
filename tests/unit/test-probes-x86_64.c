// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sites rt_plan_new() finds (probes.c) in a synthetic executable of
 * hand-assembled functions: entries, returns, tail jumps (conditional and
 * not, to traced and untraced functions), a function that is a single
 * ret, the functions it refuses and why, and the sites of a function
 * whose every hit must stop.
 */
#include <stdlib.h>
#include <unistd.h>

#include "rtrace/probes.h"
#include "fakeelf.h"
#include "unittest.h"

#define BASE 0x402000ULL

/*   two_rets 0x402000: test %edi,%edi; je 0x402005; ret; ret
 *   tailer   0x402010: test %edi,%edi; jne two_rets; jmp untraced
 *   trapped  0x402020: int3; ret
 *   leaf     0x402030: ret
 *   garbage  0x402040: (06: no instruction in 64-bit mode); ret
 *   looper   0x402050: jrcxz .+0; ret
 *   untraced 0x402060: nop; ret
 *   ghost    0x403000: past the code */
static const uint8_t code[] = {
	0x85, 0xff, 0x74, 0x01, 0xc3, 0xc3, 0xcc, 0xcc,
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0x85, 0xff, 0x0f, 0x85, 0xe8, 0xff, 0xff, 0xff,  /* 0x402018-0x18 */
	0xe9, 0x43, 0x00, 0x00, 0x00, 0xcc, 0xcc, 0xcc,  /* 0x40201d+0x43 */
	0xcc, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0x06, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xe3, 0x00, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	0x90, 0xc3,
};

static const struct fake_sym syms[] = {
	{ "two_rets", BASE, 6, false },
	{ "tailer", BASE + 0x10, 13, false },
	{ "trapped", BASE + 0x20, 2, false },
	{ "leaf", BASE + 0x30, 1, false },
	{ "garbage", BASE + 0x40, 2, false },
	{ "looper", BASE + 0x50, 3, false },
	{ "untraced", BASE + 0x60, 2, false },
	{ "ghost", BASE + 0x1000, 4, false },
};

static struct rt_symbols *open_fake(void)
{
	return fake_elf_symbols(&(struct fake_elf){
		.base = BASE, .code = code, .len = sizeof(code),
		.syms = syms, .nsyms = sizeof(syms) / sizeof(syms[0]) });
}

static const char *const selected[] = { "two_rets", "tailer", "trapped",
					"leaf", "garbage", "looper",
					"ghost" };

static bool stop_two_rets(void *ctx, const struct rt_func *fn)
{
	(void)ctx;
	return !strcmp(fn->name, "two_rets");
}

static struct rt_plan *plan_of(struct rt_symbols *s, unsigned inline_kinds,
			       bool must_stop)
{
	size_t idx[7];
	struct rt_plan *p = NULL;

	for (size_t i = 0; i < 7; i++)
		idx[i] = rt_symbols_find(s, selected[i]);
	if (rt_plan_new(s, &(struct rt_plan_request){
				.idx = idx, .n = 7, .first_id = 10,
				.inline_kinds = inline_kinds,
				.must_stop = must_stop ? stop_two_rets : NULL },
			&p))
		return NULL;
	return p;
}

static unsigned kinds_at(const struct rt_plan *p, rt_raddr addr)
{
	const struct rt_probe *pr = rt_plan_lookup(p, addr);

	return pr ? pr->kinds : 0;
}

TEST_CASE(entries_returns_and_tail_jumps)
{
	struct rt_symbols *s = open_fake();
	struct rt_plan *p;

	TEST_TRUE(s != NULL);
	p = plan_of(s, 0, false);
	TEST_TRUE(p != NULL);
	TEST_EQ(rt_plan_func(p, 0)->id, 10);
	TEST_EQ(fake_plan_func(p, "two_rets")->nexit, 2);
	TEST_EQ(fake_plan_func(p, "two_rets")->ntail, 0);
	TEST_EQ(kinds_at(p, BASE), RT_PROBE_ENTRY);
	TEST_EQ(kinds_at(p, BASE + 4), RT_PROBE_EXIT);
	TEST_EQ(kinds_at(p, BASE + 5), RT_PROBE_EXIT);
	/* the conditional jump to two_rets and the jump to untraced */
	TEST_EQ(fake_plan_func(p, "tailer")->nexit, 0);
	TEST_EQ(fake_plan_func(p, "tailer")->ntail, 2);
	TEST_EQ(kinds_at(p, BASE + 0x12), RT_PROBE_TAIL);
	TEST_EQ(kinds_at(p, BASE + 0x18), RT_PROBE_TAIL);
	/* a single ret is entry and exit at one address */
	TEST_EQ(kinds_at(p, BASE + 0x30), RT_PROBE_ENTRY | RT_PROBE_EXIT);
	rt_plan_put(p);
	rt_symbols_free(s);
}

TEST_CASE(untraced_tail_target_is_a_helper)
{
	struct rt_symbols *s = open_fake();
	struct rt_plan *p;
	const struct rt_plan_func *h;

	TEST_TRUE(s != NULL);
	p = plan_of(s, 0, false);
	h = fake_plan_func(p, "untraced");
	TEST_TRUE(h != NULL);
	TEST_TRUE(h->helper);
	TEST_TRUE(h->id >= 10 + 7);
	/* its return ends the frame that jumped there; no entry probe */
	TEST_TRUE(kinds_at(p, BASE + 0x61) & RT_PROBE_HELPER);
	TEST_EQ(kinds_at(p, BASE + 0x60), 0);
	rt_plan_put(p);
	rt_symbols_free(s);
}

TEST_CASE(refusals_say_why)
{
	struct rt_symbols *s = open_fake();
	struct rt_plan *p;

	TEST_TRUE(s != NULL);
	p = plan_of(s, 0, false);
	TEST_EQ(fake_plan_func(p, "trapped")->why, RT_REFUSE_TRAP_SITE);
	TEST_EQ(fake_plan_func(p, "garbage")->why, RT_REFUSE_UNDECODABLE);
	TEST_EQ(fake_plan_func(p, "looper")->why, RT_REFUSE_BRANCH_OTHER);
	TEST_EQ(fake_plan_func(p, "ghost")->why, RT_REFUSE_NO_CODE);
	TEST_EQ(fake_plan_func(p, "two_rets")->why, RT_REFUSE_NONE);
	/* a refused function has no probe at all */
	TEST_EQ(kinds_at(p, BASE + 0x20), 0);
	TEST_EQ(kinds_at(p, BASE + 0x21), 0);
	TEST_EQ(kinds_at(p, BASE + 0x52), 0);
	rt_plan_put(p);
	rt_symbols_free(s);
}

TEST_CASE(must_stop_keeps_breakpoints)
{
	struct rt_symbols *s = open_fake();
	const unsigned all = RT_PROBE_ENTRY | RT_PROBE_EXIT | RT_PROBE_TAIL;
	struct rt_plan *p;
	size_t n = 0;

	TEST_TRUE(s != NULL);
	p = plan_of(s, all, true);
	TEST_TRUE(p != NULL);
	for (size_t i = 0; i < rt_plan_nprobes(p); i++) {
		const struct rt_probe *pr = rt_plan_probe(p, i);

		if (pr->func != fake_plan_func(p, "two_rets")->id)
			continue;
		TEST_TRUE(!rt_probe_inline(pr));
		TEST_EQ(pr->inline_why, RT_INLINE_ROLE);
		n++;
	}
	TEST_EQ(n, 3);  /* its entry and both returns */
	rt_plan_put(p);
	/* the breakpoint engine patches nothing, and says so */
	p = plan_of(s, 0, false);
	TEST_TRUE(!rt_probe_inline(rt_plan_lookup(p, BASE)));
	TEST_EQ(rt_plan_lookup(p, BASE)->inline_why, RT_INLINE_OFF);
	rt_plan_put(p);
	rt_symbols_free(s);
}
