/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_arch_resume_ip() on synthetic registers: every jcc condition both
 * ways (flags set by hand, then flags produced by a real cmp on this CPU
 * and judged by C's own comparisons), jumps through each register, direct
 * jumps and slots.  Also the register accessors of regs.c.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "rtrace/arch.h"
#include "rtrace/compiler.h"
#include "x86_64.h"
#include "unittest.h"

#define SITE 0x555555561000ULL
#define TARGET 0x555555562000ULL
#define NEXT (SITE + 6)

/* Bits of EFLAGS that no condition reads: bit 1 (always 1), AF, IF, DF. */
#define NOISE ((1u << 1) | (1u << 4) | (1u << 9) | (1u << 10))

static rt_raddr resume_jcc(unsigned cc, uint64_t flags, bool *taken)
{
	struct rt_resume res = {
		.kind = RT_RESUME_JCC,
		.arch.cond = cc,
		.target = TARGET,
		.next = NEXT,
	};
	struct rt_regs r;

	memset(&r, 0, sizeof(r));
	r.r.eflags = flags;
	return rt_arch_resume_ip(&res, &r, taken);
}

#define CF X64_FL_CF
#define PF X64_FL_PF
#define ZF X64_FL_ZF
#define SF X64_FL_SF
#define OF X64_FL_OF

/* Flag sets under which a condition holds, and under which it does not. */
static const struct {
	unsigned cc;
	uint32_t yes[4], no[4];
	unsigned nyes, nno;
} by_hand[] = {
	{ X64_CC_O, { OF }, { 0, CF | ZF | SF | PF }, 1, 2 },
	{ X64_CC_NO, { 0, CF | ZF | SF | PF }, { OF }, 2, 1 },
	{ X64_CC_B, { CF, CF | ZF }, { 0, ZF }, 2, 2 },
	{ X64_CC_AE, { 0, ZF }, { CF, CF | ZF }, 2, 2 },
	{ X64_CC_E, { ZF, ZF | CF }, { 0, CF | SF | OF }, 2, 2 },
	{ X64_CC_NE, { 0, CF | SF | OF }, { ZF, ZF | CF }, 2, 2 },
	{ X64_CC_BE, { CF, ZF, CF | ZF }, { 0, SF | OF | PF }, 3, 2 },
	{ X64_CC_A, { 0, SF | OF | PF }, { CF, ZF, CF | ZF }, 2, 3 },
	{ X64_CC_S, { SF, SF | OF }, { 0, OF | ZF }, 2, 2 },
	{ X64_CC_NS, { 0, OF | ZF }, { SF, SF | OF }, 2, 2 },
	{ X64_CC_P, { PF, PF | ZF }, { 0, ZF | CF }, 2, 2 },
	{ X64_CC_NP, { 0, ZF | CF }, { PF, PF | ZF }, 2, 2 },
	{ X64_CC_L, { SF, OF, SF | ZF }, { 0, SF | OF, ZF }, 3, 3 },
	{ X64_CC_GE, { 0, SF | OF, ZF }, { SF, OF, SF | ZF }, 3, 3 },
	{ X64_CC_LE, { ZF, SF, OF, ZF | SF | OF }, { 0, SF | OF, CF }, 4, 3 },
	{ X64_CC_G, { 0, SF | OF, CF }, { ZF, SF, OF, ZF | SF | OF }, 3, 4 },
};

TEST_CASE(jcc_all_conditions_by_hand)
{
	bool taken;

	TEST_EQ(ARRAY_SIZE(by_hand), 16);
	for (size_t i = 0; i < ARRAY_SIZE(by_hand); i++) {
		unsigned cc = by_hand[i].cc;

		for (unsigned k = 0; k < by_hand[i].nyes; k++) {
			uint64_t fl = by_hand[i].yes[k] | NOISE;

			taken = false;
			TEST_EQ(resume_jcc(cc, fl, &taken), TARGET);
			TEST_TRUE(taken);
		}
		for (unsigned k = 0; k < by_hand[i].nno; k++) {
			uint64_t fl = by_hand[i].no[k] | NOISE;

			taken = true;
			TEST_EQ(resume_jcc(cc, fl, &taken), NEXT);
			TEST_TRUE(!taken);
		}
	}
}

/* EFLAGS after this CPU executes cmp %b,%a. */
static uint64_t cmp_flags(uint64_t a, uint64_t b)
{
	uint64_t fl;

	__asm__ volatile("cmp %2, %1\n\tpushfq\n\tpopq %0"
			 : "=r"(fl)
			 : "r"(a), "r"(b)
			 : "cc");
	return fl;
}

/* What each condition means after cmp b,a, in C. */
static bool c_meaning(unsigned cc, uint64_t a, uint64_t b)
{
	int64_t sa = (int64_t)a, sb = (int64_t)b, diff;
	bool ovf = __builtin_sub_overflow(sa, sb, &diff);
	bool base;

	switch (cc & ~1u) {
	case X64_CC_O:
		base = ovf;
		break;
	case X64_CC_B:
		base = a < b;
		break;
	case X64_CC_E:
		base = a == b;
		break;
	case X64_CC_BE:
		base = a <= b;
		break;
	case X64_CC_S:
		base = (int64_t)(a - b) < 0;
		break;
	case X64_CC_P:
		base = !__builtin_parity((uint8_t)(a - b));
		break;
	case X64_CC_L:
		base = sa < sb;
		break;
	default:
		base = sa <= sb;
		break;
	}
	return (cc & 1) ? !base : base;
}

TEST_CASE(jcc_all_conditions_after_real_cmp)
{
	static const uint64_t vals[] = {
		0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, 0x8000000000000001ULL, -2ULL, -1ULL,
	};
	unsigned seen[16][2] = { { 0 } };

	for (size_t i = 0; i < ARRAY_SIZE(vals); i++) {
		for (size_t j = 0; j < ARRAY_SIZE(vals); j++) {
			uint64_t fl = cmp_flags(vals[i], vals[j]);

			for (unsigned cc = 0; cc < 16; cc++) {
				bool want = c_meaning(cc, vals[i], vals[j]);
				bool taken = !want;
				rt_raddr ip = resume_jcc(cc, fl, &taken);

				TEST_EQ(taken, want);
				TEST_EQ(ip, want ? TARGET : NEXT);
				seen[cc][want]++;
			}
		}
	}
	/* every condition was seen both taken and not taken */
	for (unsigned cc = 0; cc < 16; cc++) {
		TEST_NE(seen[cc][0], 0);
		TEST_NE(seen[cc][1], 0);
	}
}

/* Plans the instruction @code as a probe site at SITE. */
static enum rt_refusal plan(const uint8_t *code, size_t len,
			    struct rt_resume *res)
{
	uint8_t slot[RT_ARCH_SLOT_MAX];
	rt_insn_vec v = { 0 };
	enum rt_refusal why = RT_REFUSE_UNDECODABLE;

	if (rt_arch_decode(code, len, SITE, &v) == 0 && v.n == 1)
		why = rt_arch_plan_resume(&v.v[0], SITE + 0x10000, slot, res);
	vec_free(&v);
	return why;
}

TEST_CASE(jcc_planned_from_bytes)
{
	static const uint8_t jl[] = { 0x7c, 0x10 };
	struct rt_resume res;
	struct rt_regs r;
	bool taken;

	memset(&r, 0, sizeof(r));
	TEST_EQ(plan(jl, sizeof(jl), &res), RT_REFUSE_NONE);
	r.r.eflags = SF | NOISE;
	TEST_EQ(rt_arch_resume_ip(&res, &r, &taken), SITE + 2 + 0x10);
	TEST_TRUE(taken);
	r.r.eflags = SF | OF | NOISE;
	TEST_EQ(rt_arch_resume_ip(&res, &r, &taken), SITE + 2);
	TEST_TRUE(!taken);
}

TEST_CASE(jmp_through_each_register)
{
	struct rt_regs r;
	/* hardware register order, filled by name */
	unsigned long long *by_number[16] = {
		&r.r.rax, &r.r.rcx, &r.r.rdx, &r.r.rbx,
		&r.r.rsp, &r.r.rbp, &r.r.rsi, &r.r.rdi,
		&r.r.r8, &r.r.r9, &r.r.r10, &r.r.r11,
		&r.r.r12, &r.r.r13, &r.r.r14, &r.r.r15,
	};

	memset(&r, 0, sizeof(r));
	for (unsigned n = 0; n < 16; n++)
		*by_number[n] = 0x7f0000001000ULL + n * 0x111;
	r.r.rip = SITE + 1;
	for (unsigned n = 0; n < 16; n++) {
		/* jmp *%reg: [REX.B] ff /4 with mod 11 */
		uint8_t code[3] = { 0x41, 0xff, 0xe0 | (n & 7) };
		size_t off = n < 8 ? 1 : 0;
		struct rt_resume res;
		bool taken = false;

		TEST_EQ(plan(code + off, sizeof(code) - off, &res),
			RT_REFUSE_NONE);
		TEST_EQ(res.kind, RT_RESUME_JMP_REG);
		TEST_EQ(rt_arch_resume_ip(&res, &r, &taken), *by_number[n]);
		TEST_TRUE(taken);
	}
}

TEST_CASE(direct_jmp_and_slot)
{
	static const uint8_t jmp[] = { 0xe9, 0x00, 0x10, 0x00, 0x00 };
	static const uint8_t lea[] = { 0x48, 0x8d, 0x05, 0x10, 0, 0, 0 };
	struct rt_resume res;
	struct rt_regs r;
	bool taken;

	memset(&r, 0, sizeof(r));
	r.r.rax = 0xdead;
	TEST_EQ(plan(jmp, sizeof(jmp), &res), RT_REFUSE_NONE);
	taken = false;
	TEST_EQ(rt_arch_resume_ip(&res, &r, &taken), SITE + 5 + 0x1000);
	TEST_TRUE(taken);
	TEST_EQ(plan(lea, sizeof(lea), &res), RT_REFUSE_NONE);
	TEST_EQ(res.kind, RT_RESUME_SLOT);
	taken = true;
	TEST_EQ(rt_arch_resume_ip(&res, &r, &taken), SITE + 0x10000);
	TEST_TRUE(!taken);
}

TEST_CASE(regs_accessors)
{
	static const char *const names[] = {
		"rdi", "rsi", "rdx", "rcx", "r8", "r9",
	};
	const uint8_t *code;
	struct rt_regs r;
	size_t len;

	memset(&r, 0, sizeof(r));
	r.r.rip = SITE + 1;
	r.r.rsp = 0x7ffffffde000ULL;
	r.r.rax = 42;
	r.r.fs_base = 0x7ffff7d8a740ULL;
	r.r.rdi = 1, r.r.rsi = 2, r.r.rdx = 3, r.r.rcx = 4, r.r.r8 = 5;
	r.r.r9 = 6;
	code = rt_arch_trap_bytes(&len);
	TEST_EQ(len, 1);
	TEST_EQ(code[0], 0x06);  /* a fault: ip stays on it */
	TEST_TRUE(!rt_arch_trap_resolve(&r, SIGTRAP));  /* past an int3 */
	TEST_EQ(rt_arch_trap_site(&r), SITE);
	TEST_EQ(rt_arch_ip(&r), SITE + 1);
	r.r.rip = SITE;
	TEST_TRUE(rt_arch_trap_resolve(&r, SIGILL));
	TEST_EQ(rt_arch_trap_site(&r), SITE);
	TEST_EQ(rt_arch_ip(&r), SITE + 1);
	TEST_EQ(rt_arch_sp(&r), 0x7ffffffde000ULL);
	TEST_EQ(rt_arch_retval(&r), 42);
	TEST_EQ(rt_arch_thread_pointer(&r), 0x7ffff7d8a740ULL);
	for (unsigned n = 0; n < 6; n++) {
		TEST_EQ(rt_arch_arg(&r, n), n + 1);
		TEST_STREQ(rt_arch_arg_name(n), names[n]);
	}
	TEST_EQ(rt_arch_arg(&r, 6), 0);
	TEST_TRUE(rt_arch_arg_name(6) != NULL);
	rt_arch_set_ip(&r, TARGET);
	TEST_EQ(r.r.rip, TARGET);
}

TEST_CASE(remote_syscall_and_helper_code)
{
	static const uint64_t args[6] = { 11, 22, 33, 44, 55, 66 };
	const uint8_t *code;
	struct rt_regs r;
	size_t len;

	memset(&r, 0xa5, sizeof(r));
	rt_arch_syscall_setup(&r, TARGET, 9, args);
	TEST_EQ(r.r.rax, 9);
	TEST_EQ(r.r.rdi, 11);
	TEST_EQ(r.r.rsi, 22);
	TEST_EQ(r.r.rdx, 33);
	TEST_EQ(r.r.r10, 44);
	TEST_EQ(r.r.r8, 55);
	TEST_EQ(r.r.r9, 66);
	TEST_EQ(r.r.rip, TARGET);
	TEST_EQ(r.r.orig_rax, -1);
	r.r.rax = (unsigned long long)-12;
	TEST_EQ(rt_arch_syscall_result(&r), -12);
	code = rt_arch_syscall_code(&len);
	TEST_EQ(len, 3);
	TEST_MEMEQ(code, "\x0f\x05\x06", 3);
	code = rt_arch_trap_ret_code(&len);
	TEST_EQ(len, 2);
	TEST_MEMEQ(code, "\x06\xc3", 2);
	code = rt_arch_ret_code(&len);
	TEST_EQ(len, 1);
	TEST_EQ(code[0], 0xc3);
}

/* A remote call's data goes below the red zone, aligned; an interrupted
 * system call is told by its orig_rax and an -ERESTART* result. */
TEST_CASE(remote_stack_data_and_restarts)
{
	struct rt_regs r;

	memset(&r, 0, sizeof(r));
	r.r.rsp = 0x7ffc0000100f;
	TEST_EQ(rt_arch_stack_scratch(&r, 32), 0x7ffc0000100f - 128 - 32 - 15);
	TEST_TRUE(rt_arch_stack_scratch(&r, 32) + 32 <= r.r.rsp - 128);
	r.r.orig_rax = (unsigned long long)-1;  /* not in a system call */
	r.r.rax = (unsigned long long)-512;
	TEST_TRUE(!rt_arch_syscall_restarts(&r));
	r.r.orig_rax = 0;  /* read(2), cut short */
	TEST_TRUE(rt_arch_syscall_restarts(&r));
	r.r.rax = (unsigned long long)-516;
	TEST_TRUE(rt_arch_syscall_restarts(&r));
	r.r.rax = (unsigned long long)-4;  /* EINTR: the program sees it */
	TEST_TRUE(!rt_arch_syscall_restarts(&r));
	r.r.rax = 0;
	TEST_TRUE(!rt_arch_syscall_restarts(&r));
}
