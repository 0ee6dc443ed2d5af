// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The block queue: every block reaches the consumer once, whole and in
 * order, on another thread; a bound smaller than the blocks still lets
 * each through; hold() leaves nothing queued or half consumed, and a
 * child forked under it finishes its copy alone.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rtrace/blockq.h"
#include "unittest.h"

struct seen {
	pthread_t producer;
	uint64_t blocks, bytes, sum;
	bool in_order, whole, elsewhere;
	unsigned slow;		/* µs to sleep per block */
};

/* Block i holds i + 1 bytes, each (i & 0xff); the blocks are numbered
 * by their first byte and length. */
static void consume(void *ctx, const uint8_t *b, size_t n)
{
	struct seen *s = ctx;

	s->whole &= n == s->blocks + 1;
	for (size_t i = 0; i < n; i++)
		s->whole &= b[i] == (uint8_t)s->blocks;
	s->in_order &= n == s->blocks + 1;
	s->elsewhere &= !pthread_equal(pthread_self(), s->producer);
	s->blocks++;
	s->bytes += n;
	if (s->slow)
		usleep(s->slow);
}

static void put_blocks(struct rt_blockq *q, unsigned n)
{
	uint8_t *b = malloc(n + 1);

	for (unsigned i = 0; i < n; i++) {
		memset(b, (uint8_t)i, i + 1);
		rt_blockq_put(q, b, i + 1);
		/* the queue holds a copy: the caller's buffer is reused */
		memset(b, 0xee, i + 1);
	}
	free(b);
}

static struct seen fresh(unsigned slow)
{
	return (struct seen){ .producer = pthread_self(), .in_order = true,
			      .whole = true, .elsewhere = true,
			      .slow = slow };
}

TEST_CASE(every_block_once_in_order)
{
	struct seen s = fresh(0);
	struct rt_blockq *q = rt_blockq_new(consume, &s, 1 << 20);

	put_blocks(q, 2000);
	rt_blockq_end(q);
	TEST_EQ(s.blocks, 2000);
	TEST_EQ(s.bytes, 2000ull * 2001 / 2);
	TEST_TRUE(s.whole);
	TEST_TRUE(s.in_order);
	TEST_TRUE(s.elsewhere);
}

/* A bound below one block: the producer waits for an empty queue each
 * time, and no block is refused or split. */
TEST_CASE(bound_smaller_than_a_block)
{
	struct seen s = fresh(50);
	struct rt_blockq *q = rt_blockq_new(consume, &s, 4);

	put_blocks(q, 200);
	rt_blockq_end(q);
	TEST_EQ(s.blocks, 200);
	TEST_TRUE(s.whole);
	TEST_TRUE(s.in_order);
}

TEST_CASE(hold_waits_for_the_consumer)
{
	struct seen s = fresh(100);
	struct rt_blockq *q = rt_blockq_new(consume, &s, 1 << 20);

	put_blocks(q, 100);
	rt_blockq_hold(q);
	/* with the slow consumer, most were still queued at the call */
	TEST_EQ(s.blocks, 100);
	rt_blockq_release(q);
	rt_blockq_end(q);
	TEST_EQ(s.blocks, 100);
}

/* The child of a fork under hold sees every block consumed, ends its
 * copy without the thread, and the parent's queue goes on. */
TEST_CASE(fork_under_hold)
{
	struct seen s = fresh(20);
	struct rt_blockq *q = rt_blockq_new(consume, &s, 1 << 20);
	int status = -1;
	pid_t pid;

	put_blocks(q, 50);
	rt_blockq_hold(q);
	pid = fork();
	if (pid == 0) {
		rt_blockq_end(q);
		_exit(s.blocks == 50 ? 0 : 1);
	}
	rt_blockq_release(q);
	TEST_TRUE(pid > 0);
	waitpid(pid, &status, 0);
	TEST_TRUE(WIFEXITED(status));
	TEST_EQ(WEXITSTATUS(status), 0);
	rt_blockq_end(q);
	TEST_EQ(s.blocks, 50);
	TEST_TRUE(s.whole);
}

TEST_CASE(end_of_null)
{
	rt_blockq_end(NULL);
	TEST_TRUE(true);
}
