/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The profile made while recording (--keep=none and the flight recorder):
 * the log writer's tap feeds a stream reader, the same analysis pass as a
 * report's turns its events into calls, and the same profile sink sums
 * them.  At the end, the summary and the rows become the bytes of the
 * log's profile block, which a report reads instead of the events.
 */
#ifndef RTRACE_PROFSAVE_H
#define RTRACE_PROFSAVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/analysis.h"
#include "rtrace/evlog.h"
#include "rtrace/profile.h"

/* The version inside the profile block; a newer one is refused. */
#define RT_PROFSAVE_VERSION 1

/* ---- the profile block's bytes ---------------------------------------- */

/* Serialises @sum and the rows of @p (split by thread) into a new buffer
 * *@out of *@n bytes, which the caller frees.  @raw_times says how the
 * times were made. */
void rt_profsave_encode(const struct rt_analysis_summary *sum,
			const struct rt_profile *p, bool raw_times,
			uint8_t **out, size_t *n);

/* Reads a profile block of log @path: fills @sum (release it with
 * rt_analysis_summary_release(); thread names live in it) and makes *@out
 * (free with rt_profile_free()).  *@raw_times tells how the times were
 * made.  Returns 0, or -EBADMSG after one line saying what is wrong. */
int rt_profsave_decode(const uint8_t *b, size_t n, const char *path,
		       struct rt_analysis_summary *sum,
		       struct rt_profile **out, bool *raw_times);

/* ---- the profile made from the writer's tap --------------------------- */

struct rt_proftap;

/* A profile fed by a log writer's tap, analysed with @opts (NULL for
 * the defaults); @name names the log in messages.  Free with
 * rt_proftap_free(). */
struct rt_proftap *rt_proftap_new(const char *name,
				  const struct rt_analysis_opts *opts);

/* The rt_evlog_tap_fn to give rt_evlog_set_tap() with the proftap as
 * its context: copies each block for the proftap's analysis thread. */
void rt_proftap_blocks(void *ctx, const uint8_t *bytes, size_t n);

/* Waits until every block given so far is analysed and keeps the
 * analysis still until rt_proftap_release(): around a fork() whose
 * child finishes its copy of @t.  Both accept NULL. */
void rt_proftap_hold(struct rt_proftap *t);
void rt_proftap_release(struct rt_proftap *t);

/* Ends the analysis at @end (NULL: the last event), once every block
 * given is analysed, and serialises the profile into *@out (*@n bytes,
 * the caller frees), ready for rt_evlog_write_profile().  0, or -errno
 * when the stream could not be read (logged). */
int rt_proftap_finish(struct rt_proftap *t, const struct rt_log_end *end,
		      uint8_t **out, size_t *n);

/* Frees the proftap; accepts NULL. */
void rt_proftap_free(struct rt_proftap *t);

#endif
