/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The architecture interface.  Everything that knows about instructions or
 * registers lives behind these declarations, implemented in arch/<cpu>/.
 * Generic code never names a register or an opcode.
 *
 * The per-CPU folder provides "arch-regs.h", which defines struct rt_regs
 * (the register file as ptrace returns it) and struct rt_fpregs (the
 * floating-point and vector registers, likewise) so that generic code can
 * embed them.
 * Decoding is host-independent: the code-analysis half works on byte buffers
 * and can be unit-tested anywhere.  What only the jump engine needs is in
 * arch-jump.h.
 */
#ifndef RTRACE_ARCH_H
#define RTRACE_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/raddr.h"
#include "rtrace/vec.h"
#include "arch-regs.h"
#include "rtrace/refusal.h"

/* ---- registers -------------------------------------------------------- */

/* Bytes of the breakpoint instruction rtrace writes in the program's code
 * (a fault: a thread resumed on it runs it again); *len gets its length.
 * Static data. */
const uint8_t *rt_arch_trap_bytes(size_t *len);

/* The end of the stop-cost calibration's row of breakpoints: bytes that
 * return to the address rt_arch_calib_enter() made room for on the stack
 * and put the stack pointer back, so that a thread in the row goes on
 * where it was going even when rtrace is gone.  Static data. */
const uint8_t *rt_arch_calib_exit(size_t *len);

/* Moves @r's stack pointer down, past the red zone, to hold the address
 * the row returns to; returns where to write it (8 bytes). */
rt_raddr rt_arch_calib_enter(struct rt_regs *r);

/* Undoes rt_arch_calib_enter() on @r: the thread leaves the row early. */
void rt_arch_calib_leave(struct rt_regs *r);

/* The SIGTRAP guard's code (trapguard-layout.h), copied to the start of
 * its mapping in the tracee: @handler and @restorer are offsets in it. */
struct rt_trapguard_code {
	const uint8_t *code;      /* static data */
	size_t len, handler, restorer;
};
const struct rt_trapguard_code *rt_arch_trapguard_code(void);

/* Thread registers @r of a stop for signal @sig at one of rtrace's traps,
 * made to look like every other: past the trap.  A breakpoint in the
 * program's code (rt_arch_trap_bytes()) is a fault, SIGILL, which leaves
 * ip on it; a trap (int3, a step: SIGTRAP) leaves ip past what it ran.
 * Whether ip moved: it goes back with rt_arch_set_ip() at the trap site
 * if the stop is not rtrace's. */
bool rt_arch_trap_resolve(struct rt_regs *r, int sig);

/* Address of the trap that made the thread stop with @r, resolved
 * (rt_arch_trap_resolve()). */
rt_raddr rt_arch_trap_site(const struct rt_regs *r);

/* Instruction pointer, stack pointer, and setters. */
rt_raddr rt_arch_ip(const struct rt_regs *r);
void rt_arch_set_ip(struct rt_regs *r, rt_raddr ip);
rt_raddr rt_arch_sp(const struct rt_regs *r);
void rt_arch_set_sp(struct rt_regs *r, rt_raddr sp);

/* The stack pointer a function has at its first instruction when its
 * caller's was @caller_sp at the call (x86-64: the return address is
 * pushed below it). */
rt_raddr rt_arch_entry_sp(rt_raddr caller_sp);

/* Integer return value register as seen at a function's exit. */
uint64_t rt_arch_retval(const struct rt_regs *r);

/* The second one, for a value returned in two registers (a fat pointer,
 * a 128-bit integer). */
uint64_t rt_arch_retval2(const struct rt_regs *r);

/* Integer argument @n (0-based) at a function's entry, by the C/Rust ABI;
 * returns 0 for n beyond the register arguments. */
uint64_t rt_arch_arg(const struct rt_regs *r, unsigned n);

/* Thread pointer (TLS base) of the thread. */
uint64_t rt_arch_thread_pointer(const struct rt_regs *r);

/* The registers in DWARF numbering, from register 0 up, as libdw's
 * unwinder wants them; returns how many were written (at most @max). */
size_t rt_arch_dwarf_regs(const struct rt_regs *r, uint64_t *out,
			  size_t max);

/* The bytes of the floating-point or vector register numbered @reg in
 * DWARF (x86-64: 17 to 32 are xmm0 to xmm15), at most @max of them, into
 * @out; returns how many, 0 when @reg is not such a register. */
size_t rt_arch_dwarf_vreg(const struct rt_fpregs *f, unsigned reg,
			  uint8_t *out, size_t max);

/* DWARF number of the register a float or double is returned in. */
unsigned rt_arch_dwarf_float_ret(void);

/* DWARF number of the stack pointer register. */
unsigned rt_arch_dwarf_sp(void);

/* DWARF number of the frame pointer register. */
unsigned rt_arch_dwarf_fp(void);

/* Name of register argument @n for printing ("rdi"...); static string. */
const char *rt_arch_arg_name(unsigned n);

/* ---- remote system calls -------------------------------------------- */

/* Code that performs one system call and then traps: *len gets its size.
 * remote.c writes it at a temporary spot in the tracee.  Static data. */
const uint8_t *rt_arch_syscall_code(size_t *len);

/* Prepares @r so that resuming at @code runs system call @nr with @args. */
void rt_arch_syscall_setup(struct rt_regs *r, rt_raddr code, long nr,
			   const uint64_t args[6]);

/* Where @len bytes may go on the stack of a thread stopped with @r, for
 * a remote system call's data: below the stack pointer and below what
 * the ABI lets a function keep there (x86-64's 128-byte red zone),
 * aligned for any type. */
rt_raddr rt_arch_stack_scratch(const struct rt_regs *r, size_t len);

/* Whether @r is a thread stopped in a system call that a signal
 * interrupted and that the kernel restarts as the thread leaves the
 * signal-delivery path (its result one of the -ERESTART* codes). */
bool rt_arch_syscall_restarts(const struct rt_regs *r);

/* The AUDIT_ARCH_* value the kernel gives a seccomp filter for this
 * CPU's system calls. */
uint32_t rt_arch_audit_arch(void);

/* Result of the system call once the thread trapped after it (-errno on
 * failure, as the kernel returns it). */
long rt_arch_syscall_result(const struct rt_regs *r);

/* Whether the thread stopped at @r is inside a system call (one that a
 * resume would restart, and which may block). */
bool rt_arch_in_syscall(const struct rt_regs *r);

/* Clears the single-step (trace) flag in @r; true when it was set.  A
 * step over code that saves and restores the flags (a trampoline's
 * pushf ... popf) leaves the flag set as the program's own, which no
 * detach clears. */
bool rt_arch_clear_step_flag(struct rt_regs *r);

/* ---- calibration ----------------------------------------------------- */

/* Code of a function that executes one breakpoint and returns, callable as
 * void f(void) once copied to executable memory.  Static data. */
const uint8_t *rt_arch_trap_ret_code(size_t *len);

/* Code of a function that only returns.  Static data. */
const uint8_t *rt_arch_ret_code(size_t *len);

/* ---- code analysis ---------------------------------------------------- */

/* What an instruction does to control flow; decides its probe role. */
enum rt_insn_class {
	RT_INSN_PLAIN,          /* falls through to the next instruction */
	RT_INSN_RET,            /* returns (ret, ret imm16) */
	RT_INSN_JMP,            /* direct unconditional jump; target known */
	RT_INSN_JMP_REG,        /* indirect jump through a register */
	RT_INSN_JMP_MEM,        /* indirect jump through memory */
	RT_INSN_JCC,            /* direct conditional jump; target known */
	RT_INSN_CALL,           /* direct call; target known */
	RT_INSN_CALL_INDIRECT,  /* call through a register or memory */
	RT_INSN_BRANCH_OTHER,   /* loop, jrcxz, xbegin...: not displaceable */
	RT_INSN_TRAP,           /* a breakpoint instruction (padding, traps) */
	RT_INSN_SYSCALL,        /* syscall/sysenter */
};

/* One decoded instruction.  @arch holds the CPU folder's encoding
 * details (arch-regs.h), private to arch/. */
struct rt_insn {
	rt_raddr addr;
	rt_raddr target;        /* direct branch target, else 0 */
	uint8_t len;
	uint8_t cls;            /* enum rt_insn_class */
	uint8_t bytes[RT_ARCH_INSN_MAX];
	bool pad;               /* does nothing: an alignment no-op, or a
				 * breakpoint used as filler */
	bool ends;              /* never goes on to the next instruction:
				 * a return, a jump, a trap, ud2, hlt */
	struct rt_arch_insn arch;
	bool packed;            /* computes several lanes of a vector
				 * register at once: a vectorised loop's
				 * work (moves, logic and scalar arithmetic,
				 * which scalar code uses too, are not) */
};

typedef VEC(struct rt_insn) rt_insn_vec;

/* Decodes @len bytes at run-time address @addr into @out (appended).
 * Stops at the end of the buffer.  Returns 0, or -EILSEQ when bytes at some
 * offset do not decode (out then holds the instructions before them). */
int rt_arch_decode(const uint8_t *code, size_t len, rt_raddr addr,
		   rt_insn_vec *out);

/* Whether @in addresses memory relative to the instruction pointer (a jump
 * through memory that does is a jump through a GOT slot, not a table). */
bool rt_arch_insn_rip_relative(const struct rt_insn *in);

/* The places the indirect jump @insns[k] of a function (all of it decoded
 * in @insns[0..n)) can go, when it is a jump table this architecture's
 * compilers emit: up to @max of them into @targets, read from the table
 * through @read.  0 when it is not a table recognised (a tail call through
 * a pointer, or a shape not known). */
size_t rt_arch_jump_table(const struct rt_insn *insns, size_t n, size_t k,
			  int (*read)(void *ctx, rt_raddr addr, void *buf,
				      size_t len),
			  void *ctx, rt_raddr *targets, size_t max);

/* The address an indirect jump or call through memory (@insn, placed at
 * its run-time address) reads its target from, when that address is
 * fixed (RIP-relative or absolute): 0 and *slot, or -ENOENT. */
int rt_arch_mem_target(const struct rt_insn *insn, rt_raddr *slot);

/* How a thread leaves a probe site after the hit was recorded. */
enum rt_resume_kind {
	RT_RESUME_SLOT,     /* ip := the site's out-of-line slot */
	RT_RESUME_JUMP,     /* ip := target (direct jump emulated) */
	RT_RESUME_JCC,      /* ip := condition ? target : next */
	RT_RESUME_JMP_REG,  /* ip := value of a register */
};

struct rt_resume {
	uint8_t kind;       /* enum rt_resume_kind */
	struct rt_arch_branch arch; /* JCC condition, JMP_REG register:
				     * private to arch/ */
	uint8_t slot_len;   /* bytes used in the slot (SLOT only) */
	rt_raddr target;    /* JUMP/JCC target, or slot address for SLOT */
	rt_raddr next;      /* address after the displaced instruction */
};

/* Largest slot any instruction needs; probes.c reserves this per site. */
#define RT_ARCH_SLOT_MAX 64

/* Plans how to resume after a hit on @insn.  For RT_RESUME_SLOT, writes the
 * slot code for a slot placed at @slot into @buf (RT_ARCH_SLOT_MAX bytes) and
 * sets slot_len.  Returns RT_REFUSE_NONE, or why the site is refused. */
enum rt_refusal rt_arch_plan_resume(const struct rt_insn *insn, rt_raddr slot,
				    uint8_t *buf, struct rt_resume *out);

/* Where the thread goes after a hit on a site planned as @res, given its
 * registers; *taken is set for a JCC (true when the jump is taken) and
 * for the others says whether control leaves through the site's branch.
 * Hot path: no system calls, no allocation. */
rt_raddr rt_arch_resume_ip(const struct rt_resume *res,
			   const struct rt_regs *r, bool *taken);

/* ---- the register saves of a prologue ------------------------------- */

/* A register the prologue stored on the stack: @len bytes of @value at
 * @addr. */
struct rt_spill {
	rt_raddr addr;
	uint8_t len;
	uint64_t value;
};

/* Runs on @r (a thread at a function's first instruction, @code its
 * original bytes from there) the prefix of the prologue that only saves
 * registers on the stack: pushes, the stack pointer's subtraction, stores
 * of registers to the stack, those of the floating-point registers in @fp
 * too (NULL: not known, the saves stop at the first).  @r's ip and sp are
 * left past it, its stores go to @out (@max at most); returns how many.
 * Unoptimised code spills the arguments there, and its debug information
 * says where they are only after that. */
size_t rt_arch_run_saves(const uint8_t *code, size_t len, struct rt_regs *r,
			 const struct rt_fpregs *fp, struct rt_spill *out,
			 size_t max);

#endif
