  // ---- a model run's heads: the `attn heads` scores of its text, as a sortable table ------------------------

  // D.head_scores (render/page/html.cpp): patterns [[name, definition]...], scores (L, H, P), sinks (L, H)
  // [position, token, weight]; one row per layer and head, sorted by a clicked column, a row opens its head.
  const headSort = { col: null, down: true };

  function headRows() {
    const hs = D.head_scores, rows = [];
    hs.scores.forEach((heads, l) => heads.forEach((s, h) => rows.push({ l: l, h: h, s: s, sink: hs.sinks[l][h] })));
    return rows;
  }

  // The value a column sorts by: layer and head by their numbers, a pattern by its score (undefined last).
  function headKey(row, col) {
    if (col === 'layer') return D.layers[row.l].layer ?? row.l;
    if (col === 'head') return row.h;
    if (col === 'sink-token') return row.sink ? row.sink[0] : null;
    return row.s[col];
  }

  function buildHeadsTable() {
    const hs = D.head_scores;
    if (!hs) return null;
    const sec = el('section', { id: 'heads-section' }, el('h2', { text: 'What the heads do' }),
      el('p', { class: 'hint', text: 'Each head’s scores on this text, as attn heads computes them (' +
        '— where the text does not define one). Click a column to sort; click a row to open that head.' }));
    const table = el('table', { id: 'heads-table' });
    const cols = [['layer', 'layer', 'layer'], ['head', 'head', 'head']]
      .concat(hs.patterns.map(([name, definition], p) => [p, name, definition]), [['sink-token', 'sink token', 'the key that head parks on']]);
    const tr = el('tr', {});
    for (const [col, text, title] of cols) {
      const th = el('th', { scope: 'col', title: title, 'data-col': String(col), tabindex: '0', text: text });
      const sort = () => sortHeads(col);
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); } });
      tr.append(th);
    }
    const body = el('tbody', {});
    const max = hs.patterns.map((_, p) => Math.max(1e-9, ...headRows().map((r) => r.s[p] ?? 0)));
    for (const row of headRows()) {
      const r = el('tr', { 'data-layer': String(row.l), 'data-head': String(row.h), tabindex: '0' });
      r.append(el('td', { text: String(D.layers[row.l].layer ?? row.l) }), el('td', { text: String(row.h) }));
      row.s.forEach((v, p) => {
        const td = el('td', { class: 'num', text: v === null ? '—' : v.toFixed(3) });
        if (v !== null) {
          td.dataset.value = String(v);
          td.style.setProperty('--bar', (100 * v / max[p]).toFixed(1) + '%');  // a bar of the column's largest
        }
        r.append(td);
      });
      r.append(el('td', { class: 'sink-token', text: row.sink ? row.sink[0] + ' “' + tokenLabel(row.sink[1]) + '”' : '—' }));
      const open = () => {
        state.layer = row.l;
        state.head = row.h;
        update(true);
        document.getElementById('matrix-section').scrollIntoView({ block: 'start' });
      };
      r.addEventListener('click', open);
      r.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(); });
      body.append(r);
    }
    table.append(el('thead', {}, tr), body);
    ui.headsBody = body;
    sec.append(el('div', { class: 'heads-scroll' }, table));
    return sec;
  }

  // Sorts by a column: a pattern highest first, layer and head lowest first; the same column again
  // reverses. Rows without a value stay last either way; ties keep layer and head order.
  function sortHeads(col) {
    const numeric = typeof col === 'number';  // a pattern's score
    headSort.down = headSort.col === col ? !headSort.down : numeric;
    headSort.col = col;
    const rows = [...ui.headsBody.children], order = (r) => Number(r.dataset.layer) * 100000 + Number(r.dataset.head);
    const key = (r) => headKey({ l: Number(r.dataset.layer), h: Number(r.dataset.head),
      s: D.head_scores.scores[r.dataset.layer][r.dataset.head], sink: D.head_scores.sinks[r.dataset.layer][r.dataset.head] }, col);
    const sign = headSort.down ? -1 : 1;
    rows.sort((a, b) => {
      const x = key(a), y = key(b);
      if (x === null || y === null) return x === y ? order(a) - order(b) : x === null ? 1 : -1;
      return x !== y ? sign * (x - y) : order(a) - order(b);
    });
    ui.headsBody.append(...rows);
    for (const th of document.querySelectorAll('#heads-table th'))
      th.setAttribute('aria-sort', th.dataset.col === String(col) ? (headSort.down ? 'descending' : 'ascending') : 'none');
  }

  function markHeadsTable() {
    if (!ui.headsBody) return;
    for (const r of ui.headsBody.children)
      r.classList.toggle('current', Number(r.dataset.layer) === state.layer && Number(r.dataset.head) === state.head);
  }
