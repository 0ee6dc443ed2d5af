#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""md2man.py PAGE.md OUT.N: the man pages in docs/man/ to roff.

The pages are written in the subset of pandoc's Markdown that man pages
need, and this turns exactly that subset into man(7) roff, so that the
build needs no pandoc:

  % NAME(N) title | manual     the title line, first
  # HEADING                    a section (.SH)
  ## Heading                   a subsection (.SS)
  paragraphs, blank-line separated
  **bold**, *italic*, `code` (bold), \\- and other backslash escapes
  [text](target) and <url>     the text, the url
  TERM / :   definition        a tagged paragraph (.TP), continuation
                               lines indented by four spaces
  * item                       a bulleted list
  ``` fenced code ```          an example, not filled
  | table | rows |             a table, drawn as aligned text
  ![alt](image)                left out: a terminal shows no images

Anything else is an error naming the line, so that a page never renders
as something other than what its source says.
"""
import re
import sys


def fail(path, lineno, msg):
    sys.exit(f"md2man: {path}:{lineno}: {msg}")


def roff_text(s):
    """Escapes plain text for roff: backslashes, and hyphens as minus."""
    return s.replace("\\", "\\e").replace("-", "\\-")


INLINE = re.compile(r"`([^`]+)`|\*\*(.+?)\*\*|\*(.+?)\*|"
                    r"!\[[^\]]*\]\([^)]*\)|\[([^\]]+)\]\(([^)]*)\)|"
                    r"<(https?://[^>]+)>|\\(.)")


def inline(s):
    out, pos = [], 0
    for m in INLINE.finditer(s):
        out.append(roff_text(s[pos:m.start()]))
        code, bold, ital, ltext, _ltarget, url, esc = m.groups()
        if code is not None:
            out.append("\\fB" + roff_text(code) + "\\fR")
        elif bold is not None:
            out.append("\\fB" + inline(bold) + "\\fR")
        elif ital is not None:
            out.append("\\fI" + inline(ital) + "\\fR")
        elif ltext is not None:
            out.append(inline(ltext))
        elif url is not None:
            out.append(roff_text(url))
        elif esc is not None:
            out.append(roff_text(esc))
        pos = m.end()
    out.append(roff_text(s[pos:]))
    return "".join(out)


def line_out(s):
    """A text line: one starting with . or ' would be a request."""
    return "\\&" + s if s[:1] in (".", "'") else s


def table(rows):
    cells = [[c.strip() for c in r.strip().strip("|").split("|")]
             for r in rows if not re.match(r"^\|[\s:|-]+\|$", r.strip())]
    widths = [max(len(r[i]) for r in cells if i < len(r))
              for i in range(max(len(r) for r in cells))]
    if all(len(r) == 2 for r in cells):
        # a term and its meaning: a tagged paragraph fills the meaning
        out = []
        for r in cells[1:]:
            out += [".TP", line_out(inline(r[0])), line_out(inline(r[1]))]
        return out
    out = [".PP", ".nf"]
    for r in cells:
        text = "  ".join(c.ljust(widths[i]) for i, c in enumerate(r))
        out.append(line_out(roff_text(text.rstrip().replace("`", ""))))
    return out + [".fi"]


def convert(path, lines):
    m = re.match(r"^% (\S+)\((\d)\) (.*?) \| (.*)$", lines[0] if lines else "")
    if not m:
        fail(path, 1, "the first line must be '% NAME(N) title | manual'")
    out = ['.TH "%s" "%s" "" "%s" "%s"' % (m.group(1), m.group(2),
                                          m.group(3), m.group(4)),
           ".nh", ".ad l"]  # names like a::b::c must not be hyphenated
    i, n = 1, len(lines)
    while i < n:
        ln = lines[i]
        if not ln.strip():
            i += 1
        elif ln.startswith("```"):
            j = i + 1
            out += [".PP", ".RS 4", ".nf"]
            while j < n and not lines[j].startswith("```"):
                out.append(line_out(roff_text(lines[j])))
                j += 1
            if j == n:
                fail(path, i + 1, "code block never closed")
            out += [".fi", ".RE"]
            i = j + 1
        elif ln.startswith("## "):
            out.append('.SS "%s"' % inline(ln[3:].strip()))
            i += 1
        elif ln.startswith("# "):
            out.append('.SH "%s"' % inline(ln[2:].strip()))
            i += 1
        elif ln.startswith("|"):
            j = i
            while j < n and lines[j].startswith("|"):
                j += 1
            out += table(lines[i:j])
            i = j
        elif ln.startswith("!["):
            i += 1
        elif ln.startswith("* "):
            i = bullets(lines, i, out)
        elif i + 1 < n and lines[i + 1].startswith(":   "):
            i = definition(lines, i, out)
        elif ln.startswith(" ") or ln.startswith(":"):
            fail(path, i + 1, "indented text outside a list or definition")
        else:
            j = i
            while j < n and lines[j].strip() and not is_block(lines, j):
                j += 1
            out.append(".PP")
            out += [line_out(inline(x.strip())) for x in lines[i:j]]
            i = j
    return "\n".join(out) + "\n"


def is_block(lines, j):
    ln = lines[j]
    return (ln.startswith(("```", "#", "|", "* ", "![", ":   ")) or
            (j + 1 < len(lines) and lines[j + 1].startswith(":   ")))


def bullets(lines, i, out):
    while i < len(lines) and lines[i].startswith("* "):
        out += [".IP \\(bu 2", line_out(inline(lines[i][2:].strip()))]
        i += 1
        while i < len(lines) and lines[i].startswith("  ") and \
                lines[i].strip():
            out.append(line_out(inline(lines[i].strip())))
            i += 1
    return i


def definition(lines, i, out):
    out += [".TP", line_out(inline(lines[i].strip()))]
    i += 1
    while i < len(lines) and lines[i].startswith(":   "):
        out.append(line_out(inline(lines[i][4:].strip())))
        i += 1
        # continuation lines, and further paragraphs, indented by four
        while i < len(lines) and (lines[i].startswith("    ") or
                                  (not lines[i].strip() and i + 1 < len(lines)
                                   and lines[i + 1].startswith("    "))):
            if lines[i].strip():
                out.append(line_out(inline(lines[i].strip())))
            else:
                out.append(".IP")
            i += 1
        while i < len(lines) and not lines[i].strip() and \
                i + 1 < len(lines) and lines[i + 1].startswith(":   "):
            i += 1
    return i


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: md2man.py PAGE.md OUT.N")
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    roff = convert(path, lines)
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(roff)


if __name__ == "__main__":
    main()
