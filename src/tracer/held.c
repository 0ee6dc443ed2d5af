// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a script sees of the traced program while a probe action keeps one
 * of its threads stopped (tracer.h: RT_HIT_STOP): its threads, and the
 * held thread's call stack.  Part of the controller, beside tracer.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PR_FMT "tracer"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/log.h"
#include "rtrace/tracer.h"
#include "rtrace/unwind.h"
#include "rtrace/util.h"

#include "tracer-int.h"

/* The thread's name now: it may have named itself since its last event. */
static void read_comm(pid_t pid, pid_t tid, char *out, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0)
		n = 0;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
}

size_t rt_tracer_threads(struct rt_tracer *tr, struct rt_traced_thread *out,
			 size_t max)
{
	size_t n = rt_tasks_nthreads(tr->tasks), k = 0;

	for (size_t i = 0; i < n && k < max; i++) {
		struct rt_thread *th = rt_tasks_thread_at(tr->tasks, i);

		if (!th->proc || th->state == RT_TS_GONE)
			continue;
		out[k] = (struct rt_traced_thread){ .pid = th->proc->pid,
						  .tid = th->tid,
						  .held = th->tid == tr->actions.held };
		read_comm(th->proc->pid, th->tid, out[k].name,
			  sizeof(out[k].name));
		k++;
	}
	return k;
}

/* The process of thread @tid, its unwinder made when first wanted. */
static struct rt_process *thread_proc(struct rt_tracer *tr, pid_t tid)
{
	struct rt_thread *th = tid ? rt_tasks_thread(tr->tasks, tid) : NULL;

	if (!th || !th->proc)
		return NULL;
	if (!th->proc->unwinder)
		th->proc->unwinder = rt_unwinder_new(th->proc->pid,
						     th->proc->mem);
	return th->proc;
}

int rt_tracer_thread_view(struct rt_tracer *tr, pid_t tid, struct Dwfl **dwfl,
			  struct rt_mem **mem)
{
	struct rt_process *p = thread_proc(tr, tid);

	if (!p)
		return -ESRCH;
	if (!p->unwinder)
		return -ENODATA;
	*dwfl = rt_unwinder_dwfl(p->unwinder);
	*mem = p->mem;
	return 0;
}

size_t rt_tracer_backtrace(struct rt_tracer *tr, const struct rt_regs *at,
			   struct rt_log_frame *out, size_t max)
{
	struct rt_process *p = thread_proc(tr, tr->actions.held);
	rt_raddr pcs[256];
	size_t n;

	if (!p)
		return 0;
	n = rt_unwind(p->unwinder, tr->actions.held, at, pcs, NULL,
		      MIN(max, ARRAY_SIZE(pcs)));
	for (size_t i = 0; i < n; i++)
		rt_unwind_symbolize(p->unwinder, pcs[i], i > 0, &out[i]);
	return n;
}
