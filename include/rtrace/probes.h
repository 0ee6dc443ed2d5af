/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe plan of one executable image: for every selected function, its
 * entry site, its exits (returns) and its tail jumps, each with the way a
 * thread resumes after the hit (an out-of-line slot in the scratch area, or
 * a jump the tracer emulates).  Built in two steps: rt_plan_new() finds the
 * sites (and can run offline, for -l); rt_plan_place() lays out the slots
 * once the scratch area's address in the tracee is known.
 */
#ifndef RTRACE_PROBES_H
#define RTRACE_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtrace/arch.h"
#include "rtrace/inlined.h"
#include "rtrace/raddr.h"
#include "rtrace/symbols.h"

enum rt_probe_kind {
	RT_PROBE_ENTRY = 1 << 0,
	RT_PROBE_EXIT = 1 << 1,
	RT_PROBE_TAIL = 1 << 2,  /* a jump that may leave the function */
	RT_PROBE_HELPER = 1 << 3, /* a return of a helper function */
	RT_PROBE_RET_ARG0 = 1 << 4, /* a tail jump into a function that
				     * returns its first argument (memset):
				     * as good as a return of that value */
	RT_PROBE_INLINED = 1 << 5,  /* where inlined calls begin or end (the
				     * events rt_plan_inlined_recs() gives):
				     * a call each, timed when its exit is
				     * probed too */
};

#define RT_PROBE_TRAP_MAX 4

/* What a probed function is to the tracer. */
enum rt_func_role {
	RT_ROLE_TRACED,          /* selected by the patterns (or a helper) */
	RT_ROLE_MODULES,         /* the dynamic linker's "libraries changed"
				  * hook: time to look for new libraries */
	RT_ROLE_ALLOC,           /* (size, ...) -> pointer */
	RT_ROLE_ALLOC_ALIGNED,   /* (align, size) -> pointer */
	RT_ROLE_CALLOC,          /* (count, size) -> pointer */
	RT_ROLE_REALLOC,         /* (pointer, size) -> pointer: libc */
	RT_ROLE_REALLOC_RUST,    /* (pointer, old size, align, size) */
	RT_ROLE_FREE,            /* (pointer, ...) */
	RT_ROLE_MEMALIGN,        /* (&pointer, align, size) -> 0 or error */
	RT_ROLE_SIGACTION,       /* libc's sigaction (entry only): the
				  * program may set SIGTRAP (sigtrap.h) */
	RT_ROLE_SIGMASK,         /* libc's pthread_sigmask (entry only) */
	RT_ROLE_BLOCKING,        /* a libc call that may wait (sleep, futex,
				  * read...): timed like a traced function,
				  * nothing read at its hits, so never a
				  * reason to stop */
};

/* Why a site of the inline engine is a breakpoint after all. */
enum rt_inline_why {
	RT_INLINE_OK,             /* patched: a jump to its trampoline */
	RT_INLINE_OFF,            /* the breakpoint engine was chosen */
	RT_INLINE_ROLE,           /* rtrace must see the thread stopped there
				   * (allocator, dynamic linker, thread
				   * naming, call stacks, coverage) */
	RT_INLINE_SHORT,          /* too few bytes to replace, and no
				   * padding after the site */
	RT_INLINE_TARGET,         /* a branch lands inside the bytes a jump
				   * would replace */
	RT_INLINE_JUMP_TABLE,     /* an indirect jump with unknown targets
				   * could land inside them */
	RT_INLINE_INSN,           /* an instruction there cannot move (a
				   * call or branch) */
	RT_INLINE_KIND,           /* a conditional or indirect tail jump */
	RT_INLINE_OVERLAP,        /* another site lies within the bytes */
	RT_INLINE_REACH,          /* its trampoline would be out of reach */
	RT_INLINE_THREAD,         /* a thread was stopped inside the bytes */
	RT_INLINE_INLINED,        /* the entry of an inlined call, or a
				   * jump would cover one */
	RT_INLINE_WHY_MAX,
};

/* Short text for a reason; static string. */
const char *rt_inline_why_str(enum rt_inline_why why);

/* The most bytes a patched region takes. */
#define RT_PATCH_MAX 24

/* The most bytes a relay takes (a jump to a trampoline). */
#define RT_RELAY_MAX 8

/* How a patched region leads to its trampoline. */
enum rt_patch_how {
	RT_PATCH_JUMP,       /* a jump to the trampoline */
	RT_PATCH_HOP,        /* a short jump to the relay, which jumps to
			      * the trampoline */
	RT_PATCH_RETARGET,   /* the site's own short branch, aimed at the
			      * relay instead: only its taken path leaves */
};

struct rt_probe {
	rt_raddr addr;            /* run-time address of the site */
	uint32_t func;            /* function id in the log */
	uint8_t kinds;            /* enum rt_probe_kind bits */
	uint8_t role;             /* enum rt_func_role of its function */
	uint8_t orig[RT_PROBE_TRAP_MAX]; /* bytes the breakpoint covers */
	struct rt_resume res;
	rt_raddr func_lo, func_hi;  /* run-time bounds of the function */
	/* inline engine (patchsite.c): a jump to a trampoline replaces
	 * [patch_lo, patch_lo + patch_len) instead of a breakpoint */
	rt_raddr patch_lo;
	uint8_t patch_len;        /* 0: a breakpoint */
	uint8_t patch_code;       /* bytes of it that are instructions to
				   * move (the rest is padding) */
	uint8_t inline_why;       /* enum rt_inline_why */
	uint8_t patch_how;        /* enum rt_patch_how */
	uint8_t patch_join;       /* offset in the region of the return of
				   * a tiny function whose exit this
				   * trampoline records too; 0: none */
	bool joined;              /* the event is recorded by the trampoline
				   * of the site whose region covers this
				   * one (patch_len 0): nothing to write */
	uint8_t patch_orig[RT_PATCH_MAX];
	/* with HOP and RETARGET: dead bytes (padding nothing runs or lands
	 * in) that hold the jump to the trampoline */
	rt_raddr relay_lo;
	bool relay_hosted;        /* the relay lies in the region of another
				   * site past its jump: it goes when that
				   * jump goes */
	bool patch_hosts;         /* the region past the jump may hold relays
				   * of other sites: only the jump is
				   * written there */
	rt_raddr tramp;           /* its trampoline, once placed */
	rt_raddr resume_tramp;    /* a breakpoint's: where the thread resumes
				   * to record the entry in the process
				   * (rt_patch_resume_tramp()), or 0 */
	uint32_t inl_at;          /* with RT_PROBE_INLINED: its first event
				   * in the plan's list of inlined calls */
	uint16_t ninl;            /* and how many there are here */
	/* while planning, one probe per instance: its rank in the plan's
	 * instances, whether it is the instance's exit, and the instance's
	 * depth (nested ones end first) */
	bool inl_exit;
	uint16_t inl_depth;
};

/* One event an RT_PROBE_INLINED probe records for an inlined call, as the
 * breakpoint and the trampoline alike record it. */
struct rt_inl_rec {
	uint32_t func;            /* function id in the log */
	uint8_t kind;             /* RT_EV_ENTRY, or RT_EV_EXIT of an
				   * instance whose exit is probed */
	uint8_t flags;            /* RT_EVF_INLINED, with RT_EVF_TIMED on the
				   * entry of an instance whose exit is
				   * probed too */
	rt_raddr value;           /* run-time entry address of the instance:
				   * its exit names it so */
};

/* Whether @pr is reached by a jump rather than a breakpoint when its
 * process has the inline engine: patched, or recorded by the trampoline
 * of the site whose region covers it. */
static inline bool rt_probe_inline(const struct rt_probe *pr)
{
	return pr->patch_len || pr->joined;
}

/* One selected function and what became of it. */
struct rt_plan_func {
	uint32_t id;                /* function id in the log */
	const struct rt_func *fn;   /* owned by the rt_symbols */
	enum rt_refusal why;        /* RT_REFUSE_NONE when probed */
	rt_raddr why_at;            /* run-time address of the refused site */
	unsigned nexit, ntail;      /* sites besides the entry */
	uint8_t role;               /* enum rt_func_role */
	bool helper;                /* not selected: only its returns are
				     * probed, to end frames that tail-jumped
				     * into it, or only its entry, watched
				     * (after the selected ones) */
	bool inlined_only;          /* no out-of-line copy: only its
				     * inlined instances are probed */
	unsigned ninlined;          /* inlined instances probed */
	unsigned ninlined_refused;  /* and those that could not be */
	unsigned ninlined_packed;   /* instances whose code is vectorised:
				     * a pass through one is several calls */
	unsigned inlined_why[RT_REFUSE_MAX];  /* refused instances by
					       * reason */
};

/* One inlined instance of a selected function and what became of it. */
struct rt_plan_inlined {
	const struct rt_inlined_site *site;  /* owned by the plan */
	uint32_t id;                /* the function's id in the log */
	rt_raddr addr;              /* run-time entry address */
	enum rt_refusal why;        /* RT_REFUSE_NONE when probed (by a
				     * breakpoint) */
	rt_raddr exit;              /* run-time address of its exit probe,
				     * or 0: its calls are not timed */
	bool packed;                /* its code computes several lanes at
				     * once (a vectorised loop): its entry
				     * counts passes, each several calls */
};

struct rt_plan;

/* What to probe in one image. */
struct rt_plan_request {
	const size_t *idx;      /* selected functions (symbol indexes) */
	size_t n;
	const size_t *watch;    /* functions whose entry alone is probed,
				 * uncounted; may be NULL */
	size_t nwatch;
	const size_t *special;  /* functions probed for a role of their own
				 * (memory, the dynamic linker); may be NULL */
	const uint8_t *roles;   /* enum rt_func_role of each */
	size_t nspecial;
	/* reads the process's memory, to follow a PLT stub that a tail jump
	 * goes through to the function its GOT slot holds; may be NULL */
	int (*read)(void *ctx, rt_raddr addr, void *buf, size_t len);
	void *read_ctx;
	unsigned kinds;         /* RT_PROBE_* kinds wanted for selected
				 * functions; 0 = all */
	rt_raddr bias;          /* load bias at run time */
	uint32_t first_id;      /* log id of the first function */
	unsigned inline_kinds;  /* RT_PROBE_* kinds of traced functions the
				 * inline engine may patch; 0 = none (the
				 * breakpoint engine) */
	/* functions whose every hit must stop (a script acts on them):
	 * no site of theirs is patched; may be NULL */
	bool (*must_stop)(void *ctx, const struct rt_func *fn);
	void *must_stop_ctx;
	/* the inlined instances of the selected functions, from
	 * rt_inlined_find() on the same symbols with the same selection:
	 * an entry probe at each.  Taken over by the plan (freed with it,
	 * even on failure); may be NULL */
	struct rt_inlined *inlined;
};

/* Finds the sites of the selected functions of @syms and gives them log
 * ids first_id, first_id+1...  The functions that exist only inlined
 * follow, then helpers with the next ids: the
 * untraced targets of tail jumps (returns probed) and the watched
 * functions (entries probed); rt_plan_nfuncs() counts them all.  A
 * function that cannot be probed safely is kept with its reason and gets
 * no probes.  Returns 0 or -errno; free with rt_plan_put(). */
int rt_plan_new(const struct rt_symbols *syms,
		const struct rt_plan_request *req, struct rt_plan **out);

/* Takes one more reference (a forked child shares its parent's image). */
struct rt_plan *rt_plan_get(struct rt_plan *p);

/* Drops a reference and frees the plan with the last one; accepts NULL. */
void rt_plan_put(struct rt_plan *p);

/* Bytes of scratch area the plan needs (an upper bound). */
size_t rt_plan_scratch_size(const struct rt_plan *p);

/* Lays out every slot at scratch address @base and builds their code.  A
 * site whose slot cannot reach its targets refuses its whole function (its
 * other probes are dropped).  Returns 0 or -errno. */
int rt_plan_place(struct rt_plan *p, rt_raddr base);

/* Breakpoints in a row at the end of the scratch area: the tracer runs a
 * thread through them now and then to measure, in place, what a stop
 * costs (see tracer.c).  The address of the first one, once placed. */
#define RT_PLAN_CALIB_STOPS 8
rt_raddr rt_plan_calib_addr(const struct rt_plan *p);

/* Whether @ip lies strictly inside the bytes a planned jump replaces: a
 * thread there would come back into the middle of the jump. */
bool rt_plan_inside(const struct rt_plan *p, rt_raddr ip);

/* Sites whose patch would cover one of the @n instruction pointers @ips
 * (threads stopped there when rtrace joined) keep a breakpoint.  Before
 * rt_plan_place(). */
void rt_plan_avoid(struct rt_plan *p, const rt_raddr *ips, size_t n);

/* Where a thread stopped at @ip, the first byte of a relay, goes in the
 * original code: its site's region (none of it ran yet), or the target
 * of the re-aimed branch that led there (it was taken); 0 when @ip is
 * no relay.  For leaving the process with the code put back. */
rt_raddr rt_plan_relay_exit(const struct rt_plan *p, rt_raddr ip);

/* The inline engine's recorder in the scratch area, once placed; 0 when
 * no site is patched. */
#define RT_PLAN_REC_ALIGN 64
rt_raddr rt_plan_recorder(const struct rt_plan *p);

/* Makes the trampolines of @p call the recorder at @recorder (the
 * executable's, whose event area a library's probes share) instead of a
 * copy of their own.  Before rt_plan_place(). */
void rt_plan_use_recorder(struct rt_plan *p, rt_raddr recorder);

/* Sites patched with a jump (after rt_plan_place(), those that kept it). */
size_t rt_plan_npatched(const struct rt_plan *p);

/* Slot code to copy to the scratch area: *len bytes at the returned
 * pointer, valid until the plan is freed. */
const uint8_t *rt_plan_scratch_code(const struct rt_plan *p, size_t *len);
rt_raddr rt_plan_scratch_base(const struct rt_plan *p);

/* Probes in address order; valid until the plan is freed. */
size_t rt_plan_nprobes(const struct rt_plan *p);
const struct rt_probe *rt_plan_probe(const struct rt_plan *p, size_t i);

/* Index of probe @pr, which must belong to @p. */
size_t rt_plan_probe_index(const struct rt_plan *p, const struct rt_probe *pr);

/* The probe at run-time address @addr, or NULL.  O(1): hot path. */
const struct rt_probe *rt_plan_lookup(const struct rt_plan *p, rt_raddr addr);

/* Selected functions, probed or refused, in id order. */
size_t rt_plan_nfuncs(const struct rt_plan *p);
const struct rt_plan_func *rt_plan_func(const struct rt_plan *p, size_t i);

/* The function with log id @id, or NULL when the plan has none (an id
 * read from the program's memory is checked here).  Valid until the plan
 * is freed. */
const struct rt_plan_func *rt_plan_func_by_id(const struct rt_plan *p,
					      uint32_t id);

/* The inlined calls that end or begin at probe @pr (RT_PROBE_INLINED):
 * *n events in the order they happen (the exits first, innermost first,
 * then the entries, outermost first).  Valid until the plan is freed.
 * Hot path. */
const struct rt_inl_rec *rt_plan_inlined_recs(const struct rt_plan *p,
					      const struct rt_probe *pr,
					      size_t *n);

/* Inlined instances, probed or refused, in address order; valid until
 * the plan is freed. */
size_t rt_plan_ninlined(const struct rt_plan *p);
const struct rt_plan_inlined *rt_plan_inlined(const struct rt_plan *p,
					      size_t i);

/* Load bias the plan was built for. */
rt_raddr rt_plan_bias(const struct rt_plan *p);

#endif
