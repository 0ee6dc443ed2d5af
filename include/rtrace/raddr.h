/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An address in a tracee's address space.  It is never dereferenced by
 * rtrace; reads and writes go through tracee.h.  Kept distinct from host
 * pointers so that a tracee address cannot be passed where a pointer is
 * expected by accident.
 */
#ifndef RTRACE_RADDR_H
#define RTRACE_RADDR_H

#include <inttypes.h>
#include <stdint.h>

typedef uint64_t rt_raddr;

#define PRIxRADDR "#" PRIx64
#define RT_RADDR_NONE ((rt_raddr)0)

#endif
