// SPDX-License-Identifier: GPL-2.0-or-later
/* Small writers shared by the renderers: XML/HTML escaping, seconds. */
#include <stdio.h>
#include <string.h>

#include "rtrace/output.h"
#include "rtrace/render.h"

void rt_xml_string(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc((unsigned char)*s < 0x20 ? '?' : *s, out);
		}
	}
}

void rt_fmt_seconds(FILE *out, uint64_t ns)
{
	rt_put_fixed(out, ns, 9, 0);
}

/* Digits of @v, right-aligned in a buffer that ends at @end, @digits of
 * them after a decimal point; returns the first character. */
static char *fixed(char *end, uint64_t v, int digits)
{
	char *p = end;

	for (int i = 0; i < digits; i++, v /= 10)
		*--p = '0' + v % 10;
	if (digits)
		*--p = '.';
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	return p;
}

void rt_put_u64(FILE *out, uint64_t v)
{
	rt_put_fixed(out, v, 0, 0);
}

void rt_put_fixed(FILE *out, uint64_t v, int digits, int width)
{
	char buf[48], *end = buf + sizeof(buf), *p = fixed(end, v, digits);

	while (end - p < width && p > buf)
		*--p = ' ';
	fwrite_unlocked(p, 1, end - p, out);
}

void rt_put_spaces(FILE *out, size_t n)
{
	static const char spaces[64] = "                                "
				       "                                ";

	for (; n > sizeof(spaces); n -= sizeof(spaces))
		fwrite_unlocked(spaces, 1, sizeof(spaces), out);
	fwrite_unlocked(spaces, 1, n, out);
}

bool rt_put_indent(FILE *out, uint32_t levels, unsigned width,
		   uint32_t depth)
{
	if (levels <= RT_INDENT_LEVELS) {
		rt_put_spaces(out, (size_t)levels * width);
		return false;
	}
	rt_put_spaces(out, (size_t)RT_INDENT_LEVELS * width);
	fputc_unlocked('[', out);
	rt_put_u64(out, depth);
	fputs_unlocked("] ", out);
	return true;
}

static char *fixed(char *end, uint64_t v, int digits);

/* rt_fmt_duration() without printf's floating point, which the replay
 * would spend most of its time in: the same text, rounded the same way.
 * An exact tie (the dropped digits are 5, 50, 500...) is left to printf,
 * which rounds the binary value of the quotient.  0 when left. */
static int duration_fast(char *d, size_t len, uint64_t ns)
{
	static const struct { uint64_t div; const char *unit; } units[] = {
		{ 1000000000ULL, " s" }, { 1000000ULL, " ms" }, { 1000ULL, " µs" },
	};
	char digits[48], *end = digits + sizeof(digits), *p;

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t step = units[i].div / 1000, q, r;

		if (ns < units[i].div)
			continue;
		q = ns / step;
		r = ns % step;
		if (step > 1 && r * 2 == step)
			return 0;
		q += r * 2 > step;
		p = fixed(end, q, 3);
		snprintf(d, len, "%.*s%s", (int)(end - p), p, units[i].unit);
		return 1;
	}
	p = fixed(end, ns, 0);
	snprintf(d, len, "%.*s ns", (int)(end - p), p);
	return 1;
}

const char *rt_fmt_duration_col(char *buf, size_t len, uint64_t ns, int width)
{
	char d[48];
	int cols = 0, pad;

	if (!duration_fast(d, sizeof(d), ns))
		rt_fmt_duration(d, sizeof(d), ns);
	for (const char *c = d; *c; c++)
		cols += ((unsigned char)*c & 0xc0) != 0x80;
	pad = cols < width ? width - cols : 0;
	if ((size_t)pad + strlen(d) + 1 > len)
		pad = 0;
	memset(buf, ' ', pad);
	strcpy(buf + pad, d);
	return buf;
}
