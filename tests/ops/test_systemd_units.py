"""The systemd units in deploy/systemd/ load as systemd reads them
(``systemd-analyze verify``: known keys, well-formed lines, executables
that exist), with the checkout at this repository in place of
/srv/nalarku; and they keep the rules the processes need (no gunicorn
--preload: the models must load after the fork)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
INSTALL_DIR = "/srv/nalarku"
# The template's instances: the queues scripts/worker.sh knows.
INSTANCES = {"nalarku-worker@.service": ("ingest", "answer", "fetch")}


def unit_files() -> list[Path]:
    return sorted(UNITS.glob("*.service"))


def verify(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["systemd-analyze", "verify", "--man=no", f"./{path.name}"],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )


def installed_here(unit: Path, folder: Path) -> list[Path]:
    """The unit as it would be installed, with this checkout as /srv/nalarku,
    under each name systemd would load it by."""
    text = unit.read_text(encoding="utf-8").replace(INSTALL_DIR, str(ROOT))
    copies = []
    for instance in INSTANCES.get(unit.name, ("",)):
        (folder / unit.name).write_text(text, encoding="utf-8")
        copies.append(folder / unit.name.replace("@.", f"@{instance}.") if instance else folder / unit.name)
    return copies


needs_systemd_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed (Debian's systemd package)"
)


def test_the_units_are_the_web_the_workers_and_the_beat():
    assert [p.name for p in unit_files()] == ["nalarku-beat.service", "nalarku-web.service", "nalarku-worker@.service"]


@needs_systemd_analyze
@pytest.mark.parametrize("unit", unit_files(), ids=lambda p: p.name)
def test_each_unit_passes_systemd_analyze_verify(unit: Path, tmp_path: Path):
    for loaded_as in installed_here(unit, tmp_path):
        done = verify(loaded_as)
        said = done.stdout + done.stderr
        assert done.returncode == 0, said
        # Warnings (an unknown key, a line without '=') do not fail verify: they fail here.
        assert unit.name not in said and loaded_as.name not in said, said


@needs_systemd_analyze
def test_the_check_finds_a_broken_unit(tmp_path: Path):
    """The check itself: a misspelt key and a missing executable are found."""
    broken = (UNITS / "nalarku-beat.service").read_text(encoding="utf-8").replace("Restart=", "Restrat=")
    (tmp_path / "nalarku-beat.service").write_text(broken.replace(INSTALL_DIR, str(ROOT)), encoding="utf-8")
    said = verify(tmp_path / "nalarku-beat.service")
    assert "Unknown key" in said.stdout + said.stderr
    (tmp_path / "nalarku-beat.service").write_text(broken.replace(INSTALL_DIR, "/nirgends"), encoding="utf-8")
    assert verify(tmp_path / "nalarku-beat.service").returncode != 0


def exec_start(unit: Path) -> str:
    """The unit's ExecStart= command, its continuation lines joined."""
    text = unit.read_text(encoding="utf-8").replace("\\\n", " ")
    return next(line for line in text.splitlines() if line.startswith("ExecStart=")).removeprefix("ExecStart=")


def test_the_web_unit_never_preloads_and_each_unit_reads_the_environment_file():
    web = UNITS / "nalarku-web.service"
    assert "gunicorn nalarku_site.wsgi" in exec_start(web) and "--preload" not in exec_start(web)
    assert "OMP_NUM_THREADS=1" in web.read_text(encoding="utf-8")
    for unit in unit_files():
        assert "EnvironmentFile=/etc/nalarku/nalarku.env" in unit.read_text(encoding="utf-8"), unit.name
