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
    prev.addEventListener('click', () => { state.tile = Math.max(0, state.tile - 1); update(true); });
    next.addEventListener('click', () => { state.tile = Math.min(headTiles().length - 1, state.tile + 1); update(true); });
    range.addEventListener('input', () => { state.tile = Number(range.value); update(true); });
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
