/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Growable arrays.  Declare with VEC(type) and keep the three fields
 * together; the macros grow the storage geometrically.  The vector owns its
 * storage; vec_free() releases it (elements are not freed).
 *
 *   VEC(struct rt_site) sites = {0};
 *   vec_push(&sites, site);
 *   vec_for_each(&sites, s) use(s);
 *   vec_free(&sites);
 */
#ifndef RTRACE_VEC_H
#define RTRACE_VEC_H

#include <stddef.h>
#include <string.h>

#include "rtrace/util.h"

#define VEC(type)                                                              \
	struct {                                                               \
		type *v;                                                       \
		size_t n;                                                      \
		size_t cap;                                                    \
	}

/* Makes room for at least @need elements in total. */
#define vec_reserve(vec, need)                                                 \
	do {                                                                   \
		if ((need) > (vec)->cap) {                                     \
			size_t nc__ = (vec)->cap ? (vec)->cap * 2 : 8;         \
			while (nc__ < (need))                                  \
				nc__ *= 2;                                     \
			(vec)->v = xrealloc((vec)->v, nc__ * sizeof(*(vec)->v)); \
			(vec)->cap = nc__;                                     \
		}                                                              \
	} while (0)

#define vec_push(vec, elem)                                                    \
	do {                                                                   \
		vec_reserve(vec, (vec)->n + 1);                                \
		(vec)->v[(vec)->n++] = (elem);                                 \
	} while (0)

/* Appends one zeroed element and evaluates to a pointer to it. */
#define vec_push_zero(vec)                                                     \
	({                                                                     \
		vec_reserve(vec, (vec)->n + 1);                                \
		memset(&(vec)->v[(vec)->n], 0, sizeof(*(vec)->v));             \
		&(vec)->v[(vec)->n++];                                         \
	})

#define vec_last(vec) (&(vec)->v[(vec)->n - 1])

#define vec_for_each(vec, it)                                                  \
	for (__typeof__(*(vec)->v) *it = (vec)->v; it && it < (vec)->v + (vec)->n; \
	     it++)

#define vec_free(vec)                                                          \
	do {                                                                   \
		free((vec)->v);                                                \
		(vec)->v = NULL;                                               \
		(vec)->n = (vec)->cap = 0;                                     \
	} while (0)

#endif
