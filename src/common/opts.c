// SPDX-License-Identifier: GPL-2.0-or-later
/* Session configuration defaults. */
#include <string.h>

#include "rtrace/opts.h"

void rt_opts_init(struct rt_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->color = -1;
	o->sort = RT_SORT_SELF;
	o->inlined = true;
}

void rt_opts_release(struct rt_opts *o)
{
	vec_free(&o->include);
	vec_free(&o->exclude);
	vec_free(&o->exports);
	vec_free(&o->also_trace);
	vec_free(&o->stop_at);
}
