// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Function ids to the keys the views group by (functions merged by name),
 * and the focus of --function.  Everything is worked out once per function
 * id, at its first call, and cached: the views ask for every call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/fkeys.h"
#include "rtrace/hashidx.h"
#include "rtrace/match.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

enum focus { FOCUS_UNKNOWN, FOCUS_NO, FOCUS_YES };

struct fentry {
	const char *name;     /* borrowed from the reader, or in made[] */
	uint32_t key1;        /* key + 1; 0 = not worked out yet */
	uint8_t focus;        /* enum focus */
};

struct rt_fkeys {
	struct rt_evlog_reader *r;
	bool instances;
	const char *const *globs;
	size_t nglobs;
	VEC(struct fentry) ids;   /* by function id */
	VEC(char *) made;         /* names made up for unknown ids */
	struct rt_hashidx by_name;  /* the first id of each name */
};

static bool named(const void *ctx, uint32_t pos, const void *key)
{
	const struct rt_fkeys *k = ctx;

	return strcmp(k->ids.v[pos].name, key) == 0;
}

/* The key of the first function met with the name of @id, or @id. */
static uint32_t key_by_name(struct rt_fkeys *k, uint32_t id)
{
	const char *name = k->ids.v[id].name;
	uint64_t h = rt_hash_str(name);
	uint32_t first = rt_hashidx_find(&k->by_name, h, named, k, name);

	if (first != RT_HASHIDX_NONE)
		return first;
	rt_hashidx_add(&k->by_name, h, id);
	return id;
}

static struct fentry *entry(struct rt_fkeys *k, uint32_t id)
{
	const struct rt_log_func *fn;
	struct fentry *e;

	while (k->ids.n <= id)
		vec_push(&k->ids, ((struct fentry){ 0 }));
	e = &k->ids.v[id];
	if (e->key1)
		return e;
	fn = k->r ? rt_evlog_func(k->r, id) : NULL;
	if (fn && fn->name) {
		e->name = fn->name;
	} else {
		char *s = xasprintf("(function %u)", id);

		vec_push(&k->made, s);
		e->name = s;
	}
	e->key1 = (k->instances ? id : key_by_name(k, id)) + 1;
	return e;
}

uint32_t rt_fkeys_key(struct rt_fkeys *k, uint32_t func)
{
	if (func < k->ids.n && k->ids.v[func].key1)
		return k->ids.v[func].key1 - 1;
	return entry(k, func)->key1 - 1;
}

const char *rt_fkeys_name(struct rt_fkeys *k, uint32_t key)
{
	return entry(k, key)->name;
}

static bool focused(struct rt_fkeys *k, uint32_t func)
{
	struct fentry *e = entry(k, func);

	if (e->focus == FOCUS_UNKNOWN) {
		const struct rt_log_func *fn =
			k->r ? rt_evlog_func(k->r, func) : NULL;
		bool yes = false;

		for (size_t i = 0; i < k->nglobs && !yes; i++)
			yes = rt_glob_match(k->globs[i], e->name,
					    fn ? fn->raw : NULL);
		e->focus = yes ? FOCUS_YES : FOCUS_NO;
	}
	return e->focus == FOCUS_YES;
}

int rt_fkeys_root(struct rt_fkeys *k, const struct rt_call *c)
{
	if (!k->nglobs)
		return 0;
	for (uint32_t i = 0; i <= c->depth; i++)
		if (focused(k, c->stack[i]))
			return i;
	return -1;
}

struct rt_fkeys *rt_fkeys_new(struct rt_evlog_reader *r, bool instances,
			      const char *const *globs, size_t nglobs)
{
	struct rt_fkeys *k = xcalloc(1, sizeof(*k));

	k->r = r;
	k->instances = instances;
	k->globs = globs;
	k->nglobs = nglobs;
	return k;
}

void rt_fkeys_free(struct rt_fkeys *k)
{
	if (!k)
		return;
	vec_for_each(&k->made, s)
		free(*s);
	vec_free(&k->made);
	vec_free(&k->ids);
	rt_hashidx_free(&k->by_name);
	free(k);
}
