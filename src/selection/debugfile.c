// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The search for separate debug files (debugfile.h).
 *
 * libdwfl's standard search ends, when no file on this machine matches,
 * by asking debuginfod servers, and to do so libdw loads libdebuginfod
 * and with it libcurl and its TLS and Kerberos libraries - whether or not
 * any server is configured.  That costs every start of rtrace on a
 * program without debug information (a release build) milliseconds of
 * dynamic linking.  So the standard search runs only when it can find
 * something: when the user configured servers (DEBUGINFOD_URLS, as gdb
 * and the elfutils tools read it), or when a candidate file exists where
 * the standard search looks on this machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtrace/debugfile.h"
#include "rtrace/util.h"

#define DEBUG_ROOT "/usr/lib/debug"

static bool servers_configured(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && urls[strspn(urls, " \t")];
}

/* DEBUG_ROOT/.build-id/xx/yyyy.debug, the build id's debug file. */
static bool build_id_file_exists(Dwfl_Module *mod)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &id, &vaddr);
	char path[sizeof(DEBUG_ROOT "/.build-id/") + (size_t)2 * 64 + 8];
	size_t at;

	if (n < 2 || n > 64)
		return false;
	at = (size_t)snprintf(path, sizeof(path), DEBUG_ROOT "/.build-id/%02x/",
			      id[0]);
	for (int i = 1; i < n; i++)
		at += (size_t)snprintf(path + at, sizeof(path) - at, "%02x",
				       id[i]);
	snprintf(path + at, sizeof(path) - at, ".debug");
	return access(path, R_OK) == 0;
}

/* The .gnu_debuglink name @link next to @file, in its .debug folder, or
 * under DEBUG_ROOT with @file's folder: where the standard search looks. */
static bool debuglink_file_exists(const char *file, const char *link)
{
	const char *slash = file ? strrchr(file, '/') : NULL;
	int dir = slash ? (int)(slash - file) : 1;
	const char *dirname = slash ? file : ".";
	const char *formats[] = { "%.*s/%s", "%.*s/.debug/%s",
				  DEBUG_ROOT "%.*s/%s" };
	char path[4096];

	if (!link || !*link)
		return false;
	if (link[0] == '/')
		return access(link, R_OK) == 0;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		int n = snprintf(path, sizeof(path), formats[i], dir, dirname,
				 link);

		if (n > 0 && (size_t)n < sizeof(path) &&
		    access(path, R_OK) == 0)
			return true;
	}
	return false;
}

int rt_find_debuginfo(Dwfl_Module *mod, void **user, const char *name,
		      Dwarf_Addr base, const char *file, const char *link,
		      GElf_Word crc, char **path)
{
	if (!servers_configured() && !build_id_file_exists(mod) &&
	    !debuglink_file_exists(file, link))
		return -1;
	/* libdwfl opens the file without O_CLOEXEC: it would leak into
	 * every program rtrace starts while the module is loaded */
	return fd_set_cloexec(dwfl_standard_find_debuginfo(
		mod, user, name, base, file, link, crc, path));
}
