// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The progress line (progress.h).  On a terminal it is drawn with a
 * carriage return and an erase to the end of the line, cut to the
 * terminal's width so that it never wraps (a wrapped line cannot be
 * rewritten in place).  Anything rtrace prints goes through
 * rt_progress_clear() first (log.c's hook, the summary, the reports), so
 * rtrace's own output never lands on the line; the program's output to
 * the same terminal may, and is left as the program wrote it.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rtrace/log.h"
#include "rtrace/output.h"
#include "rtrace/progress.h"
#include "rtrace/util.h"

#define REDRAW_TTY_NS (250 * 1000000ULL)   /* 4 Hz on a terminal */
#define REDRAW_FILE_NS (1000 * 1000000ULL) /* a line a second elsewhere */

static struct {
	bool on, tty, shown;
	unsigned width;
	uint64_t t0, drawn_at, events_at_draw;
} pg;

static volatile sig_atomic_t report_asked;

static void on_usr1(int sig)
{
	(void)sig;
	report_asked = 1;
}

static unsigned term_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return 80;
}

void rt_progress_listen(void)
{
	/* no SA_RESTART: the signal ends the loop's wait, as the tick does */
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

void rt_progress_start(const struct rt_opts *o)
{
	memset(&pg, 0, sizeof(pg));
	pg.tty = isatty(STDERR_FILENO);
	pg.on = !o->quiet && (o->progress || (pg.tty && !o->hooks));
	pg.width = pg.tty ? term_width() : 0;
	pg.t0 = pg.drawn_at = now_ns();
	if (pg.on && pg.tty)
		rt_log_before_print = rt_progress_clear;
}

bool rt_progress_due(void)
{
	return pg.on && now_ns() - pg.drawn_at >=
				(pg.tty ? REDRAW_TTY_NS : REDRAW_FILE_NS);
}

void rt_progress_draw(const struct rt_progress_figures *f)
{
	char line[256], c[32], r[32], s[32], b[32], k[32];
	uint64_t t = now_ns(), dt = t - pg.drawn_at;
	uint64_t rate = dt ? (f->events - pg.events_at_draw) * 1000000000ULL /
				     dt : 0;
	int n;

	n = snprintf(line, sizeof(line), "rtrace: %.1f s, %s call%s, %s "
		     "events/s, %s stop%s, log %s", (t - pg.t0) / 1e9,
		     rt_fmt_count(c, sizeof(c), f->calls), rt_s(f->calls),
		     rt_fmt_count(r, sizeof(r), rate),
		     rt_fmt_count(s, sizeof(s), f->stops), rt_s(f->stops),
		     rt_fmt_bytes(b, sizeof(b), f->log_bytes));
	if (f->window && n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - n, " + last %s of "
			      "events kept",
			      rt_fmt_bytes(k, sizeof(k), f->window_bytes));
	pg.drawn_at = t;
	pg.events_at_draw = f->events;
	if (!pg.tty) {
		fprintf(stderr, "%s\n", line);
		return;
	}
	/* the last column stays free: some terminals wrap on writing it */
	if (n > 0 && (unsigned)n >= pg.width)
		line[pg.width - 1] = '\0';
	fprintf(stderr, "\r%s\033[K", line);
	pg.shown = true;
}

void rt_progress_clear(void)
{
	if (!pg.shown)
		return;
	fputs("\r\033[K", stderr);
	pg.shown = false;
}

void rt_progress_stop(void)
{
	rt_progress_clear();
	if (rt_log_before_print == rt_progress_clear)
		rt_log_before_print = NULL;
	pg.on = false;
}

bool rt_progress_report_asked(void)
{
	if (!report_asked)
		return false;
	report_asked = 0;
	return true;
}
