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
#include "x86_64.h"

/*
 * The largest slot: the push of an indirect call, the call turned into a
 * jmp (at most 3 bytes longer once an rsp displacement grows to disp32),
 * and an absolute jump.
 */
_Static_assert(X64_PUSH_SEQ_LEN + X64_INSN_MAX + 3 + X64_JMP_ABS_LEN <=
	       RT_ARCH_SLOT_MAX, "x86-64 slots must fit RT_ARCH_SLOT_MAX");

/* A slot being written: @buf holds the code that will run at @base. */
struct slot {
	uint8_t *buf;
	rt_raddr base;
	size_t len;
};

static rt_raddr slot_pc(const struct slot *s)
{
	return s->base + s->len;
}

static void emit(struct slot *s, const void *p, size_t n)
{
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void emit_u32(struct slot *s, uint32_t v)
{
	uint8_t b[4] = { v, v >> 8, v >> 16, v >> 24 };

	emit(s, b, sizeof(b));
}

static void emit_u64(struct slot *s, uint64_t v)
{
	emit_u32(s, (uint32_t)v);
	emit_u32(s, (uint32_t)(v >> 32));
}

static int32_t get_s32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Whether a rel32 measured from @end (the next instruction) reaches @to. */
static bool rel32_reaches(rt_raddr end, rt_raddr to, int32_t *rel)
{
	int64_t d = (int64_t)(to - end);

	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	*rel = (int32_t)d;
	return true;
}

/* A jump to @to: jmp rel32 when it reaches, else jmp *0(%rip) + abs64. */
static void emit_jmp(struct slot *s, rt_raddr to)
{
	static const uint8_t jmp_abs[] = { 0xff, 0x25, 0, 0, 0, 0 };
	uint8_t op = X64_OP_JMP_REL32;
	int32_t rel;

	if (rel32_reaches(slot_pc(s) + X64_JMP_REL32_LEN, to, &rel)) {
		emit(s, &op, 1);
		emit_u32(s, (uint32_t)rel);
		return;
	}
	emit(s, jmp_abs, sizeof(jmp_abs));
	emit_u64(s, to);
}

/* Pushes @ret without touching the flags or any register but rsp. */
static void emit_push(struct slot *s, rt_raddr ret)
{
	static const uint8_t lea_rsp[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };
	static const uint8_t mov_lo[] = { 0xc7, 0x04, 0x24 };
	static const uint8_t mov_hi[] = { 0xc7, 0x44, 0x24, 0x04 };

	emit(s, lea_rsp, sizeof(lea_rsp));
	emit(s, mov_lo, sizeof(mov_lo));
	emit_u32(s, (uint32_t)ret);
	emit(s, mov_hi, sizeof(mov_hi));
	emit_u32(s, (uint32_t)(ret >> 32));
}

/* Whether a legacy prefix of @code makes addresses 32-bit. */
static bool has_addr32_prefix(const uint8_t *code, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		switch (code[i]) {
		case X64_PFX_ADDR32:
			return true;
		case 0xf0: case 0xf2: case 0xf3: case 0x2e: case 0x36:
		case 0x3e: case 0x26: case 0x64: case 0x65: case 0x66:
			continue;
		default:
			return false;
		}
	}
	return false;
}

/*
 * Emits @len bytes of @code whose RIP-relative disp32 (at @disp_off, 0 for
 * none) was computed for an instruction ending at @orig_end, re-encoded so
 * that it reaches the same address from the slot.  Under an address-size
 * prefix the sum wraps at 32 bits, so any displacement reaches.
 */
static enum rt_refusal emit_relocated(struct slot *s, const uint8_t *code,
				      size_t len, unsigned disp_off,
				      rt_raddr orig_end)
{
	uint8_t *p = s->buf + s->len;
	rt_raddr abs, end;
	int32_t rel;

	emit(s, code, len);
	if (!disp_off)
		return RT_REFUSE_NONE;
	abs = orig_end + (int64_t)get_s32(code + disp_off);
	end = slot_pc(s);
	if (has_addr32_prefix(code, disp_off))
		rel = (int32_t)((uint32_t)abs - (uint32_t)end);
	else if (!rel32_reaches(end, abs, &rel))
		return RT_REFUSE_OUT_OF_RANGE;
	put_u32(p + disp_off, (uint32_t)rel);
	return RT_REFUSE_NONE;
}

static enum rt_refusal emit_insn(struct slot *s, const struct rt_insn *insn)
{
	return emit_relocated(s, insn->bytes, insn->len, insn->arch_disp_off,
			      insn->addr + insn->len);
}

/* ---- one handler per instruction class ------------------------------- */

/* Anything that falls through: the copy, then a jump back. */
static enum rt_refusal relocate_rip_relative(const struct rt_insn *insn,
					     struct slot *s)
{
	enum rt_refusal why = emit_insn(s, insn);

	if (why == RT_REFUSE_NONE)
		emit_jmp(s, insn->addr + insn->len);
	return why;
}

/* ret and ret imm16 are position independent and never come back. */
static enum rt_refusal emulate_ret(const struct rt_insn *insn, struct slot *s)
{
	return emit_insn(s, insn);
}

/* Position independent, or RIP-relative fixed up; never comes back. */
static enum rt_refusal emulate_jmp_indirect(const struct rt_insn *insn,
					    struct slot *s)
{
	return emit_insn(s, insn);
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
	res->arch_reg = insn->arch_reg;
	return RT_REFUSE_NONE;
}

static enum rt_refusal emulate_jcc(const struct rt_insn *insn,
				   struct rt_resume *res)
{
	if (insn->arch_cond >= X64_NCONDS)
		return RT_REFUSE_UNDECODABLE;
	res->kind = RT_RESUME_JCC;
	res->arch_cond = insn->arch_cond;
	res->target = insn->target;
	return RT_REFUSE_NONE;
}

/* A direct call: push the original return address, jump to the callee. */
static enum rt_refusal emulate_call(const struct rt_insn *insn,
				    struct slot *s)
{
	emit_push(s, insn->addr + insn->len);
	emit_jmp(s, insn->target);
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
					 : get_s32(code + m + 2);
	disp += 8;
	if (disp >= INT8_MIN && disp <= INT8_MAX) {
		mod = X64_MOD_DISP8;
		code[m + 2] = (uint8_t)disp;
		dlen = 1;
	} else if (disp <= INT32_MAX) {
		mod = X64_MOD_DISP32;
		put_u32(code + m + 2, (uint32_t)disp);
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
	unsigned m = insn->arch_modrm_off;
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
	if (insn->arch_rsp_operand)
		return rebase_rsp_operand(code, len, m, rex);
	return RT_REFUSE_NONE;
}

/* An indirect call: push the original return address, jmp the operand. */
static enum rt_refusal emulate_call_indirect(const struct rt_insn *insn,
					     struct slot *s)
{
	uint8_t jmp[X64_INSN_MAX + 3];
	enum rt_refusal why;
	size_t len;

	why = call_to_jmp(insn, jmp, &len);
	if (why != RT_REFUSE_NONE)
		return why;
	emit_push(s, insn->addr + insn->len);
	/* An rsp-based operand is never RIP-relative: disp_off still holds. */
	return emit_relocated(s, jmp, len, insn->arch_disp_off,
			      insn->addr + insn->len);
}

/* The classes that run out of line. */
static enum rt_refusal build_slot(const struct rt_insn *insn, struct slot *s)
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
		return emulate_call(insn, s);
	case RT_INSN_CALL_INDIRECT:
		return emulate_call_indirect(insn, s);
	default:
		return RT_REFUSE_UNDECODABLE;
	}
}

enum rt_refusal rt_arch_plan_resume(const struct rt_insn *insn, rt_raddr slot,
				    uint8_t *buf, struct rt_resume *out)
{
	struct slot s = { .buf = buf, .base = slot, .len = 0 };
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
		if (insn->arch_reg < X64_NREGS)
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
		*taken = cond_holds(res->arch_cond, r->r.eflags);
		return *taken ? res->target : res->next;
	case RT_RESUME_JMP_REG:
		/* plan_resume only emits numbered registers */
		*taken = true;
		return reg_value(r, res->arch_reg % X64_NREGS);
	default:
		*taken = false;
		return res->target;
	}
}

static const char *const refusal_text[RT_REFUSE_MAX] = {
	[RT_REFUSE_NONE] = "probed",
	[RT_REFUSE_UNDECODABLE] = "bytes do not decode",
	[RT_REFUSE_NO_CODE] = "no code (size 0 or outside any section)",
	[RT_REFUSE_BRANCH_OTHER] = "loop/jrcxz-type branch at a probe site",
	[RT_REFUSE_STACK_CALL] = "indirect call through the stack pointer",
	[RT_REFUSE_OUT_OF_RANGE] = "scratch slot out of reach (beyond 2 GiB)",
	[RT_REFUSE_TRAP_SITE] = "a breakpoint is already at the site",
};

const char *rt_refusal_str(enum rt_refusal why)
{
	if ((unsigned)why >= RT_REFUSE_MAX || !refusal_text[why])
		return "unknown reason";
	return refusal_text[why];
}
