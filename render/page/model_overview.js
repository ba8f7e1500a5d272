  // ---- the model overview: layers x heads thumbnails ----------------------------------------------------

  // Thumbnails as large as the page's width allows for H heads: 52 to 140 px.
  function thumbSize(H) {
    const room = Math.min(1152, (window.innerWidth || 1200) - 48) - 120;  // the layer names and the rows' maxima
    return Math.max(52, Math.min(140, Math.floor(room / H) - 4));
  }

  // The weights' colours as a bar, lowest on the left, with the words at each end.
  function colourBar(cmap, lo, hi) {
    const bar = el('canvas', { class: 'overview-bar' });
    bar.width = 256;
    bar.height = 1;
    const ctx = bar.getContext('2d'), img = ctx.createImageData(256, 1);
    for (let k = 0; k < 256; k++) img.data.set([cmap[3 * k], cmap[3 * k + 1], cmap[3 * k + 2], 255], 4 * k);
    ctx.putImageData(img, 0, 0);
    return el('span', { class: 'key-item' }, el('span', { text: lo }), bar, el('span', { text: hi }));
  }

  // Cells the mask hides, hatched as the key's swatch is (grey with darker diagonal stripes, page.css
  // .swatch.hatched), however small the cells: each row's runs of hidden cells filled with the stripes.
  function hatch(ctx, l, h, sx, sy) {
    if (!head(l, h).hidden) return;
    const tile = document.createElement('canvas');
    tile.width = tile.height = 6;
    const t = tile.getContext('2d');
    t.fillStyle = 'rgb(' + HIDDEN_RGB.join(',') + ')';
    t.fillRect(0, 0, 6, 6);
    t.strokeStyle = 'rgb(120,120,120)';
    t.beginPath();
    for (const o of [-6, 0, 6]) { t.moveTo(o, 6); t.lineTo(o + 6, 0); }
    t.stroke();
    ctx.fillStyle = ctx.createPattern(tile, 'repeat');
    for (let i = 0; i < T; i++) for (let j = 0; j < S;) {
      if (visible(l, h, i * S + j)) { j++; continue; }
      let k = j;
      while (k < S && !visible(l, h, i * S + k)) k++;
      ctx.fillRect(Math.round(j * sx), Math.round(i * sy), Math.round(k * sx) - Math.round(j * sx), Math.round((i + 1) * sy) - Math.round(i * sy));
      j = k;
    }
  }

  function buildOverview() {
    if (!D.layered) return null;
    const stage = D.stages.includes('weights') ? 'weights' : D.stages[0];
    const sec = el('section', { id: 'overview-section' }, el('h2', { text: 'Model overview' }),
      el('p', { class: 'hint', text: 'Every head of every layer (' + (STAGE_TEXT[stage] || stage) + '); click one to open it.' }));
    const grid = el('div', { id: 'overview', class: 'overview' });
    const H = Math.max(...D.layers.map((x) => x.heads.length));
    const size = thumbSize(H), dpr = Math.min(2, window.devicePixelRatio || 1);
    grid.style.setProperty('--thumb', size + 'px');
    // grouped-query attention: a row naming each key/value head over the query heads that read it, and
    // a column 10px wider (its cells pushed right) where a group begins
    const groups = kvGroups(D.layers[0].heads);
    const starts = new Set(groups ? groups.slice(1).map((g) => g[1][0]) : []);  // heads that open a group
    // each layer's colours run up to its own largest value: a column says it when the layers differ
    const his = D.layers.map((x, l) => Number(scaleOf(l, stage).hi.toPrecision(3)));
    const perLayer = stage !== 'mask' && his.some((v) => v !== his[0]);
    grid.style.gridTemplateColumns = 'max-content ' + Array.from({ length: H }, (_, h) => (starts.has(h) ? size + 10 : size) + 'px').join(' ') +
      (perLayer ? ' max-content' : '');
    if (groups) {
      grid.append(el('span', { class: 'ld', text: 'kv' }));
      groups.forEach(([kv, hs], i) => grid.append(el('span', { class: 'kvg' + (i ? ' group-start' : ''),
        text: 'kv ' + kv, style: 'grid-column: span ' + hs.length + '; border-color: ' + HEAD_COLOURS[kv % HEAD_COLOURS.length] })));
      if (perLayer) grid.append(el('span', {}));
    }
    grid.append(el('span', {}));
    for (let h = 0; h < H; h++) grid.append(el('span', { class: 'hd' + (starts.has(h) ? ' group-start' : ''), text: 'H' + h }));
    if (perLayer) grid.append(el('span', { class: 'hd', text: 'colours up to' }));
    D.layers.forEach((x, l) => {
      grid.append(el('span', { class: 'ld', text: 'L' + (x.layer ?? l) }));
      x.heads.forEach((y, h) => {
        const c = el('canvas', { class: 'thumb' + (starts.has(h) ? ' group-start' : ''), 'data-layer': String(l),
          'data-head': String(h), title: 'layer ' + (x.layer ?? l) + ', head ' + h + (groups ? ', kv head ' + y.kv_head : '') });
        c.width = Math.round(size * dpr);
        c.height = Math.round(size * dpr);
        const ctx = c.getContext('2d');
        ctx.imageSmoothingEnabled = false;
        ctx.drawImage(picture(l, h, stage), 0, 0, c.width, c.height);
        hatch(ctx, l, h, c.width / S, c.height / T);
        c.addEventListener('click', () => {
          state.layer = l;
          state.head = h;
          state.stage = stage;
          update(true);
          document.getElementById('matrix-section').scrollIntoView({ block: 'start' });
        });
        grid.append(c);
      });
      if (perLayer) grid.append(el('span', { class: 'lmax', text: String(his[l]) }));
    });
    sec.append(grid);
    // the colours and the hatching, in words
    const key = el('p', { class: 'overview-key', id: 'overview-key' });
    if (stage !== 'mask') {
      const sc = scaleOf(0, stage);
      key.append(colourBar(sc.cmap, sc.low, perLayer ? 'the layer’s largest (at the row’s end)' : sc.high));
    }
    if (D.layers.some((x) => x.heads.some((y) => y.hidden)))
      key.append(el('span', { class: 'key-item' }, el('span', { class: 'swatch hatched' }), 'hatched: hidden by the mask (a query sees no later key)'));
    sec.append(key);
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
        ui.aggReadout.textContent = title + ', layer ' + (D.layers[state.layer].layer ?? state.layer) + ': query ' + i + ' “' + D.tokens[i] + '” → key ' +
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
      const sc = scaleOf(state.layer, 'aggregates');
      const key = 'agg/' + state.layer + '/' + name;
      if (!cache.has(key)) cache.set(key, draw(d, head(state.layer, 0).hidden, sc, 'weights'));
      const ctx = canvas.getContext('2d');
      ctx.imageSmoothingEnabled = false;
      ctx.drawImage(cache.get(key), 0, 0);
    }
  }
