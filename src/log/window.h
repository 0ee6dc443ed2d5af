/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder's spool (--keep=TIME|SIZE): the most recent event
 * blocks, kept in a temporary file used as a ring, and an index of them
 * in memory.  Private to src/log: the writer of evlog.c hands it each
 * finished event block and, at close, copies the kept ones into the log.
 */
#ifndef RTRACE_LOG_WINDOW_H
#define RTRACE_LOG_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One event block in the spool. */
struct lw_block {
	uint64_t off;		/* where it is in the spool */
	uint64_t len;		/* its bytes, block header included */
	uint64_t first_ts, last_ts;	/* its earliest and latest events */
	uint64_t events;
};

struct lw_ring;

/* Creates the spool next to @log_path (a temporary file, unlinked at
 * once).  @ns: keep the blocks within ns of the newest event; else
 * @bytes: keep the newest blocks that add up to at most that.  0 or
 * -errno.  Free with lw_free(). */
int lw_open(const char *log_path, uint64_t ns, uint64_t bytes,
	    struct lw_ring **out);

/* Frees the ring and closes its spool; accepts NULL. */
void lw_free(struct lw_ring *r);

/* Adds block @b (@b->off is ignored) whose bytes are @data, dropping the
 * oldest blocks that fall out of the window.  0 or -errno. */
int lw_add(struct lw_ring *r, struct lw_block b, const uint8_t *data);

/* Drops the oldest blocks until the kept ones take at most @bytes. */
void lw_trim(struct lw_ring *r, uint64_t bytes);

/* What the ring keeps: a time in *@ns, else a size in *@bytes. */
void lw_keep(const struct lw_ring *r, uint64_t *ns, uint64_t *bytes);

/* Blocks kept, and block @i of them (0 the oldest). */
size_t lw_count(const struct lw_ring *r);
const struct lw_block *lw_at(const struct lw_ring *r, size_t i);

/* Whether the spool's file system can free the space of a block read
 * for good (a hole punched in the file). */
bool lw_can_release(const struct lw_ring *r);

/* Frees the space of @b, read for good (after lw_can_release()). */
void lw_release(const struct lw_ring *r, const struct lw_block *b);

/* Reads the bytes of @b into @buf (@b->len bytes). 0 or -errno. */
int lw_read(const struct lw_ring *r, const struct lw_block *b, uint8_t *buf);

/* What the ring kept and dropped so far. */
struct lw_figures {
	uint64_t kept_bytes, kept_events;
	uint64_t dropped_blocks, dropped_events;
	uint64_t spool_bytes;	/* the spool file's size */
};
struct lw_figures lw_figures(const struct lw_ring *r);

#endif
