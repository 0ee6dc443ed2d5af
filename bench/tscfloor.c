// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tscfloor: what two reads of the time stamp counter cost, the floor
 * under any recorder that time-stamps a call's entry and its return.
 *
 *   tscfloor [N]    (default 10000000)
 *
 * Reads the counter twice per turn of a loop, N turns, and prints
 *
 *   tscfloor: N pairs, X ns per pair
 *
 * where X is the CLOCK_MONOTONIC time of the loop over N.  The readings
 * are summed and printed so that none can be dropped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	uint64_t sum = 0, t0, t1;

	if (!n)
		return 1;
	t0 = now_ns();
	for (uint64_t i = 0; i < n; i++) {
		sum += __rdtsc();
		sum ^= __rdtsc();
	}
	t1 = now_ns();
	printf("tscfloor: %llu pairs, %.2f ns per pair (%llx)\n",
	       (unsigned long long)n, (double)(t1 - t0) / (double)n,
	       (unsigned long long)sum);
	return 0;
}
