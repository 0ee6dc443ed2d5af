// SPDX-License-Identifier: GPL-2.0-or-later
/* Splitting a line of the command language into words, with columns. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/util.h"
#include "script-int.h"

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

typedef VEC(char) char_vec;

/* One word from @p into @buf; *end gets where it stopped.  0, or -EINVAL
 * with *why at a quote that is not closed. */
static int one_word(const char *p, const char **end, char_vec *buf,
		    const char **why)
{
	while (*p && !blank(*p)) {
		char q = *p;

		if (q != '\'' && q != '"') {
			vec_push(buf, *p++);
			continue;
		}
		for (p++; *p && *p != q; p++) {
			if (q == '"' && *p == '\\' && p[1])
				p++;
			vec_push(buf, *p);
		}
		if (!*p) {
			*why = q == '"' ? "unterminated \"quote\"" :
					  "unterminated 'quote'";
			return -EINVAL;
		}
		p++;
	}
	*end = p;
	return 0;
}

int rt_lex_line(const char *line, rt_word_vec *out, unsigned *col,
		const char **why)
{
	const char *p = line;
	char_vec buf = { 0 };

	for (;;) {
		const char *end;
		unsigned at;

		while (blank(*p))
			p++;
		if (!*p || *p == '#' || *p == '\n')
			break;
		at = (unsigned)(p - line) + 1;
		buf.n = 0;
		if (one_word(p, &end, &buf, why)) {
			*col = at;
			vec_free(&buf);
			return -EINVAL;
		}
		vec_push(&buf, '\0');
		vec_push(out, ((struct rt_word){ xstrdup(buf.v), at }));
		p = end;
	}
	vec_free(&buf);
	return 0;
}

void rt_words_clear(rt_word_vec *w)
{
	vec_for_each(w, it)
		free(it->s);
	w->n = 0;
}
