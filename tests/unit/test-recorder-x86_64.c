/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The inline engine's recorder (arch/x86_64/recorder.S), run here on a
 * copy the way a trampoline calls it: every register but the flags as it
 * was, the event written with what the registers and the stack said at
 * the call, the thread's slot found past other threads' slots, the bell
 * rung once at half full, events only counted while recording is off,
 * a slot claimed by the thread itself, and the kernel's clock read when
 * the counter is not usable.
 *
 * Expected values come from the calling side: the registers loaded
 * before the call, the stack pointer at it, clock_gettime around it.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "rtrace/arch.h"
#include "rtrace/arch-jump.h"
#include "rtrace/compiler.h"
#include "rtrace/inline-layout.h"
#include "unittest.h"

#define WORD 0x0000010200000007ULL      /* id 7, kind 2, flags 1 */
#define NREGS 15
#define SP_AT 15                        /* out[]: the stack pointer */

/* Registers, in this order, in the arrays call_rec() takes. */
enum { RAX, RBX, RCX, RDX, RSI, RDI, RBP, R8, R9, R10, R11, R12, R13, R14,
       R15 };

struct rec_call {
	const void *entry;
	uint64_t word;
	const uint64_t *in;
	uint64_t *out;                  /* NREGS + 1 */
};

/* Loads in[], calls @c->entry as a trampoline does (push %rdi; %rdi =
 * word; call; pop %rdi), stores every register into out[] and the stack
 * pointer the trampoline had into out[SP_AT].  Steps over the red zone
 * first, and keeps the registers the compiler expects kept. */
static void call_rec(struct rec_call *c)
{
	__asm__ volatile(
		"sub $128, %%rsp\n\t"
		"push %%rbp\n\tpush %%rbx\n\tpush %%r12\n\t"
		"push %%r13\n\tpush %%r14\n\tpush %%r15\n\t"
		"push 24(%%rax)\n\tpush 8(%%rax)\n\tpush 0(%%rax)\n\t"
		"mov 16(%%rax), %%rax\n\t"
		"mov 8(%%rax), %%rbx\n\tmov 16(%%rax), %%rcx\n\t"
		"mov 24(%%rax), %%rdx\n\tmov 32(%%rax), %%rsi\n\t"
		"mov 40(%%rax), %%rdi\n\tmov 48(%%rax), %%rbp\n\t"
		"mov 56(%%rax), %%r8\n\tmov 64(%%rax), %%r9\n\t"
		"mov 72(%%rax), %%r10\n\tmov 80(%%rax), %%r11\n\t"
		"mov 88(%%rax), %%r12\n\tmov 96(%%rax), %%r13\n\t"
		"mov 104(%%rax), %%r14\n\tmov 112(%%rax), %%r15\n\t"
		"mov 0(%%rax), %%rax\n\t"
		/* the trampoline: entry at 8(%rsp), word at 16(%rsp) */
		"push %%rdi\n\t"
		"mov 16(%%rsp), %%rdi\n\t"
		"call *8(%%rsp)\n\t"
		"pop %%rdi\n\t"
		"push %%rax\n\t"
		"mov 24(%%rsp), %%rax\n\t"
		"mov %%rbx, 8(%%rax)\n\tmov %%rcx, 16(%%rax)\n\t"
		"mov %%rdx, 24(%%rax)\n\tmov %%rsi, 32(%%rax)\n\t"
		"mov %%rdi, 40(%%rax)\n\tmov %%rbp, 48(%%rax)\n\t"
		"mov %%r8, 56(%%rax)\n\tmov %%r9, 64(%%rax)\n\t"
		"mov %%r10, 72(%%rax)\n\tmov %%r11, 80(%%rax)\n\t"
		"mov %%r12, 88(%%rax)\n\tmov %%r13, 96(%%rax)\n\t"
		"mov %%r14, 104(%%rax)\n\tmov %%r15, 112(%%rax)\n\t"
		"pop %%rbx\n\t"
		"mov %%rbx, 0(%%rax)\n\t"
		"mov %%rsp, 120(%%rax)\n\t"
		"add $24, %%rsp\n\t"
		"pop %%r15\n\tpop %%r14\n\tpop %%r13\n\t"
		"pop %%r12\n\tpop %%rbx\n\tpop %%rbp\n\t"
		"add $128, %%rsp\n\t"
		: "+a"(c)
		:
		: "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
		  "memory", "cc");
}

/* A copy of the recorder with a table, control words and rings of its
 * own; no slot is taken. */
struct rig {
	uint8_t *code, *table, *ring, ctl[RT_IA_TABLE - RT_IA_CTL];
	uint64_t *lostfn;               /* counters of ids LOST_BASE on */
	size_t len;
	uint64_t tp;
};

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The slot a thread pointer's lookup starts at (src/tracer/inline.c). */
static unsigned first_slot(uint64_t tp)
{
	return (unsigned)((tp * 0x9e3779b97f4a7c15ULL) >> 32) &
	       (RT_IA_SLOTS - 1);
}

static uint8_t *slot_at(struct rig *g, unsigned i)
{
	return g->table + (size_t)(i & (RT_IA_SLOTS - 1)) * RT_IA_SLOT_SIZE;
}

#define CAP 64
#define LOST_BASE 5                     /* WORD's id 7 is counter 2 */

static bool rig_make(struct rig *g, uint64_t clock, uint64_t half)
{
	const struct rt_recorder *rec = rt_arch_recorder();
	uint8_t *d;

	memset(g, 0, sizeof(*g));
	g->tp = rt_arch_self_tp();
	g->len = (rec->len + 4095) & ~(size_t)4095;
	g->code = mmap(NULL, g->len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->code == MAP_FAILED)
		return false;
	g->table = calloc(RT_IA_SLOTS, RT_IA_SLOT_SIZE);
	g->ring = calloc(RT_IA_SLOTS, (size_t)CAP * RT_IA_EVENT);
	memcpy(g->code, rec->code, rec->len);
	d = g->code + rec->data;
	put_u64(d + RT_RD_TABLE, (uint64_t)g->table);
	put_u64(d + RT_RD_MASK, RT_IA_SLOTS - 1);
	put_u64(d + RT_RD_CAP, CAP);
	put_u64(d + RT_RD_CAP_MASK, CAP - 1);
	put_u64(d + RT_RD_CLOCK, clock);
	put_u64(d + RT_RD_CTL, (uint64_t)g->ctl);
	put_u64(d + RT_RD_HALF, half);
	g->lostfn = calloc(RT_IA_LOSTFN_IDS, sizeof(uint64_t));
	put_u64(d + RT_RD_LOSTFN, (uint64_t)g->lostfn);
	put_u64(d + RT_RD_LOST_BASE, LOST_BASE);
	for (unsigned i = 0; i < RT_IA_SLOTS; i++)
		put_u64(slot_at(g, i) + RT_IA_SLOT_RING,
			(uint64_t)(g->ring + (size_t)i * CAP * RT_IA_EVENT));
	return mprotect(g->code, g->len, PROT_READ | PROT_EXEC) == 0;
}

static void rig_free(struct rig *g)
{
	munmap(g->code, g->len);
	free(g->table);
	free(g->ring);
	free(g->lostfn);
}

/* Slot @i is this thread's. */
static void rig_own(struct rig *g, unsigned i)
{
	put_u64(slot_at(g, i) + RT_IA_SLOT_TP, g->tp);
}

static void regs_in(uint64_t *in, uint64_t seed)
{
	for (int i = 0; i < NREGS; i++)
		in[i] = seed * 0x0101010101010101ULL + (uint64_t)i * 0x1111;
}

/* Calls @call's entry once: whether every register came back. */
static bool call_kept(struct rig *g, enum rt_rec_call call, uint64_t seed,
		      uint64_t *out)
{
	const struct rt_recorder *rec = rt_arch_recorder();
	uint64_t in[NREGS];
	struct rec_call c = { g->code + rec->call[call], WORD, in, out };

	regs_in(in, seed);
	memset(out, 0, (NREGS + 1) * sizeof(*out));  /* the asm writes it */
	call_rec(&c);
	for (int i = 0; i < NREGS; i++)
		if (out[i] != in[i])
			return false;
	return true;
}

/* Event @n of slot @i: time, stack pointer, value, word. */
static void event(struct rig *g, unsigned i, uint64_t n, uint64_t f[4])
{
	const uint8_t *ev = g->ring + ((size_t)(i & (RT_IA_SLOTS - 1)) * CAP +
				       n % CAP) * RT_IA_EVENT;

	for (int k = 0; k < 4; k++)
		f[k] = get_u64(ev + 8 * (size_t)k);
}

/* Each kind of call: the registers kept, the event written whole, the
 * value where each kind takes it from; a tail jump's trampoline has also
 * pushed %rsi, so the site is 8 bytes above what this caller pushed. */
TEST_CASE(events_of_each_kind)
{
	static const struct {
		enum rt_rec_call call;
		int value_reg;          /* -1: the value is 0 */
		uint64_t sp_off;
	} kinds[] = {
		{ RT_REC_ENTRY, -1, 0 },
		{ RT_REC_EXIT, RAX, 0 },
		{ RT_REC_ARG0, RDI, 0 },
		{ RT_REC_TAIL, RSI, 8 },
	};
	unsigned h;
	uint64_t last = 0;
	struct rig g;

	TEST_TRUE(rig_make(&g, RT_CLOCK_TSC, UINT64_MAX));
	h = first_slot(g.tp);
	rig_own(&g, h);
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		uint64_t out[NREGS + 1], in[NREGS], f[4];

		TEST_TRUE(call_kept(&g, kinds[k].call, k + 1, out));
		regs_in(in, k + 1);
		TEST_EQ(get_u64(slot_at(&g, h) + RT_IA_SLOT_HEAD), k + 1);
		event(&g, h, k, f);
		TEST_TRUE(f[0] > last);
		last = f[0];
		TEST_EQ(f[1], out[SP_AT] + kinds[k].sp_off);
		TEST_EQ(f[2], kinds[k].value_reg < 0 ? 0
						     : in[kinds[k].value_reg]);
		TEST_EQ(f[3], WORD);
	}
	rig_free(&g);
}

/* The first slots tried hold another thread, a thread that left and a
 * thread pointer found shared: the event lands in the slot after them,
 * and none of theirs. */
TEST_CASE(slot_found_past_others)
{
	uint64_t out[NREGS + 1], f[4];
	unsigned h;
	struct rig g;

	TEST_TRUE(rig_make(&g, RT_CLOCK_TSC, UINT64_MAX));
	h = first_slot(g.tp);
	put_u64(slot_at(&g, h) + RT_IA_SLOT_TP, g.tp + 4096);
	put_u64(slot_at(&g, h + 1) + RT_IA_SLOT_TP, 1);
	put_u64(slot_at(&g, h + 2) + RT_IA_SLOT_TP, 2);
	rig_own(&g, h + 3);
	TEST_TRUE(call_kept(&g, RT_REC_ENTRY, 5, out));
	TEST_TRUE(call_kept(&g, RT_REC_EXIT, 6, out));
	for (unsigned i = 0; i < 3; i++)
		TEST_EQ(get_u64(slot_at(&g, h + i) + RT_IA_SLOT_HEAD), 0);
	TEST_EQ(get_u64(slot_at(&g, h + 3) + RT_IA_SLOT_HEAD), 2);
	event(&g, h + 3, 1, f);
	TEST_EQ(f[1], out[SP_AT]);
	TEST_EQ(f[3], WORD);
	rig_free(&g);
}

/* Recording off: no slot, or a full ring, and the event is only counted
 * (no breakpoint is reached: it would kill this test). */
TEST_CASE(off_counts_only)
{
	uint64_t out[NREGS + 1];
	unsigned h;
	struct rig g;

	TEST_TRUE(rig_make(&g, RT_CLOCK_TSC, UINT64_MAX));
	put_u64(g.ctl + 0, (uint64_t)RT_OFF_GONE << 32);   /* bell 0, off */
	TEST_TRUE(call_kept(&g, RT_REC_ENTRY, 7, out));
	TEST_EQ(get_u64(g.ctl + RT_IA_CTL_LOST), 1);
	h = first_slot(g.tp);
	rig_own(&g, h);
	put_u64(slot_at(&g, h) + RT_IA_SLOT_HEAD, CAP);
	TEST_TRUE(call_kept(&g, RT_REC_EXIT, 8, out));
	TEST_EQ(get_u64(g.ctl + RT_IA_CTL_LOST), 2);
	TEST_EQ(get_u64(slot_at(&g, h) + RT_IA_SLOT_HEAD), CAP);
	/* and for the function, by its id */
	TEST_EQ(g.lostfn[7 - LOST_BASE], 2);
	TEST_EQ(g.lostfn[0] + g.lostfn[1] + g.lostfn[3], 0);
	rig_free(&g);
}

/* Half full: the bell is rung once (bumped, and a futex wake nobody
 * waits for), the event written all the same. */
TEST_CASE(half_full_rings_once)
{
	uint64_t out[NREGS + 1];
	unsigned h;
	struct rig g;

	TEST_TRUE(rig_make(&g, RT_CLOCK_TSC, CAP / 2));
	h = first_slot(g.tp);
	rig_own(&g, h);
	put_u64(slot_at(&g, h) + RT_IA_SLOT_HEAD, CAP / 2 - 1);
	TEST_TRUE(call_kept(&g, RT_REC_ENTRY, 9, out));
	TEST_EQ(get_u64(g.ctl + RT_IA_CTL_BELL) & 0xffffffff, 0);
	TEST_TRUE(call_kept(&g, RT_REC_EXIT, 10, out));
	TEST_EQ(get_u64(g.ctl + RT_IA_CTL_BELL) & 0xffffffff, 1);
	TEST_EQ(get_u64(slot_at(&g, h) + RT_IA_SLOT_NUDGE) & 0xffffffff, 1);
	TEST_TRUE(call_kept(&g, RT_REC_EXIT, 11, out));
	TEST_EQ(get_u64(g.ctl + RT_IA_CTL_BELL) & 0xffffffff, 1);
	TEST_EQ(get_u64(slot_at(&g, h) + RT_IA_SLOT_HEAD), CAP / 2 + 2);
	rig_free(&g);
}

static void put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Claims on: with no slot of its own the thread takes the first free one
 * of its window (one left by another thread counts as free), says who it
 * is there, and writes its event; the next event finds the slot by the
 * lookup alone. */
TEST_CASE(claims_a_free_slot)
{
	uint64_t out[NREGS + 1], f[4];
	uint64_t tid = (uint64_t)syscall(SYS_gettid);
	unsigned h;
	struct rig g;

	TEST_TRUE(rig_make(&g, RT_CLOCK_TSC, UINT64_MAX));
	put_u32(g.ctl + RT_IA_CTL_CLAIM, 1);
	h = first_slot(g.tp);
	put_u64(slot_at(&g, h) + RT_IA_SLOT_TP, g.tp + 4096);
	put_u64(slot_at(&g, h + 1) + RT_IA_SLOT_TP, 1);
	TEST_TRUE(call_kept(&g, RT_REC_ENTRY, 13, out));
	TEST_EQ(get_u64(slot_at(&g, h) + RT_IA_SLOT_TP), g.tp + 4096);
	TEST_EQ(get_u64(slot_at(&g, h) + RT_IA_SLOT_HEAD), 0);
	TEST_EQ(get_u64(slot_at(&g, h + 1) + RT_IA_SLOT_TP), g.tp);
	TEST_EQ(get_u64(slot_at(&g, h + 1) + RT_IA_SLOT_IDS), tid);
	TEST_EQ(get_u64(slot_at(&g, h + 1) + RT_IA_SLOT_HEAD), 1);
	TEST_TRUE(call_kept(&g, RT_REC_EXIT, 14, out));
	TEST_EQ(get_u64(slot_at(&g, h + 1) + RT_IA_SLOT_HEAD), 2);
	TEST_EQ(get_u64(slot_at(&g, h + 2) + RT_IA_SLOT_TP), 0);
	event(&g, h + 1, 1, f);
	TEST_EQ(f[1], out[SP_AT]);
	TEST_EQ(f[3], WORD);
	TEST_EQ(get_u64(g.ctl + RT_IA_CTL_NOSLOT), 0);
	rig_free(&g);
}

/* Every slot of the window another thread's: the event is counted as
 * not recorded, and no slot changes (no breakpoint is reached). */
TEST_CASE(claim_finds_no_slot)
{
	uint64_t out[NREGS + 1];
	unsigned h;
	struct rig g;

	TEST_TRUE(rig_make(&g, RT_CLOCK_TSC, UINT64_MAX));
	put_u32(g.ctl + RT_IA_CTL_CLAIM, 1);
	h = first_slot(g.tp);
	for (unsigned i = 0; i < RT_IA_PROBES; i++)
		put_u64(slot_at(&g, h + i) + RT_IA_SLOT_TP,
			g.tp + 4096 * (i + 1));
	TEST_TRUE(call_kept(&g, RT_REC_ENTRY, 15, out));
	TEST_TRUE(call_kept(&g, RT_REC_EXIT, 16, out));
	TEST_EQ(get_u64(g.ctl + RT_IA_CTL_NOSLOT), 2);
	TEST_EQ(get_u64(g.ctl + RT_IA_CTL_LOST), 0);
	TEST_EQ(g.lostfn[7 - LOST_BASE], 2);
	for (unsigned i = 0; i < RT_IA_PROBES; i++) {
		TEST_EQ(get_u64(slot_at(&g, h + i) + RT_IA_SLOT_TP),
			g.tp + 4096 * (i + 1));
		TEST_EQ(get_u64(slot_at(&g, h + i) + RT_IA_SLOT_HEAD), 0);
	}
	TEST_EQ(get_u64(slot_at(&g, h + RT_IA_PROBES) + RT_IA_SLOT_TP), 0);
	rig_free(&g);
}

/* The recorder's miss, met: where it was, and the thread moved past the
 * write, as rtrace does when it records the event itself. */
static struct {
	uintptr_t done;
	volatile uintptr_t at;
} miss;

static void on_ill(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	(void)si;
	miss.at = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)miss.done;
}

/* Calls the entry once with claims on or off; where it met the miss, or
 * 0. */
static uintptr_t call_to_miss(struct rig *g, bool claims, uint64_t seed)
{
	const struct rt_recorder *rec = rt_arch_recorder();
	struct sigaction sa = { .sa_sigaction = on_ill,
				.sa_flags = SA_SIGINFO }, old;
	uint64_t out[NREGS + 1];
	bool kept;

	put_u32(g->ctl + RT_IA_CTL_CLAIM, claims);
	miss.done = (uintptr_t)g->code + rec->done;
	miss.at = 0;
	sigaction(SIGILL, &sa, &old);
	kept = call_kept(g, RT_REC_ENTRY, seed, out);
	sigaction(SIGILL, &old, NULL);
	return kept ? miss.at : 1;
}

/* Claims off, the miss is a stop for rtrace; a marker of this thread
 * pointer (shared by two threads) past a left slot sends the thread
 * there too with claims on, though a slot is free, and with recording
 * off only counts the event. */
TEST_CASE(miss_and_shared_marker)
{
	const struct rt_recorder *rec = rt_arch_recorder();
	uint64_t out[NREGS + 1];
	unsigned h;
	struct rig g;

	TEST_TRUE(rig_make(&g, RT_CLOCK_TSC, UINT64_MAX));
	h = first_slot(g.tp);
	TEST_EQ(call_to_miss(&g, false, 17), (uintptr_t)g.code + rec->bell_miss);
	TEST_EQ(get_u64(slot_at(&g, h) + RT_IA_SLOT_TP), 0);
	put_u64(slot_at(&g, h) + RT_IA_SLOT_TP, 1);
	put_u64(slot_at(&g, h + 1) + RT_IA_SLOT_TP, g.tp | 1);
	TEST_EQ(call_to_miss(&g, true, 18), (uintptr_t)g.code + rec->bell_miss);
	TEST_EQ(get_u64(slot_at(&g, h) + RT_IA_SLOT_TP), 1);
	TEST_EQ(get_u64(slot_at(&g, h + 1) + RT_IA_SLOT_TP), g.tp | 1);
	TEST_EQ(get_u64(slot_at(&g, h + 2) + RT_IA_SLOT_TP), 0);
	TEST_EQ(get_u64(g.ctl + RT_IA_CTL_NOSLOT), 0);
	put_u32(g.ctl + RT_IA_CTL_OFF, RT_OFF_GONE);
	TEST_TRUE(call_kept(&g, RT_REC_ENTRY, 19, out));
	TEST_EQ(get_u64(g.ctl + RT_IA_CTL_LOST), 1);
	TEST_EQ(get_u64(slot_at(&g, h + 2) + RT_IA_SLOT_TP), 0);
	rig_free(&g);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Without a usable counter the event's time is CLOCK_MONOTONIC's, from
 * the system call: between two readings taken around the call. */
TEST_CASE(kernel_clock)
{
	uint64_t out[NREGS + 1], f[4], t0, t1;
	unsigned h;
	struct rig g;

	TEST_TRUE(rig_make(&g, RT_CLOCK_SYSCALL, UINT64_MAX));
	h = first_slot(g.tp);
	rig_own(&g, h);
	t0 = mono_ns();
	TEST_TRUE(call_kept(&g, RT_REC_TAIL, 12, out));
	t1 = mono_ns();
	event(&g, h, 0, f);
	TEST_TRUE(f[0] >= t0 && f[0] <= t1);
	TEST_EQ(f[1], out[SP_AT] + 8);
	TEST_EQ(f[3], WORD);
	rig_free(&g);
}
