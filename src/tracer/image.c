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
#include "rtrace/inlined.h"
#include "rtrace/log.h"
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

/* ---- the allocator's entry points (--mem) ------------------------------- */

static const struct {
	const char *name;       /* the last path component, or the symbol */
	bool rust;              /* a Rust global-allocator shim */
	uint8_t role;
} allocator[] = {
	{ "__rust_alloc", true, RT_ROLE_ALLOC },
	{ "__rust_alloc_zeroed", true, RT_ROLE_ALLOC },
	{ "__rust_realloc", true, RT_ROLE_REALLOC_RUST },
	{ "__rust_dealloc", true, RT_ROLE_FREE },
	{ "malloc", false, RT_ROLE_ALLOC },
	{ "calloc", false, RT_ROLE_CALLOC },
	{ "realloc", false, RT_ROLE_REALLOC },
	{ "free", false, RT_ROLE_FREE },
	{ "posix_memalign", false, RT_ROLE_MEMALIGN },
	{ "aligned_alloc", false, RT_ROLE_ALLOC_ALIGNED },
	{ "memalign", false, RT_ROLE_ALLOC_ALIGNED },
};

/* The role of function @fn as an allocator entry point, or 0.  Rust's
 * shims are "__rustc::__rust_alloc" under v0 mangling, "__rust_alloc"
 * before; libc's functions are plain C symbols. */
static uint8_t allocator_role(const struct rt_func *fn)
{
	for (size_t i = 0; i < ARRAY_SIZE(allocator); i++) {
		const char *n = allocator[i].name;
		size_t ln = strlen(n), lf = strlen(fn->name);

		if (allocator[i].rust ?
			    strcmp(fn->name, n) == 0 ||
				    (lf > ln + 2 &&
				     strncmp(fn->name + lf - ln - 2, "::", 2) == 0 &&
				     strcmp(fn->name + lf - ln, n) == 0) :
			    rt_func_named(fn, n))
			return allocator[i].role;
	}
	return 0;
}

/* libc's calls that set SIGTRAP's action or mask, and those that call
 * them (signal(), sigset(), sigprocmask(), siglongjmp()...), by the
 * entry they all reach (sigtrap.h). */
static const struct {
	const char *name;
	uint8_t role;
} signal_calls[] = {
	{ "sigaction", RT_ROLE_SIGACTION },
	{ "pthread_sigmask", RT_ROLE_SIGMASK },
};

/* The role of @fn as one of those, or 0.  Global symbols only: the
 * dynamic linker has a sigaction of its own, which programs never call. */
static uint8_t signal_role(const struct rt_func *fn)
{
	for (size_t i = 0; fn->global && i < ARRAY_SIZE(signal_calls); i++)
		if (rt_func_named(fn, signal_calls[i].name))
			return signal_calls[i].role;
	return 0;
}

/*
 * libc's calls that may wait for something other than the CPU: sleeps,
 * futexes (Rust's std makes its futex waits, those of thread::park,
 * Mutex, Condvar, JoinHandle::join and thread::scope, through syscall()),
 * joins, reads, sockets, polls and waits for children.  Their time is the
 * calling function's blocked time, not its own (docs/how-it-works.md).
 * Global symbols only, of libc and libpthread: another library's "read"
 * is not libc's.
 */
static const char *const blocking_calls[] = {
	"nanosleep", "clock_nanosleep", "usleep", "sleep", "pause",
	"syscall", "pthread_join", "pthread_cond_wait",
	"pthread_cond_timedwait", "pthread_cond_clockwait", "sem_wait",
	"sem_timedwait", "sem_clockwait", "read", "readv", "pread64",
	"preadv", "recv", "recvfrom", "recvmsg", "accept", "accept4",
	"connect", "poll", "ppoll", "select", "pselect", "epoll_wait",
	"epoll_pwait", "wait4", "waitpid", "waitid", "flock",
	"sigwaitinfo", "sigtimedwait",
};

/* Whether the image at @path is libc or libpthread (glibc's, musl's). */
static bool is_libc(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, "libc.", 5) || !strncmp(base, "libc-", 5) ||
	       !strncmp(base, "libpthread.", 11) ||
	       !strncmp(base, "libpthread-", 11);
}

static uint8_t blocking_role(const struct rt_func *fn)
{
	for (size_t i = 0; fn->global && i < ARRAY_SIZE(blocking_calls); i++)
		if (rt_func_named(fn, blocking_calls[i]))
			return RT_ROLE_BLOCKING;
	return 0;
}

/* Symbol indexes and roles of the functions of @syms probed for a role:
 * the allocator's entry points with --mem (@mem), libc's signal calls
 * always, libc's blocking calls with @blocking. */
static size_t find_special(const struct rt_symbols *syms, bool mem,
			   bool blocking, size_t **idx, uint8_t **roles)
{
	/* room for two of each, and for the entry hook */
	const size_t room = (ARRAY_SIZE(allocator) +
			     ARRAY_SIZE(signal_calls) +
			     ARRAY_SIZE(blocking_calls)) * 2;
	size_t n = 0;

	blocking = blocking && is_libc(rt_symbols_path(syms));
	*idx = xmalloc((room + 1) * sizeof(**idx));
	*roles = xmalloc(room + 1);
	for (size_t i = 0; i < rt_symbols_count(syms); i++) {
		const struct rt_func *fn = rt_symbols_func(syms, i);
		uint8_t role = mem ? allocator_role(fn) : 0;

		if (!role)
			role = signal_role(fn);
		if (!role && blocking)
			role = blocking_role(fn);
		if (role && n < room) {
			(*idx)[n] = i;
			(*roles)[n++] = role;
		}
	}
	return n;
}

/*
 * Rust's __rust_alloc shim calls (or jumps to) the global allocator: std's
 * __rdl_alloc, or the alloc method of the program's own #[global_allocator]
 * (which the optimiser may also inline into the shim).  The shim is what
 * is probed either way; the log names a custom allocator (a row of its own,
 * not probed) so that the report can say which it was.
 */
static bool shim_uses_std(const struct rt_symbols *syms)
{
	long k = rt_symbols_find(syms, "__rustc::__rust_alloc");
	const struct rt_func *fn;
	rt_insn_vec insns = { 0 };
	uint8_t code[512];
	bool std = false;

	if (k < 0)
		k = rt_symbols_find(syms, "__rust_alloc");
	fn = k >= 0 ? rt_symbols_func(syms, k) : NULL;
	if (!fn || fn->size > sizeof(code) ||
	    rt_symbols_read(syms, fn->addr, code, fn->size))
		return true;  /* no shim: nothing to say */
	rt_arch_decode(code, fn->size, fn->addr, &insns);
	vec_for_each(&insns, in) {
		const struct rt_func *to = in->target ?
			rt_symbols_lookup(syms, in->target) : NULL;

		std |= (in->cls == RT_INSN_CALL || in->cls == RT_INSN_JMP) &&
		       to && strstr(to->name, "__rdl_alloc");
	}
	vec_free(&insns);
	return std;
}

static void note_global_allocator(struct rt_tracer *tr,
				  const struct rt_symbols *syms, rt_raddr bias)
{
	static const char impl[] = " as core::alloc::global::GlobalAlloc>::alloc";
	const struct rt_func *found = NULL;

	if (shim_uses_std(syms))
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

static void load_lines(struct rt_symbols *syms, const size_t *idx, size_t n)
{
	bool *want = xcalloc(rt_symbols_count(syms) + 1, 1);

	for (size_t i = 0; i < n; i++)
		want[idx[i]] = true;
	rt_symbols_load_lines(syms, want);
	free(want);
}

static int read_mem(void *ctx, rt_raddr addr, void *buf, size_t len)
{
	return rt_mem_read(ctx, addr, buf, len);
}

/*
 * The libraries are looked at when the program reaches its entry point:
 * the dynamic linker has mapped and relocated them by then, so that what
 * their PLT stubs lead to can be followed.  With --mem, later dlopens are
 * caught at the dynamic linker's hook (watch_libraries()).
 */
static void add_entry_hook(const struct rt_symbols *syms, size_t *sp,
			   uint8_t *roles, size_t *ns)
{
	long k = rt_symbols_index_at(syms, rt_symbols_entry(syms));

	if (k < 0)
		return;
	sp[*ns] = k;
	roles[(*ns)++] = RT_ROLE_MODULES;
}

/* What the inline engine may patch: the executable's traced functions
 * and the libraries' blocking calls (patchsite.c keeps the other roles
 * breakpoints), unless each hit needs a stop (call stacks are unwound,
 * coverage takes probes out). */
static unsigned inline_kinds(const struct rt_tracer *tr)
{
	if (!tr->cfg.inline_engine || tr->cfg.stack_depth ||
	    tr->cfg.coverage)
		return 0;
	return RT_PROBE_ENTRY | RT_PROBE_EXIT | RT_PROBE_TAIL;
}

unsigned rt_image_jump_kinds(const struct rt_tracer *tr)
{
	return inline_kinds(tr);
}

static bool must_stop(void *ctx, const struct rt_func *fn)
{
	return rt_matcher_select(ctx, fn->name, fn->raw);
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
	size_t *sp = NULL, ns = 0;
	uint8_t *roles = NULL;
	int err = 0;

	ns = find_special(syms, tr->cfg.mem, tr->cfg.blocking &&
				  !tr->cfg.count_only && !tr->cfg.coverage,
			  &sp, &roles);
	if (exe && (tr->cfg.mem ||
		    (rt_symbols_interp(syms) && n + rt_inlined_nfuncs(inl))))
		add_entry_hook(syms, sp, roles, &ns);
	*plan = NULL;
	if (n + ns + rt_inlined_nfuncs(inl)) {
		load_lines(syms, idx, n);
		err = rt_plan_new(syms, &(struct rt_plan_request){
					  .idx = idx, .n = n, .bias = bias,
					  .special = sp, .roles = roles,
					  .nspecial = ns, .read = read_mem,
					  .read_ctx = p->mem,
					  .first_id = tr->next_func_id,
					  .kinds = tr->cfg.count_only ||
							   tr->cfg.coverage ?
						   RT_PROBE_ENTRY : 0,
					  .inline_kinds = inline_kinds(tr),
					  .must_stop = tr->cfg.stop_at ?
							       must_stop : NULL,
					  .must_stop_ctx = tr->cfg.stop_at,
					  .inlined = inl },
				  plan);
		inl = NULL;  /* the plan's now */
	}
	rt_inlined_free(inl);
	if (*plan)
		tr->next_func_id += rt_plan_nfuncs(*plan);
	free(sp);
	free(roles);
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
	long k;

	if (!tr->cfg.mem || !interp || rt_auxv_get(p->pid, AT_BASE, &base) ||
	    !base || rt_symbols_open(interp, RT_SYMS_QUIET, &ld)) {
		pr_dbg("process %d: no dynamic linker to watch (%s)", p->pid,
		       interp ? interp : "static");
		return;
	}
	k = rt_symbols_find(ld, "_dl_debug_state");
	if (k >= 0)
		rt_plan_new(ld, &(struct rt_plan_request){
				    .special = (size_t[]){ k },
				    .roles = (uint8_t[]){ RT_ROLE_MODULES },
				    .nspecial = 1, .bias = base,
				    .first_id = tr->next_func_id },
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
	if (tr->cfg.mem && p->record)
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
	int err = p->img->plan ? rt_arm_image(tr->engine, p, p->img, tid,
					      deferred_sig)
			       : 0;

	if (!err && p->img->plan)
		count_instances(p->img->plan, p->ia, &tr->st);
	vec_for_each(&p->libs, lib)
		if (!err && (*lib)->plan)
			err = rt_arm_image(tr->engine, p, *lib, tid,
					   deferred_sig);
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
					  (tr->cfg.mem ? 0 : RT_SYMS_NO_DEBUG),
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

/* One line of /proc/PID/maps: a file mapped at file offset 0 is where that
 * file (a shared object, all at a bias of its start) begins. */
static bool parse_map(const char *line, rt_raddr *start, char *path,
		      size_t len)
{
	unsigned long long lo, hi, off;
	char perms[8];
	int n = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off,
		   &n) < 4 || !n || off != 0 || line[n] != '/')
		return false;
	snprintf(path, len, "%.*s", (int)strcspn(line + n, "\n"), line + n);
	*start = lo;
	return true;
}

void rt_image_scan_libraries(struct rt_tracer *tr, struct rt_thread *th)
{
	char maps[64], path[PATH_MAX], *line = NULL;
	struct rt_process *p = th->proc;
	size_t cap = 0;
	rt_raddr base;
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
		if (parse_map(line, &base, path, sizeof(path)) &&
		    !known_module(p, path))
			add_library(tr, th, path, base);
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
