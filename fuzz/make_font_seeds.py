#!/usr/bin/python3
"""Writes the seeds of the font fuzz target (fuzz/corpus/font/): tiny TrueType fonts built here, table
by table, so the corpus stays a few hundred bytes a file. One glyph (a square, for 'A'), with its head
table's unitsPerEm and its hhea metrics chosen per seed: the small-em font of issue 21 (unitsPerEm 16,
which FreeType accepts and attn refuses by name), ordinary ones attn draws with, and broken ones.
Usage: make_font_seeds.py DIR"""
import os
import struct
import sys


def table_checksum(data):
    data += b"\0" * (-len(data) % 4)
    return sum(struct.unpack(">%dI" % (len(data) // 4), data)) & 0xFFFFFFFF


def font(em=1000, ascender=800, descender=-200, square=700, advance=750):
    """A TrueType font with glyphs .notdef (empty) and one square mapped from 'A'."""
    glyph = struct.pack(">hhhhh", 1, 0, 0, square, square)  # one contour, its bounding box
    glyph += struct.pack(">H", 3) + struct.pack(">H", 0) + bytes([0x01] * 4)  # end point 3, no hinting, on-curve
    glyph += struct.pack(">hhhh", 0, square, 0, -square)  # x deltas
    glyph += struct.pack(">hhhh", 0, 0, square, 0)  # y deltas
    glyph += b"\0" * (len(glyph) % 2)
    tables = {
        b"head": struct.pack(">IIIIHHqqhhhhHHhhh", 0x00010000, 0x00010000, 0, 0x5F0F3CF5, 0x000B, em, 0, 0,
                             0, 0, square, square, 0, 8, 2, 0, 0),
        b"hhea": struct.pack(">Ihhh Hhhh hhh hhhh hH".replace(" ", ""), 0x00010000, ascender, descender, 0,
                             advance, 0, 0, square, 1, 0, 0, 0, 0, 0, 0, 0, 2),
        b"maxp": struct.pack(">IHHHHHHHHHHHHHH", 0x00010000, 2, 4, 1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0),
        b"hmtx": struct.pack(">HhHh", advance, 0, advance, 0),
        b"loca": struct.pack(">HHH", 0, 0, len(glyph) // 2),
        b"glyf": glyph,
        b"cmap": struct.pack(">HHHHI", 0, 1, 3, 1, 12) + struct.pack(
            ">HHHHHHHHHHHHhhHH", 4, 32, 0, 4, 4, 1, 0, 0x41, 0xFFFF, 0, 0x41, 0xFFFF, 1 - 0x41, 1, 0, 0),
        b"name": struct.pack(">HHH", 0, 0, 6),
        b"post": struct.pack(">IIhhIIIII", 0x00030000, 0, -100, 50, 0, 0, 0, 0, 0),
    }
    tags = sorted(tables)
    out = struct.pack(">IHHHH", 0x00010000, len(tags), 128, 3, len(tags) * 16 - 128)
    offset = 12 + 16 * len(tags)
    body = b""
    for tag in tags:
        data = tables[tag]
        out += tag + struct.pack(">III", table_checksum(data), offset + len(body), len(data))
        body += data + b"\0" * (-len(data) % 4)
    return out + body


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {
        "small-em-16": font(em=16, ascender=13, descender=-3, square=11, advance=12),  # issue 21's font
        "small-em-16-dejavu-metrics": font(em=16),  # unitsPerEm 16 with metrics for 1000: glyphs 60 em wide
        "em-1000": font(),
        "em-2048": font(em=2048, ascender=1900, descender=-480, square=1400, advance=1500),
        "em-16384-max": font(em=16384, ascender=14000, descender=-3000, square=12000, advance=12500),
        "huge-ascender": font(ascender=32000, descender=-32000),
        "truncated": font()[:100],
        "empty": b"",
    }
    for name, data in seeds.items():
        open(os.path.join(out, name), "wb").write(data)


if __name__ == "__main__":
    main()
