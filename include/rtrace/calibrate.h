/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What one ptrace stop costs the traced program, measured on this machine
 * at start-up and stored in the log header, so that the analysis can
 * subtract it from the times of the calls.
 */
#ifndef RTRACE_CALIBRATE_H
#define RTRACE_CALIBRATE_H

#include <stdint.h>

/* Runs a child that times a loop of breakpoints against the same loop
 * without them while rtrace handles each stop like a probe hit; *ns gets the
 * trimmed-mean extra time per stop (a few milliseconds in all).  Returns 0, or
 * -errno (then *ns is 0 and times are not compensated). */
int rt_calibrate_stop_cost(uint64_t *ns);

#endif
