/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The architecture interface of the jump engine (engine.h): the jump that
 * replaces a patched region, the trampolines it leads to, and the
 * recorder they call, implemented in arch/<cpu>/ next to arch.h's half.
 * Kept apart so that a port sees what only that engine needs; the trap
 * engine uses none of it.
 */
#ifndef RTRACE_ARCH_JUMP_H
#define RTRACE_ARCH_JUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/arch.h"

/* Bytes of the jump that replaces a patched region. */
size_t rt_arch_patch_len(void);

/* Writes the jump at @at to a trampoline at @to into @out
 * (rt_arch_patch_len() bytes); false when it cannot reach. */
bool rt_arch_patch_jump(rt_raddr at, rt_raddr to, uint8_t *out);

/* Bytes of the short jump that hops from a patched region to its relay
 * (a jump to the trampoline, written in dead bytes nearby). */
size_t rt_arch_hop_len(void);

/* Writes at @at a short jump to @to into @out (rt_arch_hop_len() bytes);
 * with @branch (the rt_arch_hop_len() original bytes at @at, a short
 * direct branch), that branch aimed at @to instead, its condition kept.
 * false when @to is out of a short jump's reach or @branch is not such a
 * branch. */
bool rt_arch_patch_hop(rt_raddr at, rt_raddr to, const uint8_t *branch,
		       uint8_t *out);

/* The ways a trampoline calls the recorder: what the event's value is. */
enum rt_rec_call {
	RT_REC_ENTRY,     /* 0 */
	RT_REC_EXIT,      /* the return value */
	RT_REC_ARG0,      /* the first argument (a jump into memset) */
	RT_REC_TAIL,      /* the jump's target */
	RT_REC_CALLS,
};

/* The recorder routine copied into each traced process, and the places in
 * it the tracer must know (offsets from the start of its code). */
struct rt_recorder {
	const uint8_t *code;      /* static data */
	size_t len;               /* the data block included, at the end */
	size_t call[RT_REC_CALLS];
	size_t window, done;      /* an event is half written in between */
	size_t bell_full;         /* breakpoint: the ring is full */
	size_t bell_miss;         /* breakpoint: the thread has no slot */
	size_t data;              /* the data block (inline-layout.h) */
	size_t syscall;           /* a system call instruction, which
				   * single-stepped makes one call and stops */
};

/* The time stamp counter the recorder reads, read here; 0 when the CPU
 * has none. */
uint64_t rt_arch_cycles(void);

/* Whether that counter is a clock: it ticks at one rate whatever the
 * CPU's frequency, and through its idle states (read from the CPU's
 * flags in @cpuinfo, the text of /proc/cpuinfo). */
bool rt_arch_cycles_steady(const char *cpuinfo);

/* How far a jump from a probe site reaches, either way: the scratch
 * area must lie this close to the code it serves. */
rt_raddr rt_arch_jump_reach(void);

/* The thread pointer of the calling thread, as the recorder reads it. */
uint64_t rt_arch_self_tp(void);

/* Calls the recorder copied (executable) at @entry + its entry offset
 * @n times as a trampoline would, with event word @word: for timing it
 * in rtrace itself.  The copy's data block must be set up. */
void rt_arch_rec_run(const uint8_t *entry, uint64_t word, uint64_t n);

/* The recorder of this architecture.  Static data. */
const struct rt_recorder *rt_arch_recorder(void);

/* What a thread in the recorder holds in its registers: in the window, the
 * whole event and its slot; at the miss breakpoint, all but time and
 * slot. */
struct rt_rec_state {
	uint64_t slot, ts, sp, value, ids, word;
	uint64_t tp;              /* at the miss breakpoint: the thread
				   * pointer it looked for */
};
void rt_arch_rec_state(const struct rt_regs *r, struct rt_rec_state *out);

/* One recorder call of a trampoline: the event word (function id | kind
 * << 32 | flags << 40) and, for RT_REC_TAIL, the target. */
struct rt_tramp_rec {
	uint8_t call;             /* enum rt_rec_call */
	uint64_t word;
	rt_raddr target;
	bool inside;              /* the site is inside a function (an inlined
				   * call's): the flags and the stack below
				   * the stack pointer may be live, so the
				   * call steps over the red zone and keeps
				   * the flags; the word carries
				   * RT_IA_EVF_BELOW */
};

/* How far below a site's stack pointer the recorder sees it when the
 * trampoline stepped over the red zone and saved the flags first. */
size_t rt_arch_tramp_below(void);

/* A trampoline: @pre runs first (an epilogue the jump displaced), then the
 * recorder calls, with @mid between the first and the second (the body
 * of a tiny function, between its entry and its exit), then @post (the
 * displaced code at an entry, or the return or jump of an exit); then it
 * jumps to @back unless @post left. */
#define RT_TRAMP_REC_MAX 6

struct rt_tramp_spec {
	const struct rt_insn *pre;
	size_t npre;
	struct rt_tramp_rec rec[RT_TRAMP_REC_MAX];
	size_t nrec;
	const struct rt_insn *mid;
	size_t nmid;
	const struct rt_insn *post;
	size_t npost;
	const struct rt_insn *cond;  /* a conditional tail jump: the calls are
				      * made only when it is taken (@post is
				      * then empty) */
	rt_raddr back;            /* 0 when @post ends in a return or jump */
	const struct rt_insn *split; /* inlined calls that begin at this
				      * conditional jump: recorded after it,
				      * on either way out (@post follows its
				      * fall-through) */
};

#define RT_ARCH_TRAMP_MAX 256

/* Writes the trampoline @t for address @at into @buf (RT_ARCH_TRAMP_MAX
 * bytes), calling the recorder copied at @recorder; *len gets its size.
 * Returns RT_REFUSE_NONE, or why it cannot be built. */
enum rt_refusal rt_arch_tramp_build(const struct rt_tramp_spec *t,
				    rt_raddr at, rt_raddr recorder,
				    uint8_t *buf, size_t *len);

#endif
