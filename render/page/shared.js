  // The trace the views draw: the page's own, or a live run's (live.js replaces it through setData).
  let D = JSON.parse(document.getElementById('attn-data').textContent);
  let T = D.tokens.length;  // queries
  let S = D.source_tokens.length;  // keys
  let L = D.layers.length;  // 1 for a seeded trace (no layer picker)
  const HEAD_COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
    '#bcbd22', '#17becf', '#393b79', '#e7ba52', '#637939', '#ad494a', '#7b4173', '#3182bd'];  // 16, then again
  const HIDDEN_RGB = [205, 205, 205];  // as the PNGs draw a cell the mask hides
  const MASK_VISIBLE_RGB = [33, 102, 172];
  const STAGE_TEXT = {
    'weights': 'weights (softmax)',
    'scores': 'scores (raw q·k)',
    'masked-scores': 'masked scores (scale · scores)',
    'mask': 'mask',
    'dropped': 'dropped weights',
  };
  // The score stages' names: the kind's own (D.score_stages, from core/kinds' table: "q·k" and "× 1/√d_k", or
  // an unscaled score such as additive's "vᵀtanh(q + k)"); a trace of no kind (a model's) keeps q·k and its scale.
  function nameScoreStages() {
    const st = D.score_stages;
    STAGE_TEXT.scores = 'scores (' + (st ? st.scores : 'raw q\u00b7k') + ')';
    STAGE_TEXT['masked-scores'] = 'masked scores (' + (!st ? 'scale \u00b7 scores' : st.scale ? st.scores + ' ' + st.scale : st.scores + ', no scale') + ')';
  }
  nameScoreStages();

  let blob = null;  // Uint8Array: every stage's cells
  let view = null;  // DataView on blob (float32 stages)
  const state = { layer: 0, head: 0, stage: D.stages[0], pin: null, hover: null, tile: 0, headsOn: [] };
  const cache = new Map();  // "layer/head/stage" -> canvas of T x S pixels

  // Another trace for every view: its payload d (as D) and its cells (as blob). The selection keeps the
  // head and stage when the new trace has them.
  function setData(d, bytes) {
    D = d;
    T = D.tokens.length;
    S = D.source_tokens.length;
    L = D.layers.length;
    blob = bytes;
    view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    cache.clear();
    nameScoreStages();
    state.layer = 0;
    state.head = Math.min(state.head, D.layers[0].heads.length - 1);
    if (!pageStages().includes(state.stage)) state.stage = D.stages[0];
    Object.assign(state, { pin: null, hover: null, tile: 0, headsOn: [] });
  }

  // ---- small helpers --------------------------------------------------------------------------------

  // Grouped-query attention: the runs of query heads that read one key/value head, as [kv, [h...]], or
  // null when every head has its own (G = H).
  function kvGroups(heads) {
    if (heads.every((x) => x.kv_head === x.head)) return null;
    const groups = [];
    heads.forEach((x, h) => {
      const last = groups[groups.length - 1];
      if (last && last[0] === x.kv_head) last[1].push(h);
      else groups.push([x.kv_head, [h]]);
    });
    return groups;
  }

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c);  // strings become text nodes
    return e;
  }
  function colormap(hex) {
    const c = new Uint8Array(768);
    for (let i = 0; i < 768; i++) c[i] = parseInt(hex.substr(2 * i, 2), 16);
    return c;
  }
  const VIRIDIS = colormap(D.viridis);
  const RDBU = colormap(D.rdbu);
  const SEQUENTIAL = new Map();  // --colormap's maps by name, as scales name them
  function sequential(name) {
    if (!SEQUENTIAL.has(name)) SEQUENTIAL.set(name, D.colormaps && D.colormaps[name] ? colormap(D.colormaps[name]) : VIRIDIS);
    return SEQUENTIAL.get(name);
  }
  function niceStep(k) {  // 1, 2, 5, 10, 20, 50, ... at least k
    for (let p = 1; ; p *= 10) for (const m of [1, 2, 5]) if (m * p >= k) return m * p;
  }
  function tokenLabel(tok) { return tok === '' ? '∅' : tok; }
  // A canvas of C x R square cells of c CSS pixels, drawn at up to twice the device's pixel ratio.
  function cellCanvas(attrs, C, R, c) {
    const canvas = el('canvas', attrs);
    canvas.style.width = (C * c) + 'px';
    canvas.style.height = (R * c) + 'px';
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    canvas.width = Math.round(C * c * dpr);
    canvas.height = Math.round(R * c * dpr);
    return canvas;
  }
  function counted(n, word) { return n + ' ' + word + (n === 1 ? '' : 's'); }  // "1 head", "2 heads"

  // ---- the data ---------------------------------------------------------------------------------------

  // The deflated cells from the page's base-128 text (render/page/page_buffer.h's text7): a character below
  // 128 is a 7-bit group; U+0080 + 128k + g is the k-th escaped group (0, 13 or 60) and then g. n bytes.
  function bytesOf(text, n) {
    const out = new Uint8Array(n);
    const ESCAPED = [0, 13, 60];
    let acc = 0, bits = 0, o = 0;
    const put = (g) => {
      acc = ((acc << 7) | g) & 0x7fff;
      bits += 7;
      if (bits >= 8) {
        bits -= 8;
        if (o < n) out[o++] = (acc >> bits) & 255;
      }
    };
    for (let i = 0; i < text.length && o < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 128) put(c);
      else {
        if (c > 0x1ff) throw new Error('attn: the page data is damaged');
        put(ESCAPED[(c - 128) >> 7]);
        put((c - 128) & 127);
      }
    }
    if (o !== n) throw new Error('attn: the page data is damaged');
    return out;
  }
  async function inflate(text, n) {
    const stream = new Blob([bytesOf(text, n)]).stream().pipeThrough(new DecompressionStream('deflate'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  function head(l, h) { return D.layers[l].heads[h]; }
  function desc(l, h, stage) { return head(l, h).stages[stage]; }
  function cell(d, idx) {  // ten-thousandths, or the float itself when d[1] == 0
    const w = d[1];
    if (w === 0) return view.getFloat32(d[0] + 4 * idx, true);
    const p = d[0] + idx, n = T * S;  // byte planes: byte b of every cell at d[0] + b * T * S
    let u = blob[p];
    if (w >= 2) u += 256 * blob[p + n];
    if (w >= 3) u += 65536 * blob[p + 2 * n];
    if (w >= 4) u += 16777216 * blob[p + 3 * n];
    // masked scores are stored as the residual from scale * (the raw score), rounded half up
    if (d.from) return d[2] + u + Math.round(d.scale * cell(d.from, idx));
    // a layer's mean as the residual from the mean of its heads' weights (d[6]), rounded half up
    if (d[5] === 'heads') {
      let sum = 0;
      for (const h of d[6]) sum += cell(h, idx);
      return d[2] + u + Math.round(sum / d[6].length);
    }
    return d[2] + u;
  }
  function real(d, k) { return d[1] === 0 ? k : k / 10000; }
  function format(d, k) {
    if (d[1] === 0) return k.toFixed(4);
    const a = Math.abs(k);
    return (k < 0 ? '-' : '') + Math.floor(a / 10000) + '.' + String(a % 10000).padStart(4, '0');
  }
  function visible(l, h, idx) {
    const m = head(l, h).hidden;
    return !m || cell(m, idx) !== 0;
  }
  // The colour scale of a stage ('aggregates': a layer's mean and rollout), shared by the layer's heads as
  // the figures share it across panels, by the figures' own rule: html.cpp computes every layer's scales
  // with render/view/colour_scale.h's make_scale (weights fixed 0–1 unless --range says otherwise, scores
  // ±the largest visible |score|), and the live panel's runs with liveScale (live.js), its port.
  // [lo, hi, map name, log, bottom label, top label].
  function scaleOf(l, stage) {
    const sc = D.layers[l].scales[stage] || [0, 1, 'viridis', false, '0', '1'];  // the mask draws no colour scale
    return { lo: sc[0], hi: sc[1], cmap: sc[2] === 'RdBu_r' ? RDBU : sequential(sc[2]), log: sc[3], low: sc[4], high: sc[5] };
  }
  // The figures' rule, in float32 as C++ computes it: floor((v - lo) / (hi - lo) * 256), clipped to 0..255;
  // on a log scale the same on log10 values (a value at or below 0 takes the bottom entry).
  const f32 = Math.fround;
  function colourIndex(sc, v) {
    let t;
    if (sc.log) {
      const x = f32(Math.log10(Math.max(v, 1e-7)));
      t = f32(f32(f32(x - f32(Math.log10(sc.lo))) / f32(f32(Math.log10(sc.hi)) - f32(Math.log10(sc.lo)))) * 256);
    } else {
      t = f32(f32(f32(f32(v) - f32(sc.lo)) / f32(f32(sc.hi) - f32(sc.lo))) * 256);
    }
    return !(t > 0) ? 0 : t >= 255 ? 255 : Math.floor(t);
  }
  // The stage as a T x S picture, one pixel per cell.
  function picture(l, h, stage) {
    const key = l + '/' + h + '/' + stage;
    if (!cache.has(key)) cache.set(key, draw(desc(l, h, stage), head(l, h).hidden, scaleOf(l, stage), stage));
    return cache.get(key);
  }
  function draw(d, hidden, sc, stage) {
    const c = document.createElement('canvas');
    c.width = S;
    c.height = T;
    const ctx = c.getContext('2d');
    const img = ctx.createImageData(S, T);
    for (let idx = 0; idx < T * S; idx++) {
      let rgb;
      if (hidden && cell(hidden, idx) === 0) rgb = HIDDEN_RGB;
      else if (stage === 'mask') rgb = MASK_VISIBLE_RGB;
      else {
        const i = 3 * colourIndex(sc, real(d, cell(d, idx)));
        rgb = [sc.cmap[i], sc.cmap[i + 1], sc.cmap[i + 2]];
      }
      img.data[4 * idx] = rgb[0];
      img.data[4 * idx + 1] = rgb[1];
      img.data[4 * idx + 2] = rgb[2];
      img.data[4 * idx + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
    return c;
  }
