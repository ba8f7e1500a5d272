  // ---- the page's frame -------------------------------------------------------------------------------

  const ui = {};

  function buildHeader() {
    const h = el('header', {});
    h.append(el('h1', {}, 'attn · ', el('span', { id: 'kind', text: D.kind })));
    if (D.description) h.append(el('p', { class: 'description', text: D.description }));
    if (D.weights_note) h.append(el('p', { class: 'weights-note', id: 'weights-note', text: D.weights_note + (D.weights_note.startsWith('random') ? ': the heads learned nothing, their patterns come from the seed' : ': the parameters were read from this file, not drawn from a seed') }));
    if (D.formula) h.append(el('p', { class: 'formula' }, el('code', { text: D.formula })));
    if (D.paper) h.append(el('p', { class: 'paper', text: D.paper }));
    const settings = Object.entries(D.settings).map(([k, v]) => k + ' = ' + v).join(' · ');
    if (settings) h.append(el('p', { class: 'settings', id: 'settings', text: settings }));
    if (D.model && D.model.name) h.append(el('p', { class: 'model-name', id: 'model-name' }, el('b', { text: D.model.name }), ' · ' + D.model.type));
    if (D.text !== undefined) h.append(el('p', { class: 'text', id: 'text', text: '“' + D.text + '”' }));
    if (D.model) {
      const m = D.model;
      h.append(el('p', { class: 'model', id: 'model', text: m.type + ' · ' + m.dtype + ' · ' + m.n_layer + ' layers × ' +
        m.n_head + ' heads · width ' + m.n_embd + ' · ' + Number(m.n_params).toLocaleString('en') + ' parameters · ' +
        'context ' + m.n_positions + ' · vocabulary ' + m.vocab_size }));
    }
    if (D.predictions.length) h.append(ui.predictions = el('p', { class: 'predictions', id: 'predictions' }));
    h.append(el('p', { class: 'tokens', text: (T === 1 ? '1 query' : T + ' queries') +
      (JSON.stringify(D.tokens) === JSON.stringify(D.source_tokens) ? '' : ', ' + counted(S, 'key')) +
      (D.layered ? ' · ' + counted(L, 'layer') : '') + ' · ' + counted(D.layers[0].heads.length, 'head') }));
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
    bar.append(select('stage', 'stage', pageStages().map((s) => [s, STAGE_TEXT[s] || s])));  // in the lecture's order
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
      const groups = kvGroups(heads);
      // grouped heads name their key/value head, each of them ("head 0 (kv 0)")
      const option = (h) => el('option', { value: String(h),
        text: 'head ' + h + (groups || heads[h].kv_head !== heads[h].head ? ' (kv ' + heads[h].kv_head + ')' : '') });
      if (!groups) heads.forEach((x, h) => s.append(option(h)));
      else for (const [kv, hs] of groups)  // one option group per key/value head
        s.append(el('optgroup', { label: 'kv head ' + kv + ': heads ' + hs[0] + '\u2013' + hs[hs.length - 1] }, ...hs.map(option)));
    }
    if (state.headsOn.length !== heads.length) state.headsOn = heads.map(() => true);
  }
