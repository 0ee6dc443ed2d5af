// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probe actions: what a script does at a traced function's entry or exit
 * while the program runs.  `on GLOB entry|exit do ...` acts and lets the
 * thread go on; `break` and `tbreak` keep it stopped, and then the
 * commands that look at a stopped thread (backtrace, print, info threads,
 * finish) run here.  The tracer asks rt_sess_on_hit() at every hit of a
 * traced function until it answers RT_HIT_NEVER for that function.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/archreg.h"
#include "rtrace/evlog.h"
#include "rtrace/match.h"
#include "rtrace/tracer.h"
#include "rtrace/util.h"
#include "rtrace/values.h"
#include "script-int.h"

#define BACKTRACE_MAX 256

void rt_sess_fail(struct rt_script_session *s, const struct rt_script_cmd *c,
		  const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "rtrace: %s:%u:%u: ", c->file, c->line, c->col);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	s->failed++;
}

/* ---- values --------------------------------------------------------------- */

/* One value of `print` at a hit whose registers are @r; false when it has
 * none there (retval at an entry). */
static bool pvalue(const struct rt_pval *v, const struct rt_regs *r,
		   pid_t tid, bool at_exit, uint64_t *out)
{
	switch (v->kind) {
	case RT_PV_ARG:
		*out = rt_arch_arg(r, v->arg);
		return true;
	case RT_PV_RETVAL:
		*out = rt_arch_retval(r);
		return at_exit;
	case RT_PV_TID:
		*out = (uint64_t)tid;
		return true;
	case RT_PV_REG:
		return rt_arch_reg_by_name(r, v->text + 1, out);
	case RT_PV_NAME:
		break;
	}
	return false;
}

static void print_values(FILE *f, const struct rt_pval *vals, size_t n,
			 const struct rt_regs *r, pid_t tid, bool at_exit)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 0;

		fprintf(f, "%s%s = ", i ? "  " : "", vals[i].text);
		if (!pvalue(&vals[i], r, tid, at_exit, &v))
			fputs("(none at an entry)", f);
		else if (vals[i].kind == RT_PV_TID)
			fprintf(f, "%" PRIu64, v);
		else
			fprintf(f, "%" PRIu64 " (%#" PRIx64 ")", v, v);
	}
	fputc('\n', f);
}

/* A stopped thread whose values are printed, at a stop or at a hit. */
struct where {
	struct rt_tracer *tr;
	pid_t tid;
	const char *name;             /* its function */
	const struct rt_regs *regs;   /* ip at the probe */
	bool exit;
	const char *prefix;           /* before each line, or NULL */
};

/* Writes @text (whole lines) with @prefix before each. */
static void put_prefixed(const char *text, const char *prefix)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		printf("%s%.*s\n", prefix, (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* A value printed from the DWARF, with its type: an argument by name,
 * args, or retval. */
static int print_typed(struct rt_script_session *s,
		       const struct rt_script_cmd *c, const struct rt_pval *v,
		       const struct where *w)
{
	struct rt_vframe fr = { .regs = *w->regs, .at_exit = w->exit };
	struct rt_fpregs fp;
	const char *why = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int err = f ? rt_tracer_thread_view(w->tr, w->tid, &fr.dwfl, &fr.mem)
		    : -ENOMEM;

	/* the thread is stopped at the probe: its float registers are
	 * those of the stop (without them, floats print <unreadable>) */
	if (!err && rt_tracee_getfpregs(w->tid, &fp) == 0)
		fr.fp = &fp;
	if (!err)
		err = rt_values_print(f, &fr, v->text, &why);
	if (err == -ENODATA && v->kind == RT_PV_RETVAL) {
		/* no DWARF for it: the register, as without types */
		print_values(f, v, 1, w->regs, w->tid, true);
		err = 0;
	}
	if (f)
		fclose(f);
	if (!err)
		put_prefixed(text, w->prefix ?: "");
	free(text);
	if (err == -ENOENT)
		rt_sess_fail(s, c, "print: %s has no argument '%s' (print "
			     "args lists them)", w->name, v->text);
	else if (err)
		rt_sess_fail(s, c, "print %s: %s (%s)", v->text,
			     why ?: "the debug information cannot be read",
			     w->name);
	return err ? -EINVAL : 0;
}

static bool is_typed(const struct rt_pval *v)
{
	return v->kind == RT_PV_NAME || v->kind == RT_PV_RETVAL;
}

/* Registers share a line, as they always have; a typed value has its
 * own (args: one per argument). */
static int print_mixed(struct rt_script_session *s,
		       const struct rt_script_cmd *c,
		       const struct rt_pval *vals, size_t n,
		       const struct where *w)
{
	int err = 0;

	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && !is_typed(&vals[j]); j++)
			;
		if (j > i) {
			fputs(w->prefix ?: "", stdout);
			print_values(stdout, vals + i, j - i, w->regs, w->tid,
				     w->exit);
		}
		if (j < n)
			err = print_typed(s, c, &vals[j++], w) ?: err;
	}
	return err;
}

/* ---- counters ----------------------------------------------------------- */

static struct rt_counter *counter(struct rt_script_session *s,
				  const char *name)
{
	vec_for_each(&s->counters, k)
		if (strcmp(k->name, name) == 0)
			return k;
	return vec_push_zero(&s->counters);
}

uint64_t rt_sess_counter(const struct rt_script_session *s, const char *name)
{
	vec_for_each(&s->counters, k)
		if (strcmp(k->name, name) == 0)
			return k->n;
	return 0;
}

/* ---- at a hit ----------------------------------------------------------- */

static void act(struct rt_script_session *s, const struct rt_script_cmd *a,
		const struct rt_hit *hit)
{
	struct rt_counter *k;
	struct rt_regs regs;
	char *prefix;

	switch (a->action) {
	case RT_ACT_COUNT:
		k = counter(s, a->name);
		k->name = a->name;
		k->n++;
		return;
	case RT_ACT_LOG:
		printf("%s %s:", hit->name, a->at_exit ? "exit" : "entry");
		for (size_t i = 4; i < a->nwords; i++)
			printf(" %s", a->words[i]);
		putchar('\n');
		break;
	case RT_ACT_PRINT:
		/* $pc is the probe's address, as at a stop */
		regs = *hit->regs;
		rt_arch_set_ip(&regs, hit->site);
		prefix = xasprintf("%s %s: ", hit->name,
				   a->at_exit ? "exit" : "entry");
		print_mixed(s, a, a->vals, a->nvals,
			    &(struct where){ hit->tr, hit->tid, hit->name,
					     &regs, a->at_exit, prefix });
		free(prefix);
		break;
	}
	/* in order with what the program itself writes meanwhile */
	fflush(stdout);
}

/* Runs the on-actions that match; whether any names the function. */
static bool run_actions(struct rt_script_session *s, const struct rt_hit *hit)
{
	bool any = false;

	vec_for_each(&s->actions, it) {
		const struct rt_script_cmd *a = *it;

		if (!rt_glob_match(a->glob, hit->name, hit->raw))
			continue;
		any = true;
		if (a->at_exit ? hit->exit : hit->entry)
			act(s, a, hit);
	}
	return any;
}

/* The break that stops this hit, if one does; whether any names it. */
static bool match_breaks(struct rt_script_session *s, const struct rt_hit *hit,
			 struct rt_brk **stop)
{
	bool any = false;

	vec_for_each(&s->breaks, b) {
		if (b->deleted ||
		    !rt_glob_match(b->cmd->glob, hit->name, hit->raw))
			continue;
		any = true;
		if (!hit->entry || *stop)
			continue;
		b->hits++;
		if (s->skip) {
			s->skip--;
			continue;
		}
		*stop = b;
	}
	return any;
}

static void hold(struct rt_script_session *s, const struct rt_hit *hit,
		 unsigned brk)
{
	struct rt_stopped *st = &s->stop;

	free(st->name);
	*st = (struct rt_stopped){
		.on = true, .pid = hit->pid, .tid = hit->tid, .func = hit->func,
		.name = xstrdup(hit->name), .entry = hit->entry,
		.exit = hit->exit, .brk = brk, .regs = *hit->regs,
	};
	/* the trap left the ip past the breakpoint: where the function is
	 * is where the stack is unwound from */
	rt_arch_set_ip(&st->regs, hit->site);
}

int rt_sess_on_hit(void *ctx, const struct rt_hit *hit)
{
	struct rt_script_session *s = ctx;
	struct rt_brk *b = NULL;
	bool any = run_actions(s, hit);
	bool finished;

	any |= match_breaks(s, hit, &b);
	finished = s->finish.on && hit->func == s->finish.func;
	any |= finished;
	if (finished && hit->exit && hit->tid == s->finish.tid &&
	    rt_arch_sp(hit->regs) == s->finish.sp) {
		s->finish.on = false;
		hold(s, hit, 0);
		return RT_HIT_STOP;
	}
	if (b) {
		if (b->cmd->kind == RT_SC_TBREAK)
			b->deleted = true;
		hold(s, hit, b->id);
		return RT_HIT_STOP;
	}
	return any ? RT_HIT_GO : RT_HIT_NEVER;
}

/* ---- break, tbreak, delete, on ------------------------------------------ */

void rt_sess_probe_cmd(struct rt_script_session *s,
		       const struct rt_script_cmd *c)
{
	size_t n = 0;

	switch (c->kind) {
	case RT_SC_BREAK:
	case RT_SC_TBREAK:
		vec_push(&s->breaks, ((struct rt_brk){ .id = ++s->next_brk,
						       .cmd = c }));
		break;
	case RT_SC_ON:
		vec_push(&s->actions, c);
		break;
	case RT_SC_DELETE:
		vec_for_each(&s->breaks, b) {
			if (b->deleted || (c->glob &&
					   strcmp(b->cmd->glob, c->glob) != 0))
				continue;
			b->deleted = true;
			n++;
		}
		if (!n && c->glob)
			rt_sess_fail(s, c, "delete: no break on %s", c->glob);
		break;
	default:
		break;
	}
}

/* ---- a stopped thread ---------------------------------------------------- */

static void backtrace(struct rt_script_session *s,
		      const struct rt_script_cmd *c)
{
	struct rt_log_frame *fr = xcalloc(BACKTRACE_MAX, sizeof(*fr));
	size_t max = c->n ? MIN(c->n, BACKTRACE_MAX) : BACKTRACE_MAX;
	size_t n = rt_tracer_backtrace(s->stop.tr, &s->stop.regs, fr, max);

	if (!n)
		rt_sess_fail(s, c, "backtrace: the stack of thread %d cannot "
			     "be unwound", s->stop.tid);
	for (size_t i = 0; i < n; i++) {
		printf("#%-2zu %s", i, fr[i].name);
		if (fr[i].file)
			printf(" at %s:%u", fr[i].file, fr[i].line);
		putchar('\n');
		free((char *)fr[i].name);
		free((char *)fr[i].file);
	}
	free(fr);
}

static void info_threads(struct rt_script_session *s)
{
	struct rt_traced_thread t[512];
	size_t n = rt_tracer_threads(s->stop.tr, t, ARRAY_SIZE(t));

	printf("  %-8s %-8s %s\n", "tid", "pid", "name");
	for (size_t i = 0; i < n && i < ARRAY_SIZE(t); i++)
		printf("%c %-8d %-8d %s\n", t[i].held ? '*' : ' ', t[i].tid,
		       t[i].pid, t[i].name);
}

static int print_stopped(struct rt_script_session *s,
			 const struct rt_script_cmd *c)
{
	struct rt_stopped *st = &s->stop;
	struct where w = { st->tr, st->tid, st->name, &st->regs, st->exit,
			   NULL };

	for (size_t i = 0; i < c->nvals; i++)
		if (c->vals[i].kind == RT_PV_RETVAL && !st->exit) {
			rt_sess_fail(s, c, "print: retval is known at an exit; "
				     "%s is stopped at its entry (finish "
				     "first)", st->name);
			return -EINVAL;
		}
	return print_mixed(s, c, c->vals, c->nvals, &w);
}

static int finish(struct rt_script_session *s, const struct rt_script_cmd *c)
{
	if (!s->stop.entry) {
		rt_sess_fail(s, c, "finish: %s is already at its exit",
			     s->stop.name);
		return -EINVAL;
	}
	s->finish.on = true;
	s->finish.tid = s->stop.tid;
	s->finish.func = s->stop.func;
	s->finish.sp = rt_arch_sp(&s->stop.regs);
	return 0;
}

int rt_sess_stop_cmd(struct rt_script_session *s,
		     const struct rt_script_cmd *c)
{
	switch (c->kind) {
	case RT_SC_BACKTRACE:
		backtrace(s, c);
		return 0;
	case RT_SC_PRINT:
		return print_stopped(s, c);
	case RT_SC_INFO:
		info_threads(s);
		return 0;
	case RT_SC_FINISH:
		return finish(s, c);
	default:
		return 0;
	}
}

void rt_sess_info(struct rt_script_session *s, const struct rt_script_cmd *c)
{
	if (c->info == RT_INFO_COUNTERS) {
		vec_for_each(&s->counters, k)
			printf("%-24s %" PRIu64 "\n", k->name, k->n);
		return;
	}
	printf("%-4s %-8s %-8s %s\n", "id", "kind", "hits", "where");
	vec_for_each(&s->breaks, b)
		if (!b->deleted)
			printf("%-4u %-8s %-8" PRIu64 " %s\n", b->id,
			       b->cmd->kind == RT_SC_TBREAK ? "tbreak" :
							      "break",
			       b->hits, b->cmd->glob);
	vec_for_each(&s->actions, it)
		printf("%-4s %-8s %-8s on %s %s do %s\n", "-", "action", "-",
		       (*it)->glob, (*it)->at_exit ? "exit" : "entry",
		       (*it)->words[3]);
}
