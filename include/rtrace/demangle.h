/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rust symbol demangling (legacy and v0) through libiberty. */
#ifndef RTRACE_DEMANGLE_H
#define RTRACE_DEMANGLE_H

/* Demangles @sym (Rust legacy "_ZN...17h<hash>E", Rust v0 "_R...", or C++),
 * dropping the hash and ".llvm.<n>"-style suffixes.  Returns a new string the
 * caller frees; a symbol that is not mangled comes back as a copy of itself
 * (without its suffix). */
char *rt_demangle(const char *sym);

#endif
