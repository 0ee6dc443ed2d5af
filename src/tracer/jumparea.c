// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The jump engine's event area in a traced process (jumparea.h).
 *
 * The process creates a memory file with memfd_create, sizes it and maps
 * it shared, each by a system call rtrace makes it run; rtrace opens the
 * same file through /proc/PID/fd and maps it too, then has the process
 * close its descriptor (the mapping keeps the file).  No file on disk, no
 * library loaded, nothing the program can see but one more mapping.
 *
 * Times: the recorder reads the time stamp counter, which costs a few
 * nanoseconds where a system call costs hundreds.  rtrace turns counts
 * into the monotonic clock's nanoseconds by the line through a pair of
 * readings taken when the first area was made and a pair taken at each
 * drain: the longer the run, the finer the rate.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PR_FMT "jump"
#define PR_DOMAIN RT_DOM_PROBES
#include "rtrace/arch.h"
#include "rtrace/arch-jump.h"
#include "rtrace/inline-layout.h"
#include "rtrace/jumparea.h"
#include "rtrace/log.h"
#include "rtrace/remote.h"
#include "rtrace/ringwake.h"
#include "rtrace/seccomp.h"
#include "rtrace/util.h"

/* The shortest baseline the counter's rate is taken over. */
#define RATE_MIN_NS 2000000ULL

/* A slot the thread that held it left: lookups go past it, a claim may
 * take it. */
#define TP_LEFT 1
/* The marker of a shared thread pointer: the lookup of @tp stops there,
 * and its threads at the recorder's miss, where rtrace records for them. */
#define TP_MARKER(tp) ((tp) | 1)
/* What a slot's thread pointer says. */
#define TP_FREE(tp) ((tp) <= TP_LEFT)
#define IS_MARKER(tp) (((tp) & 1) && (tp) != TP_LEFT)
/* rtrace's name for a slot claimed by a thread it does not know: drained
 * into nothing, never freed. */
#define NOBODY (-1)

/* Thread pointers two threads share, at most: past it, sharing is
 * refused by a full table and events go the same way, by stops. */
#define SHARED_TPS 64

struct rt_inline_area {
	uint8_t *map;                 /* rtrace's view */
	rt_raddr base;                /* the process's view */
	rt_raddr recorder;
	pid_t pid;
	pid_t tids[RT_IA_SLOTS];      /* 0: free */
	unsigned said_damage;         /* 1 << enum damage: said once */
	uint64_t events, dropped;
	bool damaged;                 /* a ring failed a check */
	/* thread pointers more than one thread has (a raw clone without a
	 * TLS of its own): no slot, a stop per event */
	uint64_t shared[SHARED_TPS];
	unsigned nshared;
	uint64_t c_start;             /* the counter when the area was made */
	uint64_t cap;                 /* events per ring, a power of two */
	size_t size;                  /* of the whole area */
	struct rt_ringwake *wake;     /* NULL: full rings stop their thread */
	uint64_t lost_seen;           /* of the control words' lost count */
	uint64_t noslot_seen;         /* of their count of slotless events */
	uint64_t unrecorded;          /* events lost while recording was off,
				       * or by threads that found no slot */
	uint64_t unrecorded_logged;   /* of those, said in the log */
	uint64_t dropped_unlogged;    /* events dropped as damaged (at least
				       * one a time), not yet in the log */
	uint32_t loss_reasons;        /* enum rt_loss_reason, since then */
	uint64_t losses_at;           /* when the log was last told */
	uint32_t lost_base;           /* the function id of the first
				       * per-function counter */
	uint64_t *lost_prev;          /* those counters, as last told */
	bool claims;                  /* threads claim slots themselves */
	unsigned unmarked;            /* shared[] entries with no marker */
	bool view_lost;               /* the program no longer sees what
				       * rtrace writes here */
	/* each ring's tail as rtrace last wrote it: the program may write
	 * the shared one, rtrace never reads it back */
	uint64_t tails[RT_IA_SLOTS];
	uint64_t checked_at;          /* the control words' last check */
	uint32_t off_reason;          /* RT_LOSS_* of the last time
				       * recording was found off */
	bool said_off, said_counters; /* warned of the program's writes */
	bool said_miss;               /* and of a forged event at the miss */
};

/* Who rtrace's waiters interrupt, and with what (rt_inline_wake_by()). */
static struct {
	pid_t tid;
	int sig;
} waker;

void rt_inline_wake_by(int sig)
{
	waker.tid = (pid_t)syscall(SYS_gettid);
	waker.sig = sig;
}

static struct {
	bool set, tsc;
	uint64_t c0, n0;
} clock0;

static bool tsc_usable(void)
{
	char *info = NULL;
	size_t len;
	bool ok;

	if (read_file("/proc/cpuinfo", &info, &len))
		return false;
	ok = rt_arch_cycles_steady(info);
	free(info);
	return ok;
}

#define PAIR_TRIES 8

/* A counter reading and a clock reading taken at the same moment: the
 * clock read between two counter reads, the tightest of a few tries.  A
 * pair that the scheduler split (rtrace preempted between the reads)
 * would put the whole conversion off by the time it lost, and shift the
 * times of every event drained with it by that much. */
static void clock_pair(uint64_t *c, uint64_t *n)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < PAIR_TRIES; i++) {
		uint64_t a = rt_arch_cycles(), t = now_ns(), b = rt_arch_cycles();

		if (b >= a && b - a < best) {
			best = b - a;
			*c = a + (b - a) / 2;
			*n = t;
		}
	}
	if (best == UINT64_MAX) {
		*c = rt_arch_cycles();
		*n = now_ns();
	}
}

static void clock_start(void)
{
	if (clock0.set)
		return;
	clock0.set = true;
	clock0.tsc = tsc_usable() && rt_arch_cycles() != 0;
	clock_pair(&clock0.c0, &clock0.n0);
}

/* Nanoseconds per count as a fixed-point number: d counts are
 * d * mult >> shift ns.  Integer arithmetic, as the vDSO's, because the
 * drain converts every event: a multiply and a shift cost a few cycles
 * where the conversions to and from floating point cost tens. */
struct ns_scale {
	uint64_t mult;
	unsigned shift;
};

#define TWO_64 18446744073709551616.0

/* @rate with its 53 significant bits in mult's top ones: exact. */
static struct ns_scale scale_of(double rate)
{
	struct ns_scale s = { 0, 64 };
	double m = rate * TWO_64;

	while (m >= TWO_64 && s.shift > 0) {
		m /= 2;
		s.shift--;
	}
	while (m > 0 && m < TWO_64 / 2 && s.shift < 127) {
		m *= 2;
		s.shift++;
	}
	s.mult = (uint64_t)m;
	return s;
}

/* Nanoseconds per count, over the longest baseline there is.  A pair of
 * readings costs eight clock reads, and drains come every few µs on a
 * busy ring: the rate is taken again only once the baseline has grown by
 * an eighth, so it still converges while costing a handful of pairs over
 * a run. */
static struct ns_scale clock_rate(void)
{
	static uint64_t at;
	static struct ns_scale rate;
	uint64_t c1, n1;

	if (at && rt_arch_cycles() - at < (at - clock0.c0) / 8)
		return rate;
	do
		clock_pair(&c1, &n1);
	while (n1 - clock0.n0 < RATE_MIN_NS);
	rate = scale_of(c1 > clock0.c0 ? (double)(n1 - clock0.n0) /
					       (c1 - clock0.c0)
				     : 1.0);
	at = c1;
	return rate;
}

/* The recorder's clock now, for the newest stamp a ring may hold. */
static uint64_t stamp_now(void)
{
	return clock0.tsc ? rt_arch_cycles() : now_ns();
}

static inline uint64_t scaled(uint64_t d, struct ns_scale s)
{
	return (uint64_t)(((unsigned __int128)d * s.mult) >> s.shift);
}

static inline uint64_t to_ns(uint64_t stamp, struct ns_scale s)
{
	if (!clock0.tsc)
		return stamp;
	/* event_sane() saw the stamp past its area's start, which is past
	 * the first pair */
	return clock0.n0 + scaled(stamp - clock0.c0, s);
}

/* ---- making the area ------------------------------------------------------ */

static int remote(pid_t tid, struct rt_mem *mem, long nr, uint64_t a0,
		  uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
		  long *res, int *dsig)
{
	uint64_t args[6] = { a0, a1, a2, a3, a4, 0 };
	int err = rt_remote_syscall(tid, mem, nr, args, res, dsig);

	if (!err && *res < 0 && *res > -4096)
		err = (int)*res;
	return err;
}

/* The file, made and mapped in the process: its descriptor there. */
static int map_in_tracee(pid_t tid, struct rt_mem *mem, rt_raddr name,
			 size_t size, rt_raddr *base, int *dsig)
{
	long fd, res;
	int err, before = *dsig;

	err = remote(tid, mem, SYS_memfd_create, name,
		     MFD_CLOEXEC | MFD_ALLOW_SEALING, 0, 0, 0, &fd, dsig);
	if (err)
		return err;
	err = remote(tid, mem, SYS_ftruncate, fd, size, 0, 0, 0, &res,
		     dsig);
	/* past the program's RLIMIT_FSIZE the kernel also sends it SIGXFSZ:
	 * rtrace's call, rtrace's signal, not the program's */
	if (err == -EFBIG && *dsig == SIGXFSZ)
		*dsig = before;
	if (!err)
		err = remote(tid, mem, SYS_mmap, 0, size,
			     PROT_READ | PROT_WRITE, MAP_SHARED, fd, &res,
			     dsig);
	if (err) {
		remote(tid, mem, SYS_close, fd, 0, 0, 0, 0, &res, dsig);
		return err;
	}
	*base = (rt_raddr)res;
	return (int)fd;
}

/* The seals that keep the area's file its size for good: a program that
 * shrank it (root can open it through /proc/self/map_files) would kill
 * rtrace with SIGBUS at its next read of a ring. */
#define AREA_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)

static int map_here(pid_t pid, int fd, size_t size, uint8_t **map)
{
	char path[64];
	int ours;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	ours = open(path, O_RDWR | O_CLOEXEC);
	if (ours < 0)
		return -errno;
	/* the program is stopped: nobody changed the size before this */
	errno = 0;
	if (fcntl(ours, F_ADD_SEALS, AREA_SEALS) ||
	    (fcntl(ours, F_GET_SEALS) & AREA_SEALS) != AREA_SEALS) {
		int err = errno ? -errno : -EPERM;

		pr_dbg("process %d: the event area cannot be sealed: %s", pid,
		       strerror(-err));
		close(ours);
		return err;
	}
	*map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    ours, 0);
	close(ours);
	return *map == MAP_FAILED ? -errno : 0;
}

static void put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static int write_data_block(struct rt_inline_area *a, struct rt_mem *mem)
{
	uint8_t data[RT_RD_SIZE];

	put_u64(data + RT_RD_TABLE, a->base + RT_IA_TABLE);
	put_u64(data + RT_RD_MASK, RT_IA_SLOTS - 1);
	put_u64(data + RT_RD_CAP, a->cap);
	put_u64(data + RT_RD_CAP_MASK, a->cap - 1);
	put_u64(data + RT_RD_CLOCK, clock0.tsc ? RT_CLOCK_TSC
					       : RT_CLOCK_SYSCALL);
	put_u64(data + RT_RD_CTL, a->base + RT_IA_CTL);
	put_u64(data + RT_RD_HALF, a->wake ? a->cap / 2 : UINT64_MAX);
	put_u64(data + RT_RD_LOSTFN, a->base + RT_IA_LOSTFN);
	put_u64(data + RT_RD_LOST_BASE, a->lost_base);
	return rt_mem_write(mem, a->recorder + rt_arch_recorder()->data, data,
			    sizeof(data));
}

static void preset_rings(struct rt_inline_area *a);

/* The smallest ring worth making: below it, breakpoints. */
#define RING_MIN 1024

static size_t area_size(uint64_t cap)
{
	return RT_IA_RINGS + (size_t)RT_IA_SLOTS * cap * RT_IA_EVENT;
}

/* A number from the line of /proc file @path that starts with @key: the
 * first number after it (its soft limit, for /proc/PID/limits), or
 * UINT64_MAX when it says unlimited or cannot be read. */
static uint64_t proc_number(const char *path, const char *key)
{
	char *text = NULL, *line, *end;
	uint64_t v = UINT64_MAX;

	if (read_file(path, &text, NULL))
		return v;
	line = strstr(text, key);
	if (line) {
		line += strlen(key);
		line += strspn(line, " \t:");
		v = strtoull(line, &end, 10);
		if (end == line)
			v = UINT64_MAX;
	}
	free(text);
	return v;
}

/* Events per ring: RT_IA_CAP, or fewer when the program's address space
 * is limited (ulimit -v): the area then takes at most a sixteenth of
 * the room the program has left, so that it can still map nearly all it
 * could without rtrace; and the area's file, like any the program makes,
 * must stay under its file size limit (ulimit -f).  0: no room for the
 * smallest. */
static uint64_t ring_cap(pid_t pid)
{
	char path[64];
	uint64_t limit, used, room, fsize;

	snprintf(path, sizeof(path), "/proc/%d/limits", pid);
	limit = proc_number(path, "Max address space");
	fsize = proc_number(path, "Max file size");
	room = fsize;
	if (limit != UINT64_MAX) {
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		used = proc_number(path, "\nVmSize");
		used = used == UINT64_MAX ? limit : used * 1024;
		room = MIN(room, limit > used ? (limit - used) / 16 : 0);
	}
	for (uint64_t cap = RT_IA_CAP; cap >= RING_MIN; cap /= 2)
		if (area_size(cap) <= room)
			return cap;
	return 0;
}

static uint32_t *ctl_word(const struct rt_inline_area *a, size_t off)
{
	return (uint32_t *)(a->map + RT_IA_CTL + off);
}

/* Whether the recorder at @recorder may make system call @nr in thread
 * @tid: no seccomp filter, or one that lets it run. */
static bool recorder_may_call(pid_t tid, rt_raddr recorder, long nr)
{
	uint64_t args[6] = { 0 };
	int mode = rt_seccomp_mode(tid);

	if (mode == 0)
		return true;
	return mode == 2 &&
	       rt_seccomp_check(tid, nr, args,
				recorder + rt_arch_recorder()->syscall) ==
		       RT_SECCOMP_RUNS;
}

/* Whether full rings may wait on a futex rather than stop: rtrace has a
 * waiter to offer, and the program's seccomp filter lets the recorder's
 * futex calls run (one that fails would have it spin, one that kills
 * would kill it).  A filter installed later is not seen: a program that
 * forbids futex after rtrace has started is not supported. */
static bool may_wait(pid_t tid, rt_raddr recorder)
{
	return waker.sig && recorder_may_call(tid, recorder, SYS_futex);
}

/* Full rings wait for rtrace's waiter when the program allows it. */
static void start_waiting(struct rt_inline_area *a, pid_t tid)
{
	if (!may_wait(tid, a->recorder))
		return;
	a->wake = rt_ringwake_start(ctl_word(a, RT_IA_CTL_BELL), waker.tid,
				    waker.sig);
	if (a->wake)
		*ctl_word(a, RT_IA_CTL_MODE) = RT_WAIT_FUTEX;
}

int rt_inline_new(pid_t pid, pid_t tid, struct rt_mem *mem,
		  rt_raddr recorder, uint32_t first_id, int *deferred_sig,
		  struct rt_inline_area **out)
{
	/* the file's name, for /proc/PID/maps, goes where the data block
	 * will be: the recorder does not run before it is written */
	static const char name[] = "rtrace-events";
	rt_raddr at = recorder + rt_arch_recorder()->data;
	struct rt_inline_area *a;
	long res;
	int fd, err;

	uint64_t cap = ring_cap(pid);

	if (!cap)
		return -E2BIG;
	clock_start();
	err = rt_mem_write(mem, at, name, sizeof(name));
	if (err)
		return err;
	a = xcalloc(1, sizeof(*a));
	a->pid = pid;
	a->recorder = recorder;
	a->lost_base = first_id;
	a->c_start = stamp_now();
	a->checked_at = now_ns();
	a->cap = cap;
	a->size = area_size(cap);
	fd = map_in_tracee(tid, mem, at, a->size, &a->base, deferred_sig);
	if (fd < 0) {
		free(a);
		return fd;
	}
	err = map_here(pid, fd, a->size, &a->map);
	remote(tid, mem, SYS_close, fd, 0, 0, 0, 0, &res, deferred_sig);
	if (!err) {
		preset_rings(a);
		start_waiting(a, tid);
		err = write_data_block(a, mem);
	}
	if (err) {
		rt_ringwake_stop(a->wake);
		if (a->map && a->map != MAP_FAILED)
			munmap(a->map, a->size);
		remote(tid, mem, SYS_munmap, a->base, a->size, 0, 0, 0, &res,
		       deferred_sig);
		free(a);
		return err;
	}
	pr_dbg("process %d: event area at %" PRIxRADDR ", %" PRIu64
	       " events per ring, clock %s, full rings %s", pid, a->base,
	       a->cap, clock0.tsc ? "tsc" : "syscall",
	       a->wake ? "wait" : "stop");
	*out = a;
	return 0;
}

void rt_inline_free(struct rt_inline_area *a)
{
	if (!a)
		return;
	rt_ringwake_stop(a->wake);
	munmap(a->map, a->size);
	free(a->lost_prev);
	free(a);
}

/* ---- threads and their rings ---------------------------------------------- */

static uint8_t *slot_at(const struct rt_inline_area *a, int slot)
{
	return a->map + RT_IA_TABLE + (size_t)slot * RT_IA_SLOT_SIZE;
}

static uint64_t *slot_field(const struct rt_inline_area *a, int slot,
			    size_t off)
{
	return (uint64_t *)(slot_at(a, slot) + off);
}

/* Where @slot's ring starts in the area. */
static size_t ring_offset(const struct rt_inline_area *a, int slot)
{
	return RT_IA_RINGS + (size_t)slot * a->cap * RT_IA_EVENT;
}

/* Each slot's ring is where it always is: a thread that claims a slot
 * finds it ready, its head and tail equal (a freed slot was emptied). */
static void preset_rings(struct rt_inline_area *a)
{
	for (int i = 0; i < RT_IA_SLOTS; i++)
		*slot_field(a, i, RT_IA_SLOT_RING) =
			a->base + ring_offset(a, i);
}

enum rt_inline_bell rt_inline_bell(const struct rt_inline_area *a,
				   rt_raddr site)
{
	const struct rt_recorder *rec = rt_arch_recorder();

	if (site == a->recorder + rec->bell_miss)
		return RT_BELL_MISS;
	if (site == a->recorder + rec->bell_full)
		return RT_BELL_FULL;
	return RT_BELL_NONE;
}

/* Where the recorder's lookup starts for @tp (as recorder.S hashes). */
static unsigned slot_hash(uint64_t tp)
{
	return (unsigned)((tp * 0x9e3779b97f4a7c15ULL) >> 32) &
	       (RT_IA_SLOTS - 1);
}

static bool tp_shared(const struct rt_inline_area *a, uint64_t tp)
{
	for (unsigned i = 0; i < a->nshared; i++)
		if (a->shared[i] == tp)
			return true;
	return false;
}

/* Takes a free slot of @tp's window for @value: the slot, or -1.  A
 * thread of the program may be claiming the same slot (RT_IA_CTL_CLAIM):
 * whoever exchanges first has it. */
static int take_slot(struct rt_inline_area *a, uint64_t tp, uint64_t value)
{
	unsigned h = slot_hash(tp);

	for (unsigned i = 0; i < RT_IA_PROBES; i++) {
		int slot = (int)((h + i) & (RT_IA_SLOTS - 1));
		uint64_t *p_tp = slot_field(a, slot, RT_IA_SLOT_TP);
		uint64_t seen = __atomic_load_n(p_tp, __ATOMIC_ACQUIRE);

		if (TP_FREE(seen) &&
		    __atomic_compare_exchange_n(p_tp, &seen, value, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return slot;
	}
	return -1;
}

int rt_inline_register(struct rt_inline_area *a, pid_t tid, uint64_t tp)
{
	int slot;

	if (tp_shared(a, tp) || a->nshared == SHARED_TPS)
		return -EBUSY;
	/* the thread is stopped: nothing writes its slot's ring meanwhile */
	slot = take_slot(a, tp, tp);
	if (slot < 0)
		return -ENOSPC;
	*slot_field(a, slot, RT_IA_SLOT_IDS) =
		(uint32_t)tid | (uint64_t)a->pid << 32;
	a->tids[slot] = tid;
	return slot;
}

bool rt_inline_view_lost(struct rt_inline_area *a, pid_t tid, uint64_t tp,
			 bool *first)
{
	int slot = rt_inline_slot_of(a, tid);

	*first = false;
	if (a->view_lost)
		return true;
	/* the recorder's lookup walks the window rtrace filled this slot
	 * in: it finds the slot unless its memory holds something else */
	if (slot < 0 || !tp || tp_shared(a, tp) ||
	    *slot_field(a, slot, RT_IA_SLOT_TP) != tp)
		return false;
	a->view_lost = *first = true;
	return true;
}

static bool has_marker(const struct rt_inline_area *a, uint64_t tp)
{
	unsigned h = slot_hash(tp);

	for (unsigned i = 0; i < RT_IA_PROBES; i++)
		if (*slot_field(a, (int)((h + i) & (RT_IA_SLOTS - 1)),
				RT_IA_SLOT_TP) == TP_MARKER(tp))
			return true;
	return false;
}

/* A shared thread pointer with no slot yet gets its marker in the first
 * free slot of its window, before one of its threads claims that slot
 * for itself: when one frees, as soon as it does. */
static void place_markers(struct rt_inline_area *a)
{
	for (unsigned i = 0; i < a->nshared && a->unmarked; i++)
		if (!has_marker(a, a->shared[i]) &&
		    take_slot(a, a->shared[i], TP_MARKER(a->shared[i])) >= 0)
			a->unmarked--;
}

bool rt_inline_claims(struct rt_inline_area *a, pid_t tid)
{
	if (a->claims)
		return true;
	/* the recorder asks the kernel for its thread id: a filter that
	 * would refuse it, or kill, leaves the stops */
	if (!recorder_may_call(tid, a->recorder, SYS_gettid))
		return false;
	a->claims = true;
	__atomic_store_n(ctl_word(a, RT_IA_CTL_CLAIM), 1, __ATOMIC_RELEASE);
	return true;
}

int rt_inline_slot_of(const struct rt_inline_area *a, pid_t tid)
{
	for (int i = 0; i < RT_IA_SLOTS; i++)
		if (a->tids[i] == tid)
			return i;
	return -1;
}

int rt_inline_lend(struct rt_inline_area *a, pid_t owner, pid_t borrower)
{
	int slot = rt_inline_slot_of(a, owner);

	if (slot >= 0)
		a->tids[slot] = borrower;
	return slot;
}

void rt_inline_give_back(struct rt_inline_area *a, int slot, pid_t borrower,
			 pid_t owner)
{
	if (slot >= 0 && slot < RT_IA_SLOTS && a->tids[slot] == borrower)
		a->tids[slot] = owner;
}

void rt_inline_share(struct rt_inline_area *a, uint64_t tp,
		     rt_inline_emit_fn *emit, void *ctx)
{
	unsigned h = slot_hash(tp);
	bool marked = false;

	if (TP_FREE(tp) || (tp & 1) || tp_shared(a, tp) ||
	    a->nshared == SHARED_TPS)
		return;
	a->shared[a->nshared++] = tp;
	for (unsigned i = 0; i < RT_IA_PROBES; i++) {
		int slot = (int)((h + i) & (RT_IA_SLOTS - 1));
		uint64_t *p_tp = slot_field(a, slot, RT_IA_SLOT_TP);

		if (__atomic_load_n(p_tp, __ATOMIC_ACQUIRE) != tp)
			continue;
		/* its owner may be running, even writing an event now: the
		 * slot becomes the marker, still its owner's to drain until
		 * the owner's next stop, at the miss that follows */
		__atomic_store_n(p_tp, TP_MARKER(tp), __ATOMIC_RELEASE);
		if (a->tids[slot])
			rt_inline_drain(a, slot, false, emit, ctx);
		marked = true;
	}
	if (!marked) {
		a->unmarked++;
		place_markers(a);
	}
}

uint64_t rt_inline_site_sp(uint64_t word, uint64_t sp)
{
	return (word >> 40) & RT_IA_EVF_BELOW ? sp + rt_arch_tramp_below()
					      : sp;
}

/* The event as the log has it: the stack pointer of the site, and no
 * flag the log does not know. */
static void event_at_site(struct rt_event *ev, uint64_t word)
{
	ev->sp = rt_inline_site_sp(word, ev->sp);
	ev->flags &= (uint8_t)~RT_IA_EVF_BELOW;
}

static void event_of(const uint8_t *rec, struct rt_event *ev)
{
	uint64_t f[4];

	memcpy(f, rec, sizeof(f));
	*ev = (struct rt_event){
		.ts = f[0], .sp = f[1], .value = f[2],
		.func = (uint32_t)f[3], .kind = (uint8_t)(f[3] >> 32),
		.flags = (uint8_t)(f[3] >> 40),
	};
	event_at_site(ev, f[3]);
}

/* How far past the drain's own reading of the clock a stamp may be: a
 * counter read on another CPU, or a clock read after the drain's. */
#define STAMP_SLACK (1ULL << 26)

/* Whether the kind and flags of @ev can be what a trampoline gave the
 * recorder (the registers at the recorder's miss as much as a ring). */
static bool event_shape_sane(const struct rt_event *ev)
{
	if (ev->kind != RT_EV_ENTRY && ev->kind != RT_EV_EXIT &&
	    ev->kind != RT_EV_TAIL)
		return false;
	if (ev->flags & ~(RT_EVF_INLINE | RT_EVF_HELPER | RT_EVF_INLINED |
			  RT_EVF_TIMED | RT_EVF_RESUMED))
		return false;
	/* a resume trampoline records a function's own entry */
	if ((ev->flags & RT_EVF_RESUMED) &&
	    (ev->kind != RT_EV_ENTRY || (ev->flags & RT_EVF_INLINED)))
		return false;
	/* an inlined call has an entry and an exit, no tail jump */
	if ((ev->flags & RT_EVF_INLINED) && ev->kind == RT_EV_TAIL)
		return false;
	return !(ev->flags & RT_EVF_TIMED) ||
	       ((ev->flags & RT_EVF_INLINED) && ev->kind == RT_EV_ENTRY);
}

/* Whether @ev can be what the recorder wrote.  The program can write the
 * area, by a stray pointer or on purpose: nothing read from it is trusted
 * (the tracer checks the function id against its tables). */
static bool event_sane(const struct rt_inline_area *a,
		       const struct rt_event *ev, uint64_t newest)
{
	return event_shape_sane(ev) && ev->ts >= a->c_start &&
	       ev->ts <= newest + STAMP_SLACK;
}

/* Events dropped as damaged go to the log as lost (RT_LOSS_DAMAGED), at
 * least one each time: their number may be no more than a guess, the
 * count's being a lower bound is sure. */
static void drop_said(struct rt_inline_area *a, uint64_t lost)
{
	a->dropped_unlogged += lost ? lost : 1;
	a->loss_reasons |= RT_LOSS_DAMAGED;
}

/* What of a slot failed a check. */
enum damage { DAMAGE_IDS, DAMAGE_COUNTERS, DAMAGE_EVENTS };

/* A slot failed a check: said once per process and kind of damage (a
 * program that writes over its table writes over every slot).  @lost is
 * what is known to be lost; counters written over hide how much was. */
static void slot_damaged(struct rt_inline_area *a, int slot,
			 enum damage what, uint64_t lost)
{
	static const char *const words[] = {
		[DAMAGE_IDS] = "thread id", [DAMAGE_COUNTERS] = "counters",
		[DAMAGE_EVENTS] = "events",
	};

	a->dropped += lost;
	drop_said(a, lost);
	a->damaged = true;
	if (a->said_damage & (1u << what))
		return;
	a->said_damage |= 1u << what;
	if (what == DAMAGE_EVENTS)
		pr_warn("process %d thread %d: %" PRIu64 " malformed events "
			"in its event ring dropped; tracing goes on (said "
			"once)", a->pid, a->tids[slot], lost);
	else
		pr_warn("process %d thread %d: the program wrote over the %s "
			"of its event ring; its unread events are dropped, "
			"tracing goes on (said once)", a->pid, a->tids[slot],
			words[what]);
}

void rt_inline_adopt(struct rt_inline_area *a, rt_inline_owner_fn *owner,
		     void *ctx)
{
	if (!a->claims)
		return;
	for (int i = 0; i < RT_IA_SLOTS; i++) {
		uint64_t tp, ids;
		pid_t tid;

		if (a->tids[i])
			continue;
		tp = __atomic_load_n(slot_field(a, i, RT_IA_SLOT_TP),
				     __ATOMIC_ACQUIRE);
		/* a claim writes the thread pointer, then the id */
		ids = __atomic_load_n(slot_field(a, i, RT_IA_SLOT_IDS),
				      __ATOMIC_ACQUIRE);
		if (TP_FREE(tp) || (tp & 1) || !ids)
			continue;
		tid = (pid_t)(uint32_t)ids;
		if (ids >> 32 || tid <= 0 || rt_inline_slot_of(a, tid) >= 0 ||
		    !owner(ctx, tid)) {
			/* not a thread of the process rtrace knows, or one
			 * with a slot already (its thread pointer changed):
			 * its events cannot be put in its order */
			a->tids[i] = NOBODY;
			slot_damaged(a, i, DAMAGE_IDS, 0);
			continue;
		}
		a->tids[i] = tid;
	}
}

static uint32_t *slot_word(const struct rt_inline_area *a, int slot,
			   size_t off)
{
	return (uint32_t *)(slot_at(a, slot) + off);
}

/* The thread may be sleeping until its ring has room: the tail is stored
 * before its flag is read (a full barrier between), and it sets the flag
 * before it reads the tail, so one of the two sees the other. */
static void wake_sleeper(struct rt_inline_area *a, int slot)
{
	uint32_t *waits = slot_word(a, slot, RT_IA_SLOT_WAIT);

	if (!__atomic_load_n(waits, __ATOMIC_SEQ_CST))
		return;
	__atomic_store_n(waits, 0, __ATOMIC_RELAXED);
	rt_ringwake_wake_all(slot_word(a, slot, RT_IA_SLOT_TAIL));
}

/* The recorder turns recording off after this long with no ring emptied
 * (recorder.S: WAIT_TRIES waits of WAIT_NS); off sooner, the program
 * wrote the word.  A margin under the 3 s for the clocks. */
#define SILENT_MIN_NS 2500000000ULL
/* More lost events than this per nanosecond since the last check no
 * threads can make: a counter that says so was written by the program. */
#define LOST_PER_NS_MAX 64

/* What a loss counter of the control words grew by since @seen, which it
 * becomes: 0 when the program wrote it (it went down, or grew by more
 * than the program could lose in @ns), said once. */
static uint64_t counter_growth(struct rt_inline_area *a, uint64_t now,
			       uint64_t *seen, uint64_t ns)
{
	uint64_t d = now - *seen;
	bool forged = now < *seen || d / LOST_PER_NS_MAX > ns;

	*seen = now;
	if (!forged)
		return d;
	if (!a->said_counters)
		pr_warn("process %d: the program wrote over the loss "
			"counters of its event area; their change is not "
			"counted", a->pid);
	a->said_counters = true;
	return 0;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Recording found off: why.  The recorder turns it off only after seconds
 * without rtrace (RT_OFF_SILENT), the guardian only once rtrace is dead:
 * anything else, rtrace alive and answering, the program wrote. */
static uint32_t off_reason(uint32_t off, uint64_t quiet_ns)
{
	if (off == RT_OFF_SILENT && quiet_ns >= SILENT_MIN_NS)
		return RT_LOSS_SILENT;
	return RT_LOSS_PROGRAM;
}

/* Recording is on again wherever it was off: a thread waited seconds for
 * rtrace (stopped, say with SIGSTOP), or the program wrote the word.
 * The events lost said, with why. */
static void recording_back_on(struct rt_inline_area *a, uint64_t quiet)
{
	uint32_t *off = ctl_word(a, RT_IA_CTL_OFF);
	uint64_t lost = __atomic_load_n((uint64_t *)ctl_word(a, RT_IA_CTL_LOST),
					__ATOMIC_ACQUIRE);
	uint32_t was = __atomic_load_n(off, __ATOMIC_ACQUIRE);
	uint64_t d;

	if (was)
		a->off_reason = off_reason(was, quiet);
	d = counter_growth(a, lost, &a->lost_seen, quiet);
	if (d) {
		pr_warn("process %d: %" PRIu64 " event%s not recorded while "
			"%s", a->pid, d, rt_s(d),
			a->off_reason == RT_LOSS_SILENT ?
				"rtrace did not answer" :
				"the program had turned recording off");
		a->unrecorded = add_sat(a->unrecorded, d);
		a->loss_reasons |= a->off_reason;
	}
	if (!was)
		return;
	if (a->off_reason == RT_LOSS_PROGRAM && !a->said_off)
		pr_warn("process %d: the program turned recording off (it "
			"wrote rtrace's event area); rtrace turns it back on",
			a->pid);
	a->said_off |= a->off_reason == RT_LOSS_PROGRAM;
	__atomic_store_n(off, 0, __ATOMIC_RELEASE);
}

/* Events of threads that found no slot to claim: said at the first, the
 * total at the end (rt_inline_unrecorded()); @quiet ns since the last
 * look. */
static void take_noslot(struct rt_inline_area *a, uint64_t quiet)
{
	uint64_t n = __atomic_load_n(
		(uint64_t *)ctl_word(a, RT_IA_CTL_NOSLOT), __ATOMIC_ACQUIRE);
	bool first = !a->noslot_seen;
	uint64_t d;

	if (n == a->noslot_seen)
		return;
	d = counter_growth(a, n, &a->noslot_seen, quiet);
	if (!d)
		return;
	if (first)
		pr_warn("process %d: more threads record at once than its "
			"event area has slots for (%d): the events of those "
			"without one are not recorded, only counted",
			a->pid, RT_IA_SLOTS);
	a->unrecorded = add_sat(a->unrecorded, d);
	a->loss_reasons |= RT_LOSS_NOSLOT;
}

/* Events converted before they go to the emitter in one call, which
 * then looks their thread up once for them all. */
#define DRAIN_BATCH 256

/* Emits the ring's events @from to @head (written, not yet taken) with
 * their times converted by @rate; returns how many failed the checks. */
static uint64_t drain_ring(struct rt_inline_area *a, int slot, uint64_t from,
			   uint64_t head, struct ns_scale rate,
			   rt_inline_emit_fn *emit, void *ctx)
{
	const uint8_t *ring = a->map + ring_offset(a, slot);
	uint64_t newest = stamp_now(), bad = 0, mask = a->cap - 1;
	struct rt_event batch[DRAIN_BATCH];
	size_t n = 0;

	for (uint64_t i = from; i != head; i++) {
		struct rt_event *ev = &batch[n];

		event_of(ring + (i & mask) * RT_IA_EVENT, ev);
		if (!event_sane(a, ev, newest)) {
			bad++;
			continue;
		}
		/* the tracer keeps each thread's events in order */
		ev->ts = to_ns(ev->ts, rate);
		if (++n == DRAIN_BATCH) {
			emit(ctx, a->tids[slot], batch, n);
			n = 0;
		}
	}
	if (n)
		emit(ctx, a->tids[slot], batch, n);
	return bad;
}

/* The thread of @slot ended, or looks for another: the slot is free for
 * any thread (a claim takes the thread pointer once the id is cleared),
 * but a marker, which stays. */
static void free_slot(struct rt_inline_area *a, int slot)
{
	uint64_t *p_tp = slot_field(a, slot, RT_IA_SLOT_TP);

	a->tids[slot] = 0;
	if (IS_MARKER(*p_tp))
		return;
	__atomic_store_n(slot_field(a, slot, RT_IA_SLOT_IDS), 0,
			 __ATOMIC_RELEASE);
	__atomic_store_n(p_tp, TP_LEFT, __ATOMIC_RELEASE);
	if (a->unmarked)
		place_markers(a);
}

/* A head further than this past the tail was written by the program, not
 * by events: a thousand threads recording for a day write fewer. */
#define FORGED_HEAD (1ULL << 44)

void rt_inline_drain(struct rt_inline_area *a, int slot, bool release,
		     rt_inline_emit_fn *emit, void *ctx)
{
	uint64_t *tail = slot_field(a, slot, RT_IA_SLOT_TAIL);
	uint64_t head = __atomic_load_n(slot_field(a, slot, RT_IA_SLOT_HEAD),
					__ATOMIC_ACQUIRE);
	uint64_t from = a->tails[slot], bad = 0;
	struct ns_scale rate = { 1, 0 };

	/* a ring never holds more than it can: counters that say otherwise
	 * were written by the program, and the events with them are noise */
	if (head - from > a->cap) {
		/* as many as the head says, when it is believable */
		slot_damaged(a, slot, DAMAGE_COUNTERS,
			     head - from < FORGED_HEAD ? head - from : 0);
		from = head;
	}
	if (a->tids[slot] == NOBODY && head != from) {
		a->dropped += head - from;
		drop_said(a, head - from);
		from = head;
	}
	if (head != from) {
		if (clock0.tsc)
			rate = clock_rate();
		bad = drain_ring(a, slot, from, head, rate, emit, ctx);
	}
	if (bad)
		slot_damaged(a, slot, DAMAGE_EVENTS, bad);
	a->events += head - from - bad;
	*slot_word(a, slot, RT_IA_SLOT_NUDGE) = 0;
	a->tails[slot] = head;
	__atomic_store_n(tail, head, __ATOMIC_SEQ_CST);
	wake_sleeper(a, slot);
	if (release)
		free_slot(a, slot);
}

void rt_inline_drain_all(struct rt_inline_area *a, rt_inline_emit_fn *emit,
			 void *ctx)
{
	uint64_t t = now_ns(), quiet = t - a->checked_at;

	a->checked_at = t;
	recording_back_on(a, quiet);
	take_noslot(a, quiet);
	for (int i = 0; i < RT_IA_SLOTS; i++)
		if (a->tids[i])
			rt_inline_drain(a, i, false, emit, ctx);
}

/* The event a thread stopped in the window was writing, written. */
static void finish_write(struct rt_inline_area *a, pid_t tid,
			 const struct rt_rec_state *st,
			 rt_inline_emit_fn *emit, void *ctx)
{
	rt_raddr table = a->base + RT_IA_TABLE;
	int slot = (int)((st->slot - table) / RT_IA_SLOT_SIZE);
	uint64_t head, f[4] = { st->ts, st->sp, st->value, st->word };

	if (st->slot < table || (st->slot - table) % RT_IA_SLOT_SIZE ||
	    st->slot - table >= (rt_raddr)RT_IA_SLOTS * RT_IA_SLOT_SIZE ||
	    a->tids[slot] != tid)
		return;
	head = *slot_field(a, slot, RT_IA_SLOT_HEAD);
	if (head - a->tails[slot] >= a->cap)
		rt_inline_drain(a, slot, false, emit, ctx);
	memcpy(a->map + ring_offset(a, slot) +
		       (head & (a->cap - 1)) * RT_IA_EVENT,
	       f, sizeof(f));
	__atomic_store_n(slot_field(a, slot, RT_IA_SLOT_HEAD), head + 1,
			 __ATOMIC_RELEASE);
}

bool rt_inline_finish(struct rt_inline_area *a, pid_t tid,
		      struct rt_regs *r, bool no_slot,
		      rt_inline_emit_fn *emit, void *ctx)
{
	const struct rt_recorder *rec = rt_arch_recorder();
	rt_raddr ip = rt_arch_ip(r);
	struct rt_rec_state st;

	rt_arch_rec_state(r, &st);
	if (no_slot) {
		struct rt_event ev = {
			.ts = now_ns(), .sp = st.sp, .value = st.value,
			.tid = (uint32_t)tid, .pid = (uint32_t)a->pid,
			.func = (uint32_t)st.word,
			.kind = (uint8_t)(st.word >> 32),
			.flags = (uint8_t)(st.word >> 40),
		};

		event_at_site(&ev, st.word);
		/* the program may jump to the miss with registers of its
		 * own making: checked as a ring's events are */
		if (event_shape_sane(&ev)) {
			emit(ctx, tid, &ev, 1);
			a->events++;
		} else {
			if (!a->said_miss)
				pr_warn("process %d thread %d: an event at the "
					"recorder's miss is none a probe makes "
					"(the program jumped there itself?): "
					"dropped", a->pid, tid);
			a->said_miss = true;
			a->dropped++;
			drop_said(a, 1);
			a->damaged = true;
		}
	} else if (ip >= a->recorder + rec->window &&
		   ip < a->recorder + rec->done) {
		finish_write(a, tid, &st, emit, ctx);
	} else {
		return false;
	}
	rt_arch_set_ip(r, a->recorder + rec->done);
	return true;
}

uint64_t rt_inline_events(const struct rt_inline_area *a)
{
	return a->events;
}

uint64_t rt_inline_unrecorded(const struct rt_inline_area *a)
{
	return a->unrecorded;
}

/* How often the log is told of new losses, at most (ns). */
#define LOSSES_EVERY 1000000000ULL

/* The per-function counters' growth since last told, into @v. */
static size_t lost_by_function(struct rt_inline_area *a,
			       struct rt_log_lost_fn **v)
{
	const uint64_t *now = (const uint64_t *)(a->map + RT_IA_LOSTFN);
	size_t n = 0, cap = 0;

	if (!a->lost_prev)
		a->lost_prev = xcalloc(RT_IA_LOSTFN_IDS, sizeof(uint64_t));
	for (uint32_t i = 0; i < RT_IA_LOSTFN_IDS; i++) {
		uint64_t c = __atomic_load_n(&now[i], __ATOMIC_RELAXED);

		/* the program can write them: one that went down is only
		 * taken as the new base */
		if (c > a->lost_prev[i]) {
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				*v = xrealloc(*v, cap * sizeof(**v));
			}
			(*v)[n++] = (struct rt_log_lost_fn){
				a->lost_base + i, c - a->lost_prev[i] };
		}
		a->lost_prev[i] = c;
	}
	return n;
}

size_t rt_inline_losses(struct rt_inline_area *a, bool now, uint64_t *events,
			uint32_t *reasons, struct rt_log_lost_fn **fns)
{
	uint64_t t = now_ns();

	*events = add_sat(a->unrecorded - a->unrecorded_logged,
			  a->dropped_unlogged);
	*reasons = a->loss_reasons;
	*fns = NULL;
	if (!*events || (!now && t - a->losses_at < LOSSES_EVERY)) {
		*events = 0;
		return 0;
	}
	a->unrecorded_logged = a->unrecorded;
	a->dropped_unlogged = 0;
	a->loss_reasons = 0;
	a->losses_at = t;
	return lost_by_function(a, fns);
}

uint64_t rt_inline_dropped(const struct rt_inline_area *a, bool *damaged)
{
	*damaged = a->damaged;
	return a->dropped;
}

rt_raddr rt_inline_base(const struct rt_inline_area *a)
{
	return a->base;
}

rt_raddr rt_inline_recorder(const struct rt_inline_area *a)
{
	return a->recorder;
}

void rt_inline_bounce(const struct rt_inline_area *a, uint8_t **local,
		      rt_raddr *remote, size_t *len)
{
	/* the header page up to the control words: nothing reads or writes
	 * it while tracing */
	*local = a->map;
	*remote = a->base;
	*len = RT_IA_CTL;
}

size_t rt_inline_size(const struct rt_inline_area *a)
{
	return a->size;
}

/* ---- what one event costs the program --------------------------------------
 *
 * Timed here, on a copy of the same recorder writing into a ring of
 * rtrace's own, called the way a trampoline calls it: the median of
 * batches, each short enough never to fill the ring.
 */

#define COST_BATCH 2000
#define COST_BATCHES 31

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The control words of that copy: recording on, full rings stop. */
static uint8_t cost_ctl[RT_IA_TABLE - RT_IA_CTL];

/* A copy of the recorder whose table has one slot: this thread's. */
static uint8_t *recorder_copy(uint8_t *table, uint8_t *ring)
{
	const struct rt_recorder *rec = rt_arch_recorder();
	uint64_t tp = rt_arch_self_tp();
	uint8_t *slot = table + (size_t)slot_hash(tp) * RT_IA_SLOT_SIZE;
	size_t len = ALIGN_UP(rec->len, 4096);
	uint8_t *code = mmap(NULL, len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (code == MAP_FAILED)
		return NULL;
	memcpy(code, rec->code, rec->len);
	put_u64(code + rec->data + RT_RD_TABLE, (uint64_t)table);
	put_u64(code + rec->data + RT_RD_MASK, RT_IA_SLOTS - 1);
	put_u64(code + rec->data + RT_RD_CAP, RT_IA_CAP);
	put_u64(code + rec->data + RT_RD_CAP_MASK, RT_IA_CAP - 1);
	put_u64(code + rec->data + RT_RD_CLOCK,
		clock0.tsc ? RT_CLOCK_TSC : RT_CLOCK_SYSCALL);
	put_u64(code + rec->data + RT_RD_CTL, (uint64_t)cost_ctl);
	put_u64(code + rec->data + RT_RD_HALF, UINT64_MAX);
	/* no function's id is that far past it: no counter to find */
	put_u64(code + rec->data + RT_RD_LOST_BASE, 1ULL << 63);
	put_u64(slot + RT_IA_SLOT_RING, (uint64_t)ring);
	put_u64(slot + RT_IA_SLOT_TP, tp);
	if (mprotect(code, len, PROT_READ | PROT_EXEC)) {
		munmap(code, len);
		return NULL;
	}
	return code;
}

static uint64_t measure_cost(void)
{
	const struct rt_recorder *rec = rt_arch_recorder();
	uint8_t *table = xcalloc(RT_IA_SLOTS, RT_IA_SLOT_SIZE);
	uint8_t *ring = xcalloc(RT_IA_CAP, RT_IA_EVENT);
	uint8_t *code = recorder_copy(table, ring);
	uint64_t per[COST_BATCHES], cost = 0;
	uint64_t tp = rt_arch_self_tp();
	uint8_t *slot = table + (size_t)slot_hash(tp) * RT_IA_SLOT_SIZE;

	for (int i = 0; code && i < COST_BATCHES; i++) {
		uint64_t t0;

		put_u64(slot + RT_IA_SLOT_HEAD, 0);
		t0 = now_ns();
		rt_arch_rec_run(code + rec->call[RT_REC_ENTRY], 0, COST_BATCH);
		per[i] = now_ns() - t0;
	}
	if (code) {
		qsort(per, COST_BATCHES, sizeof(per[0]), cmp_u64);
		cost = per[COST_BATCHES / 2] / COST_BATCH;
		munmap(code, ALIGN_UP(rec->len, 4096));
	}
	free(table);
	free(ring);
	return cost;
}

uint64_t rt_inline_event_cost(void)
{
	static uint64_t cost;
	static bool measured;

	if (!measured) {
		clock_start();
		cost = measure_cost();
		measured = true;
		pr_dbg("a jump-probe event costs the program %" PRIu64 " ns",
		       cost);
	}
	return cost;
}
