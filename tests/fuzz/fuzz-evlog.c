// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The log reader on arbitrary files: rt_evlog_open() on the input, then
 * every event with the lookups `rtrace report` makes for it (function,
 * thread name and flags, process, the call stack an entry's value names),
 * the tables, the end block; then a rewind and a second pass.
 *
 * Properties: no memory error, no leak; strings handed out are
 * NUL-terminated; a second pass after rt_evlog_rewind() yields the same
 * events and ends the same way as the first (tables absorbed on the first
 * pass are not read again, a malformed block is reported again); the
 * reader never allocates much more than the file holds (libFuzzer's
 * -rss_limit_mb / -malloc_limit_mb catch that).
 */
#include <errno.h>
#include <string.h>

#include "rtrace/evlog.h"
#include "rtrace/log.h"
#include "fuzz.h"

/* Both passes fold their events into this. */
struct pass {
	uint64_t n;
	uint64_t hash;
	int rc;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static size_t touch(const char *s)
{
	return s ? strlen(s) : 0;
}

static void touch_func(const struct rt_log_func *f, uint32_t id)
{
	if (!f)
		return;
	FUZZ_CHECK(f->id == id);
	FUZZ_CHECK(f->name && f->raw && f->module);
	touch(f->name);
	touch(f->raw);
	touch(f->module);
	touch(f->file);
}

static void touch_stack(const struct rt_log_stack *st, uint32_t id)
{
	if (!st)
		return;
	FUZZ_CHECK(st->id == id && (st->n == 0 || st->frames));
	for (uint32_t i = 0; i < st->n; i++) {
		FUZZ_CHECK(st->frames[i].name);
		touch(st->frames[i].name);
		touch(st->frames[i].file);
	}
}

static void one_event(struct rt_evlog_reader *r, const struct rt_event *ev,
		      struct pass *p)
{
	touch_func(rt_evlog_func(r, ev->func), ev->func);
	if (ev->kind == RT_EV_ENTRY)
		touch_stack(rt_evlog_stack(r, (uint32_t)ev->value),
			    (uint32_t)ev->value);
	touch(rt_evlog_thread_name(r, ev->tid));
	rt_evlog_thread_flags(r, ev->tid);
	touch(rt_evlog_process_exe(r, ev->pid));
	p->n++;
	p->hash = mix(p->hash, ev->ts);
	p->hash = mix(p->hash, ev->sp);
	p->hash = mix(p->hash, ev->value);
	p->hash = mix(p->hash, (uint64_t)ev->tid << 32 | ev->pid);
	p->hash = mix(p->hash, (uint64_t)ev->func << 32 |
				       (uint64_t)ev->kind << 24 |
				       (uint64_t)ev->flags << 16 | ev->nstops);
}

static void read_all(struct rt_evlog_reader *r, struct pass *p)
{
	struct rt_event ev;

	memset(p, 0, sizeof(*p));
	while ((p->rc = rt_evlog_next(r, &ev)) == 1)
		one_event(r, &ev, p);
}

static void check_info(const struct rt_log_info *info)
{
	FUZZ_CHECK(info->cmdline && info->cwd && info->host && info->version);
	touch(info->cmdline);
	touch(info->cwd);
	touch(info->host);
	touch(info->version);
	FUZZ_CHECK(info->cost.n <= RT_STOP_COST_POINTS);
	for (uint32_t i = 1; i < info->cost.n; i++)
		FUZZ_CHECK(info->cost.interval_ns[i - 1] <=
			   info->cost.interval_ns[i]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* warnings off; the reader's error lines stay (one per input) */
	rt_log_verbose = -1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file_put(data, size);
	struct rt_evlog_reader *r;
	struct pass a, b;

	if (!path || rt_evlog_open(path, &r) < 0)
		return 0;
	check_info(rt_evlog_info(r));
	FUZZ_CHECK(rt_evlog_file_size(r) == size);
	read_all(r, &a);
	FUZZ_CHECK(a.rc == 0 || a.rc == -EBADMSG);
	for (size_t i = 0; i < rt_evlog_nfuncs(r); i++)
		touch_func(rt_evlog_func(r, (uint32_t)i), (uint32_t)i);
	FUZZ_CHECK(rt_evlog_func(r, (uint32_t)rt_evlog_nfuncs(r)) == NULL);
	rt_evlog_end(r);
	rt_evlog_cut(r);

	FUZZ_CHECK(rt_evlog_rewind(r) == 0);
	read_all(r, &b);
	FUZZ_CHECK(a.n == b.n && a.hash == b.hash && a.rc == b.rc);
	rt_evlog_reader_free(r);
	return 0;
}
