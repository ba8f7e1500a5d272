  // ---- positions: the figures of --pos sinusoidal, rope and alibi ------------------------------------------
  //
  // The page's copy of the PNG position figures (render/layout/position_charts.cpp), drawn from the same
  // numbers (D.position_figures: render/page/lecture_payload.cpp for a seeded page, the JSON trace's
  // "position_figures" for a live run, both render/view/position_series.h):
  //   sinusoidal: the run's table PE (T × D) and positions first .. first + 63, on −1 .. 1 (RdBu_r);
  //   rope:       q · k after rotation against the distance m − n, for q = k = 1 and head 0's first token;
  //   alibi:      every head's bias m_h (j − i), on one scale from min(0, smallest) to max(0, largest)
  //               visible bias (viridis), hidden cells hatched.
  // Point at a cell or a distance to read its number.

  function buildPositions() {
    const f = D.position_figures;
    if (!f || !(f.sinusoidal || f.rope || f.alibi)) return null;
    const sec = el('section', { id: 'positions-section' }, el('h2', { text: 'Positions' }));
    const readout = el('div', { class: 'readout positions-readout', id: 'positions-readout', 'aria-live': 'polite',
      text: 'Point at a cell (or along the curves) to read its number.' });
    // the readout sits under the hovered figure's heading, where it is in view with the figure
    const say = (parts, data) => {
      const hint = document.querySelector('#position-' + data.figure + ' > p.hint');
      if (hint && hint.nextElementSibling !== readout) hint.after(readout);
      readout.textContent = '';
      readout.append(...parts);
      Object.assign(readout.dataset, data);
    };
    if (f.sinusoidal) sec.append(sinusoidalFigure(f.sinusoidal, say));
    if (f.rope) sec.append(ropeFigure(f.rope, say));
    if (f.alibi) sec.append(alibiFigure(say));
    sec.append(readout);
    return sec;
  }

  // A heatmap of m (R rows of C numbers) with its title, row labels and column labels (thinned to fit),
  // cells of c px; colourOf(v) -> [r, g, b], hidden(i, j) hatched; onCell(i, j) on hover.
  function heatmapPanel(o) {
    const R = o.values.length, C = o.values[0].length, c = o.cell;
    const grid = el('div', { class: 'matrix-grid' });
    const cols = el('div', { class: 'col-labels' + (o.shortCols ? ' dims' : '') });
    const rows = el('div', { class: 'row-labels' });
    cols.style.width = (C * c) + 'px';
    rows.style.height = (R * c) + 'px';
    rows.style.width = o.rowWidth + 'px';
    const rowStep = o.rowStep || (c >= 14 ? 1 : niceStep(Math.ceil(14 / c))), colStep = c >= 14 ? 1 : niceStep(Math.ceil(14 / c));
    for (let i = 0; i < R; i += rowStep) {
      const s = el('span', { text: o.rowLabel(i) });
      s.style.top = (i * c) + 'px';
      s.style.height = s.style.lineHeight = Math.max(c, 14) + 'px';
      rows.append(s);
    }
    for (let j = 0; j < C; j += colStep) {
      const s = el('span', { text: o.colLabel(j) });
      s.style.left = (j * c) + 'px';
      s.style.width = s.style.lineHeight = Math.max(c, 14) + 'px';
      cols.append(s);
    }
    const canvas = cellCanvas({ class: 'position-map' }, C, R, c);
    const ctx = canvas.getContext('2d');
    const sx = canvas.width / C, sy = canvas.height / R;
    for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) {
      const hidden = o.hidden && o.hidden(i, j);
      const rgb = hidden ? HIDDEN_RGB : o.colourOf(o.values[i][j]);
      ctx.fillStyle = 'rgb(' + rgb.join(',') + ')';
      ctx.fillRect(Math.floor(j * sx), Math.floor(i * sy), Math.ceil(sx), Math.ceil(sy));
      if (hidden && sx >= 6) {
        ctx.beginPath();
        ctx.moveTo(j * sx, (i + 1) * sy);
        ctx.lineTo((j + 1) * sx, i * sy);
        ctx.strokeStyle = 'rgba(120,120,120,0.8)';
        ctx.stroke();
      }
    }
    canvas.addEventListener('mousemove', (e) => {
      const r = canvas.getBoundingClientRect();
      const j = Math.floor((e.clientX - r.left) / r.width * C), i = Math.floor((e.clientY - r.top) / r.height * R);
      if (i >= 0 && i < R && j >= 0 && j < C) o.onCell(i, j);
    });
    grid.append(el('div', { class: 'corner', text: o.corner }), cols, rows, canvas);
    return el('figure', { class: 'position-panel' }, el('figcaption', { text: o.title }), grid);
  }

  const scaleFixed = (lo, hi, cmap) => ({ lo: lo, hi: hi, cmap: cmap, log: false, low: shortNumber(lo), high: shortNumber(hi) });
  const colourBy = (sc) => (v) => { const k = 3 * colourIndex(sc, v); return [sc.cmap[k], sc.cmap[k + 1], sc.cmap[k + 2]]; };

  function sinusoidalFigure(s, say) {
    const Dm = s.run[0].length, sc = scaleFixed(-1, 1, RDBU);
    const c = Dm <= 16 ? 24 : Math.max(4, Math.floor(384 / Dm)), c2 = Math.max(3, Math.min(5, Math.floor(384 / Dm)));  // 64 rows in 320 px: beside the pickers in a 630 px window
    const read = (p, tok, d, v) => say([el('span', { class: 'q', text: 'position ' + p + (tok === null ? '' : ' “' + tok + '”') }),
      ' · ', el('span', { class: 'k', text: 'dimension ' + d }), ': PE = ', el('b', { class: 'v', text: fixed4(v) })],
    { figure: 'sinusoidal', row: p, col: d, value: fixed4(v) });
    const first = s.first;
    const run = heatmapPanel({ values: s.run, cell: c, corner: 'token ↓  d →', rowWidth: 130, shortCols: true,
      title: 'this sentence: PE of positions ' + first + '..' + (first + s.run.length - 1),
      rowLabel: (i) => (first + i) + ' ' + tokenLabel(D.tokens[i]), colLabel: (j) => String(j), colourOf: colourBy(sc),
      onCell: (i, j) => read(first + i, D.tokens[i], j, s.run[i][j]) });
    const many = heatmapPanel({ values: s.table, cell: c2, corner: 'position ↓', rowWidth: 40, rowStep: 8, shortCols: true,
      title: 'positions ' + first + '..' + (first + s.table.length - 1) + ' × d',
      rowLabel: (i) => String(first + i), colLabel: (j) => String(j), colourOf: colourBy(sc),
      onCell: (i, j) => read(first + i, null, j, s.table[i][j]) });
    const key = el('div', { class: 'matrix-key' }, el('div', { class: 'key-caption', text: 'PE value' }), stageBar(sc));
    key.style.height = '220px';
    return el('div', { class: 'position-figure', id: 'position-sinusoidal' },
      el('h3', { text: 'Sinusoidal positions: PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(p / 10000^(2i/D))' }),
      el('p', { class: 'hint', text: 'added to the token embeddings before the projections (D = d_in = ' + Dm +
        '): each position a different pattern, slow waves in the later columns' }),
      el('div', { class: 'position-row' }, run, many, key));
  }

  function ropeFigure(r, say) {
    const N = r.ones.length, W = 640, H = 300, pad = { l: 56, r: 12, t: 12, b: 40 };  // tests/browser/test_lecture.py knows l and r
    const all = r.ones.concat(r.head0);
    let lo = Math.min(0, ...all), hi = Math.max(0, ...all);
    if (!(hi > lo)) hi = lo + 1;
    const x = (d) => pad.l + d / (N - 1) * (W - pad.l - pad.r), y = (v) => pad.t + (hi - v) / (hi - lo) * (H - pad.t - pad.b);
    const canvas = el('canvas', { class: 'rope-chart', id: 'rope-chart' });
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    canvas.width = W * dpr;
    canvas.height = H * dpr;
    canvas.style.width = W + 'px';
    canvas.style.height = H + 'px';
    const ctx = canvas.getContext('2d');
    ctx.scale(dpr, dpr);
    ctx.font = '11px sans-serif';
    ctx.strokeStyle = '#999';
    ctx.fillStyle = '#555';
    ctx.strokeRect(pad.l, pad.t, W - pad.l - pad.r, H - pad.t - pad.b);
    ctx.beginPath();
    ctx.moveTo(pad.l, y(0));
    ctx.lineTo(W - pad.r, y(0));
    ctx.stroke();
    ctx.textAlign = 'right';
    for (const v of [lo, 0, hi]) ctx.fillText(shortNumber(v), pad.l - 4, y(v) + 4);
    ctx.textAlign = 'center';
    for (let d = 0; d < N; d += 8) ctx.fillText(String(d), x(d), H - pad.b + 14);
    ctx.fillText('distance m − n (positions)', (pad.l + W - pad.r) / 2, H - 6);
    ctx.save();
    ctx.translate(12, (pad.t + H - pad.b) / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.fillText('q · k after rotation', 0, 0);
    ctx.restore();
    const series = [[r.ones, '#1f77b4'], [r.head0, '#ff7f0e']];
    for (const [ys, colour] of series) {
      ctx.beginPath();
      ys.forEach((v, d) => (d ? ctx.lineTo(x(d), y(v)) : ctx.moveTo(x(d), y(v))));
      ctx.strokeStyle = colour;
      ctx.lineWidth = 2;
      ctx.stroke();
    }
    canvas.addEventListener('mousemove', (e) => {
      const b = canvas.getBoundingClientRect();
      const d = Math.round(((e.clientX - b.left) / b.width * W - pad.l) / (W - pad.l - pad.r) * (N - 1));
      if (d < 0 || d >= N) return;
      say([el('span', { class: 'k', text: 'distance ' + d }), ': q = k = 1 gives ', el('b', { class: 'v', text: fixed4(r.ones[d]) }),
        ', head 0’s “' + r.token + '” gives ', el('b', { class: 'v2', text: fixed4(r.head0[d]) })],
      { figure: 'rope', col: d, value: fixed4(r.ones[d]), value2: fixed4(r.head0[d]) });
    });
    const legend = el('p', { class: 'legend' },
      el('span', { class: 'swatch-line', style: 'background:#1f77b4' }), ' q = k = (1, …, 1): Σ 2 cos((m − n) θ_i)   ',
      el('span', { class: 'swatch-line', style: 'background:#ff7f0e' }), ' head 0: q and k of “' + r.token + '”');
    const style = r.style === 'half' ? ' pairs (i, i + d_k/2), Hugging Face rotate_half' : ' pairs (2i, 2i+1), the paper’s';
    return el('div', { class: 'position-figure', id: 'position-rope' },
      el('h3', { text: 'RoPE: q and k rotated by p·θ_i in pairs, θ_i = base^(−2i/d_k)' }),
      el('p', { class: 'hint', text: 'base ' + shortNumber(r.base) + ', ' + r.style + style + ', d_k = ' + r.d_k +
        ': the score depends on m − n only. The score q_m · k_n after rotation against the distance m − n (y axis: q · k).' }),
      canvas, legend);
  }

  function alibiFigure(say) {
    const heads = D.layers[0].heads, nT = T, nS = S;
    let lo = 0, hi = 0;
    heads.forEach((x, h) => x.vectors.bias.forEach((row, i) => row.forEach((v, j) => {
      if (visible(0, h, i * nS + j)) lo = Math.min(lo, Math.fround(v)), hi = Math.max(hi, Math.fround(v));
    })));
    if (!(hi > lo)) hi = lo + 1;
    const sc = scaleFixed(lo, hi, VIRIDIS);
    const c = Math.max(6, Math.min(24, Math.floor(200 / Math.max(nT, nS))));
    const panels = heads.map((x, h) => {
      const b = x.vectors.bias, m = -(nT > 1 ? b[1][0] : b[0][0]);
      return heatmapPanel({ values: b, cell: c, corner: 'query ↓  key →', rowWidth: 80,
        title: nT < 2 ? 'head ' + h : 'head ' + h + ': m = 2^' + shortNumber(Math.log2(m)) + ' = ' + String(Number(m.toPrecision(4))),
        rowLabel: (i) => tokenLabel(D.tokens[i]), colLabel: (j) => tokenLabel(D.source_tokens[j]), colourOf: colourBy(sc),
        hidden: (i, j) => !visible(0, h, i * nS + j),
        onCell: (i, j) => {
          const seen = visible(0, h, i * nS + j);
          say([el('span', { class: 'q', text: 'head ' + h + ' · query ' + i + ' “' + D.tokens[i] + '”' }), ' → ',
            el('span', { class: 'k', text: 'key ' + j + ' “' + D.source_tokens[j] + '”' }), ': bias m (j − i) = ', el('b', { class: 'v', text: fixed4(b[i][j]) }),
            seen ? '' : ' · hidden by the mask (never reaches the softmax)'],
          { figure: 'alibi', head: h, row: i, col: j, value: fixed4(b[i][j]) });
        } });
    });
    const H = heads.length;
    let n = 1;
    while (n * 2 <= H) n *= 2;
    const slopes = n === H ? 'm_h = 2^(−8(h+1)/H)'
      : 'm_h = 2^(−8(h+1)/' + n + ') for h < ' + n + ', then 2^(−4(2(h−' + n + ')+1)/' + n + ')';
    const key = el('div', { class: 'matrix-key' }, el('div', { class: 'key-caption', text: 'bias' }), stageBar(sc),
      el('div', { class: 'key-item' }, el('span', { class: 'swatch hatched' }), 'hatched: hidden by the mask'));
    key.style.height = '220px';
    return el('div', { class: 'position-figure', id: 'position-alibi' },
      el('h3', { text: 'ALiBi: weights = softmax(scale · q kᵀ + m_h (j − i)), ' + slopes }),
      el('p', { class: 'hint', text: 'H = ' + H + (H & (H - 1) ? ' (not a power of two: the slopes of the next lower power, then every other of twice as many)' : '') +
        '; hatched: hidden by the mask; the scores stay raw q·k' }),
      el('div', { class: 'position-row' }, el('div', { class: 'position-grid' }, ...panels), key));
  }
