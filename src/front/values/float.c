// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A float or a double as Rust's {:?} writes it (values.h): the shortest
 * digits that read back as the same value, in decimal with at least one
 * fractional digit ("1.0", "0.1", "-2.25") when 1e-4 <= |x| < 1e16 or x
 * is zero, else in exponent form ("1e20", "1.5e-7"); "NaN", "inf",
 * "-inf".  The shortest digits are found by printing with more and more
 * significant digits until strtod (strtof for a float) gives the value
 * back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/values.h"

#define DIGITS_MAX 17   /* enough for any double */

/* The shortest digits of |@x| (@single: as a float) in @d, without a
 * point, and the decimal exponent of the first: x = d[0].d[1..] * 10^e. */
static int shortest(double x, bool single, char *d, int *e)
{
	char buf[40], *p = buf;
	int n = 0;

	for (int prec = 1; prec <= DIGITS_MAX; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec - 1, x);
		if (single ? strtof(buf, NULL) == (float)x :
			     strtod(buf, NULL) == x)
			break;
	}
	for (; *p && *p != 'e'; p++)
		if (*p >= '0' && *p <= '9')
			d[n++] = *p;
	while (n > 1 && d[n - 1] == '0')
		n--;
	d[n] = '\0';
	*e = atoi(p + 1);
	return n;
}

static void put_decimal(FILE *f, const char *d, int n, int e)
{
	if (e < 0) {
		fputs("0.", f);
		for (int i = -1; i > e; i--)
			fputc('0', f);
		fputs(d, f);
		return;
	}
	for (int i = 0; i <= e; i++)
		fputc(i < n ? d[i] : '0', f);
	fprintf(f, ".%s", n > e + 1 ? d + e + 1 : "0");
}

static void put_exponent(FILE *f, const char *d, int n, int e)
{
	fputc(d[0], f);
	if (n > 1)
		fprintf(f, ".%s", d + 1);
	fprintf(f, "e%d", e);
}

void rt_values_put_float(FILE *f, const uint8_t *b, size_t size)
{
	char d[DIGITS_MAX + 8];
	bool single = size == sizeof(float);
	double x, ax;
	float fl;
	int n, e;

	if (single) {
		memcpy(&fl, b, sizeof(fl));
		x = fl;
	} else {
		memcpy(&x, b, sizeof(x));
	}
	if (isnan(x)) {
		fputs("NaN", f);
		return;
	}
	if (signbit(x))
		fputc('-', f);
	ax = fabs(x);
	if (isinf(ax)) {
		fputs("inf", f);
		return;
	}
	n = shortest(ax, single, d, &e);
	/* the bounds as the type has them: 1e-4 is not exact in either */
	if (ax == 0 || (single ? (float)ax >= 1e-4f && (float)ax < 1e16f :
				 ax >= 1e-4 && ax < 1e16))
		put_decimal(f, d, n, ax == 0 ? 0 : e);
	else
		put_exponent(f, d, n, e);
}
