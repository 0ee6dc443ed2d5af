/* SPDX-License-Identifier: GPL-2.0-or-later */
/* (private) What the files of typed values share: a frame as its debug
 * information sees it, and a value's place. */
#ifndef RTRACE_VALUES_INT_H
#define RTRACE_VALUES_INT_H

#include <elfutils/libdw.h>

#include "rtrace/values.h"

#define SPILLS_MAX 64
#define VALUE_BYTES_MAX 64

struct vview {
	const struct rt_vframe *fr;
	struct rt_regs regs;        /* after the prologue's register saves */
	struct rt_spill spills[SPILLS_MAX];
	size_t nspills;
	bool early;                 /* the saves stopped short of the line
				     * table's prologue_end: a location
				     * that holds for the whole function
				     * may not be filled yet */
	Dwarf_Addr bias;            /* of the function's module */
	Dwarf_Die fn;               /* its DW_TAG_subprogram */
	Dwarf_Addr pend;            /* its prologue's end, module-relative
				     * (0: not known) */
};

/* Where a value is: in memory, or its bytes (registers, constants). */
struct lval {
	enum { LV_MEM, LV_BYTES } kind;
	rt_raddr addr;
	uint8_t bytes[VALUE_BYTES_MAX];
	size_t nbytes;
	bool frame;                 /* its address came from the stack or
				     * frame pointer */
};

/* Reads @len bytes at @addr as the frame sees them (the prologue's saves
 * over the memory): 0 or -EIO. */
int rt_vmem(const struct vview *v, rt_raddr addr, void *buf, size_t len);

/* Whether the prologue's saves wrote every byte of [@addr, @addr+@len). */
bool rt_vsaved(const struct vview *v, rt_raddr addr, size_t len);

/* Reads @len bytes from offset @off of value @lv: 0 or -EIO. */
int rt_vread(const struct vview *v, const struct lval *lv, size_t off,
	     void *buf, size_t len);

/* Places the value whose location is @attr at the view's ip: 0, -ENODATA
 * when it has none there (optimised out), -ENOTSUP for an expression
 * this evaluator does not know. */
int rt_vlocate(const struct vview *v, Dwarf_Attribute *attr,
	       struct lval *lv);

/* Writes the value of type @type at @lv; @depth is how deep in a struct
 * it is (0 for an argument). */
void rt_vformat(FILE *f, const struct vview *v, Dwarf_Die *type,
		const struct lval *lv, int depth);

/* @t without its typedefs and qualifiers, in *out; false when none. */
bool rt_vtype_strip(Dwarf_Die *t, Dwarf_Die *out);

/* The size of type @t in bytes (0 when unknown). */
size_t rt_vtype_size(Dwarf_Die *t);

#endif
