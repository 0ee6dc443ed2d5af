/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every fuzz harness shares.  Each fuzz-<name>.c defines
 * LLVMFuzzerTestOneInput(), and may define LLVMFuzzerInitialize().  Linked
 * with -fsanitize=fuzzer (clang, RTRACE_FUZZ=ON) it is a libFuzzer target;
 * linked with replay.c (any compiler, every build) it replays the seed and
 * regression corpora as a plain test.
 *
 * FUZZ_CHECK() states a property the module promises; a violation aborts,
 * so that libFuzzer keeps the input as a crash, exactly as for a memory
 * error that the sanitizers catch.
 */
#ifndef RTRACE_FUZZ_H
#define RTRACE_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: property violated: %s\n",      \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/*
 * A scratch file for modules that take a path: created once, in
 * /dev/shm when it exists (no disk traffic at thousands of runs a
 * second), rewritten with each input.  Returns the path, or NULL.
 */
const char *fuzz_file_put(const uint8_t *data, size_t size);

#endif
