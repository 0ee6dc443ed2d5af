/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_arch_plan_resume(): raw bytes are decoded at ORIG, a slot is built at a
 * chosen address, and the slot bytes are disassembled again with capstone
 * to check what they do, instruction by instruction: the operand reaches
 * the same absolute address, the jump back lands after the original
 * instruction, a call pushes the original return address.  The last cases
 * run slots natively in an executable page.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <capstone/capstone.h>

#include "rtrace/arch.h"
#include "x86_64.h"
#include "unittest.h"

#define ORIG 0x555555561000ULL
#define SLOT_ABOVE (ORIG + 0x40000000ULL)       /* 1 GiB above the code */
#define SLOT_BELOW (ORIG - 0x40000000ULL)
#define SLOT_FAR 0x7ffff7ff0000ULL              /* out of rel32 reach */

/* A decoded site and its plan. */
struct plan {
	struct rt_insn insn;
	struct rt_resume res;
	enum rt_refusal why;
	uint8_t buf[RT_ARCH_SLOT_MAX];
	cs_insn *ci;            /* the slot, disassembled */
	size_t nci;
};

static csh cs;

static void plan_free(struct plan *p)
{
	if (p->ci)
		cs_free(p->ci, p->nci);
	p->ci = NULL;
	p->nci = 0;
}

/* Decodes one instruction at @at, plans it for @slot, disassembles it. */
static int plan_at(struct plan *p, const uint8_t *code, size_t len,
		   rt_raddr at, rt_raddr slot)
{
	rt_insn_vec v = { 0 };
	int err = rt_arch_decode(code, len, at, &v);

	memset(p, 0, sizeof(*p));
	if (err || v.n != 1) {
		vec_free(&v);
		return err ? err : -EINVAL;
	}
	p->insn = v.v[0];
	vec_free(&v);
	memset(p->buf, 0xcc, sizeof(p->buf));
	p->why = rt_arch_plan_resume(&p->insn, slot, p->buf, &p->res);
	if (!cs && (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK ||
		    cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK))
		return -ENOTSUP;
	if (p->why == RT_REFUSE_NONE && p->res.kind == RT_RESUME_SLOT)
		p->nci = cs_disasm(cs, p->buf, p->res.slot_len, slot, 0,
				   &p->ci);
	return 0;
}

#define PLAN(p, slot, ...)                                                     \
	do {                                                                   \
		static const uint8_t c__[] = { __VA_ARGS__ };                  \
		TEST_EQ(plan_at(&(p), c__, sizeof(c__), ORIG, (slot)), 0);     \
	} while (0)

static const cs_x86_op *op(const cs_insn *ci, unsigned i)
{
	return &ci->detail->x86.operands[i];
}

/* Absolute address a RIP-relative operand of @ci reaches, or 0. */
static uint64_t rip_target(const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;

	for (unsigned i = 0; i < x->op_count; i++) {
		const x86_op_mem *m = &x->operands[i].mem;

		if (x->operands[i].type != X86_OP_MEM)
			continue;
		if (m->base == X86_REG_RIP)
			return ci->address + ci->size + m->disp;
		if (m->base == X86_REG_EIP)
			return (uint32_t)(ci->address + ci->size + m->disp);
	}
	return 0;
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static bool is_mem(const cs_x86_op *o, x86_reg base, int64_t disp)
{
	return o->type == X86_OP_MEM && o->mem.base == base &&
	       o->mem.index == X86_REG_INVALID && o->mem.disp == disp;
}

/*
 * Where the jump at instruction @i of the slot goes: jmp rel, or
 * jmp *0(%rip) followed by the absolute address.  0 if it is neither.
 */
static uint64_t jump_dest(const struct plan *p, size_t i)
{
	const cs_insn *ci = &p->ci[i];
	size_t off = ci->address - p->res.target;

	if (ci->id != X86_INS_JMP || ci->detail->x86.op_count != 1)
		return 0;
	if (op(ci, 0)->type == X86_OP_IMM)
		return (uint64_t)op(ci, 0)->imm;
	if (is_mem(op(ci, 0), X86_REG_RIP, 0) &&
	    off + ci->size + 8 == p->res.slot_len)
		return get_u64(p->buf + off + ci->size);
	return 0;
}

/*
 * The value the first three slot instructions push, if they are
 * lea -8(%rsp),%rsp; movl $lo,(%rsp); movl $hi,4(%rsp).  Returns false
 * when the shape differs.
 */
static bool pushed_value(const struct plan *p, uint64_t *val)
{
	const cs_insn *ci = p->ci;

	if (p->nci < 3 || ci[0].id != X86_INS_LEA ||
	    op(&ci[0], 0)->reg != X86_REG_RSP ||
	    !is_mem(op(&ci[0], 1), X86_REG_RSP, -8))
		return false;
	if (ci[1].id != X86_INS_MOV || !is_mem(op(&ci[1], 0), X86_REG_RSP, 0) ||
	    op(&ci[1], 0)->size != 4 || op(&ci[1], 1)->type != X86_OP_IMM)
		return false;
	if (ci[2].id != X86_INS_MOV || !is_mem(op(&ci[2], 0), X86_REG_RSP, 4) ||
	    op(&ci[2], 0)->size != 4 || op(&ci[2], 1)->type != X86_OP_IMM)
		return false;
	*val = (uint32_t)op(&ci[1], 1)->imm |
	       (uint64_t)(uint32_t)op(&ci[2], 1)->imm << 32;
	return true;
}

/* Whether the disassembly covers exactly slot_len bytes. */
static bool covers_slot(const struct plan *p, size_t tail)
{
	size_t sum = tail;

	for (size_t i = 0; i < p->nci; i++)
		sum += p->ci[i].size;
	return sum == p->res.slot_len;
}

/* ---- falls through: copy + fix-up + jump back ---------------------------- */

TEST_CASE(relocate_rip_relative_near)
{
	static const rt_raddr slots[] = { SLOT_ABOVE, SLOT_BELOW };
	struct plan p;

	for (size_t i = 0; i < ARRAY_SIZE(slots); i++) {
		/* lock incq 0x10(%rip) */
		PLAN(p, slots[i], 0xf0, 0x48, 0xff, 0x05, 0x10, 0, 0, 0);
		TEST_EQ(p.why, RT_REFUSE_NONE);
		TEST_EQ(p.res.kind, RT_RESUME_SLOT);
		TEST_EQ(p.res.target, slots[i]);
		TEST_EQ(p.res.next, ORIG + 8);
		TEST_EQ(p.res.slot_len, 8 + X64_JMP_REL32_LEN);
		TEST_EQ(p.nci, 2);
		TEST_EQ(p.ci[0].id, X86_INS_INC);
		TEST_EQ(p.ci[0].size, 8);
		TEST_EQ(p.ci[0].detail->x86.prefix[0], X86_PREFIX_LOCK);
		TEST_EQ(rip_target(&p.ci[0]), ORIG + 8 + 0x10);
		TEST_EQ(jump_dest(&p, 1), ORIG + 8);
		plan_free(&p);
	}
}

TEST_CASE(relocate_rip_relative_with_immediate)
{
	struct plan p;

	/* cmpw $0x1234, -0x20(%rip): the disp32 is not the last field */
	PLAN(p, SLOT_BELOW, 0x66, 0x81, 0x3d, 0xe0, 0xff, 0xff, 0xff, 0x34,
	     0x12);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.nci, 2);
	TEST_EQ(p.ci[0].id, X86_INS_CMP);
	TEST_EQ(rip_target(&p.ci[0]), ORIG + 9 - 0x20);
	TEST_EQ(op(&p.ci[0], 1)->imm, 0x1234);
	TEST_EQ(jump_dest(&p, 1), ORIG + 9);
	plan_free(&p);
	/* vmovups 0x100(%rip),%xmm0 (VEX) */
	PLAN(p, SLOT_ABOVE, 0xc5, 0xf8, 0x10, 0x05, 0x00, 0x01, 0, 0);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(rip_target(&p.ci[0]), ORIG + 8 + 0x100);
	plan_free(&p);
}

TEST_CASE(relocate_rip_relative_edges)
{
	/* lea 0x10(%rip),%rax: reaches ORIG + 7 + 0x10 */
	static const uint8_t lea[] = { 0x48, 0x8d, 0x05, 0x10, 0, 0, 0 };
	rt_raddr abs = ORIG + 7 + 0x10;
	/* the slot copy ends at slot + 7; rel32 = abs - (slot + 7) */
	rt_raddr lowest = abs - 7 - (rt_raddr)INT32_MAX;
	rt_raddr highest = abs - 7 + 0x80000000ULL;
	struct plan p;

	TEST_EQ(plan_at(&p, lea, sizeof(lea), ORIG, lowest), 0);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(rip_target(&p.ci[0]), abs);
	TEST_EQ(jump_dest(&p, 1), ORIG + 7);
	plan_free(&p);
	TEST_EQ(plan_at(&p, lea, sizeof(lea), ORIG, lowest - 1), 0);
	TEST_EQ(p.why, RT_REFUSE_OUT_OF_RANGE);
	TEST_EQ(plan_at(&p, lea, sizeof(lea), ORIG, highest), 0);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(rip_target(&p.ci[0]), abs);
	/* the jump back no longer reaches by rel32: absolute form */
	TEST_EQ(p.res.slot_len, 7 + X64_JMP_ABS_LEN);
	TEST_EQ(jump_dest(&p, 1), ORIG + 7);
	plan_free(&p);
	TEST_EQ(plan_at(&p, lea, sizeof(lea), ORIG, highest + 1), 0);
	TEST_EQ(p.why, RT_REFUSE_OUT_OF_RANGE);
	TEST_EQ(plan_at(&p, lea, sizeof(lea), ORIG, SLOT_FAR), 0);
	TEST_EQ(p.why, RT_REFUSE_OUT_OF_RANGE);
}

TEST_CASE(relocate_addr32_rip_relative)
{
	struct plan p;

	/* mov 0x10(%eip),%eax: the address wraps at 32 bits, always fits */
	PLAN(p, SLOT_FAR, 0x67, 0x8b, 0x05, 0x10, 0, 0, 0);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(rip_target(&p.ci[0]), (uint32_t)(ORIG + 7 + 0x10));
	plan_free(&p);
}

TEST_CASE(plain_far_slot_jumps_back_absolute)
{
	struct plan p;

	PLAN(p, SLOT_FAR, 0x48, 0x89, 0xd8);    /* mov %rbx,%rax */
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.res.slot_len, 3 + X64_JMP_ABS_LEN);
	TEST_MEMEQ(p.buf, p.insn.bytes, 3);
	TEST_TRUE(p.nci >= 2);
	TEST_EQ(jump_dest(&p, 1), ORIG + 3);
	plan_free(&p);
	PLAN(p, SLOT_ABOVE, 0x0f, 0x05);        /* syscall */
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.nci, 2);
	TEST_EQ(p.ci[0].id, X86_INS_SYSCALL);
	TEST_EQ(jump_dest(&p, 1), ORIG + 2);
	plan_free(&p);
	PLAN(p, SLOT_ABOVE, 0xf3, 0x0f, 0x1e, 0xfa);    /* endbr64 */
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.res.slot_len, 4 + X64_JMP_REL32_LEN);
	TEST_EQ(jump_dest(&p, 1), ORIG + 4);
	plan_free(&p);
}

/* ---- ret ----------------------------------------------------------------- */

TEST_CASE(emulate_ret)
{
	static const uint8_t rets[][3] = {
		{ 0xc3 }, { 0xc2, 0x08, 0x00 }, { 0xf3, 0xc3 }, { 0xf2, 0xc3 },
	};
	static const uint8_t lens[] = { 1, 3, 2, 2 };
	struct plan p;

	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		TEST_EQ(plan_at(&p, rets[i], lens[i], ORIG, SLOT_FAR), 0);
		TEST_EQ(p.why, RT_REFUSE_NONE);
		TEST_EQ(p.res.kind, RT_RESUME_SLOT);
		TEST_EQ(p.res.slot_len, lens[i]);
		TEST_MEMEQ(p.buf, rets[i], lens[i]);
		TEST_EQ(p.nci, 1);
		TEST_EQ(p.ci[0].id, X86_INS_RET);
		plan_free(&p);
	}
}

/* ---- jumps -------------------------------------------------------------- */

TEST_CASE(emulate_jmp)
{
	struct plan p;

	PLAN(p, SLOT_FAR, 0xe9, 0x00, 0x01, 0x00, 0x00);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.res.kind, RT_RESUME_JUMP);
	TEST_EQ(p.res.target, ORIG + 5 + 0x100);
	TEST_EQ(p.res.next, ORIG + 5);
	TEST_EQ(p.res.slot_len, 0);
	PLAN(p, SLOT_FAR, 0xf2, 0xeb, 0xf0);    /* bnd jmp, backwards */
	TEST_EQ(p.res.kind, RT_RESUME_JUMP);
	TEST_EQ(p.res.target, ORIG + 3 - 0x10);
}

TEST_CASE(emulate_jcc)
{
	struct plan p;

	PLAN(p, SLOT_FAR, 0x0f, 0x8e, 0x00, 0x02, 0x00, 0x00);  /* jle */
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.res.kind, RT_RESUME_JCC);
	TEST_EQ(p.res.arch.cond, X64_CC_LE);
	TEST_EQ(p.res.target, ORIG + 6 + 0x200);
	TEST_EQ(p.res.next, ORIG + 6);
	TEST_EQ(p.res.slot_len, 0);
	PLAN(p, SLOT_FAR, 0x75, 0x10);          /* jne */
	TEST_EQ(p.res.arch.cond, X64_CC_NE);
	TEST_EQ(p.res.target, ORIG + 2 + 0x10);
}

TEST_CASE(emulate_jmp_reg)
{
	struct plan p;

	PLAN(p, SLOT_FAR, 0x41, 0xff, 0xe3);    /* jmp *%r11 */
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.res.kind, RT_RESUME_JMP_REG);
	TEST_EQ(p.res.arch.reg, X64_R11);
	TEST_EQ(p.res.next, ORIG + 3);
	PLAN(p, SLOT_FAR, 0x3e, 0xff, 0xe0);    /* notrack jmp *%rax */
	TEST_EQ(p.res.kind, RT_RESUME_JMP_REG);
	TEST_EQ(p.res.arch.reg, X64_RAX);
}

TEST_CASE(emulate_jmp_mem)
{
	struct plan p;

	/* jmp *0x1000(%rip): the slot jumps through the same GOT entry */
	PLAN(p, SLOT_BELOW, 0xff, 0x25, 0x00, 0x10, 0x00, 0x00);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.res.kind, RT_RESUME_SLOT);
	TEST_EQ(p.res.slot_len, 6);
	TEST_EQ(p.nci, 1);
	TEST_EQ(p.ci[0].id, X86_INS_JMP);
	TEST_EQ(rip_target(&p.ci[0]), ORIG + 6 + 0x1000);
	plan_free(&p);
	PLAN(p, SLOT_FAR, 0xff, 0x25, 0x00, 0x10, 0x00, 0x00);
	TEST_EQ(p.why, RT_REFUSE_OUT_OF_RANGE);
	/* jmp *0x8(%rsp): position independent, copied as is */
	PLAN(p, SLOT_FAR, 0xff, 0x64, 0x24, 0x08);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.res.slot_len, 4);
	TEST_MEMEQ(p.buf, p.insn.bytes, 4);
	plan_free(&p);
}

/* ---- calls -------------------------------------------------------------- */

TEST_CASE(emulate_call_direct)
{
	uint64_t ret;
	struct plan p;

	PLAN(p, SLOT_ABOVE, 0xe8, 0x00, 0x01, 0x00, 0x00);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.res.kind, RT_RESUME_SLOT);
	TEST_EQ(p.res.next, ORIG + 5);
	TEST_EQ(p.nci, 4);
	TEST_TRUE(covers_slot(&p, 0));
	TEST_TRUE(pushed_value(&p, &ret));
	TEST_EQ(ret, ORIG + 5);
	TEST_EQ(jump_dest(&p, 3), ORIG + 5 + 0x100);
	plan_free(&p);
	/* from a far slot the callee is reached by an absolute jump */
	PLAN(p, SLOT_FAR, 0xe8, 0xfb, 0xff, 0xff, 0xff);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_EQ(p.res.slot_len, X64_PUSH_SEQ_LEN + X64_JMP_ABS_LEN);
	TEST_TRUE(pushed_value(&p, &ret));
	TEST_EQ(ret, ORIG + 5);
	TEST_EQ(jump_dest(&p, 3), ORIG);
	plan_free(&p);
	/* data16 data16 rex.W call: the prefixes are padding, 8 bytes */
	PLAN(p, SLOT_ABOVE, 0x66, 0x66, 0x48, 0xe8, 0x00, 0x01, 0x00, 0x00);
	TEST_EQ(p.why, RT_REFUSE_NONE);
	TEST_TRUE(pushed_value(&p, &ret));
	TEST_EQ(ret, ORIG + 8);
	TEST_EQ(jump_dest(&p, 3), ORIG + 8 + 0x100);
	plan_free(&p);
}

/* Checks the push + "jmp operand" shape; *jmp gets the jmp instruction. */
static bool indirect_shape(const struct plan *p, const cs_insn **jmp)
{
	uint64_t ret;

	if (p->why != RT_REFUSE_NONE || p->nci != 4 || !covers_slot(p, 0) ||
	    !pushed_value(p, &ret) || ret != p->insn.addr + p->insn.len ||
	    p->ci[3].id != X86_INS_JMP)
		return false;
	*jmp = &p->ci[3];
	return true;
}

TEST_CASE(emulate_call_indirect_reg)
{
	const cs_insn *j;
	struct plan p;

	PLAN(p, SLOT_FAR, 0xff, 0xd0);          /* call *%rax */
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_EQ(op(j, 0)->reg, X86_REG_RAX);
	plan_free(&p);
	PLAN(p, SLOT_FAR, 0x41, 0xff, 0xd4);    /* call *%r12: REX kept */
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_EQ(op(j, 0)->reg, X86_REG_R12);
	plan_free(&p);
	PLAN(p, SLOT_FAR, 0x3e, 0xff, 0xd1);    /* notrack call *%rcx */
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_EQ(op(j, 0)->reg, X86_REG_RCX);
	TEST_EQ(j->bytes[0], 0x3e);
	plan_free(&p);
	PLAN(p, SLOT_FAR, 0xff, 0xd4);          /* call *%rsp */
	TEST_EQ(p.why, RT_REFUSE_STACK_CALL);
}

TEST_CASE(emulate_call_indirect_mem)
{
	const cs_insn *j;
	struct plan p;

	PLAN(p, SLOT_BELOW, 0xff, 0x15, 0x00, 0x20, 0x00, 0x00);
	TEST_TRUE(indirect_shape(&p, &j));      /* call *0x2000(%rip) */
	TEST_EQ(rip_target(j), ORIG + 6 + 0x2000);
	plan_free(&p);
	PLAN(p, SLOT_FAR, 0xff, 0x15, 0x00, 0x20, 0x00, 0x00);
	TEST_EQ(p.why, RT_REFUSE_OUT_OF_RANGE);
	/* call *0x8(%r12): SIB base r12, not the stack pointer */
	PLAN(p, SLOT_FAR, 0x41, 0xff, 0x54, 0x24, 0x08);
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_TRUE(is_mem(op(j, 0), X86_REG_R12, 8));
	plan_free(&p);
	/* call *0x10(%rax,%rbx,8) */
	PLAN(p, SLOT_FAR, 0xff, 0x54, 0xd8, 0x10);
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_EQ(op(j, 0)->mem.base, X86_REG_RAX);
	TEST_EQ(op(j, 0)->mem.index, X86_REG_RBX);
	TEST_EQ(op(j, 0)->mem.scale, 8);
	TEST_EQ(op(j, 0)->mem.disp, 0x10);
	plan_free(&p);
}

TEST_CASE(emulate_call_indirect_rsp)
{
	const cs_insn *j;
	struct plan p;

	PLAN(p, SLOT_FAR, 0xff, 0x54, 0x24, 0x08);      /* call *0x8(%rsp) */
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_TRUE(is_mem(op(j, 0), X86_REG_RSP, 0x10));
	TEST_EQ(j->size, 4);
	plan_free(&p);
	PLAN(p, SLOT_FAR, 0xff, 0x14, 0x24);    /* call *(%rsp): gets a disp8 */
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_TRUE(is_mem(op(j, 0), X86_REG_RSP, 8));
	TEST_EQ(j->size, 4);
	plan_free(&p);
	PLAN(p, SLOT_FAR, 0xff, 0x54, 0x24, 0x7c);      /* disp8 to disp32 */
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_TRUE(is_mem(op(j, 0), X86_REG_RSP, 0x84));
	TEST_EQ(j->size, 7);
	plan_free(&p);
	PLAN(p, SLOT_FAR, 0xff, 0x54, 0x24, 0xf8);      /* -8 becomes 0 */
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_TRUE(is_mem(op(j, 0), X86_REG_RSP, 0));
	plan_free(&p);
	/* call *0x8(%rsp,%rax,8) */
	PLAN(p, SLOT_FAR, 0xff, 0x54, 0xc4, 0x08);
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_EQ(op(j, 0)->mem.base, X86_REG_RSP);
	TEST_EQ(op(j, 0)->mem.index, X86_REG_RAX);
	TEST_EQ(op(j, 0)->mem.disp, 0x10);
	plan_free(&p);
	/* REX.W on a stack call: prefixes stay */
	PLAN(p, SLOT_FAR, 0x48, 0xff, 0x94, 0x24, 0xf4, 0xff, 0xff, 0x7f);
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_TRUE(is_mem(op(j, 0), X86_REG_RSP, 0x7ffffffc));
	TEST_EQ(j->bytes[0], 0x48);
	plan_free(&p);
	/* disp + 8 no longer fits a disp32 */
	PLAN(p, SLOT_FAR, 0xff, 0x94, 0x24, 0xfc, 0xff, 0xff, 0x7f);
	TEST_EQ(p.why, RT_REFUSE_STACK_CALL);
	/* the longer displacement would take the jmp past 15 bytes (found
	 * by tests/fuzz): 9 prefixes, disp8 to disp32; 12, disp0 to disp8 */
	PLAN(p, SLOT_FAR, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3,
	     0xff, 0x54, 0x24, 0x7c);
	TEST_EQ(p.why, RT_REFUSE_STACK_CALL);
	PLAN(p, SLOT_FAR, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3,
	     0xf3, 0xf3, 0xf3, 0xff, 0x14, 0x24);
	TEST_EQ(p.why, RT_REFUSE_STACK_CALL);
	/* 8 prefixes leave room: 15 bytes exactly */
	PLAN(p, SLOT_FAR, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3, 0xf3,
	     0xff, 0x54, 0x24, 0x7c);
	TEST_TRUE(indirect_shape(&p, &j));
	TEST_TRUE(is_mem(op(j, 0), X86_REG_RSP, 0x84));
	TEST_EQ(j->size, 15);
	plan_free(&p);
}

/* ---- refusals ------------------------------------------------------------ */

TEST_CASE(refusals)
{
	struct plan p;

	PLAN(p, SLOT_ABOVE, 0xe2, 0xfe);        /* loop */
	TEST_EQ(p.why, RT_REFUSE_BRANCH_OTHER);
	PLAN(p, SLOT_ABOVE, 0xe3, 0x10);        /* jrcxz */
	TEST_EQ(p.why, RT_REFUSE_BRANCH_OTHER);
	PLAN(p, SLOT_ABOVE, 0xc7, 0xf8, 0, 1, 0, 0);    /* xbegin */
	TEST_EQ(p.why, RT_REFUSE_BRANCH_OTHER);
	PLAN(p, SLOT_ABOVE, 0x66, 0xe9, 0x00, 0x01);    /* jmp rel16 */
	TEST_EQ(p.why, RT_REFUSE_BRANCH_OTHER);
	PLAN(p, SLOT_ABOVE, 0xcc);
	TEST_EQ(p.why, RT_REFUSE_TRAP_SITE);
	TEST_EQ(p.res.next, ORIG + 1);
}

TEST_CASE(refusal_strings)
{
	for (int i = 0; i < RT_REFUSE_MAX; i++) {
		TEST_TRUE(rt_refusal_str(i) != NULL);
		for (int j = 0; j < i; j++)
			TEST_TRUE(strcmp(rt_refusal_str(i),
					 rt_refusal_str(j)) != 0);
	}
	TEST_STREQ(rt_refusal_str(RT_REFUSE_BRANCH_OTHER),
		   "loop/jrcxz-type branch at a probe site");
	TEST_STREQ(rt_refusal_str(RT_REFUSE_UNDECODABLE),
		   "bytes do not decode");
	TEST_STREQ(rt_refusal_str(RT_REFUSE_MAX), "unknown reason");
}

TEST_CASE(slot_never_exceeds_max)
{
	/* the longest legal instruction and the longest call forms */
	static const uint8_t longest[] = {
		0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x2e, 0x0f,
		0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t rsp_call[] = {
		0x3e, 0x48, 0xff, 0x54, 0xc4, 0x7c,
	};
	static const rt_raddr slots[] = { SLOT_ABOVE, SLOT_FAR };
	struct plan p;

	for (size_t i = 0; i < ARRAY_SIZE(slots); i++) {
		TEST_EQ(plan_at(&p, longest, sizeof(longest), ORIG, slots[i]),
			0);
		TEST_EQ(p.why, RT_REFUSE_NONE);
		TEST_TRUE(p.res.slot_len <= RT_ARCH_SLOT_MAX);
		TEST_EQ(jump_dest(&p, 1), ORIG + 15);
		plan_free(&p);
		TEST_EQ(plan_at(&p, rsp_call, sizeof(rsp_call), ORIG, slots[i]),
			0);
		TEST_EQ(p.why, RT_REFUSE_NONE);
		TEST_TRUE(p.res.slot_len <= RT_ARCH_SLOT_MAX);
		TEST_EQ(p.ci[3].size, sizeof(rsp_call) + 3);
		plan_free(&p);
	}
}

/* ---- slots that really run ---------------------------------------------- */

/*
 * An executable page holds the "original" code, a callee at CALLEE and a
 * prologue at PROLOGUE that sets up the stack and jumps to the slot, which
 * lives at the end of the same page or in a second page more than 2 GiB
 * away.  The prologue is called as a C function, so every path ends in a
 * ret back to the test, with the result in rax.
 */
#define PAGE 4096
#define CALLEE 0x100
#define PROLOGUE 0x340
#define NEAR_SLOT 0x800

static uint8_t *exec_page(void *hint)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void *p;

	if (hint)
		flags |= MAP_FIXED_NOREPLACE;
	p = mmap(hint, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, flags, -1, 0);
	if (p != MAP_FAILED && hint && p != hint) {
		munmap(p, PAGE);
		p = MAP_FAILED;
	}
	if (p == MAP_FAILED) {
		fprintf(stderr, "  skipped: no executable page%s here\n",
			hint ? " beyond 2 GiB" : "");
		return NULL;
	}
	/* mov $42,%eax; ret: the callee of the call cases */
	memcpy((uint8_t *)p + CALLEE, "\xb8\x2a\x00\x00\x00\xc3", 6);
	return p;
}

static rt_raddr addr_of(const uint8_t *p)
{
	return (rt_raddr)(uintptr_t)p;
}

/* A call's slot must push its return address before it may run. */
static bool push_checked(const struct plan *p)
{
	uint64_t ret;

	if (p->insn.cls != RT_INSN_CALL &&
	    p->insn.cls != RT_INSN_CALL_INDIRECT)
		return true;
	return pushed_value(p, &ret) && ret == p->res.next;
}

/*
 * Builds the slot for the @len-byte instruction at page + @site into
 * @slot, writes @pro at PROLOGUE followed by a jmp to the slot, and calls
 * the prologue.  *why gets the plan's verdict; nothing runs unless none.
 */
static uint64_t run_site(uint8_t *page, size_t site, size_t len,
			 uint8_t *slot, const uint8_t *pro, size_t plen,
			 enum rt_refusal *why)
{
	uint8_t *jmp = page + PROLOGUE + plen;
	uint64_t (*fn)(void);
	struct plan p;
	int32_t rel;

	if (plan_at(&p, page + site, len, addr_of(page) + site,
		    addr_of(slot))) {
		*why = RT_REFUSE_UNDECODABLE;
		return 0;
	}
	*why = p.why;
	if (p.why == RT_REFUSE_NONE && !push_checked(&p))
		*why = RT_REFUSE_MAX;   /* running it could hang or crash */
	plan_free(&p);
	if (*why != RT_REFUSE_NONE || p.res.kind != RT_RESUME_SLOT)
		return 0;
	memcpy(slot, p.buf, p.res.slot_len);
	if (plen)
		memcpy(page + PROLOGUE, pro, plen);
	/* jmp rel32 to the slot, or jmp *0(%rip) + abs64 */
	if (addr_of(slot) - addr_of(jmp + 5) + 0x80000000ULL < 0x100000000ULL) {
		rel = (int32_t)(addr_of(slot) - addr_of(jmp + 5));
		jmp[0] = 0xe9;
		memcpy(jmp + 1, &rel, 4);
	} else {
		uint64_t abs = addr_of(slot);

		memcpy(jmp, "\xff\x25\x00\x00\x00\x00", 6);
		memcpy(jmp + 6, &abs, 8);
	}
	__builtin___clear_cache((char *)page, (char *)page + PAGE);
	__builtin___clear_cache((char *)slot, (char *)slot + RT_ARCH_SLOT_MAX);
	fn = (uint64_t (*)(void))(uintptr_t)(page + PROLOGUE);
	return fn();
}

/* The far page, or NULL when the address space has no room for it. */
static uint8_t *far_page(uint8_t *page)
{
	return exec_page((void *)(uintptr_t)(addr_of(page) + (8ULL << 30)));
}

TEST_CASE(run_call_direct)
{
	/* 0x0: call CALLEE; 0x5: ret */
	static const uint8_t site[] = { 0xe8, 0xfb, 0x00, 0x00, 0x00, 0xc3 };
	uint8_t *page = exec_page(NULL), *far;
	enum rt_refusal why;

	if (!page)
		return;                 /* no executable memory here */
	memcpy(page, site, sizeof(site));
	TEST_EQ(run_site(page, 0, 5, page + NEAR_SLOT, NULL, 0, &why), 42);
	TEST_EQ(why, RT_REFUSE_NONE);
	far = far_page(page);
	if (far) {
		/* the slot reaches the callee and comes back by abs64 */
		TEST_EQ(run_site(page, 0, 5, far + NEAR_SLOT, NULL, 0, &why),
			42);
		TEST_EQ(why, RT_REFUSE_NONE);
		munmap(far, PAGE);
	}
	munmap(page, PAGE);
}

TEST_CASE(run_rip_relative)
{
	/* 0x40: mov 0x1b9(%rip),%rax, which reads 0x200; 0x47: ret */
	static const uint8_t site[] = {
		0x48, 0x8b, 0x05, 0xb9, 0x01, 0x00, 0x00, 0xc3,
	};
	static const uint64_t data = 0x1122334455667788ULL;
	uint8_t *page = exec_page(NULL);
	enum rt_refusal why;

	if (!page)
		return;
	memcpy(page + 0x40, site, sizeof(site));
	memcpy(page + 0x200, &data, sizeof(data));
	TEST_EQ(run_site(page, 0x40, 7, page + NEAR_SLOT, NULL, 0, &why),
		data);
	TEST_EQ(why, RT_REFUSE_NONE);
	munmap(page, PAGE);
}

TEST_CASE(run_call_through_stack)
{
	/* lea CALLEE(%rip),%rax; push %rax; push $0 */
	uint8_t pro[] = { 0x48, 0x8d, 0x05, 0, 0, 0, 0, 0x50, 0x6a, 0x00 };
	/* 0x300: call *0x8(%rsp); 0x304: add $16,%rsp; ret */
	static const uint8_t site8[] = {
		0xff, 0x54, 0x24, 0x08, 0x48, 0x83, 0xc4, 0x10, 0xc3,
	};
	/* 0x310: call *(%rsp); 0x313: add $8,%rsp; ret */
	static const uint8_t site0[] = {
		0xff, 0x14, 0x24, 0x48, 0x83, 0xc4, 0x08, 0xc3,
	};
	int32_t lea = CALLEE - (PROLOGUE + 7);
	uint8_t *page = exec_page(NULL);
	enum rt_refusal why;

	if (!page)
		return;
	memcpy(pro + 3, &lea, 4);
	memcpy(page + 0x300, site8, sizeof(site8));
	memcpy(page + 0x310, site0, sizeof(site0));
	/* the callee is at 8(%rsp) at the first site */
	TEST_EQ(run_site(page, 0x300, 4, page + NEAR_SLOT, pro, sizeof(pro),
			 &why), 42);
	TEST_EQ(why, RT_REFUSE_NONE);
	/* and at (%rsp) at the second: no push $0 */
	TEST_EQ(run_site(page, 0x310, 3, page + NEAR_SLOT, pro, 8, &why), 42);
	TEST_EQ(why, RT_REFUSE_NONE);
	munmap(page, PAGE);
}
