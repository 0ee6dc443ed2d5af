// SPDX-License-Identifier: GPL-2.0-or-later
/* Checked allocation and small helpers. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rtrace/util.h"

uint64_t rt_syscalls;

static void __noreturn out_of_memory(size_t size)
{
	fprintf(stderr, "rtrace: out of memory (asked for %zu bytes)\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		out_of_memory(size);
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		out_of_memory(strlen(s) + 1);
	return d;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (!d)
		out_of_memory(n + 1);
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		out_of_memory(strlen(fmt));
	return s;
}

bool str_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Reads @fd to its end, refusing (-EFBIG) more than @max bytes. */
static int read_fd(int fd, size_t max, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = xmalloc(cap);

	for (;;) {
		ssize_t r;

		if (n > max) {
			free(b);
			return -EFBIG;
		}
		if (n + 1 >= cap)
			b = xrealloc(b, cap *= 2);
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(b);
			return err;
		}
		if (r == 0)
			break;
		n += r;
	}
	b[n] = '\0';
	*buf = b;
	if (len)
		*len = n;
	return 0;
}

int read_file(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = read_fd(fd, SIZE_MAX - 1, buf, len);
	close(fd);
	return err;
}

int read_regular_file(const char *path, size_t max, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	int err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st))
		err = -errno;
	else if (!S_ISREG(st.st_mode))
		err = -EINVAL;
	else if ((uint64_t)st.st_size > max)
		err = -EFBIG;
	else  /* checked again as it is read: the file may grow */
		err = read_fd(fd, max, buf, len);
	close(fd);
	return err;
}

int write_all_done(int fd, const void *buf, size_t len, size_t *done)
{
	const char *p = buf;

	*done = 0;
	while (*done < len) {
		ssize_t w = write(fd, p + *done, len - *done);

		rt_syscalls++;
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -ENOSPC;
		*done += (size_t)w;
	}
	return 0;
}

int write_all(int fd, const void *buf, size_t len)
{
	size_t done;

	return write_all_done(fd, buf, len, &done);
}

int fd_set_cloexec(int fd)
{
	if (fd >= 0)
		fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
	return fd;
}

int parse_duration_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			*ns = (uint64_t)(v * units[i].mult + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

int parse_size_bytes(const char *s, uint64_t *bytes)
{
	static const char units[] = "KMGT";
	const char *u;
	double v, mult = 1;
	char *end;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0 || !isdigit((unsigned char)*s))
		return -EINVAL;
	if (*end && (u = strchr(units, toupper((unsigned char)*end)))) {
		for (long i = 0; i <= u - units; i++)
			mult *= 1024;
		end++;
		if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0)
			end += strlen(end);
	} else if (strcmp(end, "B") == 0) {
		end++;
	}
	if (*end || v * mult >= 18e18)
		return -EINVAL;
	*bytes = (uint64_t)(v * mult + 0.5);
	return 0;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

const int rt_crash_signals[RT_N_CRASH_SIGNALS] = {
	SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGSYS,
};

int rt_fault_state;
static char fault_point[64];
static unsigned long fault_left;

static void fault_setup(void)
{
	const char *env = getenv("RTRACE_FAULT");
	const char *colon;

	rt_fault_state = 1;
	if (!env || !*env)
		return;
	colon = strchr(env, ':');
	snprintf(fault_point, sizeof(fault_point), "%.*s",
		 (int)(colon ? colon - env : (long)strlen(env)), env);
	fault_left = colon ? strtoul(colon + 1, NULL, 10) : 1;
	if (fault_left)
		rt_fault_state = 2;
}

void rt_fault_check(const char *point)
{
	if (!rt_fault_state)
		fault_setup();
	if (rt_fault_state != 2 || strcmp(point, fault_point) || --fault_left)
		return;
	fprintf(stderr, "rtrace: injected fault at '%s' (RTRACE_FAULT)\n",
		point);
	abort();
}
