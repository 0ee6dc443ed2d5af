// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The x86-64 site finder and displaced-instruction builder on random
 * bytes.  Input: an 8-byte code address, an 8-byte slot offset, an 8-byte
 * register seed, then the code bytes (a short input is zero-padded).  Every
 * instruction that rt_arch_decode() finds is planned with
 * rt_arch_plan_resume() for a slot near the code (the offset, as a signed
 * 32-bit number) or anywhere (when the offset's top byte is 0xff), and the
 * plan is applied with rt_arch_resume_ip() to registers made from the seed.
 *
 * Properties, checked against the bytes rather than against decode.c:
 *  - decoding: instructions tile the buffer from the start, each holding
 *    the input's bytes; a direct branch's target is its end plus its rel;
 *  - a slot fits RT_ARCH_SLOT_MAX (the buffer has exactly that size, so
 *    the sanitizer sees any overrun) and re-disassembles as what it must
 *    do: the same instruction reaching the same absolute address, and a
 *    jump back to the next instruction; a call's push of the original
 *    return address and a jump to the callee; a ret as it was;
 *  - resume: a jcc goes where the condition, evaluated from the opcode
 *    nibble and EFLAGS by the manual's table, says; a jump through a
 *    register goes to that register's value.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rtrace/arch.h"
#include "fuzz.h"

#define HDR 24
#define CODE_MAX 64

static csh cs;

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int32_t get_s32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void make_regs(uint64_t seed, struct rt_regs *r)
{
	uint64_t *w = (uint64_t *)&r->r;

	for (size_t i = 0; i < sizeof(r->r) / sizeof(*w); i++)
		w[i] = splitmix(&seed);
}

/* ---- an independent reading of the bytes ------------------------------ */

static bool is_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0xf0: case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e:
	case 0x26: case 0x64: case 0x65: case 0x66: case 0x67:
		return true;
	default:
		return false;
	}
}

/* Offset of the opcode: after legacy prefixes and REX bytes, in any
 * order; a REX counts only right before the opcode (SDM 2.2.1). */
static size_t opcode_at(const struct rt_insn *in, uint8_t *rex)
{
	size_t i = 0;

	*rex = 0;
	for (; i < in->len; i++) {
		if ((in->bytes[i] & 0xf0) == 0x40)
			*rex = in->bytes[i];
		else if (is_legacy_prefix(in->bytes[i]))
			*rex = 0;
		else
			break;
	}
	return i;
}

static bool has_prefix(const struct rt_insn *in, uint8_t p)
{
	for (size_t i = 0; i < in->len && is_legacy_prefix(in->bytes[i]); i++)
		if (in->bytes[i] == p)
			return true;
	return false;
}

/* Jcc condition from the opcode's low nibble, as the SDM tabulates it. */
static bool sdm_cond(unsigned cc, uint64_t fl)
{
	bool cf = fl & 1, pf = fl & 4, zf = fl & 64, sf = fl & 128,
	     of = fl & 2048, v;

	switch (cc >> 1) {
	case 0: v = of; break;
	case 1: v = cf; break;
	case 2: v = zf; break;
	case 3: v = cf || zf; break;
	case 4: v = sf; break;
	case 5: v = pf; break;
	case 6: v = sf != of; break;
	default: v = zf || sf != of; break;
	}
	return cc & 1 ? !v : v;
}

/* The condition nibble of a jcc (7x rel8 or 0f 8x rel32), or -1. */
static int jcc_nibble(const struct rt_insn *in)
{
	uint8_t rex;
	size_t i = opcode_at(in, &rex);

	if (i < in->len && (in->bytes[i] & 0xf0) == 0x70)
		return in->bytes[i] & 15;
	if (i + 1 < in->len && in->bytes[i] == 0x0f &&
	    (in->bytes[i + 1] & 0xf0) == 0x80)
		return in->bytes[i + 1] & 15;
	return -1;
}

/* Value of the register that "jmp *%reg" (FF /4, mod 3) names. */
static bool jmp_reg_value(const struct rt_insn *in, const struct rt_regs *r,
			  uint64_t *v)
{
	const uint64_t regs[16] = {
		r->r.rax, r->r.rcx, r->r.rdx, r->r.rbx, r->r.rsp, r->r.rbp,
		r->r.rsi, r->r.rdi, r->r.r8,  r->r.r9,  r->r.r10, r->r.r11,
		r->r.r12, r->r.r13, r->r.r14, r->r.r15,
	};
	uint8_t rex;
	size_t i = opcode_at(in, &rex);

	if (i + 1 >= in->len || in->bytes[i] != 0xff ||
	    (in->bytes[i + 1] >> 6) != 3 || ((in->bytes[i + 1] >> 3) & 7) != 4)
		return false;
	*v = regs[(in->bytes[i + 1] & 7) | (rex & 1) << 3];
	return true;
}

/* ---- the slot, disassembled again -------------------------------------- */

struct slot_view {
	cs_insn *ci;
	size_t n;
	const uint8_t *buf;
	rt_raddr base;
	size_t len;
};

/* Absolute address the RIP-relative operand of @ci reaches, if any. */
static bool rip_target(const cs_insn *ci, uint64_t *to)
{
	const cs_x86 *x = &ci->detail->x86;

	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type != X86_OP_MEM)
			continue;
		if (op->mem.base == X86_REG_RIP) {
			*to = ci->address + ci->size + (int64_t)op->mem.disp;
			return true;
		}
		/* addr32: the sum wraps at 32 bits */
		if (op->mem.base == X86_REG_EIP) {
			*to = (uint32_t)(ci->address + ci->size +
					 (int64_t)op->mem.disp);
			return true;
		}
	}
	return false;
}

/* The jump at slot instruction @k lands at @to: e9 rel32, or
 * jmp *0(%rip) followed by the absolute address. */
static void check_jump_to(const struct slot_view *v, size_t k, uint64_t to)
{
	const cs_insn *ci;
	size_t off;

	FUZZ_CHECK(k < v->n);
	ci = &v->ci[k];
	off = ci->address - v->base;
	if (ci->bytes[0] == 0xe9) {
		FUZZ_CHECK(ci->size == 5 && off + 5 == v->len);
		FUZZ_CHECK(ci->address + 5 + (int64_t)get_s32(ci->bytes + 1) ==
			   to);
		return;
	}
	FUZZ_CHECK(ci->size == 6 && ci->bytes[0] == 0xff &&
		   ci->bytes[1] == 0x25 && get_s32(ci->bytes + 2) == 0);
	FUZZ_CHECK(off + 14 == v->len && get_u64(v->buf + off + 6) == to);
}

/* The slot's first instruction is @in moved: same bytes but the disp32,
 * reaching the same address. */
static void check_moved(const struct slot_view *v, size_t k,
			const struct rt_insn *in, const cs_insn *orig)
{
	const cs_insn *ci;
	uint64_t a, b;
	bool ra, rb;

	FUZZ_CHECK(k < v->n);
	ci = &v->ci[k];
	FUZZ_CHECK(ci->size == in->len);
	ra = rip_target(orig, &a);
	rb = rip_target(ci, &b);
	FUZZ_CHECK(ra == rb);
	if (!ra) {
		FUZZ_CHECK(memcmp(ci->bytes, in->bytes, in->len) == 0);
		return;
	}
	if (has_prefix(in, 0x67))
		FUZZ_CHECK((uint32_t)a == (uint32_t)b);
	else
		FUZZ_CHECK(a == b);
}

/* lea -8(%rsp),%rsp; movl $lo,(%rsp); movl $hi,4(%rsp), as bytes. */
static void check_push(const struct slot_view *v, uint64_t ret)
{
	static const uint8_t lea[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };

	FUZZ_CHECK(v->len >= 20 && memcmp(v->buf, lea, 5) == 0);
	FUZZ_CHECK(v->buf[5] == 0xc7 && v->buf[6] == 0x04 && v->buf[7] == 0x24);
	FUZZ_CHECK(v->buf[12] == 0xc7 && v->buf[13] == 0x44 &&
		   v->buf[14] == 0x24 && v->buf[15] == 0x04);
	FUZZ_CHECK(((uint64_t)(uint32_t)get_s32(v->buf + 16) << 32 |
		    (uint32_t)get_s32(v->buf + 8)) == ret);
	FUZZ_CHECK(v->n >= 4 && v->ci[3].address == v->base + 20);
}

static bool is_sp(x86_reg r)
{
	return r == X86_REG_RSP || r == X86_REG_ESP;
}

/*
 * The jmp that replaced call @orig names what the call named once the
 * return address is pushed: the same register, the same RIP-relative
 * address, an rsp-based address 8 bytes further, any other address as is.
 */
static void check_same_operand(const cs_insn *orig, const cs_insn *jmp)
{
	const cs_x86_op *a = &orig->detail->x86.operands[0];
	const cs_x86_op *b = &jmp->detail->x86.operands[0];
	uint64_t ta, tb;

	FUZZ_CHECK(orig->detail->x86.op_count == 1 &&
		   jmp->detail->x86.op_count == 1 && a->type == b->type);
	if (a->type == X86_OP_REG) {
		FUZZ_CHECK(a->reg == b->reg && !is_sp(a->reg));
		return;
	}
	FUZZ_CHECK(a->type == X86_OP_MEM && a->mem.segment == b->mem.segment &&
		   a->mem.base == b->mem.base && a->mem.index == b->mem.index &&
		   a->mem.scale == b->mem.scale);
	if (rip_target(orig, &ta)) {
		FUZZ_CHECK(rip_target(jmp, &tb) && ta == tb);
	} else if (is_sp(a->mem.base) || is_sp(a->mem.index)) {
		/* (%esp under addr32: the sum wraps at 32 bits, still +8) */
		FUZZ_CHECK(is_sp(a->mem.base) && b->mem.disp == a->mem.disp + 8);
	} else {
		FUZZ_CHECK(a->mem.disp == b->mem.disp);
	}
}

static void check_slot(const struct rt_insn *in, const uint8_t *buf,
		       const struct rt_resume *res)
{
	struct slot_view v = { .buf = buf, .base = res->target,
			       .len = res->slot_len };
	cs_insn *orig = NULL;
	rt_raddr next = in->addr + in->len;

	FUZZ_CHECK(res->slot_len > 0 && res->slot_len <= RT_ARCH_SLOT_MAX);
	FUZZ_CHECK(cs_disasm(cs, in->bytes, in->len, in->addr, 1, &orig) == 1);
	v.n = cs_disasm(cs, buf, v.len, v.base, 0, &v.ci);
	switch (in->cls) {
	case RT_INSN_PLAIN:
	case RT_INSN_SYSCALL:
		check_moved(&v, 0, in, orig);
		check_jump_to(&v, 1, next);
		break;
	case RT_INSN_RET:
	case RT_INSN_JMP_MEM:
	case RT_INSN_JMP_REG:
		check_moved(&v, 0, in, orig);
		FUZZ_CHECK(v.ci[0].size == v.len);
		break;
	case RT_INSN_CALL:
		check_push(&v, next);
		check_jump_to(&v, 3, in->target);
		break;
	case RT_INSN_CALL_INDIRECT:
		check_push(&v, next);
		/* jmp with the call's operand: ModRM reg field 4 */
		FUZZ_CHECK(v.n == 4 && v.ci[3].id == X86_INS_JMP);
		FUZZ_CHECK(v.ci[3].address + v.ci[3].size == v.base + v.len);
		check_same_operand(orig, &v.ci[3]);
		break;
	default:
		FUZZ_CHECK(!"a slot for a class that has none");
	}
	cs_free(orig, 1);
	if (v.ci)
		cs_free(v.ci, v.n);
}

/* ---- per instruction --------------------------------------------------- */

static void check_branch_target(const struct rt_insn *in)
{
	uint8_t rex;
	size_t i = opcode_at(in, &rex);
	int64_t rel;

	if (in->cls != RT_INSN_JMP && in->cls != RT_INSN_JCC &&
	    in->cls != RT_INSN_CALL)
		return;
	/* rel8 (eb, 7x) or rel32 (e8, e9, 0f 8x) ends the instruction */
	if (in->bytes[i] == 0xeb || (in->bytes[i] & 0xf0) == 0x70)
		rel = (int8_t)in->bytes[in->len - 1];
	else
		rel = get_s32(in->bytes + in->len - 4);
	FUZZ_CHECK(in->target == in->addr + in->len + rel);
}

static void check_resume(const struct rt_insn *in, const struct rt_resume *res,
			 const struct rt_regs *regs)
{
	bool taken = false;
	rt_raddr ip = rt_arch_resume_ip(res, regs, &taken);
	uint64_t v;
	int cc;

	switch (res->kind) {
	case RT_RESUME_SLOT:
		FUZZ_CHECK(ip == res->target);
		break;
	case RT_RESUME_JUMP:
		FUZZ_CHECK(in->cls == RT_INSN_JMP && ip == in->target && taken);
		break;
	case RT_RESUME_JCC:
		cc = jcc_nibble(in);
		FUZZ_CHECK(in->cls == RT_INSN_JCC && cc >= 0);
		FUZZ_CHECK(taken == sdm_cond((unsigned)cc, regs->r.eflags));
		FUZZ_CHECK(ip == (taken ? in->target : in->addr + in->len));
		break;
	case RT_RESUME_JMP_REG:
		FUZZ_CHECK(in->cls == RT_INSN_JMP_REG && taken);
		FUZZ_CHECK(jmp_reg_value(in, regs, &v) && ip == v);
		break;
	default:
		FUZZ_CHECK(!"unknown resume kind");
	}
}

static void one_insn(const struct rt_insn *in, rt_raddr slot,
		     const struct rt_regs *regs)
{
	uint8_t *buf = malloc(RT_ARCH_SLOT_MAX);
	struct rt_resume res;
	enum rt_refusal why;

	if (!buf)
		abort();
	check_branch_target(in);
	why = rt_arch_plan_resume(in, slot, buf, &res);
	FUZZ_CHECK((unsigned)why < RT_REFUSE_MAX && rt_refusal_str(why));
	FUZZ_CHECK(res.next == in->addr + in->len);
	if (why == RT_REFUSE_NONE) {
		if (res.kind == RT_RESUME_SLOT) {
			FUZZ_CHECK(res.target == slot);
			check_slot(in, buf, &res);
		}
		check_resume(in, &res, regs);
	}
	free(buf);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK ||
	    cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t hdr[HDR] = { 0 };
	rt_insn_vec v = { 0 };
	struct rt_regs regs;
	rt_raddr addr, slot, at;
	uint64_t off;
	int err;

	if (!cs)
		LLVMFuzzerInitialize(NULL, NULL);
	memcpy(hdr, data, size < HDR ? size : HDR);
	addr = get_u64(hdr);
	off = get_u64(hdr + 8);
	make_regs(get_u64(hdr + 16), &regs);
	data += size < HDR ? size : HDR;
	size -= size < HDR ? size : HDR;
	if (size > CODE_MAX)
		size = CODE_MAX;
	/* most slots within reach (a signed 32-bit distance), some not */
	slot = off >> 56 == 0xff ? off : addr + (int64_t)(int32_t)off;

	err = rt_arch_decode(data, size, addr, &v);
	FUZZ_CHECK(err == 0 || err == -EILSEQ);
	at = addr;
	for (size_t i = 0; i < v.n; i++) {
		const struct rt_insn *in = &v.v[i];

		FUZZ_CHECK(in->addr == at && in->len >= 1 && in->len <= 15);
		FUZZ_CHECK(at - addr + in->len <= size);
		FUZZ_CHECK(memcmp(in->bytes, data + (at - addr), in->len) == 0);
		at += in->len;
		one_insn(in, slot + i * RT_ARCH_SLOT_MAX, &regs);
	}
	FUZZ_CHECK(err ? at - addr < size : at - addr == size);
	vec_free(&v);
	return 0;
}
