/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trap guard's handler (trapguard.h): code that rtrace copies into an
 * attached process, where it is the action of SIGILL and SIGTRAP while
 * the program leaves them at their default.  It never runs while rtrace
 * traces the process (rtrace takes every signal first) but for one rtrace
 * passes on, after it set RT_TG_PASS.  It runs when rtrace died with a
 * thread at one of its traps, or on the way to one: it waits until the
 * guardian has put the original code back (RT_TG_RESTORED), then
 *  - SIGILL at a breakpoint site the guardian put back: the thread runs
 *    the original instruction (a breakpoint is a fault: ip is on it);
 *  - SIGILL at a breakpoint of rtrace's own code (the recorder's, where
 *    it looks again, finds recording off and drops the event; the
 *    stop-cost row's): the thread goes on past it;
 *  - SIGTRAP of a single step rtrace began: the trace flag goes, the
 *    thread goes on;
 *  - anything else: the default action, as without the handler (it is
 *    taken out, the signal raised again).
 *
 * Called as void handler(int sig, siginfo_t *info, ucontext_t *uc).
 * rt_sigreturn puts every register back from @uc, so all are free here.
 */
#include "rtrace/trapguard-layout.h"

#define SYS_rt_sigaction 13
#define SYS_rt_sigreturn 15
#define SYS_nanosleep 35
#define SYS_getpid 39
#define SYS_gettid 186
#define SYS_tgkill 234
#define SIGILL 4
#define SI_CODE 8                  /* siginfo_t.si_code */
#define ILL_ILLOPN 2               /* an undefined opcode */
#define TRAP_TRACE 2               /* a single step */
#define UC_RIP 168                 /* ucontext_t: uc_mcontext.gregs[REG_RIP] */
#define UC_EFL 176                 /* ... gregs[REG_EFL] */
#define EFL_TF 0x100
#define OP_UD 0x06                 /* rtrace's breakpoint (x86_64.h) */

	.section .rodata.rtrace_trapguard, "a"
	.balign 16
	.globl rt_x64_guard_begin
rt_x64_guard_begin:
.Lbegin:
	.globl rt_x64_guard_handler
rt_x64_guard_handler:
	lea .Lbegin(%rip), %rbx
	mov %edi, %ebp
	mov %rsi, %r12
	mov %rdx, %r13
	mov $RT_TG_WAIT_MS, %r14d
.Lwait:
	mov RT_TG_STATE(%rbx), %eax
	cmp $RT_TG_RESTORED, %eax
	je .Lrestored
	cmp $RT_TG_PASS, %eax
	je .Ldefault
	/* rtrace just died: its guardian is putting the code back */
	sub $16, %rsp
	movq $0, 0(%rsp)
	movq $1000000, 8(%rsp)
	mov %rsp, %rdi
	xor %esi, %esi
	mov $SYS_nanosleep, %eax
	syscall
	add $16, %rsp
	dec %r14d
	jnz .Lwait
	jmp .Ldefault

.Lrestored:
	mov SI_CODE(%r12), %eax
	mov UC_RIP(%r13), %rdx
	cmp $SIGILL, %ebp
	je .Lfault
	cmp $TRAP_TRACE, %eax
	jne .Ldefault                   /* the program's own */
.Lstep:
	andq $~EFL_TF, UC_EFL(%r13)
	ret
.Lfault:
	cmp $ILL_ILLOPN, %eax
	jne .Ldefault
	lea RT_TG_REWIND(%rbx), %rsi
	mov RT_TG_NREWIND(%rbx), %rcx
	call .Lfind
	jne .Lown_row
	cmpb $OP_UD, (%rdx)
	je .Ldefault                    /* not put back after all */
	ret
.Lown_row:
	cmpb $OP_UD, (%rdx)
	jne .Ldefault
	lea RT_TG_RESUME(%rbx), %rsi
	mov RT_TG_NRESUME(%rbx), %rcx
	call .Lfind
	jne .Ldefault
	inc %rdx
	mov %rdx, UC_RIP(%r13)
	ret

/* ZF set when %rdx is one of the %rcx addresses at %rsi. */
.Lfind:
	test %rcx, %rcx
	jz .Lfind_none
.Lfind_next:
	cmp (%rsi), %rdx
	je .Lfind_done
	add $8, %rsi
	dec %rcx
	jnz .Lfind_next
.Lfind_none:
	or $1, %ecx
.Lfind_done:
	ret

/* The signal's default action, as if the handler had never been set: it
 * goes, and the signal comes again once the handler returns (it is
 * blocked until then). */
.Ldefault:
	sub $32, %rsp
	movq $0, 0(%rsp)
	movq $0, 8(%rsp)
	movq $0, 16(%rsp)
	movq $0, 24(%rsp)
	mov %ebp, %edi
	mov %rsp, %rsi
	xor %edx, %edx
	mov $8, %r10d
	mov $SYS_rt_sigaction, %eax
	syscall
	add $32, %rsp
	mov $SYS_getpid, %eax
	syscall
	mov %rax, %r15
	mov $SYS_gettid, %eax
	syscall
	mov %r15, %rdi
	mov %rax, %rsi
	mov %ebp, %edx
	mov $SYS_tgkill, %eax
	syscall
	ret

	.globl rt_x64_guard_restorer
rt_x64_guard_restorer:
	mov $SYS_rt_sigreturn, %eax
	syscall
	.globl rt_x64_guard_end
rt_x64_guard_end:

	.section .note.GNU-stack, "", @progbits
