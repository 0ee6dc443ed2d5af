// SPDX-License-Identifier: GPL-2.0-or-later
/* Interning of call stacks by their program counters. */
#include <stdlib.h>
#include <string.h>

#include "rtrace/stacks.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct entry {
	uint64_t hash;
	uint32_t pid;
	uint32_t n;
	rt_raddr *pcs;
};

struct rt_stacks {
	VEC(struct entry) entries;   /* id - 1 */
	uint32_t *index;             /* id by hash, 0 = empty */
	size_t mask;
};

static uint64_t hash_of(uint32_t pid, const rt_raddr *pcs, size_t n)
{
	uint64_t h = hash64(pid ^ ((uint64_t)n << 32));

	for (size_t i = 0; i < n; i++)
		h = hash64(h ^ pcs[i]);
	return h;
}

static void grow(struct rt_stacks *s)
{
	size_t cap = s->mask ? (s->mask + 1) * 2 : 256;

	free(s->index);
	s->index = xcalloc(cap, sizeof(*s->index));
	s->mask = cap - 1;
	for (size_t i = 0; i < s->entries.n; i++) {
		size_t h = s->entries.v[i].hash & s->mask;

		while (s->index[h])
			h = (h + 1) & s->mask;
		s->index[h] = i + 1;
	}
}

struct rt_stacks *rt_stacks_new(void)
{
	struct rt_stacks *s = xcalloc(1, sizeof(*s));

	grow(s);
	return s;
}

void rt_stacks_free(struct rt_stacks *s)
{
	if (!s)
		return;
	vec_for_each(&s->entries, e)
		free(e->pcs);
	vec_free(&s->entries);
	free(s->index);
	free(s);
}

static bool same(const struct entry *e, uint64_t h, uint32_t pid,
		 const rt_raddr *pcs, size_t n)
{
	return e->hash == h && e->pid == pid && e->n == n &&
	       memcmp(e->pcs, pcs, n * sizeof(*pcs)) == 0;
}

uint32_t rt_stacks_intern(struct rt_stacks *s, uint32_t pid,
			  const rt_raddr *pcs, size_t n, bool *fresh)
{
	uint64_t h = hash_of(pid, pcs, n);
	size_t i = h & s->mask;
	struct entry *e;

	for (; s->index[i]; i = (i + 1) & s->mask) {
		if (same(&s->entries.v[s->index[i] - 1], h, pid, pcs, n)) {
			*fresh = false;
			return s->index[i];
		}
	}
	e = vec_push_zero(&s->entries);
	e->hash = h;
	e->pid = pid;
	e->n = n;
	e->pcs = xmalloc((n + 1) * sizeof(*pcs));
	memcpy(e->pcs, pcs, n * sizeof(*pcs));
	s->index[i] = s->entries.n;
	if (s->entries.n * 2 > s->mask)
		grow(s);
	*fresh = true;
	return s->entries.n;
}
