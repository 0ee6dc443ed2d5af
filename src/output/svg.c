// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * An SVG flame graph drawn by rtrace itself: one frame per calling context,
 * as wide as its weight and everything above it (self time, or calls),
 * the outermost calls at the bottom, siblings in name order as
 * flamegraph.pl draws them.  Self-contained and interactive: each frame's
 * <title> is the tooltip (name, calls, times), the line at the bottom
 * repeats it on hover, and a click zooms to the frame (a small inline
 * script; nothing is fetched).  Frames narrower than RT_FLAME_MIN_PX are
 * left out, with what is above them.
 *
 * The frames are laid out here, so the picture is right without the
 * script (in an <img>, or a viewer that runs none); the script only
 * re-lays them out on zoom, from the weights kept in data attributes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rtrace/output.h"
#include "rtrace/render.h"
#include "rtrace/util.h"
#include "rtrace/vec.h"

#define PAD 10        /* px left and right of the frames */
#define TOP 48        /* px above the topmost frame */
#define BOTTOM 40     /* px below the bottom frame: the details line */
#define FRAME_H 16
#define CHAR_W 7.3    /* px per character of the 12 px monospace font */

struct flame {
	FILE *out;
	const struct rt_view_ctx *v;
	struct rt_cct *t;
	uint64_t *weight;       /* per node, with everything above it */
	uint64_t *offset;       /* per node: its left edge, in weight */
	bool *drawn;
	uint32_t depth;         /* of the deepest frame drawn */
	size_t frames;
	bool calls;             /* weighted by calls */
	const char *what;       /* what the widths are */
};

static double px(const struct flame *f, uint64_t w)
{
	return (double)w * RT_FLAME_WIDTH / (double)f->weight[0];
}

/* Left edges: each node starts where its previous sibling ends, the first
 * child where its parent starts (its own weight is on the right). */
static void lay_out(struct flame *f)
{
	size_t n = rt_cct_size(f->t);
	VEC(uint64_t) next = { 0 };   /* by depth: where the next node goes */

	f->offset = xcalloc(n + 1, sizeof(*f->offset));
	f->drawn = xcalloc(n + 1, sizeof(*f->drawn));
	f->drawn[0] = f->weight[0] > 0;
	f->frames = f->drawn[0];
	vec_push(&next, 0);
	for (uint32_t i = rt_cct_next(f->t, 0); i; i = rt_cct_next(f->t, i)) {
		const struct rt_cct_node *nd = rt_cct_node(f->t, i);

		next.n = nd->depth;
		next.v[nd->depth - 1] = MAX(next.v[nd->depth - 1],
					    f->offset[nd->parent]);
		f->offset[i] = next.v[nd->depth - 1];
		next.v[nd->depth - 1] += f->weight[i];
		vec_push(&next, f->offset[i]);
		f->drawn[i] = f->drawn[nd->parent] && f->weight[i] &&
			      px(f, f->weight[i]) >= RT_FLAME_MIN_PX;
		if (f->drawn[i]) {
			f->frames++;
			f->depth = MAX(f->depth, nd->depth);
		}
	}
	vec_free(&next);
}

static unsigned height(const struct flame *f)
{
	return TOP + (f->depth + 1) * FRAME_H + BOTTOM;
}

/* flamegraph.pl's warm palette, from a hash of the name: the same
 * function has the same colour everywhere. */
static void colour(FILE *out, const char *name)
{
	uint64_t h = 1469598103934665603ULL;

	/* off the CPU: cold, unlike every warm frame that ran */
	if (!strcmp(name, "[blocked]")) {
		fputs("rgb(150,170,210)", out);
		return;
	}
	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = hash64(h);
	fprintf(out, "rgb(%u,%u,%u)", 205 + (unsigned)(h % 51),
		(unsigned)((h >> 16) % 231), (unsigned)((h >> 32) % 56));
}

/* The part of @name that fits @w px ("..", or nothing, when cut).  The
 * weights of a damaged log can add up past 2^64 and make @w anything,
 * NaN included: it is compared as a double before any conversion. */
static void label(FILE *out, const char *name, double w)
{
	double cols = (w - 6) / CHAR_W;
	size_t len = strlen(name), k, fit;
	char *cut;

	if (!(cols >= 3))
		return;
	fit = cols >= (double)len ? len : (size_t)cols;
	if (len <= fit) {
		rt_xml_string(out, name);
		return;
	}
	k = fit - 2;
	while (k && ((unsigned char)name[k] & 0xc0) == 0x80)
		k--;  /* never inside a UTF-8 sequence */
	cut = xstrndup(name, k);
	rt_xml_string(out, cut);
	fputs("..", out);
	free(cut);
}

static void frame_title(const struct flame *f, uint32_t i)
{
	const struct rt_cct_node *nd = rt_cct_node(f->t, i);
	char c[32], t[32], s[32];
	double pct = 100.0 * (double)f->weight[i] / (double)f->weight[0];

	rt_xml_string(f->out, rt_cct_name(f->t, i));
	if (!i) {
		fprintf(f->out, "\n%s: %s in all", f->what, f->calls ?
			rt_fmt_count(c, sizeof(c), f->weight[0]) :
			rt_fmt_duration(t, sizeof(t), f->weight[0]));
		return;
	}
	fprintf(f->out, "\ncalls %s, total %s, self %s; %.2f%% of all",
		rt_fmt_count(c, sizeof(c), nd->calls),
		rt_fmt_duration(t, sizeof(t), nd->total),
		rt_fmt_duration(s, sizeof(s), nd->self), pct);
}

static void write_frame(struct flame *f, uint32_t i)
{
	const struct rt_cct_node *nd = rt_cct_node(f->t, i);
	const char *name = rt_cct_name(f->t, i);
	double x = PAD + px(f, f->offset[i]), w = px(f, f->weight[i]);
	unsigned y = TOP + (f->depth - nd->depth) * FRAME_H;

	fprintf(f->out, "<g class=\"f\" data-d=\"%u\" data-x=\"%llu\" "
		"data-w=\"%llu\"><title>", nd->depth,
		(unsigned long long)f->offset[i],
		(unsigned long long)f->weight[i]);
	frame_title(f, i);
	fprintf(f->out, "</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" "
		"height=\"%u\" rx=\"2\" fill=\"", x, y, w, FRAME_H - 1);
	colour(f->out, name);
	fprintf(f->out, "\"/><text x=\"%.2f\" y=\"%.1f\">", x + 3,
		y + FRAME_H - 4.5);
	label(f->out, name, w);
	fputs("</text></g>\n", f->out);
}

static const char style[] =
"<style>\n"
"svg.rtrace-flame { font-family: monospace; font-size: 12px; }\n"
".rtrace-flame .f text { pointer-events: none; fill: #000; }\n"
".rtrace-flame .f { cursor: pointer; }\n"
".rtrace-flame .f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
".rtrace-flame .f.up rect { opacity: 0.5; }\n"
".rtrace-flame .title { font-size: 16px; text-anchor: middle; }\n"
".rtrace-flame .reset { cursor: pointer; fill: #06c; }\n"
"</style>\n";

/* Zoom: the clicked frame takes the full width; frames above it scale with
 * it, those that contain it (below) stay full width, faded; the rest hide. */
static const char script[] =
"<script><![CDATA[\n"
"(function () {\n"
"  function setup(svg) {\n"
"    if (svg.getAttribute('data-ready')) return;\n"
"    svg.setAttribute('data-ready', '1');\n"
"    var W = +svg.getAttribute('data-width'), X0 = +svg.getAttribute('data-x0');\n"
"    var frames = [].slice.call(svg.querySelectorAll('g.f'));\n"
"    var details = svg.querySelector('.details'), reset = svg.querySelector('.reset');\n"
"    if (!frames.length) return;\n"
"    function fit(text, name, w) {\n"
"      var n = Math.floor((w - 6) / 7.3);\n"
"      text.textContent = n < 3 ? '' : name.length <= n ? name : name.slice(0, n - 2) + '..';\n"
"    }\n"
"    function zoom(z) {\n"
"      var zx = +z.getAttribute('data-x'), zw = +z.getAttribute('data-w');\n"
"      var zd = +z.getAttribute('data-d'), k = W / zw;\n"
"      frames.forEach(function (g) {\n"
"        var x = +g.getAttribute('data-x'), w = +g.getAttribute('data-w');\n"
"        var d = +g.getAttribute('data-d'), r = g.querySelector('rect');\n"
"        var name = g.querySelector('title').textContent.split('\\n')[0];\n"
"        var nx, nw, show = true;\n"
"        if (d < zd && x <= zx && x + w >= zx + zw) { nx = 0; nw = W; }\n"
"        else if (d >= zd && x >= zx && x + w <= zx + zw) { nx = (x - zx) * k; nw = w * k; }\n"
"        else show = false;\n"
"        g.style.display = show ? '' : 'none';\n"
"        g.classList.toggle('up', show && d < zd);\n"
"        if (!show) return;\n"
"        r.setAttribute('x', (X0 + nx).toFixed(2));\n"
"        r.setAttribute('width', nw.toFixed(2));\n"
"        g.querySelector('text').setAttribute('x', (X0 + nx + 3).toFixed(2));\n"
"        fit(g.querySelector('text'), name, nw);\n"
"      });\n"
"      reset.style.display = z === frames[0] ? 'none' : '';\n"
"    }\n"
"    frames.forEach(function (g) {\n"
"      var info = g.querySelector('title').textContent.replace(/\\n/g, ': ');\n"
"      g.addEventListener('mouseover', function () { details.textContent = info; });\n"
"      g.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
"      g.addEventListener('click', function () { zoom(g); });\n"
"    });\n"
"    reset.addEventListener('click', function () { zoom(frames[0]); });\n"
"  }\n"
"  [].forEach.call(document.querySelectorAll('svg.rtrace-flame'), setup);\n"
"})();\n"
"]]></script>\n";

static void write_head(struct flame *f, bool embedded)
{
	unsigned w = RT_FLAME_WIDTH + 2 * PAD, h = height(f);

	if (!embedded)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" "
		      "standalone=\"no\"?>\n", f->out);
	fprintf(f->out, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/"
		"svg\" class=\"rtrace-flame\" width=\"%u\" height=\"%u\" "
		"viewBox=\"0 0 %u %u\" data-width=\"%u\" data-x0=\"%u\" "
		"data-frames=\"%zu\">\n%s", w, h, w, h, RT_FLAME_WIDTH, PAD,
		f->frames, style);
	fprintf(f->out, "<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"#f8f8f4\"/>\n<text class=\"title\" x=\"%u\" y=\"22\">"
		"Flame graph: %s</text>\n", w / 2,
		f->what);
	fprintf(f->out, "<text x=\"%u\" y=\"40\">", PAD);
	rt_xml_string(f->out, f->v->info->cmdline);
	fprintf(f->out, "</text>\n<text class=\"reset\" x=\"%u\" y=\"22\" "
		"style=\"display:none\">Reset zoom</text>\n", PAD);
	fprintf(f->out, "<text class=\"details\" x=\"%u\" y=\"%u\"> </text>\n",
		PAD, h - 14);
}

int rt_flame_write(FILE *out, const struct rt_view_ctx *v, struct rt_cct *t,
		   bool embedded)
{
	struct flame f = { .out = out, .v = v, .t = t,
			   .calls = v->o->weight == RT_WEIGHT_CALLS };

	rt_cct_sort(t, RT_CCT_BY_NAME);
	f.weight = rt_cct_weights(t, f.calls ? RT_CCT_CALLS : RT_CCT_SELF);
	f.what = f.calls ? "calls" : "self time";
	/* [blocked] frames weigh their time too: the widths are the calls'
	 * totals, the program's own time and its waits */
	for (uint32_t i = 1; !f.calls && i < rt_cct_size(t); i++)
		if (rt_cct_node(t, i)->key == RT_CCT_BLOCKED)
			f.what = "self time and blocked time";
	lay_out(&f);
	write_head(&f, embedded);
	if (!f.frames)
		fprintf(out, "<text x=\"%u\" y=\"%u\">Nothing to draw: no %s "
			"in the selection.</text>\n", PAD, TOP + 12,
			f.calls ? "calls" : "self time (a log of counts "
			"only? try --weight calls)");
	fputs("<g class=\"frames\">\n", out);
	/* the root first: the script's reset zooms back to it */
	for (uint32_t i = 0; f.frames; i = rt_cct_next(t, i)) {
		if (f.drawn[i])
			write_frame(&f, i);
		if (!rt_cct_next(t, i))
			break;
	}
	fputs("</g>\n", out);
	fputs(script, out);
	fputs("</svg>\n", out);
	free(f.weight);
	free(f.offset);
	free(f.drawn);
	return ferror(out) ? -EIO : 0;
}
