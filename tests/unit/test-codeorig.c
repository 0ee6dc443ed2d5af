// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The record of original code bytes (codeorig.h): the file's bytes first,
 * whatever the process holds; bytes read before rtrace's first write where
 * the file has none; and where ranges overlap, the bytes recorded first.
 */
#include <string.h>

#include "fakeelf.h"
#include "rtrace/codeorig.h"
#include "rtrace/tasks.h"
#include "unittest.h"

#define BASE 0x401000ULL
#define BIAS 0x1000ULL   /* run-time = link-time + BIAS */
#define FAR (BASE + BIAS + 0x100000)  /* in no section of the file */

static uint8_t code[64];

static const struct fake_sym syms[] = {
	{ "work", BASE, sizeof(code), false },
};

static void open_image(struct rt_image *img)
{
	for (size_t i = 0; i < sizeof(code); i++)
		code[i] = (uint8_t)(0x40 + i);
	memset(img, 0, sizeof(*img));
	img->bias = BIAS;
	img->syms = fake_elf_symbols(&(struct fake_elf){
		.base = BASE, .code = code, .len = sizeof(code),
		.syms = syms, .nsyms = 1 });
}

static void close_image(struct rt_image *img)
{
	rt_code_orig_free(img->orig);
	rt_symbols_free(img->syms);
}

/* A range that starts inside an instruction gets the file's bytes on
 * both sides of the cut, whatever the process held when it was read. */
TEST_CASE(file_bytes_win)
{
	static const uint8_t ours[8] = { 0xe9, 1, 2, 3, 4, 0xcc, 0xcc, 0xcc };
	struct rt_image img;
	const uint8_t *b;

	open_image(&img);
	TEST_TRUE(img.syms != NULL);
	b = rt_code_orig_get(&img, BASE + BIAS + 13, 8, ours);
	TEST_TRUE(b != NULL);
	TEST_EQ(memcmp(b, code + 13, 8), 0);
	/* asked again, without the process's bytes: the same */
	b = rt_code_orig_get(&img, BASE + BIAS + 15, 4, NULL);
	TEST_TRUE(b != NULL);
	TEST_EQ(memcmp(b, code + 15, 4), 0);
	close_image(&img);
}

/* Where the file has nothing, the bytes read before the first write
 * stand in, and are kept: a later read of the process (rtrace's bytes
 * by then) never replaces them. */
TEST_CASE(first_read_is_kept)
{
	struct rt_image img;
	const uint8_t *b;

	open_image(&img);
	TEST_TRUE(rt_code_orig_get(&img, FAR, 4, NULL) == NULL);
	b = rt_code_orig_get(&img, FAR, 4, (const uint8_t *)"abcd");
	TEST_TRUE(b != NULL);
	TEST_EQ(memcmp(b, "abcd", 4), 0);
	b = rt_code_orig_get(&img, FAR, 4, (const uint8_t *)"XXXX");
	TEST_EQ(memcmp(b, "abcd", 4), 0);
	b = rt_code_orig_get(&img, FAR + 1, 2, NULL);
	TEST_EQ(memcmp(b, "bc", 2), 0);
	close_image(&img);
}

/* Overlapping ranges are composed in one: the recorded bytes win where
 * they overlap, the new ones fill the rest, and the whole is one range. */
TEST_CASE(overlaps_compose)
{
	struct rt_image img;
	const uint8_t *b;

	open_image(&img);
	rt_code_orig_get(&img, FAR, 4, (const uint8_t *)"abcd");
	rt_code_orig_get(&img, FAR + 8, 2, (const uint8_t *)"ij");
	b = rt_code_orig_get(&img, FAR + 2, 8, (const uint8_t *)"WXYZefgh");
	TEST_TRUE(b != NULL);
	TEST_EQ(memcmp(b, "cdYZefij", 8), 0);
	b = rt_code_orig_get(&img, FAR, 10, NULL);
	TEST_TRUE(b != NULL);
	TEST_EQ(memcmp(b, "abcdYZefij", 10), 0);
	close_image(&img);
}
