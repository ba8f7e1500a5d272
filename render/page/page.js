// attn's interactive page: the matrix view, the head view, the model overview and the FlashAttention
// tiles of one trace. render/page/html.cpp embeds this file and the trace's data (a JSON object in
// <script id="attn-data">, its cells deflated as base-128 text in <script id="attn-blob">) into one
// self-contained HTML file; nothing is fetched.
//
// Letters as in attn's C++: T query positions, S key positions, H heads, L layers.
// Data: every stage of every head is a descriptor [offset, bytes, base, lo, hi(, "scores")] into one inflated
// buffer: values are base + an unsigned integer of `bytes` bytes stored as byte planes (byte b of cell c
// at offset + b·T·S + c), in ten-thousandths (bytes 0: raw float32); with "scores", residuals from
// Math.round(scale * the raw score's ten-thousandths) (masked scores, nearly free to store); with "heads"
// and a list of the layer's heads' weights descriptors, residuals from Math.round(their sum / H) (layer means). Tokens only ever reach the page as text (textContent), never as HTML.
// With attn's core in the page (a script defining AttnCore, cli/web/), live.js adds the live panel (live_payload.js turns its runs into page data): a run
// of typed text replaces the trace (setData: every stage as raw float32) and every view is rebuilt.
'use strict';
