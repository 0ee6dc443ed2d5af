// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test executables written with libelf: an ELF header for the host's
 * architecture, one PT_LOAD over the code, and .text, .symtab, .strtab
 * and .shstrtab.  Offsets are laid out by libelf; the program header is
 * filled in once they are known.
 */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrace/arch.h"
#include "rtrace/util.h"

#include "fakeelf.h"

/* String table @names (each NUL-terminated, the first empty); returns the
 * offset of @s added to it. */
static size_t add_str(char **tab, size_t *len, const char *s)
{
	size_t at = *len;

	*tab = xrealloc(*tab, *len + strlen(s) + 1);
	memcpy(*tab + at, s, strlen(s) + 1);
	*len += strlen(s) + 1;
	return at;
}

static Elf_Scn *add_scn(Elf *elf, uint32_t name, uint32_t type,
			uint64_t flags, void *buf, size_t size)
{
	Elf_Scn *scn = elf_newscn(elf);
	Elf_Data *d = elf_newdata(scn);
	GElf_Shdr sh;

	d->d_buf = buf;
	d->d_size = size;
	d->d_align = 1;
	d->d_type = ELF_T_BYTE;
	gelf_getshdr(scn, &sh);
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_flags = flags;
	gelf_update_shdr(scn, &sh);
	return scn;
}

/* The symbol table of @e: a null symbol, then one per function. */
static GElf_Sym *symbols(const struct fake_elf *e, char **str, size_t *len)
{
	GElf_Sym *tab = xcalloc(e->nsyms + 1, sizeof(*tab));

	for (size_t i = 0; i < e->nsyms; i++) {
		const struct fake_sym *s = &e->syms[i];

		tab[i + 1] = (GElf_Sym){
			.st_name = add_str(str, len, s->name),
			.st_info = GELF_ST_INFO(s->local ? STB_LOCAL
							  : STB_GLOBAL,
						STT_FUNC),
			.st_shndx = 1, .st_value = s->addr,
			.st_size = s->size,
		};
	}
	return tab;
}

static int write_elf(int fd, const struct fake_elf *e, GElf_Sym *syms,
		     char *str, size_t strlen_, char *shstr, size_t shlen,
		     const size_t *names)
{
	Elf *elf = elf_begin(fd, ELF_C_WRITE, NULL);
	Elf_Scn *text, *symtab;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Phdr ph;
	int err = -1;

	if (!elf || !gelf_newehdr(elf, ELFCLASS64) || !gelf_newphdr(elf, 1))
		goto out;
	text = add_scn(elf, names[0], SHT_PROGBITS,
		       SHF_ALLOC | SHF_EXECINSTR, (void *)e->code, e->len);
	gelf_getshdr(text, &sh);
	sh.sh_addr = e->base;
	gelf_update_shdr(text, &sh);
	symtab = add_scn(elf, names[1], SHT_SYMTAB, 0, syms,
			 (e->nsyms + 1) * sizeof(Elf64_Sym));
	elf_getdata(symtab, NULL)->d_type = ELF_T_SYM;
	gelf_getshdr(symtab, &sh);
	sh.sh_link = 3;
	sh.sh_info = 1;
	sh.sh_entsize = sizeof(Elf64_Sym);
	gelf_update_shdr(symtab, &sh);
	add_scn(elf, names[2], SHT_STRTAB, 0, str, strlen_);
	add_scn(elf, names[3], SHT_STRTAB, 0, shstr, shlen);
	gelf_getehdr(elf, &eh);
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_EXEC;
	eh.e_machine = RT_ARCH_ELF_MACHINE;
	eh.e_version = EV_CURRENT;
	eh.e_entry = e->entry ? e->entry : e->base;
	eh.e_shstrndx = 4;
	gelf_update_ehdr(elf, &eh);
	if (elf_update(elf, ELF_C_NULL) < 0)
		goto out;
	gelf_getshdr(text, &sh);
	ph = (GElf_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X,
			  .p_offset = sh.sh_offset, .p_vaddr = e->base,
			  .p_paddr = e->base, .p_filesz = e->len,
			  .p_memsz = e->len, .p_align = 1 };
	gelf_update_phdr(elf, 0, &ph);
	err = elf_update(elf, ELF_C_WRITE) < 0 ? -1 : 0;
out:
	elf_end(elf);
	return err;
}

char *fake_elf_write(const struct fake_elf *e)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *path = xasprintf("%s/rtrace-fakeelf.XXXXXX", dir);
	char *str = NULL, *shstr = NULL;
	size_t len = 0, shlen = 0, names[4];
	GElf_Sym *syms;
	int fd = mkstemp(path), err;

	if (fd < 0 || elf_version(EV_CURRENT) == EV_NONE) {
		free(path);
		return NULL;
	}
	add_str(&str, &len, "");
	syms = symbols(e, &str, &len);
	add_str(&shstr, &shlen, "");
	names[0] = add_str(&shstr, &shlen, ".text");
	names[1] = add_str(&shstr, &shlen, ".symtab");
	names[2] = add_str(&shstr, &shlen, ".strtab");
	names[3] = add_str(&shstr, &shlen, ".shstrtab");
	err = write_elf(fd, e, syms, str, len, shstr, shlen, names);
	close(fd);
	free(syms);
	free(str);
	free(shstr);
	if (err) {
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

struct rt_symbols *fake_elf_symbols(const struct fake_elf *e)
{
	char *path = fake_elf_write(e);
	struct rt_symbols *s = NULL;

	if (path && rt_symbols_open(path, 0, &s))
		s = NULL;
	if (path)
		unlink(path);
	free(path);
	return s;
}

const struct rt_plan_func *fake_plan_func(const struct rt_plan *p,
					  const char *name)
{
	for (size_t i = 0; p && i < rt_plan_nfuncs(p); i++)
		if (!strcmp(rt_plan_func(p, i)->fn->name, name))
			return rt_plan_func(p, i);
	return NULL;
}
