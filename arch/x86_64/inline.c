// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The x86-64 half of the inline engine: the jump that replaces a patched
 * region, the trampolines it leads to, and where the recorder (recorder.S)
 * keeps what the tracer must find.
 *
 * A trampoline calls the recorder with the event word in %rdi, which it
 * saves around the call; a tail jump's also passes the target in %rsi.
 * It never touches the return address on the stack, so unwinding through
 * a traced frame works as without rtrace.
 *
 * Pure: no I/O, no allocation, no state.
 */
#include <string.h>

#include "rtrace/arch.h"
#include "rtrace/arch-jump.h"
#include "rtrace/compiler.h"
#include "emit.h"
#include "x86_64.h"

extern const uint8_t rt_x64_rec_begin[], rt_x64_rec_end[];
extern const uint8_t rt_x64_rec_entry[], rt_x64_rec_exit[];
extern const uint8_t rt_x64_rec_arg0[], rt_x64_rec_tail[];
extern const uint8_t rt_x64_rec_window[], rt_x64_rec_done[];
extern const uint8_t rt_x64_rec_full[], rt_x64_rec_miss[];
extern const uint8_t rt_x64_rec_data[], rt_x64_rec_syscall[];

#define OFF(sym) ((size_t)((sym) - rt_x64_rec_begin))

#define OP_PUSH_RDI 0x57
#define OP_POP_RDI 0x5f
#define OP_PUSH_RSI 0x56
#define OP_POP_RSI 0x5e
#define OP_CALL_REL32 0xe8

size_t rt_arch_patch_len(void)
{
	return X64_JMP_REL32_LEN;
}

bool rt_arch_patch_jump(rt_raddr at, rt_raddr to, uint8_t *out)
{
	int32_t rel;

	if (!x64_rel32_reaches(at + X64_JMP_REL32_LEN, to, &rel))
		return false;
	out[0] = X64_OP_JMP_REL32;
	x64_put_u32(out + 1, (uint32_t)rel);
	return true;
}

size_t rt_arch_hop_len(void)
{
	return X64_JMP_REL8_LEN;
}

/* jmp rel8 (eb) or jcc rel8 (70..7f): the opcode stays, the rel8 moves */
bool rt_arch_patch_hop(rt_raddr at, rt_raddr to, const uint8_t *branch,
		       uint8_t *out)
{
	int64_t rel = (int64_t)(to - (at + X64_JMP_REL8_LEN));
	uint8_t op = branch ? branch[0] : X64_OP_JMP_REL8;

	if (op != X64_OP_JMP_REL8 && (op & 0xf0) != X64_OP_JCC_REL8)
		return false;
	if (rel < INT8_MIN || rel > INT8_MAX)
		return false;
	out[0] = op;
	out[1] = (uint8_t)(int8_t)rel;
	return true;
}

const struct rt_recorder *rt_arch_recorder(void)
{
	static struct rt_recorder rec;

	if (!rec.code) {
		rec.len = OFF(rt_x64_rec_end);
		rec.call[RT_REC_ENTRY] = OFF(rt_x64_rec_entry);
		rec.call[RT_REC_EXIT] = OFF(rt_x64_rec_exit);
		rec.call[RT_REC_ARG0] = OFF(rt_x64_rec_arg0);
		rec.call[RT_REC_TAIL] = OFF(rt_x64_rec_tail);
		rec.window = OFF(rt_x64_rec_window);
		rec.done = OFF(rt_x64_rec_done);
		rec.bell_full = OFF(rt_x64_rec_full);
		rec.bell_miss = OFF(rt_x64_rec_miss);
		rec.data = OFF(rt_x64_rec_data);
		rec.syscall = OFF(rt_x64_rec_syscall);
		rec.code = rt_x64_rec_begin;
	}
	return &rec;
}

void rt_arch_rec_state(const struct rt_regs *r, struct rt_rec_state *out)
{
	out->slot = r->r.r8;
	out->ts = r->r.rax;
	out->sp = r->r.rcx;
	out->value = r->r.rsi;
	out->ids = 0;             /* no longer in the event: the slot's */
	out->word = r->r.rdi;
	out->tp = r->r.rax;
}

void rt_x64_rec_loop(const void *entry, uint64_t word, uint64_t n);

void rt_arch_rec_run(const uint8_t *entry, uint64_t word, uint64_t n)
{
	rt_x64_rec_loop(entry, word, n);
}

uint64_t rt_arch_self_tp(void)
{
	uint64_t tp;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
	return tp;
}

uint64_t rt_arch_cycles(void)
{
	return __builtin_ia32_rdtsc();
}

bool rt_arch_cycles_steady(const char *cpuinfo)
{
	return strstr(cpuinfo, " constant_tsc") &&
	       strstr(cpuinfo, " nonstop_tsc");
}

rt_raddr rt_arch_jump_reach(void)
{
	return (rt_raddr)1 << 31;  /* a rel32 displacement */
}

/* movabs $v, %rdi (or %rsi) */
static void emit_movabs(struct x64_code *c, unsigned reg, uint64_t v)
{
	uint8_t op[2] = { 0x48, (uint8_t)(0xb8 + reg) };

	x64_emit(c, op, sizeof(op));
	x64_emit_u64(c, v);
}

/* Inside a function a leaf may keep data in the 128 bytes under its
 * stack pointer (the red zone), and the flags may be live: lea moves the
 * stack pointer without touching them, pushfq/popfq keep them. */
static const uint8_t below_enter[] = {
	0x48, 0x8d, 0x64, 0x24, 0x80,           /* lea -0x80(%rsp), %rsp */
	0x9c,                                   /* pushfq */
};
static const uint8_t below_leave[] = {
	0x9d,                                   /* popfq */
	0x48, 0x8d, 0xa4, 0x24, 0x80, 0, 0, 0,  /* lea 0x80(%rsp), %rsp */
};

size_t rt_arch_tramp_below(void)
{
	return 128 + 8;
}

/* A call to @to: direct when in reach; else (a library's trampolines,
 * far from the executable's recorder) through the address stored after
 * it, which a short jump steps over on the way back.  Either way the
 * return address is the next instruction and no register changes. */
static void emit_call(struct x64_code *c, rt_raddr to)
{
	static const uint8_t call_mem[] = {
		0xff, 0x15, 0x02, 0, 0, 0,      /* call *2(%rip) */
		0xeb, 0x08,                     /* jmp .+8 */
	};
	uint8_t op = OP_CALL_REL32;
	int32_t rel;

	if (x64_rel32_reaches(x64_pc(c) + 5, to, &rel)) {
		x64_emit(c, &op, 1);
		x64_emit_u32(c, (uint32_t)rel);
		return;
	}
	x64_emit(c, call_mem, sizeof(call_mem));
	x64_emit_u64(c, to);
}

static enum rt_refusal emit_rec(struct x64_code *c,
				const struct rt_tramp_rec *rec,
				rt_raddr recorder)
{
	const struct rt_recorder *r = rt_arch_recorder();
	uint8_t op;

	if (rec->call >= RT_REC_CALLS)
		return RT_REFUSE_UNDECODABLE;
	if (rec->inside)
		x64_emit(c, below_enter, sizeof(below_enter));
	op = OP_PUSH_RDI;
	x64_emit(c, &op, 1);
	if (rec->call == RT_REC_TAIL) {
		op = OP_PUSH_RSI;
		x64_emit(c, &op, 1);
		emit_movabs(c, X64_RSI, rec->target);
	}
	emit_movabs(c, X64_RDI, rec->word);
	emit_call(c, recorder + r->call[rec->call]);
	if (rec->call == RT_REC_TAIL) {
		op = OP_POP_RSI;
		x64_emit(c, &op, 1);
	}
	op = OP_POP_RDI;
	x64_emit(c, &op, 1);
	if (rec->inside)
		x64_emit(c, below_leave, sizeof(below_leave));
	return RT_REFUSE_NONE;
}

/* Displaced code: straight-line instructions, moved; a return, copied; a
 * direct jump or conditional jump, re-aimed from the trampoline; a jump
 * through a GOT slot, its operand re-aimed; a call that ends the region,
 * made to return to the original code after it (so that the return
 * address on the stack is the one unwinders know). */
static enum rt_refusal emit_moved(struct x64_code *c, const struct rt_insn *in,
				  size_t n)
{
	for (size_t i = 0; i < n; i++) {
		enum rt_refusal why;

		switch (in[i].cls) {
		case RT_INSN_PLAIN:
		case RT_INSN_RET:
			why = x64_emit_insn(c, &in[i]);
			break;
		case RT_INSN_JMP:
			x64_emit_jmp(c, in[i].target);
			why = RT_REFUSE_NONE;
			break;
		case RT_INSN_JCC:
			x64_emit_jcc(c, in[i].arch.cond, in[i].target);
			why = RT_REFUSE_NONE;
			break;
		case RT_INSN_JMP_MEM:
			why = in[i].arch.disp_off ? x64_emit_insn(c, &in[i])
						  : RT_REFUSE_BRANCH_OTHER;
			break;
		case RT_INSN_CALL:
		case RT_INSN_CALL_INDIRECT:
			why = x64_emit_moved_call(c, &in[i]);
			break;
		default:
			why = RT_REFUSE_BRANCH_OTHER;
			break;
		}
		if (why != RT_REFUSE_NONE)
			return why;
	}
	return RT_REFUSE_NONE;
}

/* Upper bound of what emit_rec() (with a call of @call bytes) and one
 * moved instruction write. */
#define REC_MAX(call) (1 + 1 + 10 + 10 + (call) + 1 + 1)
#define CALL_NEAR 5                     /* call rel32 */
#define CALL_FAR 16                     /* emit_call()'s other form */
#define BELOW_MAX (sizeof(below_enter) + sizeof(below_leave))
#define MOVED_MAX (X64_INSN_MAX + 3)

/* Upper bound of what the recorder calls of @t write. */
static size_t recs_max(const struct rt_tramp_spec *t, size_t call)
{
	size_t max = 0;

	for (size_t i = 0; i < t->nrec; i++)
		max += REC_MAX(call) + (t->rec[i].inside ? BELOW_MAX : 0);
	return max;
}

static size_t moved_max(const struct rt_insn *in, size_t n)
{
	size_t max = 0;

	for (size_t i = 0; i < n; i++)
		max += in[i].cls == RT_INSN_CALL ||
				       in[i].cls == RT_INSN_CALL_INDIRECT
			       ? X64_MOVED_CALL_MAX
			       : MOVED_MAX;
	return max;
}

/* The calls of @t recorded, with the moved instructions between the
 * first and the second. */
static enum rt_refusal emit_recs(struct x64_code *c,
				 const struct rt_tramp_spec *t,
				 rt_raddr recorder)
{
	enum rt_refusal why = RT_REFUSE_NONE;

	for (size_t i = 0; why == RT_REFUSE_NONE && i < t->nrec; i++) {
		if (i == 1)
			why = emit_moved(c, t->mid, t->nmid);
		if (why == RT_REFUSE_NONE)
			why = emit_rec(c, &t->rec[i], recorder);
	}
	return why;
}

/* Inlined calls that begin at a conditional jump: the jump goes first
 * and each way out records the calls, the taken one then going on to
 * the jump's target, the other falling through to the moved code after
 * the jump.  (The records keep the flags anyway: rec->inside.) */
static enum rt_refusal emit_split(struct x64_code *c,
				  const struct rt_tramp_spec *t,
				  rt_raddr recorder)
{
	uint8_t taken_buf[RT_ARCH_TRAMP_MAX];
	/* the jcc's rel32 form: the other way out is always in reach */
	struct x64_code taken = { .buf = taken_buf,
				  .base = x64_pc(c) + X64_JCC_REL32_LEN };
	enum rt_refusal why = emit_recs(&taken, t, recorder);

	if (why != RT_REFUSE_NONE)
		return why;
	x64_emit_jmp(&taken, t->split->target);
	x64_emit_jcc(c, t->split->arch.cond ^ 1, taken.base + taken.len);
	x64_emit(c, taken_buf, taken.len);
	return emit_recs(c, t, recorder);
}

/* The calls of @t recorded where the site's events happen. */
static enum rt_refusal emit_calls(struct x64_code *c,
				  const struct rt_tramp_spec *t,
				  rt_raddr recorder)
{
	enum rt_refusal why;

	if (t->split)
		return emit_split(c, t, recorder);
	/* a conditional tail jump: not taken, back to the next instruction;
	 * taken, recorded, then gone */
	if (t->cond)
		x64_emit_jcc(c, t->cond->arch.cond ^ 1,
			     t->cond->addr + t->cond->len);
	why = emit_recs(c, t, recorder);
	if (why == RT_REFUSE_NONE && t->cond)
		x64_emit_jmp(c, t->cond->target);
	return why;
}

enum rt_refusal rt_arch_tramp_build(const struct rt_tramp_spec *t,
				    rt_raddr at, rt_raddr recorder,
				    uint8_t *buf, size_t *len)
{
	struct x64_code c = { .buf = buf, .base = at, .len = 0 };
	enum rt_refusal why;
	int32_t rel;
	bool near = x64_rel32_reaches(at, recorder, &rel) &&
		    x64_rel32_reaches(at + RT_ARCH_TRAMP_MAX, recorder, &rel);
	size_t recs = t->nrec > ARRAY_SIZE(t->rec) ? 0 :
			recs_max(t, near ? CALL_NEAR : CALL_FAR);
	size_t split = t->split ? recs + X64_JCC_REL32_LEN + X64_JMP_ABS_LEN
				: 0;

	if (t->nrec > ARRAY_SIZE(t->rec) ||
	    moved_max(t->pre, t->npre) + moved_max(t->post, t->npost) +
			    moved_max(t->mid, t->nmid) + split + recs +
			    X64_JMP_ABS_LEN >
		    RT_ARCH_TRAMP_MAX)
		return RT_REFUSE_OUT_OF_RANGE;
	why = emit_moved(&c, t->pre, t->npre);
	if (why == RT_REFUSE_NONE)
		why = emit_calls(&c, t, recorder);
	if (why == RT_REFUSE_NONE)
		why = emit_moved(&c, t->post, t->npost);
	if (why == RT_REFUSE_NONE && t->back)
		x64_emit_jmp(&c, t->back);
	*len = c.len;
	return why;
}
