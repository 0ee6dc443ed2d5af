// SPDX-License-Identifier: GPL-2.0-or-later
/* The hash index over a caller's array (include/rtrace/hashidx.h). */
#include <stdlib.h>

#include "rtrace/hashidx.h"

#define FIRST_SLOTS 64

/* The slot that holds @pos, probing from @hash's home; NULL if none. */
static struct rt_hashidx_slot *slot_of(const struct rt_hashidx *x,
				       uint64_t hash, uint32_t pos)
{
	if (!x->slots)
		return NULL;
	for (size_t i = hash & x->mask; x->slots[i].pos1;
	     i = (i + 1) & x->mask)
		if (x->slots[i].pos1 == pos + 1)
			return &x->slots[i];
	return NULL;
}

static void put(struct rt_hashidx *x, struct rt_hashidx_slot s)
{
	size_t i = s.hash & x->mask;

	while (x->slots[i].pos1)
		i = (i + 1) & x->mask;
	x->slots[i] = s;
}

static void grow(struct rt_hashidx *x)
{
	struct rt_hashidx_slot *old = x->slots;
	size_t old_slots = old ? x->mask + 1 : 0;
	size_t cap = old ? old_slots * 2 : FIRST_SLOTS;

	x->slots = xcalloc(cap, sizeof(*x->slots));
	x->mask = cap - 1;
	for (size_t i = 0; i < old_slots; i++)
		if (old[i].pos1)
			put(x, old[i]);
	free(old);
}

void rt_hashidx_add(struct rt_hashidx *x, uint64_t hash, uint32_t pos)
{
	/* a slot is always left empty: it ends every probe */
	if (!x->slots || (x->n + 1) * 2 > x->mask + 1)
		grow(x);
	put(x, (struct rt_hashidx_slot){ pos + 1, (uint32_t)hash });
	x->n++;
}

/* Whether home slot @home lies cyclically in (@hole, @at]: then the entry
 * at @at must stay where it is; else it moves back into the hole. */
static bool stays(size_t home, size_t hole, size_t at)
{
	return hole < at ? home > hole && home <= at
			 : home > hole || home <= at;
}

bool rt_hashidx_remove(struct rt_hashidx *x, uint64_t hash, uint32_t pos)
{
	struct rt_hashidx_slot *s = slot_of(x, hash, pos);
	size_t hole, at;

	if (!s)
		return false;
	hole = at = (size_t)(s - x->slots);
	x->slots[hole].pos1 = 0;
	x->n--;
	for (at = (at + 1) & x->mask; x->slots[at].pos1;
	     at = (at + 1) & x->mask) {
		if (stays(x->slots[at].hash & x->mask, hole, at))
			continue;
		x->slots[hole] = x->slots[at];
		x->slots[at].pos1 = 0;
		hole = at;
	}
	return true;
}

void rt_hashidx_move(struct rt_hashidx *x, uint64_t hash, uint32_t from,
		     uint32_t to)
{
	struct rt_hashidx_slot *s = slot_of(x, hash, from);

	if (s)
		s->pos1 = to + 1;
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
