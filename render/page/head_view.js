  // ---- the head view (lines from a query to every key, one colour per head) --------------------------------

  const ROW = 18;

  const MAX_HEADVIEW_TOKENS = 1000;  // 18 px a row: a taller canvas than Chromium's 32767 px draws nothing

  function buildHeadView() {
    if (!D.stages.includes('weights') || Math.max(T, S) > MAX_HEADVIEW_TOKENS) return null;
    const sec = el('section', { id: 'headview-section' }, el('h2', { text: 'Head view' }),
      el('p', { class: 'hint', text: 'Point at a query on the left (or a key on the right): lines show its weights, ' +
        'darker for more, each head in its own colour and lane; point at a head (or its line) to see it alone, ' +
        'click a head to hide or show it.' }));
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
    // the lines stay while the pointer goes from a token to the heads' buttons (to isolate one)
    const leave = (to) => (e) => {
      if (to.contains(e.relatedTarget)) return;
      ui.hvFocus = null;
      ui.hvOnly = null;
      drawHeadView();
    };
    box.addEventListener('mouseleave', leave(ui.toggles));
    ui.toggles.addEventListener('mouseleave', leave(box));
    ui.hvOnly = null;  // the head pointed at (its button or its line): the others fade
    ui.hvCanvas.addEventListener('mousemove', (e) => {
      const r = ui.hvCanvas.getBoundingClientRect();
      const h = lineAt(e.clientX - r.left, e.clientY - r.top);
      if (h !== ui.hvOnly) { ui.hvOnly = h; drawHeadView(); }
    });
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
      const only = (on) => () => { ui.hvOnly = on ? h : null; drawHeadView(); };
      b.addEventListener('mouseenter', only(true));
      b.addEventListener('mouseleave', only(false));
      b.addEventListener('focus', only(true));
      b.addEventListener('blur', only(false));
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
    ui.hvLines = [];
    if (ui.toggles) for (const b of ui.toggles.children) b.classList.toggle('faded', ui.hvOnly !== null && Number(b.dataset.head) !== ui.hvOnly);
    if (!focus) return;
    const heads = D.layers[state.layer].heads;
    // Thin lines, each head a lane of its own (offset a few pixels at both ends), so that heads that agree
    // run side by side in their own colours instead of piling into one grey line; the head pointed at
    // (ui.hvOnly) is drawn last, the others faded.
    const lane = Math.min(3, (ROW - 4) / heads.length);
    const order = heads.map((x, h) => h).filter((h) => h !== ui.hvOnly).concat(ui.hvOnly === null ? [] : [ui.hvOnly]);
    ctx.lineWidth = 1.5;
    for (const h of order) {
      if (!state.headsOn[h]) continue;
      const d = desc(state.layer, h, 'weights');
      const dy = (h - (heads.length - 1) / 2) * lane;
      const fade = ui.hvOnly === null || ui.hvOnly === h ? 1 : 0.1;
      ctx.strokeStyle = HEAD_COLOURS[h % HEAD_COLOURS.length];
      const pairs = focus.side === 'q' ? [...Array(S).keys()].map((j) => [focus.n, j]) : [...Array(T).keys()].map((i) => [i, focus.n]);
      for (const [i, j] of pairs) {
        const w = real(d, cell(d, i * S + j));
        if (!(w > 0.005) || !visible(state.layer, h, i * S + j)) continue;
        const y0 = i * ROW + ROW / 2 + dy, y1 = j * ROW + ROW / 2 + dy;
        ctx.globalAlpha = (0.3 + 0.7 * Math.min(1, w)) * fade;  // a thin line needs some ink to show its colour
        ctx.beginPath();
        ctx.moveTo(0, y0);
        ctx.lineTo(240, y1);
        ctx.stroke();
        ui.hvLines.push([h, y0, y1]);
      }
    }
    ctx.globalAlpha = 1;
  }
  // The head whose line passes within 4 px of (x, y) on the lines' canvas (the nearest), or null.
  function lineAt(x, y) {
    let best = null, bestD = 4;
    for (const [h, y0, y1] of ui.hvLines || []) {
      const dx = 240, dy = y1 - y0;
      const d = Math.abs(dy * x - dx * (y - y0)) / Math.hypot(dx, dy);  // distance to the line through both ends
      if (d < bestD) { bestD = d; best = h; }
    }
    return best;
  }

  // ---- the neuron view (show --model --show queries,keys): one head's queries and keys as the scores'
  // product reads them, and query I's elementwise products with every key, whose sums are the raw scores ----

  function neuronLayer() {  // the index into D.layers of the neuron view's layer, or -1
    return D.neuron ? D.layers.findIndex((x, l) => (x.layer ?? l) === D.neuron.layer) : -1;
  }

  function buildNeuron() {
    if (!D.neuron) return null;
    const n = D.neuron;
    ui.nvQuery = n.query ?? T - 1;
    const sec = el('section', { id: 'neuron-section' }, el('h2', { text: 'Neuron view' }),
      el('p', { class: 'hint', id: 'neuron-note', text: 'Layer ' + n.layer + ', head ' + n.head +
        (n.grouped ? ', kv g ' + n.kv_head : '') + ': queries and keys ' + n.note + '. Click a query token to choose ' +
        'I: each key\u2019s row is q_I \u2299 k_j, one cell per dimension, and its sum \u03a3 is the raw score q_I\u00b7k_j.' }));
    ui.nvQueries = el('div', { class: 'nv-queries', id: 'neuron-queries' });
    D.tokens.forEach((t, i) => {
      const b = el('button', { type: 'button', 'data-i': String(i), text: tokenLabel(t) });
      b.addEventListener('click', () => { ui.nvQuery = i; drawNeuron(); });
      ui.nvQueries.append(b);
    });
    ui.nvTable = el('table', { class: 'neuron', id: 'neuron-table' });
    sec.append(ui.nvQueries, ui.nvTable);
    return sec;
  }

  function largest(rows) {  // the largest |value| of a list of rows (1 when all are 0)
    let m = 0;
    for (const r of rows) for (const v of r) m = Math.max(m, Math.abs(v));
    return m || 1;
  }

  function strip(values, mag, label) {  // one row of values, a cell per dimension, diverging around 0
    const c = el('canvas', { class: 'nv-strip', title: label });
    c.width = values.length;
    c.height = 1;
    const ctx = c.getContext('2d'), img = ctx.createImageData(values.length, 1);
    const sc = { lo: -mag, hi: mag };
    values.forEach((v, k) => {
      const ci = colourIndex(sc, v);
      img.data.set([RDBU[3 * ci], RDBU[3 * ci + 1], RDBU[3 * ci + 2], 255], 4 * k);
    });
    ctx.putImageData(img, 0, 0);
    c.style.width = Math.min(12 * values.length, 384) + 'px';  // 12 px a dimension, at most 384 px
    return c;
  }

  function drawNeuron() {
    if (!ui.nvTable) return;
    const n = D.neuron, I = ui.nvQuery, q = n.queries[I], l = neuronLayer();
    for (const b of ui.nvQueries.children) b.classList.toggle('on', Number(b.dataset.i) === I);
    const products = n.keys.map((k) => k.map((v, c) => Math.fround(q[c] * v)));  // (S, d), float32 as the run's
    const magQK = Math.max(largest([q]), largest(n.keys)), magP = largest(products);
    const scores = l >= 0 && D.stages.includes('scores') ? desc(l, n.head, 'scores') : null;
    const t = ui.nvTable;
    t.textContent = '';
    const th = (text) => el('th', { text: text });
    t.append(el('tr', {}, th(''), th('token'), th('q_I and k_j'), th('q_I \u2299 k_j'), th('\u03a3'),
      th('model\u2019s q\u00b7k'), th('\u00d7 ' + Number(n.scaled_by).toPrecision(6))));
    t.append(el('tr', { class: 'nv-query' }, el('td', { text: 'Q[' + I + ']' }), el('td', { text: tokenLabel(D.tokens[I]) }),
      el('td', {}, strip(q, magQK, 'query ' + I)), el('td'), el('td'), el('td'), el('td')));
    products.forEach((row, j) => {
      const sum = row.reduce((a, v) => a + v, 0);
      const seen = l < 0 || visible(l, n.head, I * S + j);
      const tr = el('tr', { class: seen ? 'nv-key' : 'nv-key nv-hidden', 'data-j': String(j) },
        el('td', { text: 'k' + j }), el('td', { text: tokenLabel(D.source_tokens[j]) }),
        el('td', {}, strip(n.keys[j], magQK, 'key ' + j)), el('td', {}, strip(row, magP, 'products with key ' + j)),
        el('td', { class: 'nv-sum', text: sum.toFixed(4) }),
        el('td', { class: 'nv-score', text: scores ? format(scores, cell(scores, I * S + j)) : '' }),
        el('td', { class: 'nv-scaled', text: seen ? (sum * n.scaled_by).toFixed(4) : 'hidden' }));
      t.append(tr);
    });
  }
