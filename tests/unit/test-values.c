// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The scalar writers of typed values on synthetic bytes: integers of every
 * width and sign at their limits, chars and strings escaped as Rust's
 * {:?} escapes them (the expected texts are Rust's documented escapes:
 * \t \r \n \0 \\ \" \' and \u{..} for other control characters), floats
 * as Rust's {:?} writes f64 and f32 (shortest digits that read back;
 * decimal with a fractional digit from 1e-4 up to 1e16, exponent form
 * outside: what `println!("{:?}", x)` printed for each of these values
 * with rustc 1.95).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/values.h"
#include "unittest.h"

static char out[512];

/* Runs @put on a memory stream; out holds what it wrote. */
#define WRITTEN(put)                                                           \
	do {                                                                   \
		FILE *f__ = fmemopen(out, sizeof(out), "w");                   \
		put;                                                           \
		fclose(f__);                                                   \
	} while (0)

static const char *int_of(const void *b, size_t size, bool sign)
{
	WRITTEN(rt_values_put_int(f__, b, size, sign));
	return out;
}

TEST_CASE(integers)
{
	int8_t i8 = -128;
	uint8_t u8 = 255;
	int16_t i16 = -30000;
	uint32_t u32 = 4000000000u;
	int64_t i64 = INT64_MIN;
	uint64_t u64 = UINT64_MAX;
	__int128 i128 = (__int128)((unsigned __int128)1 << 127);
	unsigned __int128 u128 = ~(unsigned __int128)0;

	TEST_STREQ(int_of(&i8, 1, true), "-128");
	TEST_STREQ(int_of(&i8, 1, false), "128");
	TEST_STREQ(int_of(&u8, 1, false), "255");
	TEST_STREQ(int_of(&u8, 1, true), "-1");
	TEST_STREQ(int_of(&i16, 2, true), "-30000");
	TEST_STREQ(int_of(&u32, 4, false), "4000000000");
	TEST_STREQ(int_of(&i64, 8, true), "-9223372036854775808");
	TEST_STREQ(int_of(&u64, 8, false), "18446744073709551615");
	TEST_STREQ(int_of(&i128, 16, true),
		   "-170141183460469231731687303715884105728");
	TEST_STREQ(int_of(&u128, 16, false),
		   "340282366920938463463374607431768211455");
	u64 = 0;
	TEST_STREQ(int_of(&u64, 8, true), "0");
}

static const char *f64_of(double x)
{
	WRITTEN(rt_values_put_float(f__, (const uint8_t *)&x, sizeof(x)));
	return out;
}

static const char *f32_of(float x)
{
	WRITTEN(rt_values_put_float(f__, (const uint8_t *)&x, sizeof(x)));
	return out;
}

TEST_CASE(floats)
{
	TEST_STREQ(f64_of(1.0), "1.0");
	TEST_STREQ(f64_of(100.0), "100.0");
	TEST_STREQ(f64_of(-2.25), "-2.25");
	TEST_STREQ(f64_of(0.1), "0.1");
	TEST_STREQ(f64_of(0.1 + 0.2), "0.30000000000000004");
	TEST_STREQ(f64_of(123456.789), "123456.789");
	TEST_STREQ(f64_of(1e15), "1000000000000000.0");
	TEST_STREQ(f64_of(1e16), "1e16");
	TEST_STREQ(f64_of(1.5e300), "1.5e300");
	TEST_STREQ(f64_of(0.0001), "0.0001");
	TEST_STREQ(f64_of(1e-5), "1e-5");
	TEST_STREQ(f64_of(5e-324), "5e-324");
	TEST_STREQ(f64_of(0.0), "0.0");
	TEST_STREQ(f64_of(-0.0), "-0.0");
	TEST_STREQ(f64_of(NAN), "NaN");
	TEST_STREQ(f64_of(-INFINITY), "-inf");
	TEST_STREQ(f32_of(0.1f), "0.1");
	TEST_STREQ(f32_of(1.0f / 3.0f), "0.33333334");
	TEST_STREQ(f32_of(16777216.0f), "16777216.0");
	TEST_STREQ(f32_of(3.4028235e38f), "3.4028235e38");
	TEST_STREQ(f32_of(1e-4f), "0.0001");
	TEST_STREQ(f32_of(9.999999e-5f), "9.999999e-5");
	TEST_STREQ(f32_of(INFINITY), "inf");
}

static const char *char_of(uint32_t c)
{
	WRITTEN(rt_values_put_char(f__, c));
	return out;
}

TEST_CASE(chars)
{
	TEST_STREQ(char_of('x'), "'x'");
	TEST_STREQ(char_of('\''), "'\\''");
	TEST_STREQ(char_of('"'), "'\"'");
	TEST_STREQ(char_of('\n'), "'\\n'");
	TEST_STREQ(char_of(0), "'\\0'");
	TEST_STREQ(char_of(0x1b), "'\\u{1b}'");
	TEST_STREQ(char_of(0xe9), "'\xc3\xa9'");          /* é */
	TEST_STREQ(char_of(0x1f600), "'\xf0\x9f\x98\x80'");
	TEST_STREQ(char_of(0xd800), "<invalid char 0xd800>");
}

static const char *text_of(const char *s, size_t len, bool more)
{
	WRITTEN(rt_values_put_text(f__, (const uint8_t *)s, len, more));
	return out;
}

TEST_CASE(text)
{
	TEST_STREQ(text_of("a \"q\"\tb\n", 8, false), "\"a \\\"q\\\"\\tb\\n\"");
	TEST_STREQ(text_of("it's", 4, false), "\"it's\"");
	TEST_STREQ(text_of("\\\r\x7f", 3, false), "\"\\\\\\r\\u{7f}\"");
	TEST_STREQ(text_of("caf\xc3\xa9", 5, false), "\"caf\xc3\xa9\"");
	/* cut inside é by the bound: the byte is shown, not decoded */
	TEST_STREQ(text_of("caf\xc3\xa9", 4, true), "\"caf\\xc3\"...");
	TEST_STREQ(text_of("", 0, false), "\"\"");
}
