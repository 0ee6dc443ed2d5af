// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's spool (window.h).  Event blocks are
 * self-contained, so the oldest can be dropped at any time: the spool
 * holds the newest ones in a file reused as a ring, and the index says
 * where each is, oldest first.
 *
 * A block goes after the newest one when the space up to the next kept
 * block (or, with nothing after it, to the ring's end) holds it, else at
 * the start of the file when the oldest kept blocks left that much free
 * there.  A size ring has a fixed end, the size kept and a quarter more
 * (so that placing a block seldom drops more than the size asks), and
 * drops its oldest blocks until the new one fits.  A time ring never
 * drops a block still in its window: with no room, it grows at the end
 * of the file, so the file stays about as large as the window's events
 * at their peak (the writer's disk guard bounds that).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PR_FMT "evlog"
#define PR_DOMAIN RT_DOM_EVLOG
#include "rtrace/log.h"
#include "rtrace/util.h"

#include "window.h"

struct lw_ring {
	int fd;
	uint64_t keep_ns, keep_bytes;
	uint64_t cap;		/* end of the ring in the file */
	uint64_t newest_ts;	/* latest event seen */
	struct lw_block *v;	/* circular: v[(head + i) % size] */
	size_t head, n, size;
	struct lw_figures fig;
};

int lw_open(const char *log_path, uint64_t ns, uint64_t bytes,
	    struct lw_ring **out)
{
	char *tmpl = xasprintf("%s.spool-XXXXXX", log_path);
	int fd = mkostemp(tmpl, O_CLOEXEC), err = -errno;
	struct lw_ring *r;

	if (fd < 0) {
		pr_err("cannot create the flight recorder's spool %s: %s",
		       tmpl, strerror(-err));
		free(tmpl);
		return err;
	}
	/* nothing is left behind, whatever happens to rtrace */
	unlink(tmpl);
	free(tmpl);
	r = xcalloc(1, sizeof(*r));
	r->fd = fd;
	r->keep_ns = ns;
	r->keep_bytes = ns ? 0 : bytes;
	/* room to place blocks of any size without dropping more than the
	 * window asks */
	r->cap = r->keep_bytes + r->keep_bytes / 4;
	*out = r;
	return 0;
}

void lw_free(struct lw_ring *r)
{
	if (!r)
		return;
	close(r->fd);
	free(r->v);
	free(r);
}

void lw_keep(const struct lw_ring *r, uint64_t *ns, uint64_t *bytes)
{
	*ns = r->keep_ns;
	*bytes = r->keep_bytes;
}

size_t lw_count(const struct lw_ring *r)
{
	return r->n;
}

const struct lw_block *lw_at(const struct lw_ring *r, size_t i)
{
	return &r->v[(r->head + i) % r->size];
}

static void drop_oldest(struct lw_ring *r)
{
	const struct lw_block *b = lw_at(r, 0);

	r->fig.kept_bytes -= b->len;
	r->fig.kept_events -= b->events;
	r->fig.dropped_blocks++;
	r->fig.dropped_events += b->events;
	r->head = (r->head + 1) % r->size;
	r->n--;
}

void lw_trim(struct lw_ring *r, uint64_t bytes)
{
	while (r->n && r->fig.kept_bytes > bytes)
		drop_oldest(r);
}

/* Start of the first kept block at or after @at, or UINT64_MAX. */
static uint64_t next_start(const struct lw_ring *r, uint64_t at)
{
	uint64_t best = UINT64_MAX;

	for (size_t i = 0; i < r->n; i++)
		if (lw_at(r, i)->off >= at)
			best = MIN(best, lw_at(r, i)->off);
	return best;
}

/* Where @len bytes go without overwriting a kept block, or UINT64_MAX
 * when the ring must drop first. */
static uint64_t place(struct lw_ring *r, uint64_t len)
{
	uint64_t at, after;

	if (!r->n)
		return 0;
	at = lw_at(r, r->n - 1)->off + lw_at(r, r->n - 1)->len;
	after = next_start(r, at);
	if (after != UINT64_MAX)
		return at + len <= after ? at : UINT64_MAX;
	if (r->keep_bytes && at + len <= r->cap)
		return at;
	if (len <= next_start(r, 0))
		return 0;
	return r->keep_bytes ? UINT64_MAX : at;
}

/* The spot for a block of @len bytes, after dropping what must go. */
static uint64_t make_room(struct lw_ring *r, uint64_t len)
{
	uint64_t at;

	while ((at = place(r, len)) == UINT64_MAX) {
		if (r->keep_ns) {
			/* a time ring keeps its window: it grows */
			return r->cap;
		}
		drop_oldest(r);
	}
	return at;
}

static void push(struct lw_ring *r, const struct lw_block *b)
{
	if (r->n == r->size) {
		size_t size = r->size ? 2 * r->size : 64;
		struct lw_block *v = xcalloc(size, sizeof(*v));

		for (size_t i = 0; i < r->n; i++)
			v[i] = *lw_at(r, i);
		free(r->v);
		r->v = v;
		r->head = 0;
		r->size = size;
	}
	r->v[(r->head + r->n++) % r->size] = *b;
	r->fig.kept_bytes += b->len;
	r->fig.kept_events += b->events;
}

static int pwrite_all(int fd, const uint8_t *p, uint64_t len, uint64_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

int lw_add(struct lw_ring *r, struct lw_block b, const uint8_t *data)
{
	int err;

	r->newest_ts = MAX(r->newest_ts, b.last_ts);
	if (r->keep_ns)
		while (r->n && lw_at(r, 0)->last_ts + r->keep_ns < r->newest_ts)
			drop_oldest(r);
	else
		while (r->n && r->fig.kept_bytes + b.len > r->keep_bytes)
			drop_oldest(r);
	b.off = make_room(r, b.len);
	err = pwrite_all(r->fd, data, b.len, b.off);
	if (err)
		return err;
	rt_syscalls++;
	r->cap = MAX(r->cap, b.off + b.len);
	r->fig.spool_bytes = MAX(r->fig.spool_bytes, b.off + b.len);
	push(r, &b);
	return 0;
}

bool lw_can_release(const struct lw_ring *r)
{
	/* a hole past the end of the file changes nothing */
	return fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			 (off_t)r->fig.spool_bytes, 4096) == 0;
}

void lw_release(const struct lw_ring *r, const struct lw_block *b)
{
	fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  (off_t)b->off, (off_t)b->len);
}

int lw_read(const struct lw_ring *r, const struct lw_block *b, uint8_t *buf)
{
	uint64_t done = 0;

	while (done < b->len) {
		ssize_t n = pread(r->fd, buf + done, b->len - done,
				  b->off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	return 0;
}

struct lw_figures lw_figures(const struct lw_ring *r)
{
	return r->fig;
}
