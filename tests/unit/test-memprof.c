// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The memory profile of logs written here, allocator call by allocator
 * call, with every figure worked out by hand or by the test's own sums:
 * what is live at the end, what was freed, and the frees of memory that
 * was not live (a double free must free nothing).
 */
#include <stdlib.h>
#include <unistd.h>

#include "rtrace/evlog.h"
#include "rtrace/memprof.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"
#include "unittest.h"

#define T0 1000000ULL
#define PID 100
#define S_OUTER 0x7ff000
#define S_CALL 0x7fe000   /* the allocator's frames, below the caller's */

enum { F_OUTER, F_ALLOC, F_FREE };

static const struct rt_log_func funcs[] = {
	{ .id = F_OUTER, .addr = 0x401000, .size = 64, .name = "app::outer" },
	{ .id = F_ALLOC, .addr = 0x402000, .size = 16, .name = "__rust_alloc",
	  .flags = RT_FUNC_MEM_ALLOC },
	{ .id = F_FREE, .addr = 0x402040, .size = 16, .name = "__rust_dealloc",
	  .flags = RT_FUNC_MEM_FREE },
};

typedef VEC(struct rt_event) events;

static void event(events *e, enum rt_event_kind kind, uint32_t func,
		  uint64_t sp, uint64_t value)
{
	vec_push(e, ((struct rt_event){ .ts = T0 + 10 * e->n, .kind = kind,
					.func = func, .sp = sp, .value = value,
					.tid = PID, .pid = PID, .nstops = 1 }));
}

static void alloc(events *e, uint64_t size, uint64_t ptr)
{
	event(e, RT_EV_ENTRY, F_ALLOC, S_CALL, size);
	event(e, RT_EV_EXIT, F_ALLOC, S_CALL, ptr);
}

static void dealloc(events *e, uint64_t ptr)
{
	event(e, RT_EV_ENTRY, F_FREE, S_CALL, ptr);
	event(e, RT_EV_EXIT, F_FREE, S_CALL, 0);
}

/* The profile of app::outer making the calls in @e (freed here). */
static struct rt_memprof *profile(events *e)
{
	static const struct rt_log_info info = { .start_ns = T0, .pid = PID,
						 .cmdline = "./app" };
	struct rt_log_end end = { .how = RT_END_EXITED };
	char dir[] = "/tmp/rtrace-test-memprof-XXXXXX";
	struct rt_evlog_writer *w;
	struct rt_evlog_reader *r;
	struct rt_memprof *m = NULL;
	char *path;

	if (!mkdtemp(dir))
		abort();
	path = xasprintf("%s/t.rtlog", dir);
	if (rt_evlog_create(path, &info, &w) ||
	    rt_evlog_write_funcs(w, funcs, ARRAY_SIZE(funcs)))
		abort();
	rt_evlog_append(w, &(struct rt_event){ .ts = T0, .kind = RT_EV_ENTRY,
					       .func = F_OUTER, .sp = S_OUTER,
					       .tid = PID, .pid = PID,
					       .nstops = 1 });
	vec_for_each(e, ev)
		rt_evlog_append(w, ev);
	end.end_ns = T0 + 10 * e->n + 10;
	rt_evlog_append(w, &(struct rt_event){ .ts = end.end_ns - 5,
					       .kind = RT_EV_EXIT,
					       .func = F_OUTER, .sp = S_OUTER,
					       .tid = PID, .pid = PID,
					       .nstops = 1 });
	if (rt_evlog_close(w, &end) || rt_evlog_open(path, &r))
		abort();
	if (rt_memprof_build(r, &m))
		m = NULL;
	rt_evlog_reader_free(r);
	unlink(path);
	rmdir(dir);
	free(path);
	vec_free(e);
	return m;
}

static const struct rt_mem_row *row(const struct rt_memprof *m, uint32_t f)
{
	for (size_t i = 0; i < m->nrows; i++)
		if (m->rows[i].func == f)
			return &m->rows[i];
	return NULL;
}

/* A block freed twice: the second free finds nothing live and frees
 * nothing, whatever its slot held before. */
TEST_CASE(double_free)
{
	events e = { 0 };
	struct rt_memprof *m;
	const struct rt_mem_row *r;

	alloc(&e, 64, 0xa000);
	alloc(&e, 100, 0xb000);
	dealloc(&e, 0xa000);
	dealloc(&e, 0xa000);
	m = profile(&e);
	TEST_TRUE(m != NULL);
	r = row(m, F_OUTER);
	TEST_TRUE(r != NULL);
	TEST_EQ(m->allocs, 2);
	TEST_EQ(m->frees, 2);
	TEST_EQ(m->unknown_frees, 1);
	TEST_EQ(m->peak, 164);
	TEST_EQ(m->heap_end, 100);
	TEST_EQ(r->bytes, 164);
	TEST_EQ(r->freed, 64);
	TEST_EQ(r->live, 100);
	TEST_EQ(r->live_allocs, 1);
	rt_memprof_free(m);
}

/* Many blocks, half freed in an order unlike the allocations', some of
 * them twice: the live ones, and their bytes, are what the test kept. */
TEST_CASE(many_blocks)
{
	enum { N = 600 };
	events e = { 0 };
	uint64_t live = 0, freed = 0, nlive = 0, unknown = 0;
	struct rt_memprof *m;
	const struct rt_mem_row *r;

	for (uint64_t i = 0; i < N; i++)
		alloc(&e, i + 1, 0x100000 + i * 32);
	for (uint64_t j = 0; j < N; j++) {
		uint64_t i = (j * 7) % N;  /* 7 is prime to N */

		if (i % 2 == 0) {
			live += i + 1;
			nlive++;
			continue;
		}
		dealloc(&e, 0x100000 + i * 32);
		freed += i + 1;
		if (i % 5 == 0) {
			dealloc(&e, 0x100000 + i * 32);
			unknown++;
		}
	}
	m = profile(&e);
	TEST_TRUE(m != NULL);
	r = row(m, F_OUTER);
	TEST_TRUE(r != NULL);
	TEST_EQ(m->allocs, N);
	TEST_EQ(m->unknown_frees, unknown);
	TEST_EQ(m->peak, N * (N + 1) / 2);
	TEST_EQ(m->heap_end, live);
	TEST_EQ(r->freed, freed);
	TEST_EQ(r->live, live);
	TEST_EQ(r->live_allocs, nlive);
	rt_memprof_free(m);
}
