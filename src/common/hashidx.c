// SPDX-License-Identifier: GPL-2.0-or-later
/* The hash index over a caller's array (include/rtrace/hashidx.h). */
#include <stdlib.h>

#include "rtrace/hashidx.h"

#define FIRST_SLOTS 64

/* The slot that holds @pos, probing from @hash's home; NULL if none. */
static uint32_t *slot_of(const struct rt_hashidx *x, uint64_t hash,
			 uint32_t pos)
{
	if (!x->slots)
		return NULL;
	for (size_t i = hash & x->mask; x->slots[i]; i = (i + 1) & x->mask)
		if (x->slots[i] == pos + 1)
			return &x->slots[i];
	return NULL;
}

static void put(struct rt_hashidx *x, uint64_t hash, uint32_t pos)
{
	size_t i = hash & x->mask;

	while (x->slots[i])
		i = (i + 1) & x->mask;
	x->slots[i] = pos + 1;
}

static void grow(struct rt_hashidx *x, rt_hashidx_hash_fn *hash_of,
		 const void *ctx)
{
	uint32_t *old = x->slots;
	size_t old_slots = old ? x->mask + 1 : 0;
	size_t cap = old ? old_slots * 2 : FIRST_SLOTS;

	x->slots = xcalloc(cap, sizeof(*x->slots));
	x->mask = cap - 1;
	for (size_t i = 0; i < old_slots; i++)
		if (old[i])
			put(x, hash_of(ctx, old[i] - 1), old[i] - 1);
	free(old);
}

void rt_hashidx_add(struct rt_hashidx *x, uint64_t hash, uint32_t pos,
		    rt_hashidx_hash_fn *hash_of, const void *ctx)
{
	/* a slot is always left empty: it ends every probe */
	if (!x->slots || (x->n + 1) * 2 > x->mask + 1)
		grow(x, hash_of, ctx);
	put(x, hash, pos);
	x->n++;
}

/* Whether home slot @home lies cyclically in (@hole, @at]: then the entry
 * at @at must stay where it is; else it moves back into the hole. */
static bool stays(size_t home, size_t hole, size_t at)
{
	return hole < at ? home > hole && home <= at
			 : home > hole || home <= at;
}

bool rt_hashidx_remove(struct rt_hashidx *x, uint64_t hash, uint32_t pos,
		       rt_hashidx_hash_fn *hash_of, const void *ctx)
{
	uint32_t *s = slot_of(x, hash, pos);
	size_t hole, at;

	if (!s)
		return false;
	hole = at = (size_t)(s - x->slots);
	x->slots[hole] = 0;
	x->n--;
	for (at = (at + 1) & x->mask; x->slots[at]; at = (at + 1) & x->mask) {
		size_t home = hash_of(ctx, x->slots[at] - 1) & x->mask;

		if (stays(home, hole, at))
			continue;
		x->slots[hole] = x->slots[at];
		x->slots[at] = 0;
		hole = at;
	}
	return true;
}

void rt_hashidx_move(struct rt_hashidx *x, uint64_t hash, uint32_t from,
		     uint32_t to)
{
	uint32_t *s = slot_of(x, hash, from);

	if (s)
		*s = to + 1;
}

void rt_hashidx_free(struct rt_hashidx *x)
{
	free(x->slots);
	*x = (struct rt_hashidx){ 0 };
}

uint64_t rt_hash_str(const char *s)
{
	uint64_t h = 14695981039346656037ULL;  /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return hash64(h);
}
