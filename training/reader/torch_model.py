"""The reader in PyTorch, for training only: the same network as
``encoder/graph.py`` builds for ONNX Runtime, with the same weight names,
so the weights it learns drop into that graph unchanged."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from answering.encoder.wheel import Shape


class _Embeddings(nn.Module):
    def __init__(self, shape: Shape):
        super().__init__()
        self.position = nn.Parameter(torch.zeros(shape.positions, shape.hidden))
        self.token_type = nn.Parameter(torch.zeros(shape.hidden))
        self.norm = nn.LayerNorm(shape.hidden, eps=shape.eps)


class _Layer(nn.Module):
    def __init__(self, shape: Shape):
        super().__init__()
        h, f = shape.hidden, shape.ffn
        self.heads = shape.heads
        self.q, self.k, self.v, self.ao = (nn.Linear(h, h) for _ in range(4))
        self.fi, self.fo = nn.Linear(h, f), nn.Linear(f, h)
        self.aln, self.oln = nn.LayerNorm(h, eps=shape.eps), nn.LayerNorm(h, eps=shape.eps)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, t, h = x.shape
        split = lambda y: y.view(b, t, self.heads, h // self.heads).transpose(1, 2)  # noqa: E731
        ctx = F.scaled_dot_product_attention(split(self.q(x)), split(self.k(x)), split(self.v(x)), attn_mask=bias)
        x = self.aln(x + self.ao(ctx.transpose(1, 2).reshape(b, t, h)))
        return self.oln(x + self.fo(F.gelu(self.fi(x))))


class _Heads(nn.Module):
    def __init__(self, shape: Shape):
        super().__init__()
        self.span = nn.Linear(shape.hidden, 2)
        self.answer = nn.Linear(shape.hidden, 1)


class TorchReader(nn.Module):
    """Encoder + span head (start/end logit per token) + answerability
    head at <s>. ``frozen`` bottom layers run without gradients."""

    def __init__(self, shape: Shape, frozen: int = 0):
        super().__init__()
        self.embeddings = _Embeddings(shape)
        self.layers = nn.ModuleList(_Layer(shape) for _ in range(shape.layers))
        self.head = _Heads(shape)
        self.frozen = frozen

    def load_base(self, state: dict) -> None:
        own = self.state_dict()
        for name, value in state.items():
            own[name].copy_(torch.as_tensor(value).reshape(own[name].shape))

    def trainable(self) -> list[tuple[str, nn.Parameter]]:
        return [
            (n, p)
            for n, p in self.named_parameters()
            if n.startswith("head.") or (n.startswith("layers.") and int(n.split(".")[1]) >= self.frozen)
        ]

    def forward(self, embeds: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        t = embeds.shape[1]
        bias = ((1.0 - mask.to(embeds.dtype)) * -10000.0)[:, None, None, :]
        with torch.no_grad() if self.frozen else torch.enable_grad():
            x = self.embeddings.norm(embeds + self.embeddings.position[:t] + self.embeddings.token_type)
            for layer in self.layers[: self.frozen]:
                x = layer(x, bias.to(x.dtype))
        x = x.detach() if self.frozen else x
        for layer in self.layers[self.frozen :]:
            x = layer(x, bias.to(x.dtype))
        span = self.head.span(x)
        return span, self.head.answer(x[:, 0]).squeeze(-1)
