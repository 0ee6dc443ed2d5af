// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Seccomp filters run as the kernel would: programs written as raw
 * classic BPF words (code, jt, jf, k), not with the macros of the code
 * under test; results are the kernel's SECCOMP_RET_* values.
 *
 *   0x20 ld  [k]        (BPF_LD | BPF_W | BPF_ABS)
 *   0x00 ld  #k         (BPF_LD | BPF_IMM)
 *   0x15 jeq #k, jt, jf (BPF_JMP | BPF_JEQ | BPF_K)
 *   0x45 jset #k        (BPF_JMP | BPF_JSET | BPF_K)
 *   0x05 ja  +k         (BPF_JMP | BPF_JA)
 *   0x04 add #k         (BPF_ALU | BPF_ADD | BPF_K)
 *   0x34 div x          (BPF_ALU | BPF_DIV | BPF_X)
 *   0x02 st  M[k]       (BPF_ST)
 *   0x61 ldx M[k]       (BPF_LDX | BPF_W | BPF_MEM)
 *   0x87 txa            (BPF_MISC | BPF_TXA)
 *   0x06 ret #k         (BPF_RET | BPF_K)
 *   0x16 ret a          (BPF_RET | BPF_A)
 *
 * struct seccomp_data: nr at 0, arch at 4, ip at 8, args[i] at 16 + 8 i
 * (low word first on x86-64).
 */
#include <errno.h>

#include "rtrace/compiler.h"
#include "rtrace/seccomp.h"
#include "unittest.h"

#define KILL_PROCESS 0x80000000u
#define KILL_THREAD 0x00000000u
#define TRAP 0x00030000u
#define ERRNO(e) (0x00050000u | (e))
#define TRACE 0x7ff00000u
#define LOG 0x7ffc0000u
#define ALLOW 0x7fff0000u
#define X86_64 0xc000003eu

#define I(c, t, f, kk) { .code = (c), .jt = (t), .jf = (f), .k = (kk) }

static struct seccomp_data call(int nr, uint64_t a0)
{
	return (struct seccomp_data){ .nr = nr, .arch = X86_64,
				      .instruction_pointer = 0x401000,
				      .args = { a0 } };
}

/* The fixture's sandbox: memfd_create (319) kills the process. */
static const struct sock_filter kill_memfd[] = {
	I(0x20, 0, 0, 4),
	I(0x15, 0, 3, X86_64),
	I(0x20, 0, 0, 0),
	I(0x15, 0, 1, 319),
	I(0x06, 0, 0, KILL_PROCESS),
	I(0x06, 0, 0, ALLOW),
};

static uint32_t run(const struct sock_filter *p, size_t n,
		    struct seccomp_data d)
{
	uint32_t ret = 0xdeadbeef;

	if (rt_seccomp_run(p, n, &d, &ret))
		return 0xbad;
	return ret;
}

TEST_CASE(allow_all)
{
	static const struct sock_filter p[] = { I(0x06, 0, 0, ALLOW) };

	TEST_EQ(run(p, ARRAY_SIZE(p), call(9, 0)), ALLOW);
}

TEST_CASE(kill_one_call)
{
	struct seccomp_data other_arch = call(319, 0);

	other_arch.arch = 0x40000003;  /* i386 */
	TEST_EQ(run(kill_memfd, ARRAY_SIZE(kill_memfd), call(319, 0)),
		KILL_PROCESS);
	TEST_EQ(run(kill_memfd, ARRAY_SIZE(kill_memfd), call(9, 0)), ALLOW);
	TEST_EQ(run(kill_memfd, ARRAY_SIZE(kill_memfd), other_arch), ALLOW);
}

/* mmap (9) with PROT_EXEC (4) in its third argument traps: args[2]'s low
 * word is at 16 + 16 = 32. */
TEST_CASE(argument_bits)
{
	static const struct sock_filter p[] = {
		I(0x20, 0, 0, 0),
		I(0x15, 0, 3, 9),
		I(0x20, 0, 0, 32),
		I(0x45, 0, 1, 4),
		I(0x06, 0, 0, TRAP),
		I(0x06, 0, 0, ERRNO(1)),
	};
	struct seccomp_data d = call(9, 0);

	d.args[2] = 5;
	TEST_EQ(run(p, ARRAY_SIZE(p), d), TRAP);
	d.args[2] = 3;
	TEST_EQ(run(p, ARRAY_SIZE(p), d), ERRNO(1));
	TEST_EQ(run(p, ARRAY_SIZE(p), call(1, 0)), ERRNO(1));
}

/* nr + 1 through scratch memory and X: 320 for memfd_create (319). */
TEST_CASE(alu_memory_and_registers)
{
	static const struct sock_filter p[] = {
		I(0x20, 0, 0, 0),
		I(0x04, 0, 0, 1),
		I(0x02, 0, 0, 3),
		I(0x61, 0, 0, 3),
		I(0x00, 0, 0, 0),
		I(0x87, 0, 0, 0),
		I(0x15, 0, 1, 320),
		I(0x06, 0, 0, 1),
		I(0x16, 0, 0, 0),
	};

	TEST_EQ(run(p, ARRAY_SIZE(p), call(319, 0)), 1);
	TEST_EQ(run(p, ARRAY_SIZE(p), call(0, 0)), 1 + 0u);
	TEST_EQ(run(p, ARRAY_SIZE(p), call(41, 0)), 42);
}

TEST_CASE(unconditional_jump)
{
	static const struct sock_filter p[] = {
		I(0x05, 0, 0, 1),
		I(0x06, 0, 0, KILL_THREAD),
		I(0x06, 0, 0, LOG),
	};

	TEST_EQ(run(p, ARRAY_SIZE(p), call(0, 0)), LOG);
}

/* What the kernel would have refused to load is refused here too. */
TEST_CASE(malformed_programs)
{
	static const struct sock_filter past_end[] = { I(0x05, 0, 0, 5) };
	static const struct sock_filter unaligned[] = {
		I(0x20, 0, 0, 2), I(0x06, 0, 0, ALLOW),
	};
	static const struct sock_filter beyond_data[] = {
		I(0x20, 0, 0, 64), I(0x06, 0, 0, ALLOW),
	};
	static const struct sock_filter no_return[] = { I(0x00, 0, 0, 1) };
	static const struct sock_filter div_zero[] = {
		I(0x34, 0, 0, 0), I(0x06, 0, 0, ALLOW),
	};
	static const struct sock_filter bad_memory[] = {
		I(0x02, 0, 0, 16), I(0x06, 0, 0, ALLOW),
	};
	struct seccomp_data d = call(0, 0);
	uint32_t ret;

	TEST_EQ(rt_seccomp_run(past_end, 1, &d, &ret), -EINVAL);
	TEST_EQ(rt_seccomp_run(unaligned, 2, &d, &ret), -EINVAL);
	TEST_EQ(rt_seccomp_run(beyond_data, 2, &d, &ret), -EINVAL);
	TEST_EQ(rt_seccomp_run(no_return, 1, &d, &ret), -EINVAL);
	TEST_EQ(rt_seccomp_run(div_zero, 2, &d, &ret), -EINVAL);
	TEST_EQ(rt_seccomp_run(bad_memory, 2, &d, &ret), -EINVAL);
	TEST_EQ(rt_seccomp_run(NULL, 0, &d, &ret), -EINVAL);
}

/* Several filters: the kernel's precedence, whatever the order. */
TEST_CASE(combine_precedence)
{
	const uint32_t a[] = { ALLOW, ERRNO(13), LOG };
	const uint32_t b[] = { ALLOW, KILL_THREAD, KILL_PROCESS };
	const uint32_t c[] = { LOG, TRACE | 7 };
	const uint32_t d[] = { TRAP | 2, ERRNO(1) };

	TEST_EQ(rt_seccomp_combine(a, 3), ERRNO(13));
	TEST_EQ(rt_seccomp_combine(b, 3), KILL_PROCESS);
	TEST_EQ(rt_seccomp_combine(c, 2), TRACE | 7);
	TEST_EQ(rt_seccomp_combine(d, 2), TRAP | 2);
	TEST_EQ(rt_seccomp_combine(NULL, 0), ALLOW);
}
