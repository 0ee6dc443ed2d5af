// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A main() for a fuzz harness without libFuzzer: runs
 * LLVMFuzzerTestOneInput() once on each file named on the command line, and
 * on each file of each directory named (in name order).  This is how the
 * seed corpora and every input a fuzzer ever crashed on run in `make test`,
 * built with the ordinary compiler.  Exits 0 when every input ran; a
 * crash or a FUZZ_CHECK() failure ends the process, naming the input.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Harnesses without set-up leave LLVMFuzzerInitialize() undefined. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		got = fread(buf + len, 1, cap - len, f);
		if (!got)
			break;
		len += got;
	}
	fclose(f);
	/* Announced first: if the input crashes, this is the last line. */
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	/* libFuzzer hands over a buffer of exactly @len bytes */
	LLVMFuzzerTestOneInput(len ? buf : (const uint8_t *)"", len);
	free(buf);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int run_dir(const char *dir, size_t *n)
{
	struct dirent **ents;
	int m = scandir(dir, &ents, NULL, by_name), rc = 0;

	if (m < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < m; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode)) {
			if (run_file(path) < 0)
				rc = -1;
			else
				(*n)++;
		}
		free(ents[i]);
	}
	free(ents);
	return rc;
}

int main(int argc, char **argv)
{
	size_t n = 0;
	int rc = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (run_dir(argv[i], &n) < 0)
				rc = 1;
		} else if (run_file(argv[i]) < 0) {
			rc = 1;
		} else {
			n++;
		}
	}
	printf("replay: %zu inputs, no crash\n", n);
	return rc;
}
