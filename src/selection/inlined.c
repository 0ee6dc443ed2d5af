// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Inlined instances from DWARF.  Every DW_TAG_inlined_subroutine names its
 * function through DW_AT_abstract_origin; rustc gives that DIE the symbol's
 * linkage name, so an instance is tied to the out-of-line copy of its
 * function when there is one (same raw name), and otherwise demangled and
 * matched like a symbol.  rustc emits the abstract DIE of a function once
 * per codegen unit that inlines it: functions are merged by linkage name.
 *
 * One pass over every DIE of every compilation unit: a Rust binary holds
 * std's DWARF too (tens of thousands of instances), so each abstract
 * origin is classified once, by its DIE offset.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "inlined"
#define PR_DOMAIN RT_DOM_SYMBOLS
#include "rtrace/demangle.h"
#include "rtrace/hashidx.h"
#include "rtrace/inlined.h"
#include "rtrace/log.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

/* An abstract origin already classified: its function, or none. */
struct origin {
	uint64_t off;            /* of the abstract origin's DIE */
	int32_t fn;              /* index in funcs, or -1: not selected */
};

struct rt_inlined {
	VEC(struct rt_inlined_fn) funcs;
	VEC(struct rt_inlined_site) sites;
};

/* What the walk needs besides the table it fills. */
struct walk {
	struct rt_inlined *in;
	const struct rt_symbols *syms;
	struct rt_matcher *m;
	uint64_t bias;
	const char **raw_sorted;  /* raw names of the symbols, sorted */
	size_t *raw_idx;          /* their symbol indexes */
	size_t nraw;
	const bool *selected;     /* by symbol index */
	VEC(struct origin) seen;  /* the origins classified so far */
	struct rt_hashidx seen_index;  /* seen by DIE offset */
	struct rt_hashidx by_raw; /* in->funcs by linkage name */
	Dwarf_Files *files;       /* of the current unit, or NULL */
	rt_raddr text_lo, text_hi;  /* where code is */
};

static int cmp_raw(const void *a, const void *b, void *names)
{
	const char *const *raw = names;

	return strcmp(raw[*(const size_t *)a], raw[*(const size_t *)b]);
}

/* Symbol raw names sorted, to find the out-of-line copy of an origin. */
static void index_symbols(struct walk *w)
{
	size_t n = rt_symbols_count(w->syms);
	const char **raw = xmalloc((n + 1) * sizeof(*raw));

	w->raw_idx = xmalloc((n + 1) * sizeof(*w->raw_idx));
	for (size_t i = 0; i < n; i++) {
		raw[i] = rt_symbols_func(w->syms, i)->raw;
		w->raw_idx[i] = i;
	}
	qsort_r(w->raw_idx, n, sizeof(*w->raw_idx), cmp_raw, raw);
	w->raw_sorted = xmalloc((n + 1) * sizeof(*w->raw_sorted));
	for (size_t i = 0; i < n; i++)
		w->raw_sorted[i] = raw[w->raw_idx[i]];
	free(raw);
	w->nraw = n;
}

/* Index of the symbol whose raw name is @raw, or -1. */
static long symbol_named(const struct walk *w, const char *raw)
{
	size_t lo = 0, hi = w->nraw;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(w->raw_sorted[mid], raw);

		if (!c)
			return (long)w->raw_idx[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static bool seen_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct walk *w = ctx;

	return w->seen.v[pos].off == *(const uint64_t *)key;
}

static bool raw_is(const void *ctx, uint32_t pos, const void *key)
{
	const struct walk *w = ctx;

	return strcmp(w->in->funcs.v[pos].fn.raw, key) == 0;
}

/* The function of linkage name @raw already in the table, or -1.  A unit
 * per crate inlines the same functions: the names are looked up once per
 * unit each. */
static int32_t func_by_raw(const struct walk *w, const char *raw)
{
	uint32_t at = rt_hashidx_find(&w->by_raw, rt_hash_str(raw), raw_is,
				      w, raw);

	return at == RT_HASHIDX_NONE ? -1 : (int32_t)at;
}

static int32_t add_func(struct walk *w, Dwarf_Die *origin, const char *raw,
			long sym, char *name)
{
	struct rt_inlined_fn *f = vec_push_zero(&w->in->funcs);
	const char *file = dwarf_decl_file(origin);
	int line = 0;

	f->sym = sym;
	f->fn.raw = xstrdup(raw);
	f->fn.name = name;
	if (sym >= 0) {
		f->fn.addr = rt_symbols_func(w->syms, sym)->addr;
		f->fn.size = rt_symbols_func(w->syms, sym)->size;
	}
	f->fn.file = file ? xstrdup(file) : NULL;
	if (dwarf_decl_line(origin, &line) == 0)
		f->fn.line = (unsigned)line;
	rt_hashidx_add(&w->by_raw, rt_hash_str(raw),
		       (uint32_t)w->in->funcs.n - 1);
	return (int32_t)(w->in->funcs.n - 1);
}

/* The selected function an abstract origin stands for, or -1. */
static int32_t classify(struct walk *w, Dwarf_Die *origin)
{
	Dwarf_Attribute at;
	const char *raw = dwarf_formstring(
		dwarf_attr_integrate(origin, DW_AT_linkage_name, &at));
	long sym;
	int32_t fn;
	char *name;

	if (!raw)
		raw = dwarf_formstring(dwarf_attr_integrate(
			origin, DW_AT_MIPS_linkage_name, &at));
	if (!raw)
		return -1;  /* no name the patterns could select */
	fn = func_by_raw(w, raw);
	if (fn >= 0)
		return fn;
	sym = symbol_named(w, raw);
	if (sym >= 0)
		return w->selected[sym] ?
			       add_func(w, origin, raw, sym,
					xstrdup(rt_symbols_func(w->syms, sym)
							->name)) :
			       -1;
	name = rt_demangle(raw);
	if (!rt_matcher_select(w->m, name, raw)) {
		free(name);
		return -1;
	}
	return add_func(w, origin, raw, -1, name);
}

static int32_t origin_func(struct walk *w, Dwarf_Die *die)
{
	Dwarf_Attribute at;
	Dwarf_Die origin;
	uint64_t off, h;
	uint32_t pos;
	int32_t fn;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &at) ||
	    !dwarf_formref_die(&at, &origin))
		return -1;
	off = dwarf_dieoffset(&origin);
	h = rt_hash_u64(off);
	pos = rt_hashidx_find(&w->seen_index, h, seen_is, w, &off);
	if (pos != RT_HASHIDX_NONE)
		return w->seen.v[pos].fn;
	fn = classify(w, &origin);
	vec_push(&w->seen, ((struct origin){ off, fn }));
	rt_hashidx_add(&w->seen_index, h, (uint32_t)w->seen.n - 1);
	return fn;
}

/* Where an instance begins: DW_AT_entry_pc, else DW_AT_low_pc, else the
 * low end of its first range; [*lo, *end) is the range holding it, and
 * *single says whether it has no other.  0 or -ENOENT. */
static int entry_of(Dwarf_Die *die, Dwarf_Addr *addr, Dwarf_Addr *lo,
		    Dwarf_Addr *end, bool *single)
{
	Dwarf_Addr base, start, stop;
	ptrdiff_t off = 0;
	bool have = dwarf_entrypc(die, addr) == 0;
	unsigned nranges = 0;

	*lo = *end = 0;
	while ((off = dwarf_ranges(die, off, &base, &start, &stop)) > 0) {
		nranges++;
		if (!have) {
			*addr = start;
			have = true;
		}
		if (!*end && *addr >= start && *addr < stop) {
			*lo = start;
			*end = stop;
		}
	}
	*single = nranges == 1 && *end;
	if (have && !*end) {
		*lo = *addr;
		*end = *addr + 1;
	}
	return have ? 0 : -ENOENT;
}

static void add_site(struct walk *w, Dwarf_Die *die, int32_t fn,
		     unsigned depth)
{
	struct rt_inlined_site *s;
	Dwarf_Attribute at;
	Dwarf_Addr addr, lo, end;
	Dwarf_Word file = 0, line = 0;
	bool single;

	/* the linker drops the code of unused functions and leaves their
	 * DWARF, with addresses of 0 (or -1, -2) */
	if (entry_of(die, &addr, &lo, &end, &single) ||
	    addr + w->bias < w->text_lo ||
	    addr + w->bias >= w->text_hi)
		return;
	s = vec_push_zero(&w->in->sites);
	s->addr = addr + w->bias;
	s->lo = lo + w->bias;
	s->end = end + w->bias;
	s->single = single;
	s->fn = (uint32_t)fn;
	s->depth = depth;
	s->caller = rt_symbols_lookup(w->syms, s->addr);
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &at), &line) == 0)
		s->call_line = (unsigned)line;
	if (w->files &&
	    dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &at), &file) == 0)
		s->call_file = dwarf_filesrc(w->files, file, NULL, NULL);
}

/* Whether the children of a DIE tagged @tag can hold code: inlined
 * instances are in functions (and their blocks and instances), which are
 * in namespaces.  Types, the bulk of a Rust unit's DIEs, are skipped. */
static bool may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_subprogram:
	case DW_TAG_lexical_block:
	case DW_TAG_inlined_subroutine:
		return true;
	default:
		return false;
	}
}

/* Every instance below @parent, nested ones included; @depth counts the
 * instances around them. */
static void walk_children(struct walk *w, Dwarf_Die *parent, unsigned depth)
{
	Dwarf_Die die;

	if (dwarf_child(parent, &die) != 0)
		return;
	do {
		int tag = dwarf_tag(&die);
		int32_t fn;

		if (tag == DW_TAG_inlined_subroutine &&
		    (fn = origin_func(w, &die)) >= 0)
			add_site(w, &die, fn, depth);
		if (may_hold_code(tag) && dwarf_haschildren(&die))
			walk_children(w, &die, depth + (tag ==
						DW_TAG_inlined_subroutine));
	} while (dwarf_siblingof(&die, &die) == 0);
}

static void walk_units(struct walk *w, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hlen;

	while (dwarf_nextcu(dw, off, &next, &hlen, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		size_t nfiles;

		if (dwarf_offdie(dw, off + hlen, &cu)) {
			if (dwarf_getsrcfiles(&cu, &w->files, &nfiles) != 0)
				w->files = NULL;
			walk_children(w, &cu, 0);
		}
		off = next;
	}
}

/* Drops the functions left without an instance (all discarded by the
 * linker), renumbering the sites' references. */
static void drop_empty(struct rt_inlined *in)
{
	uint32_t *map = xcalloc(in->funcs.n + 1, sizeof(*map));
	size_t out = 0;

	vec_for_each(&in->sites, s)
		map[s->fn] = 1;
	for (size_t i = 0; i < in->funcs.n; i++) {
		struct rt_inlined_fn *f = &in->funcs.v[i];

		if (!map[i]) {
			free((char *)f->fn.raw);
			free((char *)f->fn.name);
			free((char *)f->fn.file);
			continue;
		}
		map[i] = (uint32_t)out;
		in->funcs.v[out++] = *f;
	}
	in->funcs.n = out;
	vec_for_each(&in->sites, s)
		s->fn = map[s->fn];
	free(map);
}

static int cmp_site(const void *a, const void *b)
{
	const struct rt_inlined_site *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->fn < y->fn ? -1 : x->fn > y->fn;
}

int rt_inlined_find(const struct rt_symbols *syms, struct rt_matcher *m,
		    const size_t *idx, size_t n, struct rt_inlined **out)
{
	struct rt_inlined *in = xcalloc(1, sizeof(*in));
	bool *selected = xcalloc(rt_symbols_count(syms) + 1, 1);
	struct walk w = { .in = in, .syms = syms, .m = m, .selected = selected };
	Dwarf *dw = rt_symbols_dwarf(syms, &w.bias);

	for (size_t i = 0; i < n; i++)
		selected[idx[i]] = true;
	if (dw) {
		rt_symbols_text_range(syms, &w.text_lo, &w.text_hi);
		index_symbols(&w);
		walk_units(&w, dw);
		drop_empty(in);
		if (in->sites.n)  /* qsort wants storage even for none */
			qsort(in->sites.v, in->sites.n, sizeof(*in->sites.v),
			      cmp_site);
	}
	pr_dbg("%zu inlined functions selected, %zu instances", in->funcs.n,
	       in->sites.n);
	free(w.raw_sorted);
	free(w.raw_idx);
	vec_free(&w.seen);
	rt_hashidx_free(&w.seen_index);
	rt_hashidx_free(&w.by_raw);
	free(selected);
	*out = in;
	return 0;
}

void rt_inlined_free(struct rt_inlined *in)
{
	if (!in)
		return;
	vec_for_each(&in->funcs, f) {
		free((char *)f->fn.raw);
		free((char *)f->fn.name);
		free((char *)f->fn.file);
	}
	vec_free(&in->funcs);
	vec_free(&in->sites);
	free(in);
}

size_t rt_inlined_nfuncs(const struct rt_inlined *in)
{
	return in ? in->funcs.n : 0;
}

const struct rt_inlined_fn *rt_inlined_func(const struct rt_inlined *in,
					    size_t i)
{
	return &in->funcs.v[i];
}

size_t rt_inlined_nsites(const struct rt_inlined *in)
{
	return in ? in->sites.n : 0;
}

const struct rt_inlined_site *rt_inlined_site(const struct rt_inlined *in,
					      size_t i)
{
	return &in->sites.v[i];
}
