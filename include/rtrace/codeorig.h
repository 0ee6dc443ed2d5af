/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The original bytes of the code rtrace writes over, one record per byte
 * range it touches in an image.  Every write that puts code back (a
 * detach, a fork child's copy turned to breakpoints, a check) takes its
 * bytes from here, never from a decoded instruction's copy: a range may
 * begin or end inside an instruction (a relay in a patched region's
 * tail), and only the file knows the bytes on both sides of the cut.
 */
#ifndef RTRACE_CODEORIG_H
#define RTRACE_CODEORIG_H

#include <stddef.h>
#include <stdint.h>

#include "rtrace/arch.h"

struct rt_image;

/* The ranges of one image, sorted and disjoint.  Owned by the image;
 * freed by rt_code_orig_free(). */
struct rt_code_orig;

/* The original bytes of [@lo, @lo + @len) (run-time addresses) of @img:
 * the record's when it holds them, else the file's, else @before (the
 * bytes as read from the process before rtrace's first write there; may
 * be NULL), recorded for every later call.  Where a range overlaps
 * ranges recorded before, their bytes win (they were read first).
 * Returns a pointer owned by @img's record, valid until the next call,
 * or NULL when neither the file nor @before has the bytes. */
const uint8_t *rt_code_orig_get(struct rt_image *img, rt_raddr lo,
				size_t len, const uint8_t *before);

/* Frees @o and every range in it; NULL is fine. */
void rt_code_orig_free(struct rt_code_orig *o);

#endif
