/* SPDX-License-Identifier: GPL-2.0-or-later */
/* x86-64 register file: the NT_PRSTATUS register set of ptrace, and the
 * x87/SSE state, its NT_PRFPREG set. */
#ifndef RTRACE_ARCH_REGS_H
#define RTRACE_ARCH_REGS_H

#include <elf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/user.h>

struct rt_regs {
	struct user_regs_struct r;
};

struct rt_fpregs {
	struct user_fpregs_struct f;   /* xmm0-15 in xmm_space */
};

/* What the decoder keeps of an instruction's encoding for the displacer
 * and the emulator (struct rt_insn.arch). */
struct rt_arch_insn {
	uint8_t cond;           /* condition code of a JCC */
	uint8_t reg;            /* register of a JMP_REG */
	uint8_t disp_off;       /* offset of a RIP-relative disp32, or 0 */
	uint8_t modrm_off;      /* offset of the ModRM byte, or 0 */
	bool rsp_operand;       /* memory operand based on the stack pointer */
};

/* What resuming a branch needs to evaluate it (struct rt_resume.arch). */
struct rt_arch_branch {
	uint8_t cond;           /* condition code of a JCC */
	uint8_t reg;            /* register of a JMP_REG */
};

#define RT_ARCH_NAME "x86_64"
#define RT_ARCH_INSN_MAX 15          /* the longest instruction there is */
#define RT_ARCH_ELF_MACHINE EM_X86_64  /* of the programs it traces */

#endif
