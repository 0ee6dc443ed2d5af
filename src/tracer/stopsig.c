// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * rtrace's own signals while it traces (stopsig.h): the stop signals a
 * user, a terminal or a supervisor sends, and the timers that wake the
 * tracer's wait.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#define PR_FMT "session"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/compiler.h"
#include "rtrace/log.h"
#include "rtrace/stopsig.h"
#include "rtrace/tracee.h"
#include "rtrace/tracer.h"
#include "rtrace/util.h"

static volatile sig_atomic_t interrupts, tty_interrupts;
static volatile pid_t child_pid;

/*
 * Stop signals.  `kill -INT -PGID`, timeout(1) and supervisors signal the
 * process group: the program gets its own copy from the kernel, and a copy
 * passed on by rtrace would run its handler twice.  So rtrace passes a
 * signal on only when the program did not get it: no signal-delivery stop
 * of it in the program within SAME_SIGNAL_NS of rtrace's copy, before or
 * after (the sender's kills reach the two in either order), and none
 * waiting in its queue.  The handler only notes the signal; the loop
 * decides (rt_stopsig_pass_on()), woken by stop_timer meanwhile.
 */
#define SAME_SIGNAL_NS (100 * 1000000ULL)

static const int stop_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* A stop signal rtrace received and has not yet passed on or dropped.
 * The handler fills at_ns and from, then sets waiting; the loop clears it.
 * A second copy arriving while one waits is the same signal (the kernel
 * would have merged them too). */
static struct {
	volatile uint64_t at_ns;
	volatile sig_atomic_t waiting;
	volatile pid_t from;
} received[ARRAY_SIZE(stop_sigs)];

static timer_t stop_timer;
static bool stop_timer_made;

/* Wakes the loop every 20 ms while a decision waits: with the breakpoint
 * engine nothing else may end its waitpid.  timer_settime() may be called
 * from a signal handler; setitimer() belongs to rt_stopsig_tick(). */
static void arm_stop_timer(bool on)
{
	struct itimerspec it = { { 0, on ? 20000000 : 0 },
				 { 0, on ? 20000000 : 0 } };

	if (stop_timer_made)
		timer_settime(stop_timer, 0, &it, NULL);
}

static int stop_sig_slot(int sig)
{
	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		if (stop_sigs[i] == sig)
			return (int)i;
	return -1;
}

/* A terminal's Ctrl-C (SI_KERNEL) went to the whole foreground group, the
 * program included: never passed on.  A second one kills the program from
 * here, since the loop may be what is stuck.  Any other stop signal is
 * noted for rt_stopsig_pass_on(), and never escalates. */
static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno, i = stop_sig_slot(sig);

	(void)uc;
	interrupts++;
	if (si->si_code == SI_KERNEL) {
		if (sig == SIGINT && ++tty_interrupts > 1 && child_pid > 0)
			kill(child_pid, SIGKILL);
	} else if (i >= 0 && child_pid > 0 && !received[i].waiting) {
		received[i].at_ns = now_ns();
		received[i].from = si->si_pid;
		received[i].waiting = 1;
		arm_stop_timer(true);
	}
	errno = saved;
}

/* Whether the program got @sig itself around @at: a thread of it took
 * @sig since SAME_SIGNAL_NS before @at, or @sig waits in its queue. */
static bool program_got(const struct rt_tracer *tr, int sig, uint64_t at)
{
	uint64_t seen = rt_tracer_signal_time(tr, sig);

	if (seen && seen + SAME_SIGNAL_NS >= at)
		return true;
	return rt_tracee_signal_queued(child_pid, sig);
}

/* Decides about stop signal @i if it waits and its time has come: dropped
 * as soon as the program is seen to have it, or passed on once
 * SAME_SIGNAL_NS have gone by without.  Returns whether it still waits. */
static bool pass_on_signal(const struct rt_tracer *tr, size_t i)
{
	int sig = stop_sigs[i];
	uint64_t at;

	if (!received[i].waiting)
		return false;
	at = received[i].at_ns;  /* written before waiting was set */
	if (program_got(tr, sig, at)) {
		pr_dbg("%s from process %d: the program has it too",
		       strsignal(sig), (int)received[i].from);
	} else if (now_ns() - at >= SAME_SIGNAL_NS) {
		pr_dbg("%s from process %d: passed on to the program",
		       strsignal(sig), (int)received[i].from);
		kill(child_pid, sig);
	} else {
		return true;
	}
	received[i].waiting = 0;
	return false;
}

/* The decisions due; the timer stops once none waits. */
void rt_stopsig_pass_on(const struct rt_tracer *tr)
{
	bool decided = false, waiting = false;
	sigset_t stop, old;

	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++) {
		bool was = received[i].waiting;

		waiting |= pass_on_signal(tr, i);
		decided |= was && !received[i].waiting;
	}
	if (!decided || waiting)
		return;
	/* a signal noted between the look and the stop keeps the timer on */
	sigemptyset(&stop);
	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaddset(&stop, stop_sigs[i]);
	sigprocmask(SIG_BLOCK, &stop, &old);
	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		waiting |= received[i].waiting;
	if (!waiting)
		arm_stop_timer(false);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void on_tick(int sig);

/* The timer is made once and stays, like on_tick: an expiry already on
 * its way when it stops must not find SIGALRM's default action. */
static void make_stop_timer(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGALRM };
	struct sigaction alarm = { .sa_handler = on_tick };

	if (stop_timer_made)
		return;
	sigemptyset(&alarm.sa_mask);
	sigaction(SIGALRM, &alarm, NULL);
	stop_timer_made = !timer_create(CLOCK_MONOTONIC, &ev, &stop_timer);
}

void rt_stopsig_catch(bool on)
{
	struct sigaction sa = { 0 };

	/* nothing noted before the handler is in place or after it is gone */
	memset((void *)received, 0, sizeof(received));
	tty_interrupts = 0;
	if (on)
		make_stop_timer();
	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO;
	if (!on)
		sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(stop_sigs); i++)
		sigaction(stop_sigs[i], &sa, NULL);
	if (!on) {
		arm_stop_timer(false);
		memset((void *)received, 0, sizeof(received));
	}
}

static void on_tick(int sig)
{
	(void)sig;  /* only to make waitpid return now and then */
}

/* A timer that interrupts waitpid every @us µs (0: never), so that the
 * loop wakes up even when the program makes no event.  The handler stays
 * once installed: a timer signal already on its way when the timer stops
 * must not find the default action, which would end rtrace (an exec
 * resets it for the programs rtrace starts). */
void rt_stopsig_tick(long us)
{
	struct timeval tv = { us / 1000000, us % 1000000 };
	struct itimerval it = { tv, tv };
	struct sigaction sa = { .sa_handler = on_tick };

	sigemptyset(&sa.sa_mask);
	if (us)
		sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

int rt_stopsig_wake_sig(void)
{
	struct sigaction sa = { .sa_handler = on_tick };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	return SIGALRM;
}

void rt_stopsig_set_child(pid_t pid)
{
	child_pid = pid;
}

pid_t rt_stopsig_child(void)
{
	return child_pid;
}

unsigned rt_stopsig_count(void)
{
	return (unsigned)interrupts;
}

void rt_stopsig_reset(void)
{
	interrupts = 0;
}
