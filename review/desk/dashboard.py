"""The /waktu/ chart's geometry: each editor's or category's bar, median inside p90."""

from __future__ import annotations

from dataclasses import dataclass

from review.lookup_times import LookupStat


@dataclass(frozen=True)
class Bar:
    label: str
    y: int
    median_w: int
    p90_w: int
    median_s: float
    p90_s: float


def chart_bars(stats: list[LookupStat], *, width: int = 440, row: int = 56) -> tuple[int, list[Bar]]:
    """Geometry of a horizontal bar chart (median inside p90), scaled to the
    slowest p90, each bar under its label (a phone's width leaves no room
    beside it); returns the SVG height and the bars."""
    top = max((s.p90_s for s in stats), default=0) or 1
    bars = [
        Bar(s.label, i * row, round(width * s.median_s / top), round(width * s.p90_s / top), s.median_s, s.p90_s)
        for i, s in enumerate(stats)
    ]
    return len(stats) * row + 6, bars
