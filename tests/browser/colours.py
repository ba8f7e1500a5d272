"""One colour rule for the page and the figures: the page's matrix cells against the SVG figure's cells.

The SVG and the PNG are drawn by the same code (render/layout on the Surface interface), so an SVG cell's
fill is the PNG's colour there. The page colours the value it stores (4 decimals), the figure the float32
itself: a value within 0.00005 of a colour boundary may land one colour entry apart, so every cell must be
within one entry (channel difference at most MAX_STEP) and nearly all exactly equal.
"""
import re
import struct
import zlib

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


def png_rgb(path):
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA PNG without interlacing (attn's figures),
    decoded here with zlib: PNG's five row filters undone, as the format defines them."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    at, idat, head = 8, b"", None
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        at += 12 + n
    w, h, depth, colour, _, _, interlace = head
    assert depth == 8 and colour in (2, 6) and interlace == 0, "%s: not 8-bit RGB(A): %s" % (path, head)
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
        prev = line
    return w, h, rows


def png_cells(png, svg, head, T, S):
    """The PNG figure's panel `head`: each cell's colour, the pixel a fifth into the cell from its top left
    corner (clear of a value printed at its centre), the cell placed as the same run's SVG figure places it
    and scaled to the PNG's size; None for a hidden cell."""
    text = open(svg, encoding="utf-8").read()
    view_w = float(re.search(r'viewBox="0 0 ([0-9.]+) ', text).group(1))
    rects = re.findall(r'<rect class="(cell|hidden)" x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"', text)
    panel = rects[head * T * S:(head + 1) * T * S]
    w, _, rows = png_rgb(png)
    k = w / view_w
    out = []
    for kind, x, y, cw, ch in panel:
        px, py = int((float(x) + 0.2 * float(cw)) * k), int((float(y) + 0.2 * float(ch)) * k)
        out.append(None if kind == "hidden" else tuple(rows[py][3 * px:3 * px + 3]))
    return out


def compare(page, figure):
    """(cells compared, share exactly equal, largest channel difference) over the figure's visible cells."""
    pairs = [(p, f) for p, f in zip(page, figure) if f is not None]
    exact = sum(p == f for p, f in pairs)
    worst = max((max(abs(a - b) for a, b in zip(p, f)) for p, f in pairs), default=0)
    return len(pairs), exact / max(1, len(pairs)), worst
