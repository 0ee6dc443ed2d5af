// SPDX-License-Identifier: GPL-2.0-or-later
/* The format registry and the helpers formatters share. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rtrace/output.h"

const struct rt_output_ops *rt_output_for(enum rt_format fmt)
{
	switch (fmt) {
	case RT_FMT_JSON: return &rt_output_json;
	case RT_FMT_CSV: return &rt_output_csv;
	default: return &rt_output_text;
	}
}

const char *rt_fmt_duration(char *buf, size_t len, uint64_t ns)
{
	static const struct { uint64_t div; const char *unit; } units[] = {
		{ 1000000000ULL, "s" }, { 1000000ULL, "ms" }, { 1000ULL, "µs" },
	};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns >= units[i].div) {
			snprintf(buf, len, "%.3f %s",
				 (double)ns / units[i].div, units[i].unit);
			return buf;
		}
	}
	snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

const char *rt_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = bytes;
	int u = -1;

	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

const char *rt_fmt_count(char *buf, size_t len, uint64_t n)
{
	char tmp[32];
	int digits = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)n);
	size_t o = 0;

	for (int i = 0; i < digits && o + 2 < len; i++) {
		if (i && (digits - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

void rt_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void rt_csv_field(FILE *out, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void rt_inlined_mark(FILE *out, const struct rt_fstats *st, unsigned sites,
		     unsigned refused)
{
	char n[32], t[32];

	if (!st->inlined && !sites && !refused)
		return;
	fprintf(out, " [%s inlined, %u site%s",
		rt_fmt_count(n, sizeof(n), st->inlined), sites,
		rt_s(sites));
	if (refused)
		fprintf(out, ", %u not probed", refused);
	if (st->untimed)
		fprintf(out, "; timed: %s",
			rt_fmt_count(t, sizeof(t), rt_fstats_timed(st)));
	fputc(']', out);
}

void rt_where_mark(FILE *out, const struct rt_log_func *fn)
{
	const char *base = fn->file ? strrchr(fn->file, '/') : NULL;

	if (fn->file && fn->line)
		fprintf(out, " (%s:%u)", base ? base + 1 : fn->file, fn->line);
	else
		fprintf(out, " (0x%" PRIx64 ")", (uint64_t)fn->addr);
}

void rt_row_notes(FILE *out, const struct rt_report_row *r)
{
	if (r->ambiguous)
		rt_where_mark(out, r->fn);
	rt_inlined_mark(out, &r->st, r->inlined_sites, r->inlined_refused);
	if (r->instances > 1)
		fprintf(out, " [%u instances]", r->instances);
	if (r->st.unwound)
		fprintf(out, " [%llu unwound]",
			(unsigned long long)r->st.unwound);
	if (r->st.partial)
		fprintf(out, " [+%llu already running]",
			(unsigned long long)r->st.partial);
}
