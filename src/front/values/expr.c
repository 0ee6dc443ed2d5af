// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DWARF location expressions, evaluated for a stopped thread: libdw finds
 * the expression that holds at the ip (dwarf_getlocation_addr: location
 * lists included) and decodes it; this runs its stack machine on the
 * thread's registers and memory, pieces and all.  libdw has no public
 * evaluator for it.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/util.h"
#include "values-int.h"

#define STACK_MAX 64
#define DWARF_REGS 17

struct machine {
	const struct vview *v;
	uint64_t st[STACK_MAX];
	size_t sp;
	enum { AT_MEM, AT_REG, AT_STACK, AT_IMPLICIT } at;
	unsigned reg;
	const uint8_t *implicit;
	size_t implicit_len;
	bool frame;             /* it read the stack or frame pointer */
	Dwarf_Attribute *attr;  /* whose expression it runs, or NULL */
};

/* The byte the prologue's saves wrote last at @a, if they wrote one. */
static bool saved_byte(const struct vview *v, rt_raddr a, uint8_t *out)
{
	for (size_t i = v->nspills; i-- > 0;) {
		const struct rt_spill *s = &v->spills[i];

		if (a >= s->addr && a < s->addr + s->len) {
			*out = (uint8_t)(s->value >> (8 * (a - s->addr)));
			return true;
		}
	}
	return false;
}

int rt_vmem(const struct vview *v, rt_raddr addr, void *buf, size_t len)
{
	int err = rt_mem_read(v->fr->mem, addr, buf, len);

	if (err)
		return err;
	/* what the emulated prologue stored is not in memory yet */
	for (size_t k = 0; k < len; k++)
		saved_byte(v, addr + k, (uint8_t *)buf + k);
	return 0;
}

bool rt_vsaved(const struct vview *v, rt_raddr addr, size_t len)
{
	uint8_t b;

	for (size_t k = 0; k < len; k++)
		if (!saved_byte(v, addr + k, &b))
			return false;
	return true;
}

int rt_vread(const struct vview *v, const struct lval *lv, size_t off,
	     void *buf, size_t len)
{
	if (lv->kind == LV_MEM)
		return rt_vmem(v, lv->addr + off, buf, len);
	if (off > lv->nbytes || len > lv->nbytes - off)
		return -EIO;
	memcpy(buf, lv->bytes + off, len);
	return 0;
}

/* @len bytes of DWARF register @reg: an integer one of @regs, or a float
 * or vector one at the stop (the prologue's saves leave those as they
 * are), when the frame has them. */
static bool reg_bytes(const struct vview *v, const struct rt_regs *regs,
		      unsigned reg, void *out, size_t len)
{
	uint64_t all[DWARF_REGS];
	uint8_t vb[32];

	if (reg < rt_arch_dwarf_regs(regs, all, DWARF_REGS)) {
		if (len > sizeof(all[0]))
			return false;
		memcpy(out, &all[reg], len);
		return true;
	}
	if (!v->fr->fp ||
	    rt_arch_dwarf_vreg(v->fr->fp, reg, vb, sizeof(vb)) < len)
		return false;
	memcpy(out, vb, len);
	return true;
}

static bool reg_value(const struct vview *v, unsigned reg, uint64_t *out)
{
	*out = 0;
	return reg_bytes(v, &v->regs, reg, out, sizeof(*out));
}

static bool push(struct machine *m, uint64_t x)
{
	if (m->sp == STACK_MAX)
		return false;
	m->st[m->sp++] = x;
	return true;
}

static int frame_base(const struct vview *v, uint64_t *out);
static int cfa(const struct vview *v, uint64_t *out);

/* Operations on the stack's top entries; -ENOTSUP for any other. */
static int arith(struct machine *m, const Dwarf_Op *op)
{
	uint64_t a, b;

	if (op->atom == DW_OP_plus_uconst || op->atom == DW_OP_neg ||
	    op->atom == DW_OP_not || op->atom == DW_OP_dup ||
	    op->atom == DW_OP_drop) {
		if (!m->sp)
			return -ENOTSUP;
		a = m->st[m->sp - 1];
		switch (op->atom) {
		case DW_OP_plus_uconst: m->st[m->sp - 1] = a + op->number; break;
		case DW_OP_neg: m->st[m->sp - 1] = -a; break;
		case DW_OP_not: m->st[m->sp - 1] = ~a; break;
		case DW_OP_dup: return push(m, a) ? 0 : -ENOTSUP;
		case DW_OP_drop: m->sp--; break;
		}
		return 0;
	}
	if (m->sp < 2)
		return -ENOTSUP;
	b = m->st[--m->sp];
	a = m->st[m->sp - 1];
	switch (op->atom) {
	case DW_OP_plus: a += b; break;
	case DW_OP_minus: a -= b; break;
	case DW_OP_mul: a *= b; break;
	case DW_OP_and: a &= b; break;
	case DW_OP_or: a |= b; break;
	case DW_OP_xor: a ^= b; break;
	case DW_OP_shl: a = b < 64 ? a << b : 0; break;
	case DW_OP_shr: a = b < 64 ? a >> b : 0; break;
	case DW_OP_shra: a = (uint64_t)((int64_t)a >> (b < 64 ? b : 63)); break;
	case DW_OP_swap: m->st[m->sp++] = a; a = b; break;
	default: return -ENOTSUP;
	}
	m->st[m->sp - 1] = a;
	return 0;
}

/* Values pushed from nowhere but the operation and the registers. */
static int load(struct machine *m, const Dwarf_Op *op)
{
	uint64_t x = 0;
	uint8_t atom = op->atom;

	if (atom >= DW_OP_lit0 && atom <= DW_OP_lit31)
		x = atom - DW_OP_lit0;
	else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
		if (!reg_value(m->v, atom - DW_OP_breg0, &x))
			return -ENOTSUP;
		x += op->number;
		m->frame |= (unsigned)(atom - DW_OP_breg0) ==
				    rt_arch_dwarf_sp() ||
			    (unsigned)(atom - DW_OP_breg0) ==
				    rt_arch_dwarf_fp();
	} else if (atom == DW_OP_bregx) {
		if (!reg_value(m->v, (unsigned)op->number, &x))
			return -ENOTSUP;
		x += op->number2;
	} else if (atom == DW_OP_fbreg) {
		if (frame_base(m->v, &x))
			return -ENOTSUP;
		x += op->number;
		m->frame = true;
	} else if (atom == DW_OP_call_frame_cfa) {
		if (cfa(m->v, &x))
			return -ENOTSUP;
		m->frame = true;
	} else if (atom == DW_OP_addr) {
		x = op->number + m->v->bias;
	} else {
		switch (atom) {
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u:
		case DW_OP_const8u: case DW_OP_constu: case DW_OP_const1s:
		case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s:
		case DW_OP_consts:
			x = op->number;
			break;
		default:
			return -ENOTSUP;
		}
	}
	return push(m, x) ? 0 : -ENOTSUP;
}

static int deref(struct machine *m, size_t len)
{
	uint64_t x = 0;

	if (!m->sp || len > 8 ||
	    rt_vmem(m->v, m->st[m->sp - 1], &x, len))
		return -ENODATA;
	m->st[m->sp - 1] = x;
	return 0;
}

/* Moves the location computed so far into @lv's bytes at @off. */
static int take(struct machine *m, struct lval *lv, size_t off, size_t len)
{
	uint64_t x;

	if (off + len > VALUE_BYTES_MAX)
		return -ENOTSUP;
	switch (m->at) {
	case AT_REG:
		if (!reg_bytes(m->v, &m->v->regs, m->reg, lv->bytes + off, len))
			return -ENOTSUP;
		break;
	case AT_STACK:
		if (!m->sp)
			return -ENODATA;
		x = m->st[m->sp - 1];
		memset(lv->bytes + off, 0, len);
		memcpy(lv->bytes + off, &x, MIN(len, sizeof(x)));
		break;
	case AT_IMPLICIT:
		memset(lv->bytes + off, 0, len);
		memcpy(lv->bytes + off, m->implicit, MIN(len, m->implicit_len));
		break;
	case AT_MEM:
		/* an empty piece is a part the compiler did not keep */
		if (!m->sp || rt_vmem(m->v, m->st[m->sp - 1], lv->bytes + off,
				      len))
			return -ENODATA;
		break;
	}
	m->sp = 0;
	m->at = AT_MEM;
	return 0;
}

/* A register's value at the function's entry: the stop's own, since
 * arguments are read at the entry only (libdw gives the inner
 * expression as a block: one DW_OP_regN is all rustc writes there). */
static int entry_value(struct machine *m, const Dwarf_Op *op)
{
	Dwarf_Attribute block;
	Dwarf_Op *in;
	size_t nin;
	uint64_t x = 0;

	if (m->v->fr->at_exit || !m->attr ||
	    dwarf_getlocation_attr(m->attr, op, &block) != 0 ||
	    dwarf_getlocation(&block, &in, &nin) != 0 || nin != 1 ||
	    in[0].atom < DW_OP_reg0 || in[0].atom > DW_OP_reg31 ||
	    !reg_bytes(m->v, &m->v->fr->regs, in[0].atom - DW_OP_reg0, &x,
		       sizeof(x)))
		return -ENODATA;
	return push(m, x) ? 0 : -ENOTSUP;
}

/* The value the expression holds itself (a constant the compiler folded),
 * through libdw's accessor for the op's block. */
static int implicit_value(struct machine *m, const Dwarf_Op *op)
{
	Dwarf_Block blk;

	if (!m->attr || dwarf_getlocation_implicit_value(m->attr, op, &blk))
		return -ENODATA;
	m->at = AT_IMPLICIT;
	m->implicit = blk.data;
	m->implicit_len = blk.length;
	return 0;
}

static int step(struct machine *m, const Dwarf_Op *op, struct lval *lv)
{
	uint8_t atom = op->atom;

	if (atom >= DW_OP_reg0 && atom <= DW_OP_reg31) {
		m->at = AT_REG;
		m->reg = atom - DW_OP_reg0;
		return 0;
	}
	switch (atom) {
	case DW_OP_regx:
		m->at = AT_REG;
		m->reg = (unsigned)op->number;
		return 0;
	case DW_OP_stack_value:
		m->at = AT_STACK;
		return 0;
	case DW_OP_implicit_value:
		return implicit_value(m, op);
	case DW_OP_piece:
		lv->kind = LV_BYTES;
		lv->nbytes += op->number;
		return take(m, lv, lv->nbytes - op->number, op->number);
	case DW_OP_deref:
		return deref(m, 8);
	case DW_OP_deref_size:
		return deref(m, op->number);
	case DW_OP_entry_value:
	case DW_OP_GNU_entry_value:
		return entry_value(m, op);
	}
	return load(m, op) == 0 ? 0 : arith(m, op);
}

static int run(const struct vview *v, Dwarf_Attribute *attr,
	       const Dwarf_Op *ops, size_t n, struct lval *lv)
{
	struct machine m = { .v = v, .at = AT_MEM, .attr = attr };
	int err = 0;

	memset(lv, 0, sizeof(*lv));
	for (size_t i = 0; i < n && !err; i++)
		err = step(&m, &ops[i], lv);
	if (err || lv->kind == LV_BYTES)
		return err;
	if (m.at == AT_MEM) {
		if (!m.sp)
			return -ENODATA;
		lv->addr = m.st[m.sp - 1];
		lv->frame = m.frame;
		return 0;
	}
	lv->kind = LV_BYTES;
	lv->nbytes = 8;
	return take(&m, lv, 0, 8);
}

int rt_vlocate(const struct vview *v, Dwarf_Attribute *attr,
	       struct lval *lv)
{
	Dwarf_Addr pc = rt_arch_ip(&v->regs) - v->bias;
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_getlocation_addr(attr, pc, &ops, &n, 1) <= 0 || !n)
		return -ENODATA;
	return run(v, attr, ops, n, lv);
}

/* DW_AT_frame_base of the function: a register (rustc: the stack
 * pointer) whose value is the base, or an address. */
static int frame_base(const struct vview *v, uint64_t *out)
{
	static __thread bool busy;
	Dwarf_Attribute a;
	Dwarf_Die fn = v->fn;
	struct lval lv;
	int err;

	/* a frame base defined by itself (DW_OP_fbreg in it) is bad DWARF */
	if (busy || !dwarf_attr(&fn, DW_AT_frame_base, &a))
		return -ENOTSUP;
	busy = true;
	err = rt_vlocate(v, &a, &lv);
	busy = false;
	if (err)
		return err;
	*out = lv.kind == LV_MEM ? lv.addr : 0;
	if (lv.kind == LV_BYTES)
		memcpy(out, lv.bytes, sizeof(*out));
	return 0;
}

/* The canonical frame address at the ip, by the module's CFI (rustc's
 * frame base for a frame that probes the stack). */
static int cfa(const struct vview *v, uint64_t *out)
{
	rt_raddr pc = rt_arch_ip(&v->regs);
	Dwfl_Module *mod = dwfl_addrmodule(v->fr->dwfl, pc);
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi = mod ? dwfl_module_eh_cfi(mod, &bias) : NULL;
	Dwarf_Frame *frame = NULL;
	Dwarf_Op *ops;
	size_t n;
	struct lval lv;
	int err = -ENOTSUP;

	if (mod && !cfi)
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
		return -ENOTSUP;
	if (dwarf_frame_cfa(frame, &ops, &n) == 0 &&
	    run(v, NULL, ops, n, &lv) == 0 && lv.kind == LV_MEM) {
		*out = lv.addr;
		err = 0;
	}
	free(frame);
	return err;
}
