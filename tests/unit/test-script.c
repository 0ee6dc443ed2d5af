// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The command language: words and columns, every command's checks with
 * the position and text of each error, the checks of a whole file, and
 * expectations evaluated on made-up report rows.
 */
#include <stdlib.h>
#include <string.h>

#include "rtrace/opts.h"
#include "rtrace/report.h"
#include "rtrace/script.h"
#include "unittest.h"

/* @text parsed as file "t.rtx"; the caller frees it. */
static struct rt_script *parse(const char *text)
{
	struct rt_script *s = rt_script_new();

	rt_script_parse_text(s, "t.rtx", text, false);
	rt_script_check(s);
	return s;
}

/* The only error of @text as "LINE:COL: message", or "" when none; a
 * static buffer. */
static const char *error_of(const char *text)
{
	static char buf[512];
	struct rt_script *s = parse(text);

	buf[0] = '\0';
	if (s->errors.n == 1)
		snprintf(buf, sizeof(buf), "%u:%u: %s", s->errors.v[0].line,
			 s->errors.v[0].col, s->errors.v[0].msg);
	else if (s->errors.n > 1)
		snprintf(buf, sizeof(buf), "%zu errors", s->errors.n);
	rt_script_free(s);
	return buf;
}

/* Whether the only error of @text is at @line:@col and contains @part. */
static bool error_is(const char *text, unsigned line, unsigned col,
		     const char *part)
{
	char want[64];
	const char *got = error_of(text);

	snprintf(want, sizeof(want), "%u:%u: ", line, col);
	if (strncmp(got, want, strlen(want)) != 0 || !strstr(got, part)) {
		fprintf(stderr, "  got \"%s\"\n  want %s...%s\n", got, want,
			part);
		return false;
	}
	return true;
}

/* ---- words ---------------------------------------------------------------- */

TEST_CASE(words_quotes_and_columns)
{
	struct rt_script *s = parse("  echo 'a b'  \"c\\\"d\" e#f # note\n");
	struct rt_script_cmd *c;

	TEST_EQ(s->errors.n, 0);
	TEST_EQ(s->cmds.n, 1);
	c = &s->cmds.v[0];
	TEST_EQ(c->kind, RT_SC_ECHO);
	TEST_EQ(c->line, 1);
	TEST_EQ(c->col, 3);
	TEST_EQ(c->nwords, 3);
	TEST_STREQ(c->words[0], "a b");
	TEST_EQ(c->cols[0], 8);
	TEST_STREQ(c->words[1], "c\"d");
	TEST_EQ(c->cols[1], 15);
	/* a # inside a word is part of it */
	TEST_STREQ(c->words[2], "e#f");
	rt_script_free(s);
}

TEST_CASE(blank_lines_comments_and_line_numbers)
{
	struct rt_script *s = parse("# head\n\n   \ntrace a::*\r\n\trun\n");

	TEST_EQ(s->errors.n, 0);
	TEST_EQ(s->cmds.n, 2);
	TEST_EQ(s->cmds.v[0].line, 4);
	TEST_STREQ(s->cmds.v[0].glob, "a::*");
	TEST_EQ(s->cmds.v[1].line, 5);
	TEST_EQ(s->cmds.v[1].col, 2);
	rt_script_free(s);
}

TEST_CASE(unterminated_quotes)
{
	TEST_TRUE(error_is("echo ok\necho \"abc", 2, 6,
			   "unterminated \"quote\""));
	TEST_TRUE(error_is("echo 'abc", 1, 6, "unterminated 'quote'"));
}

/* ---- commands ----------------------------------------------------------------- */

TEST_CASE(every_command_parses)
{
	static const char text[] =
		"file ./prog\nargs -v 'two words'\ntrace a::*\n"
		"exclude a::debug_*\nset stack 8\nset no-follow\n"
		"set count off\nrecord run.rtrace\nbreak a::f\ntbreak a::g\n"
		"on a::h entry do print arg0 arg1 $rsp tid\n"
		"on a::h exit do print retval\non a::h exit do log left h\n"
		"on a::h entry do print line args\n"
		"on a::* entry do count calls\nrun\nattach 42\ninfo threads\n"
		"info breaks\ninfo counters\nbacktrace\nbt 5\nprint arg2\n"
		"print line self args retval _x\n"
		"finish\ncontinue\nc 3\ndelete a::f\ndelete\nkill\ndetach\n"
		"report --sort self --limit 20\nreplay --depth 2 old.rtrace\n"
		"export perfetto out.json\nexport svg f.svg --weight calls\n"
		"expect calls a::f == 1\nexpect calls a::* <= 10000\n"
		"expect called a::g\nexpect not-called a::debug_*\n"
		"expect counter calls > 3\necho hello\nsource other.rtx\n"
		"help\nhelp break\nquit\n";
	struct rt_script *s = parse(text);

	for (size_t i = 0; i < s->errors.n; i++)
		fprintf(stderr, "  %u:%u: %s\n", s->errors.v[i].line,
			s->errors.v[i].col, s->errors.v[i].msg);
	TEST_EQ(s->errors.n, 0);
	TEST_EQ(s->cmds.n, 45);
	rt_script_free(s);
}

TEST_CASE(decoded_fields)
{
	struct rt_script *s = parse(
		"expect calls x::* >= 12\non x::f exit do print retval $rax\n"
		"export perfetto t.json old.rtrace\nattach 4242\nc 3\n");
	struct rt_script_cmd *c = s->cmds.v;

	TEST_EQ(s->errors.n, 0);
	TEST_EQ(c[0].expect, RT_EXPECT_CALLS);
	TEST_STREQ(c[0].glob, "x::*");
	TEST_EQ(c[0].glob_col, 14);
	TEST_EQ(c[0].op, RT_CMP_GE);
	TEST_EQ(c[0].n, 12);
	TEST_TRUE(c[1].at_exit);
	TEST_EQ(c[1].action, RT_ACT_PRINT);
	TEST_EQ(c[1].nvals, 2);
	TEST_EQ(c[1].vals[0].kind, RT_PV_RETVAL);
	TEST_EQ(c[1].vals[1].kind, RT_PV_REG);
	TEST_EQ(c[2].format, RT_FMT_CHROME);
	TEST_TRUE(c[2].has_log);
	TEST_EQ(c[3].n, 4242);
	TEST_EQ(c[4].kind, RT_SC_CONTINUE);
	TEST_EQ(c[4].n, 3);
	rt_script_free(s);
}

TEST_CASE(errors_name_the_word_with_a_suggestion)
{
	TEST_TRUE(error_is("run\nbrak a::f", 2, 1,
			   "unknown command 'brak' (did you mean 'break'?)"));
	TEST_TRUE(error_is("frobnicate", 1, 1, "unknown command "
			   "'frobnicate' (help lists the commands)"));
	TEST_TRUE(error_is("expect calls a::f =< 3", 1, 19,
			   "unknown comparison '=<' (did you mean '<='?)"));
	TEST_TRUE(error_is("expect calls a::f == 3x", 1, 22,
			   "'3x' is not a whole number"));
	TEST_TRUE(error_is("expect calls a::f == 99999999999999999999", 1,
			   22, "not a whole number"));
	TEST_TRUE(error_is("expect cals a::f == 1", 1, 8,
			   "unknown expectation 'cals' (did you mean "
			   "'calls'?)"));
	TEST_TRUE(error_is("expect calls a::f ==", 1, 1,
			   "'expect' needs more"));
	TEST_TRUE(error_is("expect called a::f a::g", 1, 20,
			   "too many words"));
	TEST_TRUE(error_is("trace a::[b", 1, 7, "invalid pattern 'a::[b'"));
	TEST_TRUE(error_is("trace", 1, 1, "'trace' needs more: trace GLOB"));
	TEST_TRUE(error_is("on a::f entri do print arg0", 1, 9,
			   "unknown place 'entri' (did you mean 'entry'?)"));
	TEST_TRUE(error_is("on a::f entry then print arg0", 1, 15,
			   "unknown word 'then'"));
	TEST_TRUE(error_is("on a::f entry do shout", 1, 18,
			   "unknown action 'shout'"));
	TEST_TRUE(error_is("on a::f entry do print retval", 1, 24,
			   "retval is only known at an exit"));
	TEST_TRUE(error_is("on a::f entry do count 'a b'", 1, 24,
			   "'a b' is not a counter name"));
	TEST_TRUE(error_is("print arg9", 1, 7,
			   "cannot print 'arg9' (did you mean 'arg0'?)"));
	TEST_TRUE(error_is("print 9lives", 1, 7,
			   "cannot print '9lives': an argument's name, args"));
	TEST_TRUE(error_is("on a::f exit do print line", 1, 23,
			   "arguments are read at an entry: on GLOB entry do "
			   "print line"));
	TEST_TRUE(error_is("print $rxx", 1, 7,
			   "no register 'rxx' on this CPU (did you mean"));
	TEST_TRUE(error_is("attach 0", 1, 8, "'0' is not a process id"));
	TEST_TRUE(error_is("attach me", 1, 8, "'me' is not a number"));
	TEST_TRUE(error_is("info thread", 1, 6, "unknown info topic "
			   "'thread' (did you mean 'threads'?)"));
	TEST_TRUE(error_is("export pdf x.pdf", 1, 8,
			   "unknown export format 'pdf'"));
	TEST_TRUE(error_is("kill now", 1, 6, "too many words for 'kill'"));
	TEST_TRUE(error_is("help frob", 1, 6, "unknown command 'frob'"));
}

TEST_CASE(settings_are_the_command_line_options)
{
	TEST_TRUE(error_is("set sortt calls", 1, 5,
			   "unknown setting 'sortt' (did you mean 'sort'?)"));
	TEST_TRUE(error_is("set limit abc", 1, 11,
			   "set limit: --limit needs a positive number, "
			   "not 'abc'"));
	TEST_TRUE(error_is("set sort often", 1, 10,
			   "unknown sort key 'often'"));
	TEST_TRUE(error_is("set stack", 1, 1, "stack needs a value"));
	TEST_TRUE(error_is("set count maybe", 1, 11, "on or off"));
	TEST_TRUE(error_is("set help", 1, 5, "unknown setting 'help'"));
	TEST_STREQ(error_of("set sort calls\nset quiet\nset raw-times off"),
		   "");
}

TEST_CASE(view_options_go_through_the_cli_parser)
{
	TEST_TRUE(error_is("report --srot calls", 1, 8,
			   "unknown option '--srot' (did you mean "
			   "'--sort'?)"));
	TEST_TRUE(error_is("report --sort often", 1, 15,
			   "report: unknown sort key 'often'"));
	TEST_TRUE(error_is("report --by thread a.rtrace b.rtrace", 1, 8,
			   "report: --by thread reads one log; only the table "
			   "merges several"));
	TEST_STREQ(error_of("report --format json --by thread"), "");
}

TEST_CASE(view_argv)
{
	struct rt_script *s = parse("export svg f.svg --weight calls\n"
				    "replay --depth 2\n");
	int argc;
	char **argv = rt_script_view_argv(&s->cmds.v[0], &argc);

	TEST_EQ(argc, 8);
	TEST_STREQ(argv[1], "export");
	TEST_STREQ(argv[3], "svg");
	TEST_STREQ(argv[5], "f.svg");
	TEST_STREQ(argv[7], "calls");
	TEST_TRUE(argv[8] == NULL);
	free(argv);
	argv = rt_script_view_argv(&s->cmds.v[1], &argc);
	TEST_EQ(argc, 4);
	TEST_STREQ(argv[1], "replay");
	free(argv);
	rt_script_free(s);
}

/* ---- the whole file ------------------------------------------------------- */

/* Errors of @text after rt_script_check_order(), one per line. */
static char *order_errors(const char *text, bool have_program)
{
	struct rt_script *s = parse(text);
	char *out = calloc(1, 2048);

	rt_script_check_order(s, have_program);
	rt_script_sort_errors(s);
	for (size_t i = 0; i < s->errors.n; i++)
		snprintf(out + strlen(out), 2048 - strlen(out), "%u:%u: %s\n",
			 s->errors.v[i].line, s->errors.v[i].col,
			 s->errors.v[i].msg);
	rt_script_free(s);
	return out;
}

TEST_CASE(order_of_commands)
{
	char *e = order_errors("expect called a::f\nbacktrace\nrun\n"
			       "report\nbreak a::f\nrun\nbt\n", false);

	TEST_STREQ(e, "1:1: expect: no run before it to check\n"
		      "2:1: backtrace: nothing before it stops the program "
		      "(break GLOB)\n"
		      "3:1: run: no program before it: file PROGRAM (or "
		      "rtrace -x FILE -- PROGRAM)\n"
		      "6:1: run: no program before it: file PROGRAM (or "
		      "rtrace -x FILE -- PROGRAM)\n");
	free(e);
	e = order_errors("run\nexpect called a::f\nreport old.rtrace\n", true);
	TEST_STREQ(e, "");
	free(e);
	/* a report of a named log needs no run */
	e = order_errors("report old.rtrace\n", false);
	TEST_STREQ(e, "");
	free(e);
}

TEST_CASE(counter_never_counted)
{
	TEST_TRUE(error_is("on a::f entry do count hits\n"
			   "expect counter hist == 1", 2, 16,
			   "no action counts 'hist' (did you mean 'hits'?)"));
	TEST_STREQ(error_of("on a::f entry do count hits\n"
			    "expect counter hits == 1"), "");
}

TEST_CASE(errors_sorted_by_line_then_column)
{
	/* line 3's error comes from the parser, line 1's from the order */
	struct rt_script *s = parse("expect called a::f\nrun\nfrob\n");

	rt_script_check_order(s, true);
	TEST_EQ(s->errors.n, 2);
	TEST_EQ(s->errors.v[0].line, 3);
	rt_script_sort_errors(s);
	TEST_EQ(s->errors.v[0].line, 1);
	TEST_EQ(s->errors.v[1].line, 3);
	rt_script_free(s);
}

/* ---- suggestions ---------------------------------------------------------- */

TEST_CASE(edit_distance)
{
	static const char *const cands[] = { "break", "backtrace", "tbreak" };

	TEST_EQ(rt_edit_distance("brak", "break"), 1);
	TEST_EQ(rt_edit_distance("braek", "break"), 1);  /* a swap */
	TEST_EQ(rt_edit_distance("", "abc"), 3);
	TEST_EQ(rt_edit_distance("abc", "abc"), 0);
	TEST_STREQ(rt_suggest("brak", cands, 3), "break");
	TEST_STREQ(rt_suggest("backtrac", cands, 3), "backtrace");
	TEST_TRUE(rt_suggest("zzzzzz", cands, 3) == NULL);
	TEST_TRUE(rt_suggest("break", cands, 3) == NULL);  /* no slip */
}

/* ---- expectations -------------------------------------------------------- */

static struct rt_report_row rows[] = {
	{ .name = "app::parse::tokenize", .st = { .calls = 3 } },
	{ .name = "app::parse::expr", .st = { .calls = 40 } },
	{ .name = "app::main", .st = { .calls = 1 } },
};
static const char *uncalled[] = { "app::parse::debug_dump" };
static const struct rt_report rep = {
	.rows = rows, .nrows = 3, .nrows_all = 3,
	.uncalled = uncalled, .nuncalled = 1,
};

/* Whether `expect LINE` holds on @r; *why as rt_expect_holds says. */
static bool holds_on(const struct rt_report *r, const char *line,
		     char **why)
{
	struct rt_script *s = parse(line);
	const struct rt_script_cmd *c = &s->cmds.v[0];
	size_t nfuncs = 0;
	uint64_t got = rt_expect_calls(r, c->glob, &nfuncs);
	bool ok = rt_expect_holds(c, got, nfuncs, rt_expect_lost(r, c->glob),
				  why);

	rt_script_free(s);
	return ok;
}

static bool holds(const char *line, char **why)
{
	return holds_on(&rep, line, why);
}

TEST_CASE(expect_calls_sums_matching_rows)
{
	size_t n;

	TEST_EQ(rt_expect_calls(&rep, "app::parse::*", &n), 43);
	TEST_EQ(n, 3);  /* debug_dump, traced and never called, counts */
	TEST_EQ(rt_expect_calls(&rep, "app::parse::debug_*", &n), 0);
	TEST_EQ(n, 1);
	TEST_EQ(rt_expect_calls(&rep, "other::*", &n), 0);
	TEST_EQ(n, 0);
}

TEST_CASE(expect_comparisons)
{
	static const struct {
		const char *line;
		bool ok;
	} t[] = {
		{ "expect calls app::parse::tokenize == 3", true },
		{ "expect calls app::parse::tokenize == 1", false },
		{ "expect calls app::parse::tokenize != 3", false },
		{ "expect calls app::parse::tokenize != 1", true },
		{ "expect calls app::parse::tokenize < 3", false },
		{ "expect calls app::parse::tokenize < 4", true },
		{ "expect calls app::parse::tokenize <= 3", true },
		{ "expect calls app::parse::tokenize <= 2", false },
		{ "expect calls app::parse::tokenize > 3", false },
		{ "expect calls app::parse::tokenize > 2", true },
		{ "expect calls app::parse::tokenize >= 3", true },
		{ "expect calls app::parse::tokenize >= 4", false },
		{ "expect calls app::parse::debug_dump == 0", true },
		{ "expect called app::main", true },
		{ "expect called app::parse::debug_*", false },
		{ "expect not-called app::parse::debug_*", true },
		{ "expect not-called app::parse::*", false },
		{ "expect called nothing::here", false },
		{ "expect not-called nothing::here", false },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *why = NULL;
		bool ok = holds(t[i].line, &why);

		if (ok != t[i].ok)
			fprintf(stderr, "  %s: %s\n", t[i].line,
				ok ? "held" : why);
		TEST_EQ(ok, t[i].ok);
		TEST_EQ(why == NULL, ok);
		free(why);
	}
}

/* A run that lost events: 6 of expr's, all of gone's (no call left), 2
 * more in the second run of no known function. */
static struct rt_report_row lossy_rows[] = {
	{ .name = "app::parse::tokenize", .st = { .calls = 3 } },
	{ .name = "app::parse::expr", .lost = 6, .st = { .calls = 40 } },
	{ .name = "app::parse::gone", .lost = 4 },
};
static const struct rt_log_losses losses = { .events = 10 };
static const struct rt_log_losses unknown_losses = { .events = 12,
						     .unattributed = 2 };

/* A count that is a lower bound decides what it can (at least 40 calls
 * are more than 39) and fails, saying why, what the true count might
 * change; the rows with no lost event are exact, unless some loss is no
 * function's. */
TEST_CASE(expect_lower_bounds)
{
	static const struct {
		const char *line;
		int ok;         /* 1 held, 0 failed, -1 failed: a bound */
	} t[] = {
		{ "expect calls app::parse::expr >= 40", 1 },
		{ "expect calls app::parse::expr > 39", 1 },
		{ "expect calls app::parse::expr != 39", 1 },
		{ "expect called app::parse::expr", 1 },
		{ "expect calls app::parse::expr >= 41", -1 },
		{ "expect calls app::parse::expr == 40", -1 },
		{ "expect calls app::parse::expr <= 40", -1 },
		{ "expect calls app::parse::expr < 41", -1 },
		{ "expect calls app::parse::expr == 39", 0 },
		{ "expect calls app::parse::expr < 40", 0 },
		{ "expect not-called app::parse::expr", 0 },
		{ "expect called app::parse::gone", -1 },
		{ "expect not-called app::parse::gone", -1 },
		{ "expect calls app::parse::tokenize == 3", 1 },
		{ "expect calls app::parse::* >= 43", 1 },
		{ "expect calls app::parse::* == 43", -1 },
	};
	struct rt_report r = { .rows = lossy_rows, .nrows = 3,
			       .nrows_all = 3, .losses = &losses };
	char *why = NULL;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool ok = holds_on(&r, t[i].line, &why);

		if (ok != (t[i].ok == 1) ||
		    (why && (strstr(why, "lower bound") != NULL) !=
				    (t[i].ok == -1)))
			fprintf(stderr, "  %s: %s\n", t[i].line,
				ok ? "held" : why);
		TEST_EQ(ok, t[i].ok == 1);
		TEST_EQ(why && strstr(why, "lower bound"), t[i].ok == -1);
		free(why);
		why = NULL;
	}
	TEST_TRUE(!holds_on(&r, "expect calls app::parse::expr == 40", &why));
	TEST_STREQ(why, "app::parse::expr was called at least 40 times, a "
			"lower bound (6 of its events were not recorded: "
			"mark L in the report), which cannot tell whether it "
			"holds (expected == 40)");
	free(why);
	r.losses = &unknown_losses;
	TEST_TRUE(!holds_on(&r, "expect calls app::parse::tokenize == 3",
			    &why));
	TEST_TRUE(strstr(why, "at least 3 times, a lower bound (12 ") != NULL);
	free(why);
}

TEST_CASE(expect_failure_messages)
{
	char *why = NULL;

	TEST_TRUE(!holds("expect calls app::parse::tokenize == 1", &why));
	TEST_STREQ(why, "app::parse::tokenize was called 3 times "
			"(expected == 1)");
	free(why);
	TEST_TRUE(!holds("expect calls app::main > 1", &why));
	TEST_STREQ(why, "app::main was called 1 time (expected > 1)");
	free(why);
	TEST_TRUE(!holds("expect called app::parse::debug_dump", &why));
	TEST_STREQ(why, "app::parse::debug_dump was never called "
			"(expected called)");
	free(why);
	TEST_TRUE(!holds("expect not-called app::parse::expr", &why));
	TEST_STREQ(why, "app::parse::expr was called 40 times "
			"(expected not-called)");
	free(why);
	TEST_TRUE(!holds("expect not-called nothing::*", &why));
	TEST_STREQ(why, "no traced function matches nothing::* (trace it, "
			"or check the pattern)");
	free(why);
}

TEST_CASE(expect_counter)
{
	struct rt_script *s = parse("on a::f entry do count n\n"
				    "expect counter n >= 5\n");
	char *why = NULL;

	TEST_TRUE(rt_expect_holds(&s->cmds.v[1], 5, 0, 0, &why));
	TEST_TRUE(!rt_expect_holds(&s->cmds.v[1], 4, 0, 0, &why));
	TEST_STREQ(why, "counter n is 4 (expected >= 5)");
	free(why);
	rt_script_free(s);
}

/* ---- files and source ------------------------------------------------------ */

static void put(const char *dir, const char *name, const char *text, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	fwrite(text, 1, len, f);
	fclose(f);
}

#define PUT(dir, name, text) put(dir, name, text, sizeof(text) - 1)

/* The errors of file @name of @dir, "FILE:LINE:COL: message" a line,
 * with @dir taken out of the file names. */
static char *file_errors(const char *dir, const char *name, size_t *ncmds)
{
	struct rt_script *s = rt_script_new();
	char path[256], *out = calloc(1, 4096);

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rt_script_parse_file(s, path);
	for (size_t i = 0; i < s->errors.n; i++)
		snprintf(out + strlen(out), 4096 - strlen(out), "%s:%u:%u: %s\n",
			 s->errors.v[i].file + strlen(dir) + 1,
			 s->errors.v[i].line, s->errors.v[i].col,
			 s->errors.v[i].msg);
	*ncmds = s->cmds.n;
	rt_script_free(s);
	return out;
}

TEST_CASE(source_in_place_and_its_errors)
{
	char dir[] = "/tmp/rtrace-test-script.XXXXXX", *e, cmd[128];
	size_t n;

	TEST_TRUE(mkdtemp(dir) != NULL);
	PUT(dir, "a.rtx", "echo a\nsource b.rtx\necho c\n");
	PUT(dir, "b.rtx", "echo b\nfrob\n");
	PUT(dir, "self.rtx", "source self.rtx\n");
	PUT(dir, "gone.rtx", "echo x\n  source nope.rtx\n");
	put(dir, "nul.rtx", "echo a\0b\n", 9);
	e = file_errors(dir, "a.rtx", &n);
	TEST_STREQ(e, "b.rtx:2:1: unknown command 'frob' (help lists the "
		      "commands)\n");
	TEST_EQ(n, 4);  /* echo a, echo b, frob, echo c */
	free(e);
	e = file_errors(dir, "self.rtx", &n);
	TEST_TRUE(strstr(e, "self.rtx:1:8: source: files nested 16 deep "
			 "(does ") == e);
	TEST_TRUE(strstr(e, "/self.rtx source itself?)\n") != NULL);
	free(e);
	e = file_errors(dir, "gone.rtx", &n);
	TEST_TRUE(strstr(e, "gone.rtx:2:10: source: cannot read ") == e);
	TEST_TRUE(strstr(e, "nope.rtx: No such file or directory\n") != NULL);
	free(e);
	e = file_errors(dir, "nul.rtx", &n);
	TEST_STREQ(e, "nul.rtx:0:0: a NUL byte: not a text file\n");
	free(e);
	e = file_errors(dir, "none.rtx", &n);
	TEST_STREQ(e, "none.rtx:0:0: cannot read it: No such file or "
		      "directory\n");
	free(e);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	TEST_TRUE(system(cmd) == 0);
}
