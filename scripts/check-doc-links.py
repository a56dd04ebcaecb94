#!/usr/bin/env python3
"""Checks that every relative link in the manual resolves: README.md and docs/*.md by
default, or the Markdown files given as arguments. A link's file (or directory) must
exist, relative to the page; a `#anchor` must name a heading of its page, slugged as
GitHub slugs them. Links to other sites (`http:`, `https:`, `mailto:`) are not fetched.
Prints one line per broken link (`FILE:LINE: TARGET: reason`); exit status 1 if any."""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+).*?\1")


def lines_outside_code(text):
    """(line number, line) of the lines outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces
    to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, found = {}, set()
        for _, line in lines_outside_code(path.read_text(encoding="utf-8")):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def problems(page):
    for number, line in lines_outside_code(page.read_text(encoding="utf-8")):
        for m in LINK.finditer(CODE_SPAN.sub("", line)):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                yield number, target, "no such file"
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                yield number, target, f"no heading with the anchor #{anchor}"


def main(args):
    pages = [pathlib.Path(a).resolve() for a in args] or [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
    ]
    bad = 0
    for page in pages:
        for number, target, reason in problems(page):
            print(f"{page.relative_to(ROOT)}:{number}: {target}: {reason}")
            bad += 1
    sys.stdout.flush()
    print(f"{len(pages)} pages, {bad} broken links", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
