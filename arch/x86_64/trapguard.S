/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The SIGTRAP guard's handler (trapguard.h): code that rtrace copies into
 * an attached process, where it is SIGTRAP's action while the program
 * leaves SIGTRAP at its default.  It never runs while rtrace traces the
 * process (rtrace takes every SIGTRAP first) but for a SIGTRAP rtrace
 * passes on, after it set RT_TG_PASS.  It runs when rtrace died with a
 * thread at one of its breakpoints, or on the way to one: it waits until
 * the guardian has put the original code back (RT_TG_RESTORED), then
 *  - at a breakpoint site the guardian put back: the thread runs the
 *    original instruction (ip one byte back);
 *  - at a breakpoint of rtrace's recorder: the thread goes on past it
 *    (the recorder looks again, finds recording off and drops the event);
 *  - a single step rtrace began: the trace flag goes, the thread goes on;
 *  - at the int3 of padding one byte past such a site (a ret): the
 *    thread was stopped at the site when rtrace died, and the kernel
 *    resumed it past the breakpoint without the signal: it runs the
 *    site's instruction;
 *  - an int3 that is not rtrace's, or any other SIGTRAP: the default
 *    action, as without the handler (it is taken out, the signal raised
 *    again).
 * A trap with no int3 before ip and none the guardian knows is one rtrace
 * had already moved the thread past and was to drop: the thread goes on.
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
#define SIGTRAP 5
#define SI_CODE 8                  /* siginfo_t.si_code */
#define SI_KERNEL 0x80             /* an int3 */
#define TRAP_TRACE 2               /* a single step */
#define UC_RIP 168                 /* ucontext_t: uc_mcontext.gregs[REG_RIP] */
#define UC_EFL 176                 /* ... gregs[REG_EFL] */
#define EFL_TF 0x100
#define OP_INT3 0xcc
#define OP_INT_3 0x03cd            /* int $3, as a little-endian word */

	.section .rodata.rtrace_trapguard, "a"
	.balign 16
	.globl rt_x64_guard_begin
rt_x64_guard_begin:
.Lbegin:
	.globl rt_x64_guard_handler
rt_x64_guard_handler:
	lea .Lbegin(%rip), %rbx
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
	cmp $TRAP_TRACE, %eax
	je .Lstep
	cmp $SI_KERNEL, %eax
	jne .Ldefault
	mov UC_RIP(%r13), %rdx
	dec %rdx
	lea RT_TG_RESUME(%rbx), %rsi
	mov RT_TG_NRESUME(%rbx), %rcx
	call .Lfind
	je .Lreturn
	lea RT_TG_REWIND(%rbx), %rsi
	mov RT_TG_NREWIND(%rbx), %rcx
	call .Lfind
	jne .Lnot_ours
	cmpb $OP_INT3, (%rdx)
	je .Ldefault                    /* still one: the program's own */
	mov %rdx, UC_RIP(%r13)
	ret
.Lnot_ours:
	cmpb $OP_INT3, (%rdx)
	jne .Lnot_int3
	/* an int3 one byte past a site put back: the thread was stopped at
	 * the site when rtrace died, the kernel resumed it past the
	 * breakpoint without the signal, and the next byte is padding (after
	 * a ret): it runs the site's instruction */
	dec %rdx
	lea RT_TG_REWIND(%rbx), %rsi
	mov RT_TG_NREWIND(%rbx), %rcx
	call .Lfind
	jne .Ldefault
	cmpb $OP_INT3, (%rdx)
	je .Ldefault
	mov %rdx, UC_RIP(%r13)
	ret
.Lnot_int3:
	cmpw $OP_INT_3, -1(%rdx)
	je .Ldefault
.Lreturn:
	ret
.Lstep:
	andq $~EFL_TF, UC_EFL(%r13)
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

/* SIGTRAP's default action, as if the handler had never been set: it
 * goes, and the signal comes again once the handler returns (it is
 * blocked until then). */
.Ldefault:
	sub $32, %rsp
	movq $0, 0(%rsp)
	movq $0, 8(%rsp)
	movq $0, 16(%rsp)
	movq $0, 24(%rsp)
	mov $SIGTRAP, %edi
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
	mov $SIGTRAP, %edx
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
