// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a traced process runs: the symbols of its executable, the functions
 * the patterns select in it (matched again after every exec), and the probe
 * plan, built at the load bias of the live process.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PR_FMT "image"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/arm.h"
#include "rtrace/imageplan.h"
#include "rtrace/inlined.h"
#include "rtrace/log.h"
#include "rtrace/trapguard.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

#include <elf.h>

#include "tracer-int.h"


char *rt_image_exe(pid_t pid)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

static uint32_t func_flags(const struct rt_plan_func *pf)
{
	switch (pf->role) {
	case RT_ROLE_ALLOC:
	case RT_ROLE_ALLOC_ALIGNED:
	case RT_ROLE_CALLOC:
	case RT_ROLE_MEMALIGN:
		return RT_FUNC_MEM_ALLOC;
	case RT_ROLE_REALLOC:
	case RT_ROLE_REALLOC_RUST:
		return RT_FUNC_MEM_REALLOC;
	case RT_ROLE_FREE:
		return RT_FUNC_MEM_FREE;
	case RT_ROLE_MODULES:
	case RT_ROLE_SIGACTION:
	case RT_ROLE_SIGMASK:
		return RT_FUNC_HELPER;
	case RT_ROLE_BLOCKING:
		return RT_FUNC_HELPER | RT_FUNC_BLOCKING;
	default:
		return pf->helper	 ? RT_FUNC_HELPER :
		       pf->inlined_only ? RT_FUNC_INLINED_ONLY :
					  0;
	}
}

/* Each function's sites, and those patched when @inl (the process has
 * its event area), into its row. */
static void count_sites(const struct rt_plan *plan, bool inl,
			struct rt_log_func *rows, size_t n)
{
	uint32_t first = n ? rt_plan_func(plan, 0)->id : 0;

	for (size_t i = 0; i < rt_plan_nprobes(plan); i++) {
		const struct rt_probe *pr = rt_plan_probe(plan, i);

		/* the entries of inlined calls are in inlined_sites */
		if (pr->func - first >= n || pr->kinds == RT_PROBE_INLINED)
			continue;
		rows[pr->func - first].sites++;
		rows[pr->func - first].inline_sites += inl && rt_probe_inline(pr);
	}
}

/* The reason most of the function's refused inlined instances had, or
 * RT_REFUSE_NONE. */
static uint32_t most_common_refusal(const struct rt_plan_func *pf)
{
	uint32_t best = RT_REFUSE_NONE;

	for (uint32_t i = 1; i < RT_REFUSE_MAX; i++)
		if (pf->inlined_why[i] > pf->inlined_why[best])
			best = i;
	return best;
}

static void log_funcs(struct rt_tracer *tr, const struct rt_image *img,
		      bool inl)
{
	const struct rt_plan *plan = img->plan;
	size_t n = rt_plan_nfuncs(plan);
	struct rt_log_func *rows = xcalloc(n + 1, sizeof(*rows));

	for (size_t i = 0; i < n; i++) {
		const struct rt_plan_func *pf = rt_plan_func(plan, i);

		rows[i] = (struct rt_log_func){
			.id = pf->id, .refusal = pf->why,
			.addr = pf->inlined_only ? 0 : pf->fn->addr + img->bias,
			.size = pf->fn->size,
			.line = pf->fn->line, .name = pf->fn->name,
			.raw = pf->fn->raw, .module = rt_symbols_path(img->syms),
			.file = pf->fn->file,
			.flags = func_flags(pf),
			.inlined_sites = pf->ninlined,
			.inlined_refused = pf->ninlined_refused,
			.inlined_why = most_common_refusal(pf),
			.inlined_packed = pf->ninlined_packed,
		};
		if (rows[i].flags & ~RT_FUNC_INLINED_ONLY)
			continue;
		if (pf->why)
			tr->st.refused++;
		else
			tr->st.funcs++;
	}
	count_sites(plan, inl, rows, n);
	/* --stats counts the sites the report counts: those of the rows
	 * it shows (not rtrace's own hooks, nor the inlined calls') */
	for (size_t i = 0; i < n; i++) {
		if (rows[i].flags & RT_FUNC_HELPER)
			continue;
		tr->st.sites += rows[i].sites;
		tr->st.inline_sites += rows[i].inline_sites;
	}
	rt_evlog_write_funcs(tr->cfg.log, rows, n);
	free(rows);
}

/* Symbols and selection for the image @p now runs, and the inlined
 * instances of the selected functions (*inl NULL without them). */
static int load_image(struct rt_tracer *tr, struct rt_process *p,
		      struct rt_symbols **syms, size_t **idx, size_t *n,
		      struct rt_inlined **inl)
{
	char *exe;
	int err;

	*inl = NULL;
	if (!tr->first_exec_done && p->pid == tr->first_pid) {
		*syms = tr->cfg.first_syms;
		*n = tr->cfg.first_n;
		*idx = xmalloc((*n + 1) * sizeof(**idx));
		memcpy(*idx, tr->cfg.first_idx, *n * sizeof(**idx));
		*inl = tr->cfg.first_inlined;
		tr->cfg.first_syms = NULL;
		tr->cfg.first_inlined = NULL;
		return 0;
	}
	exe = rt_image_exe(p->pid);
	if (!exe)
		return -ENOENT;
	err = rt_symbols_open(exe, RT_SYMS_QUIET, syms);
	/* a program without symbols, or not a Rust one, is no news; one
	 * the user may run but rtrace may not read is */
	if (err == -EACCES || err == -EPERM)
		pr_warn("process %d runs %s, which rtrace may not read (%s): "
			"it is not traced", p->pid, exe, strerror(-err));
	free(exe);
	if (err)
		return err;
	rt_matcher_reset(tr->cfg.matcher);
	*n = rt_select_funcs(*syms, tr->cfg.matcher, idx);
	if (tr->cfg.inlined)
		rt_inlined_find(*syms, tr->cfg.matcher, *idx, *n, inl);
	return 0;
}

static void note_global_allocator(struct rt_tracer *tr,
				  const struct rt_symbols *syms, rt_raddr bias)
{
	static const char impl[] = " as core::alloc::global::GlobalAlloc>::alloc";
	const struct rt_func *found = NULL;

	if (rt_imageplan_std_allocator(syms))
		return;
	for (size_t i = 0; i < rt_symbols_count(syms) && !found; i++) {
		const struct rt_func *fn = rt_symbols_func(syms, i);
		size_t n = strlen(fn->name);

		if (n > sizeof(impl) && !strcmp(fn->name + n - strlen(impl), impl) &&
		    !strstr(fn->name, "std::alloc::System"))
			found = fn;
	}
	rt_evlog_write_funcs(tr->cfg.log, &(struct rt_log_func){
		.id = tr->next_func_id++,
		.addr = found ? found->addr + bias : 0,
		.size = found ? found->size : 0,
		.name = found ? found->name : "inlined into __rust_alloc",
		.raw = found ? found->raw : "",
		.module = rt_symbols_path(syms),
		.flags = RT_FUNC_GLOBAL_ALLOC | RT_FUNC_HELPER }, 1);
}

/* ---- images ---------------------------------------------------------- */

static int read_mem(void *ctx, rt_raddr addr, void *buf, size_t len)
{
	return rt_mem_read(ctx, addr, buf, len);
}

/* The plan for @syms at @bias in @p: the selected functions @idx[0..n),
 * libc's signal calls, with --mem the allocator's entry points, and in
 * an executable that has something probed and loads libraries, the hook
 * at its entry point (where those calls are found). */
static int plan_image(struct rt_tracer *tr, struct rt_process *p,
		      struct rt_symbols *syms, const size_t *idx, size_t n,
		      struct rt_inlined *inl, rt_raddr bias, bool exe,
		      struct rt_plan **plan)
{
	int err = rt_imageplan_build(syms, idx, n, inl, &tr->cfg.plan,
				     &(struct rt_imageplan_image){
					     .exe = exe, .bias = bias,
					     .read = read_mem,
					     .read_ctx = p->mem,
					     .first_id = tr->next_func_id },
				     plan);

	if (*plan)
		tr->next_func_id += rt_plan_nfuncs(*plan);
	return err;
}

/*
 * With --mem, the allocator also lives in shared libraries (libc's malloc).
 * Those mapped at start-up are looked at from the hook at the program's
 * entry point; those dlopen()ed later are announced by the dynamic linker,
 * which calls _dl_debug_state() each time the list changed, for debuggers:
 * a probe there (with a scratch area of its own, near ld.so) says when.
 */
static void watch_libraries(struct rt_tracer *tr, struct rt_thread *th)
{
	struct rt_process *p = th->proc;
	const char *interp = rt_symbols_interp(p->img->syms);
	struct rt_symbols *ld;
	struct rt_plan *plan = NULL;
	uint64_t base = 0;

	if (!tr->cfg.plan.mem || !interp || rt_auxv_get(p->pid, AT_BASE, &base) ||
	    !base || rt_symbols_open(interp, RT_SYMS_QUIET, &ld)) {
		pr_dbg("process %d: no dynamic linker to watch (%s)", p->pid,
		       interp ? interp : "static");
		return;
	}
	rt_imageplan_linker(ld, &(struct rt_imageplan_image){
				    .bias = base, .first_id = tr->next_func_id },
			    &plan);
	if (!plan) {
		rt_symbols_free(ld);
		return;
	}
	tr->next_func_id += rt_plan_nfuncs(plan);
	vec_push(&p->libs, rt_image_new(ld, plan, base));
	if (rt_arm_image(tr->engine, p, *vec_last(&p->libs), th->tid,
			 &th->pending_sig))
		pr_warn("process %d: libraries it opens later will not be "
			"profiled", p->pid);
}

int rt_image_build(struct rt_tracer *tr, struct rt_process *p)
{
	struct rt_symbols *syms;
	struct rt_plan *plan = NULL;
	struct rt_inlined *inl;
	size_t *idx = NULL, n = 0;
	rt_raddr bias;
	int err = load_image(tr, p, &syms, &idx, &n, &inl);

	if (err)
		return err;
	err = rt_arm_bias(p->pid, syms, &bias);
	if (err)
		rt_inlined_free(inl);
	else
		err = plan_image(tr, p, syms, idx, n, inl, bias, true, &plan);
	free(idx);
	if (err) {
		rt_symbols_free(syms);
		return err;
	}
	p->img = rt_image_new(syms, plan, bias);
	rt_mem_set_call_site(p->mem, rt_symbols_entry(syms) + bias);
	if (tr->cfg.plan.mem && p->record)
		note_global_allocator(tr, syms, bias);
	return 0;
}

/* Inlined instances probed, those timed, and their probes that are
 * jumps, for --stats. */
static void count_instances(const struct rt_plan *plan, bool jumps,
			    struct rt_tracer_stats *st)
{
	for (size_t i = 0; i < rt_plan_ninlined(plan); i++) {
		const struct rt_plan_inlined *pi = rt_plan_inlined(plan, i);
		const struct rt_probe *pr;

		if (pi->why)
			continue;
		st->inl_instances++;
		pr = rt_plan_lookup(plan, pi->addr);
		st->inl_jumps += jumps && pr && rt_probe_inline(pr);
		if (!pi->exit)
			continue;
		st->inl_timed++;
		pr = rt_plan_lookup(plan, pi->exit);
		st->inl_jumps += jumps && pr && rt_probe_inline(pr);
	}
}

int rt_image_arm(struct rt_tracer *tr, struct rt_process *p, pid_t tid,
		 int *deferred_sig)
{
	int err;

	if (p->img->plan || p->libs.n)
		rt_trapguard_install(p, tid, deferred_sig);
	err = p->img->plan ? rt_arm_image(tr->engine, p, p->img, tid,
					  deferred_sig)
			   : 0;
	if (!err && p->img->plan)
		count_instances(p->img->plan, p->ia, &tr->st);
	vec_for_each(&p->libs, lib)
		if (!err && (*lib)->plan)
			err = rt_arm_image(tr->engine, p, *lib, tid,
					   deferred_sig);
	rt_trapguard_note_recorder(p);
	return err;
}

/* ---- libraries mapped later --------------------------------------------- */

static bool known_module(const struct rt_process *p, const char *path)
{
	char *exe = rt_image_exe(p->pid);
	bool known = !strcmp(p->img->path, path) || (exe && !strcmp(exe, path));

	free(exe);
	vec_for_each(&p->libs, lib)
		known = known || !strcmp((*lib)->path, path);
	return known;
}

/* A library of @p: its symbols and, when it holds allocator entry points,
 * their probes, armed now through thread @th. */
static void add_library(struct rt_tracer *tr, struct rt_thread *th,
			const char *path, rt_raddr base)
{
	struct rt_process *p = th->proc;
	struct rt_symbols *syms;
	struct rt_plan *plan = NULL;
	struct rt_image *img;

	/* without --mem only libc's exported signal calls are looked for */
	if (rt_symbols_open(path, RT_SYMS_QUIET |
					  (tr->cfg.plan.mem ? 0 : RT_SYMS_NO_DEBUG),
			    &syms))
		return;
	plan_image(tr, p, syms, NULL, 0, NULL, base, false, &plan);
	if (plan && tr->joining)
		rt_attach_keep_clear(tr, plan);
	img = rt_image_new(syms, plan, base);
	vec_push(&p->libs, img);
	if (!plan)
		return;
	if (rt_arm_image(tr->engine, p, img, th->tid, &th->pending_sig)) {
		pr_warn("process %d: no probes in %s", p->pid, path);
		return;
	}
	log_funcs(tr, img, false);
	pr_dbg("process %d: %s at %" PRIxRADDR ", %zu probes", p->pid, path,
	       base, rt_plan_nprobes(plan));
}

/* One line of /proc/PID/maps: its start, file offset, whether it is
 * executable, and the file it maps ("" for none). */
static bool parse_map(const char *line, rt_raddr *start, uint64_t *off,
		      bool *exec, char *path, size_t len)
{
	unsigned long long lo, hi, o;
	char perms[8];
	int n = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &o,
		   &n) < 4 || !n)
		return false;
	snprintf(path, len, "%.*s", line[n] == '/' ? (int)strcspn(line + n, "\n")
						   : 0, line + n);
	*start = lo;
	*off = o;
	*exec = strchr(perms, 'x') != NULL;
	return true;
}

/*
 * A shared object is where a file is mapped at offset 0 and, in the
 * lines right after, the same file again with code: the dynamic linker
 * maps an object's segments side by side.  A lone mapping of a file at
 * offset 0 without code is the program reading the file (std's
 * backtraces map libraries to read their debug info), not code to probe.
 */
void rt_image_scan_libraries(struct rt_tracer *tr, struct rt_thread *th)
{
	char maps[64], path[PATH_MAX], cand[PATH_MAX] = "", *line = NULL;
	struct rt_process *p = th->proc;
	size_t cap = 0;
	rt_raddr start, base = 0;
	uint64_t off;
	bool exec;
	FILE *f;

	if (!p->watching) {
		p->watching = true;
		watch_libraries(tr, th);
	}
	snprintf(maps, sizeof(maps), "/proc/%d/maps", p->pid);
	f = fopen(maps, "re");
	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		if (!parse_map(line, &start, &off, &exec, path, sizeof(path)))
			continue;
		if (off == 0 && path[0]) {
			snprintf(cand, sizeof(cand), "%s", path);
			base = start;
		} else if (strcmp(path, cand) != 0) {
			cand[0] = '\0';
		}
		if (exec && cand[0] && !known_module(p, cand))
			add_library(tr, th, cand, base);
		if (exec)
			cand[0] = '\0';
	}
	free(line);
	fclose(f);
}

void rt_image_log(struct rt_tracer *tr, struct rt_process *p)
{
	char *exe = rt_image_exe(p->pid);

	rt_evlog_write_process(tr->cfg.log, p->pid, p->ppid, exe ? exe : "");
	free(exe);
	log_funcs(tr, p->img, p->ia != NULL);
}
