"""One colour rule for the page and the figures: the page's matrix cells against the SVG figure's cells.

The SVG and the PNG are drawn by the same code (render/layout on the Surface interface), so an SVG cell's
fill is the PNG's colour there. The page colours the value it stores (4 decimals), the figure the float32
itself: a value within 0.00005 of a colour boundary may land one colour entry apart, so every cell must be
within one entry (channel difference at most MAX_STEP) and nearly all exactly equal.
"""
import re

MAX_STEP = 12      # the largest channel step between neighbouring entries of viridis, magma and RdBu_r is 10
MIN_EXACT = 0.9    # share of cells of exactly the figure's colour

CELLS_JS = """
const c = document.getElementById('matrix'), T = arguments[0], S = arguments[1];
const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, out = [];
for (let i = 0; i < T; i++) for (let j = 0; j < S; j++) {
  const x = Math.floor((j + 0.5) * c.width / S), y = Math.floor((i + 0.5) * c.height / T), k = 4 * (y * c.width + x);
  out.push([px[k], px[k + 1], px[k + 2]]);
}
return out;
"""


def page_cells(d, T, S):
    """The page's matrix as drawn: the colour at the centre of each cell, row by row (no cell hovered)."""
    return [tuple(c) for c in d.execute_script(CELLS_JS, T, S)]


def svg_cells(path, head, T, S):
    """The figure's panel `head`: each cell's fill as (r, g, b), or None for a hidden (hatched) cell."""
    rects = re.findall(r'<rect class="(cell|hidden)"[^>]*fill="([^"]+)"', open(path, encoding="utf-8").read())
    assert len(rects) % (T * S) == 0, "%s: %d cells, not panels of %d x %d" % (path, len(rects), T, S)
    panel = rects[head * T * S:(head + 1) * T * S]
    return [None if kind == "hidden" else tuple(int(fill[k:k + 2], 16) for k in (1, 3, 5)) for kind, fill in panel]


def compare(page, figure):
    """(cells compared, share exactly equal, largest channel difference) over the figure's visible cells."""
    pairs = [(p, f) for p, f in zip(page, figure) if f is not None]
    exact = sum(p == f for p, f in pairs)
    worst = max((max(abs(a - b) for a, b in zip(p, f)) for p, f in pairs), default=0)
    return len(pairs), exact / max(1, len(pairs)), worst
