// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The hash index: every answer is checked against a linear search of the
 * same array.  A table whose hash is a constant (or takes few values) puts
 * every key in one probe run, so collisions, growth and removal by
 * backward shift are exercised on every step, not by chance.
 */
#include <stdlib.h>

#include "rtrace/hashidx.h"
#include "unittest.h"

struct table {
	uint64_t *keys;
	size_t n;
	uint64_t (*hash)(uint64_t k);
};

static uint64_t mixed(uint64_t k)
{
	return rt_hash_u64(k);
}

static uint64_t constant(uint64_t k)
{
	return 7;
}

static uint64_t few(uint64_t k)
{
	return k % 3;
}

static bool same(const void *ctx, uint32_t pos, const void *key)
{
	const struct table *t = ctx;

	return t->keys[pos] == *(const uint64_t *)key;
}

static uint32_t find(const struct rt_hashidx *x, const struct table *t,
		     uint64_t k)
{
	return rt_hashidx_find(x, t->hash(k), same, t, &k);
}

static uint32_t linear(const struct table *t, uint64_t k)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->keys[i] == k)
			return (uint32_t)i;
	return RT_HASHIDX_NONE;
}

static void add(struct rt_hashidx *x, struct table *t, uint64_t k)
{
	t->keys[t->n] = k;
	rt_hashidx_add(x, t->hash(k), (uint32_t)t->n);
	t->n++;
}

/* Removes the key at @pos the way a caller keeping its array dense does:
 * the last entry moves into the hole. */
static bool take(struct rt_hashidx *x, struct table *t, uint32_t pos)
{
	uint32_t last = (uint32_t)t->n - 1;

	if (!rt_hashidx_remove(x, t->hash(t->keys[pos]), pos))
		return false;
	if (pos != last) {
		rt_hashidx_move(x, t->hash(t->keys[last]), last, pos);
		t->keys[pos] = t->keys[last];
	}
	t->n--;
	return true;
}

TEST_CASE(empty)
{
	struct rt_hashidx x = { 0 };
	struct table t = { NULL, 0, mixed };

	TEST_EQ(find(&x, &t, 0), RT_HASHIDX_NONE);
	TEST_EQ(find(&x, &t, 42), RT_HASHIDX_NONE);
	TEST_TRUE(!rt_hashidx_remove(&x, 1, 0));
	rt_hashidx_free(&x);
	rt_hashidx_free(&x);
	TEST_EQ(x.n, 0);
}

TEST_CASE(insert_lookup)
{
	uint64_t keys[4];
	struct table t = { keys, 0, mixed };
	struct rt_hashidx x = { 0 };

	add(&x, &t, 10);
	add(&x, &t, 0);
	add(&x, &t, UINT64_MAX);
	TEST_EQ(find(&x, &t, 10), 0);
	TEST_EQ(find(&x, &t, 0), 1);
	TEST_EQ(find(&x, &t, UINT64_MAX), 2);
	TEST_EQ(find(&x, &t, 11), RT_HASHIDX_NONE);
	TEST_EQ(x.n, 3);
	rt_hashidx_free(&x);
	TEST_EQ(find(&x, &t, 10), RT_HASHIDX_NONE);
}

/* @n keys (multiples of 5, so that misses are near hits), all found at
 * their position across every growth, and none of the misses. */
static bool many(struct table *t, size_t n)
{
	struct rt_hashidx x = { 0 };
	bool ok = true;

	t->n = 0;
	for (size_t i = 0; i < n; i++) {
		add(&x, t, i * 5);
		ok &= x.n == i + 1 && x.n * 2 <= x.mask + 1;
		/* the key just added, and one from the start, after growth */
		ok &= find(&x, t, i * 5) == i && find(&x, t, 0) == 0;
	}
	/* key k was added at position k / 5 when a multiple of 5 */
	for (size_t k = 0; k < n * 5 + 5; k++)
		ok &= find(&x, t, k) ==
		      (k % 5 || k / 5 >= n ? RT_HASHIDX_NONE : k / 5);
	ok &= find(&x, t, linear(t, (n - 1) * 5) * 5) == n - 1;
	rt_hashidx_free(&x);
	return ok;
}

TEST_CASE(many_keys)
{
	struct table t = { malloc(100000 * sizeof(uint64_t)), 0, mixed };

	TEST_TRUE(many(&t, 100000));
	free(t.keys);
}

TEST_CASE(collisions)
{
	struct table t = { malloc(600 * sizeof(uint64_t)), 0, constant };

	TEST_TRUE(many(&t, 600));
	t.hash = few;
	TEST_TRUE(many(&t, 600));
	free(t.keys);
}

TEST_CASE(strings)
{
	TEST_EQ(rt_hash_str("main"), rt_hash_str("main"));
	TEST_NE(rt_hash_str("main"), rt_hash_str("mainx"));
	TEST_NE(rt_hash_str("ab"), rt_hash_str("ba"));
	TEST_NE(rt_hash_str(""), 0);
	TEST_NE(rt_hash_pair(1, 2), rt_hash_pair(2, 1));
	TEST_EQ(rt_hash_pair(1, 2), rt_hash_u64((1ULL << 32) | 2));
}

/* Removes keys in a scrambled order, checking every key after each step:
 * a backward shift that left a key behind its hole would lose it. */
static bool removals(uint64_t (*hash)(uint64_t k), size_t n)
{
	struct table t = { malloc(n * sizeof(uint64_t)), 0, hash };
	struct rt_hashidx x = { 0 };
	bool ok = true;

	for (size_t i = 0; i < n; i++)
		add(&x, &t, i);
	for (size_t step = 0; step < n && ok; step++) {
		uint64_t gone = (step * 7919) % n;  /* 7919 is prime to n */
		uint32_t pos = find(&x, &t, gone);

		ok &= pos != RT_HASHIDX_NONE && pos == linear(&t, gone);
		ok &= pos != RT_HASHIDX_NONE && take(&x, &t, pos);
		ok &= find(&x, &t, gone) == RT_HASHIDX_NONE && x.n == t.n;
		for (size_t k = 0; k < n; k++)
			ok &= find(&x, &t, k) == linear(&t, k);
	}
	ok &= x.n == 0;
	/* the index is usable again once empty */
	add(&x, &t, 3);
	ok &= find(&x, &t, 3) == 0;
	rt_hashidx_free(&x);
	free(t.keys);
	return ok;
}

TEST_CASE(removal)
{
	TEST_TRUE(removals(mixed, 400));
	TEST_TRUE(removals(constant, 300));
	TEST_TRUE(removals(few, 300));
}

/* A run that wraps around the end of the slots: keys below 100 have the
 * last slot (63) for home, keys from 100 the first (64 & 63 = 0), keys
 * from 200 themselves. */
static uint64_t wrapping(uint64_t k)
{
	return k < 100 ? 63 : k < 200 ? 64 : k;
}

TEST_CASE(removal_wraps)
{
	uint64_t keys[8];
	struct table t = { keys, 0, wrapping };
	struct rt_hashidx x = { 0 };

	add(&x, &t, 0);
	add(&x, &t, 1);
	add(&x, &t, 100);
	add(&x, &t, 236);  /* home 236 & 63 = 44: outside the run */
	TEST_EQ(x.mask, 63);
	TEST_EQ(x.slots[63].pos1, 1);
	TEST_EQ(x.slots[0].pos1, 2);
	TEST_EQ(x.slots[1].pos1, 3);
	/* key 1 moves back to its home, 63; key 100 back to its home, 0;
	 * key 236 moves from position 3 into the removed one's, 0 */
	TEST_TRUE(take(&x, &t, 0));
	TEST_EQ(x.slots[63].pos1, 2);
	TEST_EQ(x.slots[0].pos1, 3);
	TEST_EQ(x.slots[1].pos1, 0);
	TEST_EQ(x.slots[44].pos1, 1);
	/* key 100, at home in slot 0 past the hole at 63, stays */
	TEST_TRUE(take(&x, &t, linear(&t, 1)));
	TEST_EQ(x.slots[63].pos1, 0);
	TEST_EQ(x.slots[0].pos1, 2);
	for (uint64_t k = 0; k < 240; k++)
		TEST_EQ(find(&x, &t, k), linear(&t, k));
	TEST_TRUE(!rt_hashidx_remove(&x, wrapping(0), 7));
	rt_hashidx_free(&x);
}
