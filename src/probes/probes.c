// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probe planning.  For each selected function the arch decoder turns its
 * bytes (within the symbol's bounds: the padding after a function is int3
 * and must not be read as code) into instructions; the entry, every return
 * and every jump that may leave the function become sites.  A function with
 * any site that cannot be displaced is refused as a whole, so that its
 * counts and times are either exact or absent, never half right.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Levels of tail jumps followed into untraced code. */
#define HELPER_LEVELS 3

#define PR_FMT "probes"
#define PR_DOMAIN RT_DOM_PROBES
#include "rtrace/arch-jump.h"
#include "rtrace/evlog.h"
#include "rtrace/log.h"
#include "rtrace/patchsite.h"
#include "rtrace/probes.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct rt_plan {
	int refs;
	rt_raddr bias;
	rt_raddr base;                 /* scratch area, once placed */
	rt_raddr calib;                /* its calibration breakpoints */
	VEC(struct rt_probe) probes;   /* sorted by address */
	VEC(struct rt_insn) insns;     /* the displaced instruction of each */
	VEC(struct rt_plan_func) funcs;
	VEC(uint8_t) code;             /* slot bytes for the scratch area */
	unsigned inline_kinds;         /* kinds the inline engine patches */
	bool (*must_stop)(void *ctx, const struct rt_func *fn);
	void *must_stop_ctx;
	const struct rt_symbols *syms; /* while planning */
	rt_raddr recorder;             /* the inline engine's, once placed */
	rt_raddr ext_recorder;         /* another image's, that this one's
					* trampolines call; 0: its own */
	VEC(rt_raddr) targets;         /* while planning: a function's jump
					* table targets */
	uint32_t *hash;                /* probe index + 1, 0 = empty */
	size_t hmask;
	struct rt_inlined *inl;        /* instances of selected functions */
	uint32_t *inl_fn_id;           /* while planning: log id of each
					* function of inl */
	VEC(struct rt_plan_inlined) inlined;
	bool inl_exits;                /* exits are wanted: time inlined calls
					* where their exit can be probed */
	VEC(struct rt_inl_rec) inl_recs;  /* events of the inlined calls of
					   * each RT_PROBE_INLINED probe, in
					   * runs */
	rt_patch_claims claims;        /* while planning: padding between
					* functions that sites took */
};

/* Whether a decoded instruction is a site of function [lo, hi). */
static unsigned site_kinds(const struct rt_insn *in, rt_raddr lo, rt_raddr hi)
{
	switch (in->cls) {
	case RT_INSN_RET:
		return RT_PROBE_EXIT;
	case RT_INSN_JMP:
	case RT_INSN_JCC:
		return in->target < lo || in->target >= hi ? RT_PROBE_TAIL : 0;
	case RT_INSN_JMP_REG:
	case RT_INSN_JMP_MEM:
		/* a jump table or a tail call: the tracer tells at run time */
		return RT_PROBE_TAIL;
	default:
		return 0;
	}
}

static void add_probe(struct rt_plan *p, const struct rt_insn *in,
		      uint32_t id, unsigned kinds, uint8_t role, rt_raddr lo,
		      rt_raddr hi)
{
	struct rt_probe *pr = vec_push_zero(&p->probes);

	pr->addr = in->addr;
	pr->func = id;
	pr->kinds = kinds;
	pr->role = role;
	pr->func_lo = lo;
	pr->func_hi = hi;
	memcpy(pr->orig, in->bytes, MIN((size_t)in->len, sizeof(pr->orig)));
	vec_push(&p->insns, *in);
}

/* Checks every site of a function can be displaced (slot placed at the site
 * itself, so that reach is not the question yet). */
static enum rt_refusal check_site(const struct rt_insn *in)
{
	uint8_t buf[RT_ARCH_SLOT_MAX];
	struct rt_resume res;

	return rt_arch_plan_resume(in, in->addr, buf, &res);
}

static int decode_func(const struct rt_symbols *syms, const struct rt_func *fn,
		       rt_raddr bias, rt_insn_vec *insns,
		       struct rt_plan_func *pf)
{
	uint8_t *code;
	int err;

	insns->n = 0;
	if (fn->size == 0 || fn->size > (64u << 20)) {
		pf->why = RT_REFUSE_NO_CODE;
		return 0;
	}
	code = xmalloc(fn->size);
	if (rt_symbols_read(syms, fn->addr, code, fn->size) != 0) {
		pf->why = RT_REFUSE_NO_CODE;
		free(code);
		return 0;
	}
	err = rt_arch_decode(code, fn->size, fn->addr + bias, insns);
	free(code);
	if (err || insns->n == 0) {
		pf->why = RT_REFUSE_UNDECODABLE;
		pf->why_at = insns->n ? vec_last(insns)->addr : fn->addr + bias;
	}
	return 0;
}

/* Bytes of the image at run-time address @addr (a jump table). */
static int read_image(void *ctx, rt_raddr addr, void *buf, size_t len)
{
	const struct rt_plan *p = ctx;

	return rt_symbols_read_rodata((struct rt_symbols *)p->syms,
				      addr - p->bias, buf, len);
}

/* The jump tables of a function: where their jumps go (the inline engine
 * must not patch over those places) and which jumps they are (no probe:
 * they stay in the function).  *known is false when some indirect jump's
 * targets are not known. */
static void find_tables(struct rt_plan *p, const rt_insn_vec *insns,
			uint8_t *is_table, bool *known)
{
	rt_raddr buf[256];

	*known = true;
	p->targets.n = 0;
	for (size_t i = 0; i < insns->n; i++) {
		size_t got;

		if (insns->v[i].cls != RT_INSN_JMP_REG)
			continue;
		got = rt_arch_jump_table(insns->v, insns->n, i, read_image, p,
					 buf, ARRAY_SIZE(buf));
		*known = *known && got > 0;
		is_table[i] = got > 0;
		for (size_t j = 0; j < got; j++)
			vec_push(&p->targets, buf[j]);
	}
}

/* Bytes after a function's end that no other function claims: the
 * linker's fill, which a patched return may overwrite. */
static int read_after(void *ctx, rt_raddr addr, void *buf, size_t len)
{
	const struct rt_plan *p = ctx;

	for (size_t i = 0; i < len; i++)
		if (rt_symbols_lookup(p->syms, addr + i - p->bias))
			return -EEXIST;
	return rt_symbols_read(p->syms, addr - p->bias, buf, len);
}

/* Which of the function's sites the inline engine patches (patchsite.c). */
static void plan_inline(struct rt_plan *p, const struct rt_plan_func *pf,
			const rt_insn_vec *insns, size_t first, bool known)
{
	struct rt_patch_func f = {
		.insns = insns->v, .n = insns->n,
		.lo = pf->fn->addr + p->bias,
		.hi = pf->fn->addr + p->bias + pf->fn->size,
		.kinds = p->inline_kinds,
		.read_after = read_after, .ctx = p,
		.marks = p->targets.v, .nmarks = p->targets.n,
		.tables_known = known, .claims = &p->claims,
	};
	bool stop = p->inline_kinds && p->must_stop &&
		    p->must_stop(p->must_stop_ctx, pf->fn);

	if (stop)
		f.kinds = 0;
	if (p->probes.n > first)
		rt_patch_plan(&f, p->probes.v + first, p->probes.n - first);
	for (size_t i = first; stop && i < p->probes.n; i++)
		p->probes.v[i].inline_why = RT_INLINE_ROLE;
}

/* Plans the sites of one function; @mask keeps only some kinds. */
static void plan_func(struct rt_plan *p, const struct rt_symbols *syms,
		      struct rt_plan_func *pf, rt_insn_vec *insns,
		      unsigned mask)
{
	rt_raddr lo = pf->fn->addr + p->bias, hi = lo + pf->fn->size;
	size_t first = p->probes.n;
	uint8_t *is_table;
	bool known;

	decode_func(syms, pf->fn, p->bias, insns, pf);
	if (pf->why)
		return;
	is_table = xcalloc(insns->n, 1);
	find_tables(p, insns, is_table, &known);
	for (size_t i = 0; i < insns->n; i++) {
		const struct rt_insn *in = &insns->v[i];
		unsigned kinds = is_table[i] ? 0 : site_kinds(in, lo, hi);
		enum rt_refusal why;

		if (i == 0)
			kinds |= RT_PROBE_ENTRY;
		kinds &= mask;
		if (!kinds)
			continue;
		why = check_site(in);
		if (why) {
			pf->why = why;
			pf->why_at = in->addr;
			p->probes.n = p->insns.n = first;
			free(is_table);
			return;
		}
		pf->nexit += !!(kinds & RT_PROBE_EXIT);
		pf->ntail += !!(kinds & RT_PROBE_TAIL);
		if (pf->helper)
			kinds |= RT_PROBE_HELPER;
		add_probe(p, in, pf->id, kinds, pf->role, lo, hi);
	}
	free(is_table);
	plan_inline(p, pf, insns, first, known);
}

/* Where a PLT stub at @target jumps: the function its GOT slot holds now
 * (resolved: libraries are planned once relocated), or 0. */
static rt_raddr through_plt(const struct rt_plan *p,
			    const struct rt_symbols *syms,
			    const struct rt_plan_request *req, rt_raddr target)
{
	uint8_t code[16];
	rt_insn_vec one = { 0 };
	rt_raddr slot, to = 0;

	if (!req->read || rt_symbols_read(syms, target - p->bias, code,
					  sizeof(code)))
		return 0;
	rt_arch_decode(code, sizeof(code), target, &one);
	if (one.n && rt_arch_mem_target(&one.v[0], &slot) == 0 &&
	    req->read(req->read_ctx, slot, &to, sizeof(to)) != 0)
		to = 0;
	vec_free(&one);
	return to;
}

/* The function a tail jump to @target enters: a symbol starting there, or
 * code the unwind tables delimit (libc's calloc jumps into internal
 * functions without symbols), or what a PLT stub there leads to (calloc
 * ends with memset through the PLT).  NULL when none is known. */
static const struct rt_func *jump_target(const struct rt_plan *p,
					 const struct rt_symbols *syms,
					 const struct rt_plan_request *req,
					 rt_raddr target, int depth)
{
	long k = rt_symbols_index_at(syms, target - p->bias);
	const struct rt_func *fn;
	rt_raddr to;

	if (k >= 0)
		return rt_symbols_func(syms, k);
	fn = rt_symbols_code_at(syms, target - p->bias);
	/* the .plt has one unwind entry for all its stubs */
	if ((!fn || fn->addr != target - p->bias) && depth == 0 &&
	    (to = through_plt(p, syms, req, target)))
		return jump_target(p, syms, req, to, 1);
	return fn && fn->addr == target - p->bias ? fn : NULL;
}

/* Whether @fn returns its first argument, as memset, memcpy and memmove
 * (and their tuned variants) do: a function that ends by jumping there
 * returns that argument, which is known at the jump. */
static bool returns_first_arg(const struct rt_func *fn)
{
	static const char *const names[] = { "memset", "memcpy", "memmove" };
	const char *n = fn->name;

	n += strspn(n, "_");
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (str_starts(n, names[i]))
			return true;
	return false;
}

static bool is_planned(const struct rt_plan *p, const struct rt_func *fn)
{
	vec_for_each(&p->funcs, f)
		if (f->fn == fn)
			return true;
	return false;
}

static void add_helpers_of(struct rt_plan *p, const struct rt_symbols *syms,
			   const struct rt_plan_request *req,
			   rt_insn_vec *insns, uint32_t *next_id,
			   size_t first, size_t end)
{
	for (size_t i = first; i < end; i++) {
		const struct rt_insn *in = &p->insns.v[i];
		const struct rt_func *fn;
		struct rt_plan_func *pf;

		if (!(p->probes.v[i].kinds & RT_PROBE_TAIL) || !in->target ||
		    (in->cls != RT_INSN_JMP && in->cls != RT_INSN_JCC))
			continue;
		fn = jump_target(p, syms, req, in->target, 0);
		if (fn && returns_first_arg(fn)) {
			/* the memset variants may not even decode (AVX-512
			 * with capstone 4): no need to follow them */
			p->probes.v[i].kinds |= RT_PROBE_RET_ARG0;
			continue;
		}
		if (!fn || is_planned(p, fn))
			continue;
		pf = vec_push_zero(&p->funcs);
		pf->id = (*next_id)++;
		pf->fn = fn;
		pf->helper = true;
		plan_func(p, syms, pf, insns, RT_PROBE_EXIT | RT_PROBE_TAIL);
	}
}

static void add_helpers(struct rt_plan *p, const struct rt_symbols *syms,
			const struct rt_plan_request *req, rt_insn_vec *insns,
			uint32_t next_id, uint8_t *taken)
{
	size_t from = 0;

	/* a helper may itself end by a jump (memset's variants jump into
	 * each other): follow a few levels */
	for (int level = 0; level < HELPER_LEVELS && from < p->probes.n;
	     level++) {
		size_t to = p->probes.n;

		add_helpers_of(p, syms, req, insns, &next_id, from, to);
		from = to;
	}
}

static int cmp_probe(const void *a, const void *b)
{
	const struct rt_probe *x = a, *y = b;
	bool xi = x->kinds == RT_PROBE_INLINED, yi = y->kinds == RT_PROBE_INLINED;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* at one address: the function's own site first, then the inlined
	 * calls that end there, innermost first, then those that begin
	 * there, outermost first (the order rt_inlined_find() gave them) */
	if (xi != yi)
		return xi ? 1 : -1;
	if (x->inl_exit != y->inl_exit)
		return x->inl_exit ? -1 : 1;
	if (x->inl_exit && x->inl_depth != y->inl_depth)
		return x->inl_depth > y->inl_depth ? -1 : 1;
	return x->inl_at < y->inl_at ? -1 : x->inl_at > y->inl_at;
}

/* Sorts probes by address, keeping each probe's instruction with it. */
static void sort_probes(struct rt_plan *p)
{
	size_t n = p->probes.n;
	struct { struct rt_probe pr; struct rt_insn in; } *tmp;

	tmp = xmalloc(n * sizeof(*tmp) + 1);
	for (size_t i = 0; i < n; i++) {
		tmp[i].pr = p->probes.v[i];
		tmp[i].in = p->insns.v[i];
	}
	qsort(tmp, n, sizeof(*tmp), cmp_probe);
	for (size_t i = 0; i < n; i++) {
		p->probes.v[i] = tmp[i].pr;
		p->insns.v[i] = tmp[i].in;
	}
	free(tmp);
}

/* ---- inlined calls ------------------------------------------------------ */

/* Whether the allocator's calls are probed (--mem). */
static bool probes_allocator(const struct rt_plan_request *req)
{
	for (size_t i = 0; i < req->nspecial; i++)
		if (req->roles[i] >= RT_ROLE_ALLOC &&
		    req->roles[i] <= RT_ROLE_MEMALIGN)
			return true;
	return false;
}

/* Whether @f is a method of the program's #[global_allocator]: with the
 * allocator probed, the memory it hands out is its caller's, and an
 * inlined copy of it (in the allocator's shims, or wherever LLVM inlined
 * those) must not become the innermost traced call. */
static bool global_alloc_method(const struct rt_inlined_fn *f)
{
	return strstr(f->fn.name, " as core::alloc::global::GlobalAlloc>::");
}

/* Log ids of the functions with inlined instances: a selected symbol's
 * own, or a new function for those that exist only inlined. */
static void add_inlined_funcs(struct rt_plan *p,
			      const struct rt_plan_request *req)
{
	size_t n = rt_inlined_nfuncs(p->inl);
	bool mem = probes_allocator(req);

	p->inl_fn_id = xcalloc(n + 1, sizeof(*p->inl_fn_id));
	for (size_t i = 0; i < n; i++) {
		const struct rt_inlined_fn *f = rt_inlined_func(p->inl, i);
		struct rt_plan_func *pf;

		p->inl_fn_id[i] = RT_FUNC_NONE;
		if (mem && global_alloc_method(f))
			continue;
		for (size_t k = 0; f->sym >= 0 && k < req->n; k++)
			if (req->idx[k] == (size_t)f->sym)
				p->inl_fn_id[i] = req->first_id + k;
		if (f->sym >= 0)
			continue;
		pf = vec_push_zero(&p->funcs);
		pf->id = p->inl_fn_id[i] = req->first_id + p->funcs.n - 1;
		pf->fn = &f->fn;
		pf->inlined_only = true;
	}
}

/* The instruction of @insns (in address order) at @addr, or NULL. */
static const struct rt_insn *insn_at(const rt_insn_vec *insns, rt_raddr addr)
{
	size_t lo = 0, hi = insns->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (insns->v[mid].addr == addr)
			return &insns->v[mid];
		if (insns->v[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The instruction an instance's first pass runs: LLVM counts the padding
 * that aligns a loop into the instance that begins the loop, and that
 * padding runs once, the loop's first instruction each time round. */
static const struct rt_insn *past_padding(const rt_insn_vec *insns,
					  const struct rt_insn *in,
					  rt_raddr end)
{
	while (in && in->pad && in + 1 < insns->v + insns->n &&
	       in[1].addr == in->addr + in->len && in[1].addr < end)
		in++;
	return in;
}

/* The exit of instance @pi, entered at @entry, when every pass through it
 * ends at the first byte past its code, which a probe can take: a
 * breakpoint for now, like its entry.  Else the call is not timed. */
static void add_instance_exit(struct rt_plan *p, struct rt_plan_inlined *pi,
			      const rt_insn_vec *insns, rt_raddr lo,
			      rt_raddr hi)
{
	const struct rt_inlined_site *s = pi->site;
	const struct rt_insn *from = insn_at(insns, s->lo + p->bias), *at;
	size_t left = from ? insns->n - (size_t)(from - insns->v) : 0;

	if (!p->inl_exits || !s->single || !from ||
	    !rt_inlined_falls_through(from, left, s->end + p->bias, pi->addr))
		return;
	at = insn_at(insns, s->end + p->bias);
	if (!at || check_site(at))
		return;
	pi->exit = at->addr;
	add_probe(p, at, pi->id, RT_PROBE_INLINED, RT_ROLE_TRACED, lo, hi);
	vec_last(&p->probes)->inl_at = p->inlined.n - 1;
	vec_last(&p->probes)->inl_exit = true;
	vec_last(&p->probes)->inl_depth = (uint16_t)MIN(s->depth, UINT16_MAX);
	vec_last(&p->probes)->inline_why = p->inline_kinds ? RT_INLINE_INLINED
							   : RT_INLINE_OFF;
}

/* Probes one instance with a breakpoint at its entry, which must be an
 * instruction of its caller (decoded into @insns), and at its exit when
 * it has one; refusals are kept. */
/* Whether a branch of the instance's code [@in, @end) goes back to its
 * entry @in: the compiler made the call's first instruction the head of
 * a loop of the call's own (a hash table's probe loop, say), and a probe
 * there would count iterations. */
static bool loop_head(const rt_insn_vec *insns, const struct rt_insn *in,
		      rt_raddr end)
{
	for (const struct rt_insn *i = in; i < insns->v + insns->n &&
					     i->addr < end; i++)
		if ((i->cls == RT_INSN_JMP || i->cls == RT_INSN_JCC) &&
		    i->target == in->addr)
			return true;
	return false;
}

static bool backward(const struct rt_insn *i)
{
	return (i->cls == RT_INSN_JMP || i->cls == RT_INSN_JCC) &&
	       i->target && i->target <= i->addr;
}

/* The innermost loop around @addr in @insns: the backward branch whose
 * span, from its target to itself, is the shortest that holds @addr;
 * NULL when none does. */
static const struct rt_insn *loop_around(const rt_insn_vec *insns,
					 rt_raddr addr)
{
	const struct rt_insn *best = NULL;

	vec_for_each(insns, i)
		if (backward(i) && i->target <= addr && i->addr >= addr &&
		    (!best || i->addr - i->target < best->addr - best->target))
			best = i;
	return best;
}

/* Whether the instance entered at @entry, whose code is [@lo, @hi), is
 * the body of a vectorised loop: the innermost loop around its entry
 * holds no other loop (LLVM vectorises innermost loops) and holds packed
 * arithmetic of the instance's, so that one pass through the instance
 * does the work of several calls.  A vectorised loop inside the instance
 * (the function's own, or a callee's inlined in it) is no sign: the
 * instance runs once around it. */
static bool vectorised(const rt_insn_vec *insns, rt_raddr entry,
		       rt_raddr lo, rt_raddr hi)
{
	const struct rt_insn *loop = loop_around(insns, entry);
	bool packed = false;

	if (!loop)
		return false;
	vec_for_each(insns, i) {
		if (i->addr < loop->target || i->addr > loop->addr)
			continue;
		if (i != loop && backward(i) && i->target >= loop->target)
			return false;  /* a loop inside it */
		packed |= i->packed && i->addr >= lo && i->addr < hi;
	}
	return packed;
}

static void add_instance(struct rt_plan *p, const struct rt_inlined_site *s,
			 const rt_insn_vec *insns, enum rt_refusal caller_why)
{
	struct rt_plan_inlined *pi = vec_push_zero(&p->inlined);
	struct rt_plan_func *pf;
	const struct rt_insn *in;
	rt_raddr lo;

	pi->site = s;
	pi->id = p->inl_fn_id[s->fn];
	pi->addr = s->addr + p->bias;
	pf = &p->funcs.v[pi->id - p->funcs.v[0].id];
	in = caller_why ? NULL : insn_at(insns, pi->addr);
	in = past_padding(insns, in, s->end + p->bias);
	if (in)
		pi->addr = in->addr;
	pi->why = caller_why ? caller_why :
		  !in	     ? RT_REFUSE_MID_INSN :
		  loop_head(insns, in, s->end + p->bias) ? RT_REFUSE_LOOP_HEAD :
			       check_site(in);
	if (pi->why) {
		pf->ninlined_refused++;
		pf->inlined_why[pi->why]++;
		return;
	}
	pf->ninlined++;
	pi->packed = vectorised(insns, pi->addr, s->lo + p->bias,
				s->end + p->bias);
	pf->ninlined_packed += pi->packed;
	lo = s->caller->addr + p->bias;
	add_probe(p, in, pi->id, RT_PROBE_INLINED, RT_ROLE_TRACED, lo,
		  lo + s->caller->size);
	/* its rank among the instances, to keep nested ones in order */
	vec_last(&p->probes)->inl_at = p->inlined.n - 1;
	vec_last(&p->probes)->inline_why = p->inline_kinds ? RT_INLINE_INLINED
							   : RT_INLINE_OFF;
	add_instance_exit(p, pi, insns, lo, lo + s->caller->size);
}

typedef VEC(size_t) index_vec;

/* Whether [lo, hi) overlaps the bytes a patched probe of @near takes:
 * its region or its relay. */
static bool patched_near(const struct rt_plan *p, const index_vec *near,
			 rt_raddr lo, rt_raddr hi)
{
	vec_for_each(near, i) {
		const struct rt_probe *q = &p->probes.v[*i];

		if (!q->patch_len)
			continue;
		if (q->patch_lo < hi && lo < q->patch_lo + q->patch_len)
			return true;
		if (q->relay_lo && q->relay_lo < hi &&
		    lo < q->relay_lo + rt_arch_patch_len())
			return true;
	}
	return false;
}

/* Whether rtrace must see a thread stopped at the entry of any inlined
 * call that probe @pr stands for (sites [from, to) at its address). */
static bool instance_must_stop(const struct rt_plan *p, size_t from,
			       size_t to, rt_raddr addr)
{
	if (!p->must_stop)
		return false;
	for (size_t i = from; i < to; i++) {
		const struct rt_probe *pr = &p->probes.v[i];

		if (pr->addr == addr &&
		    p->must_stop(p->must_stop_ctx,
				 p->funcs.v[pr->func - p->funcs.v[0].id].fn))
			return true;
	}
	return false;
}

/* Whether the trampoline of instance site @q can record all the calls
 * beginning or ending there: at a conditional jump it records them
 * twice, so fewer fit (rt_patch_split).  Decided here, not when the
 * trampoline is built, so that -l says what a run patches. */
static bool split_fits(const struct rt_plan *p, const rt_insn_vec *insns,
		       size_t first, const struct rt_probe *q)
{
	const struct rt_insn *site = insn_at(insns, q->addr);
	size_t ninl = 0;

	for (size_t i = first; i < p->probes.n; i++)
		ninl += p->probes.v[i].addr == q->addr;
	return !site || !rt_patch_split(q, site, ninl) ||
	       ninl <= RT_PATCH_SPLIT_MAX;
}

typedef VEC(struct rt_probe) probe_vec;

/* The instance sites of @sites planned by patchsite.c that must keep a
 * breakpoint after all: their bytes or relay overlap those of a site
 * patched before (@near), a script stops there, or their trampoline
 * would not fit.  (A relay in a region that loses its jump goes with it:
 * settle_joined().) */
static void refuse_instance_sites(const struct rt_plan *p, probe_vec *sites,
				  const index_vec *near,
				  const rt_insn_vec *insns, size_t first)
{
	vec_for_each(sites, q) {
		if (q->kinds != RT_PROBE_INLINED || !q->patch_len)
			continue;
		if (patched_near(p, near, q->patch_lo,
				 q->patch_lo + q->patch_len) ||
		    (q->relay_lo &&
		     patched_near(p, near, q->relay_lo,
				  q->relay_lo + rt_arch_patch_len()))) {
			q->patch_len = 0;
			q->inline_why = RT_INLINE_OVERLAP;
		} else if (instance_must_stop(p, first, p->probes.n, q->addr)) {
			q->patch_len = 0;
			q->inline_why = RT_INLINE_ROLE;
		} else if (!split_fits(p, insns, first, q)) {
			q->patch_len = 0;
			q->inline_why = RT_INLINE_INLINED;
		}
	}
}

/* What the plan of instance site @q says, into every probe of the
 * inlined calls [first, ...) at its address. */
static void copy_instance_site(struct rt_plan *p, const struct rt_probe *q,
			       size_t first)
{
	for (size_t i = first; i < p->probes.n; i++) {
		struct rt_probe *pr = &p->probes.v[i];

		if (pr->addr != q->addr)
			continue;
		pr->patch_lo = q->patch_lo;
		pr->patch_len = q->patch_len;
		pr->patch_code = q->patch_code;
		pr->patch_how = q->patch_how;
		pr->patch_join = 0;
		pr->joined = false;
		pr->patch_hosts = q->patch_len && q->patch_hosts;
		pr->relay_lo = q->patch_len ? q->relay_lo : 0;
		pr->relay_hosted = pr->relay_lo && q->relay_hosted;
		memcpy(pr->patch_orig, q->patch_orig, sizeof(pr->patch_orig));
		pr->inline_why = q->inline_why;
	}
}

/* The jumps over the entries of the inlined calls in @caller (probes
 * [first, p->probes.n), its code decoded in @insns), planned as a
 * function's own entry is (patchsite.c), a short one hopping to a relay
 * in dead bytes (those between functions shared through the claims).  Every other
 * site in the caller is an obstacle, and so are the bytes that patched
 * sites planned before took: those are never planned again. */
static void plan_instances(struct rt_plan *p, const struct rt_func *caller,
			   const rt_insn_vec *insns, size_t first)
{
	rt_raddr lo = caller->addr + p->bias, hi = lo + caller->size;
	probe_vec sites = { 0 };
	index_vec near = { 0 };
	uint8_t *is_table;
	bool known;

	if (!p->inline_kinds || first == p->probes.n || !insns->n)
		return;
	for (size_t i = 0; i < p->probes.n; i++) {
		if (p->probes.v[i].addr < lo || p->probes.v[i].addr >= hi)
			continue;
		vec_push(&sites, p->probes.v[i]);
		if (i < first)
			vec_push(&near, i);
	}
	/* one site per address: the function's own site first, then the
	 * outermost call beginning there */
	if (!sites.n) {
		vec_free(&near);
		return;
	}
	qsort(sites.v, sites.n, sizeof(*sites.v), cmp_probe);
	{
		size_t out = 0;

		for (size_t i = 0; i < sites.n; i++)
			if (!out || sites.v[out - 1].addr != sites.v[i].addr)
				sites.v[out++] = sites.v[i];
		sites.n = out;
	}
	is_table = xcalloc(insns->n, 1);
	find_tables(p, insns, is_table, &known);
	free(is_table);
	{
		struct rt_patch_func f = {
			.insns = insns->v, .n = insns->n, .lo = lo, .hi = hi,
			.kinds = RT_PROBE_INLINED,
			.read_after = read_after, .ctx = p,
			.marks = p->targets.v, .nmarks = p->targets.n,
			.tables_known = known, .claims = &p->claims,
			.relays_inlined_only = true,
		};

		rt_patch_plan(&f, sites.v, sites.n);
	}
	refuse_instance_sites(p, &sites, &near, insns, first);
	vec_for_each(&sites, q)
		if (q->kinds == RT_PROBE_INLINED)
			copy_instance_site(p, q, first);
	vec_free(&sites);
	vec_free(&near);
}

/* Whether an entry among probes [first, n) within reach of a jump at @at
 * lost its own jump to another site's bytes. */
static bool near_stopped_entry(const struct rt_plan *p, size_t first,
			       rt_raddr at)
{
	for (size_t i = first; i < p->probes.n; i++) {
		const struct rt_probe *q = &p->probes.v[i];

		if (!q->inl_exit && !q->patch_len &&
		    q->inline_why == RT_INLINE_OVERLAP &&
		    q->addr + RT_PATCH_MAX > at && at + RT_PATCH_MAX > q->addr)
			return true;
	}
	return false;
}

/* With the inline engine, the end of an inlined call is probed by a jump
 * or not at all, and never at the cost of an entry's jump: a breakpoint
 * there would stop the program at each call that costs no stop to count
 * (a count matters more than a time; the call is then not timed).  Drops
 * the ends among probes [first, n) that are breakpoints (@all: every
 * one), or lie near an entry that another site's bytes made one; returns
 * how many. */
static size_t drop_costly_ends(struct rt_plan *p, size_t first, bool all)
{
	size_t out = first, dropped = 0;

	for (size_t i = first; i < p->probes.n; i++) {
		const struct rt_probe *pr = &p->probes.v[i];

		if (pr->inl_exit && (all || !pr->patch_len ||
				     near_stopped_entry(p, first, pr->addr))) {
			p->inlined.v[pr->inl_at].exit = 0;
			dropped++;
			continue;
		}
		p->probes.v[out] = *pr;
		p->insns.v[out++] = p->insns.v[i];
	}
	p->probes.n = p->insns.n = out;
	return dropped;
}

#define END_REPLANS 3

/* The jumps over the entries and ends of the inlined calls in @caller,
 * planned again without the ends that cost a stop, until none does (or,
 * after a few rounds, without any end). */
static void plan_caller(struct rt_plan *p, const struct rt_func *caller,
			const rt_insn_vec *insns, size_t first)
{
	plan_instances(p, caller, insns, first);
	for (int round = 0; p->inline_kinds; round++) {
		if (!drop_costly_ends(p, first, round == END_REPLANS))
			return;
		plan_instances(p, caller, insns, first);
	}
}

/* A breakpoint, or a jump where the rules allow, at the entry of every
 * inlined instance.  Instances are in address order, so each caller is
 * decoded once. */
static void add_instances(struct rt_plan *p, const struct rt_symbols *syms,
			  rt_insn_vec *insns)
{
	const struct rt_func *decoded = NULL;
	struct rt_plan_func caller = { 0 };
	size_t first = p->probes.n;

	for (size_t i = 0; i < rt_inlined_nsites(p->inl); i++) {
		const struct rt_inlined_site *s = rt_inlined_site(p->inl, i);

		if (p->inl_fn_id[s->fn] == RT_FUNC_NONE)
			continue;
		if (s->caller && s->caller != decoded) {
			if (decoded && !caller.why)
				plan_caller(p, decoded, insns, first);
			first = p->probes.n;
			caller = (struct rt_plan_func){ .fn = s->caller };
			decode_func(syms, s->caller, p->bias, insns, &caller);
			decoded = s->caller;
		}
		add_instance(p, s, insns,
			     s->caller ? caller.why : RT_REFUSE_NO_CODE);
	}
	if (decoded && !caller.why)
		plan_caller(p, decoded, insns, first);
	/* an inlined-only function none of whose instances could be
	 * probed is refused, with the first instance's reason */
	vec_for_each(&p->funcs, pf) {
		if (!pf->inlined_only || pf->ninlined)
			continue;
		vec_for_each(&p->inlined, pi)
			if (pi->id == pf->id && !pf->why) {
				pf->why = pi->why ? pi->why : RT_REFUSE_NO_CODE;
				pf->why_at = pi->addr;
			}
		if (!pf->why)
			pf->why = RT_REFUSE_NO_CODE;
	}
}

/* One probe per address: the inlined calls that begin where another
 * site is join it (one breakpoint, every event), and their ids go to the
 * plan's list.  Probes must be sorted. */
static void merge_instances(struct rt_plan *p)
{
	size_t out = 0;

	for (size_t i = 0; i < p->probes.n; i++) {
		struct rt_probe *pr = &p->probes.v[i];
		struct rt_probe *base = out ? &p->probes.v[out - 1] : NULL;

		if (pr->kinds == RT_PROBE_INLINED) {
			if (!base || base->addr != pr->addr) {
				base = &p->probes.v[out];
				*base = *pr;
				p->insns.v[out++] = p->insns.v[i];
				base->kinds = 0;
			}
			const struct rt_plan_inlined *pi =
				&p->inlined.v[pr->inl_at];

			if (!(base->kinds & RT_PROBE_INLINED)) {
				/* the site's jump, if any, records the calls
				 * too; a tiny function's region records its
				 * entry and exit only */
				if (base->joined || base->patch_join) {
					base->patch_len = 0;
					base->joined = false;
					base->inline_why = RT_INLINE_INLINED;
				}
				base->kinds |= RT_PROBE_INLINED;
				base->inl_at = p->inl_recs.n;
				base->ninl = 0;
			}
			vec_push(&p->inl_recs, ((struct rt_inl_rec){
				.func = pr->func,
				.kind = pr->inl_exit ? RT_EV_EXIT : RT_EV_ENTRY,
				.flags = RT_EVF_INLINED |
					 (!pr->inl_exit && pi->exit ?
						  RT_EVF_TIMED : 0),
				.value = pi->addr,
			}));
			base->ninl++;
			continue;
		}
		p->probes.v[out] = *pr;
		p->insns.v[out++] = p->insns.v[i];
	}
	p->probes.n = p->insns.n = out;
}

/* A jump patched over an instance's entry, other than the jump of the
 * site there (whose trampoline records the calls), would hide its
 * breakpoint (or be torn by it): such a site keeps a breakpoint.  Probes
 * sorted. */
static void guard_patches(struct rt_plan *p)
{
	size_t j = 0;

	vec_for_each(&p->probes, pr) {
		if (!(pr->kinds & RT_PROBE_INLINED))
			continue;
		/* patched regions lie within a few bytes of their site */
		while (j < p->probes.n &&
		       p->probes.v[j].addr + RT_PATCH_MAX < pr->addr)
			j++;
		for (size_t k = j; k < p->probes.n &&
				   p->probes.v[k].addr <= pr->addr + RT_PATCH_MAX;
		     k++) {
			struct rt_probe *q = &p->probes.v[k];

			if (q != pr && q->patch_len && pr->addr >= q->patch_lo &&
			    pr->addr < q->patch_lo + q->patch_len) {
				q->patch_len = 0;
				q->inline_why = RT_INLINE_INLINED;
			}
		}
	}
}

/* The probe whose region joins probe @i (a tiny function's return), or
 * NULL.  Probes sorted: it lies a few bytes before. */
static const struct rt_probe *joined_owner(const struct rt_plan *p, size_t i)
{
	rt_raddr at = p->probes.v[i].addr;

	for (size_t k = i; k-- > 0 && p->probes.v[k].addr + RT_PATCH_MAX > at;) {
		const struct rt_probe *q = &p->probes.v[k];

		if (q->patch_join && q->patch_lo + q->patch_join == at)
			return q;
	}
	return NULL;
}

/* Whether a patched region other than @pr's holds its relay. */
static bool relay_host_patched(const struct rt_plan *p,
			       const struct rt_probe *pr)
{
	vec_for_each(&p->probes, q)
		if (q != pr && q->patch_len && q->patch_hosts &&
		    pr->relay_lo >= q->patch_lo &&
		    pr->relay_lo < q->patch_lo + q->patch_len)
			return true;
	return false;
}

/* A joined probe whose covering region lost its jump is a breakpoint
 * again, for the same reason; so is a probe whose relay was in the bytes
 * of a region that did. */
static void settle_joined(struct rt_plan *p)
{
	vec_for_each(&p->probes, pr) {
		if (pr->patch_len && pr->relay_hosted &&
		    !relay_host_patched(p, pr)) {
			pr->patch_len = 0;
			pr->inline_why = RT_INLINE_OVERLAP;
		}
	}
	for (size_t i = 0; i < p->probes.n; i++) {
		struct rt_probe *pr = &p->probes.v[i];
		const struct rt_probe *owner;

		if (!pr->joined)
			continue;
		owner = joined_owner(p, i);
		if (owner && owner->patch_len)
			continue;
		pr->joined = false;
		pr->inline_why = owner ? owner->inline_why : RT_INLINE_OVERLAP;
	}
}

static void plan_inlined(struct rt_plan *p, const struct rt_symbols *syms,
			 rt_insn_vec *insns)
{
	if (!p->inl)
		return;
	add_instances(p, syms, insns);
	zfree(&p->inl_fn_id);
}

static void build_hash(struct rt_plan *p)
{
	size_t cap = 16;

	while (cap < p->probes.n * 2)
		cap *= 2;
	free(p->hash);
	p->hash = xcalloc(cap, sizeof(*p->hash));
	p->hmask = cap - 1;
	for (size_t i = 0; i < p->probes.n; i++) {
		size_t h = hash64(p->probes.v[i].addr) & p->hmask;

		while (p->hash[h])
			h = (h + 1) & p->hmask;
		p->hash[h] = i + 1;
	}
}

static void set_role(struct rt_plan *p, struct rt_plan_func *f, uint8_t role)
{
	f->role = role;
	vec_for_each(&p->probes, pr)
		if (pr->func == f->id)
			pr->role = role;
}

/* The sites a function probed for @role needs: an allocator's results
 * are needed, a hook's entry is enough. */
static unsigned role_kinds(uint8_t role)
{
	switch (role) {
	case RT_ROLE_MODULES:
	case RT_ROLE_SIGACTION:
	case RT_ROLE_SIGMASK:
		return RT_PROBE_ENTRY;
	default:
		return RT_PROBE_ENTRY | RT_PROBE_EXIT | RT_PROBE_TAIL;
	}
}

/* Functions probed for a role of their own: the memory allocator's entry
 * points (entries, exits and tail jumps: their results are needed), the
 * dynamic linker's hook and libc's signal calls (entry only).  One
 * already selected takes the role too. */
static void add_special(struct rt_plan *p, const struct rt_symbols *syms,
			const struct rt_plan_request *req, rt_insn_vec *insns,
			uint8_t *taken)
{
	for (size_t i = 0; i < req->nspecial; i++) {
		const struct rt_func *fn = rt_symbols_func(syms, req->special[i]);
		struct rt_plan_func *pf;

		if (taken[req->special[i]]) {
			vec_for_each(&p->funcs, f)
				if (f->fn == fn)
					set_role(p, f, req->roles[i]);
			continue;
		}
		taken[req->special[i]] = 1;
		pf = vec_push_zero(&p->funcs);
		pf->id = req->first_id + p->funcs.n - 1;
		pf->fn = fn;
		pf->role = req->roles[i];
		plan_func(p, syms, pf, insns, role_kinds(pf->role));
	}
}

/* Functions whose entries are watched without being counted (to name a
 * libtest thread after the test it runs). */
static void add_watched(struct rt_plan *p, const struct rt_symbols *syms,
			const struct rt_plan_request *req, rt_insn_vec *insns,
			uint8_t *taken)
{
	for (size_t i = 0; i < req->nwatch; i++) {
		struct rt_plan_func *pf;

		if (taken[req->watch[i]])
			continue;
		taken[req->watch[i]] = 1;
		pf = vec_push_zero(&p->funcs);
		pf->id = req->first_id + p->funcs.n - 1;
		pf->fn = rt_symbols_func(syms, req->watch[i]);
		pf->helper = true;
		plan_func(p, syms, pf, insns, RT_PROBE_ENTRY);
	}
}

int rt_plan_new(const struct rt_symbols *syms,
		const struct rt_plan_request *req, struct rt_plan **out)
{
	struct rt_plan *p = xcalloc(1, sizeof(*p));
	uint8_t *taken = xcalloc(rt_symbols_count(syms) + 1, 1);
	rt_insn_vec insns = { 0 };

	unsigned kinds = req->kinds ? req->kinds : RT_PROBE_ENTRY |
							   RT_PROBE_EXIT |
							   RT_PROBE_TAIL;

	p->refs = 1;
	p->bias = req->bias;
	p->syms = syms;
	p->inline_kinds = req->inline_kinds;
	p->must_stop = req->must_stop;
	p->must_stop_ctx = req->must_stop_ctx;
	p->inl = req->inlined;
	p->inl_exits = kinds & RT_PROBE_EXIT;
	for (size_t i = 0; i < req->n; i++) {
		struct rt_plan_func *pf = vec_push_zero(&p->funcs);

		pf->id = req->first_id + i;
		pf->fn = rt_symbols_func(syms, req->idx[i]);
		taken[req->idx[i]] = 1;
		plan_func(p, syms, pf, &insns, kinds);
		if (pf->why)
			pr_dbg("%s: not probed: %s at %" PRIxRADDR, pf->fn->name,
			       rt_refusal_str(pf->why), pf->why_at);
	}
	if (p->inl)
		add_inlined_funcs(p, req);
	add_special(p, syms, req, &insns, taken);
	add_helpers(p, syms, req, &insns, req->first_id + p->funcs.n, taken);
	add_watched(p, syms, req, &insns, taken);
	plan_inlined(p, syms, &insns);
	vec_free(&p->claims);
	free(taken);
	vec_free(&insns);
	sort_probes(p);
	merge_instances(p);
	guard_patches(p);
	settle_joined(p);
	build_hash(p);
	p->syms = NULL;
	pr_dbg("%zu functions, %zu probes", p->funcs.n, p->probes.n);
	*out = p;
	return 0;
}

struct rt_plan *rt_plan_get(struct rt_plan *p)
{
	p->refs++;
	return p;
}

void rt_plan_put(struct rt_plan *p)
{
	if (!p || --p->refs > 0)
		return;
	vec_free(&p->probes);
	vec_free(&p->insns);
	vec_free(&p->funcs);
	vec_free(&p->code);
	vec_free(&p->targets);
	vec_free(&p->inlined);
	vec_free(&p->inl_recs);
	free(p->inl_fn_id);
	rt_inlined_free(p->inl);
	free(p->hash);
	free(p);
}

size_t rt_plan_scratch_size(const struct rt_plan *p)
{
	size_t tlen, blen;
	size_t patched = 0, resumes = 0;

	rt_arch_trap_bytes(&tlen);
	rt_arch_calib_exit(&blen);
	vec_for_each(&p->probes, pr) {
		patched += pr->patch_len != 0;
		resumes += pr->kinds == RT_PROBE_ENTRY;
	}
	return ALIGN_UP(p->probes.n * RT_ARCH_SLOT_MAX +
				RT_PLAN_CALIB_STOPS * tlen + blen +
				(patched ? (patched + resumes) *
							   RT_ARCH_TRAMP_MAX +
						   rt_arch_recorder()->len +
						   RT_PLAN_REC_ALIGN
					 : 0) + 1, 4096);
}

static struct rt_plan_func *plan_func_of(struct rt_plan *p, uint32_t id)
{
	uint32_t first = p->funcs.n ? p->funcs.v[0].id : 0;

	return &p->funcs.v[id - first];
}

/* Drops the probes of functions refused while placing slots. */
static void drop_refused(struct rt_plan *p)
{
	size_t out = 0;

	for (size_t i = 0; i < p->probes.n; i++) {
		if (plan_func_of(p, p->probes.v[i].func)->why)
			continue;
		p->probes.v[out] = p->probes.v[i];
		p->insns.v[out++] = p->insns.v[i];
	}
	p->probes.n = p->insns.n = out;
}

static void place_calib(struct rt_plan *p)
{
	size_t tlen;
	const uint8_t *trap = rt_arch_trap_bytes(&tlen);

	const uint8_t *back;
	size_t blen;

	p->calib = p->base + p->code.n;
	for (int i = 0; i < RT_PLAN_CALIB_STOPS; i++) {
		memcpy(p->code.v + p->code.n, trap, tlen);
		p->code.n += tlen;
	}
	back = rt_arch_calib_exit(&blen);
	memcpy(p->code.v + p->code.n, back, blen);
	p->code.n += blen;
}

/* The recorder, after everything else: the tracer writes its data block,
 * at its end, once the process's event area exists. */
static void place_recorder(struct rt_plan *p)
{
	const struct rt_recorder *rec = rt_arch_recorder();
	size_t at = p->recorder - p->base, tlen;
	const uint8_t *trap = rt_arch_trap_bytes(&tlen);

	/* the gap is never run: breakpoints, should anything land there */
	for (size_t i = p->code.n; i < at; i++)
		p->code.v[i] = trap[(i - p->code.n) % tlen];
	p->code.n = at;
	memcpy(p->code.v + p->code.n, rec->code, rec->len);
	p->code.n += rec->len;
}

/* Resume trampolines for the entries that keep a breakpoint, once the
 * patched sites are known: one that cannot be built leaves the entry to be
 * recorded at its stop. */
static void place_resume_tramps(struct rt_plan *p)
{
	vec_for_each(&p->probes, pr) {
		struct rt_tramp_spec t;
		rt_raddr at = p->base + p->code.n;
		size_t len;

		pr->resume_tramp = 0;
		if (!rt_patch_resume_fits(pr))
			continue;
		rt_patch_resume_tramp(pr, &t);
		if (rt_arch_tramp_build(&t, at, p->recorder,
					p->code.v + p->code.n, &len))
			continue;
		pr->resume_tramp = at;
		p->code.n += len;
	}
}

/* Builds each patched site's trampoline; a site whose trampoline cannot
 * be built, or reached, keeps its breakpoint. */
static void place_tramps(struct rt_plan *p)
{
	rt_insn_vec insns = { 0 };
	size_t npatched = 0;
	uint8_t jump[16];

	vec_for_each(&p->probes, pr)
		npatched += pr->patch_len != 0 || pr->kinds == RT_PROBE_ENTRY;
	if (!rt_plan_npatched(p))
		return;
	/* trampolines go before the recorder, which must stay in reach */
	p->recorder = p->ext_recorder ? p->ext_recorder :
			ALIGN_UP(p->base + p->code.n +
					 npatched * RT_ARCH_TRAMP_MAX,
				 RT_PLAN_REC_ALIGN);
	vec_for_each(&p->probes, pr) {
		struct rt_tramp_spec t;
		rt_raddr at = p->base + p->code.n;
		size_t len;

		if (!pr->patch_len)
			continue;
		size_t ninl;
		const struct rt_inl_rec *inl = rt_plan_inlined_recs(p, pr,
								    &ninl);
		int err = rt_patch_tramp(pr, inl, ninl, &insns, &t);

		if (err) {
			pr->inline_why = err == -E2BIG ? RT_INLINE_INLINED
						       : RT_INLINE_INSN;
		} else if (rt_arch_tramp_build(&t, at, p->recorder,
					       p->code.v + p->code.n, &len) ||
			   !rt_arch_patch_jump(pr->relay_lo ? pr->relay_lo
							    : pr->patch_lo,
					       at, jump)) {
			pr->inline_why = RT_INLINE_REACH;
		} else {
			pr->tramp = at;
			p->code.n += len;
			continue;
		}
		pr->patch_len = 0;
	}
	vec_free(&insns);
	settle_joined(p);
	place_resume_tramps(p);
	if (!p->ext_recorder)
		place_recorder(p);
}

int rt_plan_place(struct rt_plan *p, rt_raddr base)
{
	bool refused = false;

	p->base = base;
	p->code.n = 0;
	vec_reserve(&p->code, rt_plan_scratch_size(p));
	for (size_t i = 0; i < p->probes.n; i++) {
		struct rt_probe *pr = &p->probes.v[i];
		rt_raddr slot = base + p->code.n;
		enum rt_refusal why;

		why = rt_arch_plan_resume(&p->insns.v[i], slot,
					  p->code.v + p->code.n, &pr->res);
		if (why) {
			struct rt_plan_func *pf = plan_func_of(p, pr->func);

			pf->why = why;
			pf->why_at = pr->addr;
			refused = true;
			continue;
		}
		if (pr->res.kind == RT_RESUME_SLOT)
			p->code.n += pr->res.slot_len;
	}
	if (refused) {
		drop_refused(p);
		build_hash(p);
	}
	place_calib(p);
	place_tramps(p);
	return 0;
}

static bool inside_patch(const struct rt_probe *pr, rt_raddr ip)
{
	return pr->patch_len && ip > pr->patch_lo &&
	       ip < pr->patch_lo + pr->patch_len;
}

bool rt_plan_inside(const struct rt_plan *p, rt_raddr ip)
{
	vec_for_each(&p->probes, pr)
		if (inside_patch(pr, ip))
			return true;
	return false;
}

void rt_plan_avoid(struct rt_plan *p, const rt_raddr *ips, size_t n)
{
	vec_for_each(&p->probes, pr) {
		for (size_t i = 0; pr->patch_len && i < n; i++) {
			if (inside_patch(pr, ips[i])) {
				pr->patch_len = 0;
				pr->inline_why = RT_INLINE_THREAD;
			}
		}
	}
	settle_joined(p);
}

rt_raddr rt_plan_relay_exit(const struct rt_plan *p, rt_raddr ip)
{
	for (size_t i = 0; ip && i < p->probes.n; i++) {
		const struct rt_probe *pr = &p->probes.v[i];

		if (!pr->patch_len || pr->relay_lo != ip)
			continue;
		/* a re-aimed branch that got there was taken */
		return pr->patch_how == RT_PATCH_RETARGET ? p->insns.v[i].target
							  : pr->patch_lo;
	}
	return 0;
}

rt_raddr rt_plan_recorder(const struct rt_plan *p)
{
	return p->recorder;
}

void rt_plan_use_recorder(struct rt_plan *p, rt_raddr recorder)
{
	p->ext_recorder = recorder;
}

size_t rt_plan_npatched(const struct rt_plan *p)
{
	size_t n = 0;

	vec_for_each(&p->probes, pr)
		n += pr->patch_len != 0;
	return n;
}

rt_raddr rt_plan_calib_addr(const struct rt_plan *p)
{
	return p->calib;
}

const uint8_t *rt_plan_scratch_code(const struct rt_plan *p, size_t *len)
{
	*len = p->code.n;
	return p->code.v;
}

rt_raddr rt_plan_scratch_base(const struct rt_plan *p)
{
	return p->base;
}

size_t rt_plan_nprobes(const struct rt_plan *p)
{
	return p->probes.n;
}

const struct rt_probe *rt_plan_probe(const struct rt_plan *p, size_t i)
{
	return &p->probes.v[i];
}

size_t rt_plan_probe_index(const struct rt_plan *p, const struct rt_probe *pr)
{
	return pr - p->probes.v;
}

const struct rt_probe *rt_plan_lookup(const struct rt_plan *p, rt_raddr addr)
{
	size_t h = hash64(addr) & p->hmask;

	for (;;) {
		uint32_t i = p->hash[h];

		if (!i)
			return NULL;
		if (p->probes.v[i - 1].addr == addr)
			return &p->probes.v[i - 1];
		h = (h + 1) & p->hmask;
	}
}

size_t rt_plan_nfuncs(const struct rt_plan *p)
{
	return p->funcs.n;
}

const struct rt_plan_func *rt_plan_func(const struct rt_plan *p, size_t i)
{
	return &p->funcs.v[i];
}

const struct rt_plan_func *rt_plan_func_by_id(const struct rt_plan *p,
					      uint32_t id)
{
	uint32_t first = p->funcs.n ? p->funcs.v[0].id : 0;

	return id >= first && id - first < p->funcs.n ? &p->funcs.v[id - first]
						      : NULL;
}

const struct rt_inl_rec *rt_plan_inlined_recs(const struct rt_plan *p,
					      const struct rt_probe *pr,
					      size_t *n)
{
	*n = pr->kinds & RT_PROBE_INLINED ? pr->ninl : 0;
	return *n ? p->inl_recs.v + pr->inl_at : NULL;
}

size_t rt_plan_ninlined(const struct rt_plan *p)
{
	return p->inlined.n;
}

const struct rt_plan_inlined *rt_plan_inlined(const struct rt_plan *p,
					      size_t i)
{
	return &p->inlined.v[i];
}

rt_raddr rt_plan_bias(const struct rt_plan *p)
{
	return p->bias;
}
