/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_arch_decode() on raw x86-64 bytes: class, length, branch target and
 * the encoding offsets the slot builder relies on.  Expected targets are
 * computed from the encoding (address + length + rel), not taken from a
 * disassembler.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "rtrace/arch.h"
#include "x86_64.h"
#include "unittest.h"

#define AT 0x555555561000ULL

/* Decodes @n bytes at AT; *one gets the first instruction. */
static int decode(const uint8_t *code, size_t n, struct rt_insn *one,
		  size_t *count)
{
	rt_insn_vec v = { 0 };
	int err = rt_arch_decode(code, n, AT, &v);

	memset(one, 0, sizeof(*one));
	if (v.n)
		*one = v.v[0];
	*count = v.n;
	vec_free(&v);
	return err;
}

/* Decodes exactly one instruction of @bytes; fails the case otherwise. */
#define DECODE1(in, ...)                                                       \
	do {                                                                   \
		static const uint8_t c__[] = { __VA_ARGS__ };                  \
		size_t k__;                                                    \
		TEST_EQ(decode(c__, sizeof(c__), &(in), &k__), 0);             \
		TEST_EQ(k__, 1);                                               \
		TEST_EQ((in).len, sizeof(c__));                                \
		TEST_EQ((in).addr, AT);                                        \
		TEST_MEMEQ((in).bytes, c__, sizeof(c__));                      \
	} while (0)

TEST_CASE(ret)
{
	struct rt_insn in;

	DECODE1(in, 0xc3);
	TEST_EQ(in.cls, RT_INSN_RET);
	TEST_EQ(in.target, 0);
	DECODE1(in, 0xc2, 0x08, 0x00);          /* ret $8 */
	TEST_EQ(in.cls, RT_INSN_RET);
	DECODE1(in, 0xf3, 0xc3);                /* repz ret */
	TEST_EQ(in.cls, RT_INSN_RET);
	DECODE1(in, 0xf2, 0xc3);                /* bnd ret */
	TEST_EQ(in.cls, RT_INSN_RET);
}

TEST_CASE(jmp_direct)
{
	struct rt_insn in;

	DECODE1(in, 0xeb, 0x05);
	TEST_EQ(in.cls, RT_INSN_JMP);
	TEST_EQ(in.target, AT + 2 + 5);
	DECODE1(in, 0xeb, 0xfe);                /* jmp . */
	TEST_EQ(in.target, AT);
	DECODE1(in, 0xe9, 0x00, 0x01, 0x00, 0x00);
	TEST_EQ(in.cls, RT_INSN_JMP);
	TEST_EQ(in.target, AT + 5 + 0x100);
	DECODE1(in, 0xe9, 0x00, 0x00, 0x00, 0x80);
	TEST_EQ(in.target, AT + 5 - 0x80000000ULL);
	DECODE1(in, 0xf2, 0xe9, 0x10, 0x00, 0x00, 0x00);        /* bnd jmp */
	TEST_EQ(in.cls, RT_INSN_JMP);
	TEST_EQ(in.target, AT + 6 + 0x10);
	TEST_EQ(in.arch.disp_off, 0);
	/* data16 rex.W jmp rel32: REX.W wins, the target is not cut to 16
	 * bits (capstone 4 cuts it; found by tests/fuzz) */
	DECODE1(in, 0x66, 0x48, 0xe9, 0x00, 0x01, 0x00, 0x00);
	TEST_EQ(in.cls, RT_INSN_JMP);
	TEST_EQ(in.target, AT + 7 + 0x100);
	/* a REX that does not precede the opcode is ignored: rel8 */
	DECODE1(in, 0x49, 0x66, 0x48, 0x76, 0x76);             /* jbe */
	TEST_EQ(in.cls, RT_INSN_JCC);
	TEST_EQ(in.target, AT + 5 + 0x76);
}

TEST_CASE(opsize_prefixed_branches_refused)
{
	struct rt_insn in;

	/* 66 e9: rel16 on AMD, rel32 on Intel; not displaceable */
	DECODE1(in, 0x66, 0xe9, 0x00, 0x01);
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	DECODE1(in, 0x66, 0x0f, 0x84, 0x00, 0x01);
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	DECODE1(in, 0x66, 0xe8, 0x00, 0x01);
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	DECODE1(in, 0x66, 0xff, 0xd0);          /* data16 call *%rax */
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	DECODE1(in, 0x66, 0xff, 0xe0);          /* data16 jmp *%rax */
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
}

TEST_CASE(jcc_rel8_all_conditions)
{
	for (unsigned cc = 0; cc < 16; cc++) {
		uint8_t code[] = { 0x70 + cc, 0x10 };
		struct rt_insn in;
		size_t n;

		TEST_EQ(decode(code, sizeof(code), &in, &n), 0);
		TEST_EQ(n, 1);
		TEST_EQ(in.cls, RT_INSN_JCC);
		TEST_EQ(in.arch.cond, cc);
		TEST_EQ(in.len, 2);
		TEST_EQ(in.target, AT + 2 + 0x10);
	}
}

TEST_CASE(jcc_rel32_all_conditions)
{
	for (unsigned cc = 0; cc < 16; cc++) {
		uint8_t code[] = { 0x0f, 0x80 + cc, 0xf0, 0xff, 0xff, 0xff };
		struct rt_insn in;
		size_t n;

		TEST_EQ(decode(code, sizeof(code), &in, &n), 0);
		TEST_EQ(n, 1);
		TEST_EQ(in.cls, RT_INSN_JCC);
		TEST_EQ(in.arch.cond, cc);
		TEST_EQ(in.len, 6);
		TEST_EQ(in.target, AT + 6 - 0x10);
	}
}

TEST_CASE(jmp_reg)
{
	struct rt_insn in;

	DECODE1(in, 0xff, 0xe0);                /* jmp *%rax */
	TEST_EQ(in.cls, RT_INSN_JMP_REG);
	TEST_EQ(in.arch.reg, X64_RAX);
	TEST_EQ(in.target, 0);
	DECODE1(in, 0x41, 0xff, 0xe3);          /* jmp *%r11 */
	TEST_EQ(in.cls, RT_INSN_JMP_REG);
	TEST_EQ(in.arch.reg, X64_R11);
	DECODE1(in, 0x3e, 0xff, 0xe1);          /* notrack jmp *%rcx */
	TEST_EQ(in.cls, RT_INSN_JMP_REG);
	TEST_EQ(in.arch.reg, X64_RCX);
}

TEST_CASE(jmp_mem_rip)
{
	struct rt_insn in;

	DECODE1(in, 0xff, 0x25, 0x10, 0x00, 0x00, 0x00);
	TEST_EQ(in.cls, RT_INSN_JMP_MEM);
	TEST_EQ(in.arch.modrm_off, 1);
	TEST_EQ(in.arch.disp_off, 2);
	TEST_EQ(in.arch.rsp_operand, false);
	DECODE1(in, 0xff, 0x24, 0xc5, 0x00, 0x10, 0x00, 0x00);
	TEST_EQ(in.cls, RT_INSN_JMP_MEM);       /* jmp *0x1000(,%rax,8) */
	TEST_EQ(in.arch.disp_off, 0);
}

TEST_CASE(call_direct)
{
	struct rt_insn in;

	DECODE1(in, 0xe8, 0x00, 0x01, 0x00, 0x00);
	TEST_EQ(in.cls, RT_INSN_CALL);
	TEST_EQ(in.target, AT + 5 + 0x100);
	DECODE1(in, 0xe8, 0xfb, 0xff, 0xff, 0xff);      /* call . */
	TEST_EQ(in.target, AT);
	/* TLS general dynamic: data16 data16 rex.W call __tls_get_addr */
	DECODE1(in, 0x66, 0x66, 0x48, 0xe8, 0x00, 0x10, 0x00, 0x00);
	TEST_EQ(in.cls, RT_INSN_CALL);
	TEST_EQ(in.target, AT + 8 + 0x1000);
}

TEST_CASE(call_indirect)
{
	struct rt_insn in;

	DECODE1(in, 0xff, 0xd0);                /* call *%rax */
	TEST_EQ(in.cls, RT_INSN_CALL_INDIRECT);
	TEST_EQ(in.arch.modrm_off, 1);
	TEST_EQ(in.arch.rsp_operand, false);
	TEST_EQ(in.target, 0);
	DECODE1(in, 0xff, 0x54, 0x24, 0x08);    /* call *0x8(%rsp) */
	TEST_EQ(in.cls, RT_INSN_CALL_INDIRECT);
	TEST_EQ(in.arch.modrm_off, 1);
	TEST_EQ(in.arch.disp_off, 0);
	TEST_EQ(in.arch.rsp_operand, true);
	DECODE1(in, 0xff, 0x15, 0x08, 0x00, 0x00, 0x00); /* call *8(%rip) */
	TEST_EQ(in.cls, RT_INSN_CALL_INDIRECT);
	TEST_EQ(in.arch.disp_off, 2);
	TEST_EQ(in.arch.rsp_operand, false);
	DECODE1(in, 0x41, 0xff, 0x54, 0x24, 0x08);      /* call *8(%r12) */
	TEST_EQ(in.cls, RT_INSN_CALL_INDIRECT);
	TEST_EQ(in.arch.modrm_off, 2);
	TEST_EQ(in.arch.rsp_operand, false);
}

TEST_CASE(rip_relative_plain)
{
	struct rt_insn in;

	/* lock incq 0x10(%rip) */
	DECODE1(in, 0xf0, 0x48, 0xff, 0x05, 0x10, 0x00, 0x00, 0x00);
	TEST_EQ(in.cls, RT_INSN_PLAIN);
	TEST_EQ(in.arch.modrm_off, 3);
	TEST_EQ(in.arch.disp_off, 4);
	/* movl $1, 0x10(%rip): an immediate follows the displacement */
	DECODE1(in, 0xc7, 0x05, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00);
	TEST_EQ(in.arch.disp_off, 2);
	/* cmpw $0x1234, 0x10(%rip): capstone 4 says disp_size 2 here */
	DECODE1(in, 0x66, 0x81, 0x3d, 0x10, 0x00, 0x00, 0x00, 0x34, 0x12);
	TEST_EQ(in.arch.disp_off, 3);
	/* vmovups 0x10(%rip),%xmm0 (VEX) */
	DECODE1(in, 0xc5, 0xf8, 0x10, 0x05, 0x10, 0x00, 0x00, 0x00);
	TEST_EQ(in.arch.disp_off, 4);
	/* mov 0x10(%rbp),%rax: not RIP-relative */
	DECODE1(in, 0x48, 0x8b, 0x45, 0x10);
	TEST_EQ(in.arch.disp_off, 0);
	TEST_EQ(in.arch.modrm_off, 2);
	TEST_EQ(in.arch.rsp_operand, false);
	/* mov 0x10(%rsp),%rax */
	DECODE1(in, 0x48, 0x8b, 0x44, 0x24, 0x10);
	TEST_EQ(in.arch.rsp_operand, true);
}

TEST_CASE(plain)
{
	struct rt_insn in;

	DECODE1(in, 0xf3, 0x0f, 0x1e, 0xfa);    /* endbr64 */
	TEST_EQ(in.cls, RT_INSN_PLAIN);
	TEST_EQ(in.arch.modrm_off, 0);
	DECODE1(in, 0x0f, 0x0b);                /* ud2 never falls through */
	TEST_EQ(in.cls, RT_INSN_PLAIN);
	DECODE1(in, 0x55);                      /* push %rbp */
	TEST_EQ(in.cls, RT_INSN_PLAIN);
	TEST_EQ(in.arch.modrm_off, 0);
}

/* Lane arithmetic is packed; what scalar code does on vector registers
 * too (moves, logic, scalar arithmetic, idioms, constants read in place)
 * is not. */
TEST_CASE(packed)
{
	struct rt_insn in;

	DECODE1(in, 0x66, 0x0f, 0xfe, 0xd9);    /* paddd %xmm1,%xmm3 */
	TEST_TRUE(in.packed);
	DECODE1(in, 0x66, 0x0f, 0xfa, 0xd8);    /* psubd %xmm0,%xmm3 */
	TEST_TRUE(in.packed);
	DECODE1(in, 0x66, 0x0f, 0x62, 0xd9);    /* punpckldq: widening */
	TEST_TRUE(in.packed);
	DECODE1(in, 0xc5, 0xed, 0xfe, 0xd9);    /* vpaddd %ymm1,%ymm2,%ymm3 */
	TEST_TRUE(in.packed);
	DECODE1(in, 0x0f, 0x59, 0xd1);          /* mulps %xmm1,%xmm2 */
	TEST_TRUE(in.packed);
	DECODE1(in, 0xf3, 0x0f, 0x6f, 0x0f);    /* movdqu (%rdi),%xmm1 */
	TEST_TRUE(!in.packed);
	DECODE1(in, 0x66, 0x0f, 0x6f, 0xd9);    /* movdqa %xmm1,%xmm3 */
	TEST_TRUE(!in.packed);
	DECODE1(in, 0x66, 0x0f, 0x76, 0xc0);    /* pcmpeqd %xmm0,%xmm0 */
	TEST_TRUE(!in.packed);
	DECODE1(in, 0x66, 0x0f, 0xef, 0xd1);    /* pxor %xmm1,%xmm2 */
	TEST_TRUE(!in.packed);
	DECODE1(in, 0xf2, 0x0f, 0x58, 0xc1);    /* addsd %xmm1,%xmm0 */
	TEST_TRUE(!in.packed);
	DECODE1(in, 0x66, 0x0f, 0x15, 0xc1);    /* unpckhpd (u64 to f64) */
	TEST_TRUE(!in.packed);
	/* subpd 0x100(%rip),%xmm1: a constant of the u64 to f64 idiom */
	DECODE1(in, 0x66, 0x0f, 0x5c, 0x0d, 0x00, 0x01, 0x00, 0x00);
	TEST_TRUE(!in.packed);
	DECODE1(in, 0x01, 0xc3);                /* add %eax,%ebx */
	TEST_TRUE(!in.packed);
}

TEST_CASE(trap_and_syscall)
{
	struct rt_insn in;

	DECODE1(in, 0xcc);
	TEST_EQ(in.cls, RT_INSN_TRAP);
	DECODE1(in, 0x0f, 0x05);
	TEST_EQ(in.cls, RT_INSN_SYSCALL);
	DECODE1(in, 0x0f, 0x34);
	TEST_EQ(in.cls, RT_INSN_SYSCALL);
	DECODE1(in, 0xcd, 0x80);                /* int $0x80 */
	TEST_EQ(in.cls, RT_INSN_SYSCALL);
}

TEST_CASE(branch_other)
{
	struct rt_insn in;

	DECODE1(in, 0xe2, 0xfe);                /* loop . */
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	TEST_EQ(in.target, AT);
	DECODE1(in, 0xe1, 0xfe);                /* loope . */
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	DECODE1(in, 0xe0, 0xfe);                /* loopne . */
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	DECODE1(in, 0xe3, 0x10);                /* jrcxz */
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	TEST_EQ(in.target, AT + 2 + 0x10);
	DECODE1(in, 0x67, 0xe3, 0x10);          /* jecxz */
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	DECODE1(in, 0xc7, 0xf8, 0x00, 0x01, 0x00, 0x00);        /* xbegin */
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	DECODE1(in, 0xcb);                      /* lret */
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
	DECODE1(in, 0x48, 0xcf);                /* iretq */
	TEST_EQ(in.cls, RT_INSN_BRANCH_OTHER);
}

/* Which instructions never go on to the next one. */
TEST_CASE(ends_flow)
{
	struct rt_insn in;

	DECODE1(in, 0xc3);                      /* ret */
	TEST_TRUE(in.ends);
	DECODE1(in, 0xeb, 0x05);                /* jmp rel8 */
	TEST_TRUE(in.ends);
	DECODE1(in, 0xff, 0xe0);                /* jmp rax */
	TEST_TRUE(in.ends);
	DECODE1(in, 0x0f, 0x0b);                /* ud2 */
	TEST_TRUE(in.ends);
	TEST_EQ(in.cls, RT_INSN_PLAIN);
	DECODE1(in, 0xf4);                      /* hlt */
	TEST_TRUE(in.ends);
	DECODE1(in, 0xcc);                      /* int3 */
	TEST_TRUE(in.ends);
	DECODE1(in, 0x74, 0x05);                /* je: may go on */
	TEST_TRUE(!in.ends);
	DECODE1(in, 0xe8, 0, 0, 0, 0);          /* call: returns here */
	TEST_TRUE(!in.ends);
	DECODE1(in, 0x90);                      /* nop */
	TEST_TRUE(!in.ends);
	DECODE1(in, 0x0f, 0x05);                /* syscall */
	TEST_TRUE(!in.ends);
}

TEST_CASE(sequence)
{
	/* push %rbp; mov %rsp,%rbp; call rel32; pop %rbp; ret; int3 pad */
	static const uint8_t code[] = {
		0x55, 0x48, 0x89, 0xe5, 0xe8, 0x10, 0x00, 0x00, 0x00,
		0x5d, 0xc3, 0xcc, 0xcc,
	};
	static const uint8_t lens[] = { 1, 3, 5, 1, 1, 1, 1 };
	static const uint8_t cls[] = {
		RT_INSN_PLAIN, RT_INSN_PLAIN, RT_INSN_CALL, RT_INSN_PLAIN,
		RT_INSN_RET, RT_INSN_TRAP, RT_INSN_TRAP,
	};
	rt_insn_vec v = { 0 };
	rt_raddr at = AT;
	int err;

	err = rt_arch_decode(code, sizeof(code), AT, &v);
	TEST_EQ(err, 0);
	TEST_EQ(v.n, sizeof(lens));
	for (size_t i = 0; i < v.n; i++) {
		TEST_EQ(v.v[i].addr, at);
		TEST_EQ(v.v[i].len, lens[i]);
		TEST_EQ(v.v[i].cls, cls[i]);
		at += lens[i];
	}
	TEST_EQ(v.v[2].target, AT + 9 + 0x10);
	/* decoding appends */
	err = rt_arch_decode(code, 1, AT + 0x100, &v);
	TEST_EQ(err, 0);
	TEST_EQ(v.n, sizeof(lens) + 1);
	TEST_EQ(v.v[0].addr, AT);
	TEST_EQ(v.v[v.n - 1].addr, AT + 0x100);
	vec_free(&v);
}

TEST_CASE(undecodable)
{
	/* ret; 0x06 (push %es, invalid in 64-bit mode); ret */
	static const uint8_t bad[] = { 0xc3, 0x06, 0xc3 };
	/* a jmp rel32 cut short at the end of the buffer */
	static const uint8_t cut[] = { 0x90, 0xe9, 0x00, 0x01 };
	rt_insn_vec v = { 0 };

	TEST_EQ(rt_arch_decode(bad, sizeof(bad), AT, &v), -EILSEQ);
	TEST_EQ(v.n, 1);
	TEST_EQ(v.v[0].cls, RT_INSN_RET);
	vec_free(&v);
	TEST_EQ(rt_arch_decode(cut, sizeof(cut), AT, &v), -EILSEQ);
	TEST_EQ(v.n, 1);
	TEST_EQ(v.v[0].len, 1);
	vec_free(&v);
	TEST_EQ(rt_arch_decode(bad, 0, AT, &v), 0);
	TEST_EQ(v.n, 0);
	vec_free(&v);
}

/* ---- jump tables ------------------------------------------------------- */

#define TABLE (AT + 0x1000)

/* The table at TABLE: offsets from its start to the two targets, then an
 * entry that lands nowhere (the end of the table). */
static int32_t table_words[3];

static int read_table_words(void *ctx, rt_raddr addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < TABLE || addr + len > TABLE + sizeof(table_words))
		return -EFAULT;
	memcpy(buf, (const uint8_t *)table_words + (addr - TABLE), len);
	return 0;
}

/* `lea rbx, [rip + TABLE]` at AT, @gap nops, `movsxd rcx, [rbx + 4*rcx];
 * add rcx, rbx; jmp rcx` (or, !@shaped, `mov rcx, [rdi]; jmp rcx`), then
 * three rets: the targets of the table are the first two.  The number of
 * targets rt_arch_jump_table() finds (at most @max, into @targets); the
 * first ret's address in *ret0. */
static size_t table_jump(size_t gap, bool shaped, rt_raddr *targets,
			 size_t max, rt_raddr *ret0)
{
	static const uint8_t dispatch[] = { 0x48, 0x63, 0x0c, 0x8b,
					    0x48, 0x01, 0xd9 };
	static const uint8_t load[] = { 0x48, 0x8b, 0x0f };
	uint8_t code[256];
	size_t n = 0, got;
	int32_t disp = (int32_t)(TABLE - (AT + 7));
	rt_insn_vec v = { 0 };

	code[n++] = 0x48, code[n++] = 0x8d, code[n++] = 0x1d;
	memcpy(code + n, &disp, 4), n += 4;
	memset(code + n, 0x90, gap), n += gap;
	if (shaped)
		memcpy(code + n, dispatch, sizeof(dispatch)), n += sizeof(dispatch);
	else
		memcpy(code + n, load, sizeof(load)), n += sizeof(load);
	code[n++] = 0xff, code[n++] = 0xe1;
	*ret0 = AT + n;
	memset(code + n, 0xc3, 3), n += 3;
	table_words[0] = (int32_t)(*ret0 - TABLE);
	table_words[1] = (int32_t)(*ret0 + 1 - TABLE);
	table_words[2] = 0x7fffffff;
	if (rt_arch_decode(code, n, AT, &v) || v.n < 5)
		return 99;
	got = rt_arch_jump_table(v.v, v.n, v.n - 4, read_table_words, NULL,
				 targets, max);
	vec_free(&v);
	return got;
}

TEST_CASE(jump_table_near)
{
	rt_raddr t[8], ret0;

	TEST_EQ(table_jump(0, true, t, 8, &ret0), 2);
	TEST_EQ(t[0], ret0);
	TEST_EQ(t[1], ret0 + 1);
}

/* The lea hoisted out of the loop, too far back to be seen from the jump:
 * every table a lea of the function loads counts. */
TEST_CASE(jump_table_far_lea)
{
	rt_raddr t[8], ret0;

	TEST_EQ(table_jump(200, true, t, 8, &ret0), 2);
	TEST_EQ(t[0], ret0);
	TEST_EQ(t[1], ret0 + 1);
	/* a table that fills the room may go on: not known */
	TEST_EQ(table_jump(200, true, t, 2, &ret0), 0);
}

/* A jump through a loaded pointer is no table, whatever leas are near. */
TEST_CASE(jump_through_pointer)
{
	rt_raddr t[8], ret0;

	TEST_EQ(table_jump(0, false, t, 8, &ret0), 0);
	TEST_EQ(table_jump(200, false, t, 8, &ret0), 0);
}
