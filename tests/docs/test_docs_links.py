"""The documentation's links hold: every relative link or image in README.md,
bench/README.md and docs/ (the generated docs/report/ aside) names a file that
exists, every #anchor names a heading of its target (GitHub's slugs), the
README stays one screenful of purpose (at most 120 lines), it links every page
of docs/, no page names an issue number instead of a capability or a path
outside the repository, and each figure has one home: every figure the
README states is the one docs/evaluation.md states where the README links,
and bench/README.md copies none.

Plain file reading: no database, no server."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 120
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


# A path that climbs out of the repository: "../shared/…" from the root.
_CLIMB = re.compile(r"(?<![\w.])(?:\.\./)+[\w.$-][\w./$-]*")


def paths_outside(path: Path, root: Path = ROOT) -> list[str]:
    """Paths a page names that lie outside the repository: a link resolved
    from the page's folder, anything else (a command, a path in prose or
    code) from the repository's root, where the commands run."""
    text = path.read_text(encoding="utf-8")
    links = {target.partition("#")[0] for target in targets(path)}  # a link with an anchor names its file
    found = []
    for named in dict.fromkeys(_CLIMB.findall(text)):
        base = path.parent if named in links else root
        if not (base / named).resolve().is_relative_to(root.resolve()):
            found.append(named)
    return found


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_pages_name_no_path_outside_the_repository(path: Path) -> None:
    """A reader of a clone has only the repository: data sets and design
    notes kept beside it are named and their source said, not pointed at."""
    assert paths_outside(path) == []


# A figure: a number standing alone (not the 3 of reader-v3, the 95 of p95,
# the 10 of nDCG@10), with its thousands separators and decimals.
_NUMBER = re.compile(r"(?<![\w@.,/-])\d{1,3}(?:,\d{3})*(?:\.\d+)?(?![\w.]*\d)")
# A measured quantity: a number with a unit of time, size or ratio, or a
# fraction below one (an accuracy, an nDCG); not a version (3.11, 24.04) or
# an address (127.0.0.1).
_MEASURE = re.compile(r"(?<![\w@.-])(?:\d[\d,]*(?:\.\d+)?\s?(?:ms|s|MB|GB|%|×|req/s)(?![\w])|0\.\d+(?![\d.]))")


def section(path: Path, anchor: str) -> str:
    """The text under the heading with ``anchor``, to the next heading of
    the same or a higher level."""
    lines, inside, level = path.read_text(encoding="utf-8").splitlines(), False, 0
    kept: list[str] = []
    seen: dict[str, int] = {}
    for line in lines:
        heading = _HEADING.match(line)
        if heading:
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            here = base if count == 0 else f"{base}-{count}"
            if inside and len(heading.group(1)) <= level:
                break
            if here == anchor:
                inside, level = True, len(heading.group(1))
                continue
        if inside:
            kept.append(line)
    return "\n".join(kept)


def figures_not_at_home(readme: Path, root: Path = ROOT) -> list[str]:
    """README bullets that state a figure: each links a section of
    docs/evaluation.md, and every number in the bullet is in that section."""
    problems = []
    bullets = re.split(r"\n(?=- )", readme.read_text(encoding="utf-8").split("\n## Figures", 1)[-1].split("\n## ")[0])
    for bullet in (b for b in bullets if b.startswith("- ")):
        homes = [t for t in _LINK.findall(bullet) if t.startswith("docs/evaluation.md#")]
        prose = _INLINE_CODE.sub("", _LINK.sub("", bullet))
        if not homes:
            problems.append(f"no link to docs/evaluation.md: {bullet[:60]!r}")
            continue
        home = " ".join(section(root / "docs" / "evaluation.md", h.partition("#")[2]) for h in homes)
        held = set(_NUMBER.findall(_INLINE_CODE.sub("", home).replace("+", " ")))
        problems += [f"{n} ({homes[0]}) not in that section" for n in _NUMBER.findall(prose) if n not in held]
    return problems


def test_every_figure_the_readme_states_is_evaluations() -> None:
    readme = ROOT / "README.md"
    assert figures_not_at_home(readme) == []
    # Outside its figures the README states only what a machine needs, as
    # operations.md, their home, states it.
    text = readme.read_text(encoding="utf-8")
    rest = text.split("\n## Figures", 1)[0] + "\n## " + text.split("\n## Figures", 1)[1].split("\n## ", 1)[1]
    needs = section(ROOT / "docs" / "operations.md", "what-a-machine-needs")
    assert [m for line in prose_lines(rest) for m in _MEASURE.findall(line) if m not in needs] == []


def test_bench_readme_lists_benchmarks_and_copies_no_figure() -> None:
    measures = [m for line in prose_lines((ROOT / "bench" / "README.md").read_text(encoding="utf-8"))
                for m in _MEASURE.findall(line)]  # fmt: skip
    assert measures == []


def test_the_figure_checks_find_a_copy_and_a_stray(tmp_path: Path) -> None:
    """The checks themselves: a path climbing out of the repository, a
    README figure its linked section does not hold, a figure without a
    link, and a measurement in a page that should hold none are found."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "evaluation.md").write_text(
        "# E\n\n## Speed\n\nask p95 554 ms, reader-v3.\n\n## Other\n\n0.833\n", encoding="utf-8"
    )
    readme = tmp_path / "README.md"
    readme.write_text(
        "# R\n\nSee `../shared/DESIGN.md` and [ok](docs/evaluation.md).\n\n## Figures\n\n"
        "- ask p95 554 ms with reader-v3 ([m](docs/evaluation.md#speed))\n"
        "- accuracy 0.833 ([m](docs/evaluation.md#speed))\n- 12 ms somewhere\n\n## After\n",
        encoding="utf-8",
    )
    assert paths_outside(readme, root=tmp_path) == ["../shared/DESIGN.md"]
    assert figures_not_at_home(readme, root=tmp_path) == [
        "0.833 (docs/evaluation.md#speed) not in that section",
        "no link to docs/evaluation.md: '- 12 ms somewhere\\n'",
    ]
    measured = "p95 1.10 s, +221 MB, 62 %, nDCG 0.9227; reader-v3, Python 3.11, Ubuntu 24.04, 127.0.0.1:8000"
    assert _MEASURE.findall(measured) == ["1.10 s", "221 MB", "62 %", "0.9227"]


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
