// attn's interactive page: the matrix view, the head view, the model overview and the FlashAttention
// tiles of one trace. render/html.cpp embeds this file and the trace's data (a JSON object in
// <script id="attn-data">) into one self-contained HTML file; nothing is fetched.
//
// Letters as in attn's C++: T query positions, S key positions, H heads, L layers.
// Data: every stage of every head is a descriptor [offset, bytes, base, lo, hi(, "scores")] into one inflated
// buffer: values are base + an unsigned integer of `bytes` bytes stored as byte planes (byte b of cell c
// at offset + b·T·S + c), in ten-thousandths (bytes 0: raw float32); with "scores", residuals from
// Math.round(scale * the raw score's ten-thousandths) (masked scores, nearly free to store). Tokens only ever reach the page as text (textContent), never as HTML.
'use strict';

(function () {
  const D = JSON.parse(document.getElementById('attn-data').textContent);
  const T = D.tokens.length;  // queries
  const S = D.source_tokens.length;  // keys
  const L = D.layers.length;  // 1 for a seeded trace (no layer picker)
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

  let blob = null;  // Uint8Array: every stage's cells
  let view = null;  // DataView on blob (float32 stages)
  const state = { layer: 0, head: 0, stage: D.stages[0], pin: null, hover: null, tile: 0, headsOn: [] };
  const cache = new Map();  // "layer/head/stage" -> canvas of T x S pixels

  // ---- small helpers --------------------------------------------------------------------------------

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
  function niceStep(k) {  // 1, 2, 5, 10, 20, 50, ... at least k
    for (let p = 1; ; p *= 10) for (const m of [1, 2, 5]) if (m * p >= k) return m * p;
  }
  function tokenLabel(tok) { return tok === '' ? '∅' : tok; }

  // ---- the data ---------------------------------------------------------------------------------------

  async function inflate(b64) {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
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
  // The colour scale of a stage: shared by the layer's heads, as the PNGs share it across panels.
  function scaleOf(l, stage) {
    let lo = Infinity, hi = -Infinity;
    for (let h = 0; h < D.layers[l].heads.length; h++) {
      const d = desc(l, h, stage);
      lo = Math.min(lo, real(d, d[3]));
      hi = Math.max(hi, real(d, d[4]));
    }
    if (stage === 'scores' || stage === 'masked-scores') {  // diverging, centred on 0
      const mag = Math.max(Math.abs(lo), Math.abs(hi)) || 1;
      return { lo: -mag, hi: mag, cmap: RDBU };
    }
    lo = Math.min(0, isFinite(lo) ? lo : 0);
    hi = isFinite(hi) && hi > lo ? hi : lo + 1;
    return { lo: lo, hi: hi, cmap: VIRIDIS };
  }
  function colourIndex(sc, v) {  // matplotlib's rule: floor((v - lo) / (hi - lo) * 256), clipped
    const t = (v - sc.lo) / (sc.hi - sc.lo) * 256;
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

  // ---- the page's frame -------------------------------------------------------------------------------

  const ui = {};

  function buildHeader() {
    const h = el('header', {});
    h.append(el('h1', {}, 'attn · ', el('span', { id: 'kind', text: D.kind })));
    if (D.description) h.append(el('p', { class: 'description', text: D.description }));
    if (D.formula) h.append(el('p', { class: 'formula' }, el('code', { text: D.formula })));
    if (D.paper) h.append(el('p', { class: 'paper', text: D.paper }));
    const settings = Object.entries(D.settings).map(([k, v]) => k + ' = ' + v).join(' · ');
    if (settings) h.append(el('p', { class: 'settings', id: 'settings', text: settings }));
    if (D.model) {
      const m = D.model;
      h.append(el('p', { class: 'model', id: 'model', text: m.type + ' · ' + m.dtype + ' · ' + m.n_layer + ' layers × ' +
        m.n_head + ' heads · width ' + m.n_embd + ' · ' + Number(m.n_params).toLocaleString('en') + ' parameters · ' +
        'context ' + m.n_positions + ' · vocabulary ' + m.vocab_size }));
    }
    if (D.predictions.length) h.append(ui.predictions = el('p', { class: 'predictions', id: 'predictions' }));
    h.append(el('p', { class: 'tokens', text: T + ' queries' + (JSON.stringify(D.tokens) === JSON.stringify(D.source_tokens) ? '' : ', ' + S + ' keys') +
      (D.layered ? ' · ' + L + ' layers' : '') + ' · ' + D.layers[0].heads.length + ' heads' }));
    if (D.empty_rows.length) h.append(el('p', { class: 'note', text: 'query rows that see no key (weights 0): ' +
      D.empty_rows.join(', ') }));
    return h;
  }

  function select(id, label, options) {
    const s = el('select', { id: id });
    for (const [value, text] of options) s.append(el('option', { value: String(value), text: text }));
    return el('label', {}, label + ' ', s);
  }

  function buildControls() {
    const bar = el('nav', { class: 'controls' });
    if (D.layered) bar.append(select('layer', 'layer', D.layers.map((x, l) => [l, 'layer ' + (x.layer ?? l)])));
    bar.append(select('head', 'head', []));
    bar.append(select('stage', 'stage', D.stages.map((s) => [s, STAGE_TEXT[s] || s])));
    for (const id of ['layer', 'head', 'stage']) {
      const s = bar.querySelector('#' + id);
      if (s) s.addEventListener('change', () => {
        if (id === 'layer') state.layer = Number(s.value);
        if (id === 'head') state.head = Number(s.value);
        if (id === 'stage') state.stage = s.value;
        update(true);
      });
    }
    return bar;
  }

  function fillHeadOptions() {
    const s = document.getElementById('head');
    const heads = D.layers[state.layer].heads;
    if (s.options.length !== heads.length) {
      s.textContent = '';
      heads.forEach((x, h) => s.append(el('option', { value: String(h),
        text: 'head ' + h + (x.kv_head !== x.head ? ' (kv ' + x.kv_head + ')' : '') })));
    }
    if (state.headsOn.length !== heads.length) state.headsOn = heads.map(() => true);
  }

  // ---- the matrix view ----------------------------------------------------------------------------------

  function cellSize() { return Math.max(3, Math.min(44, Math.floor(560 / Math.max(T, S)))); }

  function buildMatrix() {
    const c = cellSize();
    const sec = el('section', { id: 'matrix-section' }, el('h2', { text: 'Matrix' }));
    const grid = el('div', { class: 'matrix-grid' });
    const corner = el('div', { class: 'corner', text: 'query ↓  key →' });
    const cols = el('div', { class: 'col-labels' });
    const rows = el('div', { class: 'row-labels' });
    cols.style.width = (S * c) + 'px';
    rows.style.height = (T * c) + 'px';
    // wide enough for the longest shown label, up to 160 px (longer ones end in an ellipsis)
    const longest = Math.max(...D.tokens.map((t) => [...tokenLabel(t)].length)) + (T > 1 && c < 14 ? 5 : 0);
    rows.style.width = Math.min(172, 16 + 7.5 * longest) + 'px';
    const rowStep = c >= 14 ? 1 : niceStep(Math.ceil(14 / c));
    const colStep = c >= 14 ? 1 : niceStep(Math.ceil(14 / c));
    for (let i = 0; i < T; i += rowStep) {
      const s = el('span', { text: (rowStep > 1 ? i + ' ' : '') + tokenLabel(D.tokens[i]) });
      s.style.top = (i * c) + 'px';
      s.style.height = s.style.lineHeight = Math.max(c, 14) + 'px';
      rows.append(s);
    }
    for (let j = 0; j < S; j += colStep) {
      const s = el('span', { text: (colStep > 1 ? j + ' ' : '') + tokenLabel(D.source_tokens[j]) });
      s.style.left = (j * c) + 'px';
      s.style.width = s.style.lineHeight = Math.max(c, 14) + 'px';
      cols.append(s);
    }
    const canvas = el('canvas', { id: 'matrix', tabindex: '0' });
    canvas.style.width = (S * c) + 'px';
    canvas.style.height = (T * c) + 'px';
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    canvas.width = Math.round(S * c * dpr);
    canvas.height = Math.round(T * c * dpr);
    grid.append(corner, cols, rows, canvas);
    const readout = el('div', { id: 'readout', class: 'readout', 'aria-live': 'polite',
      text: 'Point at a cell to read it; click to pin a query row, then move with the arrow keys.' });
    sec.append(grid, readout);
    ui.canvas = canvas;
    ui.cell = c;
    ui.readout = readout;

    const at = (e) => {
      const r = canvas.getBoundingClientRect();
      const j = Math.floor((e.clientX - r.left) / r.width * S), i = Math.floor((e.clientY - r.top) / r.height * T);
      return i >= 0 && i < T && j >= 0 && j < S ? { i: i, j: j } : null;
    };
    canvas.addEventListener('mousemove', (e) => { state.hover = at(e); showReadout(); drawMatrix(); });
    canvas.addEventListener('mouseleave', () => { state.hover = null; showReadout(); drawMatrix(); drawHeadView(); });
    canvas.addEventListener('click', (e) => {
      const p = at(e);
      state.pin = p && state.pin && state.pin.i === p.i && state.pin.j === p.j ? null : p;
      showReadout();
      drawMatrix();
      drawHeadView();
      canvas.focus();
    });
    document.addEventListener('keydown', (e) => {
      const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
      if (['SELECT', 'INPUT', 'BUTTON'].includes(e.target.tagName)) return;  // the pickers keep their keys
      if (!state.pin && document.activeElement === canvas && moves[e.key]) state.pin = { i: 0, j: 0 };  // keyboard start
      if (!state.pin) return;
      if (e.key === 'Escape') state.pin = null;
      else if (moves[e.key]) {
        const [di, dj] = moves[e.key];
        state.pin = { i: Math.max(0, Math.min(T - 1, state.pin.i + di)), j: Math.max(0, Math.min(S - 1, state.pin.j + dj)) };
      } else return;
      e.preventDefault();
      showReadout();
      drawMatrix();
      drawHeadView();
    });
    return sec;
  }

  function drawMatrix() {
    const canvas = ui.canvas, ctx = canvas.getContext('2d');
    const sx = canvas.width / S, sy = canvas.height / T;
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(picture(state.layer, state.head, state.stage), 0, 0, canvas.width, canvas.height);
    // hidden cells hatched, as in the PNGs (when cells are large enough to see it)
    if (head(state.layer, state.head).hidden && sx >= 6) {
      ctx.beginPath();
      for (let i = 0; i < T; i++) for (let j = 0; j < S; j++) {
        if (visible(state.layer, state.head, i * S + j)) continue;
        ctx.moveTo(j * sx, (i + 1) * sy);
        ctx.lineTo((j + 1) * sx, i * sy);
      }
      ctx.strokeStyle = 'rgba(120,120,120,0.8)';
      ctx.lineWidth = 1;
      ctx.stroke();
    }
    const box = (i0, j0, i1, j1, colour, width) => {
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      ctx.strokeRect(j0 * sx + width / 2, i0 * sy + width / 2, (j1 - j0) * sx - width, (i1 - i0) * sy - width);
    };
    const tile = currentTile();
    if (tile) box(tile[1], tile[3], tile[2], tile[4], '#ff2d2d', 3);
    if (state.pin) {
      box(state.pin.i, 0, state.pin.i + 1, S, '#ffffff', 2);
      box(state.pin.i, state.pin.j, state.pin.i + 1, state.pin.j + 1, '#ff2d2d', 2);
    }
    if (state.hover) box(state.hover.i, state.hover.j, state.hover.i + 1, state.hover.j + 1, '#ffffff', 2);
  }

  function showReadout() {
    const p = state.hover || state.pin;
    const r = ui.readout;
    showPredictions(p ? p.i : T - 1);
    if (!p) {
      r.textContent = 'Point at a cell to read it; click to pin a query row, then move with the arrow keys.';
      delete r.dataset.value;
      return;
    }
    const idx = p.i * S + p.j;
    const d = desc(state.layer, state.head, state.stage);
    const shown = state.stage === 'mask' || visible(state.layer, state.head, idx);
    const value = shown ? format(d, cell(d, idx)) : 'hidden';
    r.textContent = '';
    r.append(el('span', { class: 'q', text: 'query ' + p.i + ' “' + D.tokens[p.i] + '”' }), ' → ',
      el('span', { class: 'k', text: 'key ' + p.j + ' “' + D.source_tokens[p.j] + '”' }), ': ');
    if (state.stage === 'mask') r.append(el('b', { text: value === '1.0000' ? 'visible (1)' : 'hidden by the mask (0)' }));
    else if (shown) r.append(STAGE_TEXT[state.stage] + ' = ', el('b', { class: 'v', text: value }));
    else r.append(el('b', { text: 'hidden by the mask' }));
    r.append(el('span', { class: 'where', text: (D.layered ? '  ·  layer ' + state.layer : '') + '  ·  head ' +
      state.head + (state.pin ? '  ·  pinned row ' + state.pin.i : '') }));
    Object.assign(r.dataset, { row: p.i, col: p.j, value: value, layer: state.layer, head: state.head, stage: state.stage });
  }

  function showPredictions(i) {
    if (!ui.predictions) return;
    const row = D.predictions[i] || [];
    ui.predictions.textContent = '';
    ui.predictions.append('next token after ' + i + ' “' + D.tokens[i] + '”: ');
    row.forEach(([tok, p], k) => {
      if (k) ui.predictions.append(', ');
      ui.predictions.append(el('code', { text: tok }), ' ' + (100 * p).toFixed(1) + '%');
    });
  }

  // ---- the head view (lines from a query to every key, one colour per head) --------------------------------

  const ROW = 18;

  const MAX_HEADVIEW_TOKENS = 1000;  // 18 px a row: a taller canvas than Chromium's 32767 px draws nothing

  function buildHeadView() {
    if (!D.stages.includes('weights') || Math.max(T, S) > MAX_HEADVIEW_TOKENS) return null;
    const sec = el('section', { id: 'headview-section' }, el('h2', { text: 'Head view' }),
      el('p', { class: 'hint', text: 'Point at a query on the left (or a key on the right): lines show its weights, ' +
        'darker for more; click a head to hide or show it.' }));
    ui.toggles = el('div', { class: 'toggles', id: 'head-toggles' });
    const box = el('div', { id: 'headview', class: 'headview' });
    ui.hvLeft = el('div', { class: 'hv-col hv-q' });
    ui.hvRight = el('div', { class: 'hv-col hv-k' });
    ui.hvCanvas = el('canvas', { class: 'hv-lines' });
    D.tokens.forEach((t, i) => ui.hvLeft.append(el('div', { 'data-i': String(i), text: tokenLabel(t) })));
    D.source_tokens.forEach((t, j) => ui.hvRight.append(el('div', { 'data-j': String(j), text: tokenLabel(t) })));
    const rows = Math.max(T, S);
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    ui.hvCanvas.style.height = rows * ROW + 'px';
    ui.hvCanvas.width = 240 * dpr;
    ui.hvCanvas.height = rows * ROW * dpr;
    box.append(ui.hvLeft, ui.hvCanvas, ui.hvRight);
    ui.hvFocus = null;
    const hover = (side) => (e) => {
      const t = e.target.closest('div[data-i], div[data-j]');
      ui.hvFocus = t ? { side: side, n: Number(side === 'q' ? t.dataset.i : t.dataset.j) } : null;
      drawHeadView();
    };
    ui.hvLeft.addEventListener('mouseover', hover('q'));
    ui.hvRight.addEventListener('mouseover', hover('k'));
    box.addEventListener('mouseleave', () => { ui.hvFocus = null; drawHeadView(); });
    sec.append(ui.toggles, box);
    return sec;
  }

  function fillToggles() {
    if (!ui.toggles) return;
    ui.toggles.textContent = '';
    D.layers[state.layer].heads.forEach((x, h) => {
      const b = el('button', { type: 'button', 'data-head': String(h), 'aria-pressed': String(state.headsOn[h]),
        text: 'head ' + h });
      b.style.setProperty('--c', HEAD_COLOURS[h % HEAD_COLOURS.length]);
      b.addEventListener('click', () => {
        state.headsOn[h] = !state.headsOn[h];
        b.setAttribute('aria-pressed', String(state.headsOn[h]));
        drawHeadView();
      });
      ui.toggles.append(b);
    });
  }

  function drawHeadView() {
    if (!ui.hvCanvas) return;
    const c = ui.hvCanvas, ctx = c.getContext('2d');
    const dpr = c.width / 240;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, 240, c.height / dpr);
    let focus = ui.hvFocus;
    if (!focus && state.pin) focus = { side: 'q', n: state.pin.i };
    for (const e of ui.hvLeft.children) e.classList.toggle('on', !!focus && focus.side === 'q' && Number(e.dataset.i) === focus.n);
    for (const e of ui.hvRight.children) e.classList.toggle('on', !!focus && focus.side === 'k' && Number(e.dataset.j) === focus.n);
    if (!focus) return;
    const heads = D.layers[state.layer].heads;
    ctx.lineWidth = 2;
    heads.forEach((x, h) => {
      if (!state.headsOn[h]) return;
      const d = desc(state.layer, h, 'weights');
      ctx.strokeStyle = HEAD_COLOURS[h % HEAD_COLOURS.length];
      const pairs = focus.side === 'q' ? [...Array(S).keys()].map((j) => [focus.n, j]) : [...Array(T).keys()].map((i) => [i, focus.n]);
      for (const [i, j] of pairs) {
        const w = real(d, cell(d, i * S + j));
        if (!(w > 0.005) || !visible(state.layer, h, i * S + j)) continue;
        ctx.globalAlpha = Math.min(1, w);
        ctx.beginPath();
        ctx.moveTo(0, i * ROW + ROW / 2);
        ctx.lineTo(240, j * ROW + ROW / 2);
        ctx.stroke();
      }
    });
    ctx.globalAlpha = 1;
  }

  // ---- the model overview: layers x heads thumbnails ----------------------------------------------------

  function buildOverview() {
    if (!D.layered) return null;
    const stage = D.stages.includes('weights') ? 'weights' : D.stages[0];
    const sec = el('section', { id: 'overview-section' }, el('h2', { text: 'Model overview' }),
      el('p', { class: 'hint', text: 'Every head of every layer (' + (STAGE_TEXT[stage] || stage) + '); click one to open it.' }));
    const grid = el('div', { id: 'overview', class: 'overview' });
    const H = Math.max(...D.layers.map((x) => x.heads.length));
    grid.style.gridTemplateColumns = 'max-content repeat(' + H + ', 52px)';
    grid.append(el('span', {}));
    for (let h = 0; h < H; h++) grid.append(el('span', { class: 'hd', text: 'H' + h }));
    D.layers.forEach((x, l) => {
      grid.append(el('span', { class: 'ld', text: 'L' + (x.layer ?? l) }));
      x.heads.forEach((y, h) => {
        const c = el('canvas', { class: 'thumb', 'data-layer': String(l), 'data-head': String(h),
          title: 'layer ' + l + ', head ' + h });
        c.width = S;
        c.height = T;
        c.getContext('2d').drawImage(picture(l, h, stage), 0, 0);
        c.addEventListener('click', () => {
          state.layer = l;
          state.head = h;
          state.stage = stage;
          update(true);
          document.getElementById('matrix-section').scrollIntoView({ block: 'start' });
        });
        grid.append(c);
      });
    });
    sec.append(grid);
    return sec;
  }

  // ---- model traces: the layer's mean over heads, and the attention rollout through it ---------------------

  const AGGREGATES = { layer_mean: 'mean over the heads', rollout: 'attention rollout through this layer' };

  function buildAggregates() {
    if (!D.layers[0].aggregates || !Object.keys(D.layers[0].aggregates).length) return null;
    const sec = el('section', { id: 'aggregates-section' }, el('h2', { text: 'The layer as a whole' }),
      el('p', { class: 'hint', text: 'Left: the mean of this layer’s heads. Right: the rollout (Abnar & Zuidema 2020), ' +
        'how much each token draws on each input token through every layer up to this one.' }));
    const row = el('div', { class: 'aggregates' });
    ui.aggregates = {};
    const c = cellSize();
    for (const [name, title] of Object.entries(AGGREGATES)) {
      if (!D.layers[0].aggregates[name]) continue;
      const canvas = el('canvas', { id: 'aggregate-' + name, class: 'aggregate' });
      canvas.width = S;
      canvas.height = T;
      canvas.style.width = canvas.style.height = Math.min(S * c, 360) + 'px';  // T = S here
      canvas.addEventListener('mousemove', (e) => {
        const r = canvas.getBoundingClientRect();
        const j = Math.min(S - 1, Math.floor((e.clientX - r.left) / r.width * S));
        const i = Math.min(T - 1, Math.floor((e.clientY - r.top) / r.height * T));
        const d = D.layers[state.layer].aggregates[name];
        ui.aggReadout.textContent = title + ', layer ' + state.layer + ': query ' + i + ' “' + D.tokens[i] + '” → key ' +
          j + ' “' + D.source_tokens[j] + '” = ' + format(d, cell(d, i * S + j));
      });
      ui.aggregates[name] = canvas;
      row.append(el('figure', {}, canvas, el('figcaption', { text: title })));
    }
    ui.aggReadout = el('div', { class: 'readout', id: 'aggregate-readout' });
    sec.append(row, ui.aggReadout);
    return sec;
  }

  function drawAggregates() {
    if (!ui.aggregates) return;
    for (const [name, canvas] of Object.entries(ui.aggregates)) {
      const d = D.layers[state.layer].aggregates[name];
      const sc = { lo: Math.min(0, real(d, d[3])), hi: Math.max(real(d, d[4]), 1e-9), cmap: VIRIDIS };
      const key = 'agg/' + state.layer + '/' + name;
      if (!cache.has(key)) cache.set(key, draw(d, head(state.layer, 0).hidden, sc, 'weights'));
      const ctx = canvas.getContext('2d');
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(cache.get(key), 0, 0);
    }
  }

  // ---- FlashAttention: the tiles' running max and sum --------------------------------------------------

  function headTiles() { return D.tiles.filter((t) => t[0] === state.head); }
  function currentTile() {
    if (!ui.flash) return null;
    const tiles = headTiles();
    return tiles.length ? tiles[Math.min(state.tile, tiles.length - 1)] : null;
  }

  function buildFlash() {
    if (!D.tiles.length) return null;
    const sec = el('section', { id: 'flash-section' }, el('h2', { text: 'FlashAttention tiles' }),
      el('p', { class: 'hint', text: 'Each step reads one tile of keys (red box on the matrix). Every query row keeps a ' +
        'running max m and sum l; when its last tile is done they equal the full softmax’s m* and l*, ' +
        'so l·e^(m−m*)/l* reaches 1.' }));
    const prev = el('button', { type: 'button', id: 'tile-prev', text: '◀' });
    const next = el('button', { type: 'button', id: 'tile-next', text: '▶' });
    const range = el('input', { type: 'range', id: 'tile', min: '0', value: '0' });
    ui.tileText = el('span', { id: 'tile-text' });
    ui.tileRange = range;
    prev.addEventListener('click', () => { state.tile = Math.max(0, state.tile - 1); update(false); });
    next.addEventListener('click', () => { state.tile = Math.min(headTiles().length - 1, state.tile + 1); update(false); });
    range.addEventListener('input', () => { state.tile = Number(range.value); update(false); });
    ui.flashTable = el('table', { id: 'flash-table' });
    sec.append(el('div', { class: 'tile-controls' }, prev, range, next, ui.tileText), ui.flashTable);
    ui.flash = sec;
    return sec;
  }

  function drawFlash() {
    if (!ui.flash) return;
    const tiles = headTiles();
    ui.tileRange.max = String(Math.max(0, tiles.length - 1));
    state.tile = Math.min(state.tile, Math.max(0, tiles.length - 1));
    ui.tileRange.value = String(state.tile);
    const t = tiles[state.tile];
    ui.flashTable.textContent = '';
    if (!t) { ui.tileText.textContent = 'no tiles for this head'; return; }
    const [, q0, q1, k0, k1, rowMax, rowSum] = t;
    ui.tileText.textContent = 'tile ' + (state.tile + 1) + ' of ' + tiles.length + ': queries ' + q0 + '–' + (q1 - 1) +
      ', keys ' + k0 + '–' + (k1 - 1);
    const fin = head(0, state.head).flash;
    const num = (x) => (x === null || x === undefined ? '−∞' : Number(x).toPrecision(6));
    ui.flashTable.append(el('tr', {}, ...['query', 'running max m', 'running sum l', 'final m*', 'final l*',
      'l·e^(m−m*) / l*'].map((x) => el('th', { text: x }))));
    for (let i = q0; i < q1; i++) {
      const m = rowMax[i - q0], l = rowSum[i - q0], ms = fin ? fin.m[i] : null, ls = fin ? fin.l[i] : null;
      const ratio = m === null || ms === null || !ls ? null : l * Math.exp(m - ms) / ls;
      ui.flashTable.append(el('tr', {}, el('td', { text: i + ' ' + D.tokens[i] }), el('td', { text: num(m) }),
        el('td', { text: num(l) }), el('td', { text: num(ms) }), el('td', { text: num(ls) }),
        el('td', { class: ratio !== null && Math.abs(ratio - 1) < 1e-5 ? 'done' : '', text: ratio === null ? '—' : ratio.toFixed(6) })));
    }
  }

  // ---- selection, URL fragment -----------------------------------------------------------------------------

  function fromFragment() {
    const f = new URLSearchParams(location.hash.replace(/^#/, ''));
    const l = Number(f.get('layer')), h = Number(f.get('head')), s = f.get('stage');
    if (D.layered && f.has('layer') && Number.isInteger(l) && l >= 0 && l < L) state.layer = l;
    if (f.has('head') && Number.isInteger(h) && h >= 0 && h < D.layers[state.layer].heads.length) state.head = h;
    if (s && D.stages.includes(s)) state.stage = s;
  }
  function toFragment() {
    const parts = [];
    if (D.layered) parts.push('layer=' + state.layer);
    parts.push('head=' + state.head, 'stage=' + state.stage);
    const hash = '#' + parts.join('&');
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  function update(fragment) {
    state.head = Math.min(state.head, D.layers[state.layer].heads.length - 1);
    fillHeadOptions();
    if (document.getElementById('layer')) document.getElementById('layer').value = String(state.layer);
    document.getElementById('head').value = String(state.head);
    document.getElementById('stage').value = state.stage;
    for (const c of document.querySelectorAll('canvas.thumb'))
      c.classList.toggle('current', Number(c.dataset.layer) === state.layer && Number(c.dataset.head) === state.head);
    if (fragment) toFragment();
    fillToggles();
    drawAggregates();
    drawFlash();
    drawMatrix();
    showReadout();
    drawHeadView();
  }

  // ---- start ------------------------------------------------------------------------------------------

  async function start() {
    const t0 = performance.now();
    blob = await inflate(D.blob);
    view = new DataView(blob.buffer);
    for (const layer of D.layers) for (const x of layer.heads) {
      const m = x.stages['masked-scores'];
      if (m && m[5] === 'scores') Object.assign(m, { from: x.stages.scores, scale: Math.fround(x.scale) });
    }
    if (blob.length !== D.raw_bytes) throw new Error('attn: the page data is damaged');
    if (D.init.layer !== null && D.layered) state.layer = D.init.layer;
    if (D.init.head !== null) state.head = D.init.head;
    fromFragment();
    const main = el('main', {});
    main.append(buildHeader(), buildControls());
    for (const s of [buildMatrix(), buildHeadView(), buildAggregates(), buildOverview(), buildFlash()]) if (s) main.append(s);
    document.body.append(main);
    update(true);
    window.addEventListener('hashchange', () => { fromFragment(); update(false); });
    document.documentElement.dataset.readyMs = String(Math.round(performance.now() - t0));
    document.documentElement.dataset.ready = 'true';
  }

  start().catch((e) => {
    document.body.append(el('p', { class: 'error', text: 'This page could not show its data: ' + e.message }));
    throw e;
  });
})();
