/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * (private) Writing x86-64 code that will run at a known address in the
 * tracee: the out-of-line slots (displace.c) and the trampolines of the
 * inline engine (inline.c).  Pure: buffers in, bytes out.
 */
#ifndef RTRACE_ARCH_X86_64_EMIT_H
#define RTRACE_ARCH_X86_64_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/arch.h"
#include "x86_64.h"

/* Code being written: @buf holds what will run at @base. */
struct x64_code {
	uint8_t *buf;
	rt_raddr base;
	size_t len;
};

/* The address the next byte will have. */
rt_raddr x64_pc(const struct x64_code *c);

/* Appends @n bytes, a little-endian u32, a little-endian u64. */
void x64_emit(struct x64_code *c, const void *p, size_t n);
void x64_emit_u32(struct x64_code *c, uint32_t v);
void x64_emit_u64(struct x64_code *c, uint64_t v);

/* Little-endian 32-bit access to encoded instructions. */
int32_t x64_get_s32(const uint8_t *p);
void x64_put_u32(uint8_t *p, uint32_t v);

/* Whether a rel32 measured from @end (the next instruction) reaches @to;
 * *rel gets it when it does. */
bool x64_rel32_reaches(rt_raddr end, rt_raddr to, int32_t *rel);

/* A jump to @to: jmp rel32 when it reaches, else jmp *0(%rip) + abs64. */
void x64_emit_jmp(struct x64_code *c, rt_raddr to);

/* Emits a jump to @to taken when condition @cc (enum x64_cond) holds:
 * rel32 when it reaches, else over an absolute jump. */
void x64_emit_jcc(struct x64_code *c, unsigned cc, rt_raddr to);

/* Appends instruction @insn, its RIP-relative displacement (if any)
 * re-encoded to reach the same address from its new place. */
enum rt_refusal x64_emit_insn(struct x64_code *c, const struct rt_insn *insn);

/* A call (direct or indirect) run from elsewhere: pushes the return
 * address it has where it is, then jumps where it would go; the callee
 * returns to the original code.  Lives in displace.c. */
enum rt_refusal x64_emit_moved_call(struct x64_code *c,
				    const struct rt_insn *insn);

/* Most bytes x64_emit_moved_call() writes: the push, the call's operand
 * as a jmp (3 bytes longer at most, an rsp displacement grown to disp32). */
#define X64_MOVED_CALL_MAX (X64_PUSH_SEQ_LEN + X64_INSN_MAX + 3)

/* The same for @len raw bytes whose disp32 sits at @disp_off (0: none),
 * computed for an instruction that ended at @orig_end. */
enum rt_refusal x64_emit_relocated(struct x64_code *c, const uint8_t *code,
				   size_t len, unsigned disp_off,
				   rt_raddr orig_end);

#endif
