"""Writes IN's bytes zlib-deflated (level 9) to OUT: the build packs the WebAssembly core this way once,
and every page carries those bytes (render/page/html.cpp) instead of deflating 2 MB per page written."""
import os
import sys
import zlib

with open(sys.argv[1], "rb") as f:
    data = f.read()
with open(sys.argv[2] + ".part", "wb") as f:
    f.write(zlib.compress(data, 9))
os.replace(sys.argv[2] + ".part", sys.argv[2])
