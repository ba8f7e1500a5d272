  // ---- interventions: the ablation and the logit lens (attn show --model --ablate / --lens) ----------------------

  // D.ablation: {heads [[layer, head]...], mode, loss_before, loss_after, positions (T - 1) [{top_before,
  // token_before, p_before, top_after, token_after, p_after, loss_before, loss_after}]}; position i predicts
  // token i + 1. The table lists, as the terminal does, the positions whose top prediction changed and the
  // 5 whose loss changed most, in order of position.
  function buildAblation() {
    const a = D.ablation;
    if (!a) return null;
    const four = (v) => Number(v).toFixed(4);
    const signed = (v) => (v >= 0 ? '+' : '−') + Math.abs(v).toFixed(4);
    const heads = a.heads.map(([l, h]) => l + '.' + h).join(', ');
    const sec = el('section', { id: 'ablation-section' }, el('h2', { text: 'Ablation' }),
      el('p', { class: 'hint', text: 'The text run again with some heads’ outputs replaced: what the model loses without them. ' +
        'The views below show the ablated run.' }));
    sec.append(el('p', { id: 'ablation-heads', class: 'ablation-what' }, 'heads ', el('b', { text: heads }), ' (layer.head), ' +
      (a.mode === 'zero' ? 'their context vectors set to 0 (mode zero)' : 'their context vectors set to their mean over the text (mode mean)')));
    const before = el('b', { id: 'ablation-loss-before', text: four(a.loss_before) });
    const after = el('b', { id: 'ablation-loss-after', text: four(a.loss_after) });
    before.dataset.value = String(a.loss_before);
    after.dataset.value = String(a.loss_after);
    const d = a.loss_after - a.loss_before;
    sec.append(el('p', { class: 'ablation-loss' }, 'loss of the text (mean next-token cross-entropy, nats): ', before, ' → ', after,
      el('span', { class: d > 0 ? 'worse' : d < 0 ? 'better' : '', text: ' (' + signed(d) + (d > 0 ? ', worse' : d < 0 ? ', better' : '') + ')' })));
    const order = a.positions.map((_, i) => i);
    const delta = (i) => Math.abs(a.positions[i].loss_after - a.positions[i].loss_before);
    order.sort((x, y) => delta(y) - delta(x) || x - y);
    const listed = new Set(order.slice(0, 5));
    let changed = 0;
    a.positions.forEach((p, i) => { if (p.top_before !== p.top_after) { listed.add(i); changed++; } });
    sec.append(el('p', { class: 'hint', id: 'ablation-changed', text: changed + ' of ' + a.positions.length +
      ' positions changed their top prediction; those and the 5 whose loss changed most:' }));
    const table = el('table', { id: 'ablation-table', class: 'run-table' });
    const hr = el('tr', {});
    for (const [text, title] of [['pos', 'position i (predicting token i + 1)'], ['token', 'the token at i'], ['next', 'the true next token'],
      ['top before', 'the plain run’s top next token and its probability'], ['top after', 'the ablated run’s'],
      ['Δ loss', 'loss after − loss before of the true next token (nats)']])
      hr.append(el('th', { scope: 'col', title: title, text: text }));
    const body = el('tbody', {});
    [...listed].sort((x, y) => x - y).forEach((i) => {
      const p = a.positions[i], dl = p.loss_after - p.loss_before, moved = p.top_after !== p.top_before;
      const tr = el('tr', { 'data-pos': String(i), class: moved ? 'changed' : '' });
      tr.append(el('td', { class: 'num', text: String(i) }), el('td', { class: 'tok', text: tokenLabel(D.tokens[i]) }),
        el('td', { class: 'tok', text: tokenLabel(D.tokens[i + 1] ?? '') }),
        el('td', { class: 'tok' }, el('code', { text: tokenLabel(p.token_before) }), ' ' + four(p.p_before)),
        el('td', { class: 'tok' }, el('code', { text: tokenLabel(p.token_after) }), ' ' + four(p.p_after) + (moved ? ' *' : '')),
        el('td', { class: 'num ' + (dl > 0 ? 'worse' : dl < 0 ? 'better' : ''), 'data-value': String(dl), text: signed(dl) }));
      body.append(tr);
    });
    table.append(el('thead', {}, hr), body);
    sec.append(el('div', { class: 'run-scroll' }, table),
      el('p', { class: 'hint', text: '* the top prediction changed. A map shows where a head looks; ablation shows what the model ' +
        'loses without it.' }));
    return sec;
  }

  // D.lens: one row per depth ("emb", then each layer) of {layer, ids (T), p (T), tokens (T)}: the top next
  // token from the residual stream there (the final norm and the output head applied early). Each cell is
  // shaded by its probability; the last row is the model's own prediction.
  function buildLens() {
    const rows = D.lens;
    if (!rows || !rows.length) return null;
    const sec = el('section', { id: 'lens-section' }, el('h2', { text: 'Logit lens' }),
      el('p', { class: 'hint', text: 'The top next token after each position, read from the residual stream after each layer ' +
        '(the final norm and the output head applied early). Darker: more probable. emb: the embeddings alone; the last row ' +
        'is the model’s own prediction.' }));
    const table = el('table', { id: 'lens-table', class: 'run-table lens' });
    const hr = el('tr', {}, el('th', { scope: 'col', title: 'rows: the depth read; columns: the position whose next token it predicts', text: 'depth ↓  after →' }));
    D.tokens.forEach((t, i) => hr.append(el('th', { scope: 'col', title: 'position ' + i, text: tokenLabel(t) })));
    const body = el('tbody', {});
    for (const row of rows) {
      const tr = el('tr', { 'data-layer': String(row.layer) }, el('th', { scope: 'row', text: row.layer === 'emb' ? 'emb' : 'layer ' + row.layer }));
      row.ids.forEach((id, i) => {
        const p = row.p[i], tok = row.tokens && row.tokens[i] !== undefined ? row.tokens[i] : '#' + id;
        const td = el('td', { 'data-id': String(id), 'data-p': String(p), title: 'after position ' + i + ' “' + tokenLabel(D.tokens[i]) +
          '”, ' + (row.layer === 'emb' ? 'the embeddings' : 'layer ' + row.layer) + ': ' + tokenLabel(tok) + ' ' + Number(p).toFixed(4) },
          el('code', { text: tokenLabel(tok) }), el('span', { class: 'lens-p', text: Number(p).toFixed(2) }));
        td.style.setProperty('--p', String(Math.max(0, Math.min(1, p))));
        if (p > 0.55) td.classList.add('dark');
        tr.append(td);
      });
      body.append(tr);
    }
    table.append(el('thead', {}, hr), body);
    const key = el('p', { class: 'lens-key' }, 'shading: probability ', el('span', { class: 'lens-ramp' }), ' 0 → 1');
    sec.append(el('div', { class: 'run-scroll' }, table), key);
    return sec;
  }
