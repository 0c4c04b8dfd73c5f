"""The repository is whole: no code reaches past its root for data (the
data sets its figures and trainings use live in data/). The pages are
checked for the same in tests/docs/test_docs_links.py."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# ROOT.parent (the folder above a bench's or script's root) or a "../…"
# path climbing out from the root where commands run.
_OUTSIDE = re.compile(r"\bROOT\.parent\b|[\"']\.\./(?!\.)[\w$]")


def reaches_outside(text: str) -> list[str]:
    return [m.group(0) for m in _OUTSIDE.finditer(text)]


def test_no_code_reads_past_the_repository_root():
    tracked = subprocess.run(["git", "ls-files", "*.py", "*.sh", "Makefile"], cwd=ROOT, capture_output=True, text=True)
    # data/ is kept as published; the two checks hold their planted cases.
    planted = ("data/", "tests/architecture/test_repository_whole.py", "tests/docs/test_docs_links.py")
    files = [ROOT / f for f in tracked.stdout.split() if not f.startswith(planted)]
    assert len(files) > 100
    found = {str(f.relative_to(ROOT)): hits for f in files if (hits := reaches_outside(f.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_check_finds_a_path_past_the_root():
    assert reaches_outside('DATA = ROOT.parent / "shared" / "datasets"') == ["ROOT.parent"]
    assert reaches_outside('open("../shared/DESIGN.md")') == ['"../s']
    assert reaches_outside('DATA = ROOT / "data" / "idk-mrc"') == []
