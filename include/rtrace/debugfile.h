/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where libdwfl looks for a module's separate debug file.
 */
#ifndef RTRACE_DEBUGFILE_H
#define RTRACE_DEBUGFILE_H

#include <elfutils/libdwfl.h>

/* A Dwfl_Callbacks find_debuginfo: libdwfl's standard search, asked only
 * when a debug file may be found (on this machine, or from the debuginfod
 * servers the user configured), its descriptor close-on-exec.  *@path is
 * libdwfl's, as with dwfl_standard_find_debuginfo(). */
int rt_find_debuginfo(Dwfl_Module *mod, void **user, const char *name,
		      Dwarf_Addr base, const char *file, const char *link,
		      GElf_Word crc, char **path);

#endif
