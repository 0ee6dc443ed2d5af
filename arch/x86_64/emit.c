// SPDX-License-Identifier: GPL-2.0-or-later
/* Writing x86-64 code for a known address (see emit.h). */
#include <string.h>

#include "emit.h"
#include "x86_64.h"

rt_raddr x64_pc(const struct x64_code *c)
{
	return c->base + c->len;
}

void x64_emit(struct x64_code *c, const void *p, size_t n)
{
	memcpy(c->buf + c->len, p, n);
	c->len += n;
}

void x64_emit_u32(struct x64_code *c, uint32_t v)
{
	uint8_t b[4] = { v, v >> 8, v >> 16, v >> 24 };

	x64_emit(c, b, sizeof(b));
}

void x64_emit_u64(struct x64_code *c, uint64_t v)
{
	x64_emit_u32(c, (uint32_t)v);
	x64_emit_u32(c, (uint32_t)(v >> 32));
}

int32_t x64_get_s32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 |
			 (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

void x64_put_u32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

bool x64_rel32_reaches(rt_raddr end, rt_raddr to, int32_t *rel)
{
	int64_t d = (int64_t)(to - end);

	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	*rel = (int32_t)d;
	return true;
}

void x64_emit_jmp(struct x64_code *c, rt_raddr to)
{
	static const uint8_t jmp_abs[] = { 0xff, 0x25, 0, 0, 0, 0 };
	uint8_t op = X64_OP_JMP_REL32;
	int32_t rel;

	if (x64_rel32_reaches(x64_pc(c) + X64_JMP_REL32_LEN, to, &rel)) {
		x64_emit(c, &op, 1);
		x64_emit_u32(c, (uint32_t)rel);
		return;
	}
	x64_emit(c, jmp_abs, sizeof(jmp_abs));
	x64_emit_u64(c, to);
}

void x64_emit_jcc(struct x64_code *c, unsigned cc, rt_raddr to)
{
	uint8_t op[2] = { 0x0f, (uint8_t)(0x80 | cc) };
	/* out of reach: the opposite condition skips an absolute jump */
	uint8_t skip[2] = { (uint8_t)(0x70 | (cc ^ 1)), 14 };
	int32_t rel;

	if (x64_rel32_reaches(x64_pc(c) + 6, to, &rel)) {
		x64_emit(c, op, sizeof(op));
		x64_emit_u32(c, (uint32_t)rel);
		return;
	}
	x64_emit(c, skip, sizeof(skip));
	x64_emit_jmp(c, to);
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

/* Under an address-size prefix the sum wraps at 32 bits, so any
 * displacement reaches. */
enum rt_refusal x64_emit_relocated(struct x64_code *c, const uint8_t *code,
				   size_t len, unsigned disp_off,
				   rt_raddr orig_end)
{
	uint8_t *p = c->buf + c->len;
	rt_raddr abs, end;
	int32_t rel;

	x64_emit(c, code, len);
	if (!disp_off)
		return RT_REFUSE_NONE;
	abs = orig_end + (int64_t)x64_get_s32(code + disp_off);
	end = x64_pc(c);
	if (has_addr32_prefix(code, disp_off))
		rel = (int32_t)((uint32_t)abs - (uint32_t)end);
	else if (!x64_rel32_reaches(end, abs, &rel))
		return RT_REFUSE_OUT_OF_RANGE;
	x64_put_u32(p + disp_off, (uint32_t)rel);
	return RT_REFUSE_NONE;
}

enum rt_refusal x64_emit_insn(struct x64_code *c, const struct rt_insn *insn)
{
	return x64_emit_relocated(c, insn->bytes, insn->len,
				  insn->arch.disp_off, insn->addr + insn->len);
}
