/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "unittest.h"

static struct rt_test *tests, **tail = &tests;

void rt_test_register(struct rt_test *t)
{
	*tail = t;
	tail = &t->next;
}

static bool wanted(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return true;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return false;
}

int main(int argc, char **argv)
{
	int ok = 0, ng = 0;

	for (struct rt_test *t = tests; t; t = t->next) {
		bool failed = false;

		if (!wanted(t->name, argc, argv))
			continue;
		t->fn(&failed);
		printf("%s %s\n", failed ? "NG" : "OK", t->name);
		failed ? ng++ : ok++;
	}
	printf("%d passed, %d failed\n", ok, ng);
	return ng ? 1 : 0;
}
