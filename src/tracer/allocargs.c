// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the events of the allocator's probes (--mem) carry: the size, or
 * the pointer, read from the argument registers at the entry and from the
 * return register, or memory, at the exit.
 */
#include "rtrace/arch.h"
#include "rtrace/probes.h"
#include "rtrace/tasks.h"
#include "rtrace/tracee.h"

#include "tracer-int.h"

bool rt_allocargs_entry(struct rt_thread *th, const struct rt_probe *pr,
			uint64_t *value)
{
	const struct rt_regs *r = &th->regs;

	switch (pr->role) {
	case RT_ROLE_ALLOC:
	case RT_ROLE_FREE:
		*value = rt_arch_arg(r, 0);
		return true;
	case RT_ROLE_ALLOC_ALIGNED:
	case RT_ROLE_REALLOC:
		*value = rt_arch_arg(r, 1);
		return true;
	case RT_ROLE_CALLOC:
		*value = rt_arch_arg(r, 0) * rt_arch_arg(r, 1);
		return true;
	case RT_ROLE_REALLOC_RUST:
		*value = rt_arch_arg(r, 3);
		return true;
	case RT_ROLE_MEMALIGN:
		th->memalign_out = rt_arch_arg(r, 0);
		*value = rt_arch_arg(r, 2);
		return true;
	case RT_ROLE_BLOCKING:  /* counted, nothing carried */
		*value = 0;
		return true;
	default:
		return false;
	}
}

bool rt_allocargs_old_ptr(const struct rt_thread *th,
			  const struct rt_probe *pr, uint64_t *ptr)
{
	if (pr->role != RT_ROLE_REALLOC && pr->role != RT_ROLE_REALLOC_RUST)
		return false;
	*ptr = rt_arch_arg(&th->regs, 0);
	return true;
}

uint64_t rt_allocargs_exit(const struct rt_thread *th,
			   const struct rt_probe *pr)
{
	uint64_t v = rt_arch_retval(&th->regs), ptr = 0;

	if (pr->role != RT_ROLE_MEMALIGN)
		return v;
	if (v == 0 && th->memalign_out)
		rt_mem_read(th->proc->mem, th->memalign_out, &ptr, sizeof(ptr));
	return ptr;
}
