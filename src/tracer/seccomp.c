// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A thread's seccomp filters, run on a system call before rtrace makes it
 * there (seccomp.h).  The interpreter covers the classic BPF subset the
 * kernel accepts for seccomp (seccomp_check_filter()): 32-bit loads from
 * struct seccomp_data, immediates, scratch memory, ALU, forward jumps and
 * returns.  A program outside it is refused, never guessed at.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PR_FMT "seccomp"
#define PR_DOMAIN RT_DOM_TRACEE
#include "rtrace/arch.h"
#include "rtrace/log.h"
#include "rtrace/seccomp.h"
#include "rtrace/tracee.h"
#include "rtrace/util.h"

/* The kernel's limit on one filter's length. */
#define MAX_INSNS 4096
/* Filters a thread may have: beyond it, rtrace says it does not know. */
#define MAX_FILTERS 64

int rt_seccomp_mode(pid_t tid)
{
	char path[64], *status = NULL;
	const char *line;
	int mode = -ENOENT, err;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	err = read_file(path, &status, NULL);
	if (err)
		return err;
	line = strstr(status, "\nSeccomp:");
	if (line)
		mode = (int)strtol(line + 9, NULL, 10);
	free(status);
	return mode;
}

static int load_abs(const struct seccomp_data *d, uint32_t k, uint32_t *a)
{
	if (k % 4 || k + 4 > sizeof(*d))
		return -EINVAL;
	memcpy(a, (const uint8_t *)d + k, 4);
	return 0;
}

static int alu(uint16_t op, uint32_t *a, uint32_t v)
{
	switch (op) {
	case BPF_ADD: *a += v; break;
	case BPF_SUB: *a -= v; break;
	case BPF_MUL: *a *= v; break;
	case BPF_DIV: if (!v) return -EINVAL; *a /= v; break;
	case BPF_MOD: if (!v) return -EINVAL; *a %= v; break;
	case BPF_AND: *a &= v; break;
	case BPF_OR:  *a |= v; break;
	case BPF_XOR: *a ^= v; break;
	case BPF_LSH: *a = v < 32 ? *a << v : 0; break;
	case BPF_RSH: *a = v < 32 ? *a >> v : 0; break;
	case BPF_NEG: *a = -*a; break;
	default: return -EINVAL;
	}
	return 0;
}

/* The next pc after jump @f at @pc, with @a against @v. */
static size_t jump(const struct sock_filter *f, size_t pc, uint32_t a,
		   uint32_t v)
{
	bool t;

	switch (BPF_OP(f->code)) {
	case BPF_JA: return pc + 1 + f->k;
	case BPF_JEQ: t = a == v; break;
	case BPF_JGT: t = a > v; break;
	case BPF_JGE: t = a >= v; break;
	case BPF_JSET: t = (a & v) != 0; break;
	default: return SIZE_MAX;
	}
	return pc + 1 + (t ? f->jt : f->jf);
}

struct vm {
	uint32_t a, x, mem[BPF_MEMWORDS];
};

/* One non-jump, non-return instruction. */
static int step(struct vm *m, const struct sock_filter *f,
		const struct seccomp_data *d)
{
	uint32_t src = BPF_SRC(f->code) == BPF_X ? m->x : f->k;

	switch (f->code) {
	case BPF_LD | BPF_W | BPF_ABS: return load_abs(d, f->k, &m->a);
	case BPF_LD | BPF_W | BPF_LEN: m->a = sizeof(*d); return 0;
	case BPF_LDX | BPF_W | BPF_LEN: m->x = sizeof(*d); return 0;
	case BPF_LD | BPF_IMM: m->a = f->k; return 0;
	case BPF_LDX | BPF_IMM: m->x = f->k; return 0;
	case BPF_MISC | BPF_TAX: m->x = m->a; return 0;
	case BPF_MISC | BPF_TXA: m->a = m->x; return 0;
	}
	if (BPF_CLASS(f->code) == BPF_ALU)
		return alu(BPF_OP(f->code), &m->a, src);
	if (f->k >= BPF_MEMWORDS)
		return -EINVAL;
	switch (f->code) {
	case BPF_LD | BPF_MEM: m->a = m->mem[f->k]; return 0;
	case BPF_LDX | BPF_MEM: m->x = m->mem[f->k]; return 0;
	case BPF_ST: m->mem[f->k] = m->a; return 0;
	case BPF_STX: m->mem[f->k] = m->x; return 0;
	}
	return -EINVAL;
}

int rt_seccomp_run(const struct sock_filter *prog, size_t n,
		   const struct seccomp_data *data, uint32_t *ret)
{
	struct vm m = { 0 };

	/* jumps only go forward: at most @n instructions run */
	for (size_t pc = 0; pc < n && n <= MAX_INSNS;) {
		const struct sock_filter *f = &prog[pc];
		int err;

		if (BPF_CLASS(f->code) == BPF_RET) {
			*ret = BPF_RVAL(f->code) == BPF_A ? m.a : f->k;
			return BPF_RVAL(f->code) == BPF_A ||
			       BPF_RVAL(f->code) == BPF_K ? 0 : -EINVAL;
		}
		if (BPF_CLASS(f->code) == BPF_JMP) {
			pc = jump(f, pc, m.a,
				  BPF_SRC(f->code) == BPF_X ? m.x : f->k);
			continue;
		}
		err = step(&m, f, data);
		if (err)
			return err;
		pc++;
	}
	return -EINVAL;  /* ran off the end, or too long */
}

uint32_t rt_seccomp_combine(const uint32_t *rets, size_t n)
{
	uint32_t best = SECCOMP_RET_ALLOW;

	/* the kernel compares the actions as signed numbers, the lowest
	 * winning: KILL_PROCESS (negative) before KILL_THREAD (0), TRAP,
	 * ERRNO, USER_NOTIF, TRACE, LOG, ALLOW */
	for (size_t i = 0; i < n; i++)
		if ((int32_t)(rets[i] & SECCOMP_RET_ACTION_FULL) <
		    (int32_t)(best & SECCOMP_RET_ACTION_FULL))
			best = rets[i];
	return best;
}

static enum rt_seccomp_verdict verdict_of(uint32_t ret)
{
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW:
	case SECCOMP_RET_LOG:
		return RT_SECCOMP_RUNS;
	case SECCOMP_RET_ERRNO:
	case SECCOMP_RET_TRACE:  /* rtrace asks for no seccomp stops: ENOSYS */
		return RT_SECCOMP_FAILS;
	default:
		return RT_SECCOMP_UNSAFE;
	}
}

/* Every filter of @tid run on @d: 0 and *ret, or -errno when they
 * cannot all be read. */
static int run_filters(pid_t tid, const struct seccomp_data *d,
		       uint32_t *ret)
{
	struct sock_filter *prog = xmalloc(MAX_INSNS * sizeof(*prog));
	uint32_t rets[MAX_FILTERS];
	size_t nrets = 0;
	int err = 0;

	for (unsigned long i = 0;; i++) {
		int n = rt_tracee_seccomp_filter(tid, i, prog, MAX_INSNS);

		if (n == -ENOENT && i > 0)
			break;
		if (n < 0 || nrets == MAX_FILTERS) {
			err = n < 0 ? n : -E2BIG;
			break;
		}
		err = rt_seccomp_run(prog, (size_t)n, d, &rets[nrets++]);
		if (err)
			break;
	}
	free(prog);
	if (!err)
		*ret = rt_seccomp_combine(rets, nrets);
	return err;
}

enum rt_seccomp_verdict rt_seccomp_check(pid_t tid, long nr,
					 const uint64_t args[6], rt_raddr ip)
{
	struct seccomp_data d = {
		.nr = (int)nr, .arch = rt_arch_audit_arch(),
		.instruction_pointer = ip,
	};
	int mode = rt_seccomp_mode(tid), err;
	uint32_t ret;

	if (mode == 0)
		return RT_SECCOMP_RUNS;
	if (mode == SECCOMP_MODE_STRICT)
		return RT_SECCOMP_UNSAFE;
	memcpy(d.args, args, sizeof(d.args));
	err = mode < 0 ? mode : run_filters(tid, &d, &ret);
	if (err) {
		pr_dbg("thread %d: its seccomp filters cannot be read: %s",
		       tid, strerror(-err));
		return RT_SECCOMP_UNKNOWN;
	}
	return verdict_of(ret);
}
