// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's spool (src/log/window.c): a ring of blocks in a
 * file.  Every block carries a pattern of its own, so that a block
 * overwritten by another, or read from the wrong place, fails the check
 * whatever the ring's layout.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/log/window.h"
#include "rtrace/util.h"
#include "unittest.h"

/* Helpers that use the TEST_* checks take the case's failure flag. */
#define T_ARGS bool *rt_test_failed__
#define T_PASS rt_test_failed__

static char dir[] = "/tmp/rtrace-test-window-XXXXXX";

static void dir_remove(void)
{
	rmdir(dir);
}

static const char *log_path(void)
{
	static char path[64];

	if (!path[0]) {
		if (!mkdtemp(dir))
			abort();
		atexit(dir_remove);
		snprintf(path, sizeof(path), "%s/log", dir);
	}
	return path;
}

static uint8_t pattern(uint64_t id, uint64_t at)
{
	return (uint8_t)(id * 131 + at * 7 + (at >> 8));
}

/* Adds block @id of @len bytes, its events @id + 1, its times @ts. */
static int add(struct lw_ring *r, uint64_t id, uint64_t len, uint64_t ts)
{
	uint8_t *p = xmalloc(len);
	struct lw_block b = { .len = len, .first_ts = ts, .last_ts = ts,
			      .events = id + 1 };
	int err;

	for (uint64_t i = 0; i < len; i++)
		p[i] = pattern(id, i);
	err = lw_add(r, b, p);
	free(p);
	return err;
}

/* Which block the kept block @b is (its first byte's pattern), checking
 * every byte of it against that block's pattern; -1 when it is damaged. */
static long block_id(const struct lw_ring *r, const struct lw_block *b)
{
	uint8_t *p = xmalloc(b->len);
	long id = (long)b->events - 1;

	if (lw_read(r, b, p) < 0)
		id = -1;
	for (uint64_t i = 0; id >= 0 && i < b->len; i++)
		if (p[i] != pattern(id, i))
			id = -1;
	free(p);
	return id;
}

/* The kept blocks are blocks @first to @last, in order, undamaged. */
static void check_kept(T_ARGS, const struct lw_ring *r, long first, long last)
{
	TEST_EQ(lw_count(r), last - first + 1);
	for (size_t i = 0; i < lw_count(r); i++)
		TEST_EQ(block_id(r, lw_at(r, i)), first + (long)i);
}

/* A size window keeps the newest blocks that fit in the size. */
TEST_CASE(size_drops_oldest)
{
	struct lw_ring *r;
	struct lw_figures fig;
	uint64_t dropped = 0;

	TEST_EQ(lw_open(log_path(), 0, 1000, &r), 0);
	for (uint64_t id = 0; id < 10; id++)
		TEST_EQ(add(r, id, 300, id), 0);
	/* 3 x 300 fit in 1000, 4 do not */
	check_kept(T_PASS, r, 7, 9);
	for (uint64_t id = 0; id < 7; id++)
		dropped += id + 1;
	fig = lw_figures(r);
	TEST_EQ(fig.dropped_blocks, 7);
	TEST_EQ(fig.dropped_events, dropped);
	TEST_EQ(fig.kept_events, 8 + 9 + 10);
	TEST_EQ(fig.kept_bytes, 900);
	lw_free(r);
}

/* Blocks of many sizes wrap around the ring's end: never a byte past
 * the ring (the size and a quarter), never a kept block overwritten. */
TEST_CASE(size_wraps_around)
{
	struct lw_ring *r;
	long first = 0;
	bool wrapped = false;

	TEST_EQ(lw_open(log_path(), 0, 4000, &r), 0);
	for (uint64_t id = 0; id < 500; id++) {
		TEST_EQ(add(r, id, 100 + (id * 337) % 1900, id), 0);
		first = (long)block_id(r, lw_at(r, 0));
		TEST_TRUE(first >= 0);
		check_kept(T_PASS, r, first, (long)id);
		TEST_TRUE(lw_figures(r).kept_bytes <= 4000);
		TEST_TRUE(lw_figures(r).spool_bytes <= 5000);
		wrapped |= lw_count(r) > 1 && lw_at(r, lw_count(r) - 1)->off <
						      lw_at(r, 0)->off;
	}
	TEST_TRUE(wrapped);
	/* at least half the size is in use after the wrap */
	TEST_TRUE(lw_figures(r).kept_bytes >= 2000);
	lw_free(r);
}

/* A time window keeps the blocks whose last event is within the time of
 * the newest one, however many; its file stays near the peak. */
TEST_CASE(time_window)
{
	struct lw_ring *r;
	uint64_t ts = 0;

	TEST_EQ(lw_open(log_path(), 100, 0, &r), 0);
	/* a block every 10 ns: 11 within 100 ns */
	for (uint64_t id = 0; id < 200; id++, ts += 10)
		TEST_EQ(add(r, id, 256, ts), 0);
	check_kept(T_PASS, r, 189, 199);
	TEST_TRUE(lw_figures(r).spool_bytes <= 3 * 11 * 256);
	/* the rate goes up: four times more blocks within the window, none
	 * of them dropped to make room */
	for (uint64_t id = 200; id < 400; id++, ts += 2)
		TEST_EQ(add(r, id, 256, ts), 0);
	check_kept(T_PASS, r, 349, 399);
	/* and down again: the file is reused from its start */
	for (uint64_t id = 400; id < 600; id++, ts += 10)
		TEST_EQ(add(r, id, 256, ts), 0);
	check_kept(T_PASS, r, 589, 599);
	TEST_TRUE(lw_figures(r).spool_bytes <= 3 * 51 * 256);
	TEST_EQ(lw_figures(r).dropped_blocks, 589);
	lw_free(r);
}

/* Trimming drops the oldest blocks until the rest fit. */
TEST_CASE(trim)
{
	struct lw_ring *r;

	TEST_EQ(lw_open(log_path(), 1000, 0, &r), 0);
	for (uint64_t id = 0; id < 8; id++)
		TEST_EQ(add(r, id, 100 + id, id), 0);
	lw_trim(r, 320);
	/* 107 + 106 + 105 = 318 */
	check_kept(T_PASS, r, 5, 7);
	lw_trim(r, 0);
	TEST_EQ(lw_count(r), 0);
	TEST_EQ(lw_figures(r).dropped_blocks, 8);
	lw_free(r);
}

/* The spool is unlinked at once: nothing is left next to the log. */
TEST_CASE(spool_unlinked)
{
	struct lw_ring *r;
	char cmd[128];

	TEST_EQ(lw_open(log_path(), 0, 1 << 20, &r), 0);
	snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A %s)\"", dir);
	TEST_EQ(system(cmd), 0);
	lw_free(r);
}
