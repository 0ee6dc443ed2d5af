/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The register half of the x86-64 port: breakpoint and helper code bytes,
 * and accessors over struct user_regs_struct, the NT_PRSTATUS register set
 * (and over the xmm registers of struct user_fpregs_struct, NT_PRFPREG).
 */
#include <linux/audit.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rtrace/arch.h"
#include "rtrace/compiler.h"
#include "x86_64.h"

/* A fault, not int3's trap: a thread that rtrace's death resumes in the
 * middle of a stop at one (the kernel drops the signal) runs it again,
 * never the bytes after it (rt_arch_trap_resolve()). */
static const uint8_t trap_code[] = { X64_OP_UD };

/* syscall, then the breakpoint that hands the thread back to the tracer */
static const uint8_t syscall_code[] = { 0x0f, 0x05, X64_OP_UD };

static const uint8_t trap_ret_code[] = { X64_OP_UD, X64_OP_RET };
static const uint8_t ret_code[] = { X64_OP_RET };

static const char *const arg_names[] = { "rdi", "rsi", "rdx",
					 "rcx", "r8",  "r9" };

const uint8_t *rt_arch_trap_bytes(size_t *len)
{
	*len = sizeof(trap_code);
	return trap_code;
}

#define X64_RED_ZONE 128

/* ret $X64_RED_ZONE: the return address, then the red zone skipped */
static const uint8_t calib_exit[] = { 0xc2, X64_RED_ZONE & 0xff,
				      X64_RED_ZONE >> 8 };

const uint8_t *rt_arch_calib_exit(size_t *len)
{
	*len = sizeof(calib_exit);
	return calib_exit;
}

rt_raddr rt_arch_calib_enter(struct rt_regs *r)
{
	r->r.rsp -= X64_RED_ZONE + 8;
	return r->r.rsp;
}

void rt_arch_calib_leave(struct rt_regs *r)
{
	r->r.rsp += X64_RED_ZONE + 8;
}

extern const uint8_t rt_x64_guard_begin[], rt_x64_guard_end[];
extern const uint8_t rt_x64_guard_handler[], rt_x64_guard_restorer[];

const struct rt_trapguard_code *rt_arch_trapguard_code(void)
{
	static const struct rt_trapguard_code *done;
	static struct rt_trapguard_code tg;

	if (!done) {
		tg.code = rt_x64_guard_begin;
		tg.len = (size_t)(rt_x64_guard_end - rt_x64_guard_begin);
		tg.handler = (size_t)(rt_x64_guard_handler - tg.code);
		tg.restorer = (size_t)(rt_x64_guard_restorer - tg.code);
		done = &tg;
	}
	return done;
}

bool rt_arch_trap_resolve(struct rt_regs *r, int sig)
{
	if (sig != SIGILL)
		return false;
	r->r.rip += sizeof(trap_code);
	return true;
}

rt_raddr rt_arch_trap_site(const struct rt_regs *r)
{
	/* as int3 leaves it, or rt_arch_trap_resolve(): past the trap */
	return r->r.rip - sizeof(trap_code);
}

rt_raddr rt_arch_ip(const struct rt_regs *r)
{
	return r->r.rip;
}

void rt_arch_set_ip(struct rt_regs *r, rt_raddr ip)
{
	r->r.rip = ip;
}

rt_raddr rt_arch_sp(const struct rt_regs *r)
{
	return r->r.rsp;
}

rt_raddr rt_arch_entry_sp(rt_raddr caller_sp)
{
	return caller_sp - sizeof(uint64_t);
}

void rt_arch_set_sp(struct rt_regs *r, rt_raddr sp)
{
	r->r.rsp = sp;
}

uint64_t rt_arch_retval(const struct rt_regs *r)
{
	return r->r.rax;
}

uint64_t rt_arch_retval2(const struct rt_regs *r)
{
	return r->r.rdx;
}

uint64_t rt_arch_arg(const struct rt_regs *r, unsigned n)
{
	switch (n) {
	case 0:
		return r->r.rdi;
	case 1:
		return r->r.rsi;
	case 2:
		return r->r.rdx;
	case 3:
		return r->r.rcx;
	case 4:
		return r->r.r8;
	case 5:
		return r->r.r9;
	default:
		return 0;
	}
}

const char *rt_arch_arg_name(unsigned n)
{
	/* Printable even when asked beyond the register arguments. */
	return n < ARRAY_SIZE(arg_names) ? arg_names[n] : "?";
}

uint64_t rt_arch_thread_pointer(const struct rt_regs *r)
{
	return r->r.fs_base;
}

const uint8_t *rt_arch_syscall_code(size_t *len)
{
	*len = sizeof(syscall_code);
	return syscall_code;
}


/* The kernel's internal restart codes (include/linux/errno.h) */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

bool rt_arch_syscall_restarts(const struct rt_regs *r)
{
	long ax = (long)r->r.rax;

	return (long)r->r.orig_rax >= 0 &&
	       (ax == -ERESTARTSYS || ax == -ERESTARTNOINTR ||
		ax == -ERESTARTNOHAND || ax == -ERESTART_RESTARTBLOCK);
}

rt_raddr rt_arch_stack_scratch(const struct rt_regs *r, size_t len)
{
	return (r->r.rsp - X64_RED_ZONE - len) & ~(rt_raddr)15;
}

void rt_arch_syscall_setup(struct rt_regs *r, rt_raddr code, long nr,
			   const uint64_t args[6])
{
	r->r.rax = (uint64_t)nr;
	r->r.rdi = args[0];
	r->r.rsi = args[1];
	r->r.rdx = args[2];
	r->r.r10 = args[3];     /* not rcx: syscall overwrites it */
	r->r.r8 = args[4];
	r->r.r9 = args[5];
	r->r.rip = code;
	/*
	 * A thread stopped inside an interrupted system call still has its
	 * number in orig_rax, and on resume the kernel's restart logic would
	 * rewind rip by two bytes and reload rax from it.  -1 says "not in a
	 * system call" so our registers are taken as they are.
	 */
	r->r.orig_rax = (uint64_t)-1;
}

uint32_t rt_arch_audit_arch(void)
{
	return AUDIT_ARCH_X86_64;
}

bool rt_arch_in_syscall(const struct rt_regs *r)
{
	return (int64_t)r->r.orig_rax >= 0;
}

bool rt_arch_clear_step_flag(struct rt_regs *r)
{
	const unsigned long long tf = 1ULL << 8;
	bool was = (r->r.eflags & tf) != 0;

	r->r.eflags &= ~tf;
	return was;
}

long rt_arch_syscall_result(const struct rt_regs *r)
{
	return (long)r->r.rax;
}

const uint8_t *rt_arch_trap_ret_code(size_t *len)
{
	*len = sizeof(trap_ret_code);
	return trap_ret_code;
}

const uint8_t *rt_arch_ret_code(size_t *len)
{
	*len = sizeof(ret_code);
	return ret_code;
}

size_t rt_arch_dwarf_vreg(const struct rt_fpregs *f, unsigned reg,
			  uint8_t *out, size_t max)
{
	/* xmm_space: 16 registers of 16 bytes, in order */
	size_t n = MIN(max, 16);

	if (reg < X64_DWARF_XMM0 || reg >= X64_DWARF_XMM0 + 16)
		return 0;
	memcpy(out, (const uint8_t *)f->f.xmm_space +
			    (size_t)16 * (reg - X64_DWARF_XMM0), n);
	return n;
}

unsigned rt_arch_dwarf_float_ret(void)
{
	return X64_DWARF_XMM0;  /* xmm0 */
}

unsigned rt_arch_dwarf_sp(void)
{
	return 7;  /* %rsp in the x86-64 psABI numbering */
}

unsigned rt_arch_dwarf_fp(void)
{
	return 6;  /* %rbp */
}

size_t rt_arch_dwarf_regs(const struct rt_regs *r, uint64_t *out, size_t max)
{
	/* the x86-64 psABI's DWARF numbering: 16 is the return address
	 * column, which holds the instruction pointer of the first frame */
	const uint64_t regs[] = {
		r->r.rax, r->r.rdx, r->r.rcx, r->r.rbx, r->r.rsi, r->r.rdi,
		r->r.rbp, r->r.rsp, r->r.r8, r->r.r9, r->r.r10, r->r.r11,
		r->r.r12, r->r.r13, r->r.r14, r->r.r15, r->r.rip,
	};
	size_t n = MIN(max, ARRAY_SIZE(regs));

	for (size_t i = 0; i < n; i++)
		out[i] = regs[i];
	return n;
}
