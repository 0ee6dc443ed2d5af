// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rt_arch_run_saves() on prologues as rustc 1.95 writes them (bytes from
 * the values fixture, objdump -d): what each store puts where follows from
 * the instructions' meaning, worked out by hand in the comments.
 */
#include <stdint.h>
#include <string.h>

#include "rtrace/arch.h"
#include "rtrace/compiler.h"
#include "unittest.h"

#define SP 0x7ffe0000ULL
#define IP 0x555555561000ULL

static void regs_at_entry(struct rt_regs *r)
{
	memset(r, 0, sizeof(*r));
	r->r.rsp = SP;
	r->r.rip = IP;
	r->r.rdi = 0x1122334455667701ULL;   /* true in dil */
	r->r.rsi = 0xaabbccddeeff0000ULL;   /* false in sil */
	r->r.rdx = 0xffffffff00000078ULL;   /* 'x' in edx */
	r->r.rcx = 0x00000000000000e9ULL;   /* 'é' in ecx */
	r->r.rax = 0xdeadbeefdeadbeefULL;
}

/* -O0, flags(yes: bool, no: bool, c: char, e: char): the booleans pass
 * through al and sil, masked with 1, before their stores. */
TEST_CASE(unoptimised_bools_and_chars)
{
	static const uint8_t code[] = {
		0x48, 0x81, 0xec, 0x18, 0x01, 0x00, 0x00, /* sub $0x118,%rsp */
		0x40, 0x88, 0xf0,                   /* mov %sil,%al */
		0x40, 0x88, 0xfe,                   /* mov %dil,%sil */
		0x40, 0x80, 0xe6, 0x01,             /* and $0x1,%sil */
		0x40, 0x88, 0x74, 0x24, 0x02,       /* mov %sil,0x2(%rsp) */
		0x24, 0x01,                         /* and $0x1,%al */
		0x88, 0x44, 0x24, 0x03,             /* mov %al,0x3(%rsp) */
		0x89, 0x54, 0x24, 0x04,             /* mov %edx,0x4(%rsp) */
		0x89, 0x4c, 0x24, 0x08,             /* mov %ecx,0x8(%rsp) */
		0xc3,                               /* ret: ends */
	};
	struct rt_spill s[8];
	struct rt_regs r;
	size_t n;

	regs_at_entry(&r);
	n = rt_arch_run_saves(code, sizeof(code), &r, NULL, s, ARRAY_SIZE(s));
	TEST_EQ(n, 4);
	TEST_EQ(r.r.rsp, SP - 0x118);
	TEST_EQ(r.r.rip, IP + 36);          /* at the ret */
	TEST_EQ(s[0].addr, SP - 0x118 + 2);
	TEST_EQ(s[0].len, 1);
	TEST_EQ(s[0].value & 0xff, 1);      /* dil & 1 */
	TEST_EQ(s[1].addr, SP - 0x118 + 3);
	TEST_EQ(s[1].value & 0xff, 0);      /* sil & 1 */
	TEST_EQ(s[2].len, 4);
	TEST_EQ(s[2].value & 0xffffffff, 0x78);
	TEST_EQ(s[3].addr, SP - 0x118 + 8);
	TEST_EQ(s[3].value & 0xffffffff, 0xe9);
}

/* -O0, shapes(a: Shape, ...): a stored, reloaded into rax, stored again;
 * the reload is of what the run stored, so rax is known. */
TEST_CASE(unoptimised_reload)
{
	static const uint8_t code[] = {
		0x48, 0x81, 0xec, 0x48, 0x01, 0x00, 0x00, /* sub $0x148,%rsp */
		0x48, 0x89, 0x7c, 0x24, 0x10,       /* mov %rdi,0x10(%rsp) */
		0x48, 0x8b, 0x44, 0x24, 0x10,       /* mov 0x10(%rsp),%rax */
		0x48, 0x89, 0x44, 0x24, 0x08,       /* mov %rax,0x8(%rsp) */
		0x48, 0x8b, 0x44, 0x24, 0x40,       /* mov 0x40(%rsp),%rax: not
						     * stored by the run */
		0x48, 0x89, 0x44, 0x24, 0x18,       /* mov %rax,0x18(%rsp):
						     * ends, rax unknown */
	};
	struct rt_spill s[8];
	struct rt_regs r;
	size_t n;

	regs_at_entry(&r);
	n = rt_arch_run_saves(code, sizeof(code), &r, NULL, s, ARRAY_SIZE(s));
	TEST_EQ(n, 2);
	TEST_EQ(s[1].addr, SP - 0x148 + 8);
	TEST_EQ(s[1].value, 0x1122334455667701ULL);
	TEST_EQ(r.r.rip, IP + 27);
	/* a register it lost track of keeps its value at the entry */
	TEST_EQ(r.r.rax, 0xdeadbeefdeadbeefULL);
}

/* -O3: callee-saved pushes, then an argument stored. */
TEST_CASE(optimised_pushes)
{
	static const uint8_t code[] = {
		0x55,                               /* push %rbp */
		0x41, 0x57,                         /* push %r15 */
		0x53,                               /* push %rbx */
		0x48, 0x81, 0xec, 0x88, 0x01, 0x00, 0x00, /* sub $0x188,%rsp */
		0x40, 0x88, 0x7c, 0x24, 0x0e,       /* mov %dil,0xe(%rsp) */
		0xc3,                               /* ret: ends */
	};
	struct rt_spill s[8];
	struct rt_regs r;
	size_t n;

	regs_at_entry(&r);
	r.r.r15 = 15;
	n = rt_arch_run_saves(code, sizeof(code), &r, NULL, s, ARRAY_SIZE(s));
	TEST_EQ(n, 4);
	TEST_EQ(s[1].addr, SP - 16);
	TEST_EQ(s[1].value, 15);
	TEST_EQ(r.r.rsp, SP - 24 - 0x188);
	TEST_EQ(s[3].addr, SP - 24 - 0x188 + 0xe);
	TEST_EQ(s[3].len, 1);
	TEST_EQ(r.r.rip, IP + 16);
}

/* -O0, big(n, label) with a 64 KiB frame: the prologue probes the stack
 * page by page in a loop (16 passes, each storing a zero at the new
 * top), then stores the arguments. */
static const uint8_t big_prologue[] = {
	0x49, 0x89, 0xe3,                   /* mov %rsp,%r11 */
	0x49, 0x81, 0xeb, 0x00, 0x00, 0x01, 0x00, /* sub $0x10000,%r11 */
	0x48, 0x81, 0xec, 0x00, 0x10, 0x00, 0x00, /* 1: sub $0x1000,%rsp */
	0x48, 0xc7, 0x04, 0x24, 0, 0, 0, 0, /* movq $0,(%rsp) */
	0x4c, 0x39, 0xdc,                   /* cmp %r11,%rsp */
	0x75, 0xec,                         /* jne 1b */
	0x48, 0x81, 0xec, 0xb8, 0x00, 0x00, 0x00, /* sub $0xb8,%rsp */
	0x48, 0x89, 0x7c, 0x24, 0x18,       /* mov %rdi,0x18(%rsp) */
	0xc3,                               /* ret: ends */
};

TEST_CASE(stack_probe_loop)
{
	struct rt_spill s[32];
	struct rt_regs r;
	size_t n;

	regs_at_entry(&r);
	n = rt_arch_run_saves(big_prologue, sizeof(big_prologue), &r, NULL, s,
			      ARRAY_SIZE(s));
	TEST_EQ(n, 17);                     /* 16 probes, then rdi */
	TEST_EQ(s[15].addr, SP - 0x10000);
	TEST_EQ(r.r.rsp, SP - 0x10000 - 0xb8);
	TEST_EQ(s[16].addr, SP - 0x10000 - 0xb8 + 0x18);
	TEST_EQ(s[16].value, 0x1122334455667701ULL);
	TEST_EQ(r.r.rip, IP + 42);
}

/* The same with room for 4 stores: the run ends at the fifth probe, the
 * stack pointer where its sub left it, the arguments not stored. */
TEST_CASE(stack_probe_loop_too_long)
{
	struct rt_spill s[4];
	struct rt_regs r;

	regs_at_entry(&r);
	TEST_EQ(rt_arch_run_saves(big_prologue, sizeof(big_prologue), &r, NULL, s,
				  ARRAY_SIZE(s)), 4);
	TEST_EQ(r.r.rip, IP + 17);          /* the fifth store, not run */
	TEST_EQ(r.r.rsp, SP - 5 * 0x1000);
}

/* -O3, refs: a lea of a stack slot and one of the code's neighbourhood
 * (rip-relative: the next instruction's address plus the displacement). */
TEST_CASE(lea_of_stack_and_code)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0x7c, 0x24, 0x40,       /* mov %rdi,0x40(%rsp) */
		0x4c, 0x8d, 0x7c, 0x24, 0x40,       /* lea 0x40(%rsp),%r15 */
		0x4c, 0x89, 0x7c, 0x24, 0x08,       /* mov %r15,0x8(%rsp) */
		0x48, 0x8d, 0x05, 0x2a, 0x19, 0, 0, /* lea 0x192a(%rip),%rax */
		0x48, 0x89, 0x44, 0x24, 0x10,       /* mov %rax,0x10(%rsp) */
		0xe8, 0, 0, 0, 0,                   /* call: ends */
	};
	struct rt_spill s[8];
	struct rt_regs r;

	regs_at_entry(&r);
	TEST_EQ(rt_arch_run_saves(code, sizeof(code), &r, NULL, s,
				  ARRAY_SIZE(s)), 3);
	TEST_EQ(s[1].value, SP + 0x40);
	TEST_EQ(s[2].value, IP + 22 + 0x192a);
	TEST_EQ(r.r.rip, IP + 27);
}

/* -O0, floats(a: f32, b: f64, ...): movss and movsd spill the low 4 and
 * 8 bytes of xmm0 and xmm1; without the float registers the run stops at
 * the first of them. */
TEST_CASE(unoptimised_floats)
{
	static const uint8_t code[] = {
		0x48, 0x81, 0xec, 0x78, 0x01, 0, 0, /* sub $0x178,%rsp */
		0xf3, 0x0f, 0x11, 0x44, 0x24, 0x0c, /* movss %xmm0,0xc(%rsp) */
		0xf2, 0x0f, 0x11, 0x4c, 0x24, 0x10, /* movsd %xmm1,0x10(%rsp) */
		0xe8, 0, 0, 0, 0,                   /* call: ends */
	};
	float a = 1.5f;
	double b = -2.25;
	struct rt_fpregs fp;
	struct rt_spill s[8];
	struct rt_regs r;
	uint8_t x[16];

	memset(&fp, 0xee, sizeof(fp));
	memcpy(fp.f.xmm_space, &a, sizeof(a));          /* xmm0 */
	memcpy((uint8_t *)fp.f.xmm_space + 16, &b, sizeof(b));  /* xmm1 */
	TEST_EQ(rt_arch_dwarf_vreg(&fp, 17, x, sizeof(x)), 16);
	TEST_TRUE(memcmp(x, &a, sizeof(a)) == 0);
	TEST_EQ(rt_arch_dwarf_vreg(&fp, 16, x, sizeof(x)), 0);  /* rip */
	TEST_EQ(rt_arch_dwarf_float_ret(), 17);
	regs_at_entry(&r);
	TEST_EQ(rt_arch_run_saves(code, sizeof(code), &r, &fp, s,
				  ARRAY_SIZE(s)), 2);
	TEST_EQ(s[0].addr, SP - 0x178 + 0xc);
	TEST_EQ(s[0].len, 4);
	TEST_TRUE(memcmp(&s[0].value, &a, sizeof(a)) == 0);
	TEST_EQ(s[1].addr, SP - 0x178 + 0x10);
	TEST_EQ(s[1].len, 8);
	TEST_TRUE(memcmp(&s[1].value, &b, sizeof(b)) == 0);
	TEST_EQ(r.r.rip, IP + 19);
	regs_at_entry(&r);
	TEST_EQ(rt_arch_run_saves(code, sizeof(code), &r, NULL, s,
				  ARRAY_SIZE(s)), 0);
	TEST_EQ(r.r.rip, IP + 7);
}
