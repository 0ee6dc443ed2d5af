/* SPDX-License-Identifier: GPL-2.0-or-later */
/* x86-64 register file: the NT_PRSTATUS register set of ptrace. */
#ifndef RTRACE_ARCH_REGS_H
#define RTRACE_ARCH_REGS_H

#include <elf.h>
#include <sys/user.h>

struct rt_regs {
	struct user_regs_struct r;
};

#define RT_ARCH_NAME "x86_64"
#define RT_ARCH_INSN_MAX 15          /* the longest instruction there is */
#define RT_ARCH_ELF_MACHINE EM_X86_64  /* of the programs it traces */

#endif
