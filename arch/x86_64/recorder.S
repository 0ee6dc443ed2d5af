/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder of the inline engine: code that rtrace copies into a traced
 * process (it never runs in rtrace itself), where the trampolines of the
 * patched sites call it.  It appends one event to the calling thread's
 * ring in the shared area and returns, with every register as it was but
 * the flags.  Flags are dead at the sites that call it: a function's entry,
 * its return, a jump into another function.
 *
 * A trampoline calls it as
 *
 *	push %rdi
 *	movabs $word, %rdi      word = function id | kind << 32 | flags << 40
 *	call rt_x64_rec_<kind>
 *	pop %rdi
 *
 * and for a tail jump also saves %rsi and loads the jump's target into it,
 * which the event carries.  The event is the log's own 40-byte record:
 * time, stack pointer at the site, value, tid | pid, word.
 *
 * Where the process can be stopped and what rtrace does there:
 *  - rt_x64_rec_miss: no slot holds this thread.  rtrace gives it one and
 *    resumes, which looks again; or, when the table is full, records the
 *    event itself from the registers and moves ip to rt_x64_rec_done.
 *  - rt_x64_rec_full: the ring is full.  rtrace empties it and resumes,
 *    which takes a fresh time stamp (the stop came before the event).
 *  - [rt_x64_rec_window, rt_x64_rec_done): the event is being written.  A
 *    signal there would run a handler whose own events land in the same
 *    ring; so at the signal's stop rtrace finishes the write itself (all
 *    it needs is in registers: %rdi slot, %r8 time, %rcx stack pointer,
 *    %rsi value, %r10 ids, %r9 word) and moves ip to rt_x64_rec_done.
 * Everywhere else nothing shared is half written.
 */
#include "rtrace/inline-layout.h"

#define SYS_clock_gettime 228
#define CLOCK_MONOTONIC 1

/* 8 registers saved: the caller's return address is at 64(%rsp) and the
 * %rdi its trampoline pushed at 72(%rsp). */
.macro SAVE
	push %rsi
	push %rax
	push %rcx
	push %rdx
	push %r8
	push %r9
	push %r10
	push %r11
.endm

.macro RESTORE
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdx
	pop %rcx
	pop %rax
	pop %rsi
.endm

	.section .rodata.rtrace_recorder, "a"
	.balign 16
	.globl rt_x64_rec_begin
rt_x64_rec_begin:

/* A function's entry: the value is 0. */
	.globl rt_x64_rec_entry
rt_x64_rec_entry:
	SAVE
	lea 80(%rsp), %rcx
	xor %esi, %esi
	jmp .Lcommon

/* A return: the value is the return register. */
	.globl rt_x64_rec_exit
rt_x64_rec_exit:
	SAVE
	lea 80(%rsp), %rcx
	mov %rax, %rsi
	jmp .Lcommon

/* A jump into a function that returns its first argument (memset): the
 * value is that argument, the %rdi the trampoline saved. */
	.globl rt_x64_rec_arg0
rt_x64_rec_arg0:
	SAVE
	lea 80(%rsp), %rcx
	mov 72(%rsp), %rsi
	jmp .Lcommon

/* A tail jump: the trampoline put the target in %rsi, having saved it. */
	.globl rt_x64_rec_tail
rt_x64_rec_tail:
	SAVE
	lea 88(%rsp), %rcx

.Lcommon:
	mov %rdi, %r9
.Llookup:
	mov %fs:0, %rax
	movabs $0x9e3779b97f4a7c15, %rdx
	imul %rax, %rdx
	shr $32, %rdx
	and .Ldata + RT_RD_MASK(%rip), %rdx
	mov .Ldata + RT_RD_TABLE(%rip), %r10
	mov $RT_IA_PROBES, %r11d
.Lprobe:
	mov %rdx, %rdi
	shl $6, %rdi
	add %r10, %rdi
	cmp RT_IA_SLOT_TP(%rdi), %rax
	je .Lfound
	cmpq $0, RT_IA_SLOT_TP(%rdi)
	je .Lmiss
	inc %rdx
	and .Ldata + RT_RD_MASK(%rip), %rdx
	dec %r11d
	jnz .Lprobe
	.globl rt_x64_rec_miss
rt_x64_rec_miss:
.Lmiss:
	int3
	jmp .Llookup

.Lfound:
	mov RT_IA_SLOT_IDS(%rdi), %r10
.Lstamp:
	cmpq $RT_CLOCK_TSC, .Ldata + RT_RD_CLOCK(%rip)
	jne .Lsyscall_clock
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
	mov %rax, %r8
	.globl rt_x64_rec_window
rt_x64_rec_window:
.Lwindow:
	mov RT_IA_SLOT_HEAD(%rdi), %rax
	mov %rax, %rdx
	sub RT_IA_SLOT_TAIL(%rdi), %rdx
	cmp .Ldata + RT_RD_CAP(%rip), %rdx
	jae .Lfull
	mov %rax, %rdx
	and .Ldata + RT_RD_CAP_MASK(%rip), %rdx
	lea (%rdx, %rdx, 4), %rdx
	shl $3, %rdx
	add RT_IA_SLOT_RING(%rdi), %rdx
	mov %r8, 0(%rdx)
	mov %rcx, 8(%rdx)
	mov %rsi, 16(%rdx)
	mov %r10, 24(%rdx)
	mov %r9, 32(%rdx)
	inc %rax
	mov %rax, RT_IA_SLOT_HEAD(%rdi)
	.globl rt_x64_rec_done
rt_x64_rec_done:
	RESTORE
	ret

	.globl rt_x64_rec_full
rt_x64_rec_full:
.Lfull:
	int3
	jmp .Lstamp

/* No usable time stamp counter: the kernel's clock, through the vDSO-less
 * system call (the vDSO's code would need the vector registers saved). */
.Lsyscall_clock:
	push %rcx
	push %rsi
	push %rdi
	sub $16, %rsp
	mov $SYS_clock_gettime, %eax
	mov $CLOCK_MONOTONIC, %edi
	mov %rsp, %rsi
	/* also where rtrace makes a system call in a process whose memory it
	 * may not write (rt_recorder.syscall) */
	.globl rt_x64_rec_syscall
rt_x64_rec_syscall:
	syscall
	mov 0(%rsp), %rax
	imul $1000000000, %rax, %rax
	add 8(%rsp), %rax
	mov %rax, %r8
	add $16, %rsp
	pop %rdi
	pop %rsi
	pop %rcx
	jmp .Lwindow

	.balign 8
	.globl rt_x64_rec_data
rt_x64_rec_data:
.Ldata:
	.skip RT_RD_SIZE
	.globl rt_x64_rec_end
rt_x64_rec_end:

/* void rt_x64_rec_loop(const void *entry, uint64_t word, uint64_t n)
 *
 * Runs here, in rtrace, on a copy of the recorder: calls @entry @n times
 * the way a trampoline does, so that rtrace can time what one event costs
 * a traced program. */
	.text
	.globl rt_x64_rec_loop
	.type rt_x64_rec_loop, @function
rt_x64_rec_loop:
	push %rbx
	push %r12
	push %r13
	mov %rdi, %rbx
	mov %rsi, %r12
	mov %rdx, %r13
	test %r13, %r13
	jz 2f
1:	push %rdi
	mov %r12, %rdi
	call *%rbx
	pop %rdi
	dec %r13
	jnz 1b
2:	pop %r13
	pop %r12
	pop %rbx
	ret
	.size rt_x64_rec_loop, . - rt_x64_rec_loop

	.section .note.GNU-stack, "", @progbits
