// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event log: writer and reader.  docs/log-format.md is the format and
 * this file follows it.  Every multi-byte field goes through the put_ and
 * get_ helpers, so the bytes on disk never depend on struct layout or on
 * the host's byte order.
 *
 * The writer stages whole blocks in one buffer, in file order, and writes
 * the buffer with a single write() when it fills.  The reader streams the
 * file through a window of the same size; only function tables and names
 * are kept, so its memory does not grow with the number of events.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define PR_FMT "evlog"
#define PR_DOMAIN RT_DOM_EVLOG
#include "rtrace/evlog.h"
#include "rtrace/log.h"
#include "rtrace/util.h"

#include "packed.h"
#include "window.h"

/* ---- the format ------------------------------------------------------- */

#define LOG_MAGIC "RTRACE\0L"
#define MAGIC_LEN 8
#define HEADER_LEN 16
#define HEADER_MAX 4096		/* longer file headers are malformed */
#define BLOCK_HDR 8

enum block_type {
	BLK_SESSION = 1,
	BLK_FUNCS = 2,
	BLK_EVENTS = 3,
	BLK_THREAD = 4,
	BLK_PROCESS = 5,
	BLK_END = 6,
	BLK_STACK = 7,
	BLK_PACKED = 8,		/* version 2: packed events */
	BLK_PROFILE = 9,	/* the run's profile, opaque to this stage */
	BLK_WINDOW = 10,	/* a flight recorder's window */
	BLK_LOST = 11,		/* events a process did not record */
};

#define STR_NONE UINT32_MAX	/* string length that stands for NULL */
#define STR_MAX (1u << 20)	/* longer strings are malformed */
#define META_MAX (1u << 30)	/* longer non-event blocks are malformed */
#define SESSION_FIXED 32
#define FUNC_FIXED 28
#define END_LEN 44
#define WINDOW_LEN 72

/* Writer staging buffer and reader window: one event block at most. */
#define IO_BUF (1u << 20)

/*
 * Function ids index an array, so an id from the file decides an
 * allocation.  Ids are dense from 0 when rtrace writes them; allowing
 * 16 ids per row read (plus a fixed slack) keeps sparse tables readable
 * while a forged id costs at most a few bytes per byte of input.
 */
#define FUNC_ID_SLACK 65536
#define STACK_MAX 1024	/* frames in one stack block */
#define FUNC_ID_PER_ROW 16

static inline void put_u16(uint8_t *p, uint16_t v)
{
	v = htole16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_u32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static inline uint16_t get_u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

static inline uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline void event_encode(uint8_t *p, const struct rt_event *ev)
{
	put_u64(p, ev->ts);
	put_u64(p + 8, ev->sp);
	put_u64(p + 16, ev->value);
	put_u32(p + 24, ev->tid);
	put_u32(p + 28, ev->pid);
	put_u32(p + 32, ev->func);
	p[36] = ev->kind;
	p[37] = ev->flags;
	put_u16(p + 38, ev->nstops);
}

static inline void event_decode(const uint8_t *p, struct rt_event *ev)
{
	ev->ts = get_u64(p);
	ev->sp = get_u64(p + 8);
	ev->value = get_u64(p + 16);
	ev->tid = get_u32(p + 24);
	ev->pid = get_u32(p + 28);
	ev->func = get_u32(p + 32);
	ev->kind = p[36];
	ev->flags = p[37];
	ev->nstops = get_u16(p + 38);
}

static const char *block_name(uint32_t type)
{
	switch (type) {
	case BLK_SESSION:
		return "session";
	case BLK_FUNCS:
		return "function table";
	case BLK_EVENTS:
		return "event";
	case BLK_THREAD:
		return "thread";
	case BLK_PROCESS:
		return "process";
	case BLK_END:
		return "end";
	case BLK_STACK:
		return "stack";
	case BLK_PACKED:
		return "packed event";
	case BLK_PROFILE:
		return "profile";
	case BLK_WINDOW:
		return "window";
	case BLK_LOST:
		return "lost events";
	}
	return "unknown";
}

/* ---- writer ----------------------------------------------------------- */

struct rt_evlog_writer {
	int fd;
	uint8_t *buf;		/* IO_BUF bytes: blocks in file order */
	size_t len;		/* bytes staged in buf */
	/*
	 * IO_BUF while an event block is open at buf + evhdr, else 0: the
	 * hot path then needs a single comparison to know that the record
	 * fits and that a block is open.
	 */
	size_t evlim;
	size_t evhdr;
	uint64_t pending;	/* events staged in buf */
	uint64_t written;	/* events handed to write() successfully */
	uint64_t dropped;
	uint8_t *big;		/* a block too large for buf */
	size_t biglen;
	int err;		/* first write error, -errno */
	uint64_t write_ns;	/* time spent in write(2) so far */
	uint64_t bytes;		/* handed to the file so far */
	uint32_t version;	/* of the format written */
	size_t head;		/* file header bytes at buf, not yet written */
	uint64_t reserve;	/* disk guard: bytes kept free; 0 = off */
	uint64_t fsize;		/* rtrace's file size limit, or 0: none */
	bool space_cut;		/* the guard stopped recording events */
	bool fsize_cut;		/* because of the file size limit */
	struct pk_state *pk;	/* version 2: the open block's codec */
	uint64_t session_at;	/* file offsets of the session block's */
	uint64_t cost_at;	/* payload and of its calibration */
	rt_evlog_tap_fn tap;	/* sees every block before it is written */
	void *tap_ctx;
	bool drop_events;	/* event blocks go to the tap only */
	char *path;		/* of the log */
	size_t blk_max;		/* bytes an event block takes at most */
	struct lw_ring *win;	/* a flight recorder's spool, or NULL */
	struct pk_state *scan;	/* its codec, to read a block's times */
};

static void write_failed(struct rt_evlog_writer *w, int err)
{
	if (!w->err) {
		w->err = err;
		pr_warn("cannot write the log: %s; recording stops, the "
			"program runs on", strerror(-err));
	}
	w->dropped += w->pending;
	w->pending = 0;
	w->len = 0;
	w->evlim = 0;
}

/* Fills in the length of the open event block, if any. */
static void close_events(struct rt_evlog_writer *w)
{
	if (!w->evlim)
		return;
	put_u32(w->buf + w->evhdr + 4, w->len - w->evhdr - BLOCK_HDR);
	w->evlim = 0;
}

/*
 * Whole events in the first @n bytes of the payload of an event block of
 * @type, and their earliest and latest time stamps in *@lo and *@hi when
 * @lo is not NULL.  @s is the codec to use, or NULL for a new one.
 */
static uint64_t events_in(struct pk_state *s, uint32_t type,
			  const uint8_t *p, size_t n, uint64_t *lo,
			  uint64_t *hi)
{
	struct pk_state *own = s ? NULL : xcalloc(1, sizeof(*own));
	uint64_t count = 0, a = UINT64_MAX, b = 0;
	struct rt_event ev;
	const char *why;
	long got = 0;

	if (own)
		s = own;
	pk_reset(s);
	for (size_t at = 0; at < n; at += got, count++) {
		if (type == BLK_EVENTS) {
			if (n - at < RT_EVENT_SIZE)
				break;
			got = RT_EVENT_SIZE;
			ev.ts = get_u64(p + at);
		} else if ((got = pk_decode(s, p + at, p + n, &ev, &why)) <= 0) {
			break;
		}
		a = MIN(a, ev.ts);
		b = MAX(b, ev.ts);
	}
	free(own);
	if (lo) {
		*lo = count ? a : 0;
		*hi = b;
	}
	return count;
}

/* Whole events in the first @done bytes of @buf, where blocks are staged
 * from @head to @len: the events a reader finds in a log cut there. */
static uint64_t events_within(const uint8_t *buf, size_t head, size_t len,
			      size_t done)
{
	uint64_t n = 0;

	for (size_t at = head; at + BLOCK_HDR <= len;) {
		uint32_t type = get_u32(buf + at), size = get_u32(buf + at + 4);
		size_t body = at + BLOCK_HDR;

		if (body >= done)
			break;
		if (type == BLK_EVENTS || type == BLK_PACKED)
			n += events_in(NULL, type, buf + body,
				       MIN(body + size, done) - body, NULL,
				       NULL);
		at = body + size;
	}
	return n;
}

/*
 * The disk guard.  A log that fills its file system takes the program's
 * own files down with it, and leaves no room for the end block.  So the
 * writer keeps a reserve free (2 % of the file system, within 2 MiB and
 * 1 GiB) and stops recording events before writing into it.  A flush
 * writes at most IO_BUF bytes past a check, well inside the reserve.
 */
#define RESERVE_MIN (2ull << 20)
#define RESERVE_MAX (1ull << 30)

/* Under a file size limit (ulimit -f) the log keeps an eighth of it, 1
 * MiB at most, for the tables and the end after recording stops. */
#define FSIZE_RESERVE_MAX (1ull << 20)

static void guard_init(struct rt_evlog_writer *w)
{
	struct statvfs st;
	struct rlimit lim;
	uint64_t total;

	if (getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
		w->fsize = lim.rlim_cur;

	/* a file system that tells no size (a pipe, /dev/null) is not
	 * guarded */
	if (fstatvfs(w->fd, &st) < 0 || !st.f_blocks)
		return;
	total = (uint64_t)st.f_blocks * st.f_frsize;
	w->reserve = MIN(MAX(total / 50, RESERVE_MIN), RESERVE_MAX);
}

/* Bytes free for @w's file, or UINT64_MAX when not known. */
static uint64_t space_left(const struct rt_evlog_writer *w)
{
	struct statvfs st;

	if (fstatvfs(w->fd, &st) < 0)
		return UINT64_MAX;
	return (uint64_t)st.f_bavail * st.f_frsize;
}

/* Hands the event block staged at [@at, @end) to the flight recorder's
 * spool; a block with no event is left out. 0 or -errno. */
static int spool_block(struct rt_evlog_writer *w, size_t at, size_t end)
{
	struct lw_block b = { .len = end - at };

	b.events = events_in(w->scan, get_u32(w->buf + at),
			     w->buf + at + BLOCK_HDR, b.len - BLOCK_HDR,
			     &b.first_ts, &b.last_ts);
	return b.events ? lw_add(w->win, b, w->buf + at) : 0;
}

/* Takes the event blocks out of the staged bytes (tables stay), into the
 * spool when @spool.  0 or the spool's first write error. */
static int take_staged_events(struct rt_evlog_writer *w, bool spool)
{
	size_t out = w->head, at = w->head;
	int err = 0;

	while (at + BLOCK_HDR <= w->len) {
		uint32_t type = get_u32(w->buf + at);
		size_t end = at + BLOCK_HDR + get_u32(w->buf + at + 4);

		if (type != BLK_EVENTS && type != BLK_PACKED) {
			memmove(w->buf + out, w->buf + at, end - at);
			out += end - at;
		} else if (spool && !err) {
			err = spool_block(w, at, end);
		}
		at = end;
	}
	w->len = out;
	return err;
}

static void drop_staged_events(struct rt_evlog_writer *w)
{
	take_staged_events(w, false);
	w->dropped += w->pending;
	w->pending = 0;
}

/* Hands the staged blocks to the tap; without events kept, the events
 * are in the tap's hands only, counted as recorded. */
static void tap_staged(struct rt_evlog_writer *w)
{
	if (w->tap)
		w->tap(w->tap_ctx, w->buf, w->len);
	if (!w->drop_events)
		return;
	take_staged_events(w, false);
	w->written += w->pending;
	w->pending = 0;
}

/* A flight recorder's events leave for the spool, not the log: counted
 * as written, as they would be in the log. 0 or -errno. */
static int spool_staged_events(struct rt_evlog_writer *w)
{
	int err = take_staged_events(w, true);

	if (err) {
		write_failed(w, err);
		return err;
	}
	w->written += w->pending;
	w->pending = 0;
	return 0;
}

/* Whether @n more bytes would take the log into the part of its file
 * size limit kept for the end: recording stops then, once. */
static bool fsize_check(struct rt_evlog_writer *w, size_t n)
{
	uint64_t keep = MIN(w->fsize / 8, FSIZE_RESERVE_MAX);

	if (!w->fsize || w->bytes + n + keep <= w->fsize)
		return false;
	w->space_cut = w->fsize_cut = true;
	pr_warn("the log reached rtrace's file size limit (ulimit -f: %.1f "
		"MiB): recording stops here, the program runs on",
		w->fsize / 1048576.0);
	drop_staged_events(w);
	return true;
}

/* Before @n staged bytes go out: stops recording events, once, when they
 * would leave less than the reserve free. */
static void guard_check(struct rt_evlog_writer *w, size_t n)
{
	uint64_t left;

	if (w->space_cut || fsize_check(w, n) || !w->reserve)
		return;
	left = space_left(w);
	if (left >= w->reserve && left - w->reserve >= n)
		return;
	w->space_cut = true;
	pr_warn("disk space is low where the log goes (%.1f MiB left, "
		"%.1f MiB kept free): recording stops here, the program runs "
		"on", left / 1048576.0, w->reserve / 1048576.0);
	drop_staged_events(w);
}

static int flush(struct rt_evlog_writer *w)
{
	uint64_t t0, saved;
	size_t done;
	int rc;

	close_events(w);
	if (w->err || !w->len)
		return w->err;
	guard_check(w, w->len);
	tap_staged(w);
	rt_fault("flush");
	t0 = now_ns();
	if (w->win && spool_staged_events(w) < 0)
		return w->err;
	rc = write_all_done(w->fd, w->buf, w->len, &done);
	w->write_ns += now_ns() - t0;
	w->bytes += done;
	if (rc < 0) {
		/* what did reach the file is in the log: count it there */
		saved = MIN(events_within(w->buf, w->head, w->len, done), w->pending);
		w->written += saved;
		w->pending -= saved;
		write_failed(w, rc);
		return rc;
	}
	w->len = w->head = 0;
	w->written += w->pending;
	w->pending = 0;
	return 0;
}

/*
 * Reserves a block of @size payload bytes after everything staged so far
 * and returns where its payload goes, or NULL after a write error.  Blocks
 * larger than the buffer are assembled apart; block_end() writes them.
 */
static uint8_t *block_begin(struct rt_evlog_writer *w, uint32_t type,
			    size_t size)
{
	size_t total = BLOCK_HDR + size;
	uint8_t *p;

	close_events(w);
	if (w->len + total > IO_BUF && flush(w) < 0)
		return NULL;
	if (w->err)
		return NULL;
	if (total <= IO_BUF) {
		p = w->buf + w->len;
		w->len += total;
	} else {
		p = w->big = xmalloc(total);
		w->biglen = total;
	}
	put_u32(p, type);
	put_u32(p + 4, size);
	return p + BLOCK_HDR;
}

static int block_end(struct rt_evlog_writer *w)
{
	int rc;

	if (!w->big)
		return w->err;
	if (w->tap)
		w->tap(w->tap_ctx, w->big, w->biglen);
	rc = write_all(w->fd, w->big, w->biglen);
	zfree(&w->big);
	if (rc < 0)
		write_failed(w, rc);
	else
		w->bytes += w->biglen;
	return w->err;
}

/* Strings longer than a reader accepts are cut to STR_MAX bytes. */
static size_t str_len(const char *s)
{
	return s ? strnlen(s, STR_MAX) : 0;
}

static size_t str_size(const char *s)
{
	return 4 + str_len(s);
}

static uint8_t *put_str(uint8_t *p, const char *s)
{
	size_t n = str_len(s);

	put_u32(p, s ? n : STR_NONE);
	memcpy(p + 4, s ? s : "", n);
	return p + 4 + n;
}

/* The calibration's place in the session block: the count of points,
 * the points, the count of splits and the splits.  At full size when a
 * curve measured after the run is to fill it in: readers stop at the
 * counts they find and skip the rest. */
#define COST_AREA (4 + 16 * RT_STOP_COST_POINTS + 4 + 8 * RT_STOP_COST_POINTS)

static size_t cost_size(const struct rt_stop_cost *cost)
{
	uint32_t npts = MIN(cost->n, RT_STOP_COST_POINTS);

	return 4 + 16 * (size_t)npts + 4 + (cost->has_pre ? 8 * (size_t)npts : 0);
}

static void put_cost(uint8_t *p, const struct rt_stop_cost *cost,
		     size_t room)
{
	uint32_t npts = MIN(cost->n, RT_STOP_COST_POINTS);
	uint32_t npre = cost->has_pre ? npts : 0;

	memset(p, 0, room);
	put_u32(p, npts);
	for (size_t i = 0; i < npts; i++) {
		put_u64(p + 4 + 16 * i, cost->interval_ns[i]);
		put_u64(p + 12 + 16 * i, cost->cost_ns[i]);
	}
	/* the split of each cost, after the curve: older readers stop
	 * before it */
	p += 4 + 16 * (size_t)npts;
	put_u32(p, npre);
	for (size_t i = 0; i < npre; i++)
		put_u64(p + 4 + 8 * i, cost->pre_ns[i]);
}

static int write_session(struct rt_evlog_writer *w,
			 const struct rt_log_info *info)
{
	size_t size = SESSION_FIXED + str_size(info->cmdline) +
		      str_size(info->cwd) + str_size(info->host) +
		      str_size(info->version) +
		      (info->cost_later ? COST_AREA : cost_size(&info->cost));
	uint8_t *p = block_begin(w, BLK_SESSION, size);

	if (!p)
		return w->err;
	w->session_at = w->bytes + (uint64_t)(p - w->buf);
	put_u64(p, info->start_ns);
	put_u64(p + 8, info->start_real_ns);
	put_u64(p + 16, info->stop_cost_ns);
	put_u32(p + 24, info->pid);
	put_u32(p + 28, info->flags);
	p = put_str(p + SESSION_FIXED, info->cmdline);
	p = put_str(p, info->cwd);
	p = put_str(p, info->host);
	p = put_str(p, info->version);
	/* a session block assembled apart (a command line of megabytes)
	 * keeps the curve it was given */
	w->cost_at = w->big || !info->cost_later ? 0 :
		     w->bytes + (uint64_t)(p - w->buf);
	put_cost(p, &info->cost, info->cost_later ? COST_AREA :
				 cost_size(&info->cost));
	return block_end(w);
}

/* Writes @n bytes at file offset @at: into the buffer while they are
 * staged there, else into the file. */
static int patch(struct rt_evlog_writer *w, uint64_t at, const void *p,
		 size_t n)
{
	if (at >= w->bytes) {
		memcpy(w->buf + (at - w->bytes), p, n);
		return 0;
	}
	return pwrite(w->fd, p, n, (off_t)at) == (ssize_t)n ? 0 : -EIO;
}

int rt_evlog_set_cost(struct rt_evlog_writer *w,
		      const struct rt_stop_cost *cost)
{
	uint8_t area[COST_AREA], first[8];

	if (!w || w->err)
		return w ? w->err : 0;
	put_cost(area, cost, sizeof(area));
	put_u64(first, cost->n ? cost->cost_ns[0] : 0);
	if (!w->cost_at || patch(w, w->session_at + 16, first, sizeof(first)) ||
	    patch(w, w->cost_at, area, sizeof(area))) {
		pr_warn("cannot write the stop cost into the log; its times are "
			"not compensated");
		return -EIO;
	}
	return 0;
}

/* RTRACE_LOG_VERSION=1 writes the 40-byte records of version 1, which
 * tests use to check that old logs still read the same. */
static uint32_t write_version(void)
{
	const char *v = getenv("RTRACE_LOG_VERSION");

	return v && strcmp(v, "1") == 0 ? 1 : RT_EVLOG_VERSION;
}

int rt_evlog_create(const char *path, const struct rt_log_info *info,
		    struct rt_evlog_writer **out)
{
	static const struct rt_log_info none;
	struct rt_evlog_writer *w;
	int rc, fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = -errno;
		pr_err("cannot create %s: %s", path, strerror(-rc));
		return rc;
	}
	w = xcalloc(1, sizeof(*w));
	w->fd = fd;
	w->buf = xmalloc(IO_BUF);
	w->version = write_version();
	w->path = xstrdup(path);
	w->blk_max = IO_BUF;
	if (w->version >= 2)
		w->pk = xcalloc(1, sizeof(*w->pk));
	/* Nothing is written yet: the header leaves with the first table. */
	memcpy(w->buf, LOG_MAGIC, MAGIC_LEN);
	put_u32(w->buf + 8, w->version);
	put_u32(w->buf + 12, HEADER_LEN);
	w->len = w->head = HEADER_LEN;
	guard_init(w);
	guard_check(w, 0);
	rc = write_session(w, info ? info : &none);
	if (rc < 0) {
		rt_evlog_close(w, NULL);
		return rc;
	}
	*out = w;
	return 0;
}

/* Bytes of one function row, its length field included. */
static size_t func_row_size(const struct rt_log_func *f)
{
	return 4 + FUNC_FIXED + str_size(f->name) + str_size(f->raw) +
	       str_size(f->module) + str_size(f->file) + 28;
}

static uint8_t *put_func(uint8_t *p, const struct rt_log_func *f)
{
	put_u32(p, func_row_size(f) - 4);
	put_u32(p + 4, f->id);
	put_u32(p + 8, f->refusal);
	put_u64(p + 12, f->addr);
	put_u64(p + 20, f->size);
	put_u32(p + 28, f->line);
	p = put_str(p + 4 + FUNC_FIXED, f->name);
	p = put_str(p, f->raw);
	p = put_str(p, f->module);
	p = put_str(p, f->file);
	put_u32(p, f->flags);
	put_u32(p + 4, f->sites);
	put_u32(p + 8, f->inline_sites);
	put_u32(p + 12, f->inlined_sites);
	put_u32(p + 16, f->inlined_refused);
	put_u32(p + 20, f->inlined_why);
	put_u32(p + 24, f->inlined_packed);
	return p + 28;
}

static int write_func_block(struct rt_evlog_writer *w,
			    const struct rt_log_func *f, size_t n,
			    size_t size)
{
	uint8_t *p = block_begin(w, BLK_FUNCS, size);

	if (!p)
		return w->err;
	put_u32(p, n);
	p += 4;
	for (size_t i = 0; i < n; i++)
		p = put_func(p, &f[i]);
	return block_end(w);
}

int rt_evlog_write_funcs(struct rt_evlog_writer *w,
			 const struct rt_log_func *f, size_t n)
{
	size_t i = 0;

	/*
	 * Split the table into blocks that fit the staging buffer, so that
	 * neither side ever holds a table block larger than IO_BUF unless a
	 * single row is that large.
	 */
	while (i < n && !w->err) {
		size_t j = i, size = 4;

		do {
			size += func_row_size(&f[j++]);
		} while (j < n &&
			 size + func_row_size(&f[j]) <= IO_BUF - BLOCK_HDR);
		if (write_func_block(w, f + i, j - i, size) < 0)
			break;
		i = j;
	}
	/* Tables come once per program and library: on disk at once, a
	 * log whose writer dies later still names its functions. */
	return flush(w);
}

static int write_id_name(struct rt_evlog_writer *w, uint32_t type,
			 uint32_t a, uint32_t b, const char *s, uint32_t flags)
{
	uint8_t *p = block_begin(w, type, 12 + str_size(s));

	if (!p)
		return w->err;
	put_u32(p, a);
	put_u32(p + 4, b);
	p = put_str(p + 8, s);
	put_u32(p, flags);
	return block_end(w);
}

int rt_evlog_write_thread(struct rt_evlog_writer *w, uint32_t tid,
			  uint32_t pid, const char *name, uint32_t flags)
{
	return write_id_name(w, BLK_THREAD, tid, pid, name, flags);
}

int rt_evlog_write_stack(struct rt_evlog_writer *w, uint32_t id,
			 const struct rt_log_frame *f, size_t n)
{
	size_t size = 8;
	uint8_t *p;

	for (size_t i = 0; i < n; i++)
		size += 12 + str_size(f[i].name) + str_size(f[i].file);
	p = block_begin(w, BLK_STACK, size);
	if (!p)
		return w->err;
	put_u32(p, id);
	put_u32(p + 4, n);
	p += 8;
	for (size_t i = 0; i < n; i++) {
		put_u64(p, f[i].pc);
		put_u32(p + 8, f[i].line);
		p = put_str(p + 12, f[i].name);
		p = put_str(p, f[i].file);
	}
	return block_end(w);
}

int rt_evlog_write_process(struct rt_evlog_writer *w, uint32_t pid,
			   uint32_t ppid, const char *exe)
{
	return write_id_name(w, BLK_PROCESS, pid, ppid, exe, 0);
}

/* A LOST block's fixed part, and each function's. */
#define LOST_LEN 20
#define LOST_FN_LEN 12
/* Functions in one LOST block: the rest count for the process only. */
#define LOST_FNS_MAX ((IO_BUF - BLOCK_HDR - LOST_LEN) / LOST_FN_LEN)

int rt_evlog_write_lost(struct rt_evlog_writer *w, uint32_t pid,
			uint32_t reasons, uint64_t events,
			const struct rt_log_lost_fn *f, size_t n)
{
	uint8_t *p;

	n = MIN(n, LOST_FNS_MAX);
	p = block_begin(w, BLK_LOST, LOST_LEN + n * LOST_FN_LEN);
	if (!p)
		return w->err;
	put_u32(p, pid);
	put_u32(p + 4, reasons);
	put_u64(p + 8, events);
	put_u32(p + 16, (uint32_t)n);
	p += LOST_LEN;
	for (size_t i = 0; i < n; i++, p += LOST_FN_LEN) {
		put_u32(p, f[i].id);
		put_u64(p + 4, f[i].events);
	}
	return block_end(w);
}

/* Starts a new event block, writing the buffer first when it is full. */
static bool open_events(struct rt_evlog_writer *w)
{
	size_t most = w->pk ? PK_EVENT_MAX : RT_EVENT_SIZE;

	if (w->err || w->space_cut)
		return false;
	if ((w->evlim || w->len + BLOCK_HDR + most > IO_BUF) &&
	    flush(w) < 0)
		return false;
	if (w->space_cut)
		return false;
	w->evhdr = w->len;
	put_u32(w->buf + w->len, w->pk ? BLK_PACKED : BLK_EVENTS);
	w->len += BLOCK_HDR;
	w->evlim = MIN(IO_BUF, w->len + w->blk_max);
	if (w->pk)
		pk_reset(w->pk);
	return true;
}

static void append_packed(struct rt_evlog_writer *w,
			  const struct rt_event *ev)
{
	size_t n = 0;

	if (likely(w->len + PK_EVENT_MAX <= w->evlim) || open_events(w))
		n = pk_encode(w->pk, w->buf + w->len, ev);
	/* a block full of threads, or a tid reused by another process */
	if (unlikely(!n) && w->evlim) {
		close_events(w);
		if (open_events(w))
			n = pk_encode(w->pk, w->buf + w->len, ev);
	}
	if (unlikely(!n)) {
		w->dropped++;
		return;
	}
	w->len += n;
	w->pending++;
}

void rt_evlog_append(struct rt_evlog_writer *w, const struct rt_event *ev)
{
	if (w->pk) {
		append_packed(w, ev);
		return;
	}
	if (unlikely(w->len + RT_EVENT_SIZE > w->evlim) && !open_events(w)) {
		w->dropped++;
		return;
	}
	event_encode(w->buf + w->len, ev);
	w->len += RT_EVENT_SIZE;
	w->pending++;
}

void rt_evlog_append_batch(struct rt_evlog_writer *w,
			   const struct rt_event *ev, size_t n)
{
	size_t done, used;

	while (n) {
		done = 0;
		if (w->pk && w->len + PK_EVENT_MAX <= w->evlim)
			done = pk_encode_run(w->pk, w->buf + w->len,
					     w->evlim - w->len, ev, n, &used);
		if (done) {
			w->len += used;
			w->pending += done;
		} else {
			/* a block to open, a block full of threads, the
			 * fixed-size records of version 1, or an error */
			rt_evlog_append(w, ev);
			done = 1;
		}
		ev += done;
		n -= done;
	}
}

int rt_evlog_flush(struct rt_evlog_writer *w)
{
	return flush(w);
}

uint64_t rt_evlog_nevents(const struct rt_evlog_writer *w)
{
	return w->written + w->pending;
}

uint64_t rt_evlog_write_ns(const struct rt_evlog_writer *w)
{
	return w->write_ns;
}

uint64_t rt_evlog_size(const struct rt_evlog_writer *w)
{
	return w->bytes + w->len;
}

uint64_t rt_evlog_ndropped(const struct rt_evlog_writer *w)
{
	return w->dropped;
}

uint32_t rt_evlog_space_cut(const struct rt_evlog_writer *w)
{
	return w->fsize_cut ? RT_END_FSIZE : w->space_cut ? RT_END_SPACE : 0;
}

void rt_evlog_set_tap(struct rt_evlog_writer *w, rt_evlog_tap_fn fn,
		      void *ctx)
{
	w->tap = fn;
	w->tap_ctx = ctx;
}

void rt_evlog_keep_events(struct rt_evlog_writer *w, bool keep)
{
	w->drop_events = !keep;
}

int rt_evlog_write_profile(struct rt_evlog_writer *w, const void *bytes,
			   size_t n)
{
	uint8_t *p;

	if (n > META_MAX)
		return -EFBIG;
	p = block_begin(w, BLK_PROFILE, n);
	if (!p)
		return w->err;
	memcpy(p, bytes, n);
	return block_end(w);
}

/* ---- writer: the flight recorder ------------------------------------- */

/* Bytes of an event block of a flight recorder: small against the size
 * kept, so that the window drops little at a time; a time window gets
 * blocks of a fraction of a second at high rates (the writer flushes
 * every second anyway). */
#define WIN_BLOCK_MIN (64u << 10)
#define WIN_BLOCK_TIME (256u << 10)

int rt_evlog_keep_last(struct rt_evlog_writer *w, uint64_t ns,
		       uint64_t bytes)
{
	int err = lw_open(w->path, ns, bytes, &w->win);

	if (err)
		return err;
	w->scan = xcalloc(1, sizeof(*w->scan));
	w->blk_max = ns ? WIN_BLOCK_TIME
			: MIN(MAX(bytes / 16, WIN_BLOCK_MIN), IO_BUF);
	return 0;
}

static void window_of(const struct lw_ring *ring, struct rt_log_window *out)
{
	struct lw_figures fig = lw_figures(ring);

	*out = (struct rt_log_window){
		.events = fig.kept_events, .bytes = fig.kept_bytes,
		.dropped_events = fig.dropped_events,
		.dropped_blocks = fig.dropped_blocks,
	};
	lw_keep(ring, &out->keep_ns, &out->keep_bytes);
	out->first_ts = lw_count(ring) ? UINT64_MAX : 0;
	for (size_t i = 0; i < lw_count(ring); i++) {
		out->first_ts = MIN(out->first_ts, lw_at(ring, i)->first_ts);
		out->last_ts = MAX(out->last_ts, lw_at(ring, i)->last_ts);
	}
}

bool rt_evlog_window_now(const struct rt_evlog_writer *w,
			 struct rt_log_window *out)
{
	if (!w || !w->win)
		return false;
	window_of(w->win, out);
	return true;
}

static void put_window(uint8_t *p, const struct rt_log_window *win)
{
	const uint64_t v[WINDOW_LEN / 8] = {
		win->first_ts, win->last_ts, win->end_ns, win->events,
		win->bytes, win->dropped_events, win->dropped_blocks,
		win->keep_ns, win->keep_bytes,
	};

	for (size_t i = 0; i < WINDOW_LEN / 8; i++)
		put_u64(p + 8 * i, v[i]);
}

/* A kept block goes into the log as it is, through the staging buffer
 * (empty after a flush); its events were counted when it was spooled. */
static void copy_spooled(struct rt_evlog_writer *w, const struct lw_ring *ring,
		       const struct lw_block *b)
{
	size_t done = 0;
	int rc = lw_read(ring, b, w->buf);

	if (!rc)
		rc = write_all_done(w->fd, w->buf, b->len, &done);
	w->bytes += done;
	if (rc < 0)
		write_failed(w, rc);
}

/*
 * The flight recorder's end: the last blocks go to the spool, then the
 * window record and the kept blocks, oldest first, into the log.  The
 * copy must leave the disk guard's reserve free.  Where the spool's file
 * system can punch holes, each block's space in the spool is freed once
 * copied, so the copy needs a block's room at a time, as a flush does;
 * elsewhere the oldest blocks that do not fit are dropped.
 */
static void write_window(struct rt_evlog_writer *w, uint64_t end_ns)
{
	struct lw_ring *ring = w->win;
	struct rt_log_window win;
	uint64_t left;
	bool release;
	uint8_t *p;

	flush(w);
	w->win = NULL;
	release = lw_can_release(ring);
	left = w->reserve && !release ? space_left(w) : UINT64_MAX;
	if (left != UINT64_MAX)
		lw_trim(ring, left > w->reserve + IO_BUF ?
				      left - w->reserve - IO_BUF : 0);
	window_of(ring, &win);
	win.end_ns = end_ns;
	p = block_begin(w, BLK_WINDOW, WINDOW_LEN);
	if (p)
		put_window(p, &win);
	flush(w);
	for (size_t i = 0; i < lw_count(ring) && !w->err; i++) {
		copy_spooled(w, ring, lw_at(ring, i));
		if (release)
			lw_release(ring, lw_at(ring, i));
	}
	lw_free(ring);
}

static void write_end(struct rt_evlog_writer *w, const struct rt_log_end *e)
{
	uint8_t *p = block_begin(w, BLK_END, END_LEN);

	if (!p)
		return;
	put_u64(p, e->end_ns);
	put_u32(p + 8, (uint32_t)e->status);
	put_u32(p + 12, e->how);
	put_u64(p + 16, e->stops);
	put_u64(p + 24, e->events);
	put_u64(p + 32, e->dropped);
	put_u32(p + 40, e->flags | (w->fsize_cut ? RT_END_FSIZE :
				     w->space_cut ? RT_END_SPACE : 0));
}

int rt_evlog_close(struct rt_evlog_writer *w, const struct rt_log_end *end)
{
	int err;

	if (!w)
		return 0;
	if (w->win && end)
		write_window(w, end->end_ns);
	if (end)
		write_end(w, end);
	flush(w);
	/* close() is where NFS reports a failed write-back. */
	if (close(w->fd) < 0)
		write_failed(w, -errno);
	err = w->err;
	lw_free(w->win);
	free(w->buf);
	free(w->big);
	free(w->pk);
	free(w->scan);
	free(w->path);
	free(w);
	return err;
}

/* ---- reader: string storage and name maps ---------------------------- */

#define ARENA_CHUNK (64u << 10)

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, size;
	uint8_t data[];
};

/* Strings and rows live here until the reader is freed: pointers handed
 * out stay valid even when a later block replaces a name. */
struct arena {
	struct arena_chunk *head;
};

static struct arena_chunk *arena_chunk_new(size_t size)
{
	struct arena_chunk *c = xmalloc(sizeof(*c) + size);

	c->used = 0;
	c->size = size;
	return c;
}

static void *arena_alloc(struct arena *a, size_t n)
{
	struct arena_chunk *c = a->head;

	n = ALIGN_UP(n, 8);
	if (n > ARENA_CHUNK / 4 && c) {
		/* A large string gets its own chunk behind the current one. */
		struct arena_chunk *big = arena_chunk_new(n);

		big->next = c->next;
		c->next = big;
		big->used = n;
		return big->data;
	}
	if (!c || c->size - c->used < n) {
		c = arena_chunk_new(MAX(n, ARENA_CHUNK));
		c->next = a->head;
		a->head = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

static void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_chunk *next = a->head->next;

		free(a->head);
		a->head = next;
	}
}

struct idname {
	uint32_t key;
	uint32_t flags;		/* a thread's RT_THREAD_* */
	const char *s;		/* NULL marks an empty slot */
};

/* Open addressing, power-of-two capacity, at most half full. */
struct idmap {
	struct idname *v;
	size_t n, cap;
};

static struct idname *idmap_slot(const struct idmap *m, uint32_t key)
{
	size_t mask = m->cap - 1, i = hash64(key) & mask;

	while (m->v[i].s && m->v[i].key != key)
		i = (i + 1) & mask;
	return &m->v[i];
}

static void idmap_put(struct idmap *m, uint32_t key, const char *s,
		      uint32_t flags)
{
	struct idname *slot;

	if (2 * (m->n + 1) > m->cap) {
		struct idmap g = { .cap = m->cap ? 2 * m->cap : 16 };

		g.v = xcalloc(g.cap, sizeof(*g.v));
		for (size_t i = 0; i < m->cap; i++)
			if (m->v[i].s)
				*idmap_slot(&g, m->v[i].key) = m->v[i];
		g.n = m->n;
		free(m->v);
		*m = g;
	}
	slot = idmap_slot(m, key);
	if (!slot->s)
		m->n++;
	slot->key = key;
	slot->s = s;
	slot->flags = flags;
}

static const char *idmap_get(const struct idmap *m, uint32_t key)
{
	return m->cap ? idmap_slot(m, key)->s : NULL;
}

/* ---- reader ----------------------------------------------------------- */

struct rt_evlog_reader {
	int fd;
	char *path;
	uint64_t size;		/* at open; later bytes are not read */
	uint32_t version;	/* of the file's format */
	uint8_t *buf;		/* @cap bytes of the file from @off */
	size_t cap;
	uint64_t off;
	size_t pos, len;	/* unread part of the window: buf[pos, len) */
	/*
	 * End of the whole records of the current event block that are in
	 * the window; rt_evlog_next() decodes while pos < lim.
	 */
	size_t lim;
	uint64_t blk_end;	/* file offset where that event block ends */
	/*
	 * A packed block is read whole into the window: buf[pos, lim) is
	 * its unread part, which ends before the block when the file does
	 * (pk_whole false).  pk_at is its offset, for messages.
	 */
	bool packed, pk_whole;
	uint64_t pk_at;
	struct pk_state *pk;
	uint64_t first;		/* first block after the session block */
	uint64_t absorbed;	/* blocks before this offset were absorbed */
	uint8_t *big;		/* a table block larger than the window */
	struct rt_log_info info;
	struct rt_log_end end;
	struct rt_log_window window;
	struct rt_log_losses losses;
	uint32_t *lost_pids;	/* the processes of the LOST blocks */
	bool has_end, has_window, has_losses, cut, done;
	int err;		/* sticky until rewind */
	struct rt_log_func **funcs;
	struct rt_log_stack **stacks;	/* by id */
	size_t nstacks, stacks_cap, stacks_read;
	size_t nfuncs, funcs_cap;
	uint64_t nrows;
	struct idmap threads, procs;
	struct arena arena;
	/*
	 * A stream (rt_evlog_open_stream()): no file, @size grows with each
	 * chunk fed; the last chunk is at @mem, its first byte at offset
	 * @mem_off.  Earlier chunks were read whole before it came.
	 */
	bool stream;
	const uint8_t *mem;
	uint64_t mem_off;
	uint8_t *profile;	/* the last profile block's payload */
	size_t nprofile;
};

/* A bounded view of one block's payload; @why holds the first problem. */
struct cur {
	const uint8_t *p, *end;
	const char *why;
};

static bool need(struct cur *c, size_t n)
{
	if (c->why)
		return false;
	if ((size_t)(c->end - c->p) >= n)
		return true;
	c->why = "a field runs past the end of its block";
	return false;
}

static uint32_t cur_u32(struct cur *c)
{
	uint32_t v = 0;

	if (need(c, 4)) {
		v = get_u32(c->p);
		c->p += 4;
	}
	return v;
}

static uint64_t cur_u64(struct cur *c)
{
	uint64_t v = 0;

	if (need(c, 8)) {
		v = get_u64(c->p);
		c->p += 8;
	}
	return v;
}

/* A copied, NUL-terminated string, or NULL (absent, or an error). */
static const char *cur_str(struct cur *c, struct rt_evlog_reader *r)
{
	uint32_t n = cur_u32(c);
	char *s;

	if (c->why || n == STR_NONE)
		return NULL;
	if (n > STR_MAX) {
		c->why = "a string is longer than 1 MiB";
		return NULL;
	}
	if (!need(c, n))
		return NULL;
	s = arena_alloc(&r->arena, n + 1);
	memcpy(s, c->p, n);
	s[n] = '\0';
	c->p += n;
	return s;
}

static const char *nonnull(const char *s)
{
	return s ? s : "";
}

static uint64_t pos_off(const struct rt_evlog_reader *r)
{
	return r->off + r->pos;
}

static int read_failed(struct rt_evlog_reader *r, int err)
{
	pr_err("cannot read %s: %s", r->path, strerror(-err));
	return err;
}

/* pread() from the file, or a copy from the chunk fed last. */
static ssize_t read_at(struct rt_evlog_reader *r, void *dst, size_t n,
		       uint64_t at)
{
	if (!r->stream)
		return pread(r->fd, dst, n, at);
	if (at < r->mem_off || at >= r->size)
		return 0;
	n = MIN(n, r->size - at);
	memcpy(dst, r->mem + (at - r->mem_off), n);
	return (ssize_t)n;
}

/*
 * Makes at least @n (<= r->cap) unread bytes available in the window, and
 * returns how many are: fewer than @n only at the end of the file.
 */
static long ensure(struct rt_evlog_reader *r, size_t n)
{
	if (r->len - r->pos >= n)
		return n;
	memmove(r->buf, r->buf + r->pos, r->len - r->pos);
	r->off += r->pos;
	r->len -= r->pos;
	r->pos = r->lim = 0;
	while (r->len < n && r->off + r->len < r->size) {
		uint64_t at = r->off + r->len;
		size_t want = MIN(r->cap - r->len, r->size - at);
		ssize_t got = read_at(r, r->buf + r->len, want, at);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return read_failed(r, -errno);
		if (got == 0)
			break;	/* the file shrank since open */
		r->len += got;
	}
	return MIN(n, r->len);
}

static void set_cut(struct rt_evlog_reader *r)
{
	pr_dbg("%s: the file ends inside a block (offset %" PRIu64 ")",
	       r->path, pos_off(r));
	r->cut = true;
	r->done = true;
}

/* Moves past @n bytes; a block that runs past the end of file is cut. */
static void skip(struct rt_evlog_reader *r, uint64_t n)
{
	uint64_t at = pos_off(r);

	if (n > r->size - at) {
		set_cut(r);
	} else if (n <= r->len - r->pos) {
		r->pos += n;
	} else {
		r->off = at + n;
		r->pos = r->len = r->lim = 0;
	}
}

/* A payload too large for the window, read into r->big. */
static int payload_big(struct rt_evlog_reader *r, size_t n,
		       const uint8_t **out)
{
	uint64_t at = pos_off(r);
	size_t have = r->len - r->pos;

	r->big = xmalloc(n);
	memcpy(r->big, r->buf + r->pos, have);
	r->off = at + n;
	r->pos = r->len = r->lim = 0;
	while (have < n) {
		ssize_t got = read_at(r, r->big + have, n - have, at + have);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return read_failed(r, -errno);
		if (got == 0) {
			set_cut(r);
			return 0;
		}
		have += got;
	}
	*out = r->big;
	return 0;
}

/*
 * Points *@out at the next @n bytes and moves past them.  Returns 0 with
 * *@out NULL when the file ends first (then the log is cut), or -errno.
 * The size check comes before any allocation: a forged length can never
 * make the reader allocate more than the file holds.
 */
static int payload(struct rt_evlog_reader *r, uint64_t n, const uint8_t **out)
{
	long got;

	*out = NULL;
	if (n > r->size - pos_off(r)) {
		set_cut(r);
		return 0;
	}
	if (n > r->cap)
		return payload_big(r, n, out);
	got = ensure(r, n);
	if (got < 0)
		return got;
	if ((uint64_t)got < n) {
		set_cut(r);
		return 0;
	}
	*out = r->buf + r->pos;
	r->pos += n;
	return 0;
}

static void add_func(struct rt_evlog_reader *r, struct rt_log_func *f,
		     struct cur *c)
{
	r->nrows++;
	if (f->id >= FUNC_ID_SLACK + FUNC_ID_PER_ROW * r->nrows) {
		c->why = "a function id is far beyond the number of rows";
		return;
	}
	if (f->id >= r->funcs_cap) {
		size_t cap = MAX(2 * r->funcs_cap, (size_t)f->id + 1);

		cap = MAX(cap, 64);
		r->funcs = xrealloc(r->funcs, cap * sizeof(*r->funcs));
		memset(r->funcs + r->funcs_cap, 0,
		       (cap - r->funcs_cap) * sizeof(*r->funcs));
		r->funcs_cap = cap;
	}
	r->funcs[f->id] = f;
	r->nfuncs = MAX(r->nfuncs, (size_t)f->id + 1);
}

/* A deduplicated call stack; ids are dense from 1, like function ids. */
static const char *parse_stack(struct rt_evlog_reader *r, struct cur *c)
{
	uint32_t id = cur_u32(c), n = cur_u32(c);
	struct rt_log_stack *st;

	if (c->why)
		return c->why;
	if (n > STACK_MAX || id >= FUNC_ID_SLACK + r->stacks_read * 2)
		return "a stack id or depth out of range";
	st = arena_alloc(&r->arena, sizeof(*st));
	st->id = id;
	st->n = n;
	st->frames = arena_alloc(&r->arena, (n + 1) * sizeof(*st->frames));
	for (uint32_t i = 0; i < n && !c->why; i++) {
		st->frames[i].pc = cur_u64(c);
		st->frames[i].line = cur_u32(c);
		st->frames[i].name = nonnull(cur_str(c, r));
		st->frames[i].file = cur_str(c, r);
	}
	if (c->why)
		return c->why;
	r->stacks_read++;
	if (id >= r->stacks_cap) {
		size_t cap = MAX(MAX(2 * r->stacks_cap, (size_t)id + 1), 64);

		r->stacks = xrealloc(r->stacks, cap * sizeof(*r->stacks));
		memset(r->stacks + r->stacks_cap, 0,
		       (cap - r->stacks_cap) * sizeof(*r->stacks));
		r->stacks_cap = cap;
	}
	r->stacks[id] = st;
	r->nstacks = MAX(r->nstacks, (size_t)id + 1);
	return NULL;
}

static void parse_func_row(struct rt_evlog_reader *r, struct cur *c)
{
	uint32_t rowlen = cur_u32(c);
	struct rt_log_func *f;
	struct cur row;

	if (!need(c, rowlen))
		return;
	/* Fields a newer writer appends to the row are skipped. */
	row = (struct cur){ c->p, c->p + rowlen, NULL };
	c->p += rowlen;
	f = arena_alloc(&r->arena, sizeof(*f));
	*f = (struct rt_log_func){ 0 };  /* the fields no row has, too */
	f->id = cur_u32(&row);
	f->refusal = cur_u32(&row);
	f->addr = cur_u64(&row);
	f->size = cur_u64(&row);
	f->line = cur_u32(&row);
	f->name = nonnull(cur_str(&row, r));
	f->raw = nonnull(cur_str(&row, r));
	f->module = nonnull(cur_str(&row, r));
	f->file = cur_str(&row, r);
	if (!row.why && row.p + 4 <= row.end)
		f->flags = cur_u32(&row);
	if (!row.why && row.p + 8 <= row.end) {
		f->sites = cur_u32(&row);
		f->inline_sites = cur_u32(&row);
	}
	if (!row.why && row.p + 4 <= row.end)
		f->inlined_sites = cur_u32(&row);
	/* logs from before the refused instances were recorded end here */
	if (!row.why && row.p + 12 <= row.end) {
		f->inlined_refused = cur_u32(&row);
		f->inlined_why = cur_u32(&row);
		f->inlined_packed = cur_u32(&row);
	}
	if (row.why)
		c->why = row.why;
	else
		add_func(r, f, c);
}

static const char *parse_funcs(struct rt_evlog_reader *r, struct cur *c)
{
	uint32_t count = cur_u32(c);
	uint64_t nrows = r->nrows;

	/* No allocation follows @count: each row is checked as it comes. */
	for (uint32_t i = 0; i < count && !c->why; i++)
		parse_func_row(r, c);
	/*
	 * The rows of a malformed block do not raise the id bound: it is
	 * read again on the next pass, which must find it malformed too
	 * (counted twice, a row past the bound would pass the second time).
	 */
	if (c->why)
		r->nrows = nrows;
	return c->why;
}

static const char *parse_names(struct rt_evlog_reader *r, struct cur *c,
			       struct idmap *m)
{
	uint32_t id = cur_u32(c), flags = 0;
	const char *s;


	cur_u32(c);	/* the pid of a thread, the parent of a process */
	s = cur_str(c, r);
	if (!c->why && c->p + 4 <= c->end)
		flags = cur_u32(c);
	if (s && !c->why)
		idmap_put(m, id, s, flags);
	return c->why;
}

static const char *parse_end(struct rt_evlog_reader *r, struct cur *c)
{
	struct rt_log_end *e = &r->end;

	e->end_ns = cur_u64(c);
	e->status = (int32_t)cur_u32(c);
	e->how = cur_u32(c);
	e->stops = cur_u64(c);
	e->events = cur_u64(c);
	e->dropped = cur_u64(c);
	/* logs from before the disk guard end here */
	e->flags = !c->why && c->p + 4 <= c->end ? cur_u32(c) : 0;
	r->has_end = !c->why;
	return c->why;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void count_lost_pid(struct rt_evlog_reader *r, uint32_t pid)
{
	for (uint32_t i = 0; i < r->losses.processes; i++)
		if (r->lost_pids[i] == pid)
			return;
	r->lost_pids = xrealloc(r->lost_pids, (r->losses.processes + 1) *
						      sizeof(*r->lost_pids));
	r->lost_pids[r->losses.processes++] = pid;
}

/* Events a process did not record since its last LOST block: added to
 * the run's and to each function's.  What no known function takes (an
 * id with no table yet, or counts that add up to less) is the run's
 * alone, and may be any function's. */
static const char *parse_lost(struct rt_evlog_reader *r, struct cur *c)
{
	uint32_t pid = cur_u32(c), reasons = cur_u32(c);
	uint64_t events = cur_u64(c), taken = 0;
	uint32_t n = cur_u32(c);

	if (c->why)
		return c->why;
	if ((uint64_t)n * LOST_FN_LEN > (uint64_t)(c->end - c->p))
		return "more functions than the block holds";
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = cur_u32(c);
		uint64_t said = cur_u64(c);
		uint64_t k = MIN(said, events - taken);
		struct rt_log_func *fn = id < r->nfuncs ? r->funcs[id] : NULL;

		if (!fn || !k)
			continue;
		fn->lost = add_sat(fn->lost, k);
		taken += k;
	}
	r->losses.events = add_sat(r->losses.events, events);
	r->losses.unattributed = add_sat(r->losses.unattributed,
					 events - taken);
	r->losses.reasons |= reasons;
	count_lost_pid(r, pid);
	r->has_losses = true;
	return c->why;
}

/* The calibration curve that follows the session strings. */
static void parse_cost(struct cur *c, struct rt_stop_cost *cost)
{
	uint32_t n = cur_u32(c);

	if (n > RT_STOP_COST_POINTS) {
		c->why = "too many calibration points";
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		cost->interval_ns[i] = cur_u64(c);
		cost->cost_ns[i] = cur_u64(c);
		if (i && cost->interval_ns[i] < cost->interval_ns[i - 1])
			c->why = "calibration points out of order";
	}
	cost->n = c->why ? 0 : n;
}

/* The part of each point's cost before the time stamp, when the log has
 * it (logs from before it was measured end at the curve). */
static void parse_cost_split(struct cur *c, struct rt_stop_cost *cost)
{
	uint32_t n = cur_u32(c);

	if (n && n != cost->n) {
		c->why = "calibration split does not match the curve";
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		cost->pre_ns[i] = cur_u64(c);
		if (cost->pre_ns[i] > cost->cost_ns[i])
			c->why = "calibration split larger than the cost";
	}
	cost->has_pre = n && !c->why;
}

static const char *parse_session(struct rt_evlog_reader *r, struct cur *c)
{
	struct rt_log_info *info = &r->info;

	info->start_ns = cur_u64(c);
	info->start_real_ns = cur_u64(c);
	info->stop_cost_ns = cur_u64(c);
	info->pid = cur_u32(c);
	info->flags = cur_u32(c);
	info->cmdline = nonnull(cur_str(c, r));
	info->cwd = nonnull(cur_str(c, r));
	info->host = nonnull(cur_str(c, r));
	info->version = nonnull(cur_str(c, r));
	if (!c->why && c->p < c->end)
		parse_cost(c, &info->cost);
	if (!c->why && c->p < c->end)
		parse_cost_split(c, &info->cost);
	return c->why;
}

static int malformed(struct rt_evlog_reader *r, uint64_t at, uint32_t type,
		     const char *why)
{
	pr_err("%s: malformed log: %s block at offset %" PRIu64 ": %s",
	       r->path, block_name(type), at, why);
	return -EBADMSG;
}

/* The profile block is kept as bytes: the report stage reads them. */
static const char *keep_profile(struct rt_evlog_reader *r, struct cur *c)
{
	size_t n = c->end - c->p;

	free(r->profile);
	r->profile = xmalloc(n + 1);
	memcpy(r->profile, c->p, n);
	r->nprofile = n;
	c->p = c->end;
	return NULL;
}

/* Reads a table block (functions, names, end) and keeps what it says. */
static int absorb(struct rt_evlog_reader *r, uint64_t at, uint32_t type,
		  uint32_t n)
{
	const uint8_t *p;
	const char *why;
	struct cur c;
	int rc;

	if (n > META_MAX)
		return malformed(r, at, type, "absurd block length");
	rc = payload(r, n, &p);
	if (rc < 0 || !p)
		goto out;
	c = (struct cur){ p, p + n, NULL };
	if (type == BLK_FUNCS)
		why = parse_funcs(r, &c);
	else if (type == BLK_THREAD)
		why = parse_names(r, &c, &r->threads);
	else if (type == BLK_PROCESS)
		why = parse_names(r, &c, &r->procs);
	else if (type == BLK_STACK)
		why = parse_stack(r, &c);
	else if (type == BLK_PROFILE)
		why = keep_profile(r, &c);
	else if (type == BLK_LOST)
		why = parse_lost(r, &c);
	else
		why = parse_end(r, &c);
	/* A bad block is not marked absorbed: a second pass reports it. */
	if (why)
		rc = malformed(r, at, type, why);
	else
		r->absorbed = pos_off(r);
out:
	zfree(&r->big);
	return rc;
}

static bool is_table(uint32_t type)
{
	return type == BLK_FUNCS || type == BLK_THREAD ||
	       type == BLK_PROCESS || type == BLK_END || type == BLK_STACK ||
	       type == BLK_PROFILE || type == BLK_LOST;
}

static int open_packed(struct rt_evlog_reader *r, uint64_t at, uint32_t n)
{
	long got;

	if (n > IO_BUF - BLOCK_HDR)
		return malformed(r, at, BLK_PACKED, "longer than 1 MiB");
	got = ensure(r, n);
	if (got < 0)
		return got;
	if (!r->pk)
		r->pk = xcalloc(1, sizeof(*r->pk));
	pk_reset(r->pk);
	r->pk_at = at;
	r->pk_whole = (uint64_t)got == n;
	r->packed = true;
	r->lim = r->pos + got;
	return 0;
}

/* The unread part of a packed block is used up: the block ends, or the
 * file does. */
static int packed_done(struct rt_evlog_reader *r)
{
	r->packed = false;
	if (!r->pk_whole)
		set_cut(r);
	return 0;
}

static int packed_next(struct rt_evlog_reader *r, struct rt_event *ev)
{
	const char *why;
	long n = pk_decode(r->pk, r->buf + r->pos, r->buf + r->lim, ev, &why);

	if (likely(n > 0)) {
		r->pos += n;
		return 1;
	}
	if (n < 0 || r->pk_whole) {
		r->pos = r->lim;	/* the error is sticky, said once */
		r->packed = false;
		r->err = malformed(r, r->pk_at, BLK_PACKED, n < 0 ? why :
				   "an event runs past the end of its block");
		return r->err;
	}
	/* the file ends inside this event */
	r->pos = r->lim;
	return packed_done(r);
}

/* Reads the next block header and deals with the block. */
static int read_block(struct rt_evlog_reader *r)
{
	uint64_t at = pos_off(r);
	uint32_t type, n;
	long got = ensure(r, BLOCK_HDR);

	if (got < 0)
		return got;
	if (got < BLOCK_HDR) {
		if (got)
			set_cut(r);
		r->done = true;
		return 0;
	}
	type = get_u32(r->buf + r->pos);
	n = get_u32(r->buf + r->pos + 4);
	r->pos += BLOCK_HDR;
	if (type == BLK_PACKED)
		return open_packed(r, at, n);
	if (type == BLK_EVENTS) {
		if (n % RT_EVENT_SIZE)
			return malformed(r, at, type, "length is not a "
					 "whole number of records");
		r->blk_end = at + BLOCK_HDR + n;
		return 0;
	}
	/* Tables met on an earlier pass are kept, not read again. */
	if (is_table(type) && at >= r->absorbed)
		return absorb(r, at, type, n);
	if (!is_table(type))
		pr_dbg2("%s: skipping block type %" PRIu32 " at offset %"
			PRIu64, r->path, type, at);
	skip(r, n);
	return 0;
}

/* Brings the next records of the current event block into the window. */
static int more_events(struct rt_evlog_reader *r)
{
	uint64_t left = r->blk_end - pos_off(r);
	long got = ensure(r, RT_EVENT_SIZE);

	if (got < 0)
		return got;
	if (got < RT_EVENT_SIZE) {
		set_cut(r);
		return 0;
	}
	r->lim = r->pos + MIN(r->len - r->pos, left) / RT_EVENT_SIZE *
			  RT_EVENT_SIZE;
	return 0;
}

static int next_slow(struct rt_evlog_reader *r, struct rt_event *ev)
{
	while (!r->err && !r->done) {
		int rc;

		if (r->packed)
			rc = packed_done(r);
		else if (pos_off(r) < r->blk_end)
			rc = more_events(r);
		else
			rc = read_block(r);
		if (rc < 0)
			r->err = rc;
		else if (r->pos < r->lim)
			return rt_evlog_next(r, ev);
	}
	return r->err;
}

int rt_evlog_next(struct rt_evlog_reader *r, struct rt_event *ev)
{
	if (likely(r->pos < r->lim)) {
		if (r->packed)
			return packed_next(r, ev);
		event_decode(r->buf + r->pos, ev);
		r->pos += RT_EVENT_SIZE;
		return 1;
	}
	return next_slow(r, ev);
}

static int cut_in_header(struct rt_evlog_reader *r, const char *what,
			 uint64_t have, uint64_t want)
{
	pr_err("%s: log is cut short inside its header (%s: %" PRIu64
	       " of %" PRIu64 " bytes)", r->path, what, have, want);
	return -EBADMSG;
}

static int read_file_header(struct rt_evlog_reader *r)
{
	long got = ensure(r, HEADER_LEN);
	const uint8_t *h = r->buf;
	uint32_t version, hlen;

	if (got < 0)
		return got;
	if (memcmp(h, LOG_MAGIC, MIN((size_t)got, MAGIC_LEN)) != 0) {
		pr_err("%s is not an rtrace log", r->path);
		return -EINVAL;
	}
	if (got < HEADER_LEN)
		return cut_in_header(r, "file header", got, HEADER_LEN);
	version = get_u32(h + 8);
	hlen = get_u32(h + 12);
	r->version = version;
	if (version > RT_EVLOG_VERSION) {
		pr_err("%s: log format version %" PRIu32 " is newer than this "
		       "rtrace understands (up to %d); use a newer rtrace",
		       r->path, version, RT_EVLOG_VERSION);
		return -EPROTONOSUPPORT;
	}
	if (version == 0 || hlen < HEADER_LEN || hlen > HEADER_MAX) {
		pr_err("%s: malformed log header (version %" PRIu32
		       ", header length %" PRIu32 ")", r->path, version, hlen);
		return -EBADMSG;
	}
	if (hlen > r->size)
		return cut_in_header(r, "file header", r->size, hlen);
	skip(r, hlen);
	return 0;
}

static int bad_session(struct rt_evlog_reader *r, const char *why)
{
	pr_err("%s: malformed session block (%s)", r->path, why);
	return -EBADMSG;
}

static int read_session(struct rt_evlog_reader *r)
{
	uint64_t at = pos_off(r);
	long got = ensure(r, BLOCK_HDR);
	const uint8_t *p;
	uint32_t type, n;
	struct cur c;
	int rc;

	if (got < 0)
		return got;
	if (got < BLOCK_HDR)
		return cut_in_header(r, "session block", got, BLOCK_HDR);
	type = get_u32(r->buf + r->pos);
	n = get_u32(r->buf + r->pos + 4);
	if (type != BLK_SESSION)
		return bad_session(r, "the first block is not a session block");
	if (n > META_MAX)
		return bad_session(r, "absurd block length");
	r->pos += BLOCK_HDR;
	rc = payload(r, n, &p);
	if (rc < 0)
		return rc;
	if (!p)
		return cut_in_header(r, "session block",
				     r->size - at - BLOCK_HDR, n);
	c = (struct cur){ p, p + n, NULL };
	if (parse_session(r, &c))
		rc = bad_session(r, c.why);
	zfree(&r->big);
	r->first = r->absorbed = pos_off(r);
	return rc;
}

/*
 * A flight recorder's window record, looked for when the log is opened:
 * views print it before they read the events.  Only block headers are
 * read on the way; a log that holds no whole record has no window.
 */
static void find_window(struct rt_evlog_reader *r)
{
	uint8_t h[BLOCK_HDR], p[WINDOW_LEN];
	uint64_t at = r->first;

	while (at + BLOCK_HDR <= r->size &&
	       pread(r->fd, h, BLOCK_HDR, at) == BLOCK_HDR) {
		uint32_t n = get_u32(h + 4);

		if (get_u32(h) != BLK_WINDOW) {
			at += BLOCK_HDR + (uint64_t)n;
			continue;
		}
		if (n < WINDOW_LEN || pread(r->fd, p, WINDOW_LEN,
					    at + BLOCK_HDR) != WINDOW_LEN)
			return;
		r->window.first_ts = get_u64(p);
		r->window.last_ts = get_u64(p + 8);
		r->window.end_ns = get_u64(p + 16);
		r->window.events = get_u64(p + 24);
		r->window.bytes = get_u64(p + 32);
		r->window.dropped_events = get_u64(p + 40);
		r->window.dropped_blocks = get_u64(p + 48);
		r->window.keep_ns = get_u64(p + 56);
		r->window.keep_bytes = get_u64(p + 64);
		r->has_window = r->window.first_ts <= r->window.last_ts;
		return;
	}
}

static int open_failed(const char *path, int err)
{
	pr_err("cannot open %s: %s", path, strerror(-err));
	return err;
}

static int reader_new(const char *path, struct rt_evlog_reader **out)
{
	struct rt_evlog_reader *r;
	struct stat st;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return open_failed(path, -errno);
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (S_ISDIR(st.st_mode))
		rc = -EISDIR;
	if (rc < 0) {
		close(fd);
		return open_failed(path, rc);
	}
	r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	r->path = xstrdup(path);
	r->size = st.st_size;
	/* A small log needs no 1 MiB window; 4 KiB holds any header. */
	r->cap = MIN(IO_BUF, MAX(r->size, 4096));
	r->buf = xmalloc(r->cap);
	*out = r;
	return 0;
}

/* Reads the file header and the session block of a new reader. */
static int reader_start(struct rt_evlog_reader *r,
			struct rt_evlog_reader **out)
{
	int rc = read_file_header(r);

	if (!rc)
		rc = read_session(r);
	/* a stream's window, if any, comes at its end */
	if (!rc && !r->stream && (r->info.flags & RT_LOG_WINDOW))
		find_window(r);
	if (rc < 0) {
		rt_evlog_reader_free(r);
		return rc;
	}
	pr_dbg("%s: version %" PRIu32 " log, %" PRIu64 " bytes", r->path,
	       r->version, r->size);
	*out = r;
	return 0;
}

int rt_evlog_open(const char *path, struct rt_evlog_reader **out)
{
	struct rt_evlog_reader *r = NULL;
	int rc;

	/* *out is set on success only; testing r, not rc, also tells the
	 * analyzer, which cannot know that errno is never 0 after open() */
	rc = reader_new(path, &r);
	if (!r)
		return rc;
	return reader_start(r, out);
}

int rt_evlog_open_stream(const uint8_t *head, size_t n, const char *name,
			 struct rt_evlog_reader **out)
{
	struct rt_evlog_reader *r = xcalloc(1, sizeof(*r));

	r->fd = -1;
	r->stream = true;
	r->path = xstrdup(name);
	r->cap = IO_BUF;
	r->buf = xmalloc(r->cap);
	r->mem = head;
	r->size = n;
	return reader_start(r, out);
}

void rt_evlog_feed(struct rt_evlog_reader *r, const uint8_t *bytes, size_t n)
{
	r->mem = bytes;
	r->mem_off = r->size;
	r->size += n;
	/* the end of what was fed is no end: the stream goes on */
	r->done = false;
}

/* Stages one block of another log, as read, after the writer's own. */
static int copy_block(struct rt_evlog_writer *w, uint32_t type,
		      const uint8_t *p, uint32_t n)
{
	uint8_t *to = block_begin(w, type, n);

	if (!to)
		return w->err;
	memcpy(to, p, n);
	return block_end(w);
}

/* One block of @r for rt_evlog_replay(): 1 when copied or absorbed, 0 at
 * the end, or -errno. */
static int replay_block(struct rt_evlog_reader *r, struct rt_evlog_writer *w)
{
	uint64_t at = pos_off(r);
	long got = ensure(r, BLOCK_HDR);
	const uint8_t *p;
	uint32_t type, n;
	int rc;

	if (got < BLOCK_HDR)
		return got < 0 ? (int)got : 0;
	type = get_u32(r->buf + r->pos);
	n = get_u32(r->buf + r->pos + 4);
	r->pos += BLOCK_HDR;
	if (n > META_MAX)
		return malformed(r, at, type, "absurd block length");
	/* the end is the caller's to write, after what it adds */
	if (type == BLK_END || type == BLK_PROFILE)
		return absorb(r, at, type, n) < 0 ? -EBADMSG : 1;
	rc = payload(r, n, &p);
	if (rc < 0 || !p) {
		zfree(&r->big);
		return rc;
	}
	rc = copy_block(w, type, p, n);
	zfree(&r->big);
	return rc < 0 ? rc : 1;
}

int rt_evlog_replay(struct rt_evlog_reader *r, struct rt_evlog_writer *w)
{
	int rc;

	rt_evlog_rewind(r);
	while ((rc = replay_block(r, w)) > 0)
		;
	return rc < 0 ? rc : rt_evlog_flush(w);
}

void rt_evlog_set_profile(struct rt_evlog_reader *r, const uint8_t *bytes,
			  size_t n)
{
	free(r->profile);
	r->profile = xmalloc(n + 1);
	memcpy(r->profile, bytes, n);
	r->nprofile = n;
}

int rt_evlog_profile_only(struct rt_evlog_reader *r)
{
	struct rt_event ev;
	int rc;

	/* a log with events gives its first one at once; one without is
	 * read through its tables to its end */
	rt_evlog_rewind(r);
	rc = rt_evlog_next(r, &ev);
	return rc < 0 ? rc : rc == 0 && r->profile;
}

const uint8_t *rt_evlog_profile(const struct rt_evlog_reader *r, size_t *n)
{
	*n = r->nprofile;
	return r->profile;
}

void rt_evlog_reader_free(struct rt_evlog_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->profile);
	free(r->path);
	free(r->buf);
	free(r->big);
	free(r->funcs);
	free(r->stacks);
	free(r->lost_pids);
	free(r->pk);
	free(r->threads.v);
	free(r->procs.v);
	arena_free(&r->arena);
	free(r);
}

const struct rt_log_info *rt_evlog_info(const struct rt_evlog_reader *r)
{
	return &r->info;
}

int rt_evlog_rewind(struct rt_evlog_reader *r)
{
	r->off = r->first;
	r->pos = r->len = r->lim = 0;
	r->blk_end = 0;
	r->packed = false;
	r->done = false;
	r->err = 0;
	return 0;
}

size_t rt_evlog_nfuncs(const struct rt_evlog_reader *r)
{
	return r->nfuncs;
}

const struct rt_log_func *rt_evlog_func(const struct rt_evlog_reader *r,
					uint32_t id)
{
	return id < r->nfuncs ? r->funcs[id] : NULL;
}

const struct rt_log_stack *rt_evlog_stack(const struct rt_evlog_reader *r,
					  uint32_t id)
{
	return id < r->nstacks ? r->stacks[id] : NULL;
}

uint32_t rt_evlog_thread_flags(const struct rt_evlog_reader *r, uint32_t tid)
{
	return r->threads.cap ? idmap_slot(&r->threads, tid)->flags : 0;
}

const char *rt_evlog_thread_name(const struct rt_evlog_reader *r,
				 uint32_t tid)
{
	return idmap_get(&r->threads, tid);
}

const char *rt_evlog_process_exe(const struct rt_evlog_reader *r,
				 uint32_t pid)
{
	return idmap_get(&r->procs, pid);
}

const struct rt_log_end *rt_evlog_end(const struct rt_evlog_reader *r)
{
	return r->has_end ? &r->end : NULL;
}

const struct rt_log_losses *rt_evlog_losses(const struct rt_evlog_reader *r)
{
	return r->has_losses ? &r->losses : NULL;
}

const struct rt_log_window *rt_evlog_window(const struct rt_evlog_reader *r)
{
	return r->has_window ? &r->window : NULL;
}

bool rt_evlog_cut(const struct rt_evlog_reader *r)
{
	return r->cut;
}

uint64_t rt_evlog_file_size(const struct rt_evlog_reader *r)
{
	return r->size;
}
