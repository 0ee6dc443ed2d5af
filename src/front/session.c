// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Session flows.  This layer, with main.c, is where an error becomes the
 * one line a user reads and an exit status; the modules below return
 * -errno and have already said what went wrong.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PR_FMT "session"
#define PR_DOMAIN RT_DOM_MAIN
#include "rtrace/calibrate.h"
#include "rtrace/evlog.h"
#include "rtrace/hooks.h"
#include "rtrace/imageplan.h"
#include "rtrace/inlined.h"
#include "rtrace/interim.h"
#include "rtrace/launch.h"
#include "rtrace/log.h"
#include "rtrace/guardian.h"
#include "rtrace/rescue.h"
#include "rtrace/match.h"
#include "rtrace/output.h"
#include "rtrace/probes.h"
#include "rtrace/profsave.h"
#include "rtrace/progress.h"
#include "rtrace/report.h"
#include "rtrace/memprof.h"
#include "rtrace/merge.h"
#include "rtrace/session.h"
#include "rtrace/stackview.h"
#include "rtrace/stopsig.h"
#include "rtrace/symbols.h"
#include "rtrace/tracee.h"
#include "rtrace/tracer.h"
#include "rtrace/util.h"
#include "rtrace/views.h"
#include "rtrace/waitstatus.h"

#ifndef RTRACE_VERSION
#define RTRACE_VERSION "0"
#endif

/* What a run needs before the program starts. */
struct target {
	char *path;
	struct rt_symbols *syms;
	struct rt_matcher *matcher;
	struct rt_matcher *stop_at;   /* a script's break/on patterns */
	rt_str_vec include;
	char *default_glob;
	size_t *idx;
	size_t n;
	struct rt_inlined *inl;       /* their inlined instances, or NULL */
};

static void target_release(struct target *t)
{
	rt_inlined_free(t->inl);
	rt_symbols_free(t->syms);
	rt_matcher_free(t->matcher);
	rt_matcher_free(t->stop_at);
	vec_free(&t->include);
	free(t->default_glob);
	free(t->idx);
	free(t->path);
}

static int exit_for_open_error(int err)
{
	if (err == -ENOENT)
		return RT_EXIT_NOTFOUND;
	if (err == -ENOEXEC || err == -EACCES || err == -EISDIR)
		return RT_EXIT_NOEXEC;
	return RT_EXIT_USAGE;
}

/* 'CRATE::*' for the crate whose main is the program's entry. */
static char *default_glob(const struct rt_symbols *syms)
{
	char *crate = rt_symbols_main_crate(syms), *glob;

	if (!crate)
		return NULL;
	glob = xasprintf("%s::*", crate);
	free(crate);
	return glob;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The crates present, for the error about a pattern that matched nothing. */
static char *crate_list(const struct rt_symbols *syms)
{
	size_t n = rt_symbols_count(syms), k = 0, len = 0;
	char **crates = xcalloc(n + 1, sizeof(*crates)), *out;

	for (size_t i = 0; i < n; i++) {
		char *c = rt_crate_of(rt_symbols_func(syms, i)->name);

		if (c)
			crates[k++] = c;
	}
	qsort(crates, k, sizeof(*crates), cmp_str);
	out = xcalloc(1, 1);
	for (size_t i = 0; i < k; i++) {
		if (i && strcmp(crates[i], crates[i - 1]) == 0)
			continue;
		out = xrealloc(out, len + strlen(crates[i]) + 3);
		len += sprintf(out + len, "%s%s", len ? ", " : "", crates[i]);
	}
	for (size_t i = 0; i < k; i++)
		free(crates[i]);
	free(crates);
	return out;
}

/* How many functions include glob @i matches when excludes are left out:
 * a pattern whose every match an -e took away is not a typo. */
static size_t matches_before_excludes(const struct target *t, size_t i)
{
	size_t n = 0;

	for (size_t k = 0; k < rt_symbols_count(t->syms); k++) {
		const struct rt_func *fn = rt_symbols_func(t->syms, k);

		n += rt_glob_match(t->include.v[i], fn->name, fn->raw);
	}
	return n;
}

/* Whether include glob @i, which selects no symbol, selects functions
 * that exist only as inlined instances: a pattern the compiler made
 * vanish is not a typo, and the user is told how to count it. */
static bool only_inlined(struct target *t, size_t i)
{
	struct rt_inlined *inl = NULL;
	bool found;

	rt_inlined_find(t->syms, t->matcher, t->idx, t->n, &inl);
	found = rt_matcher_hits(t->matcher, i) != 0;
	rt_inlined_free(inl);
	return found;
}

/* What to do about a program without DWARF: cargo's release profile has
 * none unless asked (cargo rtrace asks). */
#define DEBUG_INFO_HINT                                                        \
	"build it with CARGO_PROFILE_RELEASE_DEBUG=true, or with cargo rtrace"

/* Whether the program has DWARF, where inlined calls are described. */
static bool has_dwarf(const struct target *t)
{
	uint64_t bias;

	return rt_symbols_dwarf(t->syms, &bias) != NULL;
}

/* A pattern must match in the program, unless the program starts others
 * (cargo running test binaries) and rtrace follows them: it is matched
 * again after every exec. */
static int check_hits(struct target *t, const struct rt_opts *o)
{
	bool later = !o->no_follow && rt_symbols_can_exec(t->syms);

	for (size_t i = 0; i < t->include.n; i++) {
		char *crates;
		size_t n;

		if (rt_matcher_hits(t->matcher, i))
			continue;
		n = o->exclude.n ? matches_before_excludes(t, i) : 0;
		if (n) {
			pr_err("pattern '%s' matches %zu function%s in %s, and "
			       "the excludes (-e) take away every one",
			       t->include.v[i], n, rt_s(n), t->path);
			return RT_EXIT_USAGE;
		}
		if (!o->inlined && only_inlined(t, i)) {
			pr_err("pattern '%s' matches only functions the "
			       "compiler inlined everywhere in %s: without "
			       "--no-inlined rtrace counts their calls",
			       t->include.v[i], t->path);
			return RT_EXIT_USAGE;
		}
		if (later) {
			pr_warn("pattern '%s' matches no function in %s; it "
				"starts other programs: rtrace will match "
				"in them", t->include.v[i], t->path);
			continue;
		}
		crates = crate_list(t->syms);
		if (!has_dwarf(t))
			pr_err("pattern '%s' matches no function in %s, which "
			       "has no debug information to find the "
			       "functions inlined everywhere (%s); crates in "
			       "it: %s", t->include.v[i], t->path,
			       DEBUG_INFO_HINT, crates);
		else
			pr_err("pattern '%s' matches no function in %s; "
			       "crates in it: %s", t->include.v[i], t->path,
			       crates);
		free(crates);
		return RT_EXIT_USAGE;
	}
	return 0;
}

static int select_functions(struct target *t, const struct rt_opts *o)
{
	int err;

	for (size_t i = 0; i < o->include.n; i++)
		vec_push(&t->include, o->include.v[i]);
	if (!t->include.n) {
		t->default_glob = default_glob(t->syms);
		if (!t->default_glob) {
			pr_err("%s: no Rust main function found; say what to "
			       "trace with -f GLOB", t->path);
			return RT_EXIT_USAGE;
		}
		vec_push(&t->include, t->default_glob);
	}
	for (size_t i = 0; i < o->also_trace.n; i++)
		vec_push(&t->include, o->also_trace.v[i]);
	if (rt_matcher_new(t->include.v, t->include.n, o->exclude.v,
			   o->exclude.n, &t->matcher))
		return RT_EXIT_USAGE;
	if (o->stop_at.n && rt_matcher_new(o->stop_at.v, o->stop_at.n, NULL,
					   0, &t->stop_at))
		return RT_EXIT_USAGE;
	t->n = rt_select_funcs(t->syms, t->matcher, &t->idx);
	/* a function the compiler inlined everywhere is selected too: by
	 * its instances */
	if (o->inlined)
		rt_inlined_find(t->syms, t->matcher, t->idx, t->n, &t->inl);
	/* a script says which of its lines holds a pattern that failed */
	if (o->hooks && o->hooks->check &&
	    o->hooks->check(o->hooks->ctx, &(struct rt_selection){
		    .syms = t->syms, .matcher = t->matcher,
		    .include = t->include.v, .ninclude = t->include.n,
		    .idx = t->idx, .n = t->n,
		    .later = !o->no_follow && rt_symbols_can_exec(t->syms) }))
		return RT_EXIT_USAGE;
	err = check_hits(t, o);
	if (!err && o->inlined && !has_dwarf(t))
		pr_warn("%s has no debug information: calls the compiler "
			"inlined are not counted, nor functions it inlined "
			"everywhere (%s)", t->path, DEBUG_INFO_HINT);
	return err;
}

/* The executable of running process @pid: its symbols are read through
 * /proc/PID/exe, which works even when the file was deleted or replaced. */
static int prepare_attach(struct target *t, pid_t pid)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;
	int err;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	if (kill(pid, 0) != 0 && errno == ESRCH) {
		pr_err("no process %d", pid);
		return RT_EXIT_USAGE;
	}
	/* the kernel lets a user trace only processes it may signal */
	if (kill(pid, 0) != 0 && errno == EPERM) {
		pr_err("process %d belongs to another user: the kernel does "
		       "not let you trace it (run rtrace as its user, or as "
		       "root)", pid);
		return RT_EXIT_TRACE;
	}
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0) {
		pr_err("cannot read %s: %s (is it yours, or a kernel "
		       "thread?)", link, strerror(errno));
		return RT_EXIT_TRACE;
	}
	buf[n] = '\0';
	t->path = xstrdup(buf);
	err = rt_symbols_open(link, 0, &t->syms);
	return err ? RT_EXIT_USAGE : 0;
}

/* The log must not overwrite the program (`-o PROG -- PROG` would cut
 * the user's binary down to a log), nor block on a fifo rtrace would wait
 * forever to open: a log is a new or a regular file, or a device such as
 * /dev/null.  A path that cannot be looked at now is left to the open. */
static int check_log_path(const struct rt_opts *o, const struct target *t)
{
	struct stat log, prog;

	if (!o->log_path || stat(o->log_path, &log) != 0)
		return 0;
	if (t->path && stat(t->path, &prog) == 0 && log.st_dev == prog.st_dev &&
	    log.st_ino == prog.st_ino) {
		pr_err("%s is the program being traced: give the log another "
		       "name (-o)", o->log_path);
		return RT_EXIT_USAGE;
	}
	if (!S_ISREG(log.st_mode) && !S_ISCHR(log.st_mode)) {
		pr_err("cannot write the log to %s: it is %s, not a file",
		       o->log_path, S_ISDIR(log.st_mode) ? "a directory"
				    : S_ISFIFO(log.st_mode) ? "a fifo"
				    : S_ISSOCK(log.st_mode) ? "a socket"
							     : "a device");
		return RT_EXIT_USAGE;
	}
	return 0;
}

static int prepare(struct target *t, const struct rt_opts *o)
{
	int err;

	if (o->attach_pid) {
		err = prepare_attach(t, o->attach_pid);
		if (!err)
			err = check_log_path(o, t);
		return err ? err : select_functions(t, o);
	}
	t->path = rt_launch_resolve(o->argv[0], &err);
	if (!t->path)
		return exit_for_open_error(err);
	err = check_log_path(o, t);
	if (err)
		return err;
	err = rt_symbols_open(t->path, 0, &t->syms);
	if (err)
		return exit_for_open_error(err);
	return select_functions(t, o);
}

/* ---- list ---------------------------------------------------------------- */

/* Inlined instances that could not be probed. */
static size_t count_refused_inlined(const struct rt_plan *plan)
{
	size_t n = 0;

	for (size_t i = 0; i < rt_plan_ninlined(plan); i++)
		n += rt_plan_inlined(plan, i)->why != RT_REFUSE_NONE;
	return n;
}

/* Whether the instructions a patched site moves to its trampoline end
 * with a call (whose return address is then the first byte after the
 * region, in the original code). */
static bool moves_call(const struct rt_probe *pr)
{
	rt_insn_vec insns = { 0 };
	bool call = false;

	if (!rt_arch_decode(pr->patch_orig, pr->patch_code, pr->patch_lo,
			    &insns) && insns.n)
		call = vec_last(&insns)->cls == RT_INSN_CALL ||
		       vec_last(&insns)->cls == RT_INSN_CALL_INDIRECT;
	vec_free(&insns);
	return call;
}

/* With -v: how a patched site of the function leads to its trampoline. */
static void list_patched(const struct rt_probe *pr)
{
	static const char *const how[] = {
		[RT_PATCH_JUMP] = "jump",
		[RT_PATCH_HOP] = "hop",
		[RT_PATCH_RETARGET] = "re-aimed branch",
	};

	printf("      %s at %s %#llx", how[pr->patch_how],
	       rt_imageplan_site_str(pr), (unsigned long long)pr->addr);
	if (pr->relay_lo)
		printf(", relay at %#llx", (unsigned long long)pr->relay_lo);
	if (pr->patch_join) {
		rt_raddr ret = pr->patch_lo + pr->patch_join;

		printf(", with the return at %#llx", (unsigned long long)ret);
	}
	if (moves_call(pr))
		printf(", moves a call");
	putchar('\n');
}

/* The sites of the function (the entries of inlined calls are listed
 * with their instances): with the jump engine those that keep a
 * breakpoint, and why; with -v every one, and how it is probed. */
static void list_sites(const struct rt_plan *plan,
		       const struct rt_plan_func *pf, bool inl)
{
	for (size_t i = 0; i < rt_plan_nprobes(plan); i++) {
		const struct rt_probe *pr = rt_plan_probe(plan, i);

		if (pr->func != pf->id || pr->kinds == RT_PROBE_INLINED ||
		    pr->joined)
			continue;
		if (pr->patch_len) {
			if (rt_log_verbose > 0)
				list_patched(pr);
		} else if (inl || rt_log_verbose > 0) {
			printf("      breakpoint at %s %#llx",
			       rt_imageplan_site_str(pr),
			       (unsigned long long)pr->addr);
			if (inl)
				printf(": %s", rt_inline_why_str(pr->inline_why));
			putchar('\n');
		}
	}
}

/* How the entry or exit of an inlined instance, at @addr, is probed: a
 * jump (with -v, through which relay when it hops), or a breakpoint and
 * why (with the inline engine).  Static storage. */
static const char *how_probed(const struct rt_plan *plan, rt_raddr addr)
{
	static char buf[96];
	const struct rt_probe *pr = rt_plan_lookup(plan, addr);

	if (!pr)
		return "breakpoint";
	if (rt_probe_inline(pr) && rt_log_verbose > 0 && pr->patch_len &&
	    pr->patch_how == RT_PATCH_HOP) {
		snprintf(buf, sizeof(buf), "jump (a hop, relay at %#llx)",
			 (unsigned long long)pr->relay_lo);
		return buf;
	}
	if (rt_probe_inline(pr))
		return "jump";
	if (pr->inline_why == RT_INLINE_OFF)
		return "breakpoint";
	snprintf(buf, sizeof(buf), "breakpoint (%s)",
		 rt_inline_why_str(pr->inline_why));
	return buf;
}

/* Each inlined instance of the function: the caller, the call's source
 * line, the entry address and how it is probed, and where its calls end
 * when they are timed. */
static void list_inlined(const struct rt_plan *plan,
			 const struct rt_plan_func *pf)
{
	for (size_t i = 0; i < rt_plan_ninlined(plan); i++) {
		const struct rt_plan_inlined *pi = rt_plan_inlined(plan, i);
		const struct rt_inlined_site *s = pi->site;

		if (pi->id != pf->id)
			continue;
		printf("      inlined into %s", s->caller ? s->caller->name
							 : "(no function)");
		if (s->call_file)
			printf(" (%s:%u)", s->call_file, s->call_line);
		printf(" at %#llx: %s", (unsigned long long)pi->addr,
		       pi->why ? rt_refusal_str(pi->why)
			       : how_probed(plan, pi->addr));
		if (pi->exit)
			printf("; ends at %#llx: %s",
			       (unsigned long long)pi->exit,
			       how_probed(plan, pi->exit));
		else if (!pi->why)
			printf("; not timed");
		if (pi->packed)
			printf("; vectorised: a pass may be several calls");
		putchar('\n');
	}
}

static void list_func(const struct rt_plan *plan,
		      const struct rt_plan_func *pf, bool inl)
{
	const struct rt_func *fn = pf->fn;
	unsigned sites = 0, patched = 0;
	char col[24] = "";

	if (pf->inlined_only) {
		printf("  %-12s %6s %5s %5s%s  %s", "inlined", "-", "-", "-",
		       inl ? "        " : "", fn->name);
		if (fn->file)
			printf("  (%s:%u)", fn->file, fn->line);
		putchar('\n');
		if (pf->why)
			printf("      not probed: %s (at %#llx)\n",
			       rt_refusal_str(pf->why),
			       (unsigned long long)pf->why_at);
		list_inlined(plan, pf);
		return;
	}
	if (pf->why) {
		printf("  %#-12llx %6llu %5s %5s  %s\n      not probed: %s "
		       "(at %#llx)\n", (unsigned long long)fn->addr,
		       (unsigned long long)fn->size, "-", "-", fn->name,
		       rt_refusal_str(pf->why),
		       (unsigned long long)pf->why_at);
		list_inlined(plan, pf);
		return;
	}
	for (size_t i = 0; inl && i < rt_plan_nprobes(plan); i++) {
		const struct rt_probe *pr = rt_plan_probe(plan, i);

		sites += pr->func == pf->id && pr->kinds != RT_PROBE_INLINED;
		patched += pr->func == pf->id && rt_probe_inline(pr);
	}
	if (inl)
		snprintf(col, sizeof(col), " %3u/%-3u", patched, sites);
	printf("  %#-12llx %6llu %5u %5u%s  %s", (unsigned long long)fn->addr,
	       (unsigned long long)fn->size, pf->nexit, pf->ntail, col,
	       fn->name);
	if (fn->file)
		printf("  (%s:%u)", fn->file, fn->line);
	putchar('\n');
	list_sites(plan, pf, inl);
	list_inlined(plan, pf);
}

/* Whether @pf, at index @i of the plan, is probed for rtrace's own use
 * rather than selected: the selected functions come first, @n of them,
 * then those that exist only inlined. */
static bool own_use(const struct rt_plan_func *pf, size_t i, size_t n)
{
	return i >= n && !pf->inlined_only;
}

/* Selected functions (@own false) or those probed for rtrace's own use,
 * and how many of those shown are refused. */
static size_t list_funcs(const struct rt_plan *plan, size_t n, bool own,
			 bool inl, size_t *refused)
{
	size_t shown = 0;

	*refused = 0;
	for (size_t i = 0; i < rt_plan_nfuncs(plan); i++) {
		const struct rt_plan_func *pf = rt_plan_func(plan, i);

		if (own_use(pf, i, n) != own)
			continue;
		list_func(plan, pf, inl);
		if (own)
			printf("      probed for rtrace: %s\n",
			       rt_imageplan_func_use(pf));
		shown++;
		*refused += !!pf->why;
	}
	return shown;
}

/* How many selected functions exist only inlined. */
static size_t count_inlined_only(const struct rt_plan *plan)
{
	size_t n = 0;

	for (size_t i = 0; i < rt_plan_nfuncs(plan); i++)
		n += rt_plan_func(plan, i)->inlined_only;
	return n;
}

/* The executable's bytes, as a process running it holds them before its
 * dynamic linker ran: what a run plans with. */
static int read_image_file(void *ctx, rt_raddr addr, void *buf, size_t len)
{
	return rt_symbols_read(ctx, addr, buf, len);
}

/* With -v: the functions probed for rtrace's own use. */
static void list_own(const struct rt_plan *plan, size_t n, bool inl)
{
	size_t refused, shown;

	if (rt_log_verbose < 1)
		return;
	printf("probed for rtrace's own use:\n");
	shown = list_funcs(plan, n, true, inl, &refused);
	printf("%zu probed, %zu cannot be probed\n", shown - refused, refused);
}

int rt_session_list(const struct rt_opts *o)
{
	struct target t = { 0 };
	struct rt_plan *plan = NULL;
	size_t refused = 0, shown, only;
	int code = prepare(&t, o);
	struct rt_imageplan_policy pol = rt_imageplan_policy_of(o, t.stop_at);
	/* what a run would patch */
	bool inl = rt_imageplan_jump_kinds(&pol) != 0;

	if (code)
		goto out;
	rt_imageplan_build(t.syms, t.idx, t.n, t.inl, &pol,
			   &(struct rt_imageplan_image){
				   .exe = true, .read = read_image_file,
				   .read_ctx = t.syms },
			   &plan);
	t.inl = NULL;  /* the plan's now */
	only = plan ? count_inlined_only(plan) : 0;
	printf("%zu of %zu function%s in %s selected by %s%s", t.n + only,
	       rt_symbols_count(t.syms) + only,
	       rt_s(rt_symbols_count(t.syms) + only), t.path, t.include.v[0],
	       t.include.n > 1 ? " and more" : "");
	if (only)
		printf(" (%zu of them exist only inlined)", only);
	printf(":\n  %-12s %6s %5s %5s%s  %s\n", "address", "size", "exits",
	       "tails", inl ? " jump   " : "", "function");
	shown = plan ? list_funcs(plan, t.n, false, inl, &refused) : 0;
	printf("%zu probed, %zu cannot be probed", shown - refused, refused);
	if (plan && rt_plan_ninlined(plan))
		printf("; %zu inlined instance%s probed, %zu not",
		       rt_plan_ninlined(plan) - count_refused_inlined(plan),
		       rt_s(rt_plan_ninlined(plan) -
			    count_refused_inlined(plan)),
		       count_refused_inlined(plan));
	putchar('\n');
	if (plan)
		list_own(plan, t.n, inl);
	rt_plan_put(plan);
out:
	target_release(&t);
	return code;
}

/* ---- record -------------------------------------------------------------- */


/* How often rtrace wakes up while the program runs: to see the time to
 * leave, to hand the log to the kernel at least once a second, and, with
 * the inline engine, to empty the rings while their threads go on (a
 * full ring stops its thread). */
static long tick_us(const struct rt_opts *o, bool leaving)
{
	if (o->engine != RT_ENGINE_TRAP)
		return 2000;
	return leaving ? 100000 : 1000000;
}

static char *join_args(const struct rt_opts *o)
{
	size_t len = 1;
	char *s;

	for (int i = 0; i < o->argc; i++)
		len += strlen(o->argv[i]) + 1;
	s = xcalloc(1, len);
	for (int i = 0; i < o->argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, o->argv[i]);
	}
	return s;
}

/* Whether the run records times, which a stop's cost is taken out of. */
static bool timed(const struct rt_opts *o)
{
	return !o->count_only && !o->coverage;
}

/*
 * Whether the stop cost is measured after the run rather than before.  The
 * jump probes stop the program seldom, often never inside a call, and
 * calibrating takes some 40 ms, more than many a whole traced run: after
 * the run it is measured only when a stop fell inside a call, and written
 * into the log's header.  With breakpoints everywhere it is measured
 * before, as is one for a profile made while recording (--keep), which
 * uses it at once.
 */
static bool late_cost(const struct rt_opts *o)
{
	return timed(o) && o->engine != RT_ENGINE_TRAP &&
	       o->keep.mode == RT_KEEP_ALL;
}

/* With --keep other than all: the profile made from the log's blocks as
 * they are written, for the profile block at the end. */
static struct rt_proftap *live_profile;

/* Hands every block @w writes to a new profile; with @drop, event blocks
 * go to it only. */
static struct rt_proftap *tap_profile(struct rt_evlog_writer *w,
				      const char *path, bool raw_times,
				      bool drop)
{
	struct rt_analysis_opts a = { .raw_times = raw_times,
				      .stop_cost_ns = -1 };
	struct rt_proftap *t = rt_proftap_new(path, &a);

	rt_evlog_set_tap(w, rt_proftap_blocks, t);
	rt_evlog_keep_events(w, !drop);
	return t;
}

/* Ends the profile of @t at @end and writes its block into @w, before
 * the end block; frees @t.  0 or -errno (said). */
static int write_profile(struct rt_evlog_writer *w, struct rt_proftap *t,
			 const struct rt_log_end *end)
{
	uint8_t *b = NULL;
	size_t n = 0;
	int err = rt_evlog_flush(w);

	rt_evlog_set_tap(w, NULL, NULL);
	if (!err)
		err = rt_proftap_finish(t, end, &b, &n);
	if (!err)
		err = rt_evlog_write_profile(w, b, n);
	if (err)
		pr_err("the log holds no profile: %s", strerror(-err));
	free(b);
	rt_proftap_free(t);
	return err;
}

static int open_log(const struct rt_opts *o, const struct target *t,
		    const struct rt_stop_cost *cost, pid_t pid,
		    struct rt_evlog_writer **w)
{
	char cwd[PATH_MAX] = "", host[256] = "";
	char *cmd = o->attach_pid ? xasprintf("%s (process %d, attached)",
					      t->path, pid)
				  : join_args(o);
	struct rt_log_info info = {
		.start_ns = now_ns(), .stop_cost_ns = cost->cost_ns[0],
		.cost = *cost, .pid = pid,
		.flags = (o->count_only ? RT_LOG_COUNT_ONLY : 0) |
			 (o->coverage ? RT_LOG_COVERAGE : 0) |
			 (o->attach_pid ? RT_LOG_ATTACHED : 0) |
			 (o->keep.mode == RT_KEEP_LAST ? RT_LOG_WINDOW : 0),
		.cmdline = cmd, .cwd = cwd, .host = host,
		.version = RTRACE_VERSION, .cost_later = late_cost(o),
	};
	struct timespec ts;
	int err;

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	gethostname(host, sizeof(host) - 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	info.start_real_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	err = rt_evlog_create(o->log_path, &info, w);
	free(cmd);
	if (!err && o->keep.mode == RT_KEEP_LAST) {
		err = rt_evlog_keep_last(*w, o->keep.ns, o->keep.bytes);
		if (err) {
			rt_evlog_close(*w, NULL);
			*w = NULL;
		}
	}
	if (!err && o->keep.mode != RT_KEEP_ALL)
		live_profile = tap_profile(*w, o->log_path, o->raw_times,
					   o->keep.mode == RT_KEEP_NONE);
	rt_interim_profile(live_profile);
	return err;
}

struct run_result {
	int status;       /* the program's wait status */
	bool ended;       /* it did end */
	bool failed;      /* rtrace lost control */
	bool detached;    /* rtrace let it go on */
	struct rt_tracer_stats st;
	uint64_t syscalls;  /* made while tracing */
	uint64_t ns;        /* time spent tracing */
	struct rt_tracer_stopped *stopped;  /* functions whose breakpoints
					     * stopped it, most first */
	size_t nstopped;
};

/* Whether to leave the program now: --duration is over, or rtrace was
 * told to stop while attached (a launched program gets the signal). */
static bool time_to_leave(const struct rt_opts *o, uint64_t t0)
{
	if (o->duration_ns && now_ns() - t0 >= o->duration_ns)
		return true;
	return o->attach_pid && rt_stopsig_count();
}

/* A script's probe action stopped a thread: the script says what next. */
static enum rt_step_result script_stop(struct rt_tracer *tr,
				       const struct rt_opts *o,
				       struct run_result *res)
{
	enum rt_stop_next next;
	pid_t pid = o->attach_pid ? o->attach_pid : rt_stopsig_child();

	/* the timer would interrupt the prompt's reads */
	rt_stopsig_tick(0);
	rt_progress_clear();
	next = o->hooks->on_stop(o->hooks->ctx, tr);
	rt_stopsig_tick(tick_us(o, o->duration_ns != 0 || o->attach_pid));

	if (next == RT_NEXT_KILL && pid > 0)
		kill(pid, SIGKILL);
	rt_tracer_resume(tr);
	if (next != RT_NEXT_DETACH)
		return RT_STEP_CONTINUE;
	res->detached = true;
	rt_tracer_detach(tr);
	return RT_STEP_ALL_EXITED;
}

/* The progress line and the interim reports, drawn when the loop is
 * awake anyway: after a stop, or the timer that empties the rings. */
static void show_progress(struct rt_tracer *tr, const struct rt_opts *o,
			  struct rt_evlog_writer *w)
{
	struct rt_tracer_stats st;
	struct rt_log_window win;
	bool window;

	if (rt_progress_report_asked()) {
		rt_progress_clear();
		rt_interim_start(o, w, stderr);
	}
	if (!rt_progress_due() || rt_interim_busy())
		return;
	rt_tracer_stats(tr, &st);
	window = rt_evlog_window_now(w, &win);
	rt_progress_draw(&(struct rt_progress_figures){
		.calls = st.calls, .events = rt_evlog_nevents(w),
		.stops = st.stops, .log_bytes = rt_evlog_size(w),
		.window = window, .window_bytes = window ? win.bytes : 0 });
}

static void trace_loop(struct rt_tracer *tr, const struct rt_opts *o,
		       struct rt_evlog_writer *w, struct run_result *res)
{
	uint64_t sys0 = rt_syscalls, t0 = now_ns();
	enum rt_step_result r;

	rt_progress_start(o);
	do {
		show_progress(tr, o, w);
		rt_stopsig_pass_on(tr);
		if (time_to_leave(o, t0)) {
			res->detached = true;
			rt_tracer_detach(tr);
			r = RT_STEP_ALL_EXITED;
			break;
		}
		r = rt_tracer_step(tr);
		if (r == RT_STEP_STOPPED)
			r = script_stop(tr, o, res);
	} while (r == RT_STEP_CONTINUE);
	rt_interim_wait();
	rt_progress_stop();
	res->syscalls = rt_syscalls - sys0;
	res->ns = now_ns() - t0;
	res->failed = r == RT_STEP_FAILED;
	res->ended = rt_tracer_exit_status(tr, &res->status);
	rt_tracer_stats(tr, &res->st);
	res->stopped = rt_tracer_stopped(tr, &res->nstopped);
}

/* What the tracer is told of @o and of target @t, whose symbols and
 * inlined calls it takes over.  A program rtrace launched dies with it
 * (@launched); one it attached to must outlive it. */
static struct rt_tracer_config tracer_config(const struct target *t,
					     const struct rt_opts *o,
					     bool launched)
{
	return (struct rt_tracer_config){
		.matcher = t->matcher, .follow = !o->no_follow,
		.exitkill = launched, .first_syms = t->syms,
		.first_idx = t->idx, .first_n = t->n,
		.first_inlined = t->inl, .inlined = o->inlined,
		.plan = rt_imageplan_policy_of(o, t->stop_at),
		.on_hit = o->hooks ? o->hooks->on_hit : NULL,
		.hit_ctx = o->hooks ? o->hooks->ctx : NULL,
	};
}

static int launch_and_trace(struct target *t, const struct rt_opts *o,
			    const struct rt_stop_cost *cost,
			    struct rt_evlog_writer **w,
			    struct run_result *res)
{
	struct rt_tracer_config cfg = tracer_config(t, o, true);
	struct rt_tracer *tr;
	pid_t pid;

	rt_stopsig_catch(true);
	if (rt_launch(t->path, o->argv, rt_tracee_options(true, true), &pid)) {
		rt_stopsig_catch(false);
		return RT_EXIT_TRACE;
	}
	rt_stopsig_set_child(pid);
	rt_fault("launched");
	rt_stopsig_tick(tick_us(o, o->duration_ns != 0));
	if (open_log(o, t, cost, pid, w)) {
		/* it is stopped before its exec: nothing of it has run */
		kill(pid, SIGKILL);
		rt_stopsig_catch(false);
		return RT_EXIT_USAGE;
	}
	cfg.log = *w;
	t->syms = NULL;  /* the tracer owns it now */
	t->inl = NULL;
	tr = rt_tracer_new(&cfg, pid);
	if (o->hooks && o->hooks->started)
		o->hooks->started(o->hooks->ctx, pid, false);
	trace_loop(tr, o, *w, res);
	if (res->failed && !res->ended)
		kill(pid, SIGKILL);
	rt_tracer_free(tr);
	rt_stopsig_set_child(0);
	rt_stopsig_tick(0);
	rt_stopsig_catch(false);
	return res->failed ? RT_EXIT_TRACE : 0;
}

/* Scripts wait for this line before they drive the program. */
static void announce_attach(const struct rt_opts *o, const struct target *t)
{
	char d[32];

	if (o->quiet)
		return;
	if (o->duration_ns)
		fprintf(stderr, "rtrace: attached to process %d (%s); tracing "
			"for %s\n", o->attach_pid, t->path,
			rt_fmt_duration(d, sizeof(d), o->duration_ns));
	else
		fprintf(stderr, "rtrace: attached to process %d (%s); tracing "
			"until Ctrl-C or SIGTERM\n", o->attach_pid, t->path);
}

static int attach_and_trace(struct target *t, const struct rt_opts *o,
			    const struct rt_stop_cost *cost,
			    struct rt_evlog_writer **w, struct run_result *res)
{
	struct rt_tracer_config cfg = tracer_config(t, o, false);
	struct rt_tracer *tr;
	int err;

	if (open_log(o, t, cost, o->attach_pid, w))
		return RT_EXIT_USAGE;
	cfg.log = *w;
	rt_stopsig_catch(true);
	rt_stopsig_tick(tick_us(o, true));
	t->syms = NULL;  /* the tracer owns it now, whatever happens */
	t->inl = NULL;
	/* the program must outlive a kill -9 of rtrace */
	err = rt_guardian_start();
	if (err)
		pr_warn("no guardian (%s): if rtrace is killed, the program "
			"may die with it", strerror(-err));
	err = rt_tracer_attach(&cfg, o->attach_pid, &tr);
	if (!err) {
		rt_rescue_arm(tr);
		rt_fault("attached");
		announce_attach(o, t);
		if (o->hooks && o->hooks->started)
			o->hooks->started(o->hooks->ctx, o->attach_pid, true);
		trace_loop(tr, o, *w, res);
		rt_rescue_disarm();
		rt_tracer_free(tr);
	}
	rt_guardian_stop();
	rt_stopsig_tick(0);
	rt_stopsig_catch(false);
	if (err)
		res->failed = true;
	return err ? RT_EXIT_TRACE : 0;
}

/* A flight recorder's log: what its window kept. */
static void print_window(const struct rt_log_window *win)
{
	char d[32], e[32], b[32], x[32];

	if (!win->events) {
		fprintf(stderr, "rtrace: flight recorder: no event kept\n");
		return;
	}
	fprintf(stderr, "rtrace: flight recorder: the log keeps the last %s "
		"of events (%s event%s, %s); %s event%s before them "
		"dropped\n",
		rt_fmt_duration(d, sizeof(d), win->end_ns > win->first_ts ?
					win->end_ns - win->first_ts : 0),
		rt_fmt_count(e, sizeof(e), win->events), rt_s(win->events),
		rt_fmt_bytes(b, sizeof(b), win->bytes),
		rt_fmt_count(x, sizeof(x), win->dropped_events),
		rt_s(win->dropped_events));
}

/* Over this, the end line says how to get the same table from less disk. */
#define BIG_LOG_BYTES (100ull << 20)

/* A whole log this large is rarely wanted whole: the table needs no
 * events, and a flight recorder bounds them. */
static void print_size_hint(const struct rt_opts *o)
{
	struct stat st;
	char b[32];

	if (o->keep.mode != RT_KEEP_ALL || stat(o->log_path, &st) ||
	    !S_ISREG(st.st_mode) || (uint64_t)st.st_size < BIG_LOG_BYTES)
		return;
	fprintf(stderr, "rtrace: the log is %s: --keep=none makes the same "
		"table and profile without the events (the tree, replay and "
		"exports need them); --keep=64M keeps the last 64 MiB of "
		"them\n", rt_fmt_bytes(b, sizeof(b), (uint64_t)st.st_size));
}

static void print_summary(const struct rt_opts *o, const struct target *t,
			  const struct run_result *res, uint64_t events,
			  uint64_t dropped, uint32_t space_cut,
			  const struct rt_log_window *win)
{
	char c[32], e[32];

	if (o->quiet)
		return;
	fprintf(stderr, "rtrace: traced %llu function%s (%s), %s hit%s, %s "
		"event%s in %llu thread%s; log: %s\n",
		(unsigned long long)res->st.funcs, rt_s(res->st.funcs),
		t->include.v[0],
		rt_fmt_count(c, sizeof(c), res->st.hits + res->st.inline_events),
		rt_s(res->st.hits + res->st.inline_events),
		rt_fmt_count(e, sizeof(e), events), rt_s(events),
		(unsigned long long)res->st.threads, rt_s(res->st.threads),
		o->log_path);
	if (win)
		print_window(win);
	if (space_cut == RT_END_FSIZE)
		fprintf(stderr, "rtrace: the log is cut at rtrace's file size "
			"limit (ulimit -f; recording stopped early); its "
			"report covers what was recorded\n");
	else if (space_cut)
		fprintf(stderr, "rtrace: the log is cut for space (disk "
			"space ran low, recording stopped early); its report "
			"covers what was recorded\n");
	else if (dropped)
		fprintf(stderr, "rtrace: the log is cut short (a write "
			"failed); its report covers what was written\n");
	if (res->st.inline_dropped || res->st.inline_damaged)
		fprintf(stderr, "rtrace: the program wrote over its event "
			"rings: calls are missing from the log (warnings "
			"above)\n");
	if (res->st.inline_unrecorded)
		fprintf(stderr, "rtrace: %s %s not recorded (warnings "
			"above): calls are missing from the log\n",
			rt_fmt_count(c, sizeof(c), res->st.inline_unrecorded),
			res->st.inline_unrecorded == 1 ? "event was" :
							 "events were");
	if (res->st.refused)
		fprintf(stderr, "rtrace: %llu selected function%s cannot be "
			"probed; rtrace -l says why\n",
			(unsigned long long)res->st.refused,
			rt_s(res->st.refused));
}

/* The inline engine's share: of the sites, and of the events. */
static void print_inline_stats(const struct rt_tracer_stats *st)
{
	char a[32], b[32], c[32];
	uint64_t all = st->inline_events + st->hits;

	if (!st->inline_sites)
		return;
	fprintf(stderr, "rtrace: stats: jump probes: %s of %s function site%s "
		"patched (%.1f %%), %s event%s recorded without a stop "
		"(%.2f %%)\n",
		rt_fmt_count(a, sizeof(a), st->inline_sites),
		rt_fmt_count(b, sizeof(b), st->sites), rt_s(st->sites),
		100.0 * st->inline_sites / (st->sites ? st->sites : 1),
		rt_fmt_count(c, sizeof(c), st->inline_events),
		rt_s(st->inline_events),
		100.0 * st->inline_events / (all ? all : 1));
}

/* The probes of the inlined calls: an entry each, an end each timed one;
 * how many are jumps. */
static void print_inlined_stats(const struct rt_tracer_stats *st)
{
	char a[32], b[32], c[32], d[32];

	if (!st->inl_instances)
		return;
	fprintf(stderr, "rtrace: stats: inlined calls: %s instance%s probed, "
		"%s of them timed (their end probed too); %s probe%s, %s of "
		"them jumps\n",
		rt_fmt_count(a, sizeof(a), st->inl_instances),
		rt_s(st->inl_instances),
		rt_fmt_count(b, sizeof(b), st->inl_timed),
		rt_fmt_count(c, sizeof(c), st->inl_instances + st->inl_timed),
		rt_s(st->inl_instances + st->inl_timed),
		rt_fmt_count(d, sizeof(d), st->inl_jumps));
}

#define STOPPED_SHOWN 8

/* With the inline engine: where the stops that are left come from. */
static void print_stopped(const struct run_result *res)
{
	char c[32];

	if (!res->st.inline_sites || !res->nstopped)
		return;
	fputs("rtrace: stats: stops at breakpoints in ", stderr);
	for (size_t i = 0; i < res->nstopped && i < STOPPED_SHOWN; i++)
		fprintf(stderr, "%s%s (%s)", i ? ", " : "",
			res->stopped[i].name,
			rt_fmt_count(c, sizeof(c), res->stopped[i].stops));
	if (res->nstopped > STOPPED_SHOWN)
		fprintf(stderr, " and %zu more function%s",
			res->nstopped - STOPPED_SHOWN,
			rt_s(res->nstopped - STOPPED_SHOWN));
	fputs(" (rtrace -l says why)\n", stderr);
}

/* --stats: what the tracing cost, per probe hit. */
static void print_stats(const struct run_result *res, uint64_t events)
{
	char h[32], s[32], sc[32], d[32];
	uint64_t all = res->st.hits + res->st.inline_events;
	double hits = all ? (double)all : 1;

	fprintf(stderr, "rtrace: stats: %s probe hit%s, %s ptrace stop%s "
		"(%.3f per hit), %s system call%s (%.2f per hit), %s event%s\n",
		rt_fmt_count(h, sizeof(h), all), rt_s(all),
		rt_fmt_count(s, sizeof(s), res->st.stops), rt_s(res->st.stops),
		res->st.stops / hits, rt_fmt_count(sc, sizeof(sc), res->syscalls),
		rt_s(res->syscalls), res->syscalls / hits,
		rt_fmt_count(d, sizeof(d), events), rt_s(events));
	/* with events recorded in the program, the time is not the stops' */
	if (res->st.inline_events)
		fprintf(stderr, "rtrace: stats: %s tracing\n",
			rt_fmt_duration(d, sizeof(d), res->ns));
	else
		fprintf(stderr, "rtrace: stats: %s tracing, %.2f µs per stop\n",
			rt_fmt_duration(d, sizeof(d), res->ns),
			res->st.stops ? res->ns / 1e3 / res->st.stops : 0.0);
	print_inline_stats(&res->st);
	print_inlined_stats(&res->st);
	print_stopped(res);
}

static int finish_log(struct rt_evlog_writer *w, const struct run_result *res,
		      uint64_t *events, uint64_t *dropped, uint32_t *space_cut,
		      struct rt_log_window *win)
{
	struct rt_log_end end = {
		.end_ns = now_ns(), .status = res->status,
		.how = res->failed ? RT_END_FAILED :
		       res->detached ? RT_END_DETACHED :
		       rt_stopsig_count() ? RT_END_INTERRUPTED : RT_END_EXITED,
		.stops = res->st.stops, .events = rt_evlog_nevents(w),
		.dropped = rt_evlog_ndropped(w),
	};

	*events = end.events;
	*dropped = end.dropped;
	rt_interim_profile(NULL);
	if (live_profile)
		write_profile(w, live_profile, &end);
	live_profile = NULL;
	*space_cut = rt_evlog_space_cut(w);
	/* the last blocks join the window first */
	rt_evlog_flush(w);
	if (rt_evlog_window_now(w, win))
		win->end_ns = end.end_ns;
	return rt_evlog_close(w, &end);
}

static int report_log(const struct rt_opts *o, const char *path, FILE *out);
static int report_memory(struct rt_evlog_reader *r, const struct rt_opts *o,
			 FILE *out, bool alone);

int rt_session_record(const struct rt_opts *o)
{
	struct target t = { 0 };
	struct rt_evlog_writer *w = NULL;
	struct run_result res = { 0 };
	struct rt_stop_cost cost;
	uint64_t events = 0, dropped = 0;
	struct rt_log_window win = { 0 };
	uint32_t space_cut = 0;
	int code = prepare(&t, o);

	rt_stopsig_reset();
	rt_progress_listen();
	if (code)
		goto out;
	rt_launch_ignore_sigxfsz();
	memset(&cost, 0, sizeof(cost));
	if (timed(o) && !late_cost(o))
		rt_calibrate_stop_cost(&cost);
	if (o->attach_pid)
		code = attach_and_trace(&t, o, &cost, &w, &res);
	else
		code = launch_and_trace(&t, o, &cost, &w, &res);
	rt_fault("ended");
	if (w && late_cost(o) && (res.st.hits || res.st.stops_timed) &&
	    !rt_calibrate_stop_cost(&cost))
		rt_evlog_set_cost(w, &cost);
	if (w)
		finish_log(w, &res, &events, &dropped, &space_cut, &win);
	if (code)
		goto out;
	/* a program rtrace launched gives its status; one it left running,
	 * or joined and left, gives none */
	code = res.ended && !o->attach_pid ? rt_waitstatus_shell_code(res.status)
	       : res.ended || res.detached ? RT_EXIT_OK : RT_EXIT_TRACE;
	print_summary(o, &t, &res, events, dropped, space_cut,
		      o->keep.mode == RT_KEEP_LAST ? &win : NULL);
	if (o->stats)
		print_stats(&res, events);
	if (!rt_views_live(o) && o->cmd == RT_CMD_RUN)
		report_log(o, o->log_path, NULL);
	/* last, where it is read: under the table */
	if (!o->quiet)
		print_size_hint(o);
out:
	rt_tracer_stopped_free(res.stopped, res.nstopped);
	target_release(&t);
	return code;
}

/* ---- report -------------------------------------------------------------- */

static int report_log(const struct rt_opts *o, const char *path, FILE *out)
{
	struct rt_evlog_reader *r;
	struct rt_report *rep = NULL;
	FILE *f = out;
	int err = rt_evlog_open(path, &r);

	if (err)
		return RT_EXIT_USAGE;
	err = rt_report_build(r, o, path, &rep);
	if (!err && !f && o->report_path) {
		f = fopen(o->report_path, "w");
		if (!f)
			pr_err("cannot write %s: %s", o->report_path,
			       strerror(errno));
	}
	if (!err && !f)
		f = o->report_path ? NULL : stderr;
	if (!err && f)
		err = rt_output_for(o->format)->write(f, rep, o);
	/* the live run with --mem shows the memory after the times */
	if (!err && f && o->mem && o->cmd == RT_CMD_RUN)
		report_memory(r, o, f, false);
	if (f && f != out && f != stderr)
		fclose(f);
	rt_report_free(rep);
	rt_evlog_reader_free(r);
	return err ? RT_EXIT_USAGE : RT_EXIT_OK;
}

/* The memory profile of @r to @out; a log without allocator probes is an
 * error only when memory was all that was asked for. */
static int report_memory(struct rt_evlog_reader *r, const struct rt_opts *o,
			 FILE *out, bool alone)
{
	struct rt_memprof *m = NULL;
	int err = rt_memprof_build(r, &m);

	if (err == -ENODATA) {
		pr_err("%s holds no memory profile: record it with --mem",
		       o->log_path);
		return alone ? RT_EXIT_USAGE : RT_EXIT_OK;
	}
	if (!err)
		err = o->heap_series ? rt_memprof_print_series(out, m)
				     : rt_memprof_print(out, m, r, o);
	rt_memprof_free(m);
	return err ? RT_EXIT_USAGE : RT_EXIT_OK;
}

static int report_stacks(const struct rt_opts *o)
{
	struct rt_evlog_reader *r;
	int err = rt_evlog_open(o->log_path, &r);

	if (err)
		return RT_EXIT_USAGE;
	err = rt_views_need_events(r, o->log_path);
	if (!err)
		err = rt_stackview_print(r, o, stdout);
	rt_evlog_reader_free(r);
	return err ? RT_EXIT_USAGE : RT_EXIT_OK;
}

static int report_mem_only(const struct rt_opts *o)
{
	struct rt_evlog_reader *r;
	int code;

	if (rt_evlog_open(o->log_path, &r))
		return RT_EXIT_USAGE;
	code = rt_views_need_events(r, o->log_path);
	if (!code)
		code = report_memory(r, o, stdout, true);
	rt_evlog_reader_free(r);
	return code;
}

/* Whether @a and @b name one file (writing one would empty the other). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* report --save-profile: the log's blocks go through the tap that a
 * recording with --keep=none uses, into a log that keeps the profile. */
static int save_profile(const struct rt_opts *o)
{
	struct rt_evlog_reader *r;
	struct rt_evlog_writer *w;
	struct rt_proftap *t;
	size_t n;
	int err;

	if (same_file(o->log_path, o->save_profile)) {
		pr_err("--save-profile=%s would write over the log it reads",
		       o->save_profile);
		return RT_EXIT_USAGE;
	}
	if (rt_evlog_open(o->log_path, &r))
		return RT_EXIT_USAGE;
	err = rt_evlog_create(o->save_profile, rt_evlog_info(r), &w);
	if (err) {
		rt_evlog_reader_free(r);
		return RT_EXIT_USAGE;
	}
	t = tap_profile(w, o->save_profile, o->raw_times, true);
	err = rt_evlog_replay(r, w);
	if (!err && rt_evlog_profile(r, &n)) {
		pr_err("%s holds a profile already", o->log_path);
		err = -EINVAL;
	}
	if (!err) {
		err = write_profile(w, t, rt_evlog_end(r));
	} else {
		rt_evlog_set_tap(w, NULL, NULL);
		rt_proftap_free(t);
	}
	if (rt_evlog_close(w, rt_evlog_end(r)) && !err)
		err = -EIO;
	/* half a conversion is no log to keep */
	if (err)
		unlink(o->save_profile);
	rt_evlog_reader_free(r);
	return err ? RT_EXIT_USAGE : RT_EXIT_OK;
}

int rt_session_report(const struct rt_opts *o)
{
	if (o->save_profile)
		return save_profile(o);
	if (o->argc > 1)
		return rt_merge_report(o, o->argv, o->argc, stdout);
	if (o->show_stacks)
		return report_stacks(o);
	if (o->mem)
		return report_mem_only(o);
	return report_log(o, o->log_path, stdout);
}
