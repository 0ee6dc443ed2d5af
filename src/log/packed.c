// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The packed event codec (docs/log-format.md, "PACKED").  Consecutive
 * events of a thread differ little: a few microseconds, a few stack
 * frames, a nearby function id.  Coding each field as the zigzagged
 * difference from the thread's previous event turns them into one- or
 * two-byte varints, and fields that rarely change (flags, nstops, the
 * thread itself) cost a bit of the tag byte until they do.
 */
#include <string.h>

#include "packed.h"
#include "rtrace/util.h"

enum {
	TAG_KIND = 0x0f,	/* kind; 15: a kind byte follows */
	TAG_VAL_SHIFT = 4,	/* 2 bits: enum val_mode */
	TAG_THREAD = 0x40,	/* a tid follows (and a pid if new) */
	TAG_MORE = 0x80,	/* a byte of MORE_* bits follows */
	KIND_BYTE = 15,
	MORE_FLAGS = 0x01,	/* a flags byte follows */
	MORE_NSTOPS = 0x02,	/* an nstops varint follows */
	MORE_KNOWN = MORE_FLAGS | MORE_NSTOPS,
};

/* The encoder and what it calls are inlined into pk_encode_run()'s loop,
 * which codes the drained events: GCC otherwise keeps them as calls, a
 * call per event whose register saves cost the encoder a sixth of its
 * time. */
#define always_inline inline __attribute__((always_inline))

enum val_mode {
	VAL_ZERO = 0,		/* value is 0, nothing follows */
	VAL_RAW = 1,		/* varint value */
	VAL_SP = 2,		/* zigzag(value - sp): a stack address */
	VAL_LAST = 3,		/* zigzag(value - the thread's last nonzero
				 * value) */
};

static inline uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline unsigned vlen(uint64_t v)
{
	return (64 - __builtin_clzll(v | 1) + 6) / 7;
}

static inline uint8_t *vput(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

void pk_reset(struct pk_state *s)
{
	if (++s->gen == 0) {
		memset(s->slot, 0, sizeof(s->slot));
		s->gen = 1;
	}
	s->cur = NULL;
	s->nthreads = 0;
}

/* The thread's slot; a new one starts from zeros.  NULL when the block
 * already holds PK_THREADS_MAX threads. */
static struct pk_thread *thread_slot(struct pk_state *s, uint32_t tid,
				     bool *fresh)
{
	size_t i = hash64(tid) & (PK_SLOTS - 1);
	struct pk_thread *t;

	while (s->slot[i].gen == s->gen && s->slot[i].tid != tid)
		i = (i + 1) & (PK_SLOTS - 1);
	t = &s->slot[i];
	*fresh = t->gen != s->gen;
	if (!*fresh)
		return t;
	if (s->nthreads == PK_THREADS_MAX)
		return NULL;
	s->nthreads++;
	*t = (struct pk_thread){ .tid = tid, .gen = s->gen, .nstops = 1 };
	return t;
}

/* The cheapest of the value modes, and the number it codes. */
static always_inline enum val_mode val_pick(const struct pk_thread *t,
					    const struct rt_event *ev,
					    uint64_t *code)
{
	uint64_t sp = zz((int64_t)(ev->value - ev->sp));
	uint64_t last = zz((int64_t)(ev->value - t->value));
	enum val_mode m = VAL_RAW;

	*code = ev->value;
	if (!ev->value)
		return VAL_ZERO;
	if (vlen(sp) < vlen(*code)) {
		m = VAL_SP;
		*code = sp;
	}
	if (vlen(last) < vlen(*code)) {
		m = VAL_LAST;
		*code = last;
	}
	return m;
}

static always_inline size_t encode(struct pk_state *s, uint8_t *p,
				   const struct rt_event *ev)
{
	struct pk_thread *t = s->cur;
	bool named = !t || t->tid != ev->tid, fresh = false;
	uint8_t *q = p + 1, more = 0, tag;
	enum val_mode m;
	uint64_t val;

	if (named && !(t = thread_slot(s, ev->tid, &fresh)))
		return 0;
	if (fresh)
		t->pid = ev->pid;
	else if (t->pid != ev->pid)
		return 0;
	more = (ev->flags != t->flags ? MORE_FLAGS : 0) |
	       (ev->nstops != t->nstops ? MORE_NSTOPS : 0);
	m = val_pick(t, ev, &val);
	tag = MIN(ev->kind, KIND_BYTE) | m << TAG_VAL_SHIFT |
	      (named ? TAG_THREAD : 0) | (more ? TAG_MORE : 0);
	if (more)
		*q++ = more;
	if (named)
		q = vput(q, ev->tid);
	if (fresh)
		q = vput(q, ev->pid);
	if (more & MORE_FLAGS)
		*q++ = ev->flags;
	if (more & MORE_NSTOPS)
		q = vput(q, ev->nstops);
	if (ev->kind >= KIND_BYTE)
		*q++ = ev->kind;
	q = vput(q, zz((int64_t)(ev->ts - t->ts)));
	q = vput(q, zz((int64_t)(ev->sp - t->sp)));
	q = vput(q, zz((int32_t)(ev->func - t->func)));
	if (m != VAL_ZERO)
		q = vput(q, val);
	*p = tag;
	t->ts = ev->ts;
	t->sp = ev->sp;
	t->func = ev->func;
	t->flags = ev->flags;
	t->nstops = ev->nstops;
	if (ev->value)
		t->value = ev->value;
	s->cur = t;
	return q - p;
}

size_t pk_encode(struct pk_state *s, uint8_t *p, const struct rt_event *ev)
{
	return encode(s, p, ev);
}

size_t pk_encode_run(struct pk_state *s, uint8_t *p, size_t room,
		     const struct rt_event *ev, size_t n, size_t *used)
{
	uint8_t *q = p, *end = p + room;
	size_t i = 0, k;

	for (; i < n && end - q >= PK_EVENT_MAX; i++) {
		k = encode(s, q, &ev[i]);
		if (!k)
			break;
		q += k;
	}
	*used = q - p;
	return i;
}

/* Reads a varint: the byte after it, or NULL when it runs past @end or
 * (with *@why set) overflows 64 bits. */
static inline const uint8_t *vget(const uint8_t *p, const uint8_t *end,
				  uint64_t *v, const char **why)
{
	uint64_t x = 0;

	if (likely(p < end && *p < 0x80)) {
		*v = *p;
		return p + 1;
	}
	/* the tenth byte holds bit 63 and no more */
	for (unsigned sh = 0; p < end; sh += 7) {
		uint8_t b = *p++;

		if (sh == 63 && b > 1) {
			*why = "a varint is longer than 64 bits";
			return NULL;
		}
		x |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
	}
	return NULL;
}

#define GET(v)                                          \
	do {                                            \
		p = vget(p, end, &(v), why);            \
		if (!p)                                 \
			return *why ? -1 : 0;           \
	} while (0)

static long bad(const char **why, const char *what)
{
	*why = what;
	return -1;
}

/* The thread the event names: its tid, and its pid when it is new in
 * the block. */
static const uint8_t *named_thread(struct pk_state *s, const uint8_t *p,
				   const uint8_t *end, const char **why)
{
	uint64_t tid, pid;
	struct pk_thread *t;
	bool fresh;

	p = vget(p, end, &tid, why);
	if (!p)
		return NULL;
	if (tid > UINT32_MAX) {
		*why = "a thread id is larger than 32 bits";
		return NULL;
	}
	t = thread_slot(s, tid, &fresh);
	if (!t) {
		*why = "more than 1024 threads in one block";
		return NULL;
	}
	if (fresh) {
		p = vget(p, end, &pid, why);
		if (!p)
			return NULL;
		if (pid > UINT32_MAX) {
			*why = "a process id is larger than 32 bits";
			return NULL;
		}
		t->pid = pid;
	}
	s->cur = t;
	return p;
}

long pk_decode(struct pk_state *s, const uint8_t *p, const uint8_t *end,
	       struct rt_event *ev, const char **why)
{
	const uint8_t *start = p;
	uint64_t dts, dsp, dfunc, v = 0, nstops;
	struct pk_thread *t;
	uint8_t tag, more = 0;

	*why = NULL;
	if (p + 1 > end)
		return 0;
	tag = *p++;
	if (tag & TAG_MORE) {
		if (p == end)
			return 0;
		more = *p++;
		if (more & ~MORE_KNOWN)
			return bad(why, "unknown bits in an event's second byte");
	}
	if (tag & TAG_THREAD) {
		p = named_thread(s, p, end, why);
		if (!p)
			return *why ? -1 : 0;
	}
	t = s->cur;
	if (!t)
		return bad(why, "the block's first event names no thread");
	if (more & MORE_FLAGS) {
		if (p == end)
			return 0;
		t->flags = *p++;
	}
	if (more & MORE_NSTOPS) {
		GET(nstops);
		if (nstops > UINT16_MAX)
			return bad(why, "nstops is larger than 16 bits");
		t->nstops = nstops;
	}
	ev->kind = tag & TAG_KIND;
	if (ev->kind == KIND_BYTE) {
		if (p == end)
			return 0;
		ev->kind = *p++;
	}
	GET(dts);
	GET(dsp);
	GET(dfunc);
	if (dfunc > UINT32_MAX)
		return bad(why, "a function id difference is larger than 32 "
			   "bits");
	if (tag >> TAG_VAL_SHIFT & 3)
		GET(v);
	switch (tag >> TAG_VAL_SHIFT & 3) {
	case VAL_RAW:
		break;
	case VAL_SP:
		v = t->sp + unzz(dsp) + unzz(v);
		break;
	case VAL_LAST:
		v = t->value + unzz(v);
		break;
	}
	t->ts += unzz(dts);
	t->sp += unzz(dsp);
	t->func += (uint32_t)unzz(dfunc);
	if (v)
		t->value = v;
	ev->ts = t->ts;
	ev->sp = t->sp;
	ev->value = v;
	ev->tid = t->tid;
	ev->pid = t->pid;
	ev->func = t->func;
	ev->flags = t->flags;
	ev->nstops = t->nstops;
	return p - start;
}
