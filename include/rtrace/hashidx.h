/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A hash index over an array the caller owns.  The caller keeps its
 * entries in a growable array (a VEC) and the keys in them; the index maps
 * a key's hash to the positions of the entries whose key may match, with
 * open addressing and linear probing.  A slot holds a uint32 position and
 * the low 32 bits of its key's hash: a probe compares the entry's key only
 * when those match, and growing reads neither the keys nor the caller's
 * array (which can be far larger than the index: rehashing through it
 * would read it at random).  Entries never move when the index grows, and the array keeps
 * its insertion order, which the reports print in.
 *
 *   struct rt_hashidx ix = {0};
 *   uint32_t at = rt_hashidx_find(&ix, h, same_key, rows.v, &key);
 *   if (at == RT_HASHIDX_NONE) {
 *           vec_push(&rows, row);
 *           rt_hashidx_add(&ix, h, rows.n - 1);
 *   }
 *   rt_hashidx_free(&ix);
 *
 * A zeroed struct rt_hashidx is an empty index.  The index holds no
 * pointer into the caller's array: @ctx is passed anew to every lookup.
 */
#ifndef RTRACE_HASHIDX_H
#define RTRACE_HASHIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/util.h"

#define RT_HASHIDX_NONE UINT32_MAX

struct rt_hashidx_slot {
	uint32_t pos1;    /* entry position + 1; 0 = empty */
	uint32_t hash;    /* the low bits of the entry's key's hash */
};

struct rt_hashidx {
	struct rt_hashidx_slot *slots;
	size_t mask;      /* number of slots - 1; 0 while there are none */
	size_t n;         /* positions indexed */
};

/* Whether the entry at @pos of the caller's array @ctx has key @key. */
typedef bool rt_hashidx_eq_fn(const void *ctx, uint32_t pos, const void *key);

/* The position of the entry whose key is @key (hashed to @hash, compared
 * by @eq on @ctx), or RT_HASHIDX_NONE.  Inline so that a constant @eq is
 * inlined too: the reports look up a key per call they count. */
static inline uint32_t rt_hashidx_find(const struct rt_hashidx *x,
				       uint64_t hash, rt_hashidx_eq_fn *eq,
				       const void *ctx, const void *key)
{
	if (!x->slots)
		return RT_HASHIDX_NONE;
	for (size_t i = hash & x->mask; x->slots[i].pos1;
	     i = (i + 1) & x->mask)
		if (x->slots[i].hash == (uint32_t)hash &&
		    eq(ctx, x->slots[i].pos1 - 1, key))
			return x->slots[i].pos1 - 1;
	return RT_HASHIDX_NONE;
}

/* Indexes position @pos under @hash (the caller checked that its key is
 * not there yet); the slots double at half full. */
void rt_hashidx_add(struct rt_hashidx *x, uint64_t hash, uint32_t pos);

/* Drops position @pos, indexed under @hash, from the index; the positions
 * probed past it move back.  The caller's array is left alone.  False
 * when @pos was not indexed. */
bool rt_hashidx_remove(struct rt_hashidx *x, uint64_t hash, uint32_t pos);

/* The entry at position @from, indexed under @hash, now lives at @to (the
 * caller moved it, e.g. the last entry into a removed one's place). */
void rt_hashidx_move(struct rt_hashidx *x, uint64_t hash, uint32_t from,
		     uint32_t to);

/* Empties the index and frees its slots (not the caller's array). */
void rt_hashidx_free(struct rt_hashidx *x);

/* Hashes for keys: a 64-bit integer, a pair of 32-bit ones, and a
 * NUL-terminated string (FNV-1a, then mixed). */
static inline uint64_t rt_hash_u64(uint64_t k)
{
	return hash64(k);
}

static inline uint64_t rt_hash_pair(uint32_t a, uint32_t b)
{
	return hash64((uint64_t)a << 32 | b);
}

uint64_t rt_hash_str(const char *s);

#endif
