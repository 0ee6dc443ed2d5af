// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A command's own help, cut from the whole help text.  The text is made
 * of paragraphs separated by blank lines, each opened by a heading line
 * ("Reporting (report, and the live report):"); the first is the usage,
 * one line per form.  In "Commands:" an entry starts two columns in, its
 * continuation lines further.  Cutting the one text, rather than keeping
 * a text per command, means an option documented once is documented for
 * every command that reads it.
 */
#include <string.h>

#include "rtrace/helptopic.h"
#include "rtrace/util.h"

struct topic {
	const char *command;
	const char *usage;        /* usage lines that contain it */
	const char *sections[5];  /* headings, by their start */
	const char *example;      /* example lines that contain it */
	const char *man;          /* its manual page */
	const char *extra;        /* an option of another section it reads */
};

#define TOPIC(cmd, use, ex, ...)                                               \
	{ .command = cmd, .usage = use, .example = ex,                         \
	  .man = "rtrace-" cmd, __VA_ARGS__ }

static const struct topic topics[] = {
	TOPIC("record", "record", "rtrace record",
	      .sections = { "Selecting functions", "Recording", "Views",
			    "General" }),
	TOPIC("report", "rtrace report", "rtrace report",
	      .sections = { "Reporting", "Views", "General" },
	      .extra = "  --mem "),
	TOPIC("tree", "rtrace tree", "rtrace tree",
	      .sections = { "Reporting", "Views", "General" }),
	TOPIC("replay", "rtrace replay", "rtrace replay",
	      .sections = { "Reporting", "Views", "General" }),
	TOPIC("export", "rtrace export", "export",
	      .sections = { "Export", "Views", "General" }),
	TOPIC("diff", "rtrace diff", "rtrace diff",
	      .sections = { "Reporting", "Views", "General" }),
};

/* The paragraph of @help whose heading starts with @heading, or NULL;
 * *len is its length up to (not with) the blank line. */
static const char *paragraph(const char *help, const char *heading,
			     size_t *len)
{
	for (const char *p = help; p && *p;) {
		const char *end = strstr(p, "\n\n");

		*len = end ? (size_t)(end - p) : strlen(p);
		while (*len && p[*len - 1] == '\n')
			(*len)--;
		if (str_starts(p, heading))
			return p;
		p = end ? end + 2 : NULL;
	}
	return NULL;
}

/* Each line of the paragraph at @p that contains @word; continuation
 * lines (indented further than an entry) follow the entry they belong
 * to when @entries.  With @usage, the lines are usage forms: the first
 * is headed "Usage:", the others aligned under it.  Returns how many
 * lines were printed. */
static unsigned lines_with(FILE *out, const char *p, size_t len,
			   const char *word, bool entries, bool usage)
{
	const char *end = p + len;
	bool taking = false;
	unsigned printed = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t skip = usage ? strspn(p, "Usage: ") : 0;
		bool cont = entries && strspn(p, " ") >= 8;

		if (!cont)
			taking = memmem(p, n, word, strlen(word)) != NULL;
		if (taking && skip < n)
			fprintf(out, "%s%.*s\n", !usage ? "" : printed ?
				"       " : "Usage: ", (int)(n - skip), p + skip);
		printed += taking;
		p += n + 1;
	}
	return printed;
}

bool rt_help_topic(FILE *out, const char *help, const char *command)
{
	const struct topic *t = NULL;
	const char *p;
	size_t len;
	char entry[32];

	for (size_t i = 0; i < ARRAY_SIZE(topics); i++)
		if (strcmp(topics[i].command, command) == 0)
			t = &topics[i];
	if (!t)
		return false;
	p = paragraph(help, "Usage:", &len);
	if (p)
		lines_with(out, p, len, t->usage, false, true);
	p = paragraph(help, "Commands:", &len);
	snprintf(entry, sizeof(entry), "  %s ", command);
	if (p) {
		fputc('\n', out);
		lines_with(out, p, len, entry, true, false);
	}
	for (size_t i = 0; i < ARRAY_SIZE(t->sections) && t->sections[i]; i++)
		if ((p = paragraph(help, t->sections[i], &len)))
			fprintf(out, "\n%.*s\n", (int)len, p);
	if (t->extra && (p = paragraph(help, "Recording", &len))) {
		fputs("\nAn option of the recording that it reads too:\n", out);
		lines_with(out, p, len, t->extra, true, false);
	}
	p = paragraph(help, "Examples:", &len);
	if (p) {
		fputs("\nExamples:\n", out);
		lines_with(out, p, len, t->example, false, false);
	}
	if ((p = paragraph(help, "Exit status:", &len)))
		fprintf(out, "\n%.*s\n", (int)len, p);
	fprintf(out, "\nEvery command and option: rtrace --help.  The manual: "
		"man %s.\n", t->man);
	return true;
}
