// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A thread's name in the log (rt_name_thread()): the kernel's, or for a
 * libtest thread the full name of its test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/libtest.h"
#include "rtrace/log.h"
#include "rtrace/tasks.h"
#include "rtrace/unwind.h"
#include "rtrace/util.h"

#include "tracer-int.h"

#define NAMING_DEPTH 64

/*
 * Two tests share the 15 bytes the kernel kept of the thread's name: the
 * test function is on the thread's stack (libtest called it, and it called
 * what was hit), so unwind and look.  The thread is stopped on a breakpoint
 * it has just executed; the unwinder must see the breakpoint's own address,
 * or it would read the unwind rules of the next instruction.  Once per
 * thread.
 */
static const char *test_on_stack(struct rt_thread *th, const char *comm,
				 const struct rt_regs *at_site)
{
	struct rt_process *p = th->proc;
	rt_raddr pcs[NAMING_DEPTH];
	const char *test = NULL;
	size_t n;

	if (!p->unwinder)
		p->unwinder = rt_unwinder_new(p->pid, p->mem);
	n = rt_unwind(p->unwinder, th->tid, at_site, pcs, NULL,
		      NAMING_DEPTH);
	for (size_t i = 0; i < n && !test; i++) {
		/* a return address belongs to the call before it */
		rt_raddr pc = pcs[i] - (i ? 1 : 0) - p->img->bias;
		const struct rt_func *fn = rt_symbols_lookup(p->img->syms, pc);

		if (fn)
			test = rt_libtest_fit(p->img->tests, comm, fn->name);
	}
	return test;
}

/* Records the thread's name when it is new or changed: at its first hit
 * (std names a thread before running its closure, so the name is there
 * before any traced call) and at its exit.  A libtest thread gets the full
 * name of its test, which the kernel's 15 bytes cut short: @hit, the
 * function whose event it is (the test's closure, which libtest's runner
 * inlined), or one on the stack at @at_site.  Either may be NULL. */
void rt_name_thread(struct rt_tracer *tr, struct rt_thread *th,
			const struct rt_regs *at_site, const char *hit)
{
	const struct rt_image *img = th->proc ? th->proc->img : NULL;
	const char *test = NULL;
	bool ambiguous = false;
	char path[96], *comm;

	if (!th->proc || !th->proc->record)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", th->proc->pid,
		 th->tid);
	if (read_file(path, &comm, NULL) != 0)
		return;
	comm[strcspn(comm, "\n")] = '\0';
	if (strcmp(comm, th->comm) != 0) {
		snprintf(th->comm, sizeof(th->comm), "%s", comm);
		if (img && img->tests && th->tid != th->proc->pid)
			test = rt_libtest_name(img->tests, comm, &ambiguous);
		if (ambiguous && hit)
			test = rt_libtest_fit(img->tests, comm, hit);
		if (ambiguous && !test && at_site)
			test = test_on_stack(th, comm, at_site);
		rt_evlog_write_thread(tr->cfg.log, th->tid, th->proc->pid,
				      test ? test : comm,
				      test || ambiguous ? RT_THREAD_TEST : 0);
	}
	free(comm);
}
