// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The commands of the language: one table row each (name, syntax, help,
 * decoder), and the decoders that turn a command's words into checked
 * fields.  `set` and the options of report, replay and export go through
 * cli.c's own option parser, so that a script and the command line accept
 * exactly the same things.  Each error names the word it is about.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/archreg.h"
#include "rtrace/cli.h"
#include "rtrace/log.h"
#include "rtrace/match.h"
#include "rtrace/opts.h"
#include "rtrace/util.h"
#include "script-int.h"

struct dec {
	struct rt_script *s;
	struct rt_script_cmd *c;
	const char *cmd;          /* the command word */
	const char *syntax;
};

typedef int (*decoder)(struct dec *d);

/* Adds an error about word @i (-1: the command word). */
static int __printf(3, 4) err_at(struct dec *d, long i, const char *fmt, ...)
{
	unsigned col = i < 0 || (size_t)i >= d->c->nwords ? d->c->col
							    : d->c->cols[i];
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	va_end(ap);
	rt_script_error(d->s, d->c->file, d->c->line, col, "%s", msg);
	free(msg);
	return -EINVAL;
}

/* " (did you mean 'x'?)" or "", for a message. */
static const char *mean(char *buf, size_t len, const char *word,
			const char *const *cands, size_t n)
{
	const char *m = rt_suggest(word, cands, n);

	if (!m)
		return "";
	snprintf(buf, len, " (did you mean '%s'?)", m);
	return buf;
}

static int want_words(struct dec *d, size_t lo, size_t hi)
{
	if (d->c->nwords < lo)
		return err_at(d, -1, "'%s' needs more: %s", d->cmd, d->syntax);
	if (d->c->nwords > hi)
		return err_at(d, hi, "too many words for '%s' (quote a word "
			      "with spaces): %s", d->cmd, d->syntax);
	return 0;
}

/* One of @names[0..n) at word @i, or an error with a suggestion. */
static int keyword(struct dec *d, size_t i, const char *what,
		   const char *const *names, size_t n, int *out)
{
	char m[96];

	for (size_t k = 0; k < n; k++) {
		if (strcmp(d->c->words[i], names[k]) == 0) {
			*out = k;
			return 0;
		}
	}
	return err_at(d, i, "unknown %s '%s'%s: %s", what, d->c->words[i],
		      mean(m, sizeof(m), d->c->words[i], names, n), d->syntax);
}

static int number(struct dec *d, size_t i, uint64_t max, uint64_t *out)
{
	const char *w = d->c->words[i];
	uint64_t v = 0;

	for (const char *p = w; *p; p++) {
		if (*p < '0' || *p > '9' || v > (max - (*p - '0')) / 10)
			return max == UINT64_MAX ?
			       err_at(d, i, "'%s' is not a whole number: %s",
				      w, d->syntax) :
			       err_at(d, i, "'%s' is not a number from 0 to "
				      "%llu: %s", w, (unsigned long long)max,
				      d->syntax);
		v = v * 10 + (*p - '0');
	}
	if (!*w)
		return err_at(d, i, "empty number: %s", d->syntax);
	*out = v;
	return 0;
}

static int glob_at(struct dec *d, size_t i)
{
	const char *why = NULL;

	if (rt_glob_check(d->c->words[i], &why))
		return err_at(d, i, "invalid pattern '%s': %s", d->c->words[i],
			      why);
	d->c->glob = d->c->words[i];
	d->c->glob_col = d->c->cols[i];
	return 0;
}

/* ---- decoders --------------------------------------------------------------- */

static int dec_none(struct dec *d) { return want_words(d, 0, 0); }
static int dec_one(struct dec *d) { return want_words(d, 1, 1); }
static int dec_any(struct dec *d) { return 0; }

static int dec_glob(struct dec *d)
{
	return want_words(d, 1, 1) ?: glob_at(d, 0);
}

static int dec_delete(struct dec *d)
{
	return want_words(d, 0, 1) ?: d->c->nwords ? glob_at(d, 0) : 0;
}

static int dec_count(struct dec *d)
{
	return want_words(d, 0, 1) ?:
	       d->c->nwords ? number(d, 0, UINT32_MAX, &d->c->n) : 0;
}

static int dec_attach(struct dec *d)
{
	int err = want_words(d, 1, 1) ?: number(d, 0, 0x3fffffff, &d->c->n);

	if (!err && d->c->n == 0)
		return err_at(d, 0, "'0' is not a process id: %s", d->syntax);
	return err;
}

static const struct spec *spec_of(const char *name);

static int dec_help(struct dec *d)
{
	const char *names[64];
	size_t n = 0;
	int k;

	while (n < ARRAY_SIZE(names) && (names[n] = rt_script_command_name(n)))
		n++;
	if (want_words(d, 0, 1))
		return -EINVAL;
	if (!d->c->nwords)
		return 0;
	d->c->name = d->c->words[0];
	if (spec_of(d->c->name))
		return 0;  /* an alias too */
	return keyword(d, 0, "command", names, n, &k);
}

static int dec_info(struct dec *d)
{
	static const char *const topics[] = { "threads", "breaks",
					      "counters", "report" };
	int k = 0, err = want_words(d, 1, 1) ?:
			 keyword(d, 0, "info topic", topics, 4, &k);

	d->c->info = k;
	return err;
}

/* An argument's name as Rust writes one; argN past the registers is a
 * slip for a register argument. */
static bool is_name(const char *w)
{
	if (strncmp(w, "arg", 3) == 0 && w[3] &&
	    strspn(w + 3, "0123456789") == strlen(w + 3))
		return false;
	if (!(*w == '_' || (*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z')))
		return false;
	for (const char *p = w; *p; p++)
		if (!(*p == '_' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			return false;
	return true;
}

/* print VALUE...: arg0..arg5, $REGISTER, retval, tid, NAME, args. */
static int pvalue(struct dec *d, size_t i, struct rt_pval *v)
{
	static const char *const args[] = { "arg0", "arg1", "arg2", "arg3",
					     "arg4", "arg5", "retval", "tid" };
	const char *w = d->c->words[i], *regs[64];
	char m[96];
	size_t n = 0;
	uint64_t dummy;

	v->text = w;
	for (size_t k = 0; k < ARRAY_SIZE(args); k++) {
		if (strcmp(w, args[k]) == 0) {
			v->kind = k < 6 ? RT_PV_ARG :
				  k == 6 ? RT_PV_RETVAL : RT_PV_TID;
			v->arg = k;
			return 0;
		}
	}
	if (is_name(w)) {
		v->kind = RT_PV_NAME;
		return 0;
	}
	if (w[0] != '$')
		return err_at(d, i, "cannot print '%s'%s: an argument's name, "
			      "args, retval, arg0 to arg5, $REGISTER (such "
			      "as $rax) or tid", w,
			      mean(m, sizeof(m), w, args, ARRAY_SIZE(args)));
	while (n < ARRAY_SIZE(regs) && (regs[n] = rt_arch_reg_name(n)))
		n++;
	v->kind = RT_PV_REG;
	if (rt_arch_reg_by_name(&(struct rt_regs){ 0 }, w + 1, &dummy))
		return 0;
	return err_at(d, i, "no register '%s' on this CPU%s", w + 1,
		      mean(m, sizeof(m), w + 1, regs, n));
}

static int values(struct dec *d, size_t from)
{
	int err = 0;

	d->c->vals = xcalloc(d->c->nwords - from + 1, sizeof(*d->c->vals));
	for (size_t i = from; i < d->c->nwords; i++)
		if (pvalue(d, i, &d->c->vals[d->c->nvals++]))
			err = -EINVAL;
	return err;
}

static int dec_print(struct dec *d)
{
	return want_words(d, 1, SIZE_MAX) ?: values(d, 0);
}

static bool counter_name_ok(const char *s)
{
	for (const char *p = s; *p; p++)
		if (!(*p == '_' || *p == '-' || *p == '.' ||
		      (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z')))
			return false;
	return *s;
}

static int counter_at(struct dec *d, size_t i)
{
	if (!counter_name_ok(d->c->words[i]))
		return err_at(d, i, "'%s' is not a counter name (letters, "
			      "digits, '_', '-', '.'): %s", d->c->words[i],
			      d->syntax);
	d->c->name = d->c->words[i];
	return 0;
}

/* on GLOB entry|exit do ACTION... */
static int dec_on(struct dec *d)
{
	static const char *const whens[] = { "entry", "exit" };
	static const char *const dos[] = { "do" };
	static const char *const acts[] = { "print", "log", "count" };
	struct rt_script_cmd *c = d->c;
	int when = 0, k = 0, act = 0;
	int err = want_words(d, 4, SIZE_MAX) ?: glob_at(d, 0);

	err = err ?: keyword(d, 1, "place", whens, 2, &when);
	err = err ?: keyword(d, 2, "word", dos, 1, &k);
	err = err ?: keyword(d, 3, "action", acts, 3, &act);
	if (err)
		return err;
	c->at_exit = when == 1;
	c->action = act;
	if (act == RT_ACT_COUNT)
		return want_words(d, 5, 5) ?: counter_at(d, 4);
	if (act == RT_ACT_LOG)
		return 0;
	if (want_words(d, 5, SIZE_MAX) || values(d, 4))
		return -EINVAL;
	for (size_t i = 0; i < c->nvals; i++) {
		if (c->vals[i].kind == RT_PV_RETVAL && !c->at_exit)
			return err_at(d, 4 + i, "retval is only known at an "
				      "exit: on GLOB exit do print retval");
		if (c->vals[i].kind == RT_PV_NAME && c->at_exit)
			return err_at(d, 4 + i, "arguments are read at an "
				      "entry: on GLOB entry do print %s",
				      c->vals[i].text);
	}
	return 0;
}

static int cmp_at(struct dec *d, size_t i)
{
	/* in enum rt_cmp order */
	static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };
	int k = 0;
	int err = keyword(d, i, "comparison", ops, ARRAY_SIZE(ops), &k);

	d->c->op = k;
	return err;
}

/* expect calls GLOB OP N | called GLOB | not-called GLOB | counter NAME OP N */
static int dec_expect(struct dec *d)
{
	static const char *const kinds[] = { "calls", "called", "not-called",
					     "counter" };
	struct rt_script_cmd *c = d->c;
	int k = 0, err = want_words(d, 1, SIZE_MAX) ?:
			 keyword(d, 0, "expectation", kinds, 4, &k);

	if (err)
		return err;
	c->expect = k;
	switch (c->expect) {
	case RT_EXPECT_CALLED:
	case RT_EXPECT_NOT_CALLED:
		d->syntax = "expect called|not-called GLOB";
		return want_words(d, 2, 2) ?: glob_at(d, 1);
	case RT_EXPECT_CALLS:
		d->syntax = "expect calls GLOB OP N (OP one of == != < <= > >=)";
		err = want_words(d, 4, 4) ?: glob_at(d, 1);
		break;
	case RT_EXPECT_COUNTER:
		d->syntax = "expect counter NAME OP N (OP one of == != < <= > >=)";
		err = want_words(d, 4, 4) ?: counter_at(d, 1);
		break;
	}
	return err ?: cmp_at(d, 2) ?: number(d, 3, UINT64_MAX, &c->n);
}

/* ---- set, and the options of report, replay and export (cli.c's) --------- */

static int dec_set(struct dec *d)
{
	const char *names[128];
	int saved = rt_log_verbose, err;
	struct rt_opts scratch;
	char m[96], *why = NULL;
	size_t n = 0;

	if (want_words(d, 1, 2))
		return -EINVAL;
	while (n < ARRAY_SIZE(names) && (names[n] = rt_cli_option_name(n)))
		n++;
	d->c->name = d->c->words[0];
	rt_opts_init(&scratch);
	err = rt_cli_set(&scratch, d->c->words[0],
			 d->c->nwords > 1 ? d->c->words[1] : NULL, &why);
	rt_log_verbose = saved;
	rt_opts_release(&scratch);
	if (err == -ENOENT)
		err_at(d, 0, "%s%s; the settings are rtrace's long options "
		       "(rtrace --help)", why,
		       mean(m, sizeof(m), d->c->words[0], names, n));
	else if (err)
		err_at(d, d->c->nwords > 1 ? 1 : -1, "set %s: %s",
		       d->c->words[0], why);
	free(why);
	return err ? -EINVAL : 0;
}

/* An unknown --option among the words, with a suggestion. */
static int long_options_known(struct dec *d, size_t from)
{
	const char *names[128], *m;
	size_t n = 0;

	while (n < ARRAY_SIZE(names) && (names[n] = rt_cli_option_name(n)))
		n++;
	for (size_t i = from; i < d->c->nwords; i++) {
		const char *w = d->c->words[i];
		char *name;
		bool known = false;

		if (!str_starts(w, "--") || !w[2])
			continue;
		name = xstrndup(w + 2, strcspn(w + 2, "="));
		for (size_t k = 0; k < n; k++)
			known |= strcmp(names[k], name) == 0;
		m = known ? NULL : rt_suggest(name, names, n);
		if (!known)
			err_at(d, i, "unknown option '--%s'%s%s%s: %s", name,
			       m ? " (did you mean '--" : "", m ? m : "",
			       m ? "'?)" : "", d->syntax);
		free(name);
		if (!known)
			return -EINVAL;
	}
	return 0;
}

/* The column of the word that @why quotes, else of word @from. */
static long quoted_word(const struct dec *d, const char *why, size_t from)
{
	for (size_t i = from; i < d->c->nwords; i++) {
		char *q = xasprintf("'%s'", d->c->words[i]);
		bool in = strstr(why, q) != NULL;

		free(q);
		if (in)
			return i;
	}
	return from < d->c->nwords ? (long)from : -1;
}

static const char *const export_fmts[] = { "chrome", "folded", "svg",
					    "html", "perfetto" };
static const int export_enums[] = { RT_FMT_CHROME, RT_FMT_FOLDED, RT_FMT_SVG,
				    RT_FMT_HTML, RT_FMT_CHROME };

char **rt_script_view_argv(const struct rt_script_cmd *c, int *argc)
{
	char **argv = xcalloc(c->nwords + 8, sizeof(*argv));
	int k = 0;

	argv[k++] = "rtrace";
	argv[k++] = c->kind == RT_SC_REPORT ? "report" :
		    c->kind == RT_SC_REPLAY ? "replay" : "export";
	if (c->kind == RT_SC_EXPORT) {
		/* perfetto reads the Chrome trace format */
		argv[k++] = "--format";
		argv[k++] = c->format == RT_FMT_CHROME ? "chrome" :
			    c->format == RT_FMT_FOLDED ? "folded" :
			    c->format == RT_FMT_SVG ? "svg" : "html";
		argv[k++] = "-o";
		argv[k++] = c->words[1];
	}
	for (size_t i = c->first_opt; i < c->nwords; i++)
		argv[k++] = c->words[i];
	argv[k] = NULL;
	*argc = k;
	return argv;
}

/* Parses the command's words with cli.c's parser, as the command line
 * `rtrace report|replay|export ...` would be. */
static int view_options(struct dec *d, size_t from)
{
	int saved = rt_log_verbose, err, argc;
	struct rt_opts scratch;
	char **argv, *why = NULL;

	d->c->first_opt = from;
	argv = rt_script_view_argv(d->c, &argc);
	rt_opts_init(&scratch);
	err = long_options_known(d, from);
	if (!err && (err = rt_cli_parse_caught(argc, argv, &scratch, &why)))
		err_at(d, quoted_word(d, why, from), "%s: %s", d->cmd, why);
	d->c->has_log = !err && scratch.argc > 0;
	rt_log_verbose = saved;
	rt_opts_release(&scratch);
	free(why);
	free(argv);
	return err ? -EINVAL : 0;
}

static int dec_view(struct dec *d)
{
	return view_options(d, 0);
}

/* export FORMAT FILE [OPTIONS] [LOG]; perfetto is the Chrome JSON. */
static int dec_export(struct dec *d)
{
	int k = 0;

	if (want_words(d, 2, SIZE_MAX) ||
	    keyword(d, 0, "export format", export_fmts,
		    ARRAY_SIZE(export_fmts), &k))
		return -EINVAL;
	d->c->format = export_enums[k];
	return view_options(d, 2);
}

/* ---- the table -------------------------------------------------------------- */

static const struct spec {
	const char *name;
	enum rt_sc kind;
	decoder dec;
	const char *syntax;
	const char *help;
} specs[] = {
	{ "args", RT_SC_ARGS, dec_any, "args [ARG...]",
	  "the program's arguments for the next run" },
	{ "attach", RT_SC_ATTACH, dec_attach, "attach PID",
	  "join running process PID and trace it until it ends (or detach)" },
	{ "backtrace", RT_SC_BACKTRACE, dec_count, "backtrace [N]",
	  "the stopped thread's call stack (N frames at most)" },
	{ "break", RT_SC_BREAK, dec_glob, "break GLOB",
	  "stop at every entry of the functions matching GLOB" },
	{ "continue", RT_SC_CONTINUE, dec_count, "continue [N]",
	  "let the stopped program go on (and pass the next N-1 stops)" },
	{ "delete", RT_SC_DELETE, dec_delete, "delete [GLOB]",
	  "remove the breaks on GLOB (all breaks without GLOB)" },
	{ "detach", RT_SC_DETACH, dec_none, "detach",
	  "leave the stopped program running, untraced, its code restored" },
	{ "echo", RT_SC_ECHO, dec_any, "echo [TEXT...]",
	  "print TEXT on standard output" },
	{ "exclude", RT_SC_EXCLUDE, dec_glob, "exclude GLOB",
	  "do not trace the functions matching GLOB (--exclude)" },
	{ "expect", RT_SC_EXPECT, dec_expect,
	  "expect calls GLOB OP N | called GLOB | not-called GLOB | "
	  "counter NAME OP N",
	  "check the last run: exit status 1 when it does not hold" },
	{ "export", RT_SC_EXPORT, dec_export,
	  "export FORMAT FILE [OPTIONS] [LOG]",
	  "write the last run as chrome (perfetto), folded, svg or html" },
	{ "file", RT_SC_FILE, dec_one, "file PROGRAM",
	  "the program to run" },
	{ "finish", RT_SC_FINISH, dec_none, "finish",
	  "run until the stopped function returns, and stop there" },
	{ "help", RT_SC_HELP, dec_help, "help [COMMAND]",
	  "list the commands, or say what one does" },
	{ "info", RT_SC_INFO, dec_info, "info threads|breaks|counters|report",
	  "the program's threads, the breaks and actions, the counters, "
	  "the report of the calls so far" },
	{ "kill", RT_SC_KILL, dec_none, "kill",
	  "kill the stopped program" },
	{ "on", RT_SC_ON, dec_on,
	  "on GLOB entry|exit do print VALUE...|log TEXT...|count NAME",
	  "an action at each entry or exit, without stopping" },
	{ "print", RT_SC_PRINT, dec_print, "print VALUE...",
	  "an argument by NAME or all (args), retval, typed from the DWARF; "
	  "arg0..arg5, $REGISTER or tid of the stopped thread" },
	{ "quit", RT_SC_QUIT, dec_none, "quit",
	  "end the session (a stopped program rtrace started is killed)" },
	{ "record", RT_SC_RECORD, dec_one, "record FILE",
	  "keep the next run's log in FILE (--output)" },
	{ "replay", RT_SC_REPLAY, dec_view, "replay [OPTIONS] [LOG]",
	  "print the last run's timeline, as rtrace replay" },
	{ "report", RT_SC_REPORT, dec_view, "report [OPTIONS] [LOG]",
	  "print the last run's report, as rtrace report" },
	{ "run", RT_SC_RUN, dec_any, "run [ARG...]",
	  "start the program and trace it until it ends or stops" },
	{ "set", RT_SC_SET, dec_set, "set NAME [VALUE]",
	  "any option of the command line: set stack 8 is --stack 8" },
	{ "source", RT_SC_SOURCE, dec_one, "source FILE",
	  "run the commands of FILE" },
	{ "tbreak", RT_SC_TBREAK, dec_glob, "tbreak GLOB",
	  "stop at the next entry of GLOB, once" },
	{ "trace", RT_SC_TRACE, dec_glob, "trace GLOB",
	  "trace the functions matching GLOB (-f)" },
};

/* Short forms, as in debuggers. */
static const struct {
	const char *alias, *name;
} aliases[] = { { "bt", "backtrace" }, { "c", "continue" } };

static const struct spec *spec_of(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(aliases); i++)
		if (strcmp(name, aliases[i].alias) == 0)
			name = aliases[i].name;
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++)
		if (strcmp(name, specs[i].name) == 0)
			return &specs[i];
	return NULL;
}

const char *rt_script_command_name(size_t i)
{
	return i < ARRAY_SIZE(specs) ? specs[i].name : NULL;
}

const char *rt_script_command_name_of(enum rt_sc kind)
{
	for (size_t i = 0; i < ARRAY_SIZE(specs); i++)
		if (specs[i].kind == kind)
			return specs[i].name;
	return "?";
}

const char *rt_script_command_syntax(const char *name)
{
	const struct spec *sp = spec_of(name);

	return sp ? sp->syntax : NULL;
}

const char *rt_script_command_help(const char *name)
{
	const struct spec *sp = spec_of(name);

	return sp ? sp->help : NULL;
}

int rt_script_decode(struct rt_script *s, struct rt_script_cmd *c,
		     const rt_word_vec *w)
{
	const char *names[ARRAY_SIZE(specs)];
	const struct spec *sp = spec_of(w->v[0].s);
	struct dec d = { .s = s, .c = c, .cmd = w->v[0].s };
	char m[96];

	c->nwords = w->n - 1;
	c->words = xcalloc(w->n, sizeof(*c->words));
	c->cols = xcalloc(w->n, sizeof(*c->cols));
	for (size_t i = 1; i < w->n; i++) {
		c->words[i - 1] = xstrdup(w->v[i].s);
		c->cols[i - 1] = w->v[i].col;
	}
	if (!sp) {
		for (size_t i = 0; i < ARRAY_SIZE(specs); i++)
			names[i] = specs[i].name;
		return err_at(&d, -1, "unknown command '%s'%s", w->v[0].s,
			      rt_suggest(w->v[0].s, names, ARRAY_SIZE(specs)) ?
			      mean(m, sizeof(m), w->v[0].s, names,
				   ARRAY_SIZE(specs)) :
			      " (help lists the commands)");
	}
	c->kind = sp->kind;
	d.cmd = sp->name;
	d.syntax = sp->syntax;
	return sp->dec(&d);
}
