// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "Did you mean": the optimal string alignment distance (Levenshtein plus
 * swaps of neighbouring characters, each costing one), and the nearest of
 * a list of candidates within a distance that grows with the word.
 */
#include <string.h>

#include "rtrace/script.h"
#include "rtrace/util.h"

#define WORD_MAX 128

unsigned rt_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned d[3][WORD_MAX + 1];  /* rows i-2, i-1, i */

	if (la > WORD_MAX || lb > WORD_MAX)
		return (unsigned)-1;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		unsigned *cur = d[i % 3], *prev = d[(i + 2) % 3];
		unsigned *prev2 = d[(i + 1) % 3];

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = MIN(prev[j] + 1, cur[j - 1] + 1);

			v = MIN(v, prev[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1])
				v = MIN(v, prev2[j - 2] + 1);
			cur[j] = v;
		}
	}
	return d[la % 3][lb];
}

static bool anagram(const char *a, const char *b)
{
	unsigned count[256] = { 0 };

	if (strlen(a) != strlen(b))
		return false;
	for (; *a; a++, b++) {
		count[(unsigned char)*a]++;
		count[(unsigned char)*b]--;
	}
	for (size_t i = 0; i < 256; i++)
		if (count[i])
			return false;
	return true;
}

/* How far a word of @len characters may be from what was meant. */
static unsigned allowed(size_t len)
{
	return len <= 2 ? 1 : len <= 5 ? 2 : 3;
}

const char *rt_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	unsigned best_d = (unsigned)-1;

	for (size_t i = 0; i < n; i++) {
		unsigned d;

		if (!cands[i])
			continue;
		d = rt_edit_distance(word, cands[i]);
		/* between equally near ones, the same letters in another
		 * order is the likelier slip: "=<" is "<=" rather than "==" */
		if (d < best_d || (d == best_d && anagram(word, cands[i]) &&
				   !anagram(word, best))) {
			best_d = d;
			best = cands[i];
		}
	}
	if (!best || best_d == 0 || best_d > allowed(strlen(word)) ||
	    best_d >= strlen(best))
		return NULL;
	return best;
}
