// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Function tables from ELF files.  libelf answers the questions about the
 * file itself (is it ELF, which machine, where are the code bytes); libdw's
 * Dwfl reads the symbols, so that .symtab, .dynsym and separate debug files
 * (build-id or .gnu_debuglink) all work, and the source lines.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PR_FMT "symbols"
#define PR_DOMAIN RT_DOM_SYMBOLS
#include "rtrace/debugfile.h"
#include "rtrace/demangle.h"
#include "rtrace/log.h"
#include "rtrace/symbols.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

#include "arch-regs.h"

struct text_section {
	rt_raddr addr;
	uint64_t size;
	const uint8_t *bytes;
};

typedef VEC(struct text_section) text_vec;

struct rt_symbols {
	char *path;
	unsigned flags;
	int fd;
	Elf *elf;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	bool pie;
	bool can_exec;      /* imports an exec-family function */
	char *interp;       /* PT_INTERP, or NULL */
	rt_raddr entry;
	VEC(struct rt_func) funcs;
	text_vec text;
	text_vec data;  /* read-only data, loaded on first
					 * use (jump tables) */
	bool data_loaded;
	VEC(struct rt_func *) unnamed;  /* code found through its unwind
					 * entry, not a symbol */
};

/* Failures are user errors when the user named the file, and mere facts
 * when rtrace met it on its own (a child's exec). */
#define sym_err(s, fmt, ...)                                                   \
	do {                                                                   \
		if ((s)->flags & RT_SYMS_QUIET)                                \
			pr_dbg(fmt, ##__VA_ARGS__);                            \
		else                                                           \
			pr_err(fmt, ##__VA_ARGS__);                            \
	} while (0)

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = rt_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* RT_SYMS_NO_DEBUG: a debug file's full symbol table, read for every
 * library a program maps, costs it milliseconds at each start. */
static int no_debuginfo(Dwfl_Module *mod, void **user, const char *name,
			Dwarf_Addr base, const char *file, const char *link,
			GElf_Word crc, char **path)
{
	(void)mod, (void)user, (void)name, (void)base, (void)file;
	(void)link, (void)crc, (void)path;
	return -1;
}

static const Dwfl_Callbacks own_symbols_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static void read_interp(struct rt_symbols *s, const GElf_Ehdr *eh)
{
	for (size_t i = 0; i < eh->e_phnum; i++) {
		GElf_Phdr ph;
		size_t len;
		const char *raw;

		if (!gelf_getphdr(s->elf, i, &ph) || ph.p_type != PT_INTERP)
			continue;
		raw = elf_rawfile(s->elf, &len);
		if (raw && ph.p_offset < len && ph.p_filesz <= len - ph.p_offset)
			s->interp = xstrndup(raw + ph.p_offset, ph.p_filesz);
		return;
	}
}

/* Says what is wrong with a file that cannot be traced, in one line. */
static int check_header(struct rt_symbols *s)
{
	GElf_Ehdr eh;

	if (elf_kind(s->elf) != ELF_K_ELF || !gelf_getehdr(s->elf, &eh)) {
		sym_err(s, "%s: not an ELF executable; rtrace traces compiled "
		       "programs (give the binary, not a script)", s->path);
		return -ENOEXEC;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != RT_ARCH_ELF_MACHINE) {
		sym_err(s, "%s: built for another architecture (ELF machine %u, "
		       "class %u); this rtrace traces %s programs", s->path,
		       eh.e_machine, eh.e_ident[EI_CLASS], RT_ARCH_NAME);
		return -ENOEXEC;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		sym_err(s, "%s: not an executable (ELF type %u)", s->path,
		       eh.e_type);
		return -ENOEXEC;
	}
	s->pie = eh.e_type == ET_DYN;
	s->entry = eh.e_entry;
	read_interp(s, &eh);
	return 0;
}

/* The loaded sections whose flags, of @mask, are @want. */
static void load_sections(struct rt_symbols *s, uint64_t mask, uint64_t want,
			  text_vec *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(s->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    (sh.sh_flags & mask) != want)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			continue;
		vec_push(out, ((struct text_section){
				      sh.sh_addr, sh.sh_size, d->d_buf }));
	}
}

static int load_text(struct rt_symbols *s)
{
	load_sections(s, SHF_EXECINSTR | SHF_ALLOC, SHF_EXECINSTR | SHF_ALLOC,
		      &s->text);
	return 0;
}

static int open_dwfl(struct rt_symbols *s)
{
	int fd;

	s->dwfl = dwfl_begin(s->flags & RT_SYMS_NO_DEBUG ?
				     &own_symbols_callbacks :
				     &offline_callbacks);
	if (!s->dwfl)
		goto fail;
	dwfl_report_begin(s->dwfl);
	/* libdwfl opens a file it is given by name without O_CLOEXEC, and
	 * the program rtrace starts next would inherit it: it gets a
	 * close-on-exec copy of ours instead, which it owns on success */
	fd = fcntl(s->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0) {
		int err = -errno;

		sym_err(s, "%s: cannot read symbols: %s", s->path,
			strerror(-err));
		return err;
	}
	/* report_elf at base 0 keeps link-time addresses; report_offline
	 * would move a PIE to an arbitrary base of its own */
	s->mod = dwfl_report_elf(s->dwfl, s->path, s->path, fd, 0, true);
	if (!s->mod) {
		close(fd);
		goto fail;
	}
	if (dwfl_report_end(s->dwfl, NULL, NULL) != 0)
		goto fail;
	return 0;
fail:
	sym_err(s, "%s: cannot read symbols, the ELF file is damaged or "
		"cut short: %s", s->path, dwfl_errmsg(-1));
	return -EINVAL;
}

static int cmp_func(const void *a, const void *b)
{
	const struct rt_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* among aliases, keep the longest size first, then the exported
	 * name (glibc's _dl_debug_state, not its __GI_ alias), then a
	 * stable name */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->global != y->global)
		return x->global ? -1 : 1;
	/* libc's malloc, not __libc_malloc */
	if (strspn(x->raw, "_") != strspn(y->raw, "_"))
		return strspn(x->raw, "_") < strspn(y->raw, "_") ? -1 : 1;
	return strcmp(x->raw, y->raw);
}

/* Sorts by address and keeps one function per address. */
static void dedup_funcs(struct rt_symbols *s)
{
	size_t out = 0;

	qsort(s->funcs.v, s->funcs.n, sizeof(*s->funcs.v), cmp_func);
	for (size_t i = 0; i < s->funcs.n; i++) {
		struct rt_func *f = &s->funcs.v[i];

		if (out && s->funcs.v[out - 1].addr == f->addr) {
			struct rt_func *kept = &s->funcs.v[out - 1];

			kept->aliases = xrealloc(kept->aliases,
						 (kept->naliases + 1) *
							 sizeof(char *));
			kept->aliases[kept->naliases++] = f->raw;
			free((char *)f->name);
			continue;
		}
		s->funcs.v[out++] = *f;
	}
	s->funcs.n = out;
}

/* Whether @name is a libc function that starts another program. */
static bool is_exec_import(const char *name)
{
	static const char *const names[] = {
		"execve", "execv", "execvp", "execvpe", "execl", "execlp",
		"execle", "fexecve", "execveat", "posix_spawn", "posix_spawnp",
	};

	/* .symtab may spell imports with their version: execvp@GLIBC_2.2.5 */
	size_t len = strcspn(name, "@");

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i]) == len && strncmp(name, names[i], len) == 0)
			return true;
	return false;
}

/* Why the section headers of @s cannot be what a linker wrote, or NULL:
 * a damaged file or one cut short must not be called stripped. */
static const char *damage_of(const struct rt_symbols *s)
{
	struct stat st;
	size_t n, strndx;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;

	if (fstat(s->fd, &st) || !gelf_getehdr(s->elf, &eh))
		return NULL;
	if (eh.e_shoff == 0)
		return NULL;  /* no section headers at all: stripped hard */
	if (elf_getshdrnum(s->elf, &n) || eh.e_shoff > (uint64_t)st.st_size ||
	    n * eh.e_shentsize > (uint64_t)st.st_size - eh.e_shoff)
		return "its section headers lie past its end";
	if (elf_getshdrstrndx(s->elf, &strndx) || strndx >= n)
		return "its section name table index is out of range";
	while ((scn = elf_nextscn(s->elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > (uint64_t)st.st_size ||
		     sh.sh_size > (uint64_t)st.st_size - sh.sh_offset))
			return "a section lies past its end";
	}
	return NULL;
}

static int load_funcs(struct rt_symbols *s)
{
	const char *damage = damage_of(s);
	int n;

	/* libdwfl finds a few symbols through the dynamic segment even
	 * then: the few it finds would make a damaged file look stripped
	 * or foreign */
	if (damage) {
		sym_err(s, "%s: cannot read symbols, the ELF file is damaged "
			"or cut short: %s", s->path, damage);
		return -EINVAL;
	}
	n = dwfl_module_getsymtab(s->mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(
			s->mod, i, &sym, &addr, NULL, NULL, NULL);

		if (name && sym.st_shndx == SHN_UNDEF && is_exec_import(name))
			s->can_exec = true;
		/* a function whose end wraps past 2^64 is a corrupt symbol:
		 * every addr + size (lookups, probe ranges) would wrap */
		if (!name || !*name || sym.st_size == 0 ||
		    sym.st_shndx == SHN_UNDEF || addr + sym.st_size < addr ||
		    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
			continue;
		vec_push(&s->funcs, ((struct rt_func){
					    .addr = addr,
					    .size = sym.st_size,
					    .name = rt_demangle(name),
					    .raw = xstrdup(name),
					    .global = GELF_ST_BIND(sym.st_info) !=
						      STB_LOCAL,
					}));
	}
	if (s->funcs.n == 0) {
		sym_err(s, "%s: no function symbols (the binary is stripped); "
		       "rebuild it with symbols: no `strip`, and in Cargo.toml "
		       "`strip = false` (or RUSTFLAGS=-Cstrip=none)", s->path);
		return -ENODATA;
	}
	dedup_funcs(s);
	pr_dbg("%s: %zu functions", s->path, s->funcs.n);
	return 0;
}

static int open_file(struct rt_symbols *s, const char *path)
{
	s->path = xstrdup(path);
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		int err = -errno;

		if (err == -ENOENT)
			sym_err(s, "%s: no such file", path);
		else
			sym_err(s, "cannot open %s: %s", path, strerror(-err));
		return err;
	}
	elf_version(EV_CURRENT);
	s->elf = elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	if (!s->elf) {
		sym_err(s, "%s: not an ELF executable; rtrace traces compiled "
		       "programs", path);
		return -ENOEXEC;
	}
	return 0;
}

int rt_symbols_open(const char *path, unsigned flags, struct rt_symbols **out)
{
	struct rt_symbols *s = xcalloc(1, sizeof(*s));
	int err;

	s->flags = flags;
	s->fd = -1;
	err = open_file(s, path);
	if (!err)
		err = check_header(s);
	if (!err)
		err = load_text(s);
	if (!err)
		err = open_dwfl(s);
	if (!err)
		err = load_funcs(s);
	if (err) {
		rt_symbols_free(s);
		return err;
	}
	*out = s;
	return 0;
}

void rt_symbols_free(struct rt_symbols *s)
{
	if (!s)
		return;
	vec_for_each(&s->funcs, f) {
		free((char *)f->name);
		free((char *)f->raw);
		free((char *)f->file);
		for (unsigned i = 0; i < f->naliases; i++)
			free((char *)f->aliases[i]);
		free(f->aliases);
	}
	vec_free(&s->funcs);
	vec_free(&s->text);
	vec_free(&s->data);
	vec_for_each(&s->unnamed, u) {
		free((char *)(*u)->name);
		free((char *)(*u)->raw);
		free(*u);
	}
	vec_free(&s->unnamed);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	free(s->path);
	free(s->interp);
	free(s);
}

const char *rt_symbols_path(const struct rt_symbols *s)
{
	return s->path;
}

size_t rt_symbols_count(const struct rt_symbols *s)
{
	return s->funcs.n;
}

const struct rt_func *rt_symbols_func(const struct rt_symbols *s, size_t i)
{
	return i < s->funcs.n ? &s->funcs.v[i] : NULL;
}

/* Index of the last function starting at or below @addr, or -1. */
static long floor_index(const struct rt_symbols *s, rt_raddr addr)
{
	long lo = 0, hi = (long)s->funcs.n - 1, best = -1;

	while (lo <= hi) {
		long mid = lo + (hi - lo) / 2;

		if (s->funcs.v[mid].addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

const struct rt_func *rt_symbols_lookup(const struct rt_symbols *s,
					rt_raddr addr)
{
	long i = floor_index(s, addr);

	if (i < 0 || addr >= s->funcs.v[i].addr + s->funcs.v[i].size)
		return NULL;
	return &s->funcs.v[i];
}

long rt_symbols_index_at(const struct rt_symbols *s, rt_raddr addr)
{
	long i = floor_index(s, addr);

	return i >= 0 && s->funcs.v[i].addr == addr ? i : -1;
}

static int read_from(const struct text_section *v, size_t n, rt_raddr addr,
		     void *buf, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		const struct text_section *t = &v[i];

		if (addr >= t->addr && len <= t->size &&
		    addr - t->addr <= t->size - len) {
			memcpy(buf, t->bytes + (addr - t->addr), len);
			return 0;
		}
	}
	return -ENOENT;
}

int rt_symbols_read(const struct rt_symbols *s, rt_raddr addr, void *buf,
		    size_t len)
{
	return read_from(s->text.v, s->text.n, addr, buf, len);
}

int rt_symbols_read_rodata(struct rt_symbols *s, rt_raddr addr, void *buf,
			   size_t len)
{
	if (!s->data_loaded) {
		s->data_loaded = true;
		load_sections(s, SHF_EXECINSTR | SHF_WRITE | SHF_ALLOC,
			      SHF_ALLOC, &s->data);
	}
	return read_from(s->data.v, s->data.n, addr, buf, len);
}

const char *rt_symbols_interp(const struct rt_symbols *s)
{
	return s->interp;
}

/* Whether symbol @sym is @name, a version suffix aside (.symtab may
 * spell a versioned symbol name@@VERSION). */
static bool same_symbol(const char *sym, const char *name, size_t len)
{
	return strncmp(sym, name, len) == 0 && (!sym[len] || sym[len] == '@');
}

bool rt_func_named(const struct rt_func *f, const char *name)
{
	size_t len = strlen(name);

	if (same_symbol(f->name, name, len) || same_symbol(f->raw, name, len))
		return true;
	for (unsigned i = 0; i < f->naliases; i++)
		if (same_symbol(f->aliases[i], name, len))
			return true;
	return false;
}

long rt_symbols_find(const struct rt_symbols *s, const char *name)
{
	for (size_t i = 0; i < s->funcs.n; i++)
		if (rt_func_named(&s->funcs.v[i], name))
			return i;
	return -1;
}

bool rt_symbols_can_exec(const struct rt_symbols *s)
{
	return s->can_exec;
}

bool rt_symbols_is_pie(const struct rt_symbols *s)
{
	return s->pie;
}

rt_raddr rt_symbols_entry(const struct rt_symbols *s)
{
	return s->entry;
}

void rt_symbols_text_range(const struct rt_symbols *s, rt_raddr *lo,
			   rt_raddr *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	vec_for_each(&s->text, t) {
		*lo = MIN(*lo, t->addr);
		*hi = MAX(*hi, t->addr + t->size);
	}
	if (*lo > *hi)
		*lo = *hi = 0;
}

/* A function whose declaration is looked for, by the unit holding it. */
struct decl_want {
	Dwarf_Off cu;
	Dwarf_Addr pc;            /* in the DWARF's addresses */
	struct rt_func *f;
};

static int cmp_decl_want(const void *a, const void *b)
{
	const struct decl_want *x = a, *y = b;

	if (x->cu != y->cu)
		return x->cu < y->cu ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

struct decl_unit {
	struct decl_want *w;      /* one unit's, sorted by pc */
	size_t n;
};

/* A subprogram of the unit: the declaration of a wanted function when
 * it starts at its address. */
static int take_decl(Dwarf_Die *die, void *arg)
{
	struct decl_unit *u = arg;
	struct decl_want key = { .cu = u->w[0].cu }, *hit;
	const char *file;
	int line = 0;

	if (dwarf_lowpc(die, &key.pc) != 0)
		return DWARF_CB_OK;
	hit = bsearch(&key, u->w, u->n, sizeof(*u->w), cmp_decl_want);
	file = hit ? dwarf_decl_file(die) : NULL;
	if (file && !hit->f->file && dwarf_decl_line(die, &line) == 0) {
		hit->f->file = xstrdup(file);
		hit->f->line = line;
	}
	return DWARF_CB_OK;
}

/*
 * Where each wanted function is declared: its DW_TAG_subprogram's
 * DW_AT_decl_file and decl_line.  At -O3 the first row of the line table
 * at a function's address is often code inlined into it (a line of
 * core/src/sync/atomic.rs), not the function.  dwarf_getfuncs() walks a
 * unit once for all its wanted functions (namespaces included).
 */
static void load_decls(struct rt_symbols *s, const bool *want)
{
	struct decl_want *w = xcalloc(s->funcs.n + 1, sizeof(*w));
	Dwarf_Addr bias = 0;
	size_t n = 0;

	for (size_t i = 0; i < s->funcs.n; i++) {
		struct rt_func *f = &s->funcs.v[i];
		Dwarf_Die *cu;

		if (!want[i] || f->file)
			continue;
		cu = dwfl_module_addrdie(s->mod, f->addr, &bias);
		if (cu)
			w[n++] = (struct decl_want){ .cu = dwarf_dieoffset(cu),
						     .pc = f->addr - bias,
						     .f = f };
	}
	qsort(w, n, sizeof(*w), cmp_decl_want);
	for (size_t i = 0, j; i < n; i = j) {
		struct decl_unit u = { .w = &w[i] };
		Dwarf_Die *cu = dwfl_module_addrdie(s->mod, w[i].f->addr, &bias);

		for (j = i; j < n && w[j].cu == w[i].cu; j++)
			u.n++;
		if (cu)
			(void)dwarf_getfuncs(cu, take_decl, &u, 0);
	}
	free(w);
}

int rt_symbols_load_lines(struct rt_symbols *s, const bool *want)
{
	load_decls(s, want);
	/* without a declaration: the first row of the line table */
	for (size_t i = 0; i < s->funcs.n; i++) {
		struct rt_func *f = &s->funcs.v[i];
		Dwfl_Line *line;
		const char *file;
		int lineno = 0;

		if (!want[i] || f->file)
			continue;
		line = dwfl_module_getsrc(s->mod, f->addr);
		if (!line)
			continue;
		file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
		if (file) {
			f->file = xstrdup(file);
			f->line = lineno;
		}
	}
	return 0;
}

struct Dwarf *rt_symbols_dwarf(const struct rt_symbols *s, uint64_t *bias)
{
	Dwarf_Addr b = 0;
	Dwarf *dw = dwfl_module_getdwarf(s->mod, &b);

	*bias = b;
	return dw;
}

char *rt_symbols_main_crate(const struct rt_symbols *s)
{
	vec_for_each(&s->funcs, f) {
		const char *sep = strstr(f->name, "::");

		/* "krate::main": one path separator, not std's */
		if (sep && strcmp(sep, "::main") == 0 && !strchr(f->name, '<') &&
		    !str_starts(f->name, "std::"))
			return xstrndup(f->name, sep - f->name);
	}
	return NULL;
}

/* The bounds of the code at @addr from its unwind entry (.eh_frame FDE). */
static bool fde_range(const struct rt_symbols *s, rt_raddr addr,
		      rt_raddr *lo, rt_raddr *hi)
{
	Dwarf_Addr bias = 0, start, end;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(s->mod, &bias);
	Dwarf_Frame *frame = NULL;
	bool ok;

	if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
		return false;
	ok = dwarf_frame_info(frame, &start, &end, NULL) >= 0;
	free(frame);
	*lo = start + bias;
	*hi = end + bias;
	return ok && *lo < *hi;
}

const struct rt_func *rt_symbols_code_at(const struct rt_symbols *cs,
					 rt_raddr addr)
{
	/* the table of unnamed code is a cache: it grows, the symbols do
	 * not change, so the table stays logically const */
	struct rt_symbols *s = (struct rt_symbols *)cs;
	const struct rt_func *fn = rt_symbols_lookup(s, addr);
	struct rt_func *u;
	rt_raddr lo, hi;

	if (fn)
		return fn;
	vec_for_each(&s->unnamed, e)
		if (addr >= (*e)->addr && addr < (*e)->addr + (*e)->size)
			return *e;
	if (!fde_range(s, addr, &lo, &hi))
		return NULL;
	u = xcalloc(1, sizeof(*u));
	u->addr = lo;
	u->size = hi - lo;
	u->raw = xasprintf("code@%#llx", (unsigned long long)lo);
	u->name = xstrdup(u->raw);
	vec_push(&s->unnamed, u);
	return u;
}
