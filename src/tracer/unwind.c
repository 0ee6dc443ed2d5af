// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Remote stack unwinding with libdw's unwinder.  libunwind-ptrace 1.6 was
 * tried first and loses frames on the PIEs rust-lld links, whose code
 * segment does not start at file offset 0: it finds no unwind table there
 * and falls back to a frame-pointer chain that Rust code does not keep.
 * libdw reads the same .eh_frame correctly.
 *
 * The thread state comes from rtrace, not from ptrace calls of libdw's
 * own: the registers the tracer already holds (so a thread stopped on a
 * breakpoint is unwound from the breakpoint's address, not the byte after
 * it) and memory through the tracer's /proc/PID/mem door.
 */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "unwind"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/debugfile.h"
#include "rtrace/demangle.h"
#include "rtrace/log.h"
#include "rtrace/unwind.h"
#include "rtrace/util.h"

#define DWARF_REGS_MAX 64
#define PAGE 4096
#define CACHE_PAGES 8

/* Pages of the tracee read during one unwind: the unwinder reads the
 * stack a word at a time, and one pread per word would cost more than the
 * rest of the work. */
struct page {
	rt_raddr addr;               /* 0: empty */
	uint8_t bytes[PAGE];
};

struct rt_unwinder {
	Dwfl *dwfl;
	struct rt_mem *mem;
	pid_t tid;                   /* the thread being unwound */
	const struct rt_regs *regs;  /* its registers */
	struct page cache[CACHE_PAGES];
};

/* libdwfl opens the files of the process's mappings and their debug
 * files without O_CLOEXEC: they would leak into the programs rtrace
 * starts later (a command file's next run). */
static int find_elf(Dwfl_Module *mod, void **user, const char *name,
		    Dwarf_Addr base, char **path, Elf **elf)
{
	return fd_set_cloexec(
		dwfl_linux_proc_find_elf(mod, user, name, base, path, elf));
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = rt_find_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct rt_unwinder *u = arg;

	/* only the thread asked for exists, as far as libdw needs to know */
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct rt_unwinder *u = arg;

	*thread_argp = u;
	return tid == u->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	struct rt_unwinder *u = arg;
	rt_raddr base = addr & ~(rt_raddr)(PAGE - 1);
	struct page *pg = &u->cache[(base / PAGE) % CACHE_PAGES];

	if (addr - base > PAGE - sizeof(*result))  /* straddles two pages */
		return rt_mem_read(u->mem, addr, result, sizeof(*result)) == 0;
	if (pg->addr != base) {
		if (rt_mem_read(u->mem, base, pg->bytes, PAGE)) {
			pg->addr = 0;
			return rt_mem_read(u->mem, addr, result,
					   sizeof(*result)) == 0;
		}
		pg->addr = base;
	}
	memcpy(result, pg->bytes + (addr - base), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct rt_unwinder *u = arg;
	Dwarf_Word regs[DWARF_REGS_MAX];
	size_t n = rt_arch_dwarf_regs(u->regs, regs, DWARF_REGS_MAX);

	return dwfl_thread_state_registers(thread, 0, n, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct rt_unwinder *rt_unwinder_new(pid_t pid, struct rt_mem *mem)
{
	struct rt_unwinder *u = xcalloc(1, sizeof(*u));

	u->mem = mem;
	u->dwfl = dwfl_begin(&proc_callbacks);
	if (!u->dwfl || dwfl_linux_proc_report(u->dwfl, pid) != 0 ||
	    dwfl_report_end(u->dwfl, NULL, NULL) != 0 ||
	    !dwfl_attach_state(u->dwfl, NULL, pid, &thread_callbacks, u)) {
		pr_dbg("process %d: no unwinder: %s", pid, dwfl_errmsg(-1));
		rt_unwinder_free(u);
		return NULL;
	}
	return u;
}

struct Dwfl *rt_unwinder_dwfl(struct rt_unwinder *u)
{
	return u->dwfl;
}

void rt_unwinder_free(struct rt_unwinder *u)
{
	if (!u)
		return;
	if (u->dwfl)
		dwfl_end(u->dwfl);
	free(u);
}

struct walk {
	rt_raddr *pcs, *sps;
	size_t n, max;
};

static int on_frame(Dwfl_Frame *frame, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(frame, &pc, NULL) || !pc)
		return DWARF_CB_ABORT;
	if (w->sps) {
		Dwarf_Word sp = 0;

		dwfl_frame_reg(frame, rt_arch_dwarf_sp(), &sp);
		w->sps[w->n] = sp;
	}
	w->pcs[w->n++] = pc;
	return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

size_t rt_unwind(struct rt_unwinder *u, pid_t tid, const struct rt_regs *regs,
		 rt_raddr *pcs, rt_raddr *sps, size_t max)
{
	struct walk w = { pcs, sps, 0, max };

	if (!u || !max)
		return 0;
	u->tid = tid;
	u->regs = regs;
	for (int i = 0; i < CACHE_PAGES; i++)
		u->cache[i].addr = 0;  /* the program ran since the last one */
	/* stops at the outermost frame, or where unwinding fails: what was
	 * found until then is the answer either way */
	dwfl_getthread_frames(u->dwfl, tid, on_frame, &w);
	return w.n;
}

void rt_unwind_symbolize(struct rt_unwinder *u, rt_raddr pc, bool call,
			 struct rt_log_frame *out)
{
	/* a return address belongs to the call before it */
	Dwarf_Addr at = pc - (call ? 1 : 0);
	Dwfl_Module *mod = u ? dwfl_addrmodule(u->dwfl, at) : NULL;
	const char *sym = mod ? dwfl_module_addrname(mod, at) : NULL;
	Dwfl_Line *line = mod ? dwfl_module_getsrc(mod, at) : NULL;
	int lineno = 0;

	out->pc = pc;
	out->name = sym ? rt_demangle(sym) : xstrdup("??");
	out->file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL,
					 NULL) : NULL;
	out->file = out->file ? xstrdup(out->file) : NULL;
	out->line = lineno > 0 ? lineno : 0;
}
