// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where the inline engine may put a jump instead of a breakpoint.
 *
 * A jump takes rt_arch_patch_len() bytes; a breakpoint one.  The bytes a
 * jump covers beyond the site's own instruction must be provably dead or
 * movable:
 *
 *  - at an entry, the first instructions, if they are straight-line code
 *    (they move to the trampoline, which runs them after the recorder);
 *  - at a return or a jump out of the function, the padding after it
 *    (int3 or nop fill nothing runs), else the straight-line epilogue
 *    before it (it moves to the trampoline, which runs it first), with
 *    the padding after it when it is a little short;
 *  - in a function that runs straight into its return, the whole body:
 *    one region for the entry and the exit, whose trampoline records
 *    both (the return's probe is "joined").
 *
 * A site too short for a jump even so gets a short jump (or its own
 * short conditional branch, re-aimed) to a relay: the jump to the
 * trampoline, written in dead bytes within reach.  Dead bytes are the
 * padding after an instruction that never goes on, the fill between
 * functions (shared with the neighbours through claims), and the bytes
 * past the jump of a region, which an entry's region grows for when
 * nothing else is left.  Relays and regions never share a byte.
 *
 * Nothing may land strictly inside the bytes: no branch of the function,
 * no return address (the instruction after a call), no landing pad of
 * the unwinder, and, when the function has an indirect jump whose targets
 * are unknown (a jump table), no instruction boundary at all.  Landing
 * pads are not read from the exception tables: nothing falls into a pad
 * (it is reached by the unwinder only), so the first instruction after
 * any that never goes on (a return, a jump, ud2 after a call that does
 * not return) counts as a place where something lands.  A region
 * that starts where a branch lands is fine: the jump there leads to the
 * same instructions.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/arch-jump.h"
#include "rtrace/evlog.h"
#include "rtrace/inline-layout.h"
#include "rtrace/patchsite.h"
#include "rtrace/util.h"

struct region {
	size_t first, last;        /* instructions moved (first > last: none) */
	rt_raddr lo;
	size_t len;                /* bytes the jump replaces */
	size_t code;               /* of which instructions (rest: padding) */
	size_t join;               /* a tiny function's: its return, whose
				    * exit the trampoline records; 0: none */
	uint8_t how;               /* enum rt_patch_how */
	rt_raddr relay;            /* with HOP and RETARGET */
};

struct scan {
	const struct rt_patch_func *f;
	VEC(rt_raddr) marks;       /* where something may land, sorted */
	bool tables;               /* an indirect jump with unknown targets */
	VEC(struct rt_patch_span) dead;     /* padding nothing runs or lands in */
	VEC(struct rt_patch_span) taken;    /* regions and relays given out */
};

static int cmp_addr(const void *a, const void *b)
{
	rt_raddr x = *(const rt_raddr *)a, y = *(const rt_raddr *)b;

	return x < y ? -1 : x > y;
}

/* Nothing falls into the first instruction after one that never goes on
 * (padding skipped): something else enters it, a branch seen here or one
 * not seen, such as the unwinder going to a landing pad. */
static void mark_after_end(struct scan *s, size_t i)
{
	const struct rt_patch_func *f = s->f;

	if (!f->insns[i].ends || f->insns[i].pad)
		return;
	while (++i < f->n && f->insns[i].pad)
		;
	if (i < f->n)
		vec_push(&s->marks, f->insns[i].addr);
}

/* Branch targets inside the function, return addresses, and where
 * something else enters (landing pads, jump tables' targets). */
static void collect_marks(struct scan *s)
{
	const struct rt_patch_func *f = s->f;

	for (size_t i = 0; i < f->n; i++) {
		const struct rt_insn *in = &f->insns[i];

		switch (in->cls) {
		case RT_INSN_JMP:
		case RT_INSN_JCC:
			if (in->target >= f->lo && in->target < f->hi)
				vec_push(&s->marks, in->target);
			break;
		case RT_INSN_CALL:
		case RT_INSN_CALL_INDIRECT:
			vec_push(&s->marks, in->addr + in->len);
			break;
		case RT_INSN_JMP_REG:
			s->tables = s->tables || !f->tables_known;
			break;
		case RT_INSN_JMP_MEM:
			/* through a GOT slot: a call to elsewhere, not a table */
			if (!rt_arch_insn_rip_relative(in))
				s->tables = true;
			break;
		default:
			break;
		}
	}
	for (size_t i = 0; i < f->n; i++)
		mark_after_end(s, i);
	for (size_t i = 0; i < f->nmarks; i++)
		vec_push(&s->marks, f->marks[i]);
	if (s->marks.n)
		qsort(s->marks.v, s->marks.n, sizeof(*s->marks.v), cmp_addr);
}

/* Whether nothing lands in (lo, hi). */
static bool clear_inside(const struct scan *s, rt_raddr lo, rt_raddr hi)
{
	size_t a = 0, b = s->marks.n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (s->marks.v[m] <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a == s->marks.n || s->marks.v[a] >= hi;
}

static size_t index_of(const struct rt_patch_func *f, rt_raddr addr)
{
	size_t a = 0, b = f->n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (f->insns[m].addr < addr)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* The bytes the region covers beyond its instructions are padding past
 * the function's end: what the linker filled in, read and decoded. */
static bool pad_after_end(const struct rt_patch_func *f, rt_raddr at,
			  size_t need)
{
	uint8_t buf[RT_PATCH_MAX + RT_ARCH_INSN_MAX];
	rt_insn_vec pads = { 0 };
	size_t covered = 0, len = need + RT_ARCH_INSN_MAX;
	bool ok;

	/* a long nop may run past what is needed; the next function may
	 * start right after what is */
	if (!f->read_after || need > RT_PATCH_MAX)
		return false;
	if (f->read_after(f->ctx, at, buf, len)) {
		len = need;
		if (f->read_after(f->ctx, at, buf, len))
			return false;
	}
	rt_arch_decode(buf, len, at, &pads);
	for (size_t i = 0; i < pads.n && covered < need && pads.v[i].pad; i++)
		covered += pads.v[i].len;
	ok = covered >= need;
	vec_free(&pads);
	return ok;
}

/* Whether @need bytes of padding follow instruction @k (which never goes
 * on to them), inside the function or past its end. */
static bool pad_covers(const struct scan *s, size_t k, size_t need)
{
	const struct rt_patch_func *f = s->f;
	const struct rt_insn *site = &f->insns[k];
	rt_raddr at = site->addr + site->len;
	size_t covered = 0;

	for (size_t j = k + 1; j < f->n && covered < need; j++) {
		const struct rt_insn *in = &f->insns[j];

		/* an int3 never runs; a nop may be the way into a loop that
		 * a jump table reaches */
		if (!in->pad || in->addr != at ||
		    (s->tables && in->cls != RT_INSN_TRAP))
			return false;
		covered += in->len;
		at += in->len;
	}
	return covered >= need ||
	       (at == f->hi && pad_after_end(f, at, need - covered));
}

/* A return or jump followed by padding: a jump of @len bytes overwrites
 * the padding. */
static enum rt_inline_why pad_region(const struct scan *s, size_t k,
				     size_t len, struct region *r)
{
	const struct rt_insn *site = &s->f->insns[k];

	if (site->len >= len || !pad_covers(s, k, len - site->len))
		return RT_INLINE_SHORT;
	if (!clear_inside(s, site->addr, site->addr + len))
		return RT_INLINE_TARGET;
	*r = (struct region){ .first = k, .last = k, .lo = site->addr,
			      .len = len, .code = site->len };
	return RT_INLINE_OK;
}

/* Straight-line instructions from @from (up, or down to @k), at least
 * @min bytes. */
static enum rt_inline_why moved_region(const struct scan *s, size_t first,
				       size_t last, size_t min,
				       struct region *r)
{
	const struct rt_patch_func *f = s->f;
	rt_raddr lo = f->insns[first].addr;
	rt_raddr hi = f->insns[last].addr + f->insns[last].len;

	if (hi - lo < min)
		return RT_INLINE_SHORT;
	if (first != last && s->tables)
		return RT_INLINE_JUMP_TABLE;
	if (!clear_inside(s, lo, hi))
		return RT_INLINE_TARGET;
	/* a moved branch back into the region would run the jump again */
	for (size_t j = first; j <= last; j++)
		if (f->insns[j].target >= lo && f->insns[j].target < hi)
			return RT_INLINE_TARGET;
	*r = (struct region){ .first = first, .last = last, .lo = lo,
			      .len = hi - lo, .code = hi - lo };
	return RT_INLINE_OK;
}

static bool is_call(const struct rt_insn *in)
{
	return in->cls == RT_INSN_CALL || in->cls == RT_INSN_CALL_INDIRECT;
}

/* A function that runs straight from its entry into its return (xor
 * eax,eax; ret): its entry and exit would overlap, so one region covers
 * both, padding after the return included when the function is shorter
 * than the jump.  Its trampoline records the entry, runs the body,
 * records the exit and returns. */
static enum rt_inline_why tiny_region(const struct scan *s, size_t k,
				      struct region *r)
{
	const struct rt_patch_func *f = s->f;
	const struct rt_insn *ret = &f->insns[k];
	rt_raddr lo = f->insns[0].addr;
	size_t code = ret->addr + ret->len - lo;
	size_t len = MAX(code, rt_arch_patch_len());

	if (s->tables)
		return RT_INLINE_JUMP_TABLE;
	if (code < len && !pad_covers(s, k, len - code))
		return RT_INLINE_SHORT;
	if (!clear_inside(s, lo, lo + len))
		return RT_INLINE_TARGET;
	*r = (struct region){ .first = 0, .last = k, .lo = lo, .len = len,
			      .code = code, .join = k };
	return RT_INLINE_OK;
}

/* An entry: the first instructions, at least @min bytes, moved after the
 * recorder. */
static enum rt_inline_why entry_region(const struct scan *s, size_t min,
				       struct region *r)
{
	const struct rt_patch_func *f = s->f;
	size_t len = 0, j = 0;
	bool straight = true;

	for (; j < f->n && len < min; j++) {
		const struct rt_insn *in = &f->insns[j];

		/* a conditional jump moves (re-aimed); a direct jump, or a
		 * call, moves when it ends the region: the call's return
		 * address is then the first byte after it, in the original */
		bool ends = len + in->len >= min;

		if (in->cls == RT_INSN_RET && straight &&
		    min == rt_arch_patch_len())
			return tiny_region(s, j, r);
		if (in->cls != RT_INSN_PLAIN && in->cls != RT_INSN_JCC &&
		    !(ends && (in->cls == RT_INSN_JMP || is_call(in))))
			return RT_INLINE_INSN;
		straight = straight && in->cls == RT_INSN_PLAIN;
		len += in->len;
	}
	return moved_region(s, 0, j - 1, min, r);
}

/* The entry of an inlined call, in the middle of its caller: like a
 * function's entry, the straight-line instructions from instruction @k,
 * at least @min bytes, moved after the recorder.  Something may land at
 * the entry itself (the top of a loop), never past it.  Unlike at a
 * function's entry, the flags may be live there: the trampoline keeps
 * them across the recorder (rt_tramp_rec.inside), so a conditional jump
 * may move too. */
static enum rt_inline_why instance_region(const struct scan *s, size_t k,
					  size_t min, struct region *r)
{
	const struct rt_patch_func *f = s->f;
	size_t len = 0, j = k;

	for (; j < f->n && len < min; j++) {
		const struct rt_insn *in = &f->insns[j];
		bool ends = len + in->len >= min;

		if (in->cls != RT_INSN_PLAIN && in->cls != RT_INSN_JCC &&
		    !(ends && (in->cls == RT_INSN_JMP || is_call(in))))
			return RT_INLINE_INSN;
		len += in->len;
	}
	return moved_region(s, k, j - 1, min, r);
}

/* Return @k with the straight-line instructions before it, at least @min
 * bytes; with @over_jcc, conditional jumps out of the region too (they
 * move re-aimed, as at an entry): libc's system call wrappers end in
 * "syscall; cmp $-4095, %rax; jae error; ret", where a thread waiting in
 * the call comes back to the cmp, the region's first byte. */
static enum rt_inline_why epilogue_region(const struct scan *s, size_t k,
					  size_t min, bool over_jcc,
					  struct region *r)
{
	const struct rt_patch_func *f = s->f;
	size_t len = f->insns[k].len, j = k;
	enum rt_inline_why why;

	while (j > 0 && len < min) {
		const struct rt_insn *prev = &f->insns[j - 1];

		/* where a branch lands the region may begin, not go on */
		if ((prev->cls != RT_INSN_PLAIN &&
		     !(over_jcc && prev->cls == RT_INSN_JCC)) ||
		    prev->addr + prev->len != f->insns[j].addr ||
		    !clear_inside(s, prev->addr, f->insns[j].addr + 1))
			break;
		len += prev->len;
		j--;
	}
	/* short of it (a call's return address before: and al,1; pop rcx;
	 * ret; or a branch's target: sete al; ret), the padding after the
	 * return makes up the rest */
	if (len < min && !pad_covers(s, k, min - len))
		return RT_INLINE_SHORT;
	why = moved_region(s, j, k, MIN(len, min), r);
	if (why != RT_INLINE_OK || len >= min)
		return why;
	if (!clear_inside(s, r->lo, r->lo + min))
		return RT_INLINE_TARGET;
	r->len = min;
	return RT_INLINE_OK;
}

/* A return or a tail jump: alone when long enough, else with the padding
 * after it, else with the epilogue before it (@over_jcc: see
 * epilogue_region()). */
static enum rt_inline_why exit_region(const struct scan *s, size_t k,
				      bool entry, bool over_jcc,
				      struct region *r)
{
	const struct rt_patch_func *f = s->f;
	const struct rt_insn *site = &f->insns[k];
	enum rt_inline_why why;

	if (site->len >= rt_arch_patch_len() &&
	    (site->cls == RT_INSN_JCC ||
	     (site->cls == RT_INSN_JMP_MEM && rt_arch_insn_rip_relative(site))))
		return moved_region(s, k, k, rt_arch_patch_len(), r);
	if (site->cls != RT_INSN_RET && site->cls != RT_INSN_JMP)
		return RT_INLINE_KIND;
	if (site->len >= rt_arch_patch_len())
		return moved_region(s, k, k, rt_arch_patch_len(), r);
	why = pad_region(s, k, rt_arch_patch_len(), r);
	if (why == RT_INLINE_OK || entry)
		return why;
	return epilogue_region(s, k, rt_arch_patch_len(), over_jcc, r);
}

/* ---- bytes between functions ------------------------------------------- */

/* The first claim that ends after @lo. */
static size_t claim_index(const rt_patch_claims *c, rt_raddr lo)
{
	size_t a = 0, b = c->n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (c->v[m].hi <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

static bool claims_overlap(const rt_patch_claims *c, rt_raddr lo,
			   rt_raddr hi)
{
	size_t i;

	if (!c || lo >= hi)
		return false;
	i = claim_index(c, lo);
	return i < c->n && c->v[i].lo < hi;
}

static void claims_add(rt_patch_claims *c, rt_raddr lo, rt_raddr hi)
{
	size_t i;

	if (!c || lo >= hi)
		return;
	i = claim_index(c, lo);
	vec_reserve(c, c->n + 1);
	memmove(c->v + i + 1, c->v + i, (c->n - i) * sizeof(*c->v));
	c->v[i] = (struct rt_patch_span){ lo, hi };
	c->n++;
}

/* Whether the part of [lo, hi) outside the function is taken by another
 * function's site. */
static bool outside_taken(const struct scan *s, rt_raddr lo, rt_raddr hi)
{
	const struct rt_patch_func *f = s->f;

	return claims_overlap(f->claims, lo, MIN(hi, f->lo)) ||
	       claims_overlap(f->claims, MAX(lo, f->hi), hi);
}

/* Takes the part of [lo, hi) outside the function from the others. */
static void take_outside(const struct scan *s, rt_raddr lo, rt_raddr hi)
{
	const struct rt_patch_func *f = s->f;

	claims_add(f->claims, lo, MIN(hi, f->lo));
	claims_add(f->claims, MAX(lo, f->hi), hi);
}

static bool overlaps(const struct region *a, const struct region *b)
{
	return a->lo < b->lo + b->len && b->lo < a->lo + a->len;
}

/* Whether the site of @pr may be reached by a jump at all: the index of
 * its instruction in *k, or why not. */
static enum rt_inline_why site_allowed(const struct scan *s,
				       const struct rt_probe *pr, size_t *k)
{
	*k = index_of(s->f, pr->addr);
	if (*k >= s->f->n || s->f->insns[*k].addr != pr->addr)
		return RT_INLINE_INSN;
	if ((pr->role != RT_ROLE_TRACED && pr->role != RT_ROLE_BLOCKING) ||
	    (pr->kinds & (RT_PROBE_ENTRY | RT_PROBE_HELPER)) ==
		    (RT_PROBE_ENTRY | RT_PROBE_HELPER))
		return RT_INLINE_ROLE;
	if ((pr->kinds & ~s->f->kinds) & (RT_PROBE_ENTRY | RT_PROBE_EXIT |
					  RT_PROBE_TAIL | RT_PROBE_INLINED))
		return RT_INLINE_ROLE;
	return RT_INLINE_OK;
}

static enum rt_inline_why site_region(const struct scan *s,
				      const struct rt_probe *pr,
				      struct region *r)
{
	size_t k;
	enum rt_inline_why why = site_allowed(s, pr, &k);

	if (why != RT_INLINE_OK)
		return why;
	if (pr->kinds == RT_PROBE_INLINED)
		return instance_region(s, k, rt_arch_patch_len(), r);
	if (k == 0 && (s->f->insns[0].cls == RT_INSN_PLAIN ||
		       is_call(&s->f->insns[0])))
		return entry_region(s, rt_arch_patch_len(), r);
	/* only the blocking calls' wrappers, for now: the executable's
	 * regions stay as they were measured */
	return exit_region(s, k, k == 0, pr->role == RT_ROLE_BLOCKING, r);
}

/* The exit a tiny function's region may hold: its return's, alone. */
static bool joins(const struct scan *s, const struct region *r,
		  const struct rt_probe *pr)
{
	return r->join && pr->addr == s->f->insns[r->join].addr &&
	       pr->kinds == RT_PROBE_EXIT && (s->f->kinds & RT_PROBE_EXIT);
}

/* No region may hold another site (but the exit a tiny function's region
 * joins), or overlap another region. */
static enum rt_inline_why check_overlap(const struct scan *s,
					const struct rt_probe *probes,
					const struct region *regs, size_t n,
					size_t i)
{
	bool joined = false;

	for (size_t j = 0; j < n; j++) {
		if (j == i)
			continue;
		if (joins(s, &regs[i], &probes[j])) {
			joined = true;
			continue;
		}
		if (probes[j].addr >= regs[i].lo &&
		    probes[j].addr < regs[i].lo + regs[i].len)
			return RT_INLINE_OVERLAP;
		if (j < i && probes[j].patch_len && overlaps(&regs[i], &regs[j]))
			return RT_INLINE_OVERLAP;
	}
	if (outside_taken(s, regs[i].lo, regs[i].lo + regs[i].len))
		return RT_INLINE_OVERLAP;
	/* a return not probed (entries only) must not be recorded */
	return !regs[i].join || joined ? RT_INLINE_OK : RT_INLINE_INSN;
}

/* Copies the original bytes [lo, lo + len): those before the function
 * (a relay in the padding there), the function's, those past its end. */
static void save_orig(const struct rt_patch_func *f, rt_raddr lo, size_t len,
		      uint8_t *out)
{
	rt_raddr hi = lo + len;
	size_t first = index_of(f, lo);

	if (lo < f->lo)
		f->read_after(f->ctx, lo, out, MIN(hi, f->lo) - lo);

	/* from the instruction that holds @lo, when @lo cuts one */
	if (first > 0 && f->insns[first - 1].addr + f->insns[first - 1].len > lo)
		first--;
	for (size_t j = first; j < f->n && f->insns[j].addr < hi; j++) {
		const struct rt_insn *in = &f->insns[j];
		rt_raddr a = MAX(in->addr, lo);
		rt_raddr b = MIN(in->addr + in->len, hi);

		memcpy(out + (a - lo), in->bytes + (a - in->addr), b - a);
	}
	if (hi > f->hi)
		f->read_after(f->ctx, MAX(f->hi, lo), out + (MAX(f->hi, lo) - lo),
			      hi - MAX(f->hi, lo));
}

static void set_patched(const struct scan *s, struct rt_probe *pr,
			const struct region *r)
{
	pr->patch_lo = r->lo;
	pr->patch_len = (uint8_t)r->len;
	pr->patch_code = (uint8_t)r->code;
	pr->patch_how = r->how;
	pr->patch_join = r->join ? (uint8_t)(s->f->insns[r->join].addr - r->lo)
				 : 0;
	save_orig(s->f, r->lo, r->len, pr->patch_orig);
	pr->relay_lo = r->relay;
}

const char *rt_inline_why_str(enum rt_inline_why why)
{
	static const char *const text[RT_INLINE_WHY_MAX] = {
		[RT_INLINE_OK] = "patched",
		[RT_INLINE_OFF] = "breakpoint engine",
		[RT_INLINE_ROLE] = "needs a stop",
		[RT_INLINE_SHORT] = "too short to patch",
		[RT_INLINE_TARGET] = "a branch lands inside",
		[RT_INLINE_JUMP_TABLE] = "jump table",
		[RT_INLINE_INSN] = "instruction cannot move",
		[RT_INLINE_KIND] = "conditional or indirect jump",
		[RT_INLINE_OVERLAP] = "overlaps another site",
		[RT_INLINE_REACH] = "out of reach",
		[RT_INLINE_THREAD] = "a thread was inside",
		[RT_INLINE_INLINED] = "an inlined call begins there",
	};

	return why < RT_INLINE_WHY_MAX && text[why] ? text[why] : "?";
}

/* ---- relays: a short jump into dead bytes nearby ------------------------ */

/* How far past a function's end its padding is looked for. */
#define DEAD_AFTER_MAX 64

/* How far from a function its neighbours' fill is looked for: as far as
 * a short jump from inside it reaches. */
#define NEAR ((rt_raddr)2 * DEAD_AFTER_MAX)

/* Bytes of padding past the function's end, up to the next function. */
static size_t pad_len_after_end(const struct rt_patch_func *f)
{
	uint8_t buf[DEAD_AFTER_MAX];
	rt_insn_vec pads = { 0 };
	size_t lo = 0, hi = sizeof(buf), n = 0;

	if (!f->read_after)
		return 0;
	/* what can be read ends where the next function begins */
	while (lo < hi) {
		size_t m = (lo + hi + 1) / 2;

		if (f->read_after(f->ctx, f->hi, buf, m))
			hi = m - 1;
		else
			lo = m;
	}
	if (!lo || f->read_after(f->ctx, f->hi, buf, lo))
		return 0;
	rt_arch_decode(buf, lo, f->hi, &pads);
	for (size_t i = 0; i < pads.n && pads.v[i].pad; i++)
		n += pads.v[i].len;
	vec_free(&pads);
	return n;
}

/* Adds [lo, lo + len) to the dead bytes, joined to the last run when it
 * follows it. */
static void push_dead(struct scan *s, rt_raddr lo, size_t len)
{
	if (s->dead.n && vec_last(&s->dead)->hi == lo)
		vec_last(&s->dead)->hi += len;
	else
		vec_push(&s->dead, ((struct rt_patch_span){ lo, lo + len }));
}

/* Dead bytes in [lo, hi) outside the function, which no function
 * claims: runs of int3, the linker's fill between functions.  The first
 * bytes of a run stay with the function before it, whose return (or
 * whole body) a jump covers with up to rt_arch_patch_len() - 1 of them;
 * the first may also be the return address of a call that never
 * returns, ending that function. */
static void neighbour_padding(struct scan *s, rt_raddr lo, rt_raddr hi)
{
	const struct rt_patch_func *f = s->f;
	rt_insn_vec pads = { 0 };
	uint8_t buf[NEAR];
	rt_raddr at = lo;

	while (at < hi) {
		rt_raddr run = at;

		while (at < hi && !f->read_after(f->ctx, at, buf, 1))
			at++;
		if (at - run > 1 && !f->read_after(f->ctx, run, buf, at - run)) {
			pads.n = 0;
			rt_arch_decode(buf, at - run, run, &pads);
			vec_for_each(&pads, in)
				if (in->cls == RT_INSN_TRAP &&
				    in->addr >= run + rt_arch_patch_len() - 1)
					push_dead(s, in->addr, in->len);
		}
		at++;
	}
	vec_free(&pads);
}

/* Dead bytes: the padding after an instruction that never goes on (a
 * return, a jump, ud2), up to the next instruction, and past the
 * function's end.  Nothing falls into them; whether a branch, a return
 * or a landing pad lands there is checked against the marks where a
 * relay is put.  With unknown jump tables only int3 fill counts. */
static void collect_dead(struct scan *s)
{
	const struct rt_patch_func *f = s->f;
	rt_raddr lo;
	size_t i = 0;

	while (i < f->n) {
		const struct rt_insn *in = &f->insns[i++];
		rt_raddr at;

		if (!in->ends || in->pad)
			continue;
		lo = at = in->addr + in->len;
		for (; i < f->n && f->insns[i].pad && f->insns[i].addr == at &&
		       (!s->tables || f->insns[i].cls == RT_INSN_TRAP);
		     i++)
			at += f->insns[i].len;
		if (i == f->n && at == f->hi)
			at += pad_len_after_end(f);
		if (at > lo)
			vec_push(&s->dead, ((struct rt_patch_span){ lo, at }));
	}
	if (!f->claims || !f->read_after)
		return;
	lo = f->lo > NEAR ? f->lo - NEAR : 0;
	neighbour_padding(s, lo, f->lo);
	lo = s->dead.n && vec_last(&s->dead)->hi > f->hi ? vec_last(&s->dead)->hi
							 : f->hi;
	neighbour_padding(s, lo, f->hi + NEAR);
}

/* Whether [lo, hi) holds no site and no place something lands, and
 * overlaps nothing given out. */
static bool span_free(const struct scan *s, const struct rt_probe *probes,
		      size_t n, size_t self, rt_raddr lo, rt_raddr hi)
{
	for (size_t j = 0; j < n; j++)
		if (j != self && probes[j].addr >= lo && probes[j].addr < hi)
			return false;
	vec_for_each(&s->taken, t)
		if (t->lo < hi && lo < t->hi)
			return false;
	return !outside_taken(s, lo, hi);
}

/* A place in the dead bytes for a relay that a short jump at @at reaches,
 * in *relay.  Nothing may land anywhere in it, its first byte included:
 * it is not the program's code. */
static bool find_relay(const struct scan *s, const struct rt_probe *probes,
		       size_t n, rt_raddr at, rt_raddr *relay)
{
	size_t len = rt_arch_patch_len();
	uint8_t hop[RT_PATCH_MAX];

	vec_for_each(&s->dead, d) {
		for (rt_raddr p = d->lo; p + len <= d->hi; p++) {
			if (!rt_arch_patch_hop(at, p, NULL, hop) ||
			    !clear_inside(s, p - 1, p + len) ||
			    !span_free(s, probes, n, n, p, p + len))
				continue;
			*relay = p;
			return true;
		}
	}
	return false;
}

/* A return with what a short jump needs: itself, the padding after it,
 * or the straight-line instructions before it (pop rcx; ret right after
 * a call's return address). */
static enum rt_inline_why short_ret_region(const struct scan *s, size_t k,
					   struct region *r)
{
	size_t hop = rt_arch_hop_len();
	enum rt_inline_why why;

	if (s->f->insns[k].len >= hop)
		return moved_region(s, k, k, hop, r);
	why = pad_region(s, k, hop, r);
	if (why != RT_INLINE_OK && k > 0)
		why = epilogue_region(s, k, hop, false, r);
	return why;
}

/* A site too short for a jump, or whose jump would cover another: a
 * short jump to a relay, or a conditional tail jump's own short branch
 * re-aimed at one, so that only when it is taken does it reach the
 * trampoline. */
static enum rt_inline_why hop_region(const struct scan *s,
				     const struct rt_probe *pr,
				     struct region *r)
{
	size_t k, hop = rt_arch_hop_len();
	enum rt_inline_why why = site_allowed(s, pr, &k);
	const struct rt_insn *site = &s->f->insns[MIN(k, s->f->n - 1)];

	if (why != RT_INLINE_OK)
		return why;
	/* an inlined call's entry or end, in the middle of its caller: as
	 * its jump would, the straight-line instructions from it, only as
	 * many as the short jump covers (a jmp rel8 that other branches
	 * land after, say); the call begins or ends whether or not a
	 * conditional jump there is taken, so none is re-aimed */
	if (pr->kinds == RT_PROBE_INLINED) {
		why = instance_region(s, k, hop, r);
		r->how = RT_PATCH_HOP;
		return why;
	}
	if (site->cls == RT_INSN_JCC) {
		if (site->len != hop || (pr->kinds & RT_PROBE_ENTRY))
			return RT_INLINE_KIND;
		*r = (struct region){ .first = k, .last = k, .lo = site->addr,
				      .len = hop, .code = hop,
				      .how = RT_PATCH_RETARGET };
		return clear_inside(s, site->addr, site->addr + hop)
			       ? RT_INLINE_OK
			       : RT_INLINE_TARGET;
	}
	/* an entry whose jump would cover the next site (test; je out) */
	if (k == 0 && site->cls == RT_INSN_PLAIN)
		why = entry_region(s, hop, r);
	else if (site->cls == RT_INSN_JMP && k > 0)
		why = moved_region(s, k, k, hop, r);
	else if (site->cls == RT_INSN_RET)
		why = short_ret_region(s, k, r);
	else
		return RT_INLINE_KIND;
	r->how = RT_PATCH_HOP;
	return why;
}

/* Which sites get relays first: conditional tail jumps (in loops, the
 * hottest), then exits, then entries. */
static unsigned hop_rank(const struct region *r)
{
	if (r->how == RT_PATCH_RETARGET)
		return 0;
	return r->first > 0 ? 1 : 2;
}

/* Offers the bytes of @host's region past its jump, which never run and
 * where nothing lands, for relays: the jump is then written alone. */
static void offer_tail(struct scan *s, struct rt_probe *host)
{
	rt_raddr lo = host->patch_lo, jump = lo + rt_arch_patch_len();

	vec_for_each(&s->taken, t)
		if (t->lo == lo)
			t->hi = jump;
	vec_push(&s->dead,
		 ((struct rt_patch_span){ jump, lo + host->patch_len }));
	host->patch_hosts = true;
}

/* The patched entry of the function, grown over more of its first
 * instructions (they move to its trampoline too) until the bytes past
 * its jump can hold a relay: E9Patch's eviction, within the rules every
 * entry region follows.  It stays below @limit, where the region that
 * wants the relay begins. */
static bool grow_entry(struct scan *s, struct rt_probe *probes, size_t n,
		       rt_raddr limit)
{
	size_t room = 2 * rt_arch_patch_len();
	struct rt_probe *host = NULL;
	struct region g;

	for (size_t i = 0; i < n && !host; i++)
		if (probes[i].addr == s->f->lo && probes[i].patch_len &&
		    probes[i].patch_how == RT_PATCH_JUMP &&
		    !probes[i].patch_join && !probes[i].patch_hosts)
			host = &probes[i];
	if (!host || entry_region(s, room, &g) != RT_INLINE_OK ||
	    g.lo + g.len > limit ||
	    !span_free(s, probes, n, (size_t)(host - probes),
		       host->patch_lo + host->patch_len, g.lo + g.len))
		return false;
	set_patched(s, host, &g);
	offer_tail(s, host);
	return true;
}

/* Among the sites of inlined calls (the function's own were planned
 * before and are copies here), one patched with a jump, grown over more
 * of its straight-line instructions until the bytes past its jump can
 * hold a relay that a short jump at @at reaches: grow_entry() for the
 * middle of a function. */
static bool grow_instance(struct scan *s, struct rt_probe *probes, size_t n,
			  rt_raddr at)
{
	size_t room = 2 * rt_arch_patch_len();
	uint8_t hop[RT_PATCH_MAX];

	for (size_t i = 0; i < n; i++) {
		struct rt_probe *host = &probes[i];
		rt_raddr tail = host->patch_lo + rt_arch_patch_len();
		struct region g;

		if (host->kinds != RT_PROBE_INLINED || !host->patch_len ||
		    host->patch_how != RT_PATCH_JUMP || host->patch_hosts ||
		    !rt_arch_patch_hop(at, tail, NULL, hop) ||
		    instance_region(s, index_of(s->f, host->addr), room, &g) !=
			    RT_INLINE_OK ||
		    !span_free(s, probes, n, i, host->patch_lo + host->patch_len,
			       g.lo + g.len))
			continue;
		set_patched(s, host, &g);
		offer_tail(s, host);
		return true;
	}
	return false;
}

/* Room for relays when the dead bytes have none left: the tails of the
 * function's long regions, else its entry's, grown up to @limit. */
static bool make_room(struct scan *s, struct rt_probe *probes, size_t n,
		      rt_raddr limit)
{
	bool offered = false;

	for (size_t i = 0; i < n; i++) {
		struct rt_probe *q = &probes[i];

		if (q->patch_len >= 2 * rt_arch_patch_len() &&
		    q->patch_how == RT_PATCH_JUMP && !q->patch_join &&
		    !q->patch_hosts) {
			offer_tail(s, q);
			offered = true;
		}
	}
	return offered || grow_entry(s, probes, n, limit);
}

/* Whether the relay of @pr lies in another site's region: it then lives
 * only as long as that site's jump. */
static void mark_hosted(struct rt_probe *pr, const struct rt_probe *probes,
			size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (probes[i].patch_hosts && pr->relay_lo >= probes[i].patch_lo &&
		    pr->relay_lo < probes[i].patch_lo + probes[i].patch_len)
			pr->relay_hosted = true;
}

/* The second pass, for the sites the first left with a breakpoint: a hop
 * through a relay in dead bytes. */
static void plan_hops(struct scan *s, struct rt_probe *probes, size_t n)
{
	collect_dead(s);
	for (size_t k = 0; k < 3 * n; k++) {
		struct rt_probe *pr = &probes[k % n];
		struct region r;

		if (rt_probe_inline(pr) ||
		    (s->f->relays_inlined_only &&
		     pr->kinds != RT_PROBE_INLINED) ||
		    hop_region(s, pr, &r) != RT_INLINE_OK ||
		    hop_rank(&r) != k / n)
			continue;
		if (!span_free(s, probes, n, k % n, r.lo, r.lo + r.len))
			continue;
		/* room is made only among the sites planned now: the
		 * others' regions here are copies, which must not grow */
		if (!find_relay(s, probes, n, r.lo, &r.relay) &&
		    !((s->f->relays_inlined_only
			       ? grow_instance(s, probes, n, r.lo)
			       : make_room(s, probes, n, r.lo)) &&
		      find_relay(s, probes, n, r.lo, &r.relay)))
			continue;
		set_patched(s, pr, &r);
		mark_hosted(pr, probes, n);
		pr->inline_why = RT_INLINE_OK;
		vec_push(&s->taken, ((struct rt_patch_span){ r.lo, r.lo + r.len }));
		vec_push(&s->taken,
			 ((struct rt_patch_span){ r.relay,
						  r.relay + rt_arch_patch_len() }));
		take_outside(s, r.lo, r.lo + r.len);
		take_outside(s, r.relay, r.relay + rt_arch_patch_len());
	}
}

static void reset_probe(struct rt_probe *pr)
{
	pr->patch_len = 0;
	pr->patch_how = RT_PATCH_JUMP;
	pr->patch_join = 0;
	pr->joined = false;
	pr->relay_lo = 0;
	pr->patch_hosts = false;
	pr->relay_hosted = false;
}

/* The first pass: a jump over the site, and what it displaces. */
static void plan_jumps(struct scan *s, struct rt_probe *probes,
		       struct region *regs, size_t n)
{
	rt_raddr join_at = 0;

	for (size_t i = 0; i < n; i++) {
		struct rt_probe *pr = &probes[i];

		reset_probe(pr);
		if (join_at && pr->addr == join_at) {
			/* the region of the function's entry records it */
			pr->joined = true;
			pr->inline_why = RT_INLINE_OK;
			continue;
		}
		pr->inline_why = s->f->kinds ? site_region(s, pr, &regs[i])
					     : RT_INLINE_OFF;
		if (pr->inline_why == RT_INLINE_OK)
			pr->inline_why = check_overlap(s, probes, regs, n, i);
		if (pr->inline_why != RT_INLINE_OK)
			continue;
		set_patched(s, pr, &regs[i]);
		take_outside(s, regs[i].lo, regs[i].lo + regs[i].len);
		if (regs[i].join)
			join_at = s->f->insns[regs[i].join].addr;
		vec_push(&s->taken, ((struct rt_patch_span){ regs[i].lo,
						    regs[i].lo + regs[i].len }));
	}
}

/* The bytes that the sites planned before (the function's own, when
 * the inlined calls' are planned) took: their regions and relays, which
 * no relay planned now may use. */
static void take_planned(struct scan *s, const struct rt_probe *probes,
			 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct rt_probe *pr = &probes[i];

		if (pr->kinds == RT_PROBE_INLINED || !pr->patch_len)
			continue;
		vec_push(&s->taken, ((struct rt_patch_span){
				pr->patch_lo, pr->patch_lo + pr->patch_len }));
		if (pr->relay_lo)
			vec_push(&s->taken, ((struct rt_patch_span){
				pr->relay_lo,
				pr->relay_lo + rt_arch_patch_len() }));
	}
}

void rt_patch_plan(const struct rt_patch_func *f, struct rt_probe *probes,
		   size_t n)
{
	struct scan s = { .f = f };
	struct region *regs = xcalloc(n + 1, sizeof(*regs));

	collect_marks(&s);
	if (f->relays_inlined_only)
		take_planned(&s, probes, n);
	plan_jumps(&s, probes, regs, n);
	if (f->kinds)
		plan_hops(&s, probes, n);
	free(regs);
	vec_free(&s.marks);
	vec_free(&s.dead);
	vec_free(&s.taken);
}

/* ---- the trampoline ------------------------------------------------------ */

static uint64_t rec_word(const struct rt_probe *pr, unsigned kind)
{
	unsigned flags = RT_EVF_INLINE;

	if (kind == RT_EV_EXIT && (pr->kinds & RT_PROBE_HELPER))
		flags |= RT_EVF_HELPER;
	return pr->func | (uint64_t)kind << 32 | (uint64_t)flags << 40;
}

bool rt_patch_resume_fits(const struct rt_probe *pr)
{
	return pr->kinds == RT_PROBE_ENTRY && pr->role == RT_ROLE_TRACED &&
	       !pr->patch_len && pr->res.kind == RT_RESUME_SLOT;
}

void rt_patch_resume_tramp(const struct rt_probe *pr,
			   struct rt_tramp_spec *out)
{
	memset(out, 0, sizeof(*out));
	out->rec[0] = (struct rt_tramp_rec){
		RT_REC_ENTRY,
		rec_word(pr, RT_EV_ENTRY) | (uint64_t)RT_EVF_RESUMED << 40, 0,
		false };
	out->nrec = 1;
	out->back = pr->res.target;
}

/* What the recorder is called for at @pr, in order: the function's
 * entry, the inlined calls that end and begin there (as at a
 * breakpoint), its exit or tail jump. */
static int tramp_recs(const struct rt_probe *pr, const struct rt_insn *site,
		      const struct rt_inl_rec *inl, size_t ninl,
		      struct rt_tramp_spec *t)
{
	/* no entry, return or jump out of the function here: the site is
	 * in the middle of its code, where flags and the red zone may be
	 * live (a function's own sites are where they are dead) */
	bool inside = !(pr->kinds & (RT_PROBE_ENTRY | RT_PROBE_EXIT |
				     RT_PROBE_RET_ARG0 | RT_PROBE_TAIL));

	t->nrec = 0;
	if (ninl + 2 > ARRAY_SIZE(t->rec))
		return -E2BIG;
	if ((pr->kinds & RT_PROBE_ENTRY) && !(pr->kinds & RT_PROBE_HELPER))
		t->rec[t->nrec++] = (struct rt_tramp_rec){
			RT_REC_ENTRY, rec_word(pr, RT_EV_ENTRY), 0, false };
	/* the recorder's tail call carries a value of the trampoline's
	 * choosing; the event's kind is the word's */
	for (size_t i = 0; i < ninl; i++)
		t->rec[t->nrec++] = (struct rt_tramp_rec){
			RT_REC_TAIL,
			inl[i].func | (uint64_t)inl[i].kind << 32 |
				(uint64_t)(inl[i].flags | RT_EVF_INLINE |
					   (inside ? RT_IA_EVF_BELOW : 0))
					<< 40,
			inl[i].value, inside };
	if (pr->kinds & RT_PROBE_EXIT)
		t->rec[t->nrec++] = (struct rt_tramp_rec){
			RT_REC_EXIT, rec_word(pr, RT_EV_EXIT), 0, false };
	else if (pr->kinds & RT_PROBE_RET_ARG0)
		t->rec[t->nrec++] = (struct rt_tramp_rec){
			RT_REC_ARG0, rec_word(pr, RT_EV_EXIT), 0, false };
	else if (pr->kinds & RT_PROBE_TAIL)
		t->rec[t->nrec++] = (struct rt_tramp_rec){
			RT_REC_TAIL, rec_word(pr, RT_EV_TAIL), site->target,
			false };
	return 0;
}

/* A tiny function's: the entry recorded, the body run, the exit recorded
 * (with the stack and return value as at its return), the return. */
static int tramp_join(const struct rt_probe *pr, const rt_insn_vec *insns,
		      size_t site, struct rt_tramp_spec *out)
{
	size_t ret = site;

	while (ret < insns->n &&
	       insns->v[ret].addr < pr->patch_lo + pr->patch_join)
		ret++;
	if (ret == insns->n || out->nrec != 1 ||
	    insns->v[ret].addr != pr->patch_lo + pr->patch_join)
		return -EILSEQ;
	out->rec[out->nrec++] = (struct rt_tramp_rec){
		RT_REC_EXIT, rec_word(pr, RT_EV_EXIT), 0, false };
	out->mid = insns->v + site;
	out->nmid = ret - site;
	out->post = insns->v + ret;
	out->npost = insns->n - ret;
	return 0;
}

bool rt_patch_split(const struct rt_probe *pr, const struct rt_insn *site,
		    size_t ninl)
{
	return ninl && pr->kinds == RT_PROBE_INLINED &&
	       (pr->patch_how == RT_PATCH_JUMP ||
		pr->patch_how == RT_PATCH_HOP) && !pr->patch_join &&
	       site->cls == RT_INSN_JCC;
}

/* Inlined calls that begin at a conditional jump, and nothing else
 * there: recorded after it, either way it goes; the code after it moved
 * as usual.  (Since the trampoline keeps the flags at such sites anyway,
 * rt_tramp_rec.inside, this order is no longer needed for them.) */
static int tramp_split(const struct rt_probe *pr, const rt_insn_vec *insns,
		       size_t site, size_t ninl, struct rt_tramp_spec *out)
{
	if (ninl > RT_PATCH_SPLIT_MAX)
		return -E2BIG;
	out->pre = insns->v;
	out->npre = site;
	out->split = &insns->v[site];
	out->post = insns->v + site + 1;
	out->npost = insns->n - site - 1;
	if (vec_last(insns)->cls == RT_INSN_PLAIN ||
	    vec_last(insns)->cls == RT_INSN_JCC)
		out->back = pr->patch_lo + pr->patch_code;
	return 0;
}

int rt_patch_tramp(const struct rt_probe *pr, const struct rt_inl_rec *inl,
		   size_t ninl, rt_insn_vec *insns, struct rt_tramp_spec *out)
{
	size_t site = 0;

	insns->n = 0;
	if (rt_arch_decode(pr->patch_orig, pr->patch_code, pr->patch_lo,
			   insns) || insns->n == 0)
		return -EILSEQ;
	while (site < insns->n && insns->v[site].addr < pr->addr)
		site++;
	if (site == insns->n || insns->v[site].addr != pr->addr)
		return -EILSEQ;
	memset(out, 0, sizeof(*out));
	if (tramp_recs(pr, &insns->v[site], inl, ninl, out))
		return -E2BIG;
	if (rt_patch_split(pr, &insns->v[site], ninl))
		return tramp_split(pr, insns, site, ninl, out);
	/* an inlined call begins whether or not the branch is taken; a
	 * tiny function's trampoline records its entry and exit only */
	if (ninl && (pr->patch_how == RT_PATCH_RETARGET || pr->patch_join ||
		     (insns->v[site].cls == RT_INSN_JCC &&
		      !(pr->kinds & RT_PROBE_ENTRY))))
		return -E2BIG;
	if (pr->patch_how == RT_PATCH_RETARGET) {
		/* reached only when the branch is taken: record, then go */
		out->back = insns->v[site].target;
		return 0;
	}
	out->pre = insns->v;
	out->npre = site;
	out->post = insns->v + site;
	out->npost = insns->n - site;
	if (pr->patch_join)
		return tramp_join(pr, insns, site, out);
	if (insns->v[site].cls == RT_INSN_JCC && !(pr->kinds & RT_PROBE_ENTRY)) {
		out->cond = &insns->v[site];
		out->npost = 0;
	} else if (vec_last(insns)->cls == RT_INSN_PLAIN ||
		   vec_last(insns)->cls == RT_INSN_JCC) {
		out->back = pr->patch_lo + pr->patch_code;
	}
	return 0;
}
