  // ---- the matrix view ----------------------------------------------------------------------------------

  let matrixKeys = false;  // the arrow keys' listener is on the document: added once

  // Cells of up to 44 px, the matrix at most 560 px and short enough that, scrolled to, it, its heading,
  // column labels and readout share the window with the sticky bars above it (the live panel's, when the
  // page has it, and the pickers', 46 px): a 1366 x 768 screen at 100 %, 125 % and 150 % leaves the page
  // about 1366 x 630, 1093 x 480 and 911 x 380.
  function cellSize() {
    const fit = (labels) => {
      const room = Math.max(96, Math.min(560, (window.innerHeight || 800) - liveBarHeight() - 46 - labels - 82));
      return Math.max(3, Math.min(44, Math.floor(room / Math.max(T, S))));
    };
    const c = fit(colLabelHeight(false));
    return c >= 14 ? c : fit(colLabelHeight(true));  // cells under 14 px number their labels
  }
  // The key labels run upwards: as tall as the longest needs (about 7 px a character at 12 px, with its
  // index in front when the cells are small), at most 96 px.
  function colLabelHeight(numbered) {
    const longest = Math.max(...D.source_tokens.map((t) => [...tokenLabel(t)].length)) + (numbered ? 1 + String(S - 1).length : 0);
    return Math.min(96, 10 + 7 * longest);
  }

  function buildMatrix() {
    const c = cellSize();
    const sec = el('section', { id: 'matrix-section' }, el('h2', { text: 'Matrix' }));
    const grid = el('div', { class: 'matrix-grid' });
    const corner = el('div', { class: 'corner', text: 'query ↓  key →' });
    const cols = el('div', { class: 'col-labels' });
    const rows = el('div', { class: 'row-labels' });
    cols.style.width = (S * c) + 'px';
    cols.style.height = colLabelHeight(c < 14) + 'px';
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
      s.style.maxHeight = (colLabelHeight(c < 14) - 4) + 'px';
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
    const key = el('div', { id: 'matrix-key', class: 'matrix-key' });
    key.style.height = (T * c) + 'px';
    const readout = el('div', { id: 'readout', class: 'readout', 'aria-live': 'polite',
      text: 'Point at a cell to read it; click to pin a query row, then move with the arrow keys.' });
    // the stages that are not (T, S) attention (inputs, q, k, v, context, output) show in a body of their own
    ui.vectorNote = el('p', { class: 'hint', id: 'vector-note' });
    ui.vectorNote.hidden = true;
    sec.append(ui.vectorNote, el('div', { class: 'matrix-body' }, grid, key), buildVectorBody(), readout);
    ui.key = key;
    ui.canvas = canvas;
    ui.cell = c;
    ui.readout = readout;

    const at = (e) => {
      const r = canvas.getBoundingClientRect();
      const j = Math.floor((e.clientX - r.left) / r.width * S), i = Math.floor((e.clientY - r.top) / r.height * T);
      return i >= 0 && i < T && j >= 0 && j < S ? { i: i, j: j } : null;
    };
    canvas.addEventListener('mousemove', (e) => { state.hover = at(e); showReadout(); drawMatrix(); drawSteps(); });
    canvas.addEventListener('mouseleave', () => { state.hover = null; showReadout(); drawMatrix(); drawHeadView(); drawSteps(); });
    canvas.addEventListener('click', (e) => {
      const p = at(e);
      state.pin = p && state.pin && state.pin.i === p.i && state.pin.j === p.j ? null : p;
      toFragment();
      showReadout();
      drawMatrix();
      drawHeadView();
      drawSteps();
      canvas.focus();
    });
    if (!matrixKeys) document.addEventListener('keydown', onMatrixKey);  // once, however often it is rebuilt
    matrixKeys = true;
    return sec;
  }

  function onMatrixKey(e) {
    const canvas = ui.canvas;
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
    toFragment();
    showReadout();
    drawMatrix();
    drawHeadView();
    drawSteps();
  }

  // Beside the matrix: the stage's colour bar (the colours drawn, bottom to top) and a key for the
  // cells that carry no colour: hatched (hidden by the mask), dropped by dropout.
  function drawKey() {
    const k = ui.key;
    const tag = state.layer + '/' + state.head + '/' + state.stage;
    if (!k || k.dataset.tag === tag) return;
    k.dataset.tag = tag;
    k.textContent = '';
    const hidden = !!head(state.layer, state.head).hidden;
    if (state.stage !== 'mask') {
      const sc = scaleOf(state.layer, state.stage);
      const bar = el('canvas', { class: 'key-bar' });
      bar.width = 1;
      bar.height = 256;
      const ctx = bar.getContext('2d'), img = ctx.createImageData(1, 256);
      for (let r = 0; r < 256; r++) {  // top = the high end, entry 255
        const i = 3 * (255 - r);
        img.data.set([sc.cmap[i], sc.cmap[i + 1], sc.cmap[i + 2], 255], 4 * r);
      }
      ctx.putImageData(img, 0, 0);
      k.append(el('div', { class: 'key-caption', text: STAGE_TEXT[state.stage] + (sc.log ? ', log scale' : '') }),
        el('div', { class: 'key-scale' }, bar,
          el('div', { class: 'key-labels' }, el('span', { class: 'key-hi', text: sc.high }), el('span', { class: 'key-lo', text: sc.low }))));
    } else {
      k.append(el('div', { class: 'key-item' }, el('span', { class: 'swatch visible' }), 'visible (1)'));
    }
    if (hidden) k.append(el('div', { class: 'key-item' }, el('span', { class: 'swatch hatched' }), 'hatched: hidden by the mask'));
    if (state.stage === 'dropped') k.append(el('div', { class: 'key-item' }, 'dropped by dropout: 0 (the bottom of the bar); the mask PyTorch\'s CPU generator draws, a GPU draws another'));
  }

  function drawMatrix() {
    if (showVectors()) return;  // a vector stage (vector_stages.js)
    drawKey();
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
    if (isVectorStage(state.stage)) return showVectorReadout();
    if (!p) {
      r.textContent = 'Point at a cell to read it; click to pin a query row, then move with the arrow keys.';
      delete r.dataset.value;
      return;
    }
    const idx = p.i * S + p.j;
    const d = desc(state.layer, state.head, state.stage);
    const seen = visible(state.layer, state.head, idx);
    // raw scores are computed for every cell before the mask: a hidden one has its value too
    const shown = state.stage === 'mask' || state.stage === 'scores' || seen;
    const value = shown ? format(d, cell(d, idx)) : 'hidden';
    r.textContent = '';
    r.append(el('span', { class: 'q', text: 'query ' + p.i + ' “' + D.tokens[p.i] + '”' }), ' → ',
      el('span', { class: 'k', text: 'key ' + p.j + ' “' + D.source_tokens[p.j] + '”' }), ': ');
    if (state.stage === 'mask') r.append(el('b', { text: value === '1.0000' ? 'visible (1)' : 'hidden by the mask (0)' }));
    else if (shown) {
      r.append(STAGE_TEXT[state.stage] + ' = ', el('b', { class: 'v', text: value }));
      if (!seen) r.append(el('span', { class: 'will-hide', text: ' · will be hidden by the mask (−∞ in the masked scores, weight 0)' }));
    }
    else r.append(el('b', { text: 'hidden by the mask' }));
    r.append(el('span', { class: 'where', text: (D.layered ? '  ·  layer ' + (D.layers[state.layer].layer ?? state.layer) : '') + '  ·  head ' +
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
