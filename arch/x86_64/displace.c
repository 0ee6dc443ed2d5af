/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Out-of-line execution of the instruction a breakpoint displaced.
 *
 * rt_arch_plan_resume() decides, once per probe site, how a thread leaves
 * the site after a hit: through a slot in the scratch page (a copy of the
 * instruction, re-encoded for the slot's address, usually followed by a
 * jump back), or by a jump the tracer computes itself.  There is one
 * handler per instruction class.  rt_arch_resume_ip() then applies the plan
 * on every hit, so it only reads registers it was given.
 *
 * Pure: no I/O, no allocation, no state.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtrace/arch.h"
#include "rtrace/compiler.h"
#include "emit.h"
#include "x86_64.h"

/*
 * The largest slot: the push of an indirect call, the call turned into a
 * jmp (at most 3 bytes longer once an rsp displacement grows to disp32),
 * and an absolute jump.
 */
_Static_assert(X64_MOVED_CALL_MAX + X64_JMP_ABS_LEN <= RT_ARCH_SLOT_MAX,
	       "x86-64 slots must fit RT_ARCH_SLOT_MAX");

/* Pushes @ret without touching the flags or any register but rsp. */
static void emit_push(struct x64_code *s, rt_raddr ret)
{
	static const uint8_t lea_rsp[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };
	static const uint8_t mov_lo[] = { 0xc7, 0x04, 0x24 };
	static const uint8_t mov_hi[] = { 0xc7, 0x44, 0x24, 0x04 };

	x64_emit(s, lea_rsp, sizeof(lea_rsp));
	x64_emit(s, mov_lo, sizeof(mov_lo));
	x64_emit_u32(s, (uint32_t)ret);
	x64_emit(s, mov_hi, sizeof(mov_hi));
	x64_emit_u32(s, (uint32_t)(ret >> 32));
}

/* ---- one handler per instruction class ------------------------------- */

/* Anything that falls through: the copy, then a jump back. */
static enum rt_refusal relocate_rip_relative(const struct rt_insn *insn,
					     struct x64_code *s)
{
	enum rt_refusal why = x64_emit_insn(s, insn);

	if (why == RT_REFUSE_NONE)
		x64_emit_jmp(s, insn->addr + insn->len);
	return why;
}

/* ret and ret imm16 are position independent and never come back. */
static enum rt_refusal emulate_ret(const struct rt_insn *insn,
				   struct x64_code *s)
{
	return x64_emit_insn(s, insn);
}

/* Position independent, or RIP-relative fixed up; never comes back. */
static enum rt_refusal emulate_jmp_indirect(const struct rt_insn *insn,
					    struct x64_code *s)
{
	return x64_emit_insn(s, insn);
}

static enum rt_refusal emulate_jmp(const struct rt_insn *insn,
				   struct rt_resume *res)
{
	res->kind = RT_RESUME_JUMP;
	res->target = insn->target;
	return RT_REFUSE_NONE;
}

static enum rt_refusal emulate_jmp_reg(const struct rt_insn *insn,
				       struct rt_resume *res)
{
	res->kind = RT_RESUME_JMP_REG;
	res->arch.reg = insn->arch.reg;
	return RT_REFUSE_NONE;
}

static enum rt_refusal emulate_jcc(const struct rt_insn *insn,
				   struct rt_resume *res)
{
	if (insn->arch.cond >= X64_NCONDS)
		return RT_REFUSE_UNDECODABLE;
	res->kind = RT_RESUME_JCC;
	res->arch.cond = insn->arch.cond;
	res->target = insn->target;
	return RT_REFUSE_NONE;
}

/* A direct call: push the original return address, jump to the callee. */
static enum rt_refusal emulate_call(const struct rt_insn *insn,
				    struct x64_code *s)
{
	emit_push(s, insn->addr + insn->len);
	x64_emit_jmp(s, insn->target);
	return RT_REFUSE_NONE;
}

/* Whether @rex (0 for none) extends the ModRM rm / SIB base field. */
static bool rex_b(uint8_t rex)
{
	return rex & X64_REX_B;
}

/*
 * The call read [rsp + disp] before its push; after the slot's push the
 * same bytes sit at [rsp + disp + 8].  FF /2 has no immediate, so the
 * operand (ModRM, SIB, displacement) ends the instruction and is rebuilt
 * from the ModRM byte on, growing disp0 to disp8 to disp32 as needed.
 */
static enum rt_refusal rebase_rsp_operand(uint8_t *code, size_t *len,
					  unsigned m, uint8_t rex)
{
	uint8_t modrm = code[m], mod = X64_MODRM_MOD(modrm);
	size_t dlen = mod == X64_MOD_DISP0 ? 0 : mod == X64_MOD_DISP8 ? 1 : 4;
	int64_t disp;

	if (mod == X64_MOD_REG || X64_MODRM_RM(modrm) != X64_RM_SIB ||
	    m + 2 + dlen != *len || X64_SIB_BASE(code[m + 1]) != X64_RSP ||
	    rex_b(rex))
		return RT_REFUSE_STACK_CALL;
	disp = dlen == 0 ? 0 : dlen == 1 ? (int8_t)code[m + 2]
					 : x64_get_s32(code + m + 2);
	disp += 8;
	if (disp >= INT8_MIN && disp <= INT8_MAX) {
		mod = X64_MOD_DISP8;
		code[m + 2] = (uint8_t)disp;
		dlen = 1;
	} else if (disp <= INT32_MAX) {
		mod = X64_MOD_DISP32;
		x64_put_u32(code + m + 2, (uint32_t)disp);
		dlen = 4;
	} else {
		return RT_REFUSE_STACK_CALL;
	}
	/* A call padded with prefixes can have no room left for the longer
	 * displacement: past 15 bytes the CPU raises #UD in the slot. */
	if (m + 2 + dlen > X64_INSN_MAX)
		return RT_REFUSE_STACK_CALL;
	code[m] = X64_MODRM(mod, X64_MODRM_REG(modrm), X64_RM_SIB);
	*len = m + 2 + dlen;
	return RT_REFUSE_NONE;
}

/*
 * Turns call r/m64 (FF /2) into jmp r/m64 (FF /4) with the same operand,
 * prefixes included (REX selects r8-r15, notrack and bnd keep their
 * meaning).  The operand must still name what the call named once the
 * slot has pushed the return address.
 */
static enum rt_refusal call_to_jmp(const struct rt_insn *insn, uint8_t *code,
				   size_t *len)
{
	unsigned m = insn->arch.modrm_off;
	uint8_t modrm, rex;

	if (!m || m >= insn->len || insn->bytes[m - 1] != X64_OP_GRP5 ||
	    X64_MODRM_REG(insn->bytes[m]) != X64_GRP5_CALL)
		return RT_REFUSE_UNDECODABLE;
	memcpy(code, insn->bytes, insn->len);
	*len = insn->len;
	modrm = code[m];
	code[m] = X64_MODRM(X64_MODRM_MOD(modrm), X64_GRP5_JMP,
			    X64_MODRM_RM(modrm));
	/* In 64-bit mode a REX prefix sits right before the opcode. */
	rex = m >= 2 && X64_IS_REX(code[m - 2]) ? code[m - 2] : 0;
	if (X64_MODRM_MOD(modrm) == X64_MOD_REG) {
		/* call *%rsp would jump 8 bytes below its target */
		if (X64_MODRM_RM(modrm) == X64_RSP && !rex_b(rex))
			return RT_REFUSE_STACK_CALL;
		return RT_REFUSE_NONE;
	}
	if (insn->arch.rsp_operand)
		return rebase_rsp_operand(code, len, m, rex);
	return RT_REFUSE_NONE;
}

/* An indirect call: push the original return address, jmp the operand. */
static enum rt_refusal emulate_call_indirect(const struct rt_insn *insn,
					     struct x64_code *s)
{
	uint8_t jmp[X64_INSN_MAX + 3];
	enum rt_refusal why;
	size_t len;

	why = call_to_jmp(insn, jmp, &len);
	if (why != RT_REFUSE_NONE)
		return why;
	emit_push(s, insn->addr + insn->len);
	/* An rsp-based operand is never RIP-relative: disp_off still holds. */
	return x64_emit_relocated(s, jmp, len, insn->arch.disp_off,
			      insn->addr + insn->len);
}

enum rt_refusal x64_emit_moved_call(struct x64_code *c,
				    const struct rt_insn *insn)
{
	if (insn->cls == RT_INSN_CALL)
		return emulate_call(insn, c);
	if (insn->cls == RT_INSN_CALL_INDIRECT)
		return emulate_call_indirect(insn, c);
	return RT_REFUSE_UNDECODABLE;
}

/* The classes that run out of line. */
static enum rt_refusal build_slot(const struct rt_insn *insn,
				  struct x64_code *s)
{
	switch (insn->cls) {
	case RT_INSN_PLAIN:
	case RT_INSN_SYSCALL:
		return relocate_rip_relative(insn, s);
	case RT_INSN_RET:
		return emulate_ret(insn, s);
	case RT_INSN_JMP_REG:   /* through a register we have no number for */
	case RT_INSN_JMP_MEM:
		return emulate_jmp_indirect(insn, s);
	case RT_INSN_CALL:
	case RT_INSN_CALL_INDIRECT:
		return x64_emit_moved_call(s, insn);
	default:
		return RT_REFUSE_UNDECODABLE;
	}
}

enum rt_refusal rt_arch_plan_resume(const struct rt_insn *insn, rt_raddr slot,
				    uint8_t *buf, struct rt_resume *out)
{
	struct x64_code s = { .buf = buf, .base = slot, .len = 0 };
	enum rt_refusal why;

	memset(out, 0, sizeof(*out));
	out->next = insn->addr + insn->len;
	if (!insn->len || insn->len > X64_INSN_MAX)
		return RT_REFUSE_UNDECODABLE;
	switch (insn->cls) {
	case RT_INSN_JMP:
		return emulate_jmp(insn, out);
	case RT_INSN_JCC:
		return emulate_jcc(insn, out);
	case RT_INSN_JMP_REG:
		if (insn->arch.reg < X64_NREGS)
			return emulate_jmp_reg(insn, out);
		break;
	case RT_INSN_BRANCH_OTHER:
		return RT_REFUSE_BRANCH_OTHER;
	case RT_INSN_TRAP:
		return RT_REFUSE_TRAP_SITE;
	default:
		break;
	}
	why = build_slot(insn, &s);
	if (why != RT_REFUSE_NONE)
		return why;
	out->kind = RT_RESUME_SLOT;
	out->target = slot;
	out->slot_len = (uint8_t)s.len;
	return RT_REFUSE_NONE;
}

/* ---- on every hit ------------------------------------------------------ */

/* Whether jcc condition @cc holds for @flags (the low nibble of jcc). */
static bool cond_holds(unsigned cc, uint64_t flags)
{
	bool cf = flags & X64_FL_CF, pf = flags & X64_FL_PF;
	bool zf = flags & X64_FL_ZF, sf = flags & X64_FL_SF;
	bool of = flags & X64_FL_OF;
	bool holds;

	switch (cc >> 1) {
	case X64_CC_O >> 1:
		holds = of;
		break;
	case X64_CC_B >> 1:
		holds = cf;
		break;
	case X64_CC_E >> 1:
		holds = zf;
		break;
	case X64_CC_BE >> 1:
		holds = cf || zf;
		break;
	case X64_CC_S >> 1:
		holds = sf;
		break;
	case X64_CC_P >> 1:
		holds = pf;
		break;
	case X64_CC_L >> 1:
		holds = sf != of;
		break;
	default:                /* X64_CC_LE */
		holds = zf || sf != of;
		break;
	}
	/* Odd codes are the negation of the even one before them. */
	return holds != (cc & 1);
}

/* Where each x64_reg lives in struct user_regs_struct. */
static const uint16_t reg_offset[X64_NREGS] = {
	[X64_RAX] = offsetof(struct user_regs_struct, rax),
	[X64_RCX] = offsetof(struct user_regs_struct, rcx),
	[X64_RDX] = offsetof(struct user_regs_struct, rdx),
	[X64_RBX] = offsetof(struct user_regs_struct, rbx),
	[X64_RSP] = offsetof(struct user_regs_struct, rsp),
	[X64_RBP] = offsetof(struct user_regs_struct, rbp),
	[X64_RSI] = offsetof(struct user_regs_struct, rsi),
	[X64_RDI] = offsetof(struct user_regs_struct, rdi),
	[X64_R8] = offsetof(struct user_regs_struct, r8),
	[X64_R9] = offsetof(struct user_regs_struct, r9),
	[X64_R10] = offsetof(struct user_regs_struct, r10),
	[X64_R11] = offsetof(struct user_regs_struct, r11),
	[X64_R12] = offsetof(struct user_regs_struct, r12),
	[X64_R13] = offsetof(struct user_regs_struct, r13),
	[X64_R14] = offsetof(struct user_regs_struct, r14),
	[X64_R15] = offsetof(struct user_regs_struct, r15),
};

static uint64_t reg_value(const struct rt_regs *r, unsigned reg)
{
	uint64_t v;

	memcpy(&v, (const char *)&r->r + reg_offset[reg], sizeof(v));
	return v;
}

rt_raddr rt_arch_resume_ip(const struct rt_resume *res,
			   const struct rt_regs *r, bool *taken)
{
	switch (res->kind) {
	case RT_RESUME_JUMP:
		*taken = true;
		return res->target;
	case RT_RESUME_JCC:
		*taken = cond_holds(res->arch.cond, r->r.eflags);
		return *taken ? res->target : res->next;
	case RT_RESUME_JMP_REG:
		/* plan_resume only emits numbered registers */
		*taken = true;
		return reg_value(r, res->arch.reg % X64_NREGS);
	default:
		*taken = false;
		return res->target;
	}
}
