"""Property-based tests for the JSONL manifest parser (hypothesis).

``read_manifest`` must never raise and never drop a line silently: each
non-blank line yields exactly one item, in order — a ``ManifestEntry`` equal
to what was written, or an ``InputProblem`` whose ``where`` names that line.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from retrieval.sources import InputProblem, ManifestEntry, read_manifest

FAST = settings(max_examples=150, deadline=None, derandomize=True)

printable = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40).filter(
    lambda s: s.strip() == s and s
)

good_entry = st.fixed_dictionaries(
    {"doc_id": st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_.:-]{0,20}\Z"), "title": printable, "content": printable},
    optional={
        "format": st.sampled_from(["markdown", "html", "text"]),
        "source_type": st.sampled_from(["documentation", "announcement", "article", "other"]),
        "url": st.just("https://contoh.id/a"),
        "document_date": st.dates().map(str),
        "groups": st.lists(printable, max_size=3),
        "public": st.booleans(),
        "relations": st.lists(
            st.fixed_dictionaries(
                {"type": st.sampled_from(["cites", "related"]), "target": st.from_regex(r"\AD[0-9]{1,4}\Z")}
            ),
            max_size=2,
        ),
    },
)

json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)

bad_json_line = st.one_of(
    json_value.map(lambda v: json.dumps(v).encode()),
    good_entry.map(lambda e: {**e, "extra": 1}).map(lambda v: json.dumps(v).encode()),
    good_entry.map(lambda e: {**e, "title": "judul\x00"}).map(lambda v: json.dumps(v).encode()),
    good_entry.map(lambda e: {**e, "title": "\ud800"}).map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=60).filter(lambda b: b"\n" not in b and b.strip()),
    st.just(b"[" * 100000),
    st.just(b"1" * 5000),
)

line = st.one_of(
    good_entry.map(lambda e: ("good", e)),
    bad_json_line.map(lambda b: ("raw", b)),
    st.sampled_from([b"", b"   ", b"\t\r"]).map(lambda b: ("blank", b)),
)


def read(lines: list[bytes]) -> list[ManifestEntry | InputProblem]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "arsip.jsonl"
        path.write_bytes(b"\n".join(lines))
        return list(read_manifest(path))


@FAST
@given(st.lists(line, max_size=12), st.booleans())
@example([("raw", b"[" * 100000)], False)  # RecursionError escaped json.loads
@example([("raw", b"1" * 5000)], False)  # ValueError: integer too long for str
@example([("raw", json.dumps({"doc_id": "D1", "title": "\ud800", "content": "x"}).encode())], False)
@example([("good", {"doc_id": "D1", "title": "t", "content": "x"})], True)  # BOM on line 1
def test_every_line_is_an_entry_or_a_numbered_problem(lines, bom):
    encoded = [json.dumps(v).encode() if kind == "good" else v for kind, v in lines]
    if bom and encoded:
        encoded[0] = b"\xef\xbb\xbf" + encoded[0]
    items = read(encoded)
    expected = [
        (n, kind, v) for n, ((kind, v), raw) in enumerate(zip(lines, encoded, strict=True), start=1) if raw.strip()
    ]
    assert len(items) == len(expected)
    for item, (number, kind, value) in zip(items, expected, strict=True):
        if kind == "good":
            assert isinstance(item, ManifestEntry), item
            dumped = item.model_dump(mode="json", exclude_unset=True)
            assert dumped == value
        else:
            assert isinstance(item, InputProblem), (value, item)
            assert re.match(rf"arsip\.jsonl baris {number}\b", item.where)
            assert item.message


@FAST
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_raise(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "arsip.jsonl"
        path.write_bytes(data)
        items = list(read_manifest(path))
    lines = [raw for raw in data.split(b"\n") if raw.strip()]
    assert len(items) == len(lines)
    assert all(isinstance(i, (ManifestEntry, InputProblem)) for i in items)
