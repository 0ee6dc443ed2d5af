// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A value as its Rust type reads: integers, floats (float.c), bool and
 * char as {:?} writes them; &str and String as their text, bounded and escaped; slices and Vec
 * as their length and first elements; enums as the variant the
 * discriminant (DW_TAG_variant_part) selects; structs with their fields,
 * one level deep; references and raw pointers as the address (and the
 * value, for a reference to a scalar).
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "rtrace/util.h"
#include "values-int.h"

#define TEXT_MAX 200    /* bytes of a string shown */
#define ELEMS_MAX 8     /* elements of a slice shown */

/* ---- scalars, on bytes -------------------------------------------------- */

void rt_values_put_int(FILE *f, const uint8_t *b, size_t size, bool sign)
{
	unsigned __int128 u = 0;
	char buf[48], *p = buf + sizeof(buf);
	bool neg;

	size = MIN(size, sizeof(u));
	for (size_t i = size; i-- > 0;)
		u = u << 8 | b[i];
	neg = sign && size && (b[size - 1] & 0x80);
	if (neg)
		u = (size < sizeof(u) ? ((unsigned __int128)1 << (8 * size)) :
					0) - u;
	*--p = '\0';
	do {
		*--p = (char)('0' + (int)(u % 10));
		u /= 10;
	} while (u);
	if (neg)
		*--p = '-';
	fputs(p, f);
}

/* One character of a literal quoted by @quote, as Rust's escape_debug. */
static void put_escaped(FILE *f, uint32_t c, char quote)
{
	switch (c) {
	case '\t': fputs("\\t", f); return;
	case '\n': fputs("\\n", f); return;
	case '\r': fputs("\\r", f); return;
	case '\0': fputs("\\0", f); return;
	case '\\': fputs("\\\\", f); return;
	}
	if (c == (uint32_t)quote)
		fprintf(f, "\\%c", quote);
	else if (c < 0x20 || c == 0x7f)
		fprintf(f, "\\u{%" PRIx32 "}", c);
	else if (c < 0x80)
		fputc((int)c, f);
	else if (c < 0x800)
		fprintf(f, "%c%c", 0xc0 | c >> 6, 0x80 | (c & 0x3f));
	else if (c < 0x10000)
		fprintf(f, "%c%c%c", 0xe0 | c >> 12, 0x80 | (c >> 6 & 0x3f),
			0x80 | (c & 0x3f));
	else
		fprintf(f, "%c%c%c%c", 0xf0 | c >> 18, 0x80 | (c >> 12 & 0x3f),
			0x80 | (c >> 6 & 0x3f), 0x80 | (c & 0x3f));
}

void rt_values_put_char(FILE *f, uint32_t c)
{
	if (c > 0x10ffff || (c >= 0xd800 && c < 0xe000)) {
		fprintf(f, "<invalid char %#" PRIx32 ">", c);
		return;
	}
	fputc('\'', f);
	put_escaped(f, c, '\'');
	fputc('\'', f);
}

/* The UTF-8 sequence at @s (@n bytes left): its length, 0 when invalid. */
static size_t utf8_decode(const uint8_t *s, size_t n, uint32_t *c)
{
	size_t len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 :
		     (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;

	if (!len || len > n)
		return 0;
	*c = len == 1 ? s[0] : s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*c = *c << 6 | (s[i] & 0x3f);
	}
	return len;
}

void rt_values_put_text(FILE *f, const uint8_t *s, size_t len, bool more)
{
	fputc('"', f);
	for (size_t i = 0; i < len;) {
		uint32_t c;
		size_t k = utf8_decode(s + i, len - i, &c);

		if (!k) {
			/* a cut sequence at the bound, or bytes that are not
			 * UTF-8: shown, not decoded */
			fprintf(f, "\\x%02x", s[i++]);
			continue;
		}
		put_escaped(f, c, '"');
		i += k;
	}
	fputc('"', f);
	if (more)
		fputs("...", f);
}

/* ---- types ---------------------------------------------------------------- */

bool rt_vtype_strip(Dwarf_Die *t, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die cur = *t;

	for (int i = 0; i < 16; i++) {
		int tag = dwarf_tag(&cur);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type) {
			*out = cur;
			return true;
		}
		if (!dwarf_attr(&cur, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &cur))
			return false;
	}
	return false;
}

size_t rt_vtype_size(Dwarf_Die *t)
{
	Dwarf_Word size;
	int tag = dwarf_tag(t);

	if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type)
		return sizeof(uint64_t);
	return dwarf_aggregate_size(t, &size) == 0 ? (size_t)size : 0;
}

/* The type of DIE @d (a member, a parameter) without qualifiers. */
static bool type_of(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die t;

	return dwarf_attr_integrate(d, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, &t) && rt_vtype_strip(&t, out);
}

static size_t member_offset(Dwarf_Die *m)
{
	Dwarf_Attribute a;
	Dwarf_Word off = 0;

	if (dwarf_attr(m, DW_AT_data_member_location, &a))
		dwarf_formudata(&a, &off);
	return (size_t)off;
}

/* The child of @parent with tag @tag named @name. */
static bool child_named(Dwarf_Die *parent, int tag, const char *name,
			Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(parent, &c) != 0)
		return false;
	do {
		const char *n = dwarf_diename(&c);

		if (dwarf_tag(&c) == tag && n && strcmp(n, name) == 0) {
			*out = c;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Member @name of struct @s, with its offset. */
static bool member(Dwarf_Die *s, const char *name, Dwarf_Die *out,
		   size_t *off)
{
	if (!child_named(s, DW_TAG_member, name, out))
		return false;
	*off = member_offset(out);
	return true;
}

static bool read_u64(const struct vview *v, const struct lval *lv,
		     size_t off, uint64_t *out)
{
	*out = 0;
	return rt_vread(v, lv, off, out, sizeof(*out)) == 0;
}

static bool is_scalar(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);

	return tag == DW_TAG_base_type || tag == DW_TAG_enumeration_type ||
	       tag == DW_TAG_pointer_type;
}

/* ---- scalars, by type ------------------------------------------------------ */

static void base(FILE *f, const struct vview *v, Dwarf_Die *t,
		 const struct lval *lv)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	size_t size = rt_vtype_size(t);
	uint8_t b[16] = { 0 };
	uint32_t c;

	if (!size || size > sizeof(b) || rt_vread(v, lv, 0, b, size)) {
		fputs("<unreadable>", f);
		return;
	}
	if (dwarf_attr(t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	switch (enc) {
	case DW_ATE_boolean:
		fputs(b[0] == 1 ? "true" : b[0] ? "<invalid bool>" : "false",
		      f);
		return;
	case DW_ATE_UTF:
		memcpy(&c, b, sizeof(c));
		rt_values_put_char(f, c);
		return;
	case DW_ATE_float:
		if (size == sizeof(float) || size == sizeof(double))
			rt_values_put_float(f, b, size);
		else
			fputs("<unreadable>", f);
		return;
	}
	rt_values_put_int(f, b, size, enc == DW_ATE_signed ||
				       enc == DW_ATE_signed_char);
}

/* A fieldless enum (DW_TAG_enumeration_type): the enumerator's name. */
static void enumeration(FILE *f, const struct vview *v, Dwarf_Die *t,
			const struct lval *lv)
{
	size_t size = rt_vtype_size(t);
	uint64_t x = 0;
	Dwarf_Die c;

	if (!size || size > sizeof(x) || rt_vread(v, lv, 0, &x, size)) {
		fputs("<unreadable>", f);
		return;
	}
	if (dwarf_child(t, &c) == 0) {
		do {
			Dwarf_Attribute a;
			Dwarf_Word k;

			if (dwarf_tag(&c) == DW_TAG_enumerator &&
			    dwarf_attr(&c, DW_AT_const_value, &a) &&
			    dwarf_formudata(&a, &k) == 0 && k == x) {
				fputs(dwarf_diename(&c), f);
				return;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	fprintf(f, "%" PRIu64, x);
}

static void pointer(FILE *f, const struct vview *v, Dwarf_Die *t,
		    const struct lval *lv)
{
	const char *name = dwarf_diename(t);
	struct lval to = { .kind = LV_MEM };
	Dwarf_Die pt;

	if (!read_u64(v, lv, 0, &to.addr)) {
		fputs("<unreadable>", f);
		return;
	}
	fprintf(f, "0x%" PRIx64, to.addr);
	/* a raw pointer may dangle: only a reference is followed */
	if (name && name[0] == '&' && type_of(t, &pt) && is_scalar(&pt) &&
	    dwarf_tag(&pt) != DW_TAG_pointer_type) {
		fputs(" -> ", f);
		rt_vformat(f, v, &pt, &to, 1);
	}
}

/* ---- text and sequences ------------------------------------------------ */

static void text(FILE *f, const struct vview *v, rt_raddr p, uint64_t len)
{
	uint8_t buf[TEXT_MAX];
	size_t n = (size_t)MIN(len, (uint64_t)TEXT_MAX);

	if (n && rt_vmem(v, p, buf, n)) {
		fputs("<unreadable>", f);
		return;
	}
	rt_values_put_text(f, buf, n, len > n);
}

static void list(FILE *f, const struct vview *v, Dwarf_Die *elem, rt_raddr p,
		 uint64_t len)
{
	size_t size = elem ? rt_vtype_size(elem) : 0;

	fputc('[', f);
	if (len && (!elem || !is_scalar(elem) || !size))
		fputs("...", f);
	for (uint64_t i = 0; i < len && elem && is_scalar(elem) && size; i++) {
		struct lval at = { .kind = LV_MEM, .addr = p + i * size };

		if (i == ELEMS_MAX) {
			fputs(", ...", f);
			break;
		}
		fputs(i ? ", " : "", f);
		rt_vformat(f, v, elem, &at, 1);
	}
	fprintf(f, "] (len %" PRIu64 ")", len);
}

/* A fat pointer { data_ptr, length }: &str, &[T]. */
static bool fat(FILE *f, const struct vview *v, Dwarf_Die *t,
		const struct lval *lv)
{
	const char *name = dwarf_diename(t);
	Dwarf_Die pm, lm, pt, elem;
	size_t poff, loff;
	uint64_t p, len;

	if (!member(t, "data_ptr", &pm, &poff) ||
	    !member(t, "length", &lm, &loff))
		return false;
	if (!read_u64(v, lv, poff, &p) || !read_u64(v, lv, loff, &len))
		fputs("<unreadable>", f);
	else if (name && (strcmp(name, "&str") == 0 ||
			  strcmp(name, "&mut str") == 0))
		text(f, v, p, len);
	else
		list(f, v, type_of(&pm, &pt) && type_of(&pt, &elem) ? &elem
								    : NULL,
		     p, len);
	return true;
}

/* The first pointer inside @t (at most 6 structs deep), with its offset:
 * Vec's buffer is buf.inner.ptr.pointer.pointer or alike. */
static bool find_pointer(Dwarf_Die *t, size_t *off, int depth)
{
	Dwarf_Die c, ct;

	if (depth > 6 || dwarf_child(t, &c) != 0)
		return false;
	do {
		if (dwarf_tag(&c) != DW_TAG_member || !type_of(&c, &ct))
			continue;
		if (dwarf_tag(&ct) == DW_TAG_pointer_type) {
			*off += member_offset(&c);
			return true;
		}
		if (dwarf_tag(&ct) == DW_TAG_structure_type) {
			size_t in = 0;

			if (find_pointer(&ct, &in, depth + 1)) {
				*off += member_offset(&c) + in;
				return true;
			}
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The type parameter @name of generic struct @t (Vec's T). */
static bool type_param(Dwarf_Die *t, const char *name, Dwarf_Die *out)
{
	Dwarf_Die p;

	return child_named(t, DW_TAG_template_type_parameter, name, &p) &&
	       type_of(&p, out);
}

/* Vec<T> (a list) and String (its Vec<u8> as text). */
static bool vec(FILE *f, const struct vview *v, Dwarf_Die *t,
		const struct lval *lv)
{
	const char *name = dwarf_diename(t);
	bool is_string = name && strcmp(name, "String") == 0;
	Dwarf_Die m, vt, elem;
	size_t off = 0, poff = 0, loff;
	uint64_t p, len;

	if (is_string) {
		if (!member(t, "vec", &m, &off) || !type_of(&m, &vt))
			return false;
		t = &vt;
	} else if (!name || strncmp(name, "Vec<", 4) != 0) {
		return false;
	}
	if (!member(t, "len", &m, &loff) || !find_pointer(t, &poff, 0))
		return false;
	if (!read_u64(v, lv, off + poff, &p) ||
	    !read_u64(v, lv, off + loff, &len))
		fputs("<unreadable>", f);
	else if (is_string)
		text(f, v, p, len);
	else
		list(f, v, type_param(t, "T", &elem) ? &elem : NULL, p, len);
	return true;
}

/* ---- structs and enums ------------------------------------------------- */

/* Whether @t prints short, however deep: text, slices, Vec. */
static bool is_compact(Dwarf_Die *t)
{
	const char *name = dwarf_diename(t);
	Dwarf_Die m;
	size_t off;

	return name && (strcmp(name, "String") == 0 ||
			strncmp(name, "Vec<", 4) == 0 ||
			member(t, "data_ptr", &m, &off));
}

/* Name { a: 1, b: 2 }, Name(1, 2) for a tuple struct, Name for none; a
 * struct or enum inside shows as "..": one level deep. */
static void fields(FILE *f, const struct vview *v, Dwarf_Die *t,
		   const struct lval *lv, int depth)
{
	const char *name = dwarf_diename(t);
	bool tuple = false, any = false, anon = name && name[0] == '(';
	Dwarf_Die c, ct;

	fputs(anon ? "" : name ? name : "?", f);
	if (dwarf_child(t, &c) != 0) {
		fputs(anon ? "()" : "", f);
		return;
	}
	do {
		const char *n = dwarf_diename(&c);
		struct lval at = *lv;
		size_t off;

		if (dwarf_tag(&c) != DW_TAG_member || !n ||
		    !type_of(&c, &ct))
			continue;
		if (!any)
			tuple = strncmp(n, "__", 2) == 0;
		fputs(any ? ", " : tuple ? "(" : " { ", f);
		any = true;
		if (!tuple)
			fprintf(f, "%s: ", n);
		if (!is_scalar(&ct) && !is_compact(&ct)) {
			fputs("..", f);
			continue;
		}
		off = MIN(member_offset(&c), at.nbytes);
		if (at.kind == LV_MEM) {
			at.addr += member_offset(&c);
		} else {
			memmove(at.bytes, at.bytes + off, at.nbytes - off);
			at.nbytes -= off;
		}
		rt_vformat(f, v, &ct, &at, depth + 1);
	} while (dwarf_siblingof(&c, &c) == 0);
	if (any)
		fputs(tuple ? ")" : " }", f);
}

/* The variant whose discriminant value matches (or the default one). */
static bool pick_variant(const struct vview *v, Dwarf_Die *part,
			 const struct lval *lv, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die d, dt, c, pick;
	uint64_t x = 0, mask = UINT64_MAX;
	size_t size;
	bool found = false;

	if (dwarf_attr(part, DW_AT_discr, &a) && dwarf_formref_die(&a, &d) &&
	    type_of(&d, &dt)) {
		size = rt_vtype_size(&dt);
		if (!size || size > sizeof(x) ||
		    rt_vread(v, lv, member_offset(&d), &x, size))
			return false;
		if (size < sizeof(x))
			mask = (UINT64_C(1) << (8 * size)) - 1;
	}
	if (dwarf_child(part, &c) != 0)
		return false;
	do {
		Dwarf_Word k;

		if (dwarf_tag(&c) != DW_TAG_variant)
			continue;
		if (!dwarf_attr(&c, DW_AT_discr_value, &a)) {
			if (!found)
				pick = c;
			found = true;
		} else if (dwarf_formudata(&a, &k) == 0 && (k & mask) == x) {
			*out = c;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	if (found)
		*out = pick;
	return found;
}

static bool enumerated(FILE *f, const struct vview *v, Dwarf_Die *t,
		       const struct lval *lv, int depth)
{
	Dwarf_Die part, var, m, mt;

	if (dwarf_child(t, &part) != 0)
		return false;
	while (dwarf_tag(&part) != DW_TAG_variant_part)
		if (dwarf_siblingof(&part, &part) != 0)
			return false;
	if (!pick_variant(v, &part, lv, &var)) {
		fputs("<unknown variant>", f);
		return true;
	}
	if (dwarf_child(&var, &m) != 0 || !type_of(&m, &mt))
		return false;
	/* the variant is a struct at offset 0, named after it */
	fields(f, v, &mt, lv, depth);
	return true;
}

void rt_vformat(FILE *f, const struct vview *v, Dwarf_Die *type,
		const struct lval *lv, int depth)
{
	Dwarf_Die t;

	if (!rt_vtype_strip(type, &t)) {
		fputs("<no type>", f);
		return;
	}
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
		base(f, v, &t, lv);
		return;
	case DW_TAG_enumeration_type:
		enumeration(f, v, &t, lv);
		return;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
		pointer(f, v, &t, lv);
		return;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		if (fat(f, v, &t, lv) || vec(f, v, &t, lv) ||
		    enumerated(f, v, &t, lv, depth))
			return;
		fields(f, v, &t, lv, depth);
		return;
	}
	fprintf(f, "<%s>", dwarf_diename(&t) ?: "?");
}
