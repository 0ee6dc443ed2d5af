/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The recorder of the inline engine: code that rtrace copies into a traced
 * process (it never runs in rtrace itself), where the trampolines of the
 * patched sites call it.  It appends one event to the calling thread's
 * ring in the shared area and returns, with every register as it was but
 * the flags.  Flags are dead at a function's entry, its return, a jump
 * into another function; at a site inside a function (an inlined call's
 * entry or end) the trampoline keeps them itself, and steps over the red
 * zone first (arch/x86_64/inline.c, below_enter).
 *
 * A trampoline calls it as
 *
 *	push %rdi
 *	movabs $word, %rdi      word = function id | kind << 32 | flags << 40
 *	call rt_x64_rec_<kind>
 *	pop %rdi
 *
 * and for a tail jump also saves %rsi and loads the jump's target into it,
 * which the event carries.  The event is 32 bytes, two to a cache line:
 * time, stack pointer at the site, value, word (the thread is the
 * slot's, which rtrace knows).
 *
 * Where the process can be stopped and what rtrace does there:
 *  - rt_x64_rec_miss: no slot holds this thread, and the area does not
 *    let threads claim one themselves (rtrace launched the program), or
 *    its thread pointer is shared.  rtrace gives it one and resumes,
 *    which looks again; or, when the table is full or the pointer shared,
 *    records the event itself from the registers and moves ip to
 *    rt_x64_rec_done.
 *  - rt_x64_rec_full: the ring is full, and the area's mode is
 *    RT_WAIT_TRAP.  rtrace empties it and resumes, which takes a fresh
 *    time stamp (the stop came before the event).
 * In mode RT_WAIT_FUTEX a full ring stops nothing: the thread bumps the
 * area's bell word, wakes it (rtrace waits on it in a thread of its own)
 * and sleeps on its ring's tail until rtrace has emptied the ring.  A
 * thread whose ring is half full rings the bell once beforehand, so that
 * most rings are emptied before anyone waits.  A thread that waited
 * 3 s without an answer turns recording off for the whole process
 * (RT_OFF_SILENT), and so does rtrace's guardian when rtrace dies
 * (RT_OFF_GONE): from then on events are only counted as lost, so that
 * the program runs on without rtrace, and no breakpoint of the recorder
 * is ever hit without a tracer behind it.
 *  - [rt_x64_rec_window, rt_x64_rec_done): the event is being written.  A
 *    signal there would run a handler whose own events land in the same
 *    ring; so at the signal's stop rtrace finishes the write itself (all
 *    it needs is in registers: %r8 slot, %rax time, %rcx stack pointer,
 *    %rsi value, %rdi word) and moves ip to rt_x64_rec_done.
 * Everywhere else nothing shared is half written.
 */
#include "rtrace/inline-layout.h"

#define SYS_clock_gettime 228
#define SYS_futex 202
#define SYS_gettid 186
#define CLOCK_MONOTONIC 1
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define ETIMEDOUT 110
#define WAIT_NS 100000000          /* one wait for rtrace */
#define WAIT_TRIES 30              /* waits before recording turns off */

/* 5 registers saved, what the fast path uses besides the trampoline's
 * %rdi: the caller's return address is at 40(%rsp) and the %rdi its
 * trampoline pushed at 48(%rsp).  The paths off it save what more they
 * use (%r10, %r11: the system calls' and the probe loop's). */
.macro SAVE
	push %rsi
	push %rax
	push %rcx
	push %rdx
	push %r8
.endm

.macro RESTORE
	pop %r8
	pop %rdx
	pop %rcx
	pop %rax
	pop %rsi
.endm

/* The table offset of a hash's first slot: (hash >> 32) & (RT_IA_SLOTS -
 * 1), times RT_IA_SLOT_SIZE, in one shift and one mask (as
 * src/tracer/jumparea.c hashes). */
#define SLOT_SHIFT (32 - 6)
#define SLOT_BITS ((RT_IA_SLOTS - 1) * RT_IA_SLOT_SIZE)

/* %r8: the first slot of the window of thread pointer \tp; clobbers
 * %rdx. */
.macro FIRST_SLOT tp
	movabs $0x9e3779b97f4a7c15, %rdx
	imul \tp, %rdx
	shr $SLOT_SHIFT, %rdx
	and $SLOT_BITS, %edx
	mov .Ldata + RT_RD_TABLE(%rip), %r8
	add %rdx, %r8
.endm

/* %r8: the slot after it in the table, the last one's the first. */
.macro NEXT_SLOT
	sub .Ldata + RT_RD_TABLE(%rip), %r8
	add $RT_IA_SLOT_SIZE, %r8
	and $SLOT_BITS, %r8d
	add .Ldata + RT_RD_TABLE(%rip), %r8
.endm

	.section .rodata.rtrace_recorder, "a"
	.balign 16
	.globl rt_x64_rec_begin
rt_x64_rec_begin:

/* A return: the value is the return register. */
	.globl rt_x64_rec_exit
rt_x64_rec_exit:
	SAVE
	lea 56(%rsp), %rcx
	mov %rax, %rsi
	jmp .Llookup

/* A jump into a function that returns its first argument (memset): the
 * value is that argument, the %rdi the trampoline saved. */
	.globl rt_x64_rec_arg0
rt_x64_rec_arg0:
	SAVE
	lea 56(%rsp), %rcx
	mov 48(%rsp), %rsi
	jmp .Llookup

/* A tail jump: the trampoline put the target in %rsi, having saved it. */
	.globl rt_x64_rec_tail
rt_x64_rec_tail:
	SAVE
	lea 64(%rsp), %rcx
	jmp .Llookup

/* A function's entry: the value is 0. */
	.globl rt_x64_rec_entry
rt_x64_rec_entry:
	SAVE
	lea 56(%rsp), %rcx
	xor %esi, %esi

/* From here on: %rdi word, %rcx stack pointer, %rsi value; %rax the
 * thread pointer, then the time; %r8 the slot. */
.Llookup:
	mov %fs:0, %rax
	FIRST_SLOT %rax
	cmp RT_IA_SLOT_TP(%r8), %rax
	jne .Lprobe
.Lstamp:
	cmpq $RT_CLOCK_TSC, .Ldata + RT_RD_CLOCK(%rip)
	jne .Lsyscall_clock
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
	.globl rt_x64_rec_window
rt_x64_rec_window:
.Lwindow:
	mov RT_IA_SLOT_HEAD(%r8), %rdx
	sub RT_IA_SLOT_TAIL(%r8), %rdx
	cmp .Ldata + RT_RD_CAP(%rip), %rdx
	jae .Lfull
	cmp .Ldata + RT_RD_HALF(%rip), %rdx
	je .Lhalf
.Lwrite:
	mov RT_IA_SLOT_HEAD(%r8), %rdx
	and .Ldata + RT_RD_CAP_MASK(%rip), %rdx
	shl $5, %rdx
	add RT_IA_SLOT_RING(%r8), %rdx
	mov %rax, 0(%rdx)
	mov %rcx, 8(%rdx)
	mov %rsi, 16(%rdx)
	mov %rdi, 24(%rdx)
	/* one store: only this thread writes the head, and a stop in the
	 * window finishes the event whole before this */
	incq RT_IA_SLOT_HEAD(%r8)
	.globl rt_x64_rec_done
rt_x64_rec_done:
	RESTORE
	ret

/* The first slot tried is not this thread's: it and the next ones, up to
 * RT_IA_PROBES in all, until this thread's, its thread pointer's marker
 * (tp | 1: the pointer is shared) or a free one. */
.Lprobe:
	push %r11
	mov %rax, %rdx
	or $1, %rdx
	mov $RT_IA_PROBES, %r11d
.Lprobe_this:
	cmp RT_IA_SLOT_TP(%r8), %rax
	je .Lprobe_found
	cmp RT_IA_SLOT_TP(%r8), %rdx
	je .Lprobe_shared
	cmpq $0, RT_IA_SLOT_TP(%r8)
	je .Lprobe_miss
	dec %r11d
	jz .Lprobe_miss
	NEXT_SLOT
	jmp .Lprobe_this
.Lprobe_found:
	pop %r11
	jmp .Lstamp
.Lprobe_shared:
	pop %r11
	jmp .Lshared
.Lprobe_miss:
	pop %r11
.Lmiss:
	mov .Ldata + RT_RD_CTL(%rip), %rdx
	cmpl $0, RT_IA_CTL_OFF(%rdx)
	jne .Ldrop
	cmpl $0, RT_IA_CTL_CLAIM(%rdx)
	jne .Lclaim
	.globl rt_x64_rec_miss
rt_x64_rec_miss:
	.byte 0x06               /* rtrace's breakpoint (x86_64.h) */
	jmp .Llookup

/* Two threads have this thread pointer: rtrace records their events at
 * stops, claims or not. */
.Lshared:
	mov .Ldata + RT_RD_CTL(%rip), %rdx
	cmpl $0, RT_IA_CTL_OFF(%rdx)
	jne .Ldrop
	jmp rt_x64_rec_miss

/* No slot holds this thread and it claims one itself (rtrace attached to
 * a running program: a thread stopped at the miss would be harmed if
 * rtrace were killed there).  The first free or left slot of its window,
 * taken with a compare-and-exchange, since another thread may be taking
 * it too; then its thread id, by which rtrace knows whose the slot is.
 * A thread pointer of 0, or odd, could not be told from a free slot or a
 * marker: its events are counted as not recorded, as when every slot of
 * the window is taken.  %rdx: the control words. */
.Lclaim:
	test %rax, %rax
	jz .Lnoslot
	test $1, %al
	jnz .Lnoslot
	push %r11
	push %r9
	mov %rax, %r9
	FIRST_SLOT %rax
	mov $RT_IA_PROBES, %r11d
.Lclaim_this:
	mov RT_IA_SLOT_TP(%r8), %rax
	cmp $1, %rax
	ja .Lclaim_next
	lock cmpxchg %r9, RT_IA_SLOT_TP(%r8)
	je .Lclaimed
.Lclaim_next:
	dec %r11d
	jz .Lclaim_none
	NEXT_SLOT
	jmp .Lclaim_this
.Lclaimed:
	push %rcx
	mov $SYS_gettid, %eax
	syscall
	pop %rcx
	mov %eax, %eax
	mov %rax, RT_IA_SLOT_IDS(%r8)
	pop %r9
	pop %r11
	jmp .Lstamp
.Lclaim_none:
	pop %r9
	pop %r11
.Lnoslot:
	mov .Ldata + RT_RD_CTL(%rip), %rdx
	lock incq RT_IA_CTL_NOSLOT(%rdx)
	jmp .Lcount_fn

/* Recording is off: the event is only counted, for the process and,
 * when its id has a counter, for its function (%edi: the id). */
.Ldrop:
	lock incq RT_IA_CTL_LOST(%rdx)
.Lcount_fn:
	mov %edi, %edx
	sub .Ldata + RT_RD_LOST_BASE(%rip), %rdx
	cmp $RT_IA_LOSTFN_IDS, %rdx
	jae rt_x64_rec_done
	shl $3, %rdx
	add .Ldata + RT_RD_LOSTFN(%rip), %rdx
	lock incq (%rdx)
	jmp rt_x64_rec_done

.Lfull:
	mov .Ldata + RT_RD_CTL(%rip), %rdx
	cmpl $0, RT_IA_CTL_OFF(%rdx)
	jne .Ldrop
	cmpl $RT_WAIT_FUTEX, RT_IA_CTL_MODE(%rdx)
	je .Lwait
	.globl rt_x64_rec_full
rt_x64_rec_full:
	.byte 0x06
	jmp .Lstamp

/* Half full: the bell, once, then the write from the top (a handler that
 * ran meanwhile may have written events: the head is read again). */
.Lhalf:
	cmpl $0, RT_IA_SLOT_NUDGE(%r8)
	jne .Lwrite
	movl $1, RT_IA_SLOT_NUDGE(%r8)
	push %rax
	push %rdi
	push %rcx
	push %rsi
	push %r11
	call .Lring
	pop %r11
	pop %rsi
	pop %rcx
	pop %rdi
	pop %rax
	jmp .Lwindow

/* Bumps the bell and wakes rtrace's waiter: clobbers %rax, %rcx, %rdx,
 * %rsi, %rdi, %r11. */
.Lring:
	mov .Ldata + RT_RD_CTL(%rip), %rdi
	lock incl RT_IA_CTL_BELL(%rdi)
	add $RT_IA_CTL_BELL, %rdi
	mov $FUTEX_WAKE, %esi
	mov $1, %edx
	mov $SYS_futex, %eax
	syscall
	ret

/* Full: sleeps until rtrace has taken events from the ring, or recording
 * is turned off.  %r8 keeps the slot across the system calls (they leave
 * it); below the saved registers, the wait's timeout and the tries left. */
.Lwait:
	push %rdi
	push %rcx
	push %rsi
	push %r10
	push %r11
	push $WAIT_TRIES
	push $WAIT_NS
	push $0
.Lwait_again:
	mov .Ldata + RT_RD_CTL(%rip), %rdx
	cmpl $0, RT_IA_CTL_OFF(%rdx)
	jne .Lwait_end
	mov RT_IA_SLOT_TAIL(%r8), %r10
	mov RT_IA_SLOT_HEAD(%r8), %rax
	sub %r10, %rax
	cmp .Ldata + RT_RD_CAP(%rip), %rax
	jb .Lwait_end
	movl $1, RT_IA_SLOT_WAIT(%r8)
	push %r10
	call .Lring
	pop %rdx                        /* the tail seen: the futex value */
	lea RT_IA_SLOT_TAIL(%r8), %rdi
	mov $FUTEX_WAIT, %esi
	mov %rsp, %r10                  /* the timeout */
	mov $SYS_futex, %eax
	syscall
	cmp $-ETIMEDOUT, %rax
	jne .Lwait_again
	decq 16(%rsp)
	jnz .Lwait_again
	/* rtrace has not emptied the ring for seconds: it is stopped or
	 * gone, and the program must not wait for it forever */
	mov .Ldata + RT_RD_CTL(%rip), %rdx
	movl $RT_OFF_SILENT, RT_IA_CTL_OFF(%rdx)
.Lwait_end:
	add $24, %rsp
	pop %r11
	pop %r10
	pop %rsi
	pop %rcx
	pop %rdi
	mov .Ldata + RT_RD_CTL(%rip), %rdx
	cmpl $0, RT_IA_CTL_OFF(%rdx)
	jne .Ldrop
	jmp .Lstamp

/* No usable time stamp counter: the kernel's clock, through the vDSO-less
 * system call (the vDSO's code would need the vector registers saved). */
.Lsyscall_clock:
	push %rcx
	push %rsi
	push %rdi
	push %r11
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
	add $16, %rsp
	pop %r11
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
