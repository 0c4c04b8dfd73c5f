"""Pages whose text is turned a quarter, read as a reader sees them.

A landscape table is often stored as a portrait page with its text drawn
at 90° and the page's ``/Rotate`` set, so a viewer shows it upright.
pdfplumber reports such characters as not upright and, left as they are,
clusters them into "lines" across the turned rows: the words of a whole
column interleave ("These Some **Multiple *Refers statistics …").

``upright(page)`` gives the page as a viewer shows it: when most of its
characters are turned the same way, every object (characters, rects,
lines, curves) is turned back by a quarter and the page's width and height
swap, so text lines, gaps and ruled tables are found exactly as on a
born-upright page. The derived page is pdfplumber's own ``FilteredPage``
with its objects replaced, as pdfplumber's ``dedupe_chars`` builds one.
"""

from __future__ import annotations

from pdfplumber.page import FilteredPage, Page

# Share of a page's characters that must be turned before the page is.
TURNED_SHARE = 0.8


def upright(page: Page) -> Page:
    """``page`` as a viewer shows it: turned back a quarter when most of its
    characters are drawn at 90° (either way), else ``page`` itself."""
    chars = page.chars
    turned = [c for c in chars if not c["upright"]]
    if not chars or len(turned) < TURNED_SHARE * len(chars):
        return page
    # matrix b < 0: text runs down the page (a clockwise turn), else up it.
    down = sum(1 for c in turned if c["matrix"][1] < 0) * 2 >= len(turned)
    width, height = page.width, page.height
    derived = FilteredPage(page, lambda obj: True)
    derived._objects = {
        kind: [_turned(obj, width, height, down=down) for obj in objects] for kind, objects in page.objects.items()
    }
    derived.bbox = (0, 0, height, width)
    return derived


def _turned(obj: dict, width: float, height: float, *, down: bool) -> dict:
    """One object's box (and points) a quarter turn back; pdfplumber's
    coordinates run from the top left, ``top`` downwards."""
    out = dict(obj)
    x0, x1, top, bottom = obj["x0"], obj["x1"], obj["top"], obj["bottom"]
    if down:  # its text ran down the page, its lines from right to left
        out["x0"], out["x1"], out["top"], out["bottom"] = top, bottom, width - x1, width - x0
        points = [(t, width - x) for x, t in obj.get("pts", [])]
    else:  # its text ran up the page, its lines from left to right
        out["x0"], out["x1"], out["top"], out["bottom"] = height - bottom, height - top, x0, x1
        points = [(height - t, x) for x, t in obj.get("pts", [])]
    if "pts" in obj:
        out["pts"] = points
    out["width"], out["height"] = out["x1"] - out["x0"], out["bottom"] - out["top"]
    out["y0"], out["y1"] = width - out["bottom"], width - out["top"]  # the turned page is `width` tall
    out["doctop"] = out["top"] + (obj["doctop"] - obj["top"] if "doctop" in obj else 0)
    if obj.get("object_type") == "char":
        out["upright"] = True
    return out
