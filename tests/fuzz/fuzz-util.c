// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers shared by the harnesses (see fuzz.h). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char dir[256];
static char path[sizeof(dir) + 16];

static void remove_scratch(void)
{
	if (path[0])
		unlink(path);
	if (dir[0])
		rmdir(dir);
}

/* A private directory, so that what a module looks for next to the file
 * (a debug file named by .gnu_debuglink) is never someone else's. */
static int make_scratch(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(dir, sizeof(dir), "%s/rtrace-fuzz-XXXXXX", base);
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		return -1;
	}
	snprintf(path, sizeof(path), "%s/input", dir);
	atexit(remove_scratch);
	return 0;
}

const char *fuzz_file_put(const uint8_t *data, size_t size)
{
	int fd;

	if (!dir[0] && make_scratch() < 0)
		return NULL;
	/* A new file each time: a reader still mapping the old one (libelf
	 * maps it) never sees its bytes change under it. */
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	while (size) {
		ssize_t w = write(fd, data, size);

		if (w <= 0) {
			close(fd);
			return NULL;
		}
		data += w;
		size -= (size_t)w;
	}
	close(fd);
	return path;
}
