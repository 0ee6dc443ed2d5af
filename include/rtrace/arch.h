/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The architecture interface.  Everything that knows about instructions or
 * registers lives behind these declarations, implemented in arch/<cpu>/.
 * Generic code never names a register or an opcode.
 *
 * The per-CPU folder provides "arch-regs.h", which defines struct rt_regs
 * (the register file as ptrace returns it) so that generic code can embed it.
 * Decoding is host-independent: the code-analysis half works on byte buffers
 * and can be unit-tested anywhere.
 */
#ifndef RTRACE_ARCH_H
#define RTRACE_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/raddr.h"
#include "rtrace/vec.h"
#include "arch-regs.h"

/* ---- registers -------------------------------------------------------- */

/* Bytes of the breakpoint instruction; *len gets its length.  Static data. */
const uint8_t *rt_arch_trap_bytes(size_t *len);

/* Address of the breakpoint that made the thread stop with @r (on x86-64 the
 * trap leaves ip one byte past the int3). */
rt_raddr rt_arch_trap_site(const struct rt_regs *r);

/* Instruction pointer, stack pointer, and setters. */
rt_raddr rt_arch_ip(const struct rt_regs *r);
void rt_arch_set_ip(struct rt_regs *r, rt_raddr ip);
rt_raddr rt_arch_sp(const struct rt_regs *r);

/* Integer return value register as seen at a function's exit. */
uint64_t rt_arch_retval(const struct rt_regs *r);

/* Integer argument @n (0-based) at a function's entry, by the C/Rust ABI;
 * returns 0 for n beyond the register arguments. */
uint64_t rt_arch_arg(const struct rt_regs *r, unsigned n);

/* Thread pointer (TLS base) of the thread. */
uint64_t rt_arch_thread_pointer(const struct rt_regs *r);

/* The registers in DWARF numbering, from register 0 up, as libdw's
 * unwinder wants them; returns how many were written (at most @max). */
size_t rt_arch_dwarf_regs(const struct rt_regs *r, uint64_t *out,
			  size_t max);

/* DWARF number of the stack pointer register. */
unsigned rt_arch_dwarf_sp(void);

/* Name of register argument @n for printing ("rdi"...); static string. */
const char *rt_arch_arg_name(unsigned n);

/* ---- remote system calls -------------------------------------------- */

/* Code that performs one system call and then traps: *len gets its size.
 * remote.c writes it at a temporary spot in the tracee.  Static data. */
const uint8_t *rt_arch_syscall_code(size_t *len);

/* Prepares @r so that resuming at @code runs system call @nr with @args. */
void rt_arch_syscall_setup(struct rt_regs *r, rt_raddr code, long nr,
			   const uint64_t args[6]);

/* Result of the system call once the thread trapped after it (-errno on
 * failure, as the kernel returns it). */
long rt_arch_syscall_result(const struct rt_regs *r);

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

/* One decoded instruction.  The arch_* fields are private to arch/. */
struct rt_insn {
	rt_raddr addr;
	rt_raddr target;        /* direct branch target, else 0 */
	uint8_t len;
	uint8_t cls;            /* enum rt_insn_class */
	uint8_t bytes[15];
	uint8_t arch_cond;      /* condition code of a JCC */
	uint8_t arch_reg;       /* register of a JMP_REG */
	uint8_t arch_disp_off;  /* offset of a RIP-relative disp32, or 0 */
	uint8_t arch_modrm_off; /* offset of the ModRM byte, or 0 */
	bool arch_rsp_operand;  /* memory operand based on the stack pointer */
};

typedef VEC(struct rt_insn) rt_insn_vec;

/* Decodes @len bytes at run-time address @addr into @out (appended).
 * Stops at the end of the buffer.  Returns 0, or -EILSEQ when bytes at some
 * offset do not decode (out then holds the instructions before them). */
int rt_arch_decode(const uint8_t *code, size_t len, rt_raddr addr,
		   rt_insn_vec *out);

/* Why a site cannot be displaced; RT_REFUSE_NONE when it can. */
enum rt_refusal {
	RT_REFUSE_NONE,
	RT_REFUSE_UNDECODABLE,     /* the function's bytes do not decode */
	RT_REFUSE_NO_CODE,         /* size 0, or bytes outside any section */
	RT_REFUSE_BRANCH_OTHER,    /* loop/jrcxz/xbegin at a probe site */
	RT_REFUSE_STACK_CALL,      /* indirect call through a stack operand */
	RT_REFUSE_OUT_OF_RANGE,    /* the scratch slot cannot reach a target */
	RT_REFUSE_TRAP_SITE,       /* the site already holds a breakpoint */
	RT_REFUSE_MAX,
};

/* The address an indirect jump or call through memory (@insn, placed at
 * its run-time address) reads its target from, when that address is
 * fixed (RIP-relative or absolute): 0 and *slot, or -ENOENT. */
int rt_arch_mem_target(const struct rt_insn *insn, rt_raddr *slot);

/* Short text for a refusal, for -l and the report; static string. */
const char *rt_refusal_str(enum rt_refusal why);

/* How a thread leaves a probe site after the hit was recorded. */
enum rt_resume_kind {
	RT_RESUME_SLOT,     /* ip := the site's out-of-line slot */
	RT_RESUME_JUMP,     /* ip := target (direct jump emulated) */
	RT_RESUME_JCC,      /* ip := condition ? target : next */
	RT_RESUME_JMP_REG,  /* ip := value of a register */
};

struct rt_resume {
	uint8_t kind;       /* enum rt_resume_kind */
	uint8_t arch_cond;  /* JCC condition, private to arch/ */
	uint8_t arch_reg;   /* JMP_REG register, private to arch/ */
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

#endif
