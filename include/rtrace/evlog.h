/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The event log: a self-describing binary file.  A 16-byte file header
 * (magic, format version) is followed by blocks, each a type and a length:
 * the session block (clock, per-stop cost, command line), function tables,
 * thread and process names, event blocks, and an end block.  Version 2
 * packs events (a tag byte and varints, per-thread differences); version 1
 * has 40-byte records, still read, and written with RTRACE_LOG_VERSION=1.
 * Events are buffered and written in large blocks.  A log cut short by a
 * crash is readable up to its last whole event.  docs/log-format.md
 * describes every field.
 */
#ifndef RTRACE_EVLOG_H
#define RTRACE_EVLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/raddr.h"

#define RT_EVLOG_VERSION 2

enum rt_event_kind {
	RT_EV_ENTRY = 1,        /* a function was entered */
	RT_EV_EXIT = 2,         /* a function returned */
	RT_EV_TAIL = 3,         /* a function left by a jump (tail call);
				 * value = target address, 0 if unknown */
	RT_EV_THREAD_START = 4, /* value = creating thread, 0 if none */
	RT_EV_THREAD_END = 5,   /* value = wait status when known */
	RT_EV_EXEC = 6,         /* the process replaced its image */
	RT_EV_DELAY = 7,        /* rtrace held the thread value ns longer
				 * than a stop costs (writing the log) */
	RT_EV_CALIB = 8,        /* a stop of this thread costs value ns now,
				 * measured in place */
	RT_EV_ARG = 9,          /* another argument of the entry just
				 * before it (a reallocation's pointer) */
};

/* One raw event as the tracer saw it; on disk, 40 bytes little-endian in
 * format version 1, packed in version 2. */
struct rt_event {
	uint64_t ts;      /* CLOCK_MONOTONIC ns */
	uint64_t sp;      /* stack pointer at the site */
	uint64_t value;   /* kind-specific */
	uint32_t tid;
	uint32_t pid;
	uint32_t func;    /* function id, or UINT32_MAX */
	uint8_t kind;     /* enum rt_event_kind */
	uint8_t flags;
	uint16_t nstops;  /* ptrace stops of this thread since its last
			   * event, this one included (saturating) */
};

#define RT_EVENT_SIZE 40
#define RT_FUNC_NONE UINT32_MAX

/* What one ptrace stop costs the program, as a curve: the cost grows with
 * the interval since the thread's previous stop (an idle CPU wakes up
 * slowly).  Points are sorted by interval; n = 0 means no calibration.
 * pre_ns: the part of each cost spent before the tracer read its clock
 * (the rest follows the event's time stamp); has_pre false (logs written
 * before it was measured) puts the whole cost before the time stamp. */
#define RT_STOP_COST_POINTS 8
struct rt_stop_cost {
	uint32_t n;
	bool has_pre;
	uint64_t interval_ns[RT_STOP_COST_POINTS];
	uint64_t cost_ns[RT_STOP_COST_POINTS];
	uint64_t pre_ns[RT_STOP_COST_POINTS];
};

/* The session block. */
struct rt_log_info {
	uint64_t start_ns;       /* CLOCK_MONOTONIC at launch */
	uint64_t start_real_ns;  /* CLOCK_REALTIME at launch */
	uint64_t stop_cost_ns;   /* cost of one stop among close ones */
	struct rt_stop_cost cost;  /* the full calibration curve */
	uint32_t pid;            /* first traced process */
	uint32_t flags;          /* RT_LOG_* */
	const char *cmdline;     /* program and arguments, space separated */
	const char *cwd;
	const char *host;
	const char *version;     /* rtrace version that wrote the log */
	bool cost_later;         /* writing: room for a curve that
				  * rt_evlog_set_cost() fills in (not in
				  * the file) */
};

enum rt_log_flags {
	RT_LOG_COUNT_ONLY = 1 << 0, /* entries only: counts, no times */
	RT_LOG_ATTACHED = 1 << 1,   /* joined a running process */
	RT_LOG_COVERAGE = 1 << 2,   /* each function's first call only */
	RT_LOG_WINDOW = 1 << 3,     /* a flight recorder (--keep=TIME|SIZE):
				     * the events are the last ones only, and
				     * a window record says which */
};

/* One row of a function table. */
struct rt_log_func {
	uint32_t id;
	uint32_t refusal;        /* enum rt_refusal; 0 = probed */
	rt_raddr addr;           /* run-time address */
	uint64_t size;
	unsigned line;
	const char *name;        /* demangled */
	const char *raw;         /* as in the binary */
	const char *module;      /* file the function lives in */
	const char *file;        /* source file, or NULL */
	uint32_t flags;          /* RT_FUNC_* */
	uint32_t sites;          /* probe sites: entry, returns, jumps out */
	uint32_t inline_sites;   /* of which the inline engine patched */
	uint32_t inlined_sites;  /* inlined instances probed: entries with
				  * RT_EVF_INLINED (not in sites) */
	uint32_t inlined_refused;  /* inlined instances not probed: their
				    * calls are missing from the counts */
	uint32_t inlined_why;    /* enum rt_refusal most of those had, or
				  * 0 */
	uint32_t inlined_packed; /* probed instances whose code is
				  * vectorised: each entry counted may be
				  * several calls */
	uint64_t lost;           /* the reader's: its events not recorded,
				  * from the LOST blocks read so far */
};

enum rt_func_flags {
	RT_FUNC_HELPER = 1 << 0,  /* not selected: probed only to end the
				   * frames that tail-jump into it */
	RT_FUNC_MEM_ALLOC = 1 << 1,   /* allocator: entry value = size,
				       * exit value = pointer */
	RT_FUNC_MEM_REALLOC = 1 << 2, /* entry value = size, argument =
				       * old pointer, exit value = pointer */
	RT_FUNC_MEM_FREE = 1 << 3,    /* entry value = pointer */
	RT_FUNC_GLOBAL_ALLOC = 1 << 4, /* not probed: the program's own
					* #[global_allocator] */
	RT_FUNC_INLINED_ONLY = 1 << 5, /* no out-of-line copy (addr and
					* size 0): only its inlined calls */
	RT_FUNC_BLOCKING = 1 << 6,     /* a libc call that may wait (with
					* RT_FUNC_HELPER: never a row): its
					* time is its caller's blocked time */
};

/* Bits of rt_event.flags. */
enum rt_event_flags {
	RT_EVF_HELPER = 1 << 0,   /* the exit of a helper function */
	RT_EVF_PARTIAL = 1 << 1,  /* an entry reconstructed at attach time:
				   * the call began earlier */
	RT_EVF_INLINE = 1 << 2,   /* written by the program itself through a
				   * patched site (inline engine), not at a
				   * stop */
	RT_EVF_INLINED = 1 << 3,  /* an entry or exit of an inlined call;
				   * value = the run-time entry address of
				   * the instance */
	RT_EVF_TIMED = 1 << 4,    /* with RT_EVF_INLINED, on an entry: the
				   * instance's exit is probed too, so the
				   * call opens a frame that an exit with
				   * the same function and value closes;
				   * without it, a call with no time */
	RT_EVF_RESUMED = 1 << 5,  /* with RT_EVF_INLINE, on an entry: the
				   * function's breakpoint stopped the
				   * program, and the entry was recorded in
				   * the program when it ran again (an
				   * resume trampoline): the stop precedes it */
};

/* One frame of a call stack, symbolised when it was recorded. */
struct rt_log_frame {
	rt_raddr pc;             /* the call's return address (the probe's
				  * address for frame 0) */
	unsigned line;
	const char *name;        /* demangled function, or "??" */
	const char *file;        /* source file, or NULL */
};

/* A call stack, frame 0 innermost; ids are dense from 1. */
struct rt_log_stack {
	uint32_t id;
	uint32_t n;
	struct rt_log_frame *frames;
};

/* How the session ended (the end block). */
enum rt_log_end_how {
	RT_END_EXITED = 1,      /* the program ran to its end */
	RT_END_INTERRUPTED = 2, /* rtrace was told to stop (signal, timer) */
	RT_END_DETACHED = 3,    /* rtrace detached from a running process */
	RT_END_FAILED = 4,      /* rtrace lost control of the program */
	RT_END_RUNNING = 5,     /* never in a log: an interim report's end,
				 * made while the trace goes on */
};

struct rt_log_end {
	uint64_t end_ns;
	int32_t status;          /* wait status of the first process */
	uint32_t how;            /* enum rt_log_end_how */
	uint64_t stops;          /* ptrace stops handled */
	uint64_t events;         /* events recorded */
	uint64_t dropped;        /* events lost (write errors, disk guard) */
	uint32_t flags;          /* RT_END_* */
};

enum rt_log_end_flags {
	RT_END_SPACE = 1 << 0,   /* recording stopped early: the disk guard
				  * found too little space left */
	RT_END_FSIZE = 1 << 1,   /* recording stopped early: the log came
				  * near rtrace's file size limit */
};

/* Why events were not recorded (a LOST block's reasons). */
enum rt_loss_reason {
	RT_LOSS_SILENT = 1 << 0,  /* rtrace did not answer for seconds
				   * (stopped, or too slow): the program
				   * turned recording off until it did */
	RT_LOSS_NOSLOT = 1 << 1,  /* more threads recorded at once than the
				   * event area has slots for */
	RT_LOSS_PROGRAM = 1 << 2, /* the program turned recording off (it
				   * wrote rtrace's event area) */
	RT_LOSS_DAMAGED = 1 << 3, /* the program wrote over its ring or its
				   * slot: events rtrace could not trust
				   * were dropped */
};

/* Events of one function not recorded, in a LOST block. */
struct rt_log_lost_fn {
	uint32_t id;
	uint64_t events;
};

/* Everything the LOST blocks of a log said, added up. */
struct rt_log_losses {
	uint64_t events;          /* events not recorded */
	uint64_t unattributed;    /* of which no function is known: any
				   * function's count may be low */
	uint32_t reasons;         /* enum rt_loss_reason, or'ed */
	uint32_t processes;       /* LOST blocks' processes, distinct */
};

/* The flight recorder's window: which events a log that keeps the last
 * ones only (RT_LOG_WINDOW) holds.  Events are kept or dropped by whole
 * blocks, oldest first. */
struct rt_log_window {
	uint64_t first_ts, last_ts;  /* earliest and latest event kept, 0
				      * when none was */
	uint64_t end_ns;             /* the run's end */
	uint64_t events;             /* events kept */
	uint64_t bytes;              /* their bytes in the log */
	uint64_t dropped_events;     /* recorded before the window: dropped */
	uint64_t dropped_blocks;
	uint64_t keep_ns;            /* --keep: a time, or */
	uint64_t keep_bytes;         /* a size */
};

/* ---- writer ---------------------------------------------------------- */

struct rt_evlog_writer;

/* Creates @path (truncating it) and writes the file header and @info.
 * Returns 0 or -errno after logging.  Close with rt_evlog_close(). */
int rt_evlog_create(const char *path, const struct rt_log_info *info,
		    struct rt_evlog_writer **out);

/* Puts @cost (copied), measured after the log was created with
 * info->cost_later, in place of the one given to rt_evlog_create(); a log
 * cut short before keeps that one.  0 or -errno (warned). */
int rt_evlog_set_cost(struct rt_evlog_writer *w,
		      const struct rt_stop_cost *cost);

/* Writes a function table of @n rows (strings copied). 0 or -errno. */
int rt_evlog_write_funcs(struct rt_evlog_writer *w,
			 const struct rt_log_func *f, size_t n);

enum rt_thread_flags {
	RT_THREAD_TEST = 1 << 0,  /* a libtest thread running the test that
				   * the name gives */
};

/* Records a thread's name and RT_THREAD_* flags (also after a rename).
 * 0 or -errno. */
int rt_evlog_write_thread(struct rt_evlog_writer *w, uint32_t tid,
			  uint32_t pid, const char *name, uint32_t flags);

/* Records call stack @id of @n frames (strings copied); entry events
 * refer to it by id in their value.  0 or -errno. */
int rt_evlog_write_stack(struct rt_evlog_writer *w, uint32_t id,
			 const struct rt_log_frame *f, size_t n);

/* Records that process @pid did not record @events events since its last
 * LOST block (@reasons: enum rt_loss_reason), @n of them attributed to
 * functions in @f (the caller's).  Written as they are learnt, so that a
 * log cut short still says them.  0 or -errno. */
int rt_evlog_write_lost(struct rt_evlog_writer *w, uint32_t pid,
			uint32_t reasons, uint64_t events,
			const struct rt_log_lost_fn *f, size_t n);

/* Records a process: its parent and executable. 0 or -errno. */
int rt_evlog_write_process(struct rt_evlog_writer *w, uint32_t pid,
			   uint32_t ppid, const char *exe);

/* Appends one event to the current block; the block goes to disk when
 * full.  After a write error (disk full) recording stops: one warning, and
 * later events are counted as dropped.  Hot path: no system call unless the
 * buffer is full. */
void rt_evlog_append(struct rt_evlog_writer *w, const struct rt_event *ev);

/* The same for @n events in a row, as rt_evlog_append() on each but
 * cheaper: the block's room is checked once for many. */
void rt_evlog_append_batch(struct rt_evlog_writer *w,
			   const struct rt_event *ev, size_t n);

/* Hands every record staged so far to the kernel, so that a crash or a
 * kill -9 of rtrace loses none of them: 0, or the first write error. */
int rt_evlog_flush(struct rt_evlog_writer *w);

/* Time spent writing blocks to the file so far, in ns. */
uint64_t rt_evlog_write_ns(const struct rt_evlog_writer *w);

/* The log's size so far in bytes: written, and staged to be. */
uint64_t rt_evlog_size(const struct rt_evlog_writer *w);

/* Events appended so far and kept (written, or buffered to be), and events
 * dropped after a write error; their sum is every event appended.
 * Suitable for rt_log_end.events and .dropped. */
uint64_t rt_evlog_nevents(const struct rt_evlog_writer *w);
uint64_t rt_evlog_ndropped(const struct rt_evlog_writer *w);

/* Whether the disk guard stopped recording events, and why: RT_END_SPACE,
 * the space left where the log goes fell to its reserve (2 % of the file
 * system, within 2 MiB and 1 GiB), or RT_END_FSIZE, the log came near
 * rtrace's file size limit (an eighth of it, 1 MiB at most, is kept for
 * the end); 0 when it did not.  It warns once; later events count as
 * dropped, and the end block carries the flag. */
uint32_t rt_evlog_space_cut(const struct rt_evlog_writer *w);

/* Called with every block the writer hands to the file, the file header
 * and session block first, whole blocks only (several at a time), before
 * they are written; @bytes are the writer's, valid during the call. */
typedef void (*rt_evlog_tap_fn)(void *ctx, const uint8_t *bytes, size_t n);

/* Sets the tap (NULL: none).  It works at block granularity: appending an
 * event costs nothing more. */
void rt_evlog_set_tap(struct rt_evlog_writer *w, rt_evlog_tap_fn fn,
		      void *ctx);

/* With @keep false, event blocks go to the tap but not to the file (the
 * tables, session and end block still do); they count as recorded. */
void rt_evlog_keep_events(struct rt_evlog_writer *w, bool keep);

/* Writes a profile block holding @n opaque bytes (the report stage makes
 * and reads them), after everything written so far.  0 or -errno. */
int rt_evlog_write_profile(struct rt_evlog_writer *w, const void *bytes,
			   size_t n);

/* Makes @w a flight recorder: finished event blocks go to a spool next
 * to the log, which keeps those within @ns of the newest event (@ns not
 * 0) or the newest that add up to at most @bytes; at close, the kept
 * blocks and a window record (rt_log_window) go into the log, after the
 * tables and before the end block.  Call right after rt_evlog_create(),
 * with RT_LOG_WINDOW in the session's flags.  0 or -errno (logged). */
int rt_evlog_keep_last(struct rt_evlog_writer *w, uint64_t ns,
		       uint64_t bytes);

/* The window so far of a flight recorder, as of the last flush (false
 * when @w is none); end_ns is 0. */
bool rt_evlog_window_now(const struct rt_evlog_writer *w,
			 struct rt_log_window *out);

/* Writes buffered events, then @end if non-NULL, closes and frees.  Returns
 * 0 or the first write error (-errno); accepts NULL. */
int rt_evlog_close(struct rt_evlog_writer *w, const struct rt_log_end *end);

/* ---- reader ---------------------------------------------------------- */

struct rt_evlog_reader;

/* Opens a log and reads its session block.  Returns 0, or -errno after
 * logging one line: the open(2) error (missing, unreadable), -EINVAL (not
 * a log), -EPROTONOSUPPORT (newer version), -EBADMSG (cut in the header,
 * malformed session block).  Close with rt_evlog_reader_free(). */
int rt_evlog_open(const char *path, struct rt_evlog_reader **out);

/* Opens a reader fed from memory: @head (@n bytes) holds the file header,
 * the session block, and maybe whole blocks after it; @name names it in
 * messages.  rt_evlog_next() returns 0 when the bytes fed so far are used
 * up, and goes on after rt_evlog_feed().  Returns 0 or -errno like
 * rt_evlog_open().  No rewind.  The caller keeps @head valid until
 * rt_evlog_next() has returned 0. */
int rt_evlog_open_stream(const uint8_t *head, size_t n, const char *name,
			 struct rt_evlog_reader **out);

/* Feeds @n more bytes (whole blocks) to a stream reader, once the previous
 * ones were read (rt_evlog_next() returned 0); the caller keeps @bytes
 * valid until rt_evlog_next() returns 0 again. */
void rt_evlog_feed(struct rt_evlog_reader *r, const uint8_t *bytes, size_t n);

/* Hands every block of @r after its session block to @w in file order, as
 * if @w wrote it (through its tap, and to its file as it keeps events);
 * the end and profile blocks are read, not copied: rt_evlog_end(r) and
 * rt_evlog_profile(r) give them.  0 or -errno (logged). */
int rt_evlog_replay(struct rt_evlog_reader *r, struct rt_evlog_writer *w);

/* Gives @r the profile block @bytes (copied), as if it had read it: for
 * a log still being written, whose profile is not in it yet.  A profile
 * block read later replaces it. */
void rt_evlog_set_profile(struct rt_evlog_reader *r, const uint8_t *bytes,
			  size_t n);

/* 1 when the log holds a profile block and no event (recorded with
 * --keep=none), else 0, or -EBADMSG when it is malformed before its
 * first event (logged).  Reads it from the start: rewind before a
 * pass. */
int rt_evlog_profile_only(struct rt_evlog_reader *r);

/* The payload of the last profile block read so far, or NULL (*@n = 0);
 * owned by the reader. */
const uint8_t *rt_evlog_profile(const struct rt_evlog_reader *r, size_t *n);

/* Frees the reader; accepts NULL. */
void rt_evlog_reader_free(struct rt_evlog_reader *r);

/* Session block; valid until the reader is freed. */
const struct rt_log_info *rt_evlog_info(const struct rt_evlog_reader *r);

/* Next event in file order.  Function tables and names met on the way are
 * absorbed.  Returns 1 with *ev filled, 0 at the end (of the file, or of
 * its last whole record), or -EBADMSG for a malformed block (logged). */
int rt_evlog_next(struct rt_evlog_reader *r, struct rt_event *ev);

/* Goes back to the first event, for a second pass. 0 or -errno. */
int rt_evlog_rewind(struct rt_evlog_reader *r);

/* Functions known so far, indexed by id (NULL for ids not seen); valid
 * until the reader is freed. */
size_t rt_evlog_nfuncs(const struct rt_evlog_reader *r);
const struct rt_log_func *rt_evlog_func(const struct rt_evlog_reader *r,
					uint32_t id);

/* Name of thread @tid, or NULL when none was recorded; valid until the
 * reader is freed. */
const char *rt_evlog_thread_name(const struct rt_evlog_reader *r,
				 uint32_t tid);

/* Call stack @id, or NULL; valid until the reader is freed. */
const struct rt_log_stack *rt_evlog_stack(const struct rt_evlog_reader *r,
					  uint32_t id);

/* RT_THREAD_* flags of the last name recorded for @tid (0 if none). */
uint32_t rt_evlog_thread_flags(const struct rt_evlog_reader *r, uint32_t tid);

/* Executable of process @pid, or NULL. */
const char *rt_evlog_process_exe(const struct rt_evlog_reader *r,
				 uint32_t pid);

/* The end block once the whole file was read, or NULL when the log stops
 * before it (rtrace was killed, or the disk filled up). */
const struct rt_log_end *rt_evlog_end(const struct rt_evlog_reader *r);

/* What the LOST blocks read so far said (each function's share is in its
 * rt_log_func.lost), or NULL when none was met.  Owned by the reader. */
const struct rt_log_losses *rt_evlog_losses(const struct rt_evlog_reader *r);

/* The window record of a flight recorder's log (RT_LOG_WINDOW), found
 * when the log was opened; NULL for other logs, and for one cut short
 * before its window was written.  Valid until the reader is freed. */
const struct rt_log_window *rt_evlog_window(const struct rt_evlog_reader *r);

/* Whether the file ends inside a block (bytes after the last whole
 * record were ignored). */
bool rt_evlog_cut(const struct rt_evlog_reader *r);

/* File size in bytes. */
uint64_t rt_evlog_file_size(const struct rt_evlog_reader *r);

#endif
