// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The function a thread is stopped in, as its DWARF describes it: its
 * parameters (DW_TAG_formal_parameter) by name, where each one is at the
 * ip, and where the ABI put its return value at a return.
 *
 * At a function's first instruction the debug information of unoptimised
 * code does not hold yet: it places the arguments in the stack slots that
 * the prologue has still to fill from the argument registers.  The
 * prologue's register saves are run on a copy of the registers (arch.h:
 * rt_arch_run_saves) from the original code in the ELF file (the process's
 * may carry a probe), and the values are read where that copy stands.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "rtrace/util.h"
#include "values-int.h"

#define PROLOGUE_MAX 256    /* bytes of code the saves are looked for in */

/* The DW_TAG_subprogram under @die whose code holds @pc.  Rust nests
 * them in namespaces (a module, an impl's type), which libdw's
 * dwarf_getscopes does not enter. */
static bool find_in(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;

	if (depth > 32 || dwarf_child(die, &c) != 0)
		return false;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			if (dwarf_haspc(&c, pc) == 1) {
				*out = c;
				return true;
			}
			break;
		case DW_TAG_namespace:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_enumeration_type:
			if (find_in(&c, pc, out, depth + 1))
				return true;
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Where the function's prologue ends by the line table: its
 * prologue_end, or else (as gdb does) its second statement line; 0 when
 * neither is known. */
static Dwarf_Addr prologue_end(struct vview *v)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	Dwarf_Addr low, high, a, second = 0;
	size_t n;

	if (!dwarf_diecu(&v->fn, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &n) != 0 ||
	    dwarf_lowpc(&v->fn, &low) != 0 || dwarf_highpc(&v->fn, &high) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool end = false, stmt = false;
		int line = 0;

		if (!l || dwarf_lineaddr(l, &a) != 0 || a < low || a >= high)
			continue;
		if (dwarf_lineprologueend(l, &end) == 0 && end)
			return a;
		if (!second && a > low && dwarf_linebeginstatement(l, &stmt) == 0 &&
		    stmt && dwarf_lineno(l, &line) == 0 && line)
			second = a;
	}
	return second;
}

/*
 * The functions found, by build id and module-relative ip: walking a CU
 * costs about a millisecond, which an on ... do print pays at every hit.
 * An entry keeps the DIE's offset, not the DIE, since the Dwarf it points
 * into goes with its process.
 */
#define FN_CACHE 64

static __thread struct fn_cached {
	uint8_t id[32];
	int idlen;                  /* 0: empty; negative: being found */
	Dwarf_Addr pc;
	Dwarf_Off off;
	Dwarf_Addr pend;            /* prologue_end() */
} fn_cache[FN_CACHE];

static struct fn_cached *cached(Dwfl_Module *mod, Dwarf_Addr pc, bool *hit)
{
	const unsigned char *id;
	GElf_Addr at;
	int n = dwfl_module_build_id(mod, &id, &at);
	struct fn_cached *c = &fn_cache[(pc ^ pc >> 7) % FN_CACHE];

	if (n <= 0 || n > (int)sizeof(c->id))
		return NULL;
	*hit = c->idlen == n && c->pc == pc && memcmp(c->id, id, n) == 0;
	if (!*hit) {
		memcpy(c->id, id, n);
		c->idlen = -n;      /* valid once found */
		c->pc = pc;
	}
	return c;
}

static int find_function(const struct rt_vframe *fr, struct vview *v)
{
	rt_raddr pc = rt_arch_ip(&fr->regs);
	Dwfl_Module *mod = dwfl_addrmodule(fr->dwfl, pc);
	Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &v->bias) : NULL;
	struct fn_cached *c;
	Dwarf_Die *cu;
	bool hit = false;

	if (!dw)
		return -ENODATA;
	c = cached(mod, pc - v->bias, &hit);
	if (hit && dwarf_offdie(dw, c->off, &v->fn)) {
		v->pend = c->pend;
		return 0;
	}
	cu = dwfl_module_addrdie(mod, pc, &v->bias);
	if (!cu || !find_in(cu, pc - v->bias, &v->fn, 0))
		return -ENODATA;
	v->pend = prologue_end(v);
	if (c) {
		c->off = dwarf_dieoffset(&v->fn);
		c->pend = v->pend;
		c->idlen = -c->idlen;
	}
	return 0;
}

/* Runs the prologue's register saves when the thread is at the entry. */
static void run_saves(struct vview *v)
{
	rt_raddr pc = rt_arch_ip(&v->regs);
	Dwfl_Module *mod = dwfl_addrmodule(v->fr->dwfl, pc);
	Dwarf_Addr low, at = pc, bias;
	Elf_Scn *scn;
	Elf_Data *d;

	if (v->fr->at_exit || dwarf_lowpc(&v->fn, &low) != 0 ||
	    low + v->bias != pc || !mod)
		return;
	scn = dwfl_module_address_section(mod, &at, &bias);
	d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || !d->d_buf || at >= d->d_size)
		return;
	v->nspills = rt_arch_run_saves((const uint8_t *)d->d_buf + at,
				       MIN(d->d_size - at, PROLOGUE_MAX),
				       &v->regs, v->fr->fp, v->spills,
				       SPILLS_MAX);
	/* a prologue that probes its stack (a call) first, say */
	v->early = rt_arch_ip(&v->regs) - v->bias < v->pend;
}

static const char *type_name(Dwarf_Die *t)
{
	Dwarf_Die s;

	if (!rt_vtype_strip(t, &s))
		return "?";
	return dwarf_diename(&s) ?: dwarf_tag(&s) == DW_TAG_pointer_type ?
				     "*" : "?";
}

/* NAME: TYPE = VALUE for parameter @p. */
static void print_param(FILE *f, const struct vview *v, Dwarf_Die *p)
{
	Dwarf_Attribute a, loc;
	Dwarf_Die t;
	struct lval lv;
	int err;

	if (!dwarf_attr_integrate(p, DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, &t)) {
		fprintf(f, "%s = <no type>\n", dwarf_diename(p) ?: "?");
		return;
	}
	fprintf(f, "%s: %s = ", dwarf_diename(p) ?: "?", type_name(&t));
	err = dwarf_attr(p, DW_AT_location, &loc) ? rt_vlocate(v, &loc, &lv)
						  : -ENODATA;
	/* one location for the whole function, in the frame: only the
	 * bytes the saves wrote are there yet */
	if (!err && v->early && dwarf_whatform(&loc) == DW_FORM_exprloc &&
	    lv.kind == LV_MEM && lv.frame &&
	    !rt_vsaved(v, lv.addr, rt_vtype_size(&t)))
		fputs("<not stored yet>", f);
	else if (err == -ENODATA)
		fputs("<optimised out>", f);
	else if (err)
		fputs("<location not understood>", f);
	else
		rt_vformat(f, v, &t, &lv, 0);
	fputc('\n', f);
}

/* Where the ABI left a value of type @t at a return, from rax and rdx:
 * a scalar pair (two scalar fields: &str, a slice, a two-field struct)
 * one in each; another value up to 16 bytes in both, as in memory; a
 * bigger one in memory, at the address the caller gave and rax keeps. */
static void returned(const struct vview *v, Dwarf_Die *t, struct lval *lv)
{
	uint64_t r[2] = { rt_arch_retval(&v->regs),
			  rt_arch_retval2(&v->regs) };
	size_t size = rt_vtype_size(t), off[2], n = 0;
	Dwarf_Die c, ct;

	memset(lv, 0, sizeof(*lv));
	if (size > 2 * sizeof(uint64_t)) {
		lv->addr = r[0];
		return;
	}
	lv->kind = LV_BYTES;
	lv->nbytes = 2 * sizeof(uint64_t);
	memcpy(lv->bytes, r, sizeof(r));
	if (dwarf_tag(t) != DW_TAG_structure_type || dwarf_child(t, &c) != 0)
		return;
	do {
		Dwarf_Attribute a;
		Dwarf_Word o = 0;

		if (dwarf_tag(&c) == DW_TAG_variant_part)
			return;
		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		if (n == 2 || !dwarf_attr_integrate(&c, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &ct) || !rt_vtype_strip(&ct, &ct) ||
		    (dwarf_tag(&ct) != DW_TAG_base_type &&
		     dwarf_tag(&ct) != DW_TAG_pointer_type))
			return;
		if (dwarf_attr(&c, DW_AT_data_member_location, &a))
			dwarf_formudata(&a, &o);
		off[n++] = (size_t)o;
	} while (dwarf_siblingof(&c, &c) == 0);
	if (n != 2 || off[0] != 0 || off[1] >= 2 * sizeof(uint64_t))
		return;
	memset(lv->bytes, 0, sizeof(lv->bytes));
	memcpy(lv->bytes, &r[0], off[1]);
	memcpy(lv->bytes + off[1], &r[1], sizeof(r[1]));
}

/* A float or double: in the ABI's float return register. */
static void returned_float(const struct vview *v, struct lval *lv)
{
	memset(lv, 0, sizeof(*lv));
	lv->kind = LV_BYTES;
	if (v->fr->fp)
		lv->nbytes = rt_arch_dwarf_vreg(v->fr->fp,
						rt_arch_dwarf_float_ret(),
						lv->bytes, sizeof(lv->bytes));
}

static int print_retval(FILE *f, const struct vview *v, const char **why)
{
	Dwarf_Attribute a;
	Dwarf_Die fn = v->fn, t, s;
	Dwarf_Word enc;
	struct lval lv;

	if (!v->fr->at_exit) {
		*why = "retval is known at an exit";
		return -EINVAL;
	}
	if (!dwarf_attr_integrate(&fn, DW_AT_type, &a) ||
	    !dwarf_formref_die(&a, &t)) {
		fputs("retval: () = ()\n", f);
		return 0;
	}
	fprintf(f, "retval: %s = ", type_name(&t));
	if (!rt_vtype_strip(&t, &s)) {
		fputs("<no type>\n", f);
		return 0;
	}
	if (dwarf_tag(&s) == DW_TAG_base_type &&
	    dwarf_attr(&s, DW_AT_encoding, &a) &&
	    dwarf_formudata(&a, &enc) == 0 && enc == DW_ATE_float)
		returned_float(v, &lv);
	else
		returned(v, &s, &lv);
	rt_vformat(f, v, &s, &lv, 0);
	fputc('\n', f);
	return 0;
}

int rt_values_print(FILE *f, const struct rt_vframe *fr, const char *what,
		    const char **why)
{
	struct vview v = { .fr = fr, .regs = fr->regs };
	bool all = strcmp(what, "args") == 0, found = false;
	Dwarf_Die c;

	if (find_function(fr, &v)) {
		*why = "no debug information describes the function";
		return -ENODATA;
	}
	if (strcmp(what, "retval") == 0)
		return print_retval(f, &v, why);
	if (fr->at_exit) {
		*why = "arguments are known at the entry";
		return -EINVAL;
	}
	run_saves(&v);
	if (dwarf_child(&v.fn, &c) == 0) {
		do {
			const char *n = dwarf_diename(&c);

			if (dwarf_tag(&c) != DW_TAG_formal_parameter ||
			    (!all && (!n || strcmp(n, what) != 0)))
				continue;
			print_param(f, &v, &c);
			found = true;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (all && !found)
		fputs("(no arguments)\n", f);
	if (!all && !found) {
		*why = "no argument of that name";
		return -ENOENT;
	}
	return 0;
}
