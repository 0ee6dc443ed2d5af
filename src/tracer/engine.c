// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which engine a session runs (engine.h), decided here and nowhere else.
 */
#include "rtrace/engine.h"
#include "rtrace/tracer.h"

const struct rt_engine_ops *rt_engine_choose(
	const struct rt_tracer_config *cfg)
{
	/* the jump engine falls back to breakpoints site by site (its
	 * plan_kinds), so asking for it is enough to run it */
	return cfg->plan.jumps ? &rt_engine_jump : &rt_engine_trap;
}
