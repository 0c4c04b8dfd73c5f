"""The documentation's links hold: every relative link or image in README.md,
bench/README.md and docs/ (the generated docs/report/ aside) names a file that
exists, every #anchor names a heading of its target (GitHub's slugs), the
README stays one screenful of purpose (at most 200 lines), it links every page
of docs/, and no page names an issue number instead of a capability.

Plain file reading: no database, no server."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 200
PAGES = ("editors.md", "admins.md", "operations.md", "architecture.md", "evaluation.md", "decisions/README.md")

_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target "title") and ![alt](target); the text may hold one level of brackets.
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
_HTML_TARGET = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]+)\"", re.I)
_HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:id|name)=\"([^\"]+)\"", re.I)
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)
_ISSUE_NUMBER = re.compile(r"\bissues?\s*#?\d+", re.I)


def documents() -> list[Path]:
    pages = [ROOT / "README.md", ROOT / "bench" / "README.md"]
    pages += sorted(p for p in (ROOT / "docs").rglob("*.md") if "report" not in p.relative_to(ROOT / "docs").parts)
    return pages


def prose_lines(text: str, *, code: bool = False) -> list[str]:
    """The lines outside fenced code blocks, inline code spans removed
    unless ``code`` (a heading's code is part of its anchor)."""
    lines, fence = [], None
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1) == fence:
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        lines.append(line if code else _INLINE_CODE.sub("", line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text without Markdown, lower case,
    punctuation dropped (letters, digits, '_', '-' and spaces kept), spaces as '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images by their text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    text = unicodedata.normalize("NFC", text).lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in "_- " or unicodedata.category(ch) == "Mn")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in prose_lines(path.read_text(encoding="utf-8"), code=True):
        found.update(_HTML_ANCHOR.findall(line))
        heading = _HEADING.match(line)
        if not heading:
            continue
        base = slug(heading.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def targets(path: Path) -> list[str]:
    found: list[str] = []
    for line in prose_lines(path.read_text(encoding="utf-8")):
        found += _LINK.findall(line) + _HTML_TARGET.findall(line)
        reference = _REFERENCE.match(line)
        if reference:
            found.append(reference.group(1))
    return found


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    problems = []
    for target in targets(path):
        if not target or _SCHEME.match(target) or target.startswith("//"):
            continue  # a web address (http:, mailto:): not this repository's to check
        file_part, _, anchor = target.partition("#")
        file_part = unquote(file_part)
        if file_part.startswith("/"):
            linked = root / file_part.lstrip("/")
        else:
            linked = (path.parent / file_part) if file_part else path
        where = f"{path.relative_to(root)} → {target}"
        if not linked.exists():
            problems.append(f"{where}: no such file")
        elif anchor and linked.suffix == ".md" and unquote(anchor).lower() not in anchors(linked):
            problems.append(f"{where}: no heading with anchor #{anchor}")
    return problems


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_names_a_file_and_anchor_that_exist(path: Path) -> None:
    assert broken_links(path) == []


def test_readme_is_one_screenful_of_purpose() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; at most {README_MAX_LINES}"


def test_readme_links_every_page_of_docs() -> None:
    linked = {t.partition("#")[0] for t in targets(ROOT / "README.md")}
    missing = [page for page in PAGES if f"docs/{page}" not in linked]
    assert missing == [], f"README.md does not link {missing}"


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_pages_name_capabilities_not_issue_numbers(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert _ISSUE_NUMBER.findall(text) == []


def test_the_checker_finds_what_is_broken(tmp_path: Path) -> None:
    """The checks themselves: a missing file and a missing anchor are found,
    GitHub's slugs (duplicates numbered, punctuation dropped) are matched,
    and code is not read as links."""
    page = tmp_path / "probe.md"
    page.write_text(
        "# Backup and restore\n\n## Backup and restore\n\n## `NALARKU_X` — the *one* (v2)\n\n"
        "[ok](#backup-and-restore) [ok](#backup-and-restore-1) [ok](#nalarku_x--the-one-v2)\n"
        "[gone](nowhere.md) [bad](#no-such-heading) [web](https://example.org/x)\n"
        "`[in code](missing.md)`\n```\n[in a fence](missing-too.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page, root=tmp_path) == [
        "probe.md → nowhere.md: no such file",
        "probe.md → #no-such-heading: no heading with anchor #no-such-heading",
    ]
