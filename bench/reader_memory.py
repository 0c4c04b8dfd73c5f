"""What the reader adds to a web worker's memory.

    uv run python bench/reader_memory.py [--int8]

Starts two fresh processes the way a web worker ends up after its first
answer: Django set up, the embedder and the answerer's artefact (answerer-v6)
loaded and used once; the second also loads the reader and reads one
question over eight passages. Prints each one's resident memory (VmRSS,
and its peak VmHWM) and the difference: the reader's cost per worker.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, os, sys
sys.path.insert(0, {root!r})
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nalarku_site.settings")
import django
django.setup()
from pathlib import Path
from django.conf import settings
from retrieval.embeddings import provider_from_config
from answering.answerer import artefact
provider_from_config().embed_query("Berapa lama garansi perangkat ini?")
artefact()
if {with_reader}:
    from answering.reader.model import reader_load
    reader = reader_load(Path(settings.NALARKU_READER["artefact"]), quantise={int8})
    passage = "Garansi\\n\\n" + "Perangkat ini bergaransi resmi selama dua tahun sejak tanggal pembelian. " * 12
    reader.read("Berapa lama garansi perangkat ini?", [passage] * 8)
status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
print(json.dumps({{k: int(status[k].split()[0]) // 1024 for k in ("VmRSS", "VmHWM")}}))
"""


def measure(with_reader: bool, int8: bool) -> dict:
    code = CHILD.format(root=str(ROOT), with_reader=with_reader, int8=int8)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--int8", action="store_true", help="the reader with int8 matrix products")
    args = parser.parse_args()
    without, with_ = measure(False, args.int8), measure(True, args.int8)
    print(f"{'':<28}{'RSS MB':>8}{'peak MB':>9}")
    print(f"{'answerer-v6':<28}{without['VmRSS']:>8}{without['VmHWM']:>9}")
    label = "answerer + reader" + (" (int8)" if args.int8 else "")
    print(f"{label:<28}{with_['VmRSS']:>8}{with_['VmHWM']:>9}")
    print(f"{'the reader adds':<28}{with_['VmRSS'] - without['VmRSS']:>8}{with_['VmHWM'] - without['VmHWM']:>9}")


if __name__ == "__main__":
    main()
