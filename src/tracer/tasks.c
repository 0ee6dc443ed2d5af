// SPDX-License-Identifier: GPL-2.0-or-later
/* Process and thread bookkeeping for the tracer. */
#include <stdlib.h>
#include <string.h>

#define PR_FMT "tasks"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/codeorig.h"
#include "rtrace/log.h"
#include "rtrace/jumparea.h"
#include "rtrace/tasks.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct rt_tasks {
	VEC(struct rt_thread *) threads;  /* dense; order not kept */
	int32_t *slots;                   /* tid hash: index + 1, 0 empty,
					   * -1 deleted */
	size_t smask;
	struct rt_process *procs;
	size_t nprocs;
};

static const char *const state_names[] = {
	"new", "running", "stopped", "group-stop", "exiting", "gone",
};

void rt_thread_set_state(struct rt_thread *th, enum rt_thread_state s)
{
	pr_dbg2("thread %d: %s -> %s", th->tid, state_names[th->state],
		state_names[s]);
	th->state = s;
}

static size_t slot_of(const struct rt_tasks *t, pid_t tid)
{
	return hash64((uint64_t)tid) & t->smask;
}

static void rehash(struct rt_tasks *t)
{
	size_t cap = 64;

	while (cap < t->threads.n * 4)
		cap *= 2;
	free(t->slots);
	t->slots = xcalloc(cap, sizeof(*t->slots));
	t->smask = cap - 1;
	for (size_t i = 0; i < t->threads.n; i++) {
		size_t h = slot_of(t, t->threads.v[i]->tid);

		while (t->slots[h] > 0)
			h = (h + 1) & t->smask;
		t->slots[h] = i + 1;
	}
}

struct rt_tasks *rt_tasks_new(void)
{
	struct rt_tasks *t = xcalloc(1, sizeof(*t));

	rehash(t);
	return t;
}

/* Hash slot holding @tid, or -1. */
static long find_slot(const struct rt_tasks *t, pid_t tid)
{
	size_t h = slot_of(t, tid);

	for (size_t n = 0; n <= t->smask; n++, h = (h + 1) & t->smask) {
		int32_t i = t->slots[h];

		if (i == 0)
			return -1;
		if (i > 0 && t->threads.v[i - 1]->tid == tid)
			return h;
	}
	return -1;
}

struct rt_thread *rt_tasks_thread(struct rt_tasks *t, pid_t tid)
{
	long h = find_slot(t, tid);

	return h < 0 ? NULL : t->threads.v[t->slots[h] - 1];
}

struct rt_thread *rt_tasks_add_thread(struct rt_tasks *t, pid_t tid,
				      struct rt_process *proc)
{
	struct rt_thread *th = xcalloc(1, sizeof(*th));

	th->tid = tid;
	th->state = RT_TS_NEW;
	vec_push(&t->threads, th);
	/* rebuilding also clears deleted markers; keep the load low */
	rehash(t);
	if (proc)
		rt_tasks_link(t, th, proc);
	return th;
}

void rt_tasks_link(struct rt_tasks *t, struct rt_thread *th,
		   struct rt_process *proc)
{
	th->proc = proc;
	proc->nthreads++;
}

void rt_tasks_remove_thread(struct rt_tasks *t, struct rt_thread *th)
{
	long h = find_slot(t, th->tid);
	size_t i, last;

	if (h < 0)
		return;
	i = t->slots[h] - 1;
	last = t->threads.n - 1;
	t->threads.v[i] = t->threads.v[last];
	t->threads.n--;
	if (th->proc)
		th->proc->nthreads--;
	free(th);
	rehash(t);
}

void rt_tasks_retid(struct rt_tasks *t, struct rt_thread *th, pid_t tid)
{
	th->tid = tid;
	rehash(t);
}

struct rt_process *rt_tasks_add_process(struct rt_tasks *t, pid_t pid,
					pid_t ppid)
{
	struct rt_process *p = xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->ppid = ppid;
	p->next = t->procs;
	t->procs = p;
	t->nprocs++;
	return p;
}

struct rt_process *rt_tasks_process(struct rt_tasks *t, pid_t pid)
{
	for (struct rt_process *p = t->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static void free_process(struct rt_process *p)
{
	rt_mem_close(p->mem);
	free(p->removed);
	if (!p->ia_borrowed)
		rt_inline_free(p->ia);
	rt_unwinder_free(p->unwinder);
	rt_image_put(p->img);
	vec_for_each(&p->libs, lib)
		rt_image_put(*lib);
	vec_free(&p->libs);
	free(p);
}

void rt_tasks_remove_process(struct rt_tasks *t, struct rt_process *p)
{
	for (struct rt_process **pp = &t->procs; *pp; pp = &(*pp)->next) {
		if (*pp == p) {
			*pp = p->next;
			t->nprocs--;
			free_process(p);
			return;
		}
	}
}

size_t rt_tasks_nthreads(const struct rt_tasks *t)
{
	return t->threads.n;
}

size_t rt_tasks_nprocesses(const struct rt_tasks *t)
{
	return t->nprocs;
}

struct rt_process *rt_tasks_first_process(struct rt_tasks *t)
{
	return t->procs;
}

struct rt_thread *rt_tasks_thread_at(struct rt_tasks *t, size_t i)
{
	return i < t->threads.n ? t->threads.v[i] : NULL;
}

void rt_tasks_free(struct rt_tasks *t)
{
	if (!t)
		return;
	vec_for_each(&t->threads, th)
		free(*th);
	vec_free(&t->threads);
	while (t->procs) {
		struct rt_process *p = t->procs;

		t->procs = p->next;
		free_process(p);
	}
	free(t->slots);
	free(t);
}

struct rt_image *rt_image_new(struct rt_symbols *syms, struct rt_plan *plan,
			      rt_raddr bias)
{
	struct rt_image *img = xcalloc(1, sizeof(*img));

	img->refs = 1;
	img->syms = syms;
	img->plan = plan;
	img->bias = bias;
	img->tests = rt_libtest_new(syms);
	img->path = realpath(rt_symbols_path(syms), NULL);
	if (!img->path)
		img->path = xstrdup(rt_symbols_path(syms));
	return img;
}

struct rt_image *rt_image_get(struct rt_image *img)
{
	img->refs++;
	return img;
}

void rt_image_put(struct rt_image *img)
{
	if (!img || --img->refs > 0)
		return;
	rt_plan_put(img->plan);
	rt_code_orig_free(img->orig);
	rt_libtest_free(img->tests);
	free(img->path);
	rt_symbols_free(img->syms);
	free(img);
}
