// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A seed for the symbol-loader fuzzer (make-seeds.sh): a freestanding C
 * program of a few hundred bytes of code, with a leaf, a tail call, an
 * indirect call, and (with -DEXEC) an import of execve.
 */
extern int execve(const char *, char *const[], char *const[]);
static int table[4] = { 1, 2, 3, 4 };
__attribute__((noinline)) int leaf(int x) { return table[x & 3] * x; }
__attribute__((noinline)) int tail(int x) { return leaf(x + 1); }
__attribute__((noinline)) int ind(int (*f)(int), int x) { return f(x) + 1; }
#ifdef EXEC
__attribute__((noinline)) int run(void) { char *a[] = { 0 }; return execve("/bin/true", a, a); }
#endif
void _start(void)
{
	int v = ind(tail, 3);
#ifdef EXEC
	v += run();
#endif
	__asm__ volatile("syscall" :: "a"(60), "D"(v));
	__builtin_unreachable();
}
