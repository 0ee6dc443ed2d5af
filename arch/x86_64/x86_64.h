/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Private constants of the x86-64 port: opcodes the slot builder emits,
 * slot piece sizes, and the numbering behind the arch.reg / arch.cond
 * fields of struct rt_insn and struct rt_resume.  Nothing outside
 * arch/x86_64/ (and its unit tests) includes this file.
 */
#ifndef RTRACE_ARCH_X86_64_H
#define RTRACE_ARCH_X86_64_H

#include <stdint.h>

#include "arch-regs.h"

/* ---- instruction encoding --------------------------------------------- */

#define X64_INSN_MAX RT_ARCH_INSN_MAX

#define X64_DWARF_XMM0 17       /* xmm0 in the psABI's DWARF numbering */

#define X64_OP_INT3 0xcc
/* push %es: no instruction in 64-bit mode, a fault (#UD, SIGILL) that
 * leaves rip on it; rtrace's breakpoint in the program's code */
#define X64_OP_UD 0x06
#define X64_OP_RET 0xc3
#define X64_OP_JMP_REL32 0xe9
#define X64_OP_JMP_REL8 0xeb
#define X64_OP_JCC_REL8 0x70    /* 70+cc rel8 */
#define X64_OP_GRP5 0xff        /* FF /2 call r/m64, FF /4 jmp r/m64 */
#define X64_GRP5_CALL 2
#define X64_GRP5_JMP 4

/* ModRM fields. */
#define X64_MODRM_MOD(m) ((uint8_t)(m) >> 6)
#define X64_MODRM_REG(m) (((uint8_t)(m) >> 3) & 7)
#define X64_MODRM_RM(m) ((uint8_t)(m) & 7)
#define X64_MODRM(mod, reg, rm) ((uint8_t)((mod) << 6 | (reg) << 3 | (rm)))
#define X64_MOD_DISP0 0
#define X64_MOD_DISP8 1
#define X64_MOD_DISP32 2
#define X64_MOD_REG 3
#define X64_RM_SIB 4            /* rm = 100: a SIB byte follows */
#define X64_SIB_BASE(s) ((uint8_t)(s) & 7)
#define X64_SIB_NO_BASE 5       /* base = 101 with mod 00: disp32, no base */

/* REX prefix: 0100WRXB. */
#define X64_IS_REX(b) (((uint8_t)(b) & 0xf0) == 0x40)
#define X64_REX_B 0x01
#define X64_REX_W 0x08

#define X64_PFX_ADDR32 0x67

/* ---- slot pieces -------------------------------------------------------- */

#define X64_JMP_REL32_LEN 5     /* e9 rel32 */
#define X64_JCC_REL32_LEN 6     /* 0f 80+cc rel32 */
#define X64_JMP_REL8_LEN 2      /* eb rel8, 70+cc rel8 */
#define X64_JMP_ABS_LEN 14      /* ff 25 00000000 (jmp *0(%rip)) + abs64 */

/*
 * The push of a displaced call: lea -8(%rsp),%rsp; movl $lo,(%rsp);
 * movl $hi,4(%rsp).  lea rather than sub or push-imm so that neither the
 * flags nor any register but rsp change.
 */
#define X64_PUSH_SEQ_LEN 20

/* ---- register numbering (arch.reg) -------------------------------------- */

/* The hardware encoding of the general-purpose registers. */
enum x64_reg {
	X64_RAX,
	X64_RCX,
	X64_RDX,
	X64_RBX,
	X64_RSP,
	X64_RBP,
	X64_RSI,
	X64_RDI,
	X64_R8,
	X64_R9,
	X64_R10,
	X64_R11,
	X64_R12,
	X64_R13,
	X64_R14,
	X64_R15,
	X64_NREGS,
	X64_REG_NONE = 0xff,    /* not a 64-bit general-purpose register */
};

/* ---- condition codes (arch.cond) ---------------------------------------- */

/*
 * The low nibble of the jcc opcode (7x rel8, 0f 8x rel32).  Odd codes are
 * the negation of the even code before them.
 */
enum x64_cond {
	X64_CC_O,
	X64_CC_NO,
	X64_CC_B,
	X64_CC_AE,
	X64_CC_E,
	X64_CC_NE,
	X64_CC_BE,
	X64_CC_A,
	X64_CC_S,
	X64_CC_NS,
	X64_CC_P,
	X64_CC_NP,
	X64_CC_L,
	X64_CC_GE,
	X64_CC_LE,
	X64_CC_G,
	X64_NCONDS,
};

/* EFLAGS bits the conditions test. */
#define X64_FL_CF (1u << 0)
#define X64_FL_PF (1u << 2)
#define X64_FL_ZF (1u << 6)
#define X64_FL_SF (1u << 7)
#define X64_FL_OF (1u << 11)

#endif
