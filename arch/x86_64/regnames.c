/* SPDX-License-Identifier: GPL-2.0-or-later */
/* x86-64 registers by name, for scripts (archreg.h). */
#include <stddef.h>
#include <string.h>

#include "rtrace/archreg.h"
#include "rtrace/compiler.h"

#define REG(n) { #n, offsetof(struct user_regs_struct, n) }

static const struct {
	const char *name;
	size_t off;
} regs[] = {
	REG(rax), REG(rbx), REG(rcx), REG(rdx), REG(rsi), REG(rdi),
	REG(rbp), REG(rsp), REG(r8), REG(r9), REG(r10), REG(r11),
	REG(r12), REG(r13), REG(r14), REG(r15), REG(rip), REG(eflags),
	REG(fs_base), REG(gs_base), REG(orig_rax), REG(cs), REG(ss),
	{ "pc", offsetof(struct user_regs_struct, rip) },
	{ "sp", offsetof(struct user_regs_struct, rsp) },
};

bool rt_arch_reg_by_name(const struct rt_regs *r, const char *name,
			 uint64_t *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(regs); i++) {
		if (strcmp(regs[i].name, name) == 0) {
			memcpy(out, (const char *)&r->r + regs[i].off,
			       sizeof(*out));
			return true;
		}
	}
	return false;
}

const char *rt_arch_reg_name(size_t i)
{
	return i < ARRAY_SIZE(regs) ? regs[i].name : NULL;
}
