// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The event log: round trips through the writer and the reader, logs cut
 * at every byte, hand-built files (bad magic, newer version, unknown and
 * malformed blocks), random corruption, and a disk that is full.  The
 * writer's two formats (version 2's packed events, version 1's 40-byte
 * records with RTRACE_LOG_VERSION=1) go through the same checks.
 *
 * Expected values come from construction: events are a function of their
 * index, and the expectations for cut logs come from a walk over the
 * blocks written here, following docs/log-format.md rather than the
 * reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rtrace/evlog.h"
#include "rtrace/log.h"
#include "rtrace/refusal.h"
#include "rtrace/util.h"
#include "unittest.h"

/* Helpers that use the TEST_* checks take the case's failure flag. */
#define T_ARGS bool *rt_test_failed__
#define T_PASS rt_test_failed__

enum { BLK_SESSION = 1, BLK_FUNCS, BLK_EVENTS, BLK_THREAD, BLK_PROCESS,
       BLK_END, BLK_STACK, BLK_PACKED };

/* The smallest packed event: tag, time, stack pointer, function. */
#define PACKED_MIN 4

/* Makes the writer use format @version (1 or 2). */
static void use_version(int version)
{
	if (version == 1)
		setenv("RTRACE_LOG_VERSION", "1", 1);
	else
		unsetenv("RTRACE_LOG_VERSION");
}

/* ---- scratch directory -------------------------------------------------- */

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	return remove(path);
}

/* Directories not yet removed: a failed check returns early, so what its
 * case left behind goes at exit. */
static char *live_dirs[32];

static void tmpdir_remove(char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static void tmpdirs_remove_left(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(live_dirs); i++)
		if (live_dirs[i])
			tmpdir_remove(live_dirs[i]);
}

static char *tmpdir_new(void)
{
	static bool registered;
	char *dir = xstrdup("/tmp/rtrace-test-evlog-XXXXXX");
	size_t i = 0;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	if (!registered)
		registered = !atexit(tmpdirs_remove_left);
	while (i < ARRAY_SIZE(live_dirs) - 1 && live_dirs[i])
		i++;
	live_dirs[i] = dir;
	return dir;
}

static void tmpdir_free(char *dir)
{
	for (size_t i = 0; i < ARRAY_SIZE(live_dirs); i++)
		if (live_dirs[i] == dir)
			live_dirs[i] = NULL;
	tmpdir_remove(dir);
}

static void write_bytes(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write_all(fd, p, n) < 0) {
		perror(path);
		abort();
	}
	close(fd);
}

/* ---- stderr capture: reader errors are part of the interface ------------ */

struct capture {
	int saved;
	char *path;
};

static void capture_begin(struct capture *c, const char *dir)
{
	int fd;

	c->path = xasprintf("%s/stderr.txt", dir);
	fflush(stderr);
	c->saved = dup(2);
	fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	dup2(fd, 2);
	close(fd);
}

/* Restores stderr; returns what was printed (caller frees). */
static char *capture_end(struct capture *c)
{
	char *text = NULL;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	if (read_file(c->path, &text, NULL) < 0)
		text = xstrdup("");
	zfree(&c->path);
	return text;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* ---- constructed contents ----------------------------------------------- */

static struct rt_event make_event(uint64_t i)
{
	return (struct rt_event){
		.ts = 1000000 + i * 7,
		.sp = 0x7ffd00000000ULL - (i % 97) * 16,
		.value = i * 0x9e3779b97f4a7c15ULL,
		.tid = 100 + i % 5,
		.pid = 100 + i % 5 % 2,	/* each thread in one process */
		.func = i % 13 == 0 ? RT_FUNC_NONE : (uint32_t)(i % 40),
		.kind = 1 + i % 6,
		.flags = i & 0xff,
		.nstops = (uint16_t)(i * 3),
	};
}

static bool event_eq(const struct rt_event *a, const struct rt_event *b)
{
	return a->ts == b->ts && a->sp == b->sp && a->value == b->value &&
	       a->tid == b->tid && a->pid == b->pid && a->func == b->func &&
	       a->kind == b->kind && a->flags == b->flags &&
	       a->nstops == b->nstops;
}

static const struct rt_log_info test_info = {
	.start_ns = 123456789012345ULL,
	.start_real_ns = 1700000000123456789ULL,
	.stop_cost_ns = 28000,
	.cost = { .n = 2, .has_pre = true, .interval_ns = { 28000, 90000 },
		  .cost_ns = { 28000, 60000 }, .pre_ns = { 11000, 20000 } },
	.pid = 4242,
	.flags = RT_LOG_ATTACHED,
	.cmdline = "./app --flag 'two words'",
	.cwd = "/home/user/project",
	.host = "builder",
	.version = "0.1.0",
};

/* Rows @first .. @first + @n - 1; the strings are freed by funcs_free(). */
static struct rt_log_func *make_funcs(uint32_t first, size_t n)
{
	struct rt_log_func *f = xcalloc(n, sizeof(*f));

	for (size_t i = 0; i < n; i++) {
		uint32_t id = first + i;

		f[i] = (struct rt_log_func){
			.id = id,
			.refusal = id % 3,
			.addr = 0x555555554000ULL + id * 64,
			.size = 16 + id,
			.line = id * 10,
			.name = xasprintf("my_crate::module_%u::function_"
					  "with_a_long_name_%u", id % 7, id),
			.raw = xasprintf("_ZN8my_crate2f%uE", id),
			.module = xasprintf("/usr/bin/app%u", id % 2),
			.file = id % 4 == 3 ? NULL
					    : xasprintf("src/f%u.rs", id),
			.inlined_sites = id % 5,
			.inlined_refused = id % 3,
			.inlined_why = id % 3 ? RT_REFUSE_LOOP_HEAD : 0,
			.inlined_packed = id % 2,
		};
	}
	return f;
}

static void funcs_free(struct rt_log_func *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)f[i].name);
		free((char *)f[i].raw);
		free((char *)f[i].module);
		free((char *)f[i].file);
	}
	free(f);
}

static int write_funcs(struct rt_evlog_writer *w, uint32_t first, size_t n)
{
	struct rt_log_func *f = make_funcs(first, n);
	int rc = rt_evlog_write_funcs(w, f, n);

	funcs_free(f, n);
	return rc;
}

static void check_func(T_ARGS, const struct rt_evlog_reader *r, uint32_t id)
{
	struct rt_log_func *want = make_funcs(id, 1);
	const struct rt_log_func *got = rt_evlog_func(r, id);
	bool same = got && got->id == id && got->refusal == want->refusal &&
		    got->addr == want->addr && got->size == want->size &&
		    got->line == want->line &&
		    got->inlined_sites == want->inlined_sites &&
		    got->inlined_refused == want->inlined_refused &&
		    got->inlined_why == want->inlined_why &&
		    got->inlined_packed == want->inlined_packed &&
		    strcmp(got->name, want->name) == 0 &&
		    strcmp(got->raw, want->raw) == 0 &&
		    strcmp(got->module, want->module) == 0 &&
		    (got->file && want->file ? !strcmp(got->file, want->file)
					     : got->file == want->file);

	funcs_free(want, 1);
	if (!same)
		TEST_FAIL__("function %u differs from the row written", id);
}

/* Appends events @from .. @to - 1. */
static void append_range(struct rt_evlog_writer *w, uint64_t from,
			 uint64_t to)
{
	for (uint64_t i = from; i < to; i++) {
		struct rt_event ev = make_event(i);

		rt_evlog_append(w, &ev);
	}
}

/* Reads events, checking them against make_event(@from + k); returns how
 * many came, or -1 after a mismatch or an error (reported). */
static long read_events(struct rt_evlog_reader *r, uint64_t from,
			uint64_t max)
{
	struct rt_event ev, want;
	uint64_t k = 0;
	int rc;

	while (k < max && (rc = rt_evlog_next(r, &ev)) == 1) {
		want = make_event(from + k);
		if (!event_eq(&ev, &want)) {
			fprintf(stderr, "  event %" PRIu64 " differs\n",
				from + k);
			return -1;
		}
		k++;
	}
	if (k < max && rc < 0) {
		fprintf(stderr, "  rt_evlog_next: %s\n", strerror(-rc));
		return -1;
	}
	return k;
}

/* ---- a walk over the blocks, from the format description ---------------- */

struct block {
	uint64_t at;		/* offset of the block header */
	uint64_t end;		/* offset after the payload */
	uint32_t type;
	uint32_t rows;		/* function tables: their row count */
};

struct layout {
	struct block b[64];
	size_t n;
	uint64_t size;
};

static void walk(const uint8_t *p, size_t size, struct layout *l)
{
	uint32_t hlen;
	uint64_t at;

	memcpy(&hlen, p + 12, 4);
	l->n = 0;
	l->size = size;
	for (at = hlen; at + 8 <= size && l->n < ARRAY_SIZE(l->b);) {
		struct block *b = &l->b[l->n++];
		uint32_t len;

		memcpy(&b->type, p + at, 4);
		memcpy(&len, p + at + 4, 4);
		b->at = at;
		b->end = at + 8 + len;
		b->rows = 0;
		if (b->type == BLK_FUNCS)
			memcpy(&b->rows, p + at + 8, 4);
		at = b->end;
	}
}

/* What a reader must report for the first @cut bytes of the file. */
struct expect {
	bool opens;
	bool cut;
	bool end;
	uint64_t events;
	uint64_t funcs;
	bool thread;
	bool in_packed;		/* the cut is inside a packed block */
};

static struct expect expect_prefix(const struct layout *l, uint64_t cut)
{
	struct expect e = { .opens = cut >= l->b[0].end, .cut = true };

	for (size_t i = 0; i < l->n; i++) {
		const struct block *b = &l->b[i];

		if (cut == b->end)
			e.cut = false;
		if (b->type == BLK_EVENTS && cut > b->at + 8)
			e.events += (MIN(cut, b->end) - b->at - 8) /
				    RT_EVENT_SIZE;
		e.in_packed |= b->type == BLK_PACKED && cut > b->at &&
			       cut < b->end;
		if (cut < b->end)
			continue;
		e.funcs += b->type == BLK_FUNCS ? b->rows : 0;
		e.thread |= b->type == BLK_THREAD;
		e.end |= b->type == BLK_END;
	}
	return e;
}

/*
 * Packed events have no fixed size, so the count for a cut cannot come
 * from the layout.  Cuts one byte apart tell it instead: every event read
 * is checked against make_event(), and the count of a prefix one byte
 * longer is the same or one more (an event takes PACKED_MIN bytes or
 * more), and the whole file has them all.  *@prev is the count of the
 * previous prefix, or NULL for cuts far apart.
 */
static void check_count(T_ARGS, const struct expect *e, long got,
			long *prev, bool packed)
{
	TEST_TRUE(got >= 0);
	if (!packed)
		TEST_EQ(got, e->events);
	else if (prev)
		TEST_TRUE(got == *prev || got == *prev + 1);
	if (prev)
		*prev = got;
}

static void check_prefix(T_ARGS, const char *path, const uint8_t *bytes,
			 const struct layout *l, uint64_t cut, long *prev)
{
	struct expect e = expect_prefix(l, cut);
	bool packed = l->b[0].type && bytes[8] == 2;
	struct rt_evlog_reader *r = NULL;
	int rc;

	write_bytes(path, bytes, cut);
	rc = rt_evlog_open(path, &r);
	if (!e.opens) {
		TEST_EQ(rc, -EBADMSG);
		return;
	}
	TEST_EQ(rc, 0);
	check_count(T_PASS, &e, read_events(r, 0, UINT64_MAX), prev, packed);
	TEST_EQ(rt_evlog_next(r, &(struct rt_event){ 0 }), 0);
	TEST_EQ(rt_evlog_cut(r), e.cut);
	TEST_EQ(rt_evlog_end(r) != NULL, e.end);
	TEST_EQ(rt_evlog_nfuncs(r), e.funcs);
	TEST_EQ(rt_evlog_thread_name(r, 100) != NULL, e.thread);
	TEST_EQ(rt_evlog_file_size(r), cut);
	rt_evlog_reader_free(r);
}

/* ---- hand-built files --------------------------------------------------- */

struct bytes {
	uint8_t *p;
	size_t n, cap;
};

static void b_raw(struct bytes *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = MAX(2 * b->cap, b->n + n + 64);
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

/* The tests run on little-endian hosts; the format is little-endian. */
static void b_u32(struct bytes *b, uint32_t v)
{
	b_raw(b, &v, 4);
}

static void b_u64(struct bytes *b, uint64_t v)
{
	b_raw(b, &v, 8);
}

static void b_str(struct bytes *b, const char *s)
{
	b_u32(b, strlen(s));
	b_raw(b, s, strlen(s));
}

/* Starts a block; returns the offset that b_end() patches. */
static size_t b_begin(struct bytes *b, uint32_t type)
{
	b_u32(b, type);
	b_u32(b, 0);
	return b->n;
}

static void b_end(struct bytes *b, size_t payload)
{
	uint32_t len = b->n - payload;

	memcpy(b->p + payload - 4, &len, 4);
}

static void b_header(struct bytes *b, uint32_t version, uint32_t hlen)
{
	b_raw(b, "RTRACE\0L", 8);
	b_u32(b, version);
	b_u32(b, hlen);
	for (uint32_t i = 16; i < hlen; i++)
		b_raw(b, "x", 1);
}

/* A session block with @extra bytes a newer writer might append. */
/* A session block with one calibration point (cost 6) and, with @split,
 * the part of it before the time stamp (2), then @extra bytes a newer
 * writer might append. */
static void b_session_split(struct bytes *b, bool split, uint32_t extra)
{
	size_t at = b_begin(b, BLK_SESSION);

	b_u64(b, 1);
	b_u64(b, 2);
	b_u64(b, 3);
	b_u32(b, 4);
	b_u32(b, 0);
	b_str(b, "cmd");
	b_str(b, "/");
	b_str(b, "host");
	b_str(b, "v");
	b_u32(b, 1);            /* one calibration point */
	b_u64(b, 5);
	b_u64(b, 6);
	if (split) {
		b_u32(b, 1);
		b_u64(b, 2);
	}
	for (uint32_t i = 0; i < extra; i++)
		b_raw(b, "+", 1);
	b_end(b, at);
}

static void b_session(struct bytes *b, uint32_t extra)
{
	b_session_split(b, true, extra);
}

static void b_events(struct bytes *b, uint64_t from, uint64_t to)
{
	size_t at = b_begin(b, BLK_EVENTS);

	for (uint64_t i = from; i < to; i++) {
		struct rt_event ev = make_event(i);

		b_u64(b, ev.ts);
		b_u64(b, ev.sp);
		b_u64(b, ev.value);
		b_u32(b, ev.tid);
		b_u32(b, ev.pid);
		b_u32(b, ev.func);
		b_raw(b, &ev.kind, 1);
		b_raw(b, &ev.flags, 1);
		b_raw(b, &ev.nstops, 2);
	}
	b_end(b, at);
}

/* Opens @b written to @dir/hand.rtrace; returns rt_evlog_open()'s result
 * and the one line it printed in *@msg (caller frees). */
static int open_bytes(const char *dir, const struct bytes *b,
		      struct rt_evlog_reader **r, char **msg)
{
	char *path = xasprintf("%s/hand.rtrace", dir);
	struct capture cap;
	int rc;

	write_bytes(path, b->p, b->n);
	capture_begin(&cap, dir);
	rc = rt_evlog_open(path, r);
	*msg = capture_end(&cap);
	free(path);
	return rc;
}

/* ---- round trip --------------------------------------------------------- */

#define BIG_EVENTS 70000	/* more than two buffers: several blocks */
#define FIRST_EVENTS 30000	/* events before the second table */
#define BIG_FUNCS 20000		/* more than 1 MiB of rows */

static const struct rt_log_end test_end = {
	.end_ns = 987654321,
	.status = -256,
	.how = RT_END_EXITED,
	.stops = 123456,
	.events = BIG_EVENTS,
	.dropped = 0,
};

/* What a writer's tap was handed: copies of each call's bytes. */
struct chunks {
	uint8_t *v[256];
	size_t len[256];
	size_t n;
	bool overflow;
};

static void collect(void *ctx, const uint8_t *bytes, size_t n)
{
	struct chunks *c = ctx;

	if (c->n == ARRAY_SIZE(c->v)) {
		c->overflow = true;
		return;
	}
	c->v[c->n] = xmalloc(n);
	memcpy(c->v[c->n], bytes, n);
	c->len[c->n++] = n;
}

static void chunks_free(struct chunks *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	c->n = 0;
}

/* The big log, its blocks handed to @tap when non-NULL, its event
 * blocks kept in the file or not. */
static void write_big_tapped(T_ARGS, const char *path, struct chunks *tap,
			     bool keep)
{
	struct rt_evlog_writer *w = NULL;

	TEST_EQ(rt_evlog_create(path, &test_info, &w), 0);
	if (tap)
		rt_evlog_set_tap(w, collect, tap);
	rt_evlog_keep_events(w, keep);
	TEST_EQ(write_funcs(w, 0, 10), 0);
	TEST_EQ(rt_evlog_write_thread(w, 100, 100, "main", 0), 0);
	TEST_EQ(rt_evlog_write_process(w, 100, 1, "/usr/bin/app"), 0);
	append_range(w, 0, FIRST_EVENTS);
	TEST_EQ(write_funcs(w, 10, BIG_FUNCS), 0);
	TEST_EQ(rt_evlog_write_thread(w, 100, 100, "renamed", RT_THREAD_TEST), 0);
	TEST_EQ(rt_evlog_write_thread(w, 101, 100, NULL, 0), 0);
	append_range(w, FIRST_EVENTS, BIG_EVENTS);
	TEST_EQ(rt_evlog_nevents(w), BIG_EVENTS);
	TEST_EQ(rt_evlog_ndropped(w), 0);
	TEST_EQ(rt_evlog_close(w, &test_end), 0);
}

static void write_big(T_ARGS, const char *path)
{
	write_big_tapped(T_PASS, path, NULL, true);
}

static void check_info(T_ARGS, const struct rt_log_info *i)
{
	TEST_EQ(i->start_ns, test_info.start_ns);
	TEST_EQ(i->start_real_ns, test_info.start_real_ns);
	TEST_EQ(i->stop_cost_ns, test_info.stop_cost_ns);
	TEST_EQ(i->cost.n, 2);
	TEST_TRUE(i->cost.has_pre);
	for (int k = 0; k < 2; k++) {
		TEST_EQ(i->cost.interval_ns[k], test_info.cost.interval_ns[k]);
		TEST_EQ(i->cost.cost_ns[k], test_info.cost.cost_ns[k]);
		TEST_EQ(i->cost.pre_ns[k], test_info.cost.pre_ns[k]);
	}
	TEST_EQ(i->pid, test_info.pid);
	TEST_EQ(i->flags, test_info.flags);
	TEST_STREQ(i->cmdline, test_info.cmdline);
	TEST_STREQ(i->cwd, test_info.cwd);
	TEST_STREQ(i->host, test_info.host);
	TEST_STREQ(i->version, test_info.version);
}

static void check_tail(T_ARGS, const struct rt_evlog_reader *r)
{
	const struct rt_log_end *e = rt_evlog_end(r);

	TEST_EQ(rt_evlog_nfuncs(r), 10 + BIG_FUNCS);
	for (uint32_t id = 0; id < 10 + BIG_FUNCS && !*T_PASS; id++)
		check_func(T_PASS, r, id);
	if (*T_PASS)
		return;
	TEST_TRUE(rt_evlog_func(r, 10 + BIG_FUNCS) == NULL);
	TEST_STREQ(rt_evlog_thread_name(r, 100), "renamed");
	TEST_EQ(rt_evlog_thread_flags(r, 100), RT_THREAD_TEST);
	TEST_TRUE(rt_evlog_thread_name(r, 101) == NULL);
	TEST_TRUE(rt_evlog_thread_name(r, 7) == NULL);
	TEST_STREQ(rt_evlog_process_exe(r, 100), "/usr/bin/app");
	TEST_TRUE(rt_evlog_process_exe(r, 1) == NULL);
	TEST_TRUE(e != NULL);
	TEST_MEMEQ(e, &test_end, sizeof(*e));
	TEST_TRUE(!rt_evlog_cut(r));
}

static void read_big(T_ARGS, const char *path)
{
	struct rt_evlog_reader *r = NULL;
	const struct rt_log_func *f3;
	const char *main_name;
	struct stat st;

	TEST_EQ(rt_evlog_open(path, &r), 0);
	check_info(T_PASS, rt_evlog_info(r));
	/* Tables are absorbed as the reader meets them, in file order. */
	TEST_EQ(rt_evlog_nfuncs(r), 0);
	TEST_EQ(read_events(r, 0, FIRST_EVENTS), FIRST_EVENTS);
	TEST_EQ(rt_evlog_nfuncs(r), 10);
	TEST_TRUE(rt_evlog_end(r) == NULL);
	main_name = rt_evlog_thread_name(r, 100);
	TEST_STREQ(main_name, "main");
	f3 = rt_evlog_func(r, 3);
	TEST_EQ(read_events(r, FIRST_EVENTS, UINT64_MAX),
		BIG_EVENTS - FIRST_EVENTS);
	check_tail(T_PASS, r);
	TEST_EQ(stat(path, &st), 0);
	TEST_EQ(rt_evlog_file_size(r), st.st_size);
	/* A second pass sees the same events; earlier pointers stay valid. */
	TEST_EQ(rt_evlog_rewind(r), 0);
	TEST_EQ(read_events(r, 0, UINT64_MAX), BIG_EVENTS);
	TEST_TRUE(rt_evlog_func(r, 3) == f3);
	TEST_STREQ(main_name, "main");
	check_tail(T_PASS, r);
	rt_evlog_reader_free(r);
}

/* The writer must really have produced several blocks of each kind. */
static void check_big_layout(T_ARGS, const char *path, int version)
{
	struct layout l;
	size_t nev = 0, nfn = 0;
	uint32_t v;
	char *bytes;
	size_t size;

	TEST_EQ(read_file(path, &bytes, &size), 0);
	walk((const uint8_t *)bytes, size, &l);
	memcpy(&v, bytes + 8, 4);
	free(bytes);
	TEST_EQ(v, version);
	for (size_t i = 0; i < l.n; i++) {
		nev += l.b[i].type == (version == 1 ? BLK_EVENTS : BLK_PACKED);
		nfn += l.b[i].type == BLK_FUNCS;
		TEST_TRUE(l.b[i].end - l.b[i].at <= (1u << 20));
	}
	TEST_EQ(l.b[0].type, BLK_SESSION);
	TEST_EQ(l.b[l.n - 1].type, BLK_END);
	TEST_EQ(l.b[l.n - 1].end, size);
	/* packed, the events fill two blocks, one each side of a table */
	TEST_TRUE(nev >= (version == 1 ? 3u : 2u));
	TEST_TRUE(nfn >= 3);
}

static void round_trip_in(T_ARGS, int version)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/big.rtrace", dir);

	use_version(version);
	write_big(T_PASS, path);
	use_version(2);
	if (!*T_PASS)
		read_big(T_PASS, path);
	if (!*T_PASS)
		check_big_layout(T_PASS, path, version);
	free(path);
	tmpdir_free(dir);
}

TEST_CASE(round_trip)
{
	round_trip_in(T_PASS, 2);
}

TEST_CASE(round_trip_v1)
{
	round_trip_in(T_PASS, 1);
}

/* Appending stays in memory until a buffer is full; a function table
 * goes to disk at once, header first, for a writer that dies later. */
TEST_CASE(appends_are_buffered)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/buffered.rtrace", dir);
	struct rt_evlog_writer *w = NULL;
	struct rt_evlog_reader *r = NULL;
	struct stat st;
	off_t tables;

	TEST_EQ(rt_evlog_create(path, NULL, &w), 0);
	TEST_EQ(stat(path, &st), 0);
	TEST_EQ(st.st_size, 0);
	TEST_EQ(write_funcs(w, 0, 3), 0);
	TEST_EQ(stat(path, &st), 0);
	tables = st.st_size;
	TEST_TRUE(tables > 0);
	append_range(w, 0, 1000);
	TEST_EQ(stat(path, &st), 0);
	TEST_EQ(st.st_size, tables);
	TEST_EQ(rt_evlog_close(w, NULL), 0);
	TEST_EQ(rt_evlog_open(path, &r), 0);
	TEST_STREQ(rt_evlog_info(r)->cmdline, "");
	TEST_EQ(read_events(r, 0, UINT64_MAX), 1000);
	TEST_TRUE(rt_evlog_end(r) == NULL);
	TEST_TRUE(!rt_evlog_cut(r));
	TEST_EQ(rt_evlog_nfuncs(r), 3);
	rt_evlog_reader_free(r);
	free(path);
	tmpdir_free(dir);
}

/* A curve measured after the run replaces the one the log began with:
 * staged (still in the buffer) or already on disk. */
static void cost_set_late_in(T_ARGS, bool flushed)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/late.rtrace", dir);
	struct rt_log_info none = test_info;
	struct rt_evlog_writer *w = NULL;
	struct rt_evlog_reader *r = NULL;
	const struct rt_log_info *i;

	memset(&none.cost, 0, sizeof(none.cost));
	none.stop_cost_ns = 0;
	none.cost_later = true;
	TEST_EQ(rt_evlog_create(path, &none, &w), 0);
	if (flushed)
		TEST_EQ(write_funcs(w, 0, 3), 0);
	append_range(w, 0, 100);
	TEST_EQ(rt_evlog_set_cost(w, &test_info.cost), 0);
	append_range(w, 100, 200);
	TEST_EQ(rt_evlog_close(w, &test_end), 0);
	TEST_EQ(rt_evlog_open(path, &r), 0);
	i = rt_evlog_info(r);
	TEST_EQ(i->stop_cost_ns, test_info.cost.cost_ns[0]);
	TEST_EQ(i->cost.n, 2);
	TEST_TRUE(i->cost.has_pre);
	TEST_EQ(i->cost.interval_ns[1], 90000);
	TEST_EQ(i->cost.cost_ns[1], 60000);
	TEST_EQ(i->cost.pre_ns[1], 20000);
	TEST_STREQ(i->cmdline, test_info.cmdline);
	TEST_EQ(read_events(r, 0, UINT64_MAX), 200);
	rt_evlog_reader_free(r);
	free(path);
	tmpdir_free(dir);
}

TEST_CASE(cost_set_late)
{
	cost_set_late_in(T_PASS, false);
	cost_set_late_in(T_PASS, true);
}

/* A log whose curve was never filled in reads as one without a curve. */
TEST_CASE(cost_never_set)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/nocost.rtrace", dir);
	struct rt_log_info none = test_info;
	struct capture cap;
	struct rt_evlog_writer *w = NULL;
	struct rt_evlog_reader *r = NULL;

	memset(&none.cost, 0, sizeof(none.cost));
	none.stop_cost_ns = 0;
	none.cost_later = true;
	TEST_EQ(rt_evlog_create(path, &none, &w), 0);
	append_range(w, 0, 10);
	TEST_EQ(rt_evlog_close(w, &test_end), 0);
	TEST_EQ(rt_evlog_open(path, &r), 0);
	TEST_EQ(rt_evlog_info(r)->cost.n, 0);
	TEST_EQ(rt_evlog_info(r)->stop_cost_ns, 0);
	TEST_EQ(read_events(r, 0, UINT64_MAX), 10);
	rt_evlog_reader_free(r);
	/* without room for it, a curve is refused, the log unharmed */
	none.cost_later = false;
	TEST_EQ(rt_evlog_create(path, &none, &w), 0);
	capture_begin(&cap, dir);
	TEST_EQ(rt_evlog_set_cost(w, &test_info.cost), -EIO);
	free(capture_end(&cap));
	TEST_EQ(rt_evlog_close(w, &test_end), 0);
	TEST_EQ(rt_evlog_open(path, &r), 0);
	TEST_EQ(rt_evlog_info(r)->cost.n, 0);
	rt_evlog_reader_free(r);
	free(path);
	tmpdir_free(dir);
}

/* ---- cut logs ----------------------------------------------------------- */

static void write_small(T_ARGS, const char *path)
{
	struct rt_evlog_writer *w = NULL;

	TEST_EQ(rt_evlog_create(path, &test_info, &w), 0);
	TEST_EQ(write_funcs(w, 0, 5), 0);
	TEST_EQ(rt_evlog_write_thread(w, 100, 100, "main", 0), 0);
	TEST_EQ(rt_evlog_write_process(w, 100, 1, "/usr/bin/app"), 0);
	append_range(w, 0, 60);
	TEST_EQ(write_funcs(w, 5, 2), 0);
	append_range(w, 60, 100);
	TEST_EQ(rt_evlog_close(w, &test_end), 0);
}

/* Every prefix of a small log: header, tables, event blocks, end block. */
static void cut_at_every_byte_in(T_ARGS, int version)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/full.rtrace", dir);
	char *cut = xasprintf("%s/cut.rtrace", dir);
	struct capture cap;
	struct layout l;
	char *bytes = NULL, *msg;
	size_t size = 0;
	long prev = 0;

	use_version(version);
	write_small(T_PASS, path);
	use_version(2);
	TEST_EQ(read_file(path, &bytes, &size), 0);
	walk((const uint8_t *)bytes, size, &l);
	TEST_EQ(l.n, 8);
	TEST_EQ(l.b[4].type, (version == 1 ? BLK_EVENTS : BLK_PACKED));
	capture_begin(&cap, dir);
	for (uint64_t at = 0; at <= size && !*T_PASS; at++)
		check_prefix(T_PASS, cut, (const uint8_t *)bytes, &l, at,
			     &prev);
	msg = capture_end(&cap);
	TEST_EQ(prev, 100);
	/* One line for each prefix that stops inside the header. */
	if (!*T_PASS) {
		TEST_EQ(count_lines(msg), l.b[0].end);
		TEST_TRUE(strstr(msg, "log is cut short inside its header"));
	}
	free(msg);
	free(bytes);
	free(path);
	free(cut);
	tmpdir_free(dir);
}

TEST_CASE(cut_at_every_byte)
{
	cut_at_every_byte_in(T_PASS, 2);
}

TEST_CASE(cut_at_every_byte_v1)
{
	cut_at_every_byte_in(T_PASS, 1);
}

/* A few cuts inside the large blocks of the round-trip log. */
TEST_CASE(cut_inside_large_blocks)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/big.rtrace", dir);
	char *cut = xasprintf("%s/cut.rtrace", dir);
	char *bytes = NULL;
	size_t size = 0;
	struct layout l;

	write_big(T_PASS, path);
	TEST_EQ(read_file(path, &bytes, &size), 0);
	walk((const uint8_t *)bytes, size, &l);
	for (size_t i = 1; i < l.n && !*T_PASS; i++) {
		const struct block *b = &l.b[i];
		uint64_t at[] = { b->at + 3, b->at + 8 + 40 * 100 + 17,
				  b->end - 1, b->end };

		if (b->end - b->at < 8 + 40 * 101)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(at) && !*T_PASS; k++)
			check_prefix(T_PASS, cut, (const uint8_t *)bytes, &l,
				     at[k], NULL);
	}
	free(bytes);
	free(path);
	free(cut);
	tmpdir_free(dir);
}

/* ---- files that are not logs, or not for this rtrace -------------------- */

static void expect_open_error(T_ARGS, const char *dir, const char *path,
			      int err, const char *text)
{
	struct rt_evlog_reader *r = NULL;
	struct capture cap;
	char *msg;
	bool ok;
	int rc;

	capture_begin(&cap, dir);
	rc = rt_evlog_open(path, &r);
	msg = capture_end(&cap);
	if (rc == 0)
		rt_evlog_reader_free(r);
	ok = count_lines(msg) == 1 && strstr(msg, text);
	if (rc != err || !ok)
		fprintf(stderr, "  %s: got %d, printed: %s", path, rc, msg);
	free(msg);
	TEST_EQ(rc, err);
	TEST_TRUE(ok);
	TEST_TRUE(r == NULL);
}

static void expect_bytes_error(T_ARGS, const char *dir, const void *p,
			       size_t n, int err, const char *text)
{
	char *path = xasprintf("%s/bad.rtrace", dir);
	char *line = xasprintf(text, path);

	write_bytes(path, p, n);
	expect_open_error(T_PASS, dir, path, err, line);
	free(line);
	free(path);
}

TEST_CASE(not_a_log)
{
	static const char text[] = "fn main() {}\n";
	static const char almost[] = "RTRACE\0X\1\0\0\0\20\0\0\0";
	char *dir = tmpdir_new();
	char *missing = xasprintf("%s/missing.rtrace", dir);

	expect_bytes_error(T_PASS, dir, text, sizeof(text) - 1, -EINVAL,
			   "%s is not an rtrace log");
	expect_bytes_error(T_PASS, dir, almost, sizeof(almost) - 1, -EINVAL,
			   "%s is not an rtrace log");
	expect_bytes_error(T_PASS, dir, "", 0, -EBADMSG,
			   "%s: log is cut short inside its header "
			   "(file header: 0 of 16 bytes)");
	expect_bytes_error(T_PASS, dir, "RTR", 3, -EBADMSG,
			   "%s: log is cut short inside its header");
	expect_open_error(T_PASS, dir, missing, -ENOENT,
			  "cannot open /tmp/");
	expect_open_error(T_PASS, dir, dir, -EISDIR, "Is a directory");
	free(missing);
	tmpdir_free(dir);
}

TEST_CASE(newer_version)
{
	char *dir = tmpdir_new();
	struct bytes b = { 0 };

	b_header(&b, RT_EVLOG_VERSION + 1, 16);
	b_session(&b, 0);
	expect_bytes_error(T_PASS, dir, b.p, b.n, -EPROTONOSUPPORT,
			   "%s: log format version 3 is newer than this "
			   "rtrace understands (up to 2); use a newer rtrace");
	/* The version is checked before anything that follows it. */
	expect_bytes_error(T_PASS, dir, b.p, 16, -EPROTONOSUPPORT,
			   "%s: log format version 3 is newer");
	free(b.p);
	tmpdir_free(dir);
}

/* ---- growth within a version -------------------------------------------- */

/* One function row, with @extra bytes a newer writer might append. */
static void b_func_row(struct bytes *b, uint32_t id, uint32_t extra)
{
	static const char *const strs[] = { "name", "raw", "module" };
	size_t start;
	uint32_t len;

	b_u32(b, 0);
	start = b->n;
	b_u32(b, id);
	b_u32(b, 0);
	b_u64(b, 0x1000 + id);
	b_u64(b, 8);
	b_u32(b, 42);
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		b_str(b, strs[i]);
	b_u32(b, UINT32_MAX);	/* no source file */
	for (uint32_t i = 0; i < extra; i++)
		b_raw(b, "+", 1);
	len = b->n - start;
	memcpy(b->p + start - 4, &len, 4);
}

/* What a newer writer of the same version may add, an older reader skips. */
static void b_grown(struct bytes *b)
{
	size_t at;

	b_header(b, RT_EVLOG_VERSION, 24);
	b_session(b, 11);
	at = b_begin(b, 77);
	b_raw(b, "thirteen byte", 13);
	b_end(b, at);
	at = b_begin(b, BLK_FUNCS);
	b_u32(b, 2);
	b_func_row(b, 0, 0);
	b_func_row(b, 1, 9);
	b_raw(b, "tail", 4);
	b_end(b, at);
	b_events(b, 0, 10);
	at = b_begin(b, UINT32_MAX);
	b_end(b, at);
	at = b_begin(b, BLK_THREAD);
	b_u32(b, 100);
	b_u32(b, 100);
	b_str(b, "t");
	b_u32(b, 5);
	b_end(b, at);
	b_events(b, 10, 20);
	at = b_begin(b, 1000);
	b_u64(b, 1);
	b_end(b, at);
}

static void check_grown(T_ARGS, const char *dir, const struct bytes *b,
			bool cut)
{
	struct rt_evlog_reader *r = NULL;
	const struct rt_log_func *f;
	char *msg;

	TEST_EQ(open_bytes(dir, b, &r, &msg), 0);
	TEST_STREQ(msg, "");
	free(msg);
	TEST_STREQ(rt_evlog_info(r)->cmdline, "cmd");
	TEST_STREQ(rt_evlog_info(r)->version, "v");
	TEST_TRUE(rt_evlog_info(r)->cost.has_pre);
	TEST_EQ(rt_evlog_info(r)->cost.pre_ns[0], 2);
	TEST_EQ(read_events(r, 0, UINT64_MAX), 20);
	TEST_EQ(rt_evlog_next(r, &(struct rt_event){ 0 }), 0);
	TEST_EQ(rt_evlog_cut(r), cut);
	TEST_EQ(rt_evlog_nfuncs(r), 2);
	f = rt_evlog_func(r, 1);
	TEST_TRUE(f != NULL);
	TEST_STREQ(f->name, "name");
	TEST_STREQ(f->module, "module");
	TEST_TRUE(f->file == NULL);
	TEST_EQ(f->addr, 0x1001);
	TEST_EQ(f->line, 42);
	TEST_STREQ(rt_evlog_thread_name(r, 100), "t");
	rt_evlog_reader_free(r);
}

TEST_CASE(unknown_blocks_and_fields_skipped)
{
	char *dir = tmpdir_new();
	struct bytes b = { 0 };

	b_grown(&b);
	check_grown(T_PASS, dir, &b, false);
	/* An unknown block that runs past the end of the file: cut there. */
	b_u32(&b, 555);
	b_u32(&b, 0xfffffff0);
	b_raw(&b, "0123456789", 10);
	if (!*T_PASS)
		check_grown(T_PASS, dir, &b, true);
	free(b.p);
	tmpdir_free(dir);
}

/* A log from before the split was measured ends its session at the
 * curve, and a writer that has no split says 0: both read as a curve
 * without a split. */
TEST_CASE(session_without_split)
{
	char *dir = tmpdir_new();
	struct bytes b = { 0 };

	for (int zero = 0; zero < 2 && !*T_PASS; zero++) {
		struct rt_evlog_reader *r = NULL;
		char *msg;

		b.n = 0;
		b_header(&b, RT_EVLOG_VERSION, 16);
		b_session_split(&b, false, zero ? 4 : 0);
		if (zero)
			memset(b.p + b.n - 4, 0, 4);
		b_events(&b, 0, 3);
		TEST_EQ(open_bytes(dir, &b, &r, &msg), 0);
		TEST_STREQ(msg, "");
		free(msg);
		TEST_EQ(rt_evlog_info(r)->cost.n, 1);
		TEST_EQ(rt_evlog_info(r)->cost.cost_ns[0], 6);
		TEST_TRUE(!rt_evlog_info(r)->cost.has_pre);
		rt_evlog_reader_free(r);
	}
	free(b.p);
	tmpdir_free(dir);
}

/* ---- malformed files ---------------------------------------------------- */

/* A split that does not fit its curve. */
TEST_CASE(malformed_split)
{
	static const struct { uint32_t n; uint64_t pre; const char *why; } bad[] = {
		{ 2, 1, "calibration split does not match the curve" },
		{ 1, 7, "calibration split larger than the cost" },
	};
	char *dir = tmpdir_new();
	struct bytes b = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(bad) && !*T_PASS; i++) {
		char want[160];
		size_t at;

		b.n = 0;
		b_header(&b, RT_EVLOG_VERSION, 16);
		at = b_begin(&b, BLK_SESSION);
		b_u64(&b, 1);
		b_u64(&b, 2);
		b_u64(&b, 3);
		b_u32(&b, 4);
		b_u32(&b, 0);
		b_str(&b, "cmd");
		b_str(&b, "/");
		b_str(&b, "host");
		b_str(&b, "v");
		b_u32(&b, 1);
		b_u64(&b, 5);
		b_u64(&b, 6);
		b_u32(&b, bad[i].n);
		for (uint32_t k = 0; k < bad[i].n; k++)
			b_u64(&b, bad[i].pre);
		b_end(&b, at);
		snprintf(want, sizeof(want), "%%s: malformed session block "
			 "(%s)", bad[i].why);
		expect_bytes_error(T_PASS, dir, b.p, b.n, -EBADMSG, want);
	}
	free(b.p);
	tmpdir_free(dir);
}

TEST_CASE(malformed_header_or_session)
{
	char *dir = tmpdir_new();
	struct bytes b = { 0 };
	uint32_t bad = 8;
	size_t at;

	b_header(&b, RT_EVLOG_VERSION, 16);
	memcpy(b.p + 12, &bad, 4);
	expect_bytes_error(T_PASS, dir, b.p, b.n, -EBADMSG, "%s: malformed "
			   "log header (version 2, header length 8)");
	memset(b.p + 8, 0, 4);
	expect_bytes_error(T_PASS, dir, b.p, b.n, -EBADMSG, "%s: malformed "
			   "log header (version 0, header length 8)");

	b.n = 0;
	b_header(&b, RT_EVLOG_VERSION, 16);
	b_events(&b, 0, 1);
	expect_bytes_error(T_PASS, dir, b.p, b.n, -EBADMSG, "%s: malformed "
			   "session block (the first block is not a session "
			   "block)");

	b.n = 16;
	at = b_begin(&b, BLK_SESSION);
	b_raw(&b, "0123456789", 10);
	b_end(&b, at);
	expect_bytes_error(T_PASS, dir, b.p, b.n, -EBADMSG, "%s: malformed "
			   "session block (a field runs past the end of its "
			   "block)");

	b.n = 16;
	at = b_begin(&b, BLK_SESSION);
	b_raw(&b, "0123456789012345678901234567890_", 32);
	b_u32(&b, 2u << 20);
	b_raw(&b, "0123456789", 10);
	b_end(&b, at);
	expect_bytes_error(T_PASS, dir, b.p, b.n, -EBADMSG, "%s: malformed "
			   "session block (a string is longer than 1 MiB)");

	b.n = 16;
	b_u32(&b, BLK_SESSION);
	b_u32(&b, 0xf0000000);
	expect_bytes_error(T_PASS, dir, b.p, b.n, -EBADMSG, "%s: malformed "
			   "session block (absurd block length)");

	b.n = 16;
	b_u32(&b, BLK_SESSION);
	b_u32(&b, 100);
	b_raw(&b, "01234567890123456789", 20);
	expect_bytes_error(T_PASS, dir, b.p, b.n, -EBADMSG, "%s: log is cut "
			   "short inside its header (session block: 20 of 100 "
			   "bytes)");
	free(b.p);
	tmpdir_free(dir);
}

/* Reads to the end; returns the last rt_evlog_next() result. */
static int drain_count(struct rt_evlog_reader *r, long *n)
{
	struct rt_event ev;
	int rc;

	*n = 0;
	while ((rc = rt_evlog_next(r, &ev)) == 1)
		(*n)++;
	return rc;
}

/* Five events, then @bad (a block header and what follows); the bad block
 * starts at offset 309: 16 header + 8+84 session + 8+200 events. */
static void expect_bad_block(T_ARGS, const char *dir, const void *bad,
			     size_t n, const char *text)
{
	struct rt_evlog_reader *r = NULL;
	struct bytes b = { 0 };
	struct capture cap;
	char *msg;
	long got, again;
	int rc, rc2, rc3;
	bool ok;

	b_header(&b, RT_EVLOG_VERSION, 16);
	b_session_split(&b, false, 0);
	b_events(&b, 0, 5);
	b_raw(&b, bad, n);
	b_events(&b, 5, 6);
	TEST_EQ(open_bytes(dir, &b, &r, &msg), 0);
	free(msg);
	free(b.p);
	capture_begin(&cap, dir);
	rc = drain_count(r, &got);
	rc2 = rt_evlog_next(r, &(struct rt_event){ 0 });
	rt_evlog_rewind(r);
	rc3 = drain_count(r, &again);
	msg = capture_end(&cap);
	rt_evlog_reader_free(r);
	/* One line per pass: the error is sticky, not repeated. */
	ok = strstr(msg, text) && count_lines(msg) == 2;
	if (!ok)
		fprintf(stderr, "  printed: %s", msg);
	free(msg);
	TEST_TRUE(ok);
	TEST_EQ(got, 5);
	TEST_EQ(again, 5);
	TEST_EQ(rc, -EBADMSG);
	TEST_EQ(rc2, -EBADMSG);
	TEST_EQ(rc3, -EBADMSG);
}

TEST_CASE(malformed_blocks)
{
	char *dir = tmpdir_new();
	struct bytes b = { 0 };
	size_t at;

	at = b_begin(&b, BLK_EVENTS);
	b_raw(&b, "0123456789012345678901234567890123456789X", 41);
	b_end(&b, at);
	expect_bad_block(T_PASS, dir, b.p, b.n, "malformed log: event block "
			 "at offset 309: length is not a whole number of "
			 "records");

	b.n = 0;
	b_u32(&b, BLK_FUNCS);
	b_u32(&b, 0x7fffffff);
	expect_bad_block(T_PASS, dir, b.p, b.n, "function table block at "
			 "offset 309: absurd block length");

	b.n = 0;
	at = b_begin(&b, BLK_FUNCS);
	b_u32(&b, UINT32_MAX);
	b_func_row(&b, 0, 0);
	b_end(&b, at);
	expect_bad_block(T_PASS, dir, b.p, b.n, "function table block at "
			 "offset 309: a field runs past the end of its block");

	b.n = 0;
	at = b_begin(&b, BLK_FUNCS);
	b_u32(&b, 1);
	b_func_row(&b, 0xfffffff0, 0);
	b_end(&b, at);
	expect_bad_block(T_PASS, dir, b.p, b.n, "a function id is far "
			 "beyond the number of rows");

	b.n = 0;
	at = b_begin(&b, BLK_THREAD);
	b_u32(&b, 1);
	b_u32(&b, 1);
	b_u32(&b, 0xfffffffe);
	b_end(&b, at);
	expect_bad_block(T_PASS, dir, b.p, b.n, "thread block at offset 309: "
			 "a string is longer than 1 MiB");

	b.n = 0;
	at = b_begin(&b, BLK_END);
	b_u64(&b, 1);
	b_end(&b, at);
	expect_bad_block(T_PASS, dir, b.p, b.n, "end block at offset 309: a "
			 "field runs past the end of its block");
	free(b.p);
	tmpdir_free(dir);
}

/* ---- packed blocks, built from docs/log-format.md ---------------------- */

/* Five events of two threads, one per line; every field coding once. */
static const uint8_t packed_example[] = {
	0x41, 0x05, 0x05, 0xd0, 0x0f, 0x80, 0x04, 0x06,
	0x12, 0x14, 0x1f, 0x00, 0x07,
	0xa1, 0x03, 0x04, 0x03, 0x0a, 0x3f, 0x01, 0x10,
	0x44, 0x06, 0x05, 0xa0, 0x1f, 0x80, 0x08, 0x01,
	0x72, 0x05, 0x02, 0x20, 0x00, 0x0f,
};

static const struct rt_event packed_want[] = {
	{ .ts = 1000, .sp = 0x100, .tid = 5, .pid = 5, .func = 3,
	  .kind = RT_EV_ENTRY, .nstops = 1 },
	{ .ts = 1010, .sp = 0xf0, .value = 7, .tid = 5, .pid = 5, .func = 3,
	  .kind = RT_EV_EXIT, .nstops = 1 },
	{ .ts = 1015, .sp = 0xd0, .value = 0xd8, .tid = 5, .pid = 5,
	  .func = 2, .kind = RT_EV_ENTRY, .flags = 4, .nstops = 3 },
	{ .ts = 2000, .sp = 0x200, .tid = 6, .pid = 5, .func = RT_FUNC_NONE,
	  .kind = RT_EV_THREAD_START, .nstops = 1 },
	{ .ts = 1016, .sp = 0xe0, .value = 0xd0, .tid = 5, .pid = 5,
	  .func = 2, .kind = RT_EV_EXIT, .flags = 4, .nstops = 3 },
};

TEST_CASE(packed_by_hand)
{
	char *dir = tmpdir_new();
	struct rt_evlog_reader *r = NULL;
	struct bytes b = { 0 };
	struct rt_event ev;
	size_t at, k = 0;
	char *msg;

	b_header(&b, 2, 16);
	b_session(&b, 0);
	at = b_begin(&b, BLK_PACKED);
	b_raw(&b, packed_example, sizeof(packed_example));
	b_end(&b, at);
	TEST_EQ(open_bytes(dir, &b, &r, &msg), 0);
	free(msg);
	while (k < ARRAY_SIZE(packed_want) && rt_evlog_next(r, &ev) == 1) {
		if (!event_eq(&ev, &packed_want[k]))
			fprintf(stderr, "  packed event %zu differs\n", k);
		TEST_TRUE(event_eq(&ev, &packed_want[k]));
		k++;
	}
	TEST_EQ(k, ARRAY_SIZE(packed_want));
	TEST_EQ(rt_evlog_next(r, &ev), 0);
	TEST_TRUE(!rt_evlog_cut(r));
	rt_evlog_reader_free(r);
	free(b.p);
	tmpdir_free(dir);
}

/* A tid that names another process (reused after its thread ended) and
 * more threads than a block holds: the writer starts new blocks, and
 * every event reads back as written. */
TEST_CASE(packed_new_blocks)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/reuse.rtrace", dir);
	struct rt_evlog_writer *w = NULL;
	struct rt_evlog_reader *r = NULL;
	struct rt_event ev;
	uint64_t n = 0, bad = 0;

	TEST_EQ(rt_evlog_create(path, NULL, &w), 0);
	for (uint32_t i = 0; i < 3000; i++) {
		ev = (struct rt_event){ .ts = 5000 + i, .sp = 0x7000 - i,
					.tid = i < 1000 ? 7 : i, .pid = i % 3,
					.func = i % 7, .kind = RT_EV_ENTRY,
					.nstops = 1 };
		rt_evlog_append(w, &ev);
	}
	TEST_EQ(rt_evlog_close(w, NULL), 0);
	TEST_EQ(rt_evlog_open(path, &r), 0);
	while (rt_evlog_next(r, &ev) == 1) {
		bad += ev.ts != 5000 + n || ev.sp != 0x7000 - n ||
		       ev.tid != (n < 1000 ? 7 : n) || ev.pid != n % 3 ||
		       ev.func != n % 7;
		n++;
	}
	TEST_EQ(n, 3000);
	TEST_EQ(bad, 0);
	TEST_TRUE(!rt_evlog_cut(r));
	rt_evlog_reader_free(r);
	free(path);
	tmpdir_free(dir);
}

/* Event @i of a run that reuses tid 7 in three processes, then brings
 * more threads than a block holds: blocks end mid-batch. */
static struct rt_event crowd_event(uint64_t i)
{
	return (struct rt_event){ .ts = 5000 + i, .sp = 0x7000 - i,
				  .tid = i < 1000 ? 7 : (uint32_t)i,
				  .pid = (uint32_t)(i / 300) % 3,
				  .func = (uint32_t)(i % 7),
				  .kind = RT_EV_ENTRY, .nstops = 1 };
}

/* Writes @n events of @gen into @path: with @batch, in batches of 1 to
 * 257 events, else one by one through rt_evlog_append(). */
static void write_events(T_ARGS, const char *path, uint64_t n,
			 struct rt_event (*gen)(uint64_t), bool batch)
{
	struct rt_evlog_writer *w = NULL;
	struct rt_event ev[257];
	size_t k;

	TEST_EQ(rt_evlog_create(path, NULL, &w), 0);
	for (uint64_t i = 0; i < n; i += k) {
		k = MIN(batch ? 1 + i % ARRAY_SIZE(ev) : 1, n - i);
		for (size_t j = 0; j < k; j++)
			ev[j] = gen(i + j);
		if (batch)
			rt_evlog_append_batch(w, ev, k);
		else
			rt_evlog_append(w, ev);
	}
	TEST_EQ(rt_evlog_nevents(w), n);
	TEST_EQ(rt_evlog_close(w, NULL), 0);
}

/* Batches write the bytes that single appends write, across flushes of
 * the buffer and blocks that end mid-batch, and every event reads back
 * as the generator made it. */
static void check_batches(T_ARGS, uint64_t n, struct rt_event (*gen)(uint64_t))
{
	char *dir = tmpdir_new();
	char *one = xasprintf("%s/one.rtrace", dir);
	char *many = xasprintf("%s/many.rtrace", dir);
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	struct rt_evlog_reader *r = NULL;
	struct rt_event ev, want;
	uint64_t k = 0, bad = 0;

	write_events(T_PASS, one, n, gen, false);
	write_events(T_PASS, many, n, gen, true);
	TEST_EQ(read_file(one, &a, &alen), 0);
	TEST_EQ(read_file(many, &b, &blen), 0);
	TEST_EQ(alen, blen);
	TEST_TRUE(alen == blen && memcmp(a, b, alen) == 0);
	TEST_EQ(rt_evlog_open(many, &r), 0);
	while (rt_evlog_next(r, &ev) == 1) {
		want = gen(k++);
		bad += !event_eq(&ev, &want);
	}
	TEST_EQ(k, n);
	TEST_EQ(bad, 0);
	rt_evlog_reader_free(r);
	free(a);
	free(b);
	free(one);
	free(many);
	tmpdir_free(dir);
}

TEST_CASE(packed_batches)
{
	/* some megabytes: the buffer is written out mid-batch */
	check_batches(T_PASS, 300000, make_event);
	check_batches(T_PASS, 3000, crowd_event);
	use_version(1);
	check_batches(T_PASS, 3000, make_event);
	use_version(2);
}

static void expect_bad_packed(T_ARGS, const char *dir, const void *p,
			      size_t n, const char *text)
{
	struct bytes b = { 0 };
	size_t at = b_begin(&b, BLK_PACKED);

	b_raw(&b, p, n);
	b_end(&b, at);
	expect_bad_block(T_PASS, dir, b.p, b.n, text);
	free(b.p);
}

TEST_CASE(malformed_packed)
{
	static const uint8_t long_varint[] = { 0x41, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0 };
	char *dir = tmpdir_new();

	expect_bad_packed(T_PASS, dir, "\x01\0\0\0", 4, "packed event block "
			  "at offset 309: the block's first event names no "
			  "thread");
	expect_bad_packed(T_PASS, dir, long_varint, sizeof(long_varint),
			  "a varint is longer than 64 bits");
	expect_bad_packed(T_PASS, dir, "\xc1\x80\x05\x05\0\0\0", 7,
			  "unknown bits in an event's second byte");
	expect_bad_packed(T_PASS, dir, "\x41\x05\x05", 3, "an event runs "
			  "past the end of its block");
	tmpdir_free(dir);
}

/* A table block longer than the file is a cut log, and costs nothing. */
TEST_CASE(huge_block_in_small_file_is_a_cut)
{
	char *dir = tmpdir_new();
	struct rt_evlog_reader *r = NULL;
	struct bytes b = { 0 };
	char *msg;
	long n;

	b_header(&b, RT_EVLOG_VERSION, 16);
	b_session(&b, 0);
	b_events(&b, 0, 3);
	b_u32(&b, BLK_FUNCS);
	b_u32(&b, 512u << 20);
	b_u32(&b, 1);
	b_func_row(&b, 0, 0);
	TEST_EQ(open_bytes(dir, &b, &r, &msg), 0);
	free(msg);
	TEST_EQ(drain_count(r, &n), 0);
	TEST_EQ(n, 3);
	TEST_TRUE(rt_evlog_cut(r));
	TEST_EQ(rt_evlog_nfuncs(r), 0);
	rt_evlog_reader_free(r);
	free(b.p);
	tmpdir_free(dir);
}

/* ---- random damage: the reader must never crash, and be repeatable ------ */

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void damage(uint8_t *p, size_t *n, uint64_t *seed)
{
	int flips = 1 + rng_next(seed) % 4;

	for (int i = 0; i < flips; i++) {
		size_t at = rng_next(seed) % *n;

		/* Favour the fields that steer the reader: lengths, ids. */
		if (rng_next(seed) % 2)
			p[at] = rng_next(seed) % 2 ? 0xff : 0x00;
		else
			p[at] ^= 1u << (rng_next(seed) % 8);
	}
	if (rng_next(seed) % 4 == 0)
		*n = rng_next(seed) % *n;
}

static void damaged_once(T_ARGS, const char *path, const uint8_t *p,
			 size_t n, size_t event_min)
{
	struct rt_evlog_reader *r = NULL;
	long first, second;
	int rc1, rc2;

	write_bytes(path, p, n);
	if (rt_evlog_open(path, &r) < 0)
		return;
	rc1 = drain_count(r, &first);
	TEST_EQ(rt_evlog_rewind(r), 0);
	rc2 = drain_count(r, &second);
	rt_evlog_reader_free(r);
	TEST_EQ(rc1, rc2);
	TEST_EQ(first, second);
	TEST_TRUE((uint64_t)first <= n / event_min);
}

static void random_damage_in(T_ARGS, int version)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/full.rtrace", dir);
	char *bad = xasprintf("%s/damaged.rtrace", dir);
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	char *bytes = NULL, *msg;
	struct capture cap;
	size_t size = 0;
	uint8_t *copy;

	use_version(version);
	write_small(T_PASS, path);
	use_version(2);
	TEST_EQ(read_file(path, &bytes, &size), 0);
	copy = xmalloc(size);
	capture_begin(&cap, dir);
	for (int i = 0; i < 3000 && !*T_PASS; i++) {
		size_t n = size;

		memcpy(copy, bytes, size);
		damage(copy, &n, &seed);
		damaged_once(T_PASS, bad, copy, n,
			     version == 1 ? RT_EVENT_SIZE : PACKED_MIN);
	}
	msg = capture_end(&cap);
	free(msg);
	free(copy);
	free(bytes);
	free(path);
	free(bad);
	tmpdir_free(dir);
}

TEST_CASE(random_damage)
{
	random_damage_in(T_PASS, 2);
}

TEST_CASE(random_damage_v1)
{
	random_damage_in(T_PASS, 1);
}

/* ---- a full disk -------------------------------------------------------- */

TEST_CASE(disk_full)
{
	char *dir = tmpdir_new();
	struct rt_evlog_writer *w = NULL;
	uint64_t nev = 0, ndrop = 0;
	int rc, rc_funcs = 0, rc_close = 0;
	struct capture cap;
	char *msg;

	capture_begin(&cap, dir);
	rc = rt_evlog_create("/dev/full", &test_info, &w);
	if (rc == 0) {
		write_funcs(w, 0, 3);
		append_range(w, 0, FIRST_EVENTS);
		rc_funcs = write_funcs(w, 3, 2);
		append_range(w, FIRST_EVENTS, FIRST_EVENTS + 10);
		nev = rt_evlog_nevents(w);
		ndrop = rt_evlog_ndropped(w);
		rc_close = rt_evlog_close(w, &test_end);
	}
	msg = capture_end(&cap);
	TEST_EQ(rc, 0);
	TEST_EQ(nev, 0);
	TEST_EQ(ndrop, FIRST_EVENTS + 10);
	TEST_EQ(rc_funcs, -ENOSPC);
	TEST_EQ(rc_close, -ENOSPC);
	TEST_EQ(count_lines(msg), 1);
	TEST_TRUE(strstr(msg, "cannot write the log: No space left on device; "
			 "recording stops, the program runs on"));
	free(msg);
	tmpdir_free(dir);
}

/* The error may only show when the last events are written, at close. */
TEST_CASE(disk_full_at_close)
{
	char *dir = tmpdir_new();
	struct rt_evlog_writer *w = NULL;
	struct capture cap;
	int rc, rc_close = 0;
	uint64_t nev = 0;
	char *msg;

	capture_begin(&cap, dir);
	rc = rt_evlog_create("/dev/full", &test_info, &w);
	if (rc == 0) {
		append_range(w, 0, 10);
		nev = rt_evlog_nevents(w);
		rc_close = rt_evlog_close(w, NULL);
	}
	msg = capture_end(&cap);
	TEST_EQ(rc, 0);
	TEST_EQ(nev, 10);
	TEST_EQ(rc_close, -ENOSPC);
	TEST_EQ(count_lines(msg), 1);
	free(msg);
	tmpdir_free(dir);
}

TEST_CASE(create_fails)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/no/such/dir.rtrace", dir);
	struct rt_evlog_writer *w = NULL;
	struct capture cap;
	char *msg;
	int rc;

	capture_begin(&cap, dir);
	rc = rt_evlog_create(path, &test_info, &w);
	msg = capture_end(&cap);
	TEST_EQ(rc, -ENOENT);
	TEST_TRUE(w == NULL);
	TEST_TRUE(strstr(msg, "cannot create "));
	TEST_EQ(count_lines(msg), 1);
	free(msg);
	free(path);
	tmpdir_free(dir);
}

/* ---- the tap and the stream reader ------------------------------------- */

/* Feeds @c to a stream reader one part at a time, reading every event
 * after each: the events, tables and end must be those of the file. */
static void read_stream(T_ARGS, const struct chunks *c)
{
	struct rt_evlog_reader *r = NULL;
	long got, total = 0;

	TEST_TRUE(c->n >= 3);
	TEST_EQ(rt_evlog_open_stream(c->v[0], c->len[0], "stream", &r), 0);
	check_info(T_PASS, rt_evlog_info(r));
	for (size_t i = 0; i < c->n && !*T_PASS; i++) {
		if (i)
			rt_evlog_feed(r, c->v[i], c->len[i]);
		got = read_events(r, total, UINT64_MAX);
		if (got < 0)
			TEST_FAIL__("part %zu of %zu", i, c->n);
		total += got;
		TEST_TRUE(!rt_evlog_cut(r));
	}
	TEST_EQ(total, BIG_EVENTS);
	check_tail(T_PASS, r);
	rt_evlog_reader_free(r);
}

/* The file's blocks one by one, the file header with the first. */
static void split_blocks(const char *path, struct chunks *c)
{
	struct layout l;
	char *bytes;
	size_t size;

	if (read_file(path, &bytes, &size))
		return;
	walk((const uint8_t *)bytes, size, &l);
	for (size_t i = 0; i < l.n; i++) {
		uint64_t from = i ? l.b[i].at : 0;

		collect(c, (const uint8_t *)bytes + from, l.b[i].end - from);
	}
	free(bytes);
}

TEST_CASE(tap_feeds_a_stream)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/big.rtrace", dir);
	struct chunks tap = { 0 }, blocks = { 0 };

	write_big_tapped(T_PASS, path, &tap, true);
	TEST_TRUE(!tap.overflow);
	/* the tap's parts, then the file's blocks one at a time */
	read_stream(T_PASS, &tap);
	split_blocks(path, &blocks);
	TEST_EQ(blocks.len[0] > 16, 1);
	read_stream(T_PASS, &blocks);
	chunks_free(&tap);
	chunks_free(&blocks);
	free(path);
	tmpdir_free(dir);
}

TEST_CASE(events_to_the_tap_only)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/big.rtrace", dir);
	struct rt_evlog_reader *r = NULL;
	struct chunks tap = { 0 };
	struct stat st;

	write_big_tapped(T_PASS, path, &tap, false);
	read_stream(T_PASS, &tap);
	chunks_free(&tap);
	/* the file has the tables and the end, and no event */
	TEST_EQ(rt_evlog_open(path, &r), 0);
	TEST_EQ(read_events(r, 0, UINT64_MAX), 0);
	check_tail(T_PASS, r);
	TEST_EQ(rt_evlog_profile_only(r), 0);
	rt_evlog_reader_free(r);
	TEST_EQ(stat(path, &st), 0);
	TEST_TRUE(st.st_size < 4 << 20);
	free(path);
	tmpdir_free(dir);
}

TEST_CASE(profile_block_kept)
{
	static const uint8_t payload[] = "opaque profile bytes";
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/p.rtrace", dir);
	struct rt_evlog_writer *w = NULL;
	struct rt_evlog_reader *r = NULL;
	const uint8_t *got;
	size_t n;

	TEST_EQ(rt_evlog_create(path, &test_info, &w), 0);
	TEST_EQ(write_funcs(w, 0, 3), 0);
	rt_evlog_keep_events(w, false);
	append_range(w, 0, 100);
	TEST_EQ(rt_evlog_write_profile(w, payload, sizeof(payload)), 0);
	TEST_EQ(rt_evlog_close(w, &test_end), 0);
	TEST_EQ(rt_evlog_open(path, &r), 0);
	TEST_TRUE(rt_evlog_profile(r, &n) == NULL);
	TEST_EQ(rt_evlog_profile_only(r), 1);
	got = rt_evlog_profile(r, &n);
	TEST_EQ(n, sizeof(payload));
	TEST_MEMEQ(got, payload, n);
	TEST_TRUE(rt_evlog_end(r) != NULL);
	rt_evlog_reader_free(r);
	free(path);
	tmpdir_free(dir);
}

/* Two processes' LOST blocks between events: each function gets its share
 * (a share past what the block has left is cut to it, an unknown id's is
 * the run's only), the totals add up, a rewind counts nothing twice, and
 * a log cut after the first block still says it. */
TEST_CASE(lost_blocks_add_up)
{
	static const struct rt_log_lost_fn first[] = { { 1, 4 }, { 9, 3 } };
	static const struct rt_log_lost_fn second[] = { { 2, 5 } };
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/l.rtrace", dir);
	struct rt_evlog_writer *w = NULL;
	struct rt_evlog_reader *r = NULL;
	const struct rt_log_losses *l;
	struct stat st;
	long n;

	TEST_EQ(rt_evlog_create(path, &test_info, &w), 0);
	TEST_EQ(write_funcs(w, 0, 3), 0);
	append_range(w, 0, 100);
	TEST_EQ(rt_evlog_write_lost(w, 5, RT_LOSS_SILENT, 10, first, 2), 0);
	append_range(w, 100, 200);
	TEST_EQ(rt_evlog_flush(w), 0);
	TEST_EQ(stat(path, &st), 0);
	TEST_EQ(rt_evlog_write_lost(w, 6, RT_LOSS_NOSLOT, 2, second, 1), 0);
	TEST_EQ(rt_evlog_close(w, &test_end), 0);
	TEST_EQ(rt_evlog_open(path, &r), 0);
	TEST_TRUE(rt_evlog_losses(r) == NULL);
	TEST_EQ(drain_count(r, &n), 0);
	TEST_EQ(n, 200);
	for (int pass = 0; pass < 2; pass++) {
		l = rt_evlog_losses(r);
		TEST_TRUE(l != NULL);
		TEST_EQ(l->events, 12);
		TEST_EQ(l->unattributed, 6);
		TEST_EQ(l->reasons, RT_LOSS_SILENT | RT_LOSS_NOSLOT);
		TEST_EQ(l->processes, 2);
		TEST_EQ(rt_evlog_func(r, 0)->lost, 0);
		TEST_EQ(rt_evlog_func(r, 1)->lost, 4);
		TEST_EQ(rt_evlog_func(r, 2)->lost, 2);
		TEST_EQ(rt_evlog_rewind(r), 0);
		TEST_EQ(drain_count(r, &n), 0);
	}
	rt_evlog_reader_free(r);
	/* cut where the first flush ended: the first block is in */
	TEST_EQ(truncate(path, st.st_size), 0);
	TEST_EQ(rt_evlog_open(path, &r), 0);
	TEST_EQ(drain_count(r, &n), 0);
	l = rt_evlog_losses(r);
	TEST_TRUE(l != NULL && l->events == 10 && l->processes == 1);
	TEST_TRUE(rt_evlog_end(r) == NULL);
	rt_evlog_reader_free(r);
	free(path);
	tmpdir_free(dir);
}

/* ---- the flight recorder ------------------------------------------------ */

#define WIN_EVENTS 1000000	/* tens of blocks of a 1 MiB window */

/*
 * A flight recorder (a time window when @ns, else a size) of WIN_EVENTS
 * events, a thread named halfway: the log's events are exactly the last
 * ones appended, in order, as its window record says, and the tables
 * are all there.
 */
static void keep_last_in(T_ARGS, uint64_t ns, uint64_t bytes, int version)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/window.rtrace", dir);
	struct rt_log_info info = test_info;
	struct rt_log_end end = test_end;
	const struct rt_log_window *win;
	struct rt_evlog_writer *w = NULL;
	struct rt_evlog_reader *r = NULL;
	uint64_t first, last_ts = make_event(WIN_EVENTS - 1).ts;
	struct stat st;

	info.flags |= RT_LOG_WINDOW;
	end.end_ns = last_ts + 5000;
	use_version(version);
	TEST_EQ(rt_evlog_create(path, &info, &w), 0);
	use_version(2);
	TEST_EQ(rt_evlog_keep_last(w, ns, bytes), 0);
	TEST_EQ(write_funcs(w, 0, 40), 0);
	append_range(w, 0, WIN_EVENTS / 2);
	TEST_EQ(rt_evlog_write_thread(w, 101, 100, "late", 0), 0);
	append_range(w, WIN_EVENTS / 2, WIN_EVENTS);
	TEST_EQ(rt_evlog_nevents(w), WIN_EVENTS);
	TEST_EQ(rt_evlog_close(w, &end), 0);

	TEST_EQ(rt_evlog_open(path, &r), 0);
	win = rt_evlog_window(r);
	TEST_TRUE(win != NULL);
	/* make_event(i).ts = 1000000 + 7 i */
	first = (win->first_ts - 1000000) / 7;
	TEST_EQ(make_event(first).ts, win->first_ts);
	TEST_TRUE(first > 0);
	TEST_EQ(read_events(r, first, UINT64_MAX), WIN_EVENTS - first);
	TEST_EQ(win->events, WIN_EVENTS - first);
	TEST_EQ(win->dropped_events, first);
	TEST_TRUE(win->dropped_blocks > 0);
	TEST_EQ(win->last_ts, last_ts);
	TEST_EQ(win->end_ns, end.end_ns);
	TEST_EQ(win->keep_ns, ns);
	TEST_EQ(win->keep_bytes, ns ? 0 : bytes);
	TEST_TRUE(rt_evlog_end(r) != NULL);
	TEST_TRUE(!rt_evlog_cut(r));
	TEST_EQ(rt_evlog_nfuncs(r), 40);
	TEST_STREQ(rt_evlog_thread_name(r, 101), "late");
	TEST_EQ(stat(path, &st), 0);
	if (ns) {
		/* whole blocks: at least the time asked, and less than a
		 * block's worth more (a block spans well under 1 ms here) */
		TEST_TRUE(last_ts - win->first_ts >= ns);
		TEST_TRUE(last_ts - win->first_ts < ns + 1000000);
	} else {
		TEST_TRUE(win->bytes <= bytes);
		TEST_TRUE(win->bytes >= bytes / 2);
		TEST_TRUE((uint64_t)st.st_size < bytes + 65536);
	}
	rt_evlog_reader_free(r);
	free(path);
	tmpdir_free(dir);
}

TEST_CASE(keep_last_size)
{
	keep_last_in(T_PASS, 0, 1 << 20, 2);
}

TEST_CASE(keep_last_size_v1)
{
	keep_last_in(T_PASS, 0, 2 << 20, 1);
}

TEST_CASE(keep_last_time)
{
	keep_last_in(T_PASS, 1000000, 0, 2);
}

/* A flight recorder that never reached its end keeps no event, and says
 * so: no window. */
TEST_CASE(keep_last_without_end)
{
	char *dir = tmpdir_new();
	char *path = xasprintf("%s/window.rtrace", dir);
	struct rt_log_info info = test_info;
	struct rt_evlog_writer *w = NULL;
	struct rt_evlog_reader *r = NULL;

	info.flags |= RT_LOG_WINDOW;
	TEST_EQ(rt_evlog_create(path, &info, &w), 0);
	TEST_EQ(rt_evlog_keep_last(w, 0, 1 << 20), 0);
	TEST_EQ(write_funcs(w, 0, 40), 0);
	append_range(w, 0, 100000);
	TEST_EQ(rt_evlog_close(w, NULL), 0);
	TEST_EQ(rt_evlog_open(path, &r), 0);
	TEST_TRUE(rt_evlog_window(r) == NULL);
	TEST_EQ(read_events(r, 0, UINT64_MAX), 0);
	TEST_EQ(rt_evlog_nfuncs(r), 40);
	rt_evlog_reader_free(r);
	free(path);
	tmpdir_free(dir);
}
