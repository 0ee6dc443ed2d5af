// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The plan of one image: the selected functions, and those probed for
 * rtrace's own use, with the kinds of sites each engine may patch.  Both
 * `rtrace -l` and the tracer build their plans here, so that the list
 * shows what a run arms.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "probes"
#define PR_DOMAIN RT_DOM_PROBES
#include "rtrace/imageplan.h"
#include "rtrace/log.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct rt_imageplan_policy rt_imageplan_policy_of(const struct rt_opts *o,
						  struct rt_matcher *stop_at)
{
	return (struct rt_imageplan_policy){
		.jumps = o->engine != RT_ENGINE_TRAP, .mem = o->mem,
		.blocking = !o->no_blocked, .count_only = o->count_only,
		.coverage = o->coverage, .stack_depth = o->stack_depth,
		.stop_at = stop_at,
	};
}

/* What the jump engine may patch: the executable's traced functions
 * and the libraries' blocking calls (patchsite.c keeps the other roles
 * breakpoints), unless each hit needs a stop (call stacks are unwound,
 * coverage takes probes out). */
unsigned rt_imageplan_jump_kinds(const struct rt_imageplan_policy *pol)
{
	if (!pol->jumps || pol->stack_depth || pol->coverage)
		return 0;
	return RT_PROBE_ENTRY | RT_PROBE_EXIT | RT_PROBE_TAIL;
}

/* ---- roles: the allocator (--mem), libc's signal and waiting calls --- */

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

/* libc's calls that set a signal's action or mask, and those that call
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

bool rt_imageplan_is_libc(const char *path)
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

uint8_t rt_imageplan_role(const struct rt_func *fn,
			  const struct rt_imageplan_policy *pol, bool libc)
{
	uint8_t role = pol->mem ? allocator_role(fn) : 0;

	if (!role)
		role = signal_role(fn);
	/* a waiting call's time is its caller's blocked time, which
	 * --count and --coverage do not measure */
	if (!role && libc && pol->blocking && !pol->count_only &&
	    !pol->coverage)
		role = blocking_role(fn);
	return role;
}

const char *rt_imageplan_role_str(uint8_t role)
{
	switch (role) {
	case RT_ROLE_TRACED:
		return "traced";
	case RT_ROLE_MODULES:
		return "library hook";
	case RT_ROLE_SIGACTION:
	case RT_ROLE_SIGMASK:
		return "signal call";
	case RT_ROLE_BLOCKING:
		return "blocking call";
	default:
		return "allocator";
	}
}

/* Symbol indexes and roles of the functions of @syms probed for a role,
 * with room for the entry hook. */
static size_t find_special(const struct rt_symbols *syms,
			   const struct rt_imageplan_policy *pol, size_t **idx,
			   uint8_t **roles)
{
	/* room for two of each, and for the entry hook */
	const size_t room = (ARRAY_SIZE(allocator) +
			     ARRAY_SIZE(signal_calls) +
			     ARRAY_SIZE(blocking_calls)) * 2;
	bool libc = rt_imageplan_is_libc(rt_symbols_path(syms));
	size_t n = 0;

	*idx = xmalloc((room + 1) * sizeof(**idx));
	*roles = xmalloc(room + 1);
	for (size_t i = 0; i < rt_symbols_count(syms) && n < room; i++) {
		uint8_t role = rt_imageplan_role(rt_symbols_func(syms, i), pol,
						 libc);

		if (role) {
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
bool rt_imageplan_std_allocator(const struct rt_symbols *syms)
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

/* ---- the plan -------------------------------------------------------- */

/*
 * The libraries are looked at when the program reaches its entry point:
 * the dynamic linker has mapped and relocated them by then, so that what
 * their PLT stubs lead to can be followed.  With --mem, later dlopens are
 * caught at the dynamic linker's hook (rt_imageplan_linker()).
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

static bool must_stop(void *ctx, const struct rt_func *fn)
{
	return rt_matcher_select(ctx, fn->name, fn->raw);
}

static void load_lines(struct rt_symbols *syms, const size_t *idx, size_t n)
{
	bool *want = xcalloc(rt_symbols_count(syms) + 1, 1);

	for (size_t i = 0; i < n; i++)
		want[idx[i]] = true;
	rt_symbols_load_lines(syms, want);
	free(want);
}

int rt_imageplan_build(struct rt_symbols *syms, const size_t *idx, size_t n,
		       struct rt_inlined *inl,
		       const struct rt_imageplan_policy *pol,
		       const struct rt_imageplan_image *img,
		       struct rt_plan **plan)
{
	size_t *sp = NULL, ns;
	uint8_t *roles = NULL;
	int err = 0;

	ns = find_special(syms, pol, &sp, &roles);
	if (img->exe && (pol->mem || (rt_symbols_interp(syms) &&
				      n + rt_inlined_nfuncs(inl))))
		add_entry_hook(syms, sp, roles, &ns);
	*plan = NULL;
	if (n + ns + rt_inlined_nfuncs(inl)) {
		load_lines(syms, idx, n);
		err = rt_plan_new(syms, &(struct rt_plan_request){
			.idx = idx, .n = n, .bias = img->bias,
			.special = sp, .roles = roles, .nspecial = ns,
			.read = img->read, .read_ctx = img->read_ctx,
			.first_id = img->first_id,
			.kinds = pol->count_only || pol->coverage ?
					 RT_PROBE_ENTRY : 0,
			.inline_kinds = rt_imageplan_jump_kinds(pol),
			.must_stop = pol->stop_at ? must_stop : NULL,
			.must_stop_ctx = pol->stop_at,
			.inlined = inl }, plan);
		inl = NULL;  /* the plan's now */
	}
	rt_inlined_free(inl);
	free(sp);
	free(roles);
	return err;
}

int rt_imageplan_linker(const struct rt_symbols *ld,
			const struct rt_imageplan_image *img,
			struct rt_plan **plan)
{
	long k = rt_symbols_find(ld, "_dl_debug_state");

	*plan = NULL;
	if (k < 0)
		return -ENOENT;
	return rt_plan_new(ld, &(struct rt_plan_request){
				   .special = (size_t[]){ k },
				   .roles = (uint8_t[]){ RT_ROLE_MODULES },
				   .nspecial = 1, .bias = img->bias,
				   .first_id = img->first_id }, plan);
}

const char *rt_imageplan_site_str(const struct rt_probe *pr)
{
	if (pr->kinds & RT_PROBE_ENTRY)
		return "entry";
	if (pr->kinds & (RT_PROBE_EXIT | RT_PROBE_HELPER))
		return "return";
	if (pr->kinds & RT_PROBE_TAIL)
		return "tail jump";
	return "inlined";
}

const char *rt_imageplan_func_use(const struct rt_plan_func *pf)
{
	if (pf->role)
		return rt_imageplan_role_str(pf->role);
	return pf->helper ? "end of a tail call" : "traced";
}

void rt_imageplan_debug_armed(const struct rt_plan *plan, const char *path,
			      rt_raddr bias, bool jumps)
{
	if (!rt_log_enabled(PR_DOMAIN, 1))
		return;
	for (size_t i = 0; i < rt_plan_nprobes(plan); i++) {
		const struct rt_probe *pr = rt_plan_probe(plan, i);
		const struct rt_plan_func *pf = rt_plan_func_by_id(plan,
								   pr->func);

		pr_dbg("armed %s %#llx %s %s: %s (%s)", path,
		       (unsigned long long)(pr->addr - bias),
		       rt_imageplan_site_str(pr),
		       jumps && rt_probe_inline(pr) ? "jump" : "breakpoint",
		       pf ? pf->fn->name : "?",
		       pf ? rt_imageplan_func_use(pf) : "?");
	}
}
