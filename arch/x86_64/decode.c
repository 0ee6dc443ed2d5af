/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * x86-64 instruction decoding: the only file in rtrace that calls capstone.
 * It turns a function's bytes into struct rt_insn records, each classified
 * by what it does to control flow, with the encoding facts the slot
 * builder needs (where a RIP-relative displacement sits, where the ModRM
 * byte is, whether a memory operand is based on rsp).
 *
 * Pure: it reads only its arguments and keeps no state but the capstone
 * handle of the calling thread.
 */
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rtrace/arch.h"
#include "rtrace/archreg.h"
#include "rtrace/compiler.h"
#include "x86_64.h"

/*
 * One handle per thread, opened on first use and kept for the thread's
 * life.  A handle carries decoder state (error code, option bits) and
 * capstone makes no promise that two threads may decode through one, so
 * sharing a global would need a lock on a path that probes.c runs for
 * every selected function.
 */
static __thread csh cs_handle;
static __thread bool cs_ready;

static int open_capstone(csh *out)
{
	cs_err err;

	if (cs_ready) {
		*out = cs_handle;
		return 0;
	}
	err = cs_open(CS_ARCH_X86, CS_MODE_64, &cs_handle);
	if (err != CS_ERR_OK)
		return err == CS_ERR_MEM ? -ENOMEM : -ENOTSUP;
	/* The operand and encoding details are what we classify by. */
	if (cs_option(cs_handle, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		cs_close(&cs_handle);
		return -ENOTSUP;
	}
	cs_ready = true;
	*out = cs_handle;
	return 0;
}

struct id_map {
	uint16_t cs;    /* capstone's x86_reg or x86_insn */
	uint8_t ours;   /* enum x64_reg or enum x64_cond */
};

static const struct id_map gp_regs[] = {
	{ X86_REG_RAX, X64_RAX }, { X86_REG_RCX, X64_RCX },
	{ X86_REG_RDX, X64_RDX }, { X86_REG_RBX, X64_RBX },
	{ X86_REG_RSP, X64_RSP }, { X86_REG_RBP, X64_RBP },
	{ X86_REG_RSI, X64_RSI }, { X86_REG_RDI, X64_RDI },
	{ X86_REG_R8, X64_R8 },   { X86_REG_R9, X64_R9 },
	{ X86_REG_R10, X64_R10 }, { X86_REG_R11, X64_R11 },
	{ X86_REG_R12, X64_R12 }, { X86_REG_R13, X64_R13 },
	{ X86_REG_R14, X64_R14 }, { X86_REG_R15, X64_R15 },
};

static const struct id_map jcc_conds[] = {
	{ X86_INS_JO, X64_CC_O },   { X86_INS_JNO, X64_CC_NO },
	{ X86_INS_JB, X64_CC_B },   { X86_INS_JAE, X64_CC_AE },
	{ X86_INS_JE, X64_CC_E },   { X86_INS_JNE, X64_CC_NE },
	{ X86_INS_JBE, X64_CC_BE }, { X86_INS_JA, X64_CC_A },
	{ X86_INS_JS, X64_CC_S },   { X86_INS_JNS, X64_CC_NS },
	{ X86_INS_JP, X64_CC_P },   { X86_INS_JNP, X64_CC_NP },
	{ X86_INS_JL, X64_CC_L },   { X86_INS_JGE, X64_CC_GE },
	{ X86_INS_JLE, X64_CC_LE }, { X86_INS_JG, X64_CC_G },
};

static int map_id(const struct id_map *map, size_t n, unsigned id)
{
	for (size_t i = 0; i < n; i++)
		if (map[i].cs == id)
			return map[i].ours;
	return -1;
}

/* Hardware number of a 64-bit general-purpose register. */
static uint8_t reg_number(x86_reg reg)
{
	int nr = map_id(gp_regs, ARRAY_SIZE(gp_regs), reg);

	return nr < 0 ? X64_REG_NONE : (uint8_t)nr;
}

/* Condition code of a jcc, or -1 when @id is not one. */
static int jcc_cond(unsigned id)
{
	return map_id(jcc_conds, ARRAY_SIZE(jcc_conds), id);
}

/* Control flow that neither the slot nor the tracer reproduces. */
static bool is_branch_other(unsigned id)
{
	switch (id) {
	case X86_INS_LOOP:
	case X86_INS_LOOPE:
	case X86_INS_LOOPNE:
	case X86_INS_JCXZ:
	case X86_INS_JECXZ:
	case X86_INS_JRCXZ:
	case X86_INS_XBEGIN:
	case X86_INS_RETF:
	case X86_INS_RETFQ:
	case X86_INS_IRET:
	case X86_INS_IRETD:
	case X86_INS_IRETQ:
	case X86_INS_LJMP:
	case X86_INS_LCALL:
	case X86_INS_SYSRET:
	case X86_INS_SYSEXIT:
		return true;
	default:
		return false;
	}
}

/*
 * The single operand of a near branch, or NULL when it has none or when an
 * operand-size prefix makes it vendor-dependent: AMD then truncates to 16
 * bits (a relative one even takes a rel16), Intel ignores the prefix.
 * REX.W wins over 0x66 on both, which is how the TLS general-dynamic call
 * (data16 data16 rex.W call __tls_get_addr) stays a plain call.
 */
static const cs_x86_op *branch_operand(const cs_x86 *x)
{
	if (x->op_count != 1)
		return NULL;
	if (x->prefix[2] == 0x66 && !(x->rex & X64_REX_W))
		return NULL;
	return &x->operands[0];
}

/* Whether a direct branch with this first opcode byte takes a rel8 (jmp
 * short, jcc short, loop/jrcxz); the others take a rel32. */
static bool is_rel8_opcode(uint8_t op)
{
	return op == 0xeb || (op >= 0x70 && op <= 0x7f) ||
	       (op >= 0xe0 && op <= 0xe3);
}

/*
 * Sets the target of a direct branch; false when @x is not one.  The
 * target is computed from the encoding (@in holds the bytes by now): the
 * rel8 or rel32 ends the instruction.  capstone 4 truncates the target of
 * "data16 rex.W jmp rel32" (66 48 e9) to 16 bits as if the 0x66 applied,
 * though REX.W overrides it (branch_operand() lets it through for that
 * reason), and a wrong target here sends the thread to a wrong address.
 */
static bool set_direct_target(const cs_x86 *x, struct rt_insn *in)
{
	const cs_x86_op *op = branch_operand(x);
	unsigned rel_len = is_rel8_opcode(x->opcode[0]) ? 1 : 4;
	const uint8_t *rel;

	if (!op || op->type != X86_OP_IMM || in->len <= rel_len)
		return false;
	rel = in->bytes + in->len - rel_len;
	in->target = in->addr + in->len +
		     (rel_len == 1 ? (int64_t)(int8_t)rel[0]
				   : (int64_t)(int32_t)((uint32_t)rel[0] |
							(uint32_t)rel[1] << 8 |
							(uint32_t)rel[2] << 16 |
							(uint32_t)rel[3] << 24));
	return true;
}

static void classify_jmp(const cs_x86 *x, struct rt_insn *in)
{
	const cs_x86_op *op = branch_operand(x);

	in->cls = RT_INSN_BRANCH_OTHER;
	if (!op)
		return;
	switch (op->type) {
	case X86_OP_IMM:
		if (set_direct_target(x, in))
			in->cls = RT_INSN_JMP;
		break;
	case X86_OP_REG:
		in->cls = RT_INSN_JMP_REG;
		in->arch.reg = reg_number(op->reg);
		break;
	case X86_OP_MEM:
		in->cls = RT_INSN_JMP_MEM;
		break;
	default:
		break;
	}
}

static void classify_call(const cs_x86 *x, struct rt_insn *in)
{
	const cs_x86_op *op = branch_operand(x);

	in->cls = RT_INSN_BRANCH_OTHER;
	if (!op)
		return;
	if (op->type == X86_OP_IMM) {
		if (set_direct_target(x, in))
			in->cls = RT_INSN_CALL;
	} else if (op->type == X86_OP_REG || op->type == X86_OP_MEM) {
		in->cls = RT_INSN_CALL_INDIRECT;
	}
}

static void classify(const cs_insn *ci, struct rt_insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	int cc = jcc_cond(ci->id);

	in->cls = RT_INSN_PLAIN;
	if (cc >= 0) {
		in->cls = set_direct_target(x, in) ? RT_INSN_JCC
						   : RT_INSN_BRANCH_OTHER;
		in->arch.cond = (uint8_t)cc;
		return;
	}
	switch (ci->id) {
	case X86_INS_RET:
		in->cls = RT_INSN_RET;
		in->ends = true;
		break;
	case X86_INS_JMP:
		classify_jmp(x, in);
		in->ends = true;
		break;
	case X86_INS_CALL:
		classify_call(x, in);
		break;
	case X86_INS_INT3:
		in->cls = RT_INSN_TRAP;
		in->pad = true;
		in->ends = true;
		break;
	case X86_INS_NOP:
		in->pad = true;
		break;
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
	case X86_INS_INT:       /* int $0x80 is the legacy system call gate */
		in->cls = RT_INSN_SYSCALL;
		break;
	case X86_INS_UD2:
	case X86_INS_UD2B:
	case X86_INS_HLT:
		in->ends = true;
		break;
	default:
		if (is_branch_other(ci->id)) {
			in->cls = RT_INSN_BRANCH_OTHER;
			set_direct_target(x, in);
		}
		break;
	}
}

static bool is_rip(x86_reg reg)
{
	return reg == X86_REG_RIP || reg == X86_REG_EIP;
}

static bool is_rsp(x86_reg reg)
{
	return reg == X86_REG_RSP || reg == X86_REG_ESP;
}

static bool capstone_says_rip_relative(const cs_x86 *x)
{
	for (unsigned i = 0; i < x->op_count; i++)
		if (x->operands[i].type == X86_OP_MEM &&
		    is_rip(x->operands[i].mem.base))
			return true;
	return false;
}

/*
 * Offset of the disp32 of a RIP-relative operand: 0 when there is none, -1
 * when capstone's view and the encoding disagree.  Both are checked because
 * a wrong answer here makes the slot access the wrong address silently:
 * in 64-bit mode ModRM mod=00 rm=101 always means disp32(%rip), and capstone
 * 4 is known to misreport disp_size (2 under a 0x66 prefix), so the size is
 * taken from the architecture, not from capstone.
 */
static int rip_disp_offset(const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	unsigned m = x->encoding.modrm_offset, d = x->encoding.disp_offset;
	bool by_modrm = m && m < ci->size &&
			X64_MODRM_MOD(ci->bytes[m]) == X64_MOD_DISP0 &&
			X64_MODRM_RM(ci->bytes[m]) == 5;
	bool by_operand = capstone_says_rip_relative(x);

	if (!by_modrm && !by_operand)
		return 0;
	if (by_modrm != by_operand || d != m + 1 || d + 4 > ci->size)
		return -1;
	return (int)d;
}

static bool has_rsp_operand(const cs_x86 *x)
{
	for (unsigned i = 0; i < x->op_count; i++) {
		const cs_x86_op *op = &x->operands[i];

		if (op->type == X86_OP_MEM &&
		    (is_rsp(op->mem.base) || is_rsp(op->mem.index)))
			return true;
	}
	return false;
}

/*
 * Instructions that scalar code runs on vector registers too, which say
 * nothing of lanes: moves (movq, movaps, movdqu: copies, spills), scalar
 * arithmetic and conversions (addsd, cvtsi2sd, ucomisd), logic (pxor,
 * andps: zeroing, absolute values, signs), lane inserts and extracts, and
 * the float unpacks and shuffles of LLVM's u64-to-f64 sequence.
 */
static const char *const scalar_stems[] = {
	"mov", "pmovmsk", "ucomis", "comis", "xor", "and", "or", "pxor",
	"pand", "por", "pinsr", "pextr", "cvtsi", "cvtsd", "cvtss", "cvttsd",
	"cvttss", "unpck", "shufp", "insertps", "extractps", "ldmxcsr",
	"stmxcsr",
};

static bool is_vec_reg(x86_reg r)
{
	return (r >= X86_REG_XMM0 && r <= X86_REG_XMM31) ||
	       (r >= X86_REG_YMM0 && r <= X86_REG_YMM31) ||
	       (r >= X86_REG_ZMM0 && r <= X86_REG_ZMM31);
}

/* Whether @ci computes lanes of a vector register: a vector register
 * operand, no scalar stem or suffix ("ss", "sd").  Not an idiom on one
 * register (pcmpeqd %xmm0,%xmm0 makes all ones), and no constant read
 * from memory in place: a vectorised loop keeps its constants in
 * registers, scalar idioms (u64 to f64, masks) read them. */
static bool is_packed(const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	const char *m = ci->mnemonic[0] == 'v' ? ci->mnemonic + 1
					       : ci->mnemonic;
	size_t len = strlen(m);
	bool vec = false;

	for (uint8_t i = 0; i < x->op_count; i++) {
		const cs_x86_op *o = &x->operands[i];

		if (o->type == X86_OP_REG && is_vec_reg(o->reg))
			vec = true;
		if (o->type == X86_OP_MEM && is_rip(o->mem.base))
			return false;
	}
	if (!vec || len < 3 || (m[len - 2] == 's' &&
				(m[len - 1] == 's' || m[len - 1] == 'd')))
		return false;
	if (x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
	    x->operands[1].type == X86_OP_REG &&
	    x->operands[0].reg == x->operands[1].reg)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(scalar_stems); i++)
		if (strncmp(m, scalar_stems[i], strlen(scalar_stems[i])) == 0)
			return false;
	return true;
}

/* Fills @in from capstone's record; -EILSEQ when the encoding is odd. */
static int fill_insn(const cs_insn *ci, struct rt_insn *in)
{
	const cs_x86 *x = &ci->detail->x86;
	int disp_off = rip_disp_offset(ci);

	if (disp_off < 0 || ci->size > X64_INSN_MAX)
		return -EILSEQ;
	in->addr = ci->address;
	in->len = (uint8_t)ci->size;
	memcpy(in->bytes, ci->bytes, ci->size);
	in->arch.disp_off = (uint8_t)disp_off;
	in->arch.modrm_off = x->encoding.modrm_offset;
	in->arch.rsp_operand = has_rsp_operand(x);
	in->packed = is_packed(ci);
	classify(ci, in);
	return 0;
}

int rt_arch_decode(const uint8_t *code, size_t len, rt_raddr addr,
		   rt_insn_vec *out)
{
	struct rt_insn in;
	cs_insn *ci;
	csh h;
	int err;

	err = open_capstone(&h);
	if (err)
		return err;
	ci = cs_malloc(h);
	if (!ci)
		return -ENOMEM;
	while (len && cs_disasm_iter(h, &code, &len, &addr, ci)) {
		memset(&in, 0, sizeof(in));
		err = fill_insn(ci, &in);
		if (err)
			break;
		vec_push(out, in);
	}
	if (!err && len)
		err = -EILSEQ;
	cs_free(ci, 1);
	return err;
}

int rt_arch_mem_target(const struct rt_insn *insn, rt_raddr *slot)
{
	int32_t disp;

	if (insn->cls != RT_INSN_JMP_MEM && insn->cls != RT_INSN_CALL_INDIRECT)
		return -ENOENT;
	if (!insn->arch.disp_off)
		return -ENOENT;  /* through registers: known only at run time */
	memcpy(&disp, insn->bytes + insn->arch.disp_off, sizeof(disp));
	*slot = insn->addr + insn->len + (int64_t)disp;
	return 0;
}

bool rt_arch_insn_rip_relative(const struct rt_insn *in)
{
	return in->arch.disp_off != 0;
}

/* ---- jump tables ----------------------------------------------------------
 *
 * LLVM's jump table in position-independent code:
 *
 *	lea    base, [rip + table]
 *	movsxd index, dword ptr [base + 4*index]
 *	add    index, base
 *	jmp    index
 *
 * The table holds 32-bit offsets from its own start.  Finding the lea and
 * reading the offsets gives every place the jump can go.
 */

#define JT_LOOKBACK 64  /* the lea is often hoisted out of a loop */
#define JT_MAX 4096

/* The register that `add @reg, other` adds to @reg, or X86_REG_INVALID. */
static x86_reg added_base(const cs_insn *ci, x86_reg reg)
{
	const cs_x86 *x = &ci->detail->x86;

	if (ci->id != X86_INS_ADD || x->op_count != 2 ||
	    x->operands[0].type != X86_OP_REG || x->operands[0].reg != reg ||
	    x->operands[1].type != X86_OP_REG)
		return X86_REG_INVALID;
	return x->operands[1].reg;
}

/* The table address of `lea @reg, [rip + disp]` at @in, or 0. */
static rt_raddr lea_rip(const cs_insn *ci, const struct rt_insn *in,
			x86_reg reg)
{
	const cs_x86 *x = &ci->detail->x86;

	if (ci->id != X86_INS_LEA || x->op_count != 2 ||
	    x->operands[0].type != X86_OP_REG || x->operands[0].reg != reg ||
	    x->operands[1].type != X86_OP_MEM ||
	    x->operands[1].mem.base != X86_REG_RIP)
		return 0;
	return in->addr + in->len + (rt_raddr)x->operands[1].mem.disp;
}

/* Where the table of the jump at @insns[k] is, or 0; *shaped when the
 * jump adds a base to what it loads, as a table jump does.  The add sums
 * base and offset in either order: the lea may load either register. */
static rt_raddr find_table(csh cs, const struct rt_insn *insns, size_t k,
			   bool *shaped)
{
	x86_reg target = X86_REG_INVALID, base = X86_REG_INVALID;
	rt_raddr table = 0;
	cs_insn *ci;

	if (cs_disasm(cs, insns[k].bytes, insns[k].len, insns[k].addr, 1,
		      &ci) != 1)
		return 0;
	if (ci->detail->x86.op_count == 1 &&
	    ci->detail->x86.operands[0].type == X86_OP_REG)
		target = ci->detail->x86.operands[0].reg;
	cs_free(ci, 1);
	for (size_t j = k; target != X86_REG_INVALID && !table && j-- > 0 &&
			   k - j <= JT_LOOKBACK;) {
		if (cs_disasm(cs, insns[j].bytes, insns[j].len, insns[j].addr,
			      1, &ci) != 1)
			break;
		if (base == X86_REG_INVALID)
			base = added_base(ci, target);
		else if (!(table = lea_rip(ci, &insns[j], base)))
			table = lea_rip(ci, &insns[j], target);
		cs_free(ci, 1);
	}
	*shaped = base != X86_REG_INVALID;
	return table;
}

static bool is_boundary(const struct rt_insn *insns, size_t n, rt_raddr a)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (insns[m].addr < a)
			lo = m + 1;
		else
			hi = m;
	}
	return lo < n && insns[lo].addr == a;
}

/* The targets of the table at @table: its entries up to the first that
 * does not land on an instruction of the function. */
static size_t read_table(const struct rt_insn *insns, size_t n,
			 rt_raddr table,
			 int (*read)(void *ctx, rt_raddr addr, void *buf,
				     size_t len),
			 void *ctx, rt_raddr *targets, size_t max)
{
	rt_raddr lo = insns[0].addr, hi = insns[n - 1].addr + insns[n - 1].len;
	size_t got = 0;

	for (size_t i = 0; got < max && i < JT_MAX; i++) {
		int32_t off;
		rt_raddr to;

		if (read(ctx, table + 4 * i, &off, sizeof(off)))
			break;
		to = table + (rt_raddr)(int64_t)off;
		if (to < lo || to >= hi || !is_boundary(insns, n, to))
			break;
		targets[got++] = to;
	}
	return got;
}

/* Where `lea reg64, [rip + disp32]` at @in points, or 0. */
static rt_raddr lea_rip_bytes(const struct rt_insn *in)
{
	int32_t disp;

	if (in->len != 7 || (in->bytes[0] & 0xfb) != 0x48 ||
	    in->bytes[1] != 0x8d || (in->bytes[2] & 0xc7) != 0x05)
		return 0;
	memcpy(&disp, in->bytes + 3, sizeof(disp));
	return in->addr + in->len + (rt_raddr)(int64_t)disp;
}

/* The targets of every table that a rip-relative lea of the function
 * loads: a table jump whose base was loaded far from it (hoisted out of
 * the loop the jump dispatches) takes its base from one of them.  More
 * places than the jump's own only keep more bytes from being patched;
 * 0 when they do not all fit. */
static size_t all_tables(const struct rt_insn *insns, size_t n,
			 int (*read)(void *ctx, rt_raddr addr, void *buf,
				     size_t len),
			 void *ctx, rt_raddr *targets, size_t max)
{
	size_t got = 0;

	for (size_t i = 0; i < n; i++) {
		rt_raddr table = lea_rip_bytes(&insns[i]);

		if (!table)
			continue;
		got += read_table(insns, n, table, read, ctx, targets + got,
				  max - got);
		if (got == max)
			return 0;
	}
	return got;
}

size_t rt_arch_jump_table(const struct rt_insn *insns, size_t n, size_t k,
			  int (*read)(void *ctx, rt_raddr addr, void *buf,
				      size_t len),
			  void *ctx, rt_raddr *targets, size_t max)
{
	rt_raddr table;
	bool shaped = false;
	csh cs;

	if (insns[k].cls != RT_INSN_JMP_REG || open_capstone(&cs))
		return 0;
	table = find_table(cs, insns, k, &shaped);
	if (table)
		return read_table(insns, n, table, read, ctx, targets, max);
	return shaped ? all_tables(insns, n, read, ctx, targets, max) : 0;
}

/* ---- the register saves of a prologue --------------------------------- */

#define SAVES_STEPS_MAX 4096   /* instructions run, loops included */

#define GPR(n, d, w, b) { { #n, d, w, b }, offsetof(struct user_regs_struct, n) }

/* The general-purpose registers by the names of their 8, 4, 2 and 1 low
 * bytes, and where struct rt_regs keeps them. */
static const struct {
	const char *names[4];
	size_t off;
} gprs[] = {
	GPR(rax, "eax", "ax", "al"), GPR(rbx, "ebx", "bx", "bl"),
	GPR(rcx, "ecx", "cx", "cl"), GPR(rdx, "edx", "dx", "dl"),
	GPR(rsi, "esi", "si", "sil"), GPR(rdi, "edi", "di", "dil"),
	GPR(rbp, "ebp", "bp", "bpl"), GPR(r8, "r8d", "r8w", "r8b"),
	GPR(r9, "r9d", "r9w", "r9b"), GPR(r10, "r10d", "r10w", "r10b"),
	GPR(r11, "r11d", "r11w", "r11b"), GPR(r12, "r12d", "r12w", "r12b"),
	GPR(r13, "r13d", "r13w", "r13b"), GPR(r14, "r14d", "r14w", "r14b"),
	GPR(r15, "r15d", "r15w", "r15b"),
};

/* A prologue's state while it is run: the registers, which of them hold
 * what rtrace cannot know (a load from memory), and the stores. */
struct saves {
	csh h;
	struct rt_regs *r;
	const struct rt_fpregs *fp;    /* NULL: xmm stores end the run */
	uint32_t unknown;              /* bit i: gprs[i] */
	struct rt_spill *out;
	size_t max, n;
	bool cmp, equal;               /* a cmp of known values just ran */
	rt_raddr jump;                 /* a jne just taken, to here */
};

/* The register @reg names (its index in gprs), or -1 (ah, rsp, rip...). */
static int gpr_of(csh h, x86_reg reg)
{
	const char *name = cs_reg_name(h, reg);

	for (size_t i = 0; name && i < ARRAY_SIZE(gprs); i++)
		for (size_t k = 0; k < 4; k++)
			if (strcmp(name, gprs[i].names[k]) == 0)
				return (int)i;
	return -1;
}

static uint64_t *gpr_slot(struct saves *s, int i)
{
	return (uint64_t *)((char *)&s->r->r + gprs[i].off);
}

/* Writes @size bytes of @v into register @i as the CPU does: a 32-bit
 * write clears the upper half, narrower ones keep the rest. */
static void gpr_set(struct saves *s, int i, uint64_t v, unsigned size)
{
	uint64_t *p = gpr_slot(s, i), mask;

	if (size >= 4) {
		*p = size == 8 ? v : (uint32_t)v;
		return;
	}
	mask = (UINT64_C(1) << (8 * size)) - 1;
	*p = (*p & ~mask) | (v & mask);
}

/* The value of source operand @o, false when it is not known. */
static bool operand(struct saves *s, const cs_x86_op *o, uint64_t *v)
{
	int i;

	if (o->type == X86_OP_IMM) {
		*v = (uint64_t)o->imm;
		return true;
	}
	if (o->type != X86_OP_REG)
		return false;
	if (o->reg == X86_REG_RSP) {
		*v = s->r->r.rsp;
		return true;
	}
	i = gpr_of(s->h, o->reg);
	if (i < 0 || (s->unknown & (1u << i)))
		return false;
	*v = *gpr_slot(s, i);
	return true;
}

static bool is_stack_slot(const cs_x86_op *o)
{
	return o->type == X86_OP_MEM && o->mem.base == X86_REG_RSP &&
	       o->mem.index == X86_REG_INVALID &&
	       o->mem.segment == X86_REG_INVALID;
}

static bool store(struct saves *s, rt_raddr at, uint8_t len, uint64_t v)
{
	if (s->n == s->max)
		return false;
	s->out[s->n++] = (struct rt_spill){ at, len, v };
	return true;
}

/* Reads back @len bytes the run stored at @at, the latest store of each
 * byte winning; false when one of them was not stored by the run. */
static bool load(const struct saves *s, rt_raddr at, size_t len,
		 uint64_t *v)
{
	*v = 0;
	for (size_t k = 0; k < len; k++) {
		size_t i = s->n;

		while (i-- > 0)
			if (at + k >= s->out[i].addr &&
			    at + k < s->out[i].addr + s->out[i].len)
				break;
		if (i == SIZE_MAX)
			return false;
		*v |= (s->out[i].value >> (8 * (at + k - s->out[i].addr)) &
		       0xff) << (8 * k);
	}
	return true;
}

/* mov, movabs, and: to a register (a load from memory makes it unknown: a later
 * store of it ends the run) or to a stack slot. */
static bool run_mov(struct saves *s, const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	int i = a->type == X86_OP_REG ? gpr_of(s->h, a->reg) : -1;
	uint64_t v;

	if (is_stack_slot(a))
		return ci->id != X86_INS_AND && operand(s, b, &v) &&
		       store(s, s->r->r.rsp + a->mem.disp, a->size, v);
	if (i < 0)
		return false;
	if (ci->id != X86_INS_AND && b->type == X86_OP_MEM) {
		if (!is_stack_slot(b) ||
		    !load(s, s->r->r.rsp + b->mem.disp, b->size, &v)) {
			s->unknown |= 1u << i;
			return true;
		}
	} else if (!operand(s, b, &v)) {
		s->unknown |= 1u << i;
		return true;
	}
	if (ci->id == X86_INS_AND)
		v &= *gpr_slot(s, i);
	gpr_set(s, i, v, a->size);
	s->unknown &= ~(1u << i);
	return true;
}

/* movss, movsd: an xmm register's low 4 or 8 bytes to a stack slot (how
 * unoptimised code spills float arguments). */
static bool run_fstore(struct saves *s, const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	uint8_t bytes[16];
	uint64_t v = 0;

	if (!s->fp || x->op_count != 2 || !is_stack_slot(a) ||
	    b->type != X86_OP_REG || b->reg < X86_REG_XMM0 ||
	    b->reg > X86_REG_XMM15 || a->size > sizeof(v) ||
	    rt_arch_dwarf_vreg(s->fp, X64_DWARF_XMM0 +
				      (unsigned)(b->reg - X86_REG_XMM0),
			       bytes, sizeof(bytes)) < a->size)
		return false;
	memcpy(&v, bytes, a->size);
	return store(s, s->r->r.rsp + a->mem.disp, a->size, v);
}

/* lea of a stack slot or of something beside the code (a constant the
 * optimiser passes in place of an argument). */
static bool run_lea(struct saves *s, const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	int i = a->type == X86_OP_REG ? gpr_of(s->h, a->reg) : -1;
	uint64_t v;

	if (i < 0 || b->type != X86_OP_MEM || b->mem.index != X86_REG_INVALID)
		return false;
	if (b->mem.base == X86_REG_RIP)
		v = ci->address + ci->size + (uint64_t)b->mem.disp;
	else if (b->mem.base == X86_REG_RSP)
		v = s->r->r.rsp + (uint64_t)b->mem.disp;
	else
		return false;
	gpr_set(s, i, v, a->size);
	s->unknown &= ~(1u << i);
	return true;
}

/* sub from a register other than rsp, cmp, jne: what a prologue that
 * probes its stack page by page runs (mov %rsp,%r11; sub $N,%r11; 1: sub
 * $0x1000,%rsp; movq $0,(%rsp); cmp %r11,%rsp; jne 1b). */
static bool run_probe_loop(struct saves *s, const cs_insn *ci, bool cmp)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	uint64_t va, vb;
	int i;

	switch (ci->id) {
	case X86_INS_SUB:
		i = gpr_of(s->h, a->reg);
		if (x->op_count != 2 || a->type != X86_OP_REG || i < 0 ||
		    !operand(s, a, &va) || !operand(s, b, &vb))
			return false;
		gpr_set(s, i, va - vb, a->size);
		return true;
	case X86_INS_CMP:
		if (x->op_count != 2 || !operand(s, a, &va) ||
		    !operand(s, b, &vb))
			return false;
		s->cmp = true;
		s->equal = va == vb;
		return true;
	case X86_INS_JNE:
		if (!cmp || x->op_count != 1 || a->type != X86_OP_IMM)
			return false;
		if (!s->equal)
			s->jump = (rt_raddr)a->imm;
		return true;
	}
	return false;
}

/* Runs one instruction of the saving prefix; false at the first other. */
static bool run_save(struct saves *s, const cs_insn *ci)
{
	const cs_x86 *x = &ci->detail->x86;
	const cs_x86_op *a = &x->operands[0], *b = &x->operands[1];
	bool cmp = s->cmp;
	uint64_t v;

	s->cmp = false;
	switch (ci->id) {
	case X86_INS_PUSH:
		if (x->op_count != 1 || a->size != 8 || !operand(s, a, &v) ||
		    !store(s, s->r->r.rsp - 8, 8, v))
			return false;
		s->r->r.rsp -= 8;
		return true;
	case X86_INS_SUB:
		if (x->op_count != 2 || a->type != X86_OP_REG ||
		    a->reg != X86_REG_RSP)
			break;
		if (b->type != X86_OP_IMM)
			return false;
		s->r->r.rsp -= (uint64_t)b->imm;
		return true;
	case X86_INS_MOV:
	case X86_INS_MOVABS:
	case X86_INS_AND:
		return x->op_count == 2 && run_mov(s, ci);
	case X86_INS_LEA:
		return x->op_count == 2 && run_lea(s, ci);
	case X86_INS_MOVSS:
	case X86_INS_MOVSD:
		return run_fstore(s, ci);
	}
	return run_probe_loop(s, ci, cmp);
}

size_t rt_arch_run_saves(const uint8_t *code, size_t len, struct rt_regs *r,
			 const struct rt_fpregs *fp, struct rt_spill *out,
			 size_t max)
{
	struct saves s = { .r = r, .fp = fp, .out = out, .max = max };
	const uint8_t *code0 = code;
	size_t len0 = len, steps = 0;
	struct rt_regs start;
	rt_raddr addr = r->r.rip, ip0 = r->r.rip;
	cs_insn *ci;

	memcpy(&start, r, sizeof(start));
	if (open_capstone(&s.h) || !(ci = cs_malloc(s.h)))
		return 0;
	while (len && steps++ < SAVES_STEPS_MAX &&
	       cs_disasm_iter(s.h, &code, &len, &addr, ci) && run_save(&s, ci)) {
		if (s.jump) {
			/* only back into what was already run */
			if (s.jump < ip0 || s.jump >= addr)
				break;
			code = code0 + (s.jump - ip0);
			len = len0 - (s.jump - ip0);
			addr = s.jump;
			s.jump = 0;
		}
		r->r.rip = addr;
	}
	cs_free(ci, 1);
	/* what the debug information places in a register rtrace lost
	 * track of would be wrong: keep the entry's values there */
	for (size_t i = 0; i < ARRAY_SIZE(gprs); i++)
		if (s.unknown & (1u << i))
			*gpr_slot(&s, (int)i) =
				*(const uint64_t *)((const char *)&start.r +
						    gprs[i].off);
	return s.n;
}
