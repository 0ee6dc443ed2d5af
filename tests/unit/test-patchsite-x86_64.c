/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inline engine's site decisions (patchsite.c) on hand-assembled
 * functions, and the trampolines built for them (arch inline.c), read
 * back with capstone: what is patched and why not, which bytes the jump
 * covers, and what the trampoline runs in which order.  The last case
 * times the recorder itself, run natively on a copy.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <capstone/capstone.h>

#include "rtrace/arch.h"
#include "rtrace/arch-jump.h"
#include "rtrace/evlog.h"
#include "rtrace/jumparea.h"
#include "rtrace/inline-layout.h"
#include "rtrace/patchsite.h"
#include "unittest.h"

#define LO 0x555555561000ULL
#define TRAMP (LO + 0x100000ULL)
#define RECORDER (LO + 0x200000ULL)
#define FUNC_ID 7

/* A function decoded at LO, its probes as probes.c would make them. */
struct fn {
	rt_insn_vec insns;
	struct rt_probe probes[8];
	size_t n;
	uint8_t after[32];          /* the bytes past its end */
	bool after_ok;
	size_t after_len;           /* of which readable (0: all) */
	uint8_t before[32];         /* the bytes before its start */
	bool before_ok;
	rt_patch_claims *claims;    /* shared with other functions */
};

static int read_after(void *ctx, rt_raddr addr, void *buf, size_t len)
{
	struct fn *f = ctx;
	rt_raddr end = vec_last(&f->insns)->addr + vec_last(&f->insns)->len;

	size_t max = f->after_len ? f->after_len : sizeof(f->after);

	if (f->before_ok && addr >= LO - sizeof(f->before) && addr + len <= LO) {
		memcpy(buf, f->before + (addr - (LO - sizeof(f->before))), len);
		return 0;
	}
	if (!f->after_ok || addr < end || addr - end + len > max)
		return -ENOENT;
	memcpy(buf, f->after + (addr - end), len);
	return 0;
}

/* The role of the probes plan() makes. */
static uint8_t plan_role = RT_ROLE_TRACED;

/* Decodes @code, makes an entry probe and one per return or jump out,
 * and plans them with @known jump tables (@marks). */
static int plan(struct fn *f, const uint8_t *code, size_t len,
		const rt_raddr *marks, size_t nmarks, bool known)
{
	struct rt_patch_func pf;
	rt_raddr hi = LO + len;

	memset(f->probes, 0, sizeof(f->probes));
	f->n = 0;
	f->insns.n = 0;
	if (rt_arch_decode(code, len, LO, &f->insns))
		return -EILSEQ;
	for (size_t i = 0; i < f->insns.n && f->n < 8; i++) {
		const struct rt_insn *in = &f->insns.v[i];
		unsigned kinds = i == 0 ? RT_PROBE_ENTRY : 0;

		if (in->cls == RT_INSN_RET)
			kinds |= RT_PROBE_EXIT;
		if ((in->cls == RT_INSN_JMP || in->cls == RT_INSN_JCC) &&
		    (in->target < LO || in->target >= hi))
			kinds |= RT_PROBE_TAIL;
		if (!kinds)
			continue;
		f->probes[f->n] = (struct rt_probe){
			.addr = in->addr, .func = FUNC_ID, .kinds = kinds,
			.role = plan_role, .func_lo = LO, .func_hi = hi };
		f->n++;
	}
	pf = (struct rt_patch_func){
		.insns = f->insns.v, .n = f->insns.n, .lo = LO, .hi = hi,
		.kinds = RT_PROBE_ENTRY | RT_PROBE_EXIT | RT_PROBE_TAIL,
		.read_after = read_after, .ctx = f, .marks = marks,
		.nmarks = nmarks, .tables_known = known, .claims = f->claims };
	rt_patch_plan(&pf, f->probes, f->n);
	return 0;
}

#define PLAN(f, ...)                                                           \
	do {                                                                   \
		static const uint8_t c__[] = { __VA_ARGS__ };                  \
		TEST_EQ(plan(&(f), c__, sizeof(c__), NULL, 0, true), 0);       \
	} while (0)

static csh cs;

/* The trampoline of probe @i, disassembled: *n instructions in *out. */
static int tramp(const struct fn *f, size_t i, cs_insn **out, size_t *n)
{
	rt_insn_vec moved = { 0 };
	struct rt_tramp_spec t;
	uint8_t buf[RT_ARCH_TRAMP_MAX];
	size_t len;
	int err = rt_patch_tramp(&f->probes[i], NULL, 0, &moved, &t);

	if (!err && rt_arch_tramp_build(&t, TRAMP, RECORDER, buf, &len))
		err = -ERANGE;
	vec_free(&moved);
	if (err)
		return err;
	if (!cs && cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -ENOTSUP;
	*n = cs_disasm(cs, buf, len, TRAMP, 0, out);
	return *n ? 0 : -EILSEQ;
}

static bool is(const cs_insn *ci, const char *mnemonic, const char *ops)
{
	return strcmp(ci->mnemonic, mnemonic) == 0 &&
	       (!ops || strcmp(ci->op_str, ops) == 0);
}

/* The recorder call sequence at @ci: push rdi; movabs word, rdi; call. */
static bool records(const cs_insn *ci, const struct rt_recorder *r,
		    enum rt_rec_call call, unsigned kind)
{
	char word[64], target[32];

	snprintf(word, sizeof(word), "rdi, 0x%llx",
		 (unsigned long long)(FUNC_ID | (uint64_t)kind << 32 |
				      (uint64_t)RT_EVF_INLINE << 40));
	snprintf(target, sizeof(target), "0x%llx",
		 (unsigned long long)(RECORDER + r->call[call]));
	return is(&ci[0], "push", "rdi") && is(&ci[1], "movabs", word) &&
	       is(&ci[2], "call", target) && is(&ci[3], "pop", "rdi");
}

/* push rbp; mov rbp, rsp; sub rsp, 0x10; mov eax, 1; add rsp, 0x10;
 * pop rbp; ret; then int3 padding */
TEST_CASE(entry_moves_prologue_and_return_uses_padding)
{
	struct fn f = { 0 };
	const struct rt_recorder *r = rt_arch_recorder();
	cs_insn *ci = NULL;
	size_t n;

	PLAN(f, 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0xb8, 1, 0,
	     0, 0, 0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc,
	     0xcc);
	TEST_EQ(f.n, 2);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[0].patch_lo, LO);
	TEST_EQ(f.probes[0].patch_len, 8);   /* 1 + 3 + 4 bytes */
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_lo, LO + 18);
	TEST_EQ(f.probes[1].patch_code, 1);  /* the ret, then padding */
	TEST_EQ(f.probes[1].patch_len, 5);
	TEST_EQ(f.probes[1].patch_orig[1], 0xcc);

	TEST_EQ(tramp(&f, 0, &ci, &n), 0);
	TEST_EQ(n, 8);
	TEST_TRUE(records(ci, r, RT_REC_ENTRY, RT_EV_ENTRY));
	TEST_TRUE(is(&ci[4], "push", "rbp"));
	TEST_TRUE(is(&ci[5], "mov", "rbp, rsp"));
	TEST_TRUE(is(&ci[6], "sub", "rsp, 0x10"));
	TEST_TRUE(is(&ci[7], "jmp", "0x555555561008"));
	cs_free(ci, n);

	TEST_EQ(tramp(&f, 1, &ci, &n), 0);
	TEST_EQ(n, 5);
	TEST_TRUE(records(ci, r, RT_REC_EXIT, RT_EV_EXIT));
	TEST_TRUE(is(&ci[4], "ret", NULL));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* The same return with code right after it: the epilogue moves. */
TEST_CASE(return_without_padding_moves_epilogue)
{
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t n;

	/* push rbx; mov eax, 1; add rsp, 8; pop rbx; ret; nop (a loop
	 * head of the next block, not padding: it is inside) ... */
	PLAN(f, 0x53, 0xb8, 1, 0, 0, 0, 0x48, 0x83, 0xc4, 0x08, 0x5b, 0xc3,
	     0x48, 0x89, 0xc3);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_lo, LO + 6);  /* add rsp, 8 */
	TEST_EQ(f.probes[1].patch_len, 6);
	TEST_EQ(tramp(&f, 1, &ci, &n), 0);
	TEST_EQ(n, 7);
	/* the epilogue first, then the event with the stack as at ret */
	TEST_TRUE(is(&ci[0], "add", "rsp, 8"));
	TEST_TRUE(is(&ci[1], "pop", "rbx"));
	TEST_TRUE(records(ci + 2, rt_arch_recorder(), RT_REC_EXIT,
			  RT_EV_EXIT));
	TEST_TRUE(is(&ci[6], "ret", NULL));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* libc's syscall(): mov rax, rdi; mov rdi, rsi; syscall; cmp rax,
 * -0xfff; jae error; ret; error: or rax, -1; ret.  The first return has
 * no padding, and a conditional jump before it: a traced function's
 * keeps its breakpoint, a blocking call's region takes the cmp and the
 * jae (re-aimed) and begins where the system call returns. */
TEST_CASE(blocking_call_epilogue_moves_over_jcc)
{
	static const uint8_t code[] = {
		0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x0f, 0x05,
		0x48, 0x3d, 0x01, 0xf0, 0xff, 0xff, 0x73, 0x01, 0xc3,
		0x48, 0x83, 0xc8, 0xff, 0xc3,
	};
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	char back[32];
	size_t n;

	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.n, 3);
	TEST_EQ(f.probes[1].addr, LO + 16);
	TEST_TRUE(f.probes[1].patch_len == 0);
	plan_role = RT_ROLE_BLOCKING;
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	plan_role = RT_ROLE_TRACED;
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_lo, LO + 8);  /* cmp, after the syscall */
	TEST_EQ(f.probes[1].patch_len, 9);
	TEST_EQ(tramp(&f, 1, &ci, &n), 0);
	TEST_EQ(n, 7);
	snprintf(back, sizeof(back), "0x%llx", (unsigned long long)(LO + 17));
	TEST_TRUE(is(&ci[0], "cmp", "rax, -0xfff"));
	TEST_TRUE(is(&ci[1], "jae", back));
	TEST_TRUE(records(ci + 2, rt_arch_recorder(), RT_REC_EXIT,
			  RT_EV_EXIT));
	TEST_TRUE(is(&ci[6], "ret", NULL));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* A trampoline far from the recorder (a library's, the recorder in the
 * executable) calls it through an address stored after the call, which
 * a short jump steps over on the way back. */
TEST_CASE(far_recorder_called_through_memory)
{
	const struct rt_recorder *r = rt_arch_recorder();
	struct rt_tramp_spec t = { .nrec = 1 };
	rt_raddr far = TRAMP + 0x300000000ULL;
	uint8_t buf[RT_ARCH_TRAMP_MAX];
	uint64_t stored;
	cs_insn *ci = NULL;
	char past[32];
	size_t len, n;

	t.rec[0] = (struct rt_tramp_rec){ .call = RT_REC_ENTRY, .word = 1 };
	TEST_EQ(rt_arch_tramp_build(&t, TRAMP, far, buf, &len),
		RT_REFUSE_NONE);
	if (!cs)
		TEST_EQ(cs_open(CS_ARCH_X86, CS_MODE_64, &cs), CS_ERR_OK);
	n = cs_disasm(cs, buf, len, TRAMP, 4, &ci);
	TEST_EQ(n, 4);
	TEST_TRUE(is(&ci[0], "push", "rdi"));
	TEST_TRUE(is(&ci[2], "call", "qword ptr [rip + 2]"));
	/* the call returns to the jump, which lands past the address */
	snprintf(past, sizeof(past), "0x%llx",
		 (unsigned long long)(ci[3].address + ci[3].size + 8));
	TEST_TRUE(is(&ci[3], "jmp", past));
	TEST_EQ(ci[2].address + ci[2].size, ci[3].address);
	memcpy(&stored, buf + (ci[3].address - TRAMP) + ci[3].size, 8);
	TEST_EQ(stored, far + r->call[RT_REC_ENTRY]);
	cs_free(ci, n);
}

/* and al, 1; pop rcx; ret right after a call's return address, two
 * bytes of padding: the epilogue moves and the jump ends in the padding. */
TEST_CASE(epilogue_and_padding_together)
{
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t n;

	/* push rax; call +0x100; and al, 1; pop rcx; ret; int3 x2 */
	PLAN(f, 0x50, 0xe8, 0x00, 0x01, 0x00, 0x00, 0x24, 0x01, 0x59, 0xc3,
	     0xcc, 0xcc);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_lo, LO + 6);
	TEST_EQ(f.probes[1].patch_len, 5);
	TEST_EQ(f.probes[1].patch_code, 4);
	TEST_EQ(f.probes[1].patch_orig[4], 0xcc);
	TEST_EQ(tramp(&f, 1, &ci, &n), 0);
	TEST_EQ(n, 7);
	TEST_TRUE(is(&ci[0], "and", "al, 1"));
	TEST_TRUE(is(&ci[1], "pop", "rcx"));
	TEST_TRUE(is(&ci[6], "ret", NULL));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* The trampoline of probe @i runs one moved instruction (@mnemonic @ops),
 * records the exit with the stack as at the return, and returns. */
static bool moves_one_then_exits(const struct fn *f, size_t i,
				 const char *mnemonic, const char *ops)
{
	cs_insn *ci = NULL;
	size_t n = 0;
	bool ok;

	if (tramp(f, i, &ci, &n))
		return false;
	ok = n == 6 && is(&ci[0], mnemonic, ops) &&
	     records(ci + 1, rt_arch_recorder(), RT_REC_EXIT, RT_EV_EXIT) &&
	     is(&ci[5], "ret", NULL);
	cs_free(ci, n);
	return ok;
}

/* sete al; ret where a branch lands on the sete, two bytes of padding:
 * the epilogue stops where the branch lands (the jump may begin there,
 * not cover it) and the padding makes up the rest. */
TEST_CASE(epilogue_stops_where_a_branch_lands)
{
	struct fn f = { 0 };

	/* mov rax, [rdi+0x50]; cmp rax, [rsi+0x38]; je L; mov eax, [rdi+0x1c];
	 * cmp eax, [rsi+4]; L: sete al; ret; int3 x2 */
	PLAN(f, 0x48, 0x8b, 0x47, 0x50, 0x48, 0x3b, 0x46, 0x38, 0x74, 0x06,
	     0x8b, 0x47, 0x1c, 0x3b, 0x46, 0x04, 0x0f, 0x94, 0xc0, 0xc3,
	     0xcc, 0xcc);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_how, RT_PATCH_JUMP);
	TEST_EQ(f.probes[1].patch_lo, LO + 0x10);  /* sete al */
	TEST_EQ(f.probes[1].patch_len, 5);
	TEST_EQ(f.probes[1].patch_code, 4);
	TEST_TRUE(moves_one_then_exits(&f, 1, "sete", "al"));
	/* no padding: too short for a jump, it hops from L, never before */
	PLAN(f, 0x48, 0x8b, 0x47, 0x50, 0x48, 0x3b, 0x46, 0x38, 0x74, 0x06,
	     0x8b, 0x47, 0x1c, 0x3b, 0x46, 0x04, 0x0f, 0x94, 0xc0, 0xc3);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[1].patch_lo, LO + 0x10);
	vec_free(&f.insns);
}

/* A loop back to the second instruction: the entry keeps its breakpoint. */
TEST_CASE(branch_into_region_refused)
{
	struct fn f = { 0 };

	/* push rbx; L: inc eax; cmp eax, 5; jne L; pop rbx; ret; int3 x4 */
	PLAN(f, 0x53, 0xff, 0xc0, 0x83, 0xf8, 0x05, 0x75, 0xf9, 0x5b, 0xc3,
	     0xcc, 0xcc, 0xcc, 0xcc);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_TARGET);
	TEST_EQ(f.probes[0].patch_len, 0);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	vec_free(&f.insns);
}

/* Nothing falls into the instruction after ud2: something else enters
 * it (here, as a landing pad would), so no moved epilogue may cover it:
 * the return hops from there instead, to a relay in the entry's region
 * grown for it.  The same function with a plain instruction there moves
 * its epilogue. */
TEST_CASE(epilogue_after_ud2_refused)
{
	struct fn f = { 0 };

	/* push rbx; xor eax, eax; xor ecx, ecx; xor edx, edx;
	 * mov eax, 1; ud2; pop rbx; ret; mov rbx, rax (the next block) */
	PLAN(f, 0x53, 0x31, 0xc0, 0x31, 0xc9, 0x31, 0xd2, 0xb8, 1, 0, 0, 0,
	     0x0f, 0x0b, 0x5b, 0xc3, 0x48, 0x89, 0xc3);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[1].patch_lo, LO + 14);      /* pop rbx, not before */
	TEST_EQ(f.probes[0].patch_len, 12);          /* up to ud2 */
	TEST_TRUE(f.probes[0].patch_hosts);
	TEST_EQ(f.probes[1].relay_lo, LO + 5);
	TEST_TRUE(f.probes[1].relay_hosted);
	/* xor esi, esi instead of ud2: it goes on to pop rbx */
	PLAN(f, 0x53, 0x31, 0xc0, 0x31, 0xc9, 0x31, 0xd2, 0xb8, 1, 0, 0, 0,
	     0x31, 0xf6, 0x5b, 0xc3, 0x48, 0x89, 0xc3);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_lo, LO + 7);  /* mov eax, 1 */
	vec_free(&f.insns);
}

/* A call that ends the entry region moves: the trampoline pushes the
 * return address it had (the first byte after it, outside the jump) and
 * jumps to the callee, which returns to the original code. */
TEST_CASE(call_ending_entry_moves)
{
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t n;

	/* push rbx; call +0x100; pop rbx; ret; int3 x4 */
	PLAN(f, 0x53, 0xe8, 0, 1, 0, 0, 0x5b, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[0].patch_len, 6);
	TEST_EQ(tramp(&f, 0, &ci, &n), 0);
	TEST_EQ(n, 9);
	TEST_TRUE(records(ci, rt_arch_recorder(), RT_REC_ENTRY, RT_EV_ENTRY));
	TEST_TRUE(is(&ci[4], "push", "rbx"));
	/* the push of LO + 6, flags untouched, then the jump to LO + 0x106 */
	TEST_TRUE(is(&ci[5], "lea", "rsp, [rsp - 8]"));
	TEST_TRUE(is(&ci[6], "mov", "dword ptr [rsp], 0x55561006"));
	TEST_TRUE(is(&ci[7], "mov", "dword ptr [rsp + 4], 0x5555"));
	TEST_TRUE(is(&ci[8], "jmp", "0x555555561106"));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* Through a GOT slot, as rustc's -O0 code calls into std: the operand is
 * re-aimed at the same slot from the trampoline. */
TEST_CASE(indirect_call_ending_entry_moves)
{
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	char want[64];
	int64_t disp;
	size_t n;

	/* sub rsp, 0x48; call [rip + 0x1000]; add rsp, 0x48; ret; int3 x4 */
	PLAN(f, 0x48, 0x83, 0xec, 0x48, 0xff, 0x15, 0, 0x10, 0, 0, 0x48, 0x83,
	     0xc4, 0x48, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[0].patch_len, 10);
	TEST_EQ(tramp(&f, 0, &ci, &n), 0);
	TEST_EQ(n, 9);
	TEST_TRUE(is(&ci[4], "sub", "rsp, 0x48"));
	TEST_TRUE(is(&ci[6], "mov", "dword ptr [rsp], 0x5556100a"));
	/* the slot the call read: LO + 10 + 0x1000 */
	disp = (int64_t)(LO + 10 + 0x1000) -
	       (int64_t)(ci[8].address + ci[8].size);
	snprintf(want, sizeof(want), "qword ptr [rip %c 0x%llx]",
		 disp < 0 ? '-' : '+',
		 (unsigned long long)(disp < 0 ? -disp : disp));
	TEST_TRUE(is(&ci[8], "jmp", want));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* A call too short to end the region: its return address would fall
 * inside the jump, so the entry keeps its breakpoint. */
TEST_CASE(call_inside_entry_refused)
{
	struct fn f = { 0 };

	/* call rax; push rbx; push rbp; pop rbp; pop rbx; ret; int3 x4 */
	PLAN(f, 0xff, 0xd0, 0x53, 0x55, 0x5d, 0x5b, 0xc3, 0xcc, 0xcc, 0xcc,
	     0xcc);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_INSN);
	vec_free(&f.insns);
}

/* An indirect jump whose targets are unknown: no region of several
 * instructions; with the table's targets known, the same is patched. */
TEST_CASE(unknown_jump_table_refuses_multi_insn_regions)
{
	static const uint8_t code[] = {
		0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, /* prologue */
		0xff, 0xe0,                                     /* jmp rax */
		0x5d, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc,             /* pop; ret */
	};
	rt_raddr targets[] = { LO + 10 };
	struct fn f = { 0 };

	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, false), 0);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_JUMP_TABLE);
	/* breakpoint padding never runs, whatever the table holds */
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(plan(&f, code, sizeof(code), targets, 1, true), 0);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	vec_free(&f.insns);
}

/* Padding that lies past the symbol's end, read through read_after. */
TEST_CASE(padding_past_the_end)
{
	static const uint8_t code[] = { 0x48, 0x89, 0xf8, 0x48, 0x01, 0xf0,
					0xc3 };  /* mov; add; ret */
	struct fn f = { 0 };

	/* the entry takes 6 bytes; without padding the return would need
	 * the whole function */
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OVERLAP);
	f.after_ok = true;
	memset(f.after, 0xcc, sizeof(f.after));
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_lo, LO + 6);
	TEST_EQ(f.probes[1].patch_orig[4], 0xcc);
	vec_free(&f.insns);
}

/* jne rel32 out of the function: recorded only when taken. */
TEST_CASE(conditional_tail_jump)
{
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t n;

	/* push rbx; pop rbx; test edi, edi; jne far; ret; int3 x4 */
	PLAN(f, 0x53, 0x5b, 0x85, 0xff, 0x0f, 0x85, 0x00, 0x10, 0x00, 0x00,
	     0xc3, 0xcc, 0xcc, 0xcc, 0xcc);
	TEST_EQ(f.probes[1].kinds, RT_PROBE_TAIL);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(tramp(&f, 1, &ci, &n), 0);
	TEST_EQ(n, 9);
	TEST_TRUE(is(&ci[0], "je", "0x55555556100a"));  /* not taken */
	TEST_TRUE(is(&ci[1], "push", "rdi"));
	TEST_TRUE(is(&ci[2], "push", "rsi"));
	TEST_TRUE(is(&ci[3], "movabs", "rsi, 0x55555556200a"));
	TEST_TRUE(is(&ci[6], "pop", "rsi"));
	TEST_TRUE(is(&ci[7], "pop", "rdi"));
	TEST_TRUE(is(&ci[8], "jmp", "0x55555556200a"));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* Padding nothing runs past the end, as the linker fills it. */
static void pad_after(struct fn *f, size_t len)
{
	f->after_ok = true;
	f->after_len = len;
	memset(f->after, 0xcc, sizeof(f->after));
}

/* xor eax, eax; ret: entry and exit share one jump, over the padding;
 * the trampoline records both around the body. */
TEST_CASE(tiny_function_entry_and_exit_share_one_jump)
{
	struct fn f = { 0 };
	const struct rt_recorder *r = rt_arch_recorder();
	cs_insn *ci = NULL;
	size_t n;

	PLAN(f, 0x31, 0xc0, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc);
	TEST_EQ(f.n, 2);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[0].patch_lo, LO);
	TEST_EQ(f.probes[0].patch_len, 5);
	TEST_EQ(f.probes[0].patch_code, 3);
	TEST_EQ(f.probes[0].patch_join, 2);
	TEST_EQ(f.probes[0].patch_orig[3], 0xcc);
	/* the return is recorded by the entry's trampoline */
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_TRUE(f.probes[1].joined);
	TEST_EQ(f.probes[1].patch_len, 0);
	TEST_TRUE(rt_probe_inline(&f.probes[1]));

	TEST_EQ(tramp(&f, 0, &ci, &n), 0);
	TEST_EQ(n, 10);
	TEST_TRUE(records(ci, r, RT_REC_ENTRY, RT_EV_ENTRY));
	TEST_TRUE(is(&ci[4], "xor", "eax, eax"));
	TEST_TRUE(records(ci + 5, r, RT_REC_EXIT, RT_EV_EXIT));
	TEST_TRUE(is(&ci[9], "ret", NULL));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* mov al, 0xff; ret, its padding past the symbol's end; without any,
 * the entry keeps its breakpoint and nothing is joined. */
TEST_CASE(tiny_function_pads_past_its_end)
{
	static const uint8_t code[] = { 0xb0, 0xff, 0xc3 };
	struct fn f = { 0 };

	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_SHORT);
	TEST_TRUE(!f.probes[1].joined);
	pad_after(&f, 0);
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[0].patch_len, 5);
	TEST_EQ(f.probes[0].patch_join, 2);
	TEST_EQ(f.probes[0].patch_orig[4], 0xcc);
	TEST_TRUE(f.probes[1].joined);
	vec_free(&f.insns);
}

/* A lone ret: one site, entry and exit, over four bytes of padding. */
TEST_CASE(lone_return_with_padding)
{
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t n;

	PLAN(f, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc);
	TEST_EQ(f.n, 1);
	TEST_EQ(f.probes[0].kinds, RT_PROBE_ENTRY | RT_PROBE_EXIT);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[0].patch_how, RT_PATCH_JUMP);
	TEST_EQ(tramp(&f, 0, &ci, &n), 0);
	TEST_EQ(n, 9);
	TEST_TRUE(records(ci, rt_arch_recorder(), RT_REC_ENTRY, RT_EV_ENTRY));
	TEST_TRUE(records(ci + 4, rt_arch_recorder(), RT_REC_EXIT,
			  RT_EV_EXIT));
	TEST_TRUE(is(&ci[8], "ret", NULL));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* pop rcx; ret right after a call's return address, code after it: a
 * short jump to a relay in the padding past the end, behind the last
 * return's own region. */
TEST_CASE(pop_ret_after_call_hops_through_relay)
{
	static const uint8_t code[] = {
		0x50,                          /* 0: push rax */
		0x85, 0xff,                    /* 1: test edi, edi */
		0x74, 0x07,                    /* 3: je 0xc */
		0xe8, 0x00, 0x01, 0x00, 0x00,  /* 5: call +0x100 */
		0x59, 0xc3,                    /* a: pop rcx; ret */
		0x31, 0xc0, 0x59, 0xc3,        /* c: xor; pop rcx; ret */
	};
	struct fn f = { 0 };
	uint8_t hop[2];

	/* no padding: the entry grows over the call to make room */
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.n, 3);
	TEST_EQ(f.probes[0].patch_len, 10);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].relay_lo, LO + 5);
	TEST_TRUE(f.probes[1].relay_hosted);
	pad_after(&f, 0);
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[2].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[2].patch_lo, LO + 0xf);  /* ret + 4 of padding */
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[1].patch_lo, LO + 0xa);
	TEST_EQ(f.probes[1].patch_len, 2);
	TEST_EQ(f.probes[1].patch_code, 2);
	TEST_EQ(f.probes[1].relay_lo, LO + 0x14);  /* after 0xf's region */
	TEST_EQ(f.probes[0].patch_len, 5);         /* not grown */
	TEST_TRUE(!f.probes[1].relay_hosted);
	TEST_TRUE(rt_arch_patch_hop(LO + 0xa, LO + 0x14, NULL, hop));
	TEST_EQ(hop[0], 0xeb);
	TEST_EQ(hop[1], 8);
	TEST_TRUE(moves_one_then_exits(&f, 1, "pop", "rcx"));
	vec_free(&f.insns);
}

/* A ret with one byte of padding, the branch target after it: the short
 * jump takes the ret and that byte; the relay is past the end. */
TEST_CASE(return_with_one_byte_of_padding_hops)
{
	static const uint8_t code[] = {
		0x85, 0xff,                    /* 0: test edi, edi */
		0x75, 0x04,                    /* 2: jne 8 */
		0x31, 0xc0,                    /* 4: xor eax, eax */
		0xc3, 0xcc,                    /* 6: ret; int3 */
		0xb8, 0x01, 0x00, 0x00, 0x00,  /* 8: mov eax, 1 */
		0xc3,                          /* d: ret */
	};
	struct fn f = { 0 };

	pad_after(&f, 0);
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[1].patch_lo, LO + 6);
	TEST_EQ(f.probes[1].patch_len, 2);
	TEST_EQ(f.probes[1].patch_code, 1);
	TEST_EQ(f.probes[1].patch_orig[1], 0xcc);
	TEST_EQ(f.probes[1].relay_lo, LO + 0x12);
	TEST_EQ(f.probes[2].patch_lo, LO + 0xd);
	vec_free(&f.insns);
}

/* je rel8 out of a loop: the branch is re-aimed at a relay, so only a
 * taken jump reaches the trampoline, which records it and goes on. */
TEST_CASE(conditional_tail_jump_rel8_retargeted)
{
	static const uint8_t code[] = {
		0x31, 0xc0,                    /* 0: xor eax, eax */
		0xff, 0xc0,                    /* 2: L: inc eax */
		0x83, 0xf8, 0x0a,              /* 4: cmp eax, 10 */
		0x74, 0x40,                    /* 7: je 0x49 (out) */
		0x39, 0xf8,                    /* 9: cmp eax, edi */
		0x75, 0xf5,                    /* b: jne L */
		0x31, 0xc0,                    /* d: xor eax, eax */
		0xc3,                          /* f: ret */
	};
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	uint8_t hop[2];
	size_t n;

	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[1].kinds, RT_PROBE_TAIL);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_KIND);
	pad_after(&f, 0);
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_how, RT_PATCH_RETARGET);
	TEST_EQ(f.probes[1].patch_lo, LO + 7);
	TEST_EQ(f.probes[1].patch_len, 2);
	TEST_EQ(f.probes[1].relay_lo, LO + 0x14);
	/* the entry (xor eax, eax; then the loop's head) hops after it */
	TEST_EQ(f.probes[0].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[0].relay_lo, LO + 0x19);
	/* the condition stays, the displacement leads to the relay */
	TEST_TRUE(rt_arch_patch_hop(LO + 7, LO + 0x14, f.probes[1].patch_orig,
				    hop));
	TEST_EQ(hop[0], 0x74);
	TEST_EQ(hop[1], 0x0b);
	TEST_EQ(tramp(&f, 1, &ci, &n), 0);
	/* push rdi, rsi; the target and the word; call; pop rsi, rdi;
	 * no condition left to test: it held */
	TEST_EQ(n, 8);
	TEST_TRUE(is(&ci[0], "push", "rdi"));
	TEST_TRUE(is(&ci[2], "movabs", "rsi, 0x555555561049"));
	TEST_TRUE(is(&ci[7], "jmp", "0x555555561049"));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* test dil, 1; je out (rel32): a jump at the entry would cover the tail
 * jump's site, a short one does not. */
TEST_CASE(entry_hops_when_its_jump_would_cover_a_site)
{
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t n;

	/* test dil, 1; je +0x100; add rdi, 7; mov rax, rdi; ret; int3 x14 */
	PLAN(f, 0x40, 0xf6, 0xc7, 0x01, 0x0f, 0x84, 0x00, 0x01, 0x00, 0x00,
	     0x48, 0x83, 0xc7, 0x07, 0x48, 0x89, 0xf8, 0xc3, 0xcc, 0xcc, 0xcc,
	     0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc);
	TEST_EQ(f.n, 3);
	TEST_EQ(f.probes[1].patch_how, RT_PATCH_JUMP);   /* je rel32 */
	TEST_EQ(f.probes[2].patch_lo, LO + 17);          /* ret + padding */
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[0].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[0].patch_len, 4);
	TEST_EQ(f.probes[0].relay_lo, LO + 22);
	TEST_EQ(tramp(&f, 0, &ci, &n), 0);
	TEST_EQ(n, 6);
	TEST_TRUE(records(ci, rt_arch_recorder(), RT_REC_ENTRY, RT_EV_ENTRY));
	TEST_TRUE(is(&ci[4], "test", "dil, 1"));
	TEST_TRUE(is(&ci[5], "jmp", "0x555555561004"));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* pop rcx; ret with no padding after it: the relay goes into the int3
 * fill before the function, past the four bytes the function before
 * may need; a second function planned with the same claims takes the
 * next five bytes. */
TEST_CASE(relay_in_padding_between_functions)
{
	static const uint8_t code[] = {
		0x50,                          /* 0: push rax */
		0xe8, 0x00, 0x01, 0x00, 0x00,  /* 1: call +0x100 */
		0x59, 0xc3,                    /* 6: pop rcx; ret */
	};
	rt_patch_claims claims = { 0 };
	struct fn f = { 0 };

	f.before_ok = true;
	memset(f.before, 0xcc, sizeof(f.before));
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_SHORT);  /* no claims */
	f.claims = &claims;
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[1].patch_lo, LO + 6);
	TEST_EQ(f.probes[1].relay_lo, LO - 28);
	TEST_EQ(claims.n, 1);
	TEST_EQ(claims.v[0].lo, LO - 28);
	TEST_EQ(claims.v[0].hi, LO - 23);
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[1].relay_lo, LO - 23);
	vec_free(&claims);
	vec_free(&f.insns);
}

/* push rax; mov [rsp], rdi; add rdi, 0x10; call; pop rcx; ret, the next
 * function right after (regex-syntax's ParserI::parser): no dead bytes
 * anywhere, so the entry's region grows over the call, and the bytes
 * past its jump hold the return's relay. */
TEST_CASE(entry_grows_to_host_the_relay)
{
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t n;

	PLAN(f, 0x50, 0x48, 0x89, 0x3c, 0x24, 0x48, 0x83, 0xc7, 0x10, 0xe8,
	     0x00, 0x01, 0x00, 0x00, 0x59, 0xc3);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[0].patch_len, 14);
	TEST_EQ(f.probes[0].patch_code, 14);
	TEST_TRUE(f.probes[0].patch_hosts);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[1].patch_lo, LO + 14);
	TEST_EQ(f.probes[1].relay_lo, LO + 5);
	TEST_TRUE(f.probes[1].relay_hosted);
	TEST_EQ(tramp(&f, 0, &ci, &n), 0);
	TEST_EQ(n, 11);
	TEST_TRUE(records(ci, rt_arch_recorder(), RT_REC_ENTRY, RT_EV_ENTRY));
	TEST_TRUE(is(&ci[6], "add", "rdi, 0x10"));
	/* the call returns to the original code: pop rcx, now the hop */
	TEST_TRUE(is(&ci[8], "mov", "dword ptr [rsp], 0x5556100e"));
	TEST_TRUE(is(&ci[10], "jmp", "0x55555556110e"));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* jmp rel8 out of the function with code right after it and a branch
 * target behind it: no padding, no epilogue, so it hops; the trampoline
 * records the tail event and goes where the jump went. */
TEST_CASE(tail_jump_rel8_hops)
{
	static const uint8_t code[] = {
		0x85, 0xff,                    /* 0: test edi, edi */
		0x74, 0x04,                    /* 2: je 8 */
		0x31, 0xc0,                    /* 4: xor eax, eax */
		0xeb, 0x40,                    /* 6: jmp 0x48 (out) */
		0xb8, 0x01, 0x00, 0x00, 0x00,  /* 8: mov eax, 1 */
		0xc3,                          /* d: ret */
	};
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t n;

	pad_after(&f, 0);
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[1].kinds, RT_PROBE_TAIL);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[1].patch_lo, LO + 6);
	TEST_EQ(f.probes[1].patch_len, 2);
	TEST_EQ(f.probes[1].relay_lo, LO + 0x12);  /* after the ret's */
	TEST_EQ(tramp(&f, 1, &ci, &n), 0);
	TEST_EQ(n, 8);
	TEST_TRUE(is(&ci[2], "movabs", "rsi, 0x555555561048"));
	TEST_TRUE(is(&ci[7], "jmp", "0x555555561048"));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* Two returns after a branch, no padding: the entry could grow to ten
 * bytes over the first return's pop, which that return's short region
 * needs: it does not, and that return keeps its breakpoint; the second
 * return's region lies past it, and gets its relay in the grown entry. */
TEST_CASE(entry_never_grows_into_the_region_it_makes_room_for)
{
	struct fn f = { 0 };

	/* mov eax, 1; test edi, edi; je 0xb; pop rcx; ret;
	 * xor eax, eax; pop rcx; ret */
	PLAN(f, 0xb8, 0x01, 0x00, 0x00, 0x00, 0x85, 0xff, 0x74, 0x02, 0x59,
	     0xc3, 0x31, 0xc0, 0x59, 0xc3);
	TEST_EQ(f.n, 3);
	TEST_EQ(f.probes[1].patch_len, 0);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[0].patch_len, 10);
	TEST_TRUE(f.probes[0].patch_hosts);
	TEST_EQ(f.probes[2].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[2].patch_lo, LO + 0xd);
	TEST_EQ(f.probes[2].relay_lo, LO + 5);
	vec_free(&f.insns);
}

/* Two short sites and room past the end for one relay: they never share
 * it; the second keeps its breakpoint. */
TEST_CASE(relays_are_never_shared)
{
	static const uint8_t code[] = {
		0x85, 0xff,                    /* 0: test edi, edi */
		0x74, 0x40,                    /* 2: je 0x44 (out) */
		0x75, 0x40,                    /* 4: jne 0x46 (out) */
		0xc3,                          /* 6: ret */
	};
	struct fn f = { 0 };

	/* 4 bytes for the ret, 5 for one relay, 3 to spare */
	pad_after(&f, 12);
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.n, 4);
	TEST_EQ(f.probes[3].patch_lo, LO + 6);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].relay_lo, LO + 0xb);
	TEST_EQ(f.probes[2].inline_why, RT_INLINE_KIND);
	TEST_EQ(f.probes[2].patch_len, 0);
	/* more room: a relay each, side by side */
	pad_after(&f, 0);
	TEST_EQ(plan(&f, code, sizeof(code), NULL, 0, true), 0);
	TEST_EQ(f.probes[2].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[2].relay_lo, LO + 0x10);
	vec_free(&f.insns);
}

/* Nothing may land in a relay: a branch into the padding (never seen in
 * compiled code, but not excluded) keeps the bytes it reaches. */
TEST_CASE(relay_avoids_where_a_branch_lands)
{
	static const uint8_t code[] = {
		0x85, 0xff,                    /* 0: test edi, edi */
		0x74, 0x40,                    /* 2: je 0x44 (out) */
		0xc3,                          /* 4: ret */
	};
	rt_raddr marks[] = { LO + 0xa };
	struct fn f = { 0 };

	pad_after(&f, 0);
	TEST_EQ(plan(&f, code, sizeof(code), marks, 1, true), 0);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[1].relay_lo, LO + 0xb);  /* not 9, over 0xa */
	vec_free(&f.insns);
}

/* ---- entries of inlined calls, in the middle of their caller ---------- */

#define INL_ID 11

/* Decodes @code as plan() does, adds an inlined call's entry at each of
 * @at (offsets, ascending) and plans those alone, the caller's own sites
 * being obstacles, as probes.c plans a caller's instances (relays for the
 * instances only). */
static int plan_inlined(struct fn *f, const uint8_t *code, size_t len,
			const size_t *at, size_t nat)
{
	struct rt_probe own[8];
	size_t nown, i = 0, j = 0;
	struct rt_patch_func pf;

	if (plan(f, code, len, NULL, 0, true))
		return -EILSEQ;
	nown = f->n;
	memcpy(own, f->probes, sizeof(own));
	f->n = 0;
	while ((i < nown || j < nat) && f->n < 8) {
		if (j == nat || (i < nown && own[i].addr < LO + at[j])) {
			f->probes[f->n++] = own[i++];
			continue;
		}
		f->probes[f->n++] = (struct rt_probe){
			.addr = LO + at[j++], .func = INL_ID,
			.kinds = RT_PROBE_INLINED, .role = RT_ROLE_TRACED,
			.func_lo = LO, .func_hi = LO + len };
	}
	pf = (struct rt_patch_func){
		.insns = f->insns.v, .n = f->insns.n, .lo = LO, .hi = LO + len,
		.kinds = RT_PROBE_INLINED, .read_after = read_after, .ctx = f,
		.tables_known = true, .relays_inlined_only = true };
	rt_patch_plan(&pf, f->probes, f->n);
	return 0;
}

/* The index of the probe at LO + @off. */
static size_t probe_at(const struct fn *f, size_t off)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->probes[i].addr == LO + off)
			return i;
	return f->n;
}

/* An event of an inlined call recorded: its id, its kind, its flags and
 * the program's, the instance's entry address as its value (the
 * recorder's tail call carries it). */
/* Whether @ci records inlined call @rec: at a site @inside a function,
 * between stepping over the red zone and keeping the flags, and back
 * (RT_REC_INSIDE instructions in all), else RT_REC_AT_EDGE. */
#define RT_REC_AT_EDGE 7
#define RT_REC_INSIDE (RT_REC_AT_EDGE + 4)

static bool records_inlined(const cs_insn *ci, const struct rt_recorder *r,
			    const struct rt_inl_rec *rec, bool inside)
{
	char word[64], value[64], target[32];
	const cs_insn *c = inside ? ci + 2 : ci;

	snprintf(word, sizeof(word), "rdi, 0x%llx",
		 (unsigned long long)(rec->func | (uint64_t)rec->kind << 32 |
				      (uint64_t)(RT_EVF_INLINE | rec->flags |
						 (inside ? RT_IA_EVF_BELOW : 0))
					      << 40));
	snprintf(value, sizeof(value), "rsi, 0x%llx",
		 (unsigned long long)rec->value);
	snprintf(target, sizeof(target), "0x%llx",
		 (unsigned long long)(RECORDER + r->call[RT_REC_TAIL]));
	if (inside && !(is(&ci[0], "lea", "rsp, [rsp - 0x80]") &&
			is(&ci[1], "pushfq", "") && is(&ci[9], "popfq", "") &&
			is(&ci[10], "lea", "rsp, [rsp + 0x80]")))
		return false;
	return is(&c[0], "push", "rdi") && is(&c[1], "push", "rsi") &&
	       is(&c[2], "movabs", value) && is(&c[3], "movabs", word) &&
	       is(&c[4], "call", target) && is(&c[5], "pop", "rsi") &&
	       is(&c[6], "pop", "rdi");
}

/* The trampoline of probe @i with the events @inl of inlined calls. */
static int tramp_inl(const struct fn *f, size_t i, const struct rt_inl_rec *inl,
		     size_t ninl, cs_insn **out, size_t *n)
{
	rt_insn_vec moved = { 0 };
	struct rt_tramp_spec t;
	uint8_t buf[RT_ARCH_TRAMP_MAX];
	size_t len;
	int err = rt_patch_tramp(&f->probes[i], inl, ninl, &moved, &t);

	if (!err && rt_arch_tramp_build(&t, TRAMP, RECORDER, buf, &len))
		err = -ERANGE;
	vec_free(&moved);
	if (err)
		return err;
	if (!cs && cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -ENOTSUP;
	*n = cs_disasm(cs, buf, len, TRAMP, 0, out);
	return *n ? 0 : -EILSEQ;
}

/* Two nested calls inlined at one place mid-function, where an earlier
 * one ends: the straight-line code from there moves to a trampoline that
 * records the end, then both beginnings, outermost first (as the plan
 * lists them); the caller's own sites are left to its own plan. */
TEST_CASE(inlined_entry_mid_function_is_patched)
{
	static const uint8_t code[] = {
		0x53,                          /* 0: push rbx */
		0x89, 0xfb,                    /* 1: mov ebx, edi */
		0x8d, 0x47, 0x01,              /* 3: lea eax, [rdi + 1] */
		0x0f, 0xaf, 0xc0,              /* 6: imul eax, eax */
		0x01, 0xd8,                    /* 9: add eax, ebx */
		0x5b,                          /* 11: pop rbx */
		0xc3,                          /* 12: ret */
		0xcc, 0xcc, 0xcc,
	};
	static const size_t at[] = { 3 };
	static const struct rt_inl_rec recs[] = {
		{ INL_ID + 2, RT_EV_EXIT, RT_EVF_INLINED, LO + 1 },
		{ INL_ID, RT_EV_ENTRY, RT_EVF_INLINED | RT_EVF_TIMED, LO + 3 },
		{ INL_ID + 1, RT_EV_ENTRY, RT_EVF_INLINED, LO + 3 },
	};
	const struct rt_recorder *r = rt_arch_recorder();
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t n, k;

	TEST_EQ(plan_inlined(&f, code, sizeof(code), at, 1), 0);
	k = probe_at(&f, 3);
	TEST_TRUE(k < f.n);
	TEST_EQ(f.probes[k].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[k].patch_lo, LO + 3);
	TEST_EQ(f.probes[k].patch_len, 6);   /* lea, imul */
	TEST_EQ(f.probes[k].patch_code, 6);
	TEST_EQ(f.probes[k].patch_how, RT_PATCH_JUMP);
	TEST_EQ(f.probes[k].relay_lo, 0);
	/* the caller's entry and return: not this plan's */
	TEST_EQ(f.probes[probe_at(&f, 0)].patch_len, 0);
	TEST_EQ(f.probes[probe_at(&f, 12)].patch_len, 0);

	TEST_EQ(tramp_inl(&f, k, recs, 3, &ci, &n), 0);
	/* mid-function: each record keeps the red zone and the flags */
	TEST_EQ(n, 3 * RT_REC_INSIDE + 3);
	TEST_TRUE(records_inlined(ci, r, &recs[0], true));
	TEST_TRUE(records_inlined(ci + RT_REC_INSIDE, r, &recs[1], true));
	TEST_TRUE(records_inlined(ci + 2 * RT_REC_INSIDE, r, &recs[2], true));
	TEST_TRUE(is(&ci[3 * RT_REC_INSIDE], "lea", "eax, [rdi + 1]"));
	TEST_TRUE(is(&ci[3 * RT_REC_INSIDE + 1], "imul", "eax, eax"));
	TEST_TRUE(is(&ci[3 * RT_REC_INSIDE + 2], "jmp", "0x555555561009"));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* A loop whose top is the inlined call's entry: the branch back lands at
 * the region's first byte, which leads to the same instructions. */
TEST_CASE(inlined_entry_where_a_branch_lands_is_patched)
{
	static const uint8_t code[] = {
		0x53,                          /* 0: push rbx */
		0x89, 0xfb,                    /* 1: mov ebx, edi */
		0x8d, 0x47, 0x01,              /* 3: lea eax, [rdi + 1] */
		0x0f, 0xaf, 0xc0,              /* 6: imul eax, eax */
		0x01, 0xd8,                    /* 9: add eax, ebx */
		0x83, 0xf8, 0x64,              /* 11: cmp eax, 100 */
		0x7c, 0xf3,                    /* 14: jl 3 */
		0x5b,                          /* 16: pop rbx */
		0xc3,                          /* 17: ret */
	};
	static const size_t at[] = { 3 };
	struct fn f = { 0 };
	size_t k;

	TEST_EQ(plan_inlined(&f, code, sizeof(code), at, 1), 0);
	k = probe_at(&f, 3);
	TEST_EQ(f.probes[k].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[k].patch_len, 6);
	vec_free(&f.insns);
}

/* A branch landing past the entry, inside the bytes a jump would
 * replace, keeps the breakpoint; so does an entry followed too soon by
 * an instruction that cannot move (the caller's return).  A conditional
 * jump after the entry moves: it reads flags set before the entry, which
 * the trampoline keeps across the recorder. */
TEST_CASE(inlined_entry_where_branches_and_jumps_are)
{
	static const uint8_t code[] = {
		0x53,                          /* 0: push rbx */
		0x89, 0xfb,                    /* 1: mov ebx, edi */
		0x8d, 0x47, 0x01,              /* 3: lea eax, [rdi + 1] */
		0x0f, 0xaf, 0xc0,              /* 6: imul eax, eax */
		0x01, 0xd8,                    /* 9: add eax, ebx */
		0x83, 0xf8, 0x64,              /* 11: cmp eax, 100 */
		0x7c, 0xf6,                    /* 14: jl 6 */
		0x5b,                          /* 16: pop rbx */
		0xc3,                          /* 17: ret */
	};
	static const uint8_t ret[] = {
		0x53,                          /* 0: push rbx */
		0x8d, 0x47, 0x01,              /* 1: lea eax, [rdi + 1] */
		0x5b,                          /* 4: pop rbx */
		0xc3,                          /* 5: ret */
		0xcc, 0xcc, 0xcc, 0xcc,
	};
	static const uint8_t jcc[] = {
		0x53,                          /* 0: push rbx */
		0x85, 0xff,                    /* 1: test edi, edi */
		0x89, 0xfb,                    /* 3: mov ebx, edi */
		0x74, 0x05,                    /* 5: je 12 */
		0x8d, 0x47, 0x01,              /* 7: lea eax, [rdi + 1] */
		0x5b,                          /* 10: pop rbx */
		0xc3,                          /* 11: ret */
		0x31, 0xc0,                    /* 12: xor eax, eax */
		0x5b,                          /* 14: pop rbx */
		0xc3,                          /* 15: ret */
		0xcc, 0xcc, 0xcc,
	};
	static const size_t at[] = { 3 }, at_ret[] = { 1 };
	static const struct rt_inl_rec recs[] = {
		{ INL_ID, RT_EV_ENTRY, RT_EVF_INLINED, LO + 3 },
	};
	const struct rt_recorder *r = rt_arch_recorder();
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t k, n;

	TEST_EQ(plan_inlined(&f, code, sizeof(code), at, 1), 0);
	k = probe_at(&f, 3);
	TEST_EQ(f.probes[k].inline_why, RT_INLINE_TARGET);
	TEST_EQ(f.probes[k].patch_len, 0);

	TEST_EQ(plan_inlined(&f, ret, sizeof(ret), at_ret, 1), 0);
	k = probe_at(&f, 1);
	TEST_EQ(f.probes[k].inline_why, RT_INLINE_INSN);
	TEST_EQ(f.probes[k].patch_len, 0);

	TEST_EQ(plan_inlined(&f, jcc, sizeof(jcc), at, 1), 0);
	k = probe_at(&f, 3);
	TEST_EQ(f.probes[k].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[k].patch_len, 7);   /* mov, je, lea */
	TEST_EQ(tramp_inl(&f, k, recs, 1, &ci, &n), 0);
	TEST_EQ(n, RT_REC_INSIDE + 4);
	TEST_TRUE(records_inlined(ci, r, &recs[0], true));
	TEST_TRUE(is(&ci[RT_REC_INSIDE], "mov", "ebx, edi"));
	TEST_TRUE(is(&ci[RT_REC_INSIDE + 1], "je", "0x55555556100c"));
	TEST_TRUE(is(&ci[RT_REC_INSIDE + 2], "lea", "eax, [rdi + 1]"));
	TEST_TRUE(is(&ci[RT_REC_INSIDE + 3], "jmp", "0x55555556100a"));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* An inlined call that begins at a conditional jump (a match's bounds
 * check): the jump reads flags the recorder clobbers, so the trampoline
 * takes it first and records the call on either way out; at most
 * RT_PATCH_SPLIT_MAX calls, recorded twice. */
TEST_CASE(inlined_entry_at_a_conditional_jump_recorded_after_it)
{
	static const uint8_t code[] = {
		0x53,                          /* 0: push rbx */
		0x83, 0xff, 0x05,              /* 1: cmp edi, 5 */
		0x77, 0x08,                    /* 4: ja 14 */
		0x8b, 0x44, 0x24, 0x08,        /* 6: mov eax, [rsp + 8] */
		0x01, 0xd8,                    /* 10: add eax, ebx */
		0x5b,                          /* 12: pop rbx */
		0xc3,                          /* 13: ret */
		0xb8, 0x01, 0x00, 0x00, 0x00,  /* 14: mov eax, 1 */
		0x5b,                          /* 19: pop rbx */
		0xc3,                          /* 20: ret */
		0xcc, 0xcc, 0xcc,
	};
	static const size_t at[] = { 4 };
	static const struct rt_inl_rec recs[] = {
		{ INL_ID, RT_EV_ENTRY, RT_EVF_INLINED, LO + 4 },
		{ INL_ID + 1, RT_EV_ENTRY, RT_EVF_INLINED, LO + 4 },
		{ INL_ID + 2, RT_EV_ENTRY, RT_EVF_INLINED, LO + 4 },
	};
	const struct rt_recorder *r = rt_arch_recorder();
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	char fall[32];
	size_t n, k;

	TEST_EQ(plan_inlined(&f, code, sizeof(code), at, 1), 0);
	k = probe_at(&f, 4);
	TEST_EQ(f.probes[k].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[k].patch_lo, LO + 4);
	TEST_EQ(f.probes[k].patch_len, 6);   /* ja, mov */
	TEST_EQ(f.probes[k].patch_how, RT_PATCH_JUMP);

	TEST_EQ(tramp_inl(&f, k, recs, 1, &ci, &n), 0);
	TEST_EQ(n, 1 + RT_REC_INSIDE + 1 + RT_REC_INSIDE + 2);
	snprintf(fall, sizeof(fall), "0x%llx",
		 (unsigned long long)ci[RT_REC_INSIDE + 2].address);
	TEST_TRUE(is(&ci[0], "jbe", fall));
	TEST_TRUE(records_inlined(ci + 1, r, &recs[0], true));
	TEST_TRUE(is(&ci[RT_REC_INSIDE + 1], "jmp", "0x55555556100e"));
	TEST_TRUE(records_inlined(ci + RT_REC_INSIDE + 2, r, &recs[0], true));
	TEST_TRUE(is(&ci[2 * RT_REC_INSIDE + 2], "mov",
		     "eax, dword ptr [rsp + 8]"));
	TEST_TRUE(is(&ci[2 * RT_REC_INSIDE + 3], "jmp", "0x55555556100a"));
	cs_free(ci, n);
	TEST_EQ(tramp_inl(&f, k, recs, 2, &ci, &n), 0);
	cs_free(ci, n);
	TEST_EQ(tramp_inl(&f, k, recs, 3, &ci, &n), -E2BIG);
	vec_free(&f.insns);
}

/* An inlined call that begins at the caller's entry: the entry's
 * trampoline records the caller's entry, then the call, as a breakpoint
 * there does; at a conditional tail jump (recorded only when taken) it
 * cannot. */
TEST_CASE(inlined_entry_at_a_site_recorded_after_its_entry)
{
	static const struct rt_inl_rec recs[] = {
		{ INL_ID, RT_EV_ENTRY, RT_EVF_INLINED, LO },
	};
	const struct rt_recorder *r = rt_arch_recorder();
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t n;

	PLAN(f, 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0xb8, 1, 0,
	     0, 0, 0x48, 0x83, 0xc4, 0x10, 0x5d, 0xc3, 0xcc, 0xcc, 0xcc, 0xcc,
	     0xcc);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_OK);
	TEST_EQ(tramp_inl(&f, 0, recs, 1, &ci, &n), 0);
	TEST_EQ(n, 4 + 7 + 4);
	TEST_TRUE(records(ci, r, RT_REC_ENTRY, RT_EV_ENTRY));
	TEST_TRUE(records_inlined(ci + 4, r, &recs[0], false));
	TEST_TRUE(is(&ci[11], "push", "rbp"));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* An entry that keeps its breakpoint (a loop goes back to its second
 * instruction) resumes through a trampoline: the entry recorded, flagged as
 * after a stop, then the jump to its slot.  Its return, patched, and a
 * breakpoint that is no plain entry get none. */
TEST_CASE(breakpoint_entry_resumes_through_a_trampoline)
{
	const rt_raddr slot = TRAMP + 0x800;
	const struct rt_recorder *r = rt_arch_recorder();
	struct rt_tramp_spec t;
	uint8_t buf[RT_ARCH_TRAMP_MAX];
	char word[64], call[32], jmp[32];
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t len, n;

	/* push rbx; L: call .+5; test al, al; jz L; pop rbx; ret; int3 x5 */
	PLAN(f, 0x53, 0xe8, 0, 0, 0, 0, 0x84, 0xc0, 0x74, 0xf7, 0x5b, 0xc3,
	     0xcc, 0xcc, 0xcc, 0xcc, 0xcc);
	TEST_EQ(f.n, 2);
	TEST_EQ(f.probes[0].inline_why, RT_INLINE_TARGET);
	TEST_EQ(f.probes[1].inline_why, RT_INLINE_OK);
	f.probes[0].res = (struct rt_resume){ .kind = RT_RESUME_SLOT,
					      .target = slot };
	f.probes[1].res = f.probes[0].res;
	TEST_TRUE(rt_patch_resume_fits(&f.probes[0]));
	TEST_TRUE(!rt_patch_resume_fits(&f.probes[1]));
	f.probes[0].role = RT_ROLE_ALLOC;
	TEST_TRUE(!rt_patch_resume_fits(&f.probes[0]));
	f.probes[0].role = RT_ROLE_TRACED;
	f.probes[0].res.kind = RT_RESUME_JUMP;
	TEST_TRUE(!rt_patch_resume_fits(&f.probes[0]));
	f.probes[0].res.kind = RT_RESUME_SLOT;

	rt_patch_resume_tramp(&f.probes[0], &t);
	TEST_EQ(rt_arch_tramp_build(&t, TRAMP, RECORDER, buf, &len), 0);
	TEST_TRUE(cs || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) == CS_ERR_OK);
	n = cs_disasm(cs, buf, len, TRAMP, 0, &ci);
	TEST_EQ(n, 5);
	snprintf(word, sizeof(word), "rdi, 0x%llx",
		 (unsigned long long)(FUNC_ID | (uint64_t)RT_EV_ENTRY << 32 |
				      (uint64_t)(RT_EVF_INLINE |
						 RT_EVF_RESUMED) << 40));
	snprintf(call, sizeof(call), "0x%llx",
		 (unsigned long long)(RECORDER + r->call[RT_REC_ENTRY]));
	snprintf(jmp, sizeof(jmp), "0x%llx", (unsigned long long)slot);
	TEST_TRUE(n == 5 && is(&ci[0], "push", "rdi") &&
		  is(&ci[1], "movabs", word) && is(&ci[2], "call", call) &&
		  is(&ci[3], "pop", "rdi") && is(&ci[4], "jmp", jmp));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* An inlined call that begins on a 2-byte jmp, a branch landing right
 * after it (the closure of t082's fixture at -O3): too short for a jump,
 * it hops to a relay in the int3 fill past the caller's return; the
 * trampoline records the call, then takes the jmp. */
TEST_CASE(inlined_entry_on_a_short_jump_hops_to_a_relay)
{
	static const uint8_t code[] = {
		0x53,                          /* 0: push rbx */
		0x85, 0xff,                    /* 1: test edi, edi */
		0x74, 0x04,                    /* 3: je 9 */
		0x31, 0xdb,                    /* 5: xor ebx, ebx */
		0xeb, 0x02,                    /* 7: jmp 11 */
		0x89, 0xfb,                    /* 9: mov ebx, edi */
		0x89, 0xd8,                    /* 11: mov eax, ebx */
		0x5b,                          /* 13: pop rbx */
		0xc3,                          /* 14: ret */
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	};
	static const size_t at[] = { 7 };
	static const struct rt_inl_rec recs[] = {
		{ INL_ID, RT_EV_ENTRY, RT_EVF_INLINED, LO + 7 },
	};
	const struct rt_recorder *r = rt_arch_recorder();
	struct fn f = { 0 };
	cs_insn *ci = NULL;
	size_t k, ret, n;

	TEST_EQ(plan_inlined(&f, code, sizeof(code), at, 1), 0);
	k = probe_at(&f, 7);
	ret = probe_at(&f, 14);
	TEST_EQ(f.probes[k].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[k].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[k].patch_lo, LO + 7);
	TEST_EQ(f.probes[k].patch_len, 2);
	/* in the fill, past the bytes the return's own jump takes */
	TEST_TRUE(f.probes[k].relay_lo >= LO + 15 + 4 &&
		  f.probes[k].relay_lo + 5 <= LO + sizeof(code));
	TEST_TRUE(!f.probes[ret].patch_len ||
		  f.probes[k].relay_lo >= f.probes[ret].patch_lo +
						  f.probes[ret].patch_len);
	TEST_EQ(tramp_inl(&f, k, recs, 1, &ci, &n), 0);
	TEST_EQ(n, RT_REC_INSIDE + 1);
	TEST_TRUE(records_inlined(ci, r, &recs[0], true));
	TEST_TRUE(is(&ci[RT_REC_INSIDE], "jmp", "0x55555556100b"));
	cs_free(ci, n);
	vec_free(&f.insns);
}

/* A 1-byte entry with a branch landing after it: even the short jump
 * would cover the landing, so the call keeps its breakpoint. */
TEST_CASE(inlined_entry_hop_never_covers_a_landing)
{
	static const uint8_t code[] = {
		0x53,                          /* 0: push rbx */
		0x85, 0xff,                    /* 1: test edi, edi */
		0x74, 0x01,                    /* 3: je 6 */
		0x53,                          /* 5: push rbx */
		0x89, 0xf8,                    /* 6: mov eax, edi */
		0x5b,                          /* 8: pop rbx */
		0x5b,                          /* 9: pop rbx */
		0xc3,                          /* 10: ret */
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc,
	};
	static const size_t at[] = { 5 };
	struct fn f = { 0 };
	size_t k;

	TEST_EQ(plan_inlined(&f, code, sizeof(code), at, 1), 0);
	k = probe_at(&f, 5);
	TEST_EQ(f.probes[k].patch_len, 0);
	TEST_EQ(f.probes[k].inline_why, RT_INLINE_TARGET);
	vec_free(&f.insns);
}

/* No dead bytes within a short jump's reach: another inlined call's
 * region nearby grows over more of its straight-line code, and the bytes
 * past its jump hold the relay.  The caller's own sites, planned before
 * (copies here), never grow. */
TEST_CASE(inlined_entry_relay_in_a_grown_instance)
{
	uint8_t code[146];
	static const size_t at[] = { 7, 11 };
	struct fn f = { 0 };
	size_t a, b;

	memcpy(code, (const uint8_t[]){
		0x53,                          /* 0: push rbx */
		0x85, 0xff,                    /* 1: test edi, edi */
		0x74, 0x04,                    /* 3: je 9 */
		0x31, 0xdb,                    /* 5: xor ebx, ebx */
		0xeb, 0x7e,                    /* 7: jmp 135 */
		0x89, 0xfb,                    /* 9: mov ebx, edi */
	}, 11);
	for (size_t i = 11; i < 135; i += 2) {  /* 11: add eax, ebx ... */
		code[i] = 0x01;
		code[i + 1] = 0xd8;
	}
	code[135] = 0x5b;                      /* 135: pop rbx */
	code[136] = 0xc3;                      /* 136: ret */
	memset(code + 137, 0xcc, sizeof(code) - 137);
	TEST_EQ(plan_inlined(&f, code, sizeof(code), at, 2), 0);
	a = probe_at(&f, 7);
	b = probe_at(&f, 11);
	TEST_EQ(f.probes[a].inline_why, RT_INLINE_OK);
	TEST_EQ(f.probes[a].patch_how, RT_PATCH_HOP);
	TEST_EQ(f.probes[b].patch_how, RT_PATCH_JUMP);
	TEST_EQ(f.probes[b].patch_lo, LO + 11);
	TEST_EQ(f.probes[b].patch_len, 10);  /* five adds, grown from 6 */
	TEST_TRUE(f.probes[b].patch_hosts);
	TEST_EQ(f.probes[a].relay_lo, LO + 16);
	TEST_TRUE(f.probes[a].relay_hosted);
	TEST_EQ(f.probes[probe_at(&f, 0)].patch_hosts, false);
	vec_free(&f.insns);
}


/* The recorder, run here on a copy: what one event costs. */
TEST_CASE(event_cost_measured_natively)
{
	uint64_t cost = rt_inline_event_cost();

	/* measured on a copy of the recorder writing into a ring: a few
	 * ns on any machine, never a stop's µs */
	TEST_TRUE(cost > 0);
	TEST_TRUE(cost < 2000);
}
