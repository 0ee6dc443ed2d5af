/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rt_inlined_falls_through() on raw x86-64 bytes: whether an inlined
 * instance's range is left only by running off its end, so that a probe
 * there times its calls.  The bytes are a caller's code, decoded as the
 * planner decodes it; the ranges are what DWARF would give.
 */
#include <stdint.h>

#include "rtrace/inlined.h"
#include "unittest.h"

#define AT 0x555555561000ULL

/* The caller's code: the instance is [1, 0xe), a loop with a call in
 * it, which leaves by falling into the pop at 0xe. */
#define CALLER(...)                                                            \
	0x53,                          /* 0: push rbx */                      \
	0x31, 0xc0,                    /* 1: xor eax, eax */                  \
	0xff, 0xc0,                    /* 3: inc eax (the loop's top) */      \
	0xe8, 0x00, 0x00, 0x00, 0x00,  /* 5: call 0xa */                      \
	__VA_ARGS__,                   /* a: 4 bytes */                       \
	0x5b,                          /* e: pop rbx */                       \
	0xc3                           /* f: ret */

/* Decodes @code at AT and asks about [AT + lo, AT + hi) entered at
 * AT + entry. */
static bool falls(const uint8_t *code, size_t len, size_t lo, size_t hi,
		  size_t entry)
{
	rt_insn_vec v = { 0 };
	bool r = false;

	if (rt_arch_decode(code, len, AT, &v))
		return false;
	/* the planner asks only when an instruction begins at lo */
	for (size_t i = 0; i < v.n; i++)
		if (v.v[i].addr == AT + lo)
			r = rt_inlined_falls_through(v.v + i, v.n - i, AT + hi,
						     AT + entry);
	vec_free(&v);
	return r;
}

#define FALLS(code, lo, hi, entry) falls(code, sizeof(code), lo, hi, entry)

TEST_CASE(loop_and_call_fall_through)
{
	static const uint8_t code[] = { CALLER(0x39, 0xf8,     /* cmp */
					       0x75, 0xf5) };  /* jne 3 */

	TEST_TRUE(FALLS(code, 1, 0xe, 1));
	/* the pop is plain code too: the end may be the ret */
	TEST_TRUE(FALLS(code, 1, 0xf, 1));
	/* a branch back to the entry would enter it again unleft */
	TEST_TRUE(!FALLS(code, 1, 0xe, 3));
}

TEST_CASE(bounds_must_be_instructions)
{
	static const uint8_t code[] = { CALLER(0x39, 0xf8, 0x75, 0xf5) };

	TEST_TRUE(!FALLS(code, 2, 0xe, 3));     /* lo inside xor */
	TEST_TRUE(!FALLS(code, 1, 0xd, 1));     /* hi inside jne */
	TEST_TRUE(!FALLS(code, 1, 0xe, 0));     /* entry before lo */
	TEST_TRUE(!FALLS(code, 1, 0xe, 0xe));   /* entry at hi */
	TEST_TRUE(!FALLS(code, 1, 1, 1));       /* empty */
	/* the ret is in the range, and nothing follows it */
	TEST_TRUE(!FALLS(code, 1, 0x10, 1));
}

TEST_CASE(jump_to_the_end_is_an_exit)
{
	static const uint8_t to_end[] = { CALLER(0x39, 0xf8,
						 0x74, 0x00) };  /* je e */
	static const uint8_t past[] = { CALLER(0x39, 0xf8,
					       0x74, 0x01) };    /* je f */

	TEST_TRUE(FALLS(to_end, 1, 0xe, 1));
	TEST_TRUE(!FALLS(past, 1, 0xe, 1));
}

TEST_CASE(leaving_otherwise_is_refused)
{
	static const uint8_t indirect[] = { CALLER(0xff, 0xe0,   /* jmp rax */
						   0x90, 0x90) };
	static const uint8_t ret[] = { CALLER(0xc3, 0x90, 0x90, 0x90) };
	static const uint8_t tail[] = { CALLER(0xeb, 0xf4,      /* jmp 0 */
					       0x90, 0x90) };

	TEST_TRUE(!FALLS(indirect, 1, 0xe, 1));
	TEST_TRUE(!FALLS(ret, 1, 0xe, 1));
	TEST_TRUE(!FALLS(tail, 1, 0xe, 1));
}

/* A call that does not return, then ud2: nothing runs past the call. */
TEST_CASE(ud2_after_a_call_stays)
{
	static const uint8_t code[] = { CALLER(0x0f, 0x0b,       /* ud2 */
					       0x90, 0x90) };

	TEST_TRUE(FALLS(code, 1, 0xe, 1));
}
