// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Arming and disarming.  Breakpoints are written in batches: probes are
 * grouped into runs of nearby addresses, and each run is read, patched and
 * written back with one pread and one pwrite on /proc/PID/mem.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PR_FMT "arm"
#define PR_DOMAIN RT_DOM_PROBES
#include "rtrace/arch.h"
#include "rtrace/arch-jump.h"
#include "rtrace/arm.h"
#include "rtrace/codeorig.h"
#include "rtrace/imageplan.h"
#include "rtrace/guardian.h"
#include "rtrace/log.h"
#include "rtrace/remote.h"
#include "rtrace/seccomp.h"
#include "rtrace/trapguard.h"
#include "rtrace/util.h"

/* Probes further apart than this are written in separate runs. */
#define RUN_GAP 4096

/* Scratch areas are kept this far inside what a jump reaches. */
#define REACH_MARGIN 0x100000

int rt_auxv_get(pid_t pid, uint64_t type, uint64_t *val)
{
	char path[64];
	char *buf;
	size_t len;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/auxv", pid);
	err = read_file(path, &buf, &len);
	if (err) {
		pr_err("cannot read %s: %s", path, strerror(-err));
		return err;
	}
	err = -ENOENT;
	for (size_t off = 0; off + 16 <= len; off += 16) {
		uint64_t t;

		memcpy(&t, buf + off, 8);
		if (t == type) {
			memcpy(val, buf + off + 8, 8);
			err = 0;
			break;
		}
	}
	free(buf);
	return err;
}

int rt_arm_bias(pid_t pid, const struct rt_symbols *syms, rt_raddr *bias)
{
	uint64_t entry;
	int err;

	*bias = 0;
	if (!rt_symbols_is_pie(syms))
		return 0;
	err = rt_auxv_get(pid, AT_ENTRY, &entry);
	if (err == -ENOENT)
		pr_err("process %d: no AT_ENTRY in its auxiliary vector", pid);
	if (!err)
		*bias = entry - rt_symbols_entry(syms);
	return err;
}

static bool reaches(rt_raddr base, size_t size, rt_raddr lo, rt_raddr hi)
{
	rt_raddr far_lo = MIN(base, lo), far_hi = MAX(base + size, hi);

	return far_hi - far_lo < rt_arch_jump_reach() - REACH_MARGIN;
}

/* Tries places below the code first (the heap grows up from the end of
 * the image, so the space above is the program's), then above it. */
static int map_scratch(struct rt_process *p, const struct rt_image *img,
		       pid_t tid, size_t size, rt_raddr *base, int *dsig)
{
	const struct rt_symbols *syms = img->syms;
	rt_raddr lo, hi, bias = img->bias;
	int err = -ENOSPC;

	rt_symbols_text_range(syms, &lo, &hi);
	lo += bias;
	hi += bias;
	for (int i = 0; i < 16; i++) {
		rt_raddr gap = (rt_raddr)(1 + i) << 20, hint;

		if (i < 8)
			hint = (lo & ~0xfffULL) - size - gap * (i + 1);
		else
			hint = ALIGN_UP(hi, 4096) + (256ULL << 20) +
			       gap * (i - 8) * 16;
		if (hint >= lo && i < 8)
			continue;  /* wrapped around below zero */
		if (hint < 0x10000 || !reaches(hint, size, lo, hi))
			continue;
		err = rt_remote_mmap_exec(tid, p->mem, hint, size, base, dsig);
		if (!err)
			return 0;
		if (err == -EPERM && rt_seccomp_mode(tid) > 0) {
			pr_err("process %d runs under a seccomp filter that "
			       "could kill it for the mmap of rtrace's scratch "
			       "area (or that rtrace cannot read without "
			       "CAP_SYS_ADMIN): it is not traced", p->pid);
			return err;
		}
		if (err != -EEXIST && err != -ENOMEM && err != -EPERM)
			break;
	}
	pr_err("process %d: cannot map a scratch area near %s: %s", p->pid,
	       rt_symbols_path(syms), strerror(-err));
	return err;
}

/* What a run of probes gets. */
enum arm_mode {
	ARM_TRAPS,     /* breakpoints, a region the inline engine had put
			* back as it was (a fork child's copy) */
	ARM_JUMPS,     /* jumps where patched, else breakpoints */
	DISARM,        /* every original byte */
};

/* The bytes @pr covers in @mode: its breakpoint, its region and its
 * relay. */
static void site_span(const struct rt_probe *pr, enum arm_mode mode,
		      rt_raddr *lo, rt_raddr *hi)
{
	size_t tlen;

	rt_arch_trap_bytes(&tlen);
	*lo = pr->addr;
	*hi = pr->addr + tlen;
	if (pr->patch_len) {
		*lo = MIN(*lo, pr->patch_lo);
		*hi = MAX(*hi, pr->patch_lo + pr->patch_len);
	}
	if (pr->patch_len && pr->relay_lo) {
		*lo = MIN(*lo, pr->relay_lo);
		*hi = MAX(*hi, pr->relay_lo + rt_arch_patch_len());
	}
}

/* The way into the trampoline of patched @pr, in @buf (read from @lo):
 * the region, never run, filled with breakpoints so that a stray jump
 * there is caught, then the jump, or the hop and the relay's jump. */
static void write_jump(uint8_t *buf, rt_raddr lo, const struct rt_probe *pr)
{
	size_t tlen;
	const uint8_t *trap = rt_arch_trap_bytes(&tlen);
	uint8_t *region = buf + (pr->patch_lo - lo);

	memset(region, trap[0], pr->patch_len);
	if (pr->patch_how == RT_PATCH_JUMP) {
		rt_arch_patch_jump(pr->patch_lo, pr->tramp, region);
		return;
	}
	rt_arch_patch_hop(pr->patch_lo, pr->relay_lo,
			  pr->patch_how == RT_PATCH_RETARGET ? pr->patch_orig
							     : NULL,
			  region);
	rt_arch_patch_jump(pr->relay_lo, pr->tramp, buf + (pr->relay_lo - lo));
}

static void put_orig(uint8_t *buf, rt_raddr lo, const uint8_t *orig,
		     rt_raddr at, size_t len)
{
	memcpy(buf + (at - lo), orig + (at - lo), len);
}

/* Writes @pr's bytes for @mode into @buf (read from @lo); @orig holds
 * the original bytes of the same addresses. */
static void write_site(uint8_t *buf, rt_raddr lo, const uint8_t *orig,
		       const struct rt_probe *pr, enum arm_mode mode)
{
	size_t tlen;
	const uint8_t *trap = rt_arch_trap_bytes(&tlen);

	/* the trampoline of the region that covers it records it */
	if (pr->joined && mode == ARM_JUMPS)
		return;
	/* the bytes past the jump are left to the relays written there */
	if (pr->patch_hosts && mode == ARM_JUMPS) {
		rt_arch_patch_jump(pr->patch_lo, pr->tramp,
				   buf + (pr->patch_lo - lo));
		return;
	}
	/* every byte the site covers as it was, whatever instruction
	 * boundaries its region and relay cut; not the bytes between them,
	 * which other sites may hold */
	put_orig(buf, lo, orig, pr->addr, tlen);
	if (pr->patch_len)
		put_orig(buf, lo, orig, pr->patch_lo, pr->patch_len);
	if (pr->patch_len && pr->relay_lo)
		put_orig(buf, lo, orig, pr->relay_lo, rt_arch_patch_len());
	if (pr->patch_len && mode == ARM_JUMPS) {
		write_jump(buf, lo, pr);
		return;
	}
	if (mode == DISARM)
		return;
	/* the return its region joins keeps its own breakpoint */
	if (pr->patch_len && pr->patch_join)
		memcpy(buf + (pr->patch_lo + pr->patch_join - lo), trap, tlen);
	memcpy(buf + (pr->addr - lo), trap, tlen);
}

/* Marks in @mask (from @lo) the bytes @pr holds in @mode: those that are
 * rtrace's and not the original's. */
static void site_owned(const struct rt_probe *pr, enum arm_mode mode,
		       uint8_t *mask, rt_raddr lo, uint8_t mark)
{
	size_t tlen;

	rt_arch_trap_bytes(&tlen);
	if (mode == DISARM || (pr->joined && mode == ARM_JUMPS))
		return;
	if (mode == ARM_JUMPS && pr->patch_hosts) {
		memset(mask + (pr->patch_lo - lo), mark, rt_arch_patch_len());
		return;
	}
	if (mode == ARM_JUMPS && pr->patch_len) {
		memset(mask + (pr->patch_lo - lo), mark, pr->patch_len);
		if (pr->relay_lo)
			memset(mask + (pr->relay_lo - lo), mark,
			       rt_arch_patch_len());
		return;
	}
	if (pr->patch_len && pr->patch_join)
		memset(mask + (pr->patch_lo + pr->patch_join - lo), mark, tlen);
	memset(mask + (pr->addr - lo), mark, tlen);
}

/* The longest span of one site: its breakpoint, its patched region and
 * a relay as far as a short jump reaches. */
#define SITE_MAX 512

/* Whether the bytes of @pr in @buf (a run read from @lo) are those @mode
 * gives it. */
static bool site_reads(const uint8_t *buf, rt_raddr lo, const uint8_t *orig,
		       const struct rt_probe *pr, enum arm_mode mode)
{
	uint8_t want[SITE_MAX];
	rt_raddr a, b;

	site_span(pr, mode, &a, &b);
	if (b - a > sizeof(want))
		return true;  /* no such site is planned: trust it */
	memcpy(want, buf + (a - lo), b - a);
	write_site(want, a, orig + (a - lo), pr, mode);
	return !memcmp(want, buf + (a - lo), b - a);
}

/* Whether the site of @pr holds rtrace's bytes or the original ones, and
 * so may be written.  Either engine's bytes count as rtrace's: a process
 * armed with jumps may have been given breakpoints since (a fork child),
 * and a site taken out by --coverage is back to its original bytes.
 * Anything else is code the program wrote there itself (a hot patch),
 * which putting the original bytes back would undo, or tear. */
static bool site_ours(const uint8_t *buf, rt_raddr lo, const uint8_t *orig,
		      const struct rt_probe *pr)
{
	return site_reads(buf, lo, orig, pr, ARM_JUMPS) ||
	       site_reads(buf, lo, orig, pr, ARM_TRAPS) ||
	       site_reads(buf, lo, orig, pr, DISARM);
}

/* The name of the function of @pr, for a message; owned by the symbols. */
static const char *probe_func_name(const struct rt_plan *plan,
				   const struct rt_probe *pr)
{
	const struct rt_plan_func *f = rt_plan_func_by_id(plan, pr->func);

	return f ? f->fn->name : NULL;
}

static void keep_site(struct rt_arm_kept *kept, const struct rt_plan *plan,
		      const struct rt_probe *pr)
{
	if (kept->n++ == 0) {
		kept->first = pr->addr;
		kept->func = probe_func_name(plan, pr);
	}
}

/* One run of probes [first, last] of @img's plan, and the bytes
 * [lo, hi) their sites cover. */
struct run {
	struct rt_image *img;
	const struct rt_plan *plan;
	size_t first, last;
	rt_raddr lo, hi;
	const uint8_t *orig;   /* the original bytes of [lo, hi) */
	const bool *left;      /* [i - first]: the site was left to the
				* program */
};

/* Marks in @mask (from @lo) every byte @pr may write. */
static void site_pieces(const struct rt_probe *pr, uint8_t *mask,
			rt_raddr lo, uint8_t mark)
{
	size_t tlen;

	rt_arch_trap_bytes(&tlen);
	memset(mask + (pr->addr - lo), mark, tlen);
	if (pr->patch_len)
		memset(mask + (pr->patch_lo - lo), mark, pr->patch_len);
	if (pr->patch_len && pr->relay_lo)
		memset(mask + (pr->relay_lo - lo), mark, rt_arch_patch_len());
}

enum { CHECK, OURS, SKIP };

/* After run @r was written in @mode: each byte a site may write but
 * holds no longer in @mode must be the original.  One that is not is
 * put back and counted in @bad, never left in the program. */
static int check_run(struct rt_mem *mem, const struct run *r,
		     enum arm_mode mode, struct rt_arm_kept *bad)
{
	size_t len = r->hi - r->lo;
	uint8_t *mask = xmalloc(len), *now = xmalloc(len);
	int err = rt_mem_read(mem, r->lo, now, len);

	memset(mask, SKIP, len);
	for (size_t i = r->first; i <= r->last; i++)
		site_pieces(rt_plan_probe(r->plan, i), mask, r->lo, CHECK);
	for (size_t i = r->first; i <= r->last; i++)
		site_owned(rt_plan_probe(r->plan, i), mode, mask, r->lo, OURS);
	for (size_t i = r->first; i <= r->last; i++)
		if (r->left[i - r->first])
			site_pieces(rt_plan_probe(r->plan, i), mask, r->lo,
				    SKIP);
	for (size_t k = 0; !err && k < len; k++) {
		size_t e = k;

		while (e < len && mask[e] == CHECK && now[e] != r->orig[e])
			e++;
		if (e == k)
			continue;
		if (bad->wrong_bytes == 0)
			bad->wrong_first = r->lo + k;
		bad->wrong_bytes += e - k;
		bad->wrong_places++;
		err = rt_mem_write(mem, r->lo + k, r->orig + k, e - k);
		k = e;
	}
	free(now);
	free(mask);
	return err;
}

/* Whether the arming is checked too (RTRACE_CHECK_CODE=1): a debugging
 * aid, and the tests' way to see a plan's bytes composed right. */
static bool check_arming(void)
{
	const char *v = getenv("RTRACE_CHECK_CODE");

	return v && *v == '1';
}

/* The original bytes of @r's span: none known is an error, said once
 * per run (a write would put guessed bytes in the program). */
static int find_orig(struct run *r, const uint8_t *before)
{
	r->orig = rt_code_orig_get(r->img, r->lo, r->hi - r->lo, before);
	if (r->orig)
		return 0;
	pr_err("the original bytes of the code at %" PRIxRADDR " are not "
	       "known (not in %s): it is left as it is", r->lo, r->img->path);
	return -ENODATA;
}

/* Patches run @r in @mode.  With @kept, a site the program has
 * rewritten is left alone and counted there; without it (the first
 * arming) every site is written.  Bytes found wrong once written go to
 * @bad. */
static int write_run(struct rt_mem *mem, struct run *r, enum arm_mode mode,
		     struct rt_arm_kept *kept, struct rt_arm_kept *bad)
{
	size_t len = r->hi - r->lo, n = r->last - r->first + 1;
	uint8_t *buf = xmalloc(len), *seen = NULL;
	bool *left = xcalloc(n, sizeof(*left));
	int err = rt_mem_read(mem, r->lo, buf, len);

	if (!err)
		err = find_orig(r, kept ? NULL : buf);
	/* each site is judged on the bytes as read: a region that holds
	 * another site's relay puts them back before that site is seen */
	if (!err && kept) {
		seen = xmalloc(len);
		memcpy(seen, buf, len);
	}
	for (size_t i = r->first; !err && i <= r->last; i++) {
		const struct rt_probe *pr = rt_plan_probe(r->plan, i);

		left[i - r->first] = kept && !site_ours(seen, r->lo, r->orig, pr);
		if (left[i - r->first])
			keep_site(kept, r->plan, pr);
		else
			write_site(buf, r->lo, r->orig, pr, mode);
	}
	if (!err)
		err = rt_mem_write(mem, r->lo, buf, len);
	r->left = left;
	if (!err && (mode != ARM_JUMPS || check_arming()))
		err = check_run(mem, r, mode, bad);
	free(left);
	free(seen);
	free(buf);
	return err;
}

static int patch_all(struct rt_process *p, struct rt_image *img,
		     enum arm_mode mode, struct rt_arm_kept *kept,
		     struct rt_arm_kept *bad)
{
	const struct rt_plan *plan = img->plan;
	size_t n = rt_plan_nprobes(plan), first = 0;

	for (size_t i = 1; i <= n; i++) {
		struct run r = { .img = img, .plan = plan, .first = first,
				 .last = i - 1 };
		rt_raddr a, b;
		int err;

		if (i < n && rt_plan_probe(plan, i)->addr -
					     rt_plan_probe(plan, i - 1)->addr <
				     RUN_GAP)
			continue;
		site_span(rt_plan_probe(plan, first), mode, &r.lo, &r.hi);
		for (size_t k = first + 1; k < i; k++) {
			site_span(rt_plan_probe(plan, k), mode, &a, &b);
			r.lo = MIN(r.lo, a);
			r.hi = MAX(r.hi, b);
		}
		err = write_run(p->mem, &r, mode, kept, bad);
		if (err)
			return err;
		first = i;
	}
	return 0;
}

int rt_arm_image(const struct rt_engine_ops *engine, struct rt_process *p,
		 struct rt_image *img, pid_t tid, int *deferred_sig)
{
	struct rt_plan *plan = img->plan;
	struct rt_arm_kept bad = { 0 };
	enum arm_mode mode = ARM_TRAPS;
	const uint8_t *code;
	rt_raddr base;
	size_t len;
	int err;

	if (!plan || rt_plan_nprobes(plan) == 0)
		return 0;
	err = map_scratch(p, img, tid, rt_plan_scratch_size(plan), &base,
			  deferred_sig);
	if (err)
		return err;
	engine->bind(p, plan, img == p->img);
	rt_plan_place(plan, base);
	code = rt_plan_scratch_code(plan, &len);
	err = rt_mem_write(p->mem, base, code, len);
	if (!err) {
		mode = engine->arm(p, plan, img == p->img, tid, deferred_sig)
			       ? ARM_JUMPS
			       : ARM_TRAPS;
		/* the guardian hears of the breakpoints before they are
		 * written: rtrace may die in between */
		rt_guardian_armed(p, plan, mode == ARM_JUMPS);
		err = patch_all(p, img, mode, NULL, &bad);
		rt_arm_kept_warn(p, &bad);
	}
	if (err) {
		pr_err("process %d: cannot write probes: %s", p->pid,
		       strerror(-err));
		return err;
	}
	rt_trapguard_note_plan(p, plan);
	pr_dbg("process %d: %zu probes armed, scratch at %" PRIxRADDR,
	       p->pid, rt_plan_nprobes(plan), base);
	rt_imageplan_debug_armed(plan, img->path, img->bias,
				 mode == ARM_JUMPS);
	return 0;
}

int rt_disarm_image(struct rt_process *p, struct rt_image *img,
		    struct rt_arm_kept *kept)
{
	if (!img || !img->plan || rt_plan_nprobes(img->plan) == 0)
		return 0;
	return patch_all(p, img, DISARM, kept, kept);
}

void rt_arm_kept_warn(const struct rt_process *p,
		      const struct rt_arm_kept *kept)
{
	if (kept->wrong_bytes)
		pr_warn("process %d: %zu byte%s of code in %zu place%s (the "
			"first at %" PRIxRADDR ") were not the original ones "
			"after rtrace wrote there; rtrace put them back",
			p->pid, kept->wrong_bytes, rt_s(kept->wrong_bytes),
			kept->wrong_places, rt_s(kept->wrong_places),
			kept->wrong_first);
	if (!kept->n)
		return;
	pr_warn("process %d: the program changed its code at %zu probe "
		"site%s (the first at %" PRIxRADDR "%s%s); rtrace left the "
		"program's bytes there",
		p->pid, kept->n, rt_s(kept->n), kept->first,
		kept->func ? ", in " : "", kept->func ? kept->func : "");
}

int rt_arm_traps_only(struct rt_process *p)
{
	struct rt_arm_kept kept = { 0 };
	int err;

	if (!p->img || !p->img->plan || !rt_plan_npatched(p->img->plan))
		return 0;
	rt_guardian_armed(p, p->img->plan, false);
	err = patch_all(p, p->img, ARM_TRAPS, &kept, &kept);
	rt_arm_kept_warn(p, &kept);
	return err;
}

int rt_disarm_process(struct rt_process *p)
{
	struct rt_arm_kept kept = { 0 };
	int err = rt_disarm_image(p, p->img, &kept);

	vec_for_each(&p->libs, lib)
		err = err ? err : rt_disarm_image(p, *lib, &kept);
	rt_arm_kept_warn(p, &kept);
	return err;
}
