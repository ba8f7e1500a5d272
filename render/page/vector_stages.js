  // ---- the lecture's other stages: inputs, queries, keys, values, context, output ------------------------
  //
  // The stage picker walks the lecture: inputs -> queries, keys, values -> scores -> masked scores ->
  // weights -> context -> output. The stages that are not (T, S) attention are token x dimension matrices:
  // the run's inputs x (T, d_in) and output (T, d_out), each head's queries (T, d_k), keys (S, d_k),
  // values (S, d_v) and context (T, d_v). Their numbers are the trace's (a seeded page's data, html.cpp and
  // lecture_payload.cpp; a live run's JSON trace, lectureLive below), coloured as the PNG figures colour
  // them: diverging about 0, ±the largest |value| over every head of the stage (scaleOf, make_scale's
  // signed rule). They replace the matrix in the Matrix section; the readout reads the hovered cell.

  const VECTOR_STAGES = ['inputs', 'queries', 'keys', 'values', 'context', 'output'];
  const LECTURE_ORDER = ['inputs', 'queries', 'keys', 'values', 'scores', 'masked-scores', 'mask', 'weights', 'dropped',
    'context', 'output'];
  Object.assign(STAGE_TEXT, {
    'inputs': 'inputs x (token embeddings)',
    'queries': 'queries q',
    'keys': 'keys k',
    'values': 'values v',
    'context': 'context (weights · values)',
    'output': 'output',
  });
  const vstate = { hover: null };

  function isVectorStage(s) { return VECTOR_STAGES.includes(s); }
  // The stages the picker offers, in the lecture's order.
  function pageStages() {
    const all = D.stages.concat(D.vector_stages || []);
    return LECTURE_ORDER.filter((s) => all.includes(s)).concat(all.filter((s) => !LECTURE_ORDER.includes(s)));
  }
  // The stage's matrix (rows of numbers): the run's (inputs, output) or the head's.
  function vectorMatrix(stage, h) {
    if (stage === 'inputs' || stage === 'output') return D.run_vectors[stage];
    return head(0, h).vectors[stage];
  }
  const keyRows = (stage) => stage === 'keys' || stage === 'values';
  function vectorRowWord(stage) {
    if (stage === 'inputs' || stage === 'output') return 'token';
    return keyRows(stage) ? (JSON.stringify(D.tokens) === JSON.stringify(D.source_tokens) ? 'key' : 'source (key)') : 'query';
  }
  // What the matrix holds, in one line.
  function vectorSubtitle(stage, h) {
    const m = vectorMatrix(stage, h), rows = m.length, cols = m[0] ? m[0].length : 0;
    const shape = ' (' + rows + ' × ' + cols + ')';
    const pos = D.settings && D.settings.pos;
    const hd = head(0, h);
    const who = 'head ' + h + (hd.kv_head !== h ? ' (kv head ' + hd.kv_head + ')' : '');
    switch (stage) {
      case 'inputs': return 'each token’s embedding x, one row per token' + shape +
        (pos === 'sinusoidal' ? '; the positions PE are added to it before the projections (see Positions)' : '');
      case 'queries': return who + ': q = x · W_query, this head’s columns' + shape + (pos === 'rope' ? ', rotated by position (RoPE)' : '');
      case 'keys': return who + ': k = x · W_key' + shape + (pos === 'rope' ? ', rotated by position (RoPE)' : '') +
        (hd.kv_head !== h ? '; shared by the heads of kv head ' + hd.kv_head : '');
      case 'values': return who + ': v = x · W_value' + shape;
      case 'context': return who + ': context_i = Σ_j w_ij v_j, the weights times the values' + shape;
      default: return 'the heads’ contexts side by side, then the output projection where the kind has one' + shape;
    }
  }

  // The Matrix section's second body: a token x dimension heatmap with its labels and colour bar.
  function buildVectorBody() {
    const body = el('div', { class: 'matrix-body vector-body', id: 'vector-body' });
    body.hidden = true;
    ui.vectorBody = body;
    return body;
  }

  // Shows the vector stage (true) or the attention matrix (false), rebuilding the heatmap when the stage
  // or head changed.
  function showVectors() {
    if (!ui.vectorBody) return false;
    const on = isVectorStage(state.stage);
    ui.vectorBody.hidden = !on;
    const grid = ui.canvas && ui.canvas.closest('.matrix-body');
    if (grid) grid.hidden = on;
    if (ui.vectorNote) ui.vectorNote.hidden = !on;
    if (!on) return false;
    const tag = state.head + '/' + state.stage;
    if (ui.vectorBody.dataset.tag !== tag) buildVectorGrid(tag);
    drawVectorCells();
    return true;
  }

  function buildVectorGrid(tag) {
    const body = ui.vectorBody, stage = state.stage, m = vectorMatrix(stage, state.head);
    const R = m.length, C = m[0].length;
    const labels = keyRows(stage) ? D.source_tokens : D.tokens;
    body.dataset.tag = tag;
    body.textContent = '';
    ui.vectorNote.textContent = vectorSubtitle(stage, state.head);
    const room = Math.max(240, Math.min(560, (window.innerHeight || 800) - 200));
    const c = Math.max(3, Math.min(44, Math.floor(room / R), Math.floor(640 / C)));
    const grid = el('div', { class: 'matrix-grid' });
    const corner = el('div', { class: 'corner', text: vectorRowWord(stage) + ' ↓  dimension →' });
    const cols = el('div', { class: 'col-labels dims' });
    const rows = el('div', { class: 'row-labels' });
    cols.style.width = (C * c) + 'px';
    rows.style.height = (R * c) + 'px';
    const longest = Math.max(...labels.map((t) => [...tokenLabel(t)].length)) + 4;
    rows.style.width = Math.min(172, 16 + 7.5 * longest) + 'px';
    const rowStep = c >= 14 ? 1 : niceStep(Math.ceil(14 / c)), colStep = c >= 14 ? 1 : niceStep(Math.ceil(14 / c));
    for (let i = 0; i < R; i += rowStep) {
      const s = el('span', { text: i + ' ' + tokenLabel(labels[i]) });
      s.style.top = (i * c) + 'px';
      s.style.height = s.style.lineHeight = Math.max(c, 14) + 'px';
      rows.append(s);
    }
    for (let d = 0; d < C; d += colStep) {
      const s = el('span', { text: String(d) });
      s.style.left = (d * c) + 'px';
      s.style.width = s.style.lineHeight = Math.max(c, 14) + 'px';
      cols.append(s);
    }
    const canvas = cellCanvas({ id: 'vector-matrix' }, C, R, c);
    grid.append(corner, cols, rows, canvas);
    const sc = scaleOf(0, stage);
    const key = el('div', { class: 'matrix-key', id: 'vector-key' });
    key.style.height = Math.max(120, R * c) + 'px';
    key.append(el('div', { class: 'key-caption', text: 'value, 0 = white' }), stageBar(sc));
    body.append(grid, key);
    ui.vectorCanvas = canvas;
    const at = (e) => {
      const r = canvas.getBoundingClientRect();
      const j = Math.floor((e.clientX - r.left) / r.width * C), i = Math.floor((e.clientY - r.top) / r.height * R);
      return i >= 0 && i < R && j >= 0 && j < C ? { i: i, j: j } : null;
    };
    canvas.addEventListener('mousemove', (e) => { vstate.hover = at(e); showVectorReadout(); drawVectorCells(); });
    canvas.addEventListener('mouseleave', () => { vstate.hover = null; showVectorReadout(); drawVectorCells(); });
    vstate.hover = null;
    ui.vectorPicture = null;
  }

  // A colour bar, the scale's top entry at the top, its end labels beside it.
  function stageBar(sc) {
    const bar = el('canvas', { class: 'key-bar' });
    bar.width = 1;
    bar.height = 256;
    const ctx = bar.getContext('2d'), img = ctx.createImageData(1, 256);
    for (let r = 0; r < 256; r++) {
      const i = 3 * (255 - r);
      img.data.set([sc.cmap[i], sc.cmap[i + 1], sc.cmap[i + 2], 255], 4 * r);
    }
    ctx.putImageData(img, 0, 0);
    return el('div', { class: 'key-scale' }, bar,
      el('div', { class: 'key-labels' }, el('span', { class: 'key-hi', text: sc.high }), el('span', { class: 'key-lo', text: sc.low })));
  }

  // The stage as an R x C picture (one pixel a cell, made once per stage and head), drawn to the canvas's
  // size; the hovered cell outlined.
  function drawVectorCells() {
    const canvas = ui.vectorCanvas, m = vectorMatrix(state.stage, state.head);
    const R = m.length, C = m[0].length;
    if (!ui.vectorPicture) {
      const sc = scaleOf(0, state.stage), pic = document.createElement('canvas');
      pic.width = C;
      pic.height = R;
      const pctx = pic.getContext('2d'), img = pctx.createImageData(C, R);
      for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) {
        const k = 3 * colourIndex(sc, m[i][j]), o = 4 * (i * C + j);
        img.data.set([sc.cmap[k], sc.cmap[k + 1], sc.cmap[k + 2], 255], o);
      }
      pctx.putImageData(img, 0, 0);
      ui.vectorPicture = pic;
    }
    const ctx = canvas.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(ui.vectorPicture, 0, 0, canvas.width, canvas.height);
    const p = vstate.hover;
    if (p) {
      const sx = canvas.width / C, sy = canvas.height / R;
      ctx.strokeStyle = '#000000';
      ctx.lineWidth = 2;
      ctx.strokeRect(p.j * sx + 1, p.i * sy + 1, sx - 2, sy - 2);
    }
  }

  // v (a float of the trace) to 4 decimals as "%.4f" prints it: its ten-thousandths, ties to even
  // (v × 10^4 is exact in a double for a float, render/page/html.h).
  function fixed4(v) {
    const x = Math.fround(v) * 10000;
    let k = Math.round(x);
    if (Math.abs(x - Math.trunc(x)) === 0.5) k = 2 * Math.round(x / 2);
    return format([0, 1], k);
  }

  function showVectorReadout() {
    const r = ui.readout, p = vstate.hover, stage = state.stage;
    if (!p) {
      r.textContent = 'Point at a cell to read it: a row is a token, a column one dimension of its vector.';
      delete r.dataset.value;
      return;
    }
    const labels = keyRows(stage) ? D.source_tokens : D.tokens;
    const value = fixed4(vectorMatrix(stage, state.head)[p.i][p.j]);
    r.textContent = '';
    r.append(el('span', { class: 'q', text: vectorRowWord(stage) + ' ' + p.i + ' “' + labels[p.i] + '”' }), ' · ',
      el('span', { class: 'k', text: 'dimension ' + p.j }), ': ' + STAGE_TEXT[stage] + ' = ', el('b', { class: 'v', text: value }));
    const perHead = stage !== 'inputs' && stage !== 'output';
    if (perHead) r.append(el('span', { class: 'where', text: '  ·  head ' + state.head }));
    Object.assign(r.dataset, { row: p.i, col: p.j, value: value, layer: state.layer, head: state.head, stage: stage });
  }

  // ---- a live run's trace: the same fields as lecture_payload.cpp writes for a seeded page ---------------

  // Adds to d (livePayload's) the vector stages with their colour scales (liveScale's signed rule over every
  // head), the run's inputs and output, and the position figures (position_view.js) from the trace tr.
  function lectureLive(tr, d, colour) {
    const heads = d.layers[0].heads;
    const stages = [];
    for (const s of VECTOR_STAGES) {
      const mats = s === 'inputs' ? [tr.inputs && tr.inputs.x] : s === 'output' ? [tr.output]
        : heads.map((x) => x.vectors && x.vectors[s]);
      if (!mats.every((m) => m && m.length)) continue;
      let mag = 0;
      for (const m of mats) for (const row of m) for (const v of row) if (isFinite(v)) mag = Math.max(mag, Math.abs(Math.fround(v)));
      d.layers[0].scales[s] = liveScale(true, { mag: mag }, colour);
      stages.push(s);
    }
    d.vector_stages = stages;
    d.run_vectors = { inputs: tr.inputs ? tr.inputs.x : [], output: tr.output };
    const pf = tr.position_figures || {}, f = {};
    if (tr.inputs && tr.inputs.positions && pf.sinusoidal)
      f.sinusoidal = { first: pf.sinusoidal.first, run: tr.inputs.positions, table: pf.sinusoidal.table };
    if (pf.rope) f.rope = Object.assign({ base: tr.config.rope_base, style: tr.config.rope_style }, pf.rope);
    if (heads[0].vectors && heads[0].vectors.bias) f.alibi = {};
    d.position_figures = f;
  }
