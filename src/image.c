// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a traced process runs: the symbols of its executable, the functions
 * the patterns select in it (matched again after every exec), and the probe
 * plan, built at the load bias of the live process.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PR_FMT "image"
#define PR_DOMAIN RT_DOM_TRACER
#include "rtrace/arm.h"
#include "rtrace/log.h"
#include "rtrace/util.h"

#include "tracer-int.h"


char *rt_image_exe(pid_t pid)
{
	char link[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, buf, sizeof(buf) - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

static void log_funcs(struct rt_tracer *tr, const struct rt_image *img)
{
	const struct rt_plan *plan = img->plan;
	size_t n = rt_plan_nfuncs(plan);
	struct rt_log_func *rows = xcalloc(n + 1, sizeof(*rows));

	for (size_t i = 0; i < n; i++) {
		const struct rt_plan_func *pf = rt_plan_func(plan, i);

		rows[i] = (struct rt_log_func){
			.id = pf->id, .refusal = pf->why,
			.addr = pf->fn->addr + img->bias, .size = pf->fn->size,
			.line = pf->fn->line, .name = pf->fn->name,
			.raw = pf->fn->raw, .module = rt_symbols_path(img->syms),
			.file = pf->fn->file,
			.flags = pf->helper ? RT_FUNC_HELPER : 0,
		};
		if (pf->helper)
			continue;
		if (pf->why)
			tr->st.refused++;
		else
			tr->st.funcs++;
	}
	rt_evlog_write_funcs(tr->cfg.log, rows, n);
	free(rows);
}

/* Symbols and selection for the image @p now runs. */
static int load_image(struct rt_tracer *tr, struct rt_process *p,
		      struct rt_symbols **syms, size_t **idx, size_t *n)
{
	char *exe;
	int err;

	if (!tr->first_exec_done && p->pid == tr->first_pid) {
		*syms = tr->cfg.first_syms;
		*n = tr->cfg.first_n;
		*idx = xmalloc((*n + 1) * sizeof(**idx));
		memcpy(*idx, tr->cfg.first_idx, *n * sizeof(**idx));
		tr->cfg.first_syms = NULL;
		return 0;
	}
	exe = rt_image_exe(p->pid);
	if (!exe)
		return -ENOENT;
	err = rt_symbols_open(exe, RT_SYMS_QUIET, syms);
	free(exe);
	if (err)
		return err;
	rt_matcher_reset(tr->cfg.matcher);
	*n = rt_select_funcs(*syms, tr->cfg.matcher, idx);
	return 0;
}

int rt_image_build(struct rt_tracer *tr, struct rt_process *p)
{
	struct rt_symbols *syms;
	struct rt_plan *plan = NULL;
	size_t *idx = NULL, n = 0;
	rt_raddr bias;
	int err = load_image(tr, p, &syms, &idx, &n);

	if (err)
		return err;
	err = rt_arm_bias(p->pid, syms, &bias);
	if (!err && n) {
		bool *want = xcalloc(rt_symbols_count(syms) + 1, 1);

		for (size_t i = 0; i < n; i++)
			want[idx[i]] = true;
		rt_symbols_load_lines(syms, want);
		free(want);
		err = rt_plan_new(syms, &(struct rt_plan_request){
					  .idx = idx, .n = n, .bias = bias,
					  .first_id = tr->next_func_id,
					  .kinds = tr->cfg.count_only ||
							   tr->cfg.coverage ?
						   RT_PROBE_ENTRY : 0 },
				  &plan);
		if (!err)
			tr->next_func_id += rt_plan_nfuncs(plan);
	}
	free(idx);
	if (err) {
		rt_symbols_free(syms);
		return err;
	}
	p->img = rt_image_new(syms, plan, bias);
	return 0;
}

void rt_image_log(struct rt_tracer *tr, struct rt_process *p)
{
	char *exe = rt_image_exe(p->pid);

	rt_evlog_write_process(tr->cfg.log, p->pid, p->ppid, exe ? exe : "");
	free(exe);
	log_funcs(tr, p->img);
}
