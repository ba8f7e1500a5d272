  // ---- step by step: one query through a seeded kind's head ----------------------------------------------
  //
  // The chosen head's query I (the pinned row, else the row under the pointer, else the last): q_I, then for
  // every key its k_j, the score, the score times the head's scale (kinds that scale), the mask (a hidden key
  // is −∞ before the softmax) and the weight, beside v_j; and the context Σ_j w_j v_j, the head's output row
  // before any projection. The score and the scale are named by the kind (D.score_stages, core/kinds' table).
  // Queries, keys, values and context are the trace's (D.layers[0].heads[h].vectors, seeded pages and live
  // runs); scores and weights the matrix's own cells, so every number here is the readout's.

  function buildSteps() {
    if (D.layered || !D.layers[0].heads[0].vectors) return null;
    const sec = el('section', { id: 'steps-section' }, el('h2', { text: 'Step by step: one query through the head' }),
      el('p', { class: 'hint', id: 'steps-note' }));
    ui.stepsTable = el('table', { class: 'neuron steps', id: 'steps-table' });
    sec.append(ui.stepsTable);
    return sec;
  }

  function stepsQuery() { return state.pin ? state.pin.i : state.hover ? state.hover.i : T - 1; }

  function drawSteps() {
    if (!ui.stepsTable) return;
    const h = state.head, hd = head(0, h), v = hd.vectors, I = stepsQuery();
    if (ui.stepsTable.dataset.tag === h + '/' + I) return;
    ui.stepsTable.dataset.tag = h + '/' + I;
    const magQK = Math.max(largest([v.queries[I]]), largest(v.keys)), magV = Math.max(largest(v.values), largest([v.context[I]]));
    const scores = D.stages.includes('scores') ? desc(0, h, 'scores') : null, weights = desc(0, h, 'weights');
    // scale · score as the run computed it (the masked-scores stage's visible cells), else from the stored score
    const masked = D.stages.includes('masked-scores') ? desc(0, h, 'masked-scores') : null;
    const scale = Number(hd.scale);
    // the kind's names for its score and its scale (core/kinds' table); a kind that does not scale has no scale column
    const st = D.score_stages || { scores: 'q\u00b7k', scale: '\u00d7 scale' }, scaling = !!st.scale;
    document.getElementById('steps-note').textContent = 'Head ' + h + (hd.kv_head !== h ? ' (kv ' + hd.kv_head + ')' : '') +
      ', query ' + I + ' \u201c' + tokenLabel(D.tokens[I]) + '\u201d: pin another row of the matrix (click it) to follow its query. ' +
      'The score is the kind\u2019s (' + D.formula + '); the weights are the softmax over the keys the mask leaves.';
    const t = ui.stepsTable;
    t.textContent = '';
    const th = (text) => el('th', { text: text });
    // RoPE: q and k before the rotation beside; ALiBi: the bias m (j - i) added to the scaled score
    const rope = !!v.queries_unrotated, alibi = !!v.bias;
    t.append(el('tr', {}, th(''), th('token'), ...(rope ? [th('before RoPE')] : []), th(rope ? 'rotated q_I, k_j' : 'q_I, k_j'),
      el('th', { class: 'st-score-name', text: 'score ' + st.scores }),
      ...(scaling ? [el('th', { class: 'st-scale-name', text: st.scale + ' = ' + Number(scale.toPrecision(6)) })] : []),
      ...(alibi ? [th('+ ALiBi m(j\u2212i)')] : []),
      th('masked'), th('weight'), th('v_j')));
    const blanks = (n) => Array.from({ length: n }, () => el('td'));
    t.append(el('tr', { class: 'nv-query' }, el('td', { text: 'Q[' + I + ']' }), el('td', { text: tokenLabel(D.tokens[I]) }),
      ...(rope ? [el('td', {}, strip(v.queries_unrotated[I], magQK, 'query ' + I + ' before RoPE'))] : []),
      el('td', {}, strip(v.queries[I], magQK, 'query ' + I)), ...blanks(4 + scaling + alibi)));
    for (let j = 0; j < S; j++) {
      const idx = I * S + j, seen = visible(0, h, idx);
      const raw = scores ? real(scores, cell(scores, idx)) : null;
      const scaledValue = masked && seen ? real(masked, cell(masked, idx)) : raw === null ? null : Math.fround(scale) * raw;
      const scaled = masked && seen ? format(masked, cell(masked, idx)) : scaledValue === null ? '' : scaledValue.toFixed(4);
      const bias = alibi ? v.bias[I][j] : 0;
      // float32 as the run adds them: fl(fl(scale · score) + bias)
      const before = alibi ? Math.fround(Math.fround(Math.fround(scale) * v.scores[I][j]) + bias).toFixed(4) : scaled;
      t.append(el('tr', { class: seen ? 'nv-key' : 'nv-key nv-hidden', 'data-j': String(j) },
        el('td', { text: 'k' + j }), el('td', { text: tokenLabel(D.source_tokens[j]) }),
        ...(rope ? [el('td', {}, strip(v.keys_unrotated[j], magQK, 'key ' + j + ' before RoPE'))] : []),
        el('td', {}, strip(v.keys[j], magQK, 'key ' + j)),
        el('td', { class: 'st-score', text: scores ? format(scores, cell(scores, idx)) : '' }),
        ...(scaling ? [el('td', { class: 'st-scaled', text: scaled })] : []),
        ...(alibi ? [el('td', { class: 'st-bias', text: bias.toFixed(4) })] : []),
        el('td', { class: 'st-masked', text: seen ? before : '\u2212\u221e (hidden)' }),
        el('td', { class: 'st-weight', text: seen ? format(weights, cell(weights, idx)) : '0.0000' }),  // a hidden key's weight is 0
        el('td', {}, strip(v.values[j], magV, 'value ' + j))));
    }
    const ctx = v.context[I];
    const dropped = D.stages.includes('dropped');  // with dropout the context sums the dropped weights
    t.append(el('tr', { class: 'nv-query' }, el('td', { text: 'context' }), el('td', { text: dropped ? '\u03a3 dropped w_j v_j' : '\u03a3 w_j v_j' }),
      el('td', { class: 'st-context', colspan: String(4 + scaling + rope + alibi), text: '[' + ctx.slice(0, 8).map((x) => x.toFixed(4)).join(', ') +
        (ctx.length > 8 ? ', \u2026 ' + ctx.length + ' values' : '') + ']' }),
      el('td', {}, strip(ctx, magV, 'context of query ' + I))));
  }
