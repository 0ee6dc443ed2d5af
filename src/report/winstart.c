// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The calls running at the start of a flight recorder's window
 * (winstart.h).  Per thread, the pass keeps the stack pointers of the
 * calls entered in the window; an exit (or a jump out) that closes none
 * of them, with none open around it, ends a call entered before the
 * window.  Such calls nest outwards: each one found is shallower than
 * the one before.  Inlined calls share their caller's stack pointer and
 * libc's blocking calls are no calls of their own: both are left out,
 * as are helper functions' returns.  A thread whose start or exec is in
 * the window had nothing running before it.
 */
#include "rtrace/hashidx.h"
#include "rtrace/vec.h"
#include "rtrace/winstart.h"

struct missing {
	uint32_t func;
	uint64_t sp;
};

struct thread_scan {
	uint32_t tid;
	bool done;		/* its first event is behind: nothing more is
				 * missing */
	bool fed;		/* the missing calls went to the analysis */
	VEC(uint64_t) open;	/* calls entered in the window */
	VEC(struct missing) missing;	/* innermost first */
};

struct rt_winstart {
	VEC(struct thread_scan) threads;
	struct rt_hashidx by_tid;
	uint64_t fed;
};

static bool same_tid(const void *ctx, uint32_t pos, const void *key)
{
	return ((const struct thread_scan *)ctx)[pos].tid ==
	       *(const uint32_t *)key;
}

/* The thread @tid, or NULL when it is new and @add is false. */
static struct thread_scan *thread_of(struct rt_winstart *ws, uint32_t tid,
				     bool add)
{
	uint32_t at = rt_hashidx_find(&ws->by_tid, rt_hash_u64(tid), same_tid,
				      ws->threads.v, &tid);

	if (at != RT_HASHIDX_NONE)
		return &ws->threads.v[at];
	if (!add)
		return NULL;
	vec_push_zero(&ws->threads)->tid = tid;
	rt_hashidx_add(&ws->by_tid, rt_hash_u64(tid), ws->threads.n - 1);
	return vec_last(&ws->threads);
}

/* An exit or a jump out of the call at @ev->sp. */
static void on_leave(struct thread_scan *t, const struct rt_event *ev)
{
	while (t->open.n && *vec_last(&t->open) < ev->sp)
		t->open.n--;	/* left by unwinding */
	if (t->open.n && *vec_last(&t->open) == ev->sp) {
		if (ev->kind == RT_EV_EXIT)
			t->open.n--;
		return;
	}
	if (t->open.n || (t->missing.n && vec_last(&t->missing)->sp >= ev->sp))
		return;
	vec_push(&t->missing, ((struct missing){ ev->func, ev->sp }));
}

static bool is_call(const struct rt_evlog_reader *r, const struct rt_event *ev)
{
	const struct rt_log_func *fn = rt_evlog_func(r, ev->func);

	return fn && !(fn->flags & (RT_FUNC_BLOCKING | RT_FUNC_HELPER)) &&
	       !(ev->flags & (RT_EVF_INLINED | RT_EVF_HELPER));
}

static void scan_event(struct rt_winstart *ws, const struct rt_evlog_reader *r,
		       const struct rt_event *ev)
{
	struct thread_scan *t = thread_of(ws, ev->tid, true);

	if (t->done)
		return;
	switch (ev->kind) {
	case RT_EV_ENTRY:
		if (is_call(r, ev))
			vec_push(&t->open, ev->sp);
		break;
	case RT_EV_EXIT:
	case RT_EV_TAIL:
		if (is_call(r, ev))
			on_leave(t, ev);
		break;
	case RT_EV_THREAD_START:
	case RT_EV_THREAD_END:
	case RT_EV_EXEC:
		t->done = true;
		break;
	default:
		break;
	}
}

struct rt_winstart *rt_winstart_scan(struct rt_evlog_reader *r)
{
	struct rt_winstart *ws;
	struct rt_event ev;
	int rc;

	if (!rt_evlog_window(r) || rt_evlog_rewind(r) < 0)
		return NULL;
	ws = xcalloc(1, sizeof(*ws));
	while ((rc = rt_evlog_next(r, &ev)) > 0)
		scan_event(ws, r, &ev);
	rt_evlog_rewind(r);
	if (rc < 0) {
		rt_winstart_free(ws);
		return NULL;
	}
	return ws;
}

void rt_winstart_feed(struct rt_winstart *ws, struct rt_frames *f,
		      const struct rt_event *ev)
{
	struct thread_scan *t = ws ? thread_of(ws, ev->tid, false) : NULL;

	if (!t || t->fed)
		return;
	t->fed = true;
	ws->fed += t->missing.n;
	for (size_t k = t->missing.n; k-- > 0;)
		rt_frames_feed(f, &(struct rt_event){
			.ts = ev->ts, .sp = t->missing.v[k].sp,
			.tid = ev->tid, .pid = ev->pid,
			.func = t->missing.v[k].func, .kind = RT_EV_ENTRY,
			.flags = RT_EVF_PARTIAL });
}

uint64_t rt_winstart_fed(const struct rt_winstart *ws)
{
	return ws ? ws->fed : 0;
}

void rt_winstart_free(struct rt_winstart *ws)
{
	if (!ws)
		return;
	vec_for_each(&ws->threads, t) {
		vec_free(&t->open);
		vec_free(&t->missing);
	}
	vec_free(&ws->threads);
	rt_hashidx_free(&ws->by_tid);
	free(ws);
}
