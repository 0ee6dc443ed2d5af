// SPDX-License-Identifier: GPL-2.0-or-later
/* Interning of call stacks by their program counters. */
#include <stdlib.h>
#include <string.h>

#include "rtrace/hashidx.h"
#include "rtrace/stacks.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

struct entry {
	uint32_t pid;
	uint32_t n;
	rt_raddr *pcs;
};

struct key {
	uint32_t pid;
	size_t n;
	const rt_raddr *pcs;
};

struct rt_stacks {
	VEC(struct entry) entries;   /* id - 1 */
	struct rt_hashidx index;     /* entries by (pid, pcs) */
};

static uint64_t hash_of(uint32_t pid, const rt_raddr *pcs, size_t n)
{
	uint64_t h = rt_hash_u64(pid ^ ((uint64_t)n << 32));

	for (size_t i = 0; i < n; i++)
		h = rt_hash_u64(h ^ pcs[i]);
	return h;
}

struct rt_stacks *rt_stacks_new(void)
{
	return xcalloc(1, sizeof(struct rt_stacks));
}

void rt_stacks_free(struct rt_stacks *s)
{
	if (!s)
		return;
	vec_for_each(&s->entries, e)
		free(e->pcs);
	vec_free(&s->entries);
	rt_hashidx_free(&s->index);
	free(s);
}

static bool same(const void *ctx, uint32_t pos, const void *key)
{
	const struct rt_stacks *s = ctx;
	const struct entry *e = &s->entries.v[pos];
	const struct key *k = key;

	return e->pid == k->pid && e->n == k->n &&
	       memcmp(e->pcs, k->pcs, k->n * sizeof(*k->pcs)) == 0;
}

uint32_t rt_stacks_intern(struct rt_stacks *s, uint32_t pid,
			  const rt_raddr *pcs, size_t n, bool *fresh)
{
	uint64_t h = hash_of(pid, pcs, n);
	struct key k = { pid, n, pcs };
	uint32_t at = rt_hashidx_find(&s->index, h, same, s, &k);
	struct entry *e;

	*fresh = at == RT_HASHIDX_NONE;
	if (!*fresh)
		return at + 1;
	e = vec_push_zero(&s->entries);
	e->pid = pid;
	e->n = n;
	e->pcs = xmalloc((n + 1) * sizeof(*pcs));
	memcpy(e->pcs, pcs, n * sizeof(*pcs));
	rt_hashidx_add(&s->index, h, (uint32_t)s->entries.n - 1);
	return s->entries.n;
}
