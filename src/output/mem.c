// SPDX-License-Identifier: GPL-2.0-or-later
/* The memory profile as a table, JSON or CSV, and the heap over time. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/memprof.h"
#include "rtrace/output.h"
#include "rtrace/util.h"

static const char *func_name(struct rt_evlog_reader *r, uint32_t id)
{
	const struct rt_log_func *fn;

	if (id == RT_MEM_OUTSIDE)
		return "(outside any traced function)";
	fn = rt_evlog_func(r, id);
	return fn ? fn->name : "?";
}

struct order {
	enum rt_sort key;
	struct rt_evlog_reader *r;
};

static uint64_t key_of(const struct rt_mem_row *row, enum rt_sort key)
{
	switch (key) {
	case RT_SORT_ALLOCS: return row->allocs;
	case RT_SORT_LIVE: return row->live;
	default: return row->bytes;
	}
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct rt_mem_row *x = a, *y = b;
	const struct order *o = arg;
	uint64_t kx = key_of(x, o->key), ky = key_of(y, o->key);

	if (o->key != RT_SORT_NAME && kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp(func_name(o->r, x->func), func_name(o->r, y->func));
}

static unsigned share(const struct rt_memprof *m, uint64_t bytes)
{
	return m->peak ? (unsigned)((bytes * 100 + m->peak / 2) / m->peak) : 0;
}

static void text_rows(FILE *out, const struct rt_memprof *m,
		      struct rt_evlog_reader *r, size_t n)
{
	char b[32], f[32], l[32];

	fprintf(out, "%10s %11s %9s %11s %13s %10s  %s\n", "allocs", "bytes",
		"frees", "bytes freed", "live at end", "peak share",
		"function");
	for (size_t i = 0; i < n; i++) {
		const struct rt_mem_row *row = &m->rows[i];

		fprintf(out, "%10llu %11s %9llu %11s %13s %9u%%  %s\n",
			(unsigned long long)row->allocs,
			rt_fmt_bytes(b, sizeof(b), row->bytes),
			(unsigned long long)row->frees,
			rt_fmt_bytes(f, sizeof(f), row->freed),
			rt_fmt_bytes(l, sizeof(l), row->live),
			share(m, row->at_peak), func_name(r, row->func));
	}
}

static void text_summary(FILE *out, const struct rt_memprof *m,
			 struct rt_evlog_reader *r)
{
	char p[32], t[32], e[32];

	fprintf(out, "\npeak heap %s at %s (in %s); %llu allocation%s, %llu "
		"free%s, %s live at the end\n",
		rt_fmt_bytes(p, sizeof(p), m->peak),
		rt_fmt_duration(t, sizeof(t), m->peak_t),
		func_name(r, m->peak_func), (unsigned long long)m->allocs,
		rt_s(m->allocs), (unsigned long long)m->frees, rt_s(m->frees),
		rt_fmt_bytes(e, sizeof(e), m->heap_end));
	if (m->unknown_frees)
		fprintf(out, "%llu free%s of memory allocated before the "
			"trace began, or by an allocator rtrace did not "
			"probe\n", (unsigned long long)m->unknown_frees,
			rt_s(m->unknown_frees));
	if (m->failed)
		fprintf(out, "%llu allocation%s failed\n",
			(unsigned long long)m->failed, rt_s(m->failed));
	if (m->unseen)
		fprintf(out, "%llu allocation%s not counted: the allocator "
			"ended by a jump into code without a symbol, and rtrace "
			"did not see the pointer\n",
			(unsigned long long)m->unseen, rt_s(m->unseen));
	if (m->allocator)
		fprintf(out, "global allocator: custom: %s\n", m->allocator);
	else
		fputs("global allocator: the standard one (std::alloc::System)\n",
		      out);
	fputs("bytes: allocated while the function was the innermost traced "
	      "one; peak share: of the\npeak heap, the bytes it had "
	      "allocated; live at end: never freed (leak candidates).\n",
	      out);
}

/* The machine-readable columns, in order: JSON keys and CSV header alike. */
static const struct mem_column {
	const char *name;
	size_t offset;
} mem_columns[] = {
	{ "allocs", offsetof(struct rt_mem_row, allocs) },
	{ "bytes", offsetof(struct rt_mem_row, bytes) },
	{ "frees", offsetof(struct rt_mem_row, frees) },
	{ "bytes_freed", offsetof(struct rt_mem_row, freed) },
	{ "live_bytes", offsetof(struct rt_mem_row, live) },
	{ "live_allocs", offsetof(struct rt_mem_row, live_allocs) },
	{ "bytes_at_peak", offsetof(struct rt_mem_row, at_peak) },
	{ "allocs_total", offsetof(struct rt_mem_row, allocs_total) },
	{ "bytes_total", offsetof(struct rt_mem_row, bytes_total) },
};

static unsigned long long column(const struct rt_mem_row *row,
				 const struct mem_column *c)
{
	uint64_t v;

	memcpy(&v, (const char *)row + c->offset, sizeof(v));
	return (unsigned long long)v;
}

static void json_rows(FILE *out, const struct rt_memprof *m,
		      struct rt_evlog_reader *r, size_t n)
{
	fputs("\"functions\": [", out);
	for (size_t i = 0; i < n; i++) {
		const struct rt_mem_row *row = &m->rows[i];

		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", out);
		rt_json_string(out, func_name(r, row->func));
		for (size_t c = 0; c < ARRAY_SIZE(mem_columns); c++)
			fprintf(out, ", \"%s\": %llu", mem_columns[c].name,
				column(row, &mem_columns[c]));
		fputs("}", out);
	}
	fputs("]", out);
}

static void json_all(FILE *out, const struct rt_memprof *m,
		     struct rt_evlog_reader *r, size_t n)
{
	fprintf(out, "{\"memory\": {\"peak_bytes\": %llu, \"peak_ns\": %llu, "
		"\"peak_function\": ", (unsigned long long)m->peak,
		(unsigned long long)m->peak_t);
	rt_json_string(out, func_name(r, m->peak_func));
	fprintf(out, ", \"allocs\": %llu, \"frees\": %llu, "
		"\"live_bytes_end\": %llu, \"unknown_frees\": %llu, "
		"\"failed\": %llu, \"unseen\": %llu, \"global_allocator\": ",
		(unsigned long long)m->allocs, (unsigned long long)m->frees,
		(unsigned long long)m->heap_end,
		(unsigned long long)m->unknown_frees,
		(unsigned long long)m->failed, (unsigned long long)m->unseen);
	if (m->allocator) {
		char *s = xasprintf("custom: %s", m->allocator);

		rt_json_string(out, s);
		free(s);
	} else {
		rt_json_string(out, "standard");
	}
	fputs(",\n", out);
	json_rows(out, m, r, n);
	fputs("}}\n", out);
}

static void csv_rows(FILE *out, const struct rt_memprof *m,
		     struct rt_evlog_reader *r, size_t n)
{
	fputs("name", out);
	for (size_t c = 0; c < ARRAY_SIZE(mem_columns); c++)
		fprintf(out, ",%s", mem_columns[c].name);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		rt_csv_field(out, func_name(r, m->rows[i].func));
		for (size_t c = 0; c < ARRAY_SIZE(mem_columns); c++)
			fprintf(out, ",%llu", column(&m->rows[i], &mem_columns[c]));
		fputc('\n', out);
	}
}

int rt_memprof_print(FILE *out, const struct rt_memprof *m,
		     struct rt_evlog_reader *r, const struct rt_opts *o)
{
	struct order ord = { o->sort, r };
	size_t n = m->nrows;

	if (m->nrows)  /* no rows: no array, and qsort_r wants one */
		qsort_r(m->rows, m->nrows, sizeof(*m->rows), cmp_rows, &ord);
	if (o->limit > 0 && (size_t)o->limit < n)
		n = o->limit;
	if (o->format == RT_FMT_JSON) {
		json_all(out, m, r, n);
	} else if (o->format == RT_FMT_CSV) {
		csv_rows(out, m, r, n);
	} else {
		fputs("\n# memory (--mem): allocator calls, two probe hits "
		      "each\n", out);
		text_rows(out, m, r, n);
		text_summary(out, m, r);
	}
	return ferror(out) ? -EIO : 0;
}

int rt_memprof_print_series(FILE *out, const struct rt_memprof *m)
{
	fputs("t_ns,heap_bytes\n", out);
	for (size_t i = 0; i < m->npoints; i++)
		fprintf(out, "%llu,%llu\n", (unsigned long long)m->series[i].t,
			(unsigned long long)m->series[i].heap);
	return ferror(out) ? -EIO : 0;
}
