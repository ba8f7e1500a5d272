  // ---- the generation (attn decode --model --max-new-tokens) -----------------------------------------------

  // D.generation (render/page/html.h's render_decode_html): the decode JSON's "generation" (mode, sampler
  // settings, prompt_tokens, steps [{id, token, step, p, p_sample, top [{id, token, p}]}]), generated_ids,
  // layer (the one the steps record) and rows: each fed step's token and, from the text's last step on, its
  // recorded heads [{head, kv_head, weights}].
  // Generated token k was chosen after fed step steps[k].step: its row runs over the tokens fed so far.

  function buildGeneration() {
    const g = D.generation;
    if (!g || !g.steps.length) return null;
    const n = g.steps.length;
    const sec = el('section', { id: 'generation-section' }, el('h2', { text: 'Generation' }),
      el('p', { class: 'hint', text: 'The text (grey), then each token the model chose (blue), one step at a time. Move the ' +
        'slider or click a generated token: its probability, the alternatives, and how the chosen head attended when it was chosen.' }));
    sec.append(el('p', { class: 'gen-sampler', id: 'gen-sampler', text: samplerText(g) }));
    const chips = el('div', { class: 'gen-chips', id: 'gen-chips' });
    for (let i = 0; i < g.prompt_tokens; i++)
      chips.append(el('span', { class: 'gen-chip prompt', 'data-i': String(i), title: 'text token ' + i, text: tokenLabel(g.rows[i].token) }));
    g.steps.forEach((s, k) => {
      const c = el('button', { type: 'button', class: 'gen-chip generated', 'data-k': String(k), 'data-id': String(s.id),
        title: 'generated token ' + (k + 1) + ' (id ' + s.id + ')', text: tokenLabel(s.token) });
      c.addEventListener('click', () => { state.genStep = k; drawGeneration(); toFragment(); });
      chips.append(c);
    });
    if (g.stopped_at_eos) chips.append(el('span', { class: 'gen-end', text: '(the end token: generation stopped)' }));
    const slider = el('input', { type: 'range', id: 'gen-step', min: '0', max: String(n - 1), step: '1', value: '0',
      'aria-label': 'generation step' });
    slider.addEventListener('input', () => { state.genStep = Number(slider.value); drawGeneration(); toFragment(); });
    const label = el('span', { id: 'gen-step-label', class: 'gen-step-label' });
    const detail = el('div', { class: 'gen-detail' },
      el('div', { class: 'gen-choice' }, el('h3', { text: 'Chosen token' }), el('p', { id: 'gen-chosen', class: 'gen-chosen' }),
        el('h3', { text: 'Most likely next tokens' }), el('ol', { id: 'gen-top', class: 'gen-top' })),
      el('div', { class: 'gen-attention' }, el('h3', { id: 'gen-row-title', text: 'Attention' }),
        el('p', { id: 'gen-row-note', class: 'hint' }), el('div', { id: 'gen-row', class: 'gen-row' }),
        el('div', { id: 'gen-row-key', class: 'gen-row-key' })));
    sec.append(chips, el('div', { class: 'gen-stepper' }, el('label', { for: 'gen-step', text: 'step' }), slider, label), detail);
    Object.assign(ui, { genChips: chips, genSlider: slider, genLabel: label });
    if (state.genStep === undefined || state.genStep >= n) state.genStep = 0;
    return sec;
  }

  function samplerText(g) {
    if (g.mode !== 'sample') return 'greedy: the most likely token at each step · p: the model’s probability of it';
    const parts = ['temperature ' + g.temperature];
    if (g.top_k) parts.push('top-k ' + g.top_k);
    if (g.top_p < 1) parts.push('top-p ' + g.top_p);
    parts.push('seed ' + g.sample_seed);
    return 'sampled: ' + parts.join(', ') + ' · p: the model’s probability, q: the sampler’s (after temperature, top-k, top-p)';
  }

  // The chosen head's row when generated token k was chosen: the recorded one (the steps' layer), else the
  // full pass's row of the page's matrix data (equal to the step's within decode_max_abs_diff).
  function generationRow(k) {
    const g = D.generation, r = g.steps[k].step;
    const layer = D.layers[state.layer].layer ?? state.layer;
    const rec = layer === g.layer ? g.rows[r].heads.find((x) => x.head === state.head) : null;
    if (rec) return { weights: rec.weights, recorded: true };
    const d = desc(state.layer, state.head, 'weights'), w = [];
    for (let j = 0; j <= r; j++) w.push(real(d, cell(d, r * S + j)));
    return { weights: w, recorded: false };
  }

  function drawGeneration() {
    const g = D.generation;
    if (!ui.genChips) return;
    const k = state.genStep, s = g.steps[k], four = (v) => Number(v).toFixed(4);
    ui.genSlider.value = String(k);
    ui.genLabel.textContent = (k + 1) + ' of ' + g.steps.length;
    for (const c of ui.genChips.querySelectorAll('.gen-chip.generated')) {  // the tokens after this step: not chosen yet
      c.classList.toggle('on', Number(c.dataset.k) === k);
      c.classList.toggle('later', Number(c.dataset.k) > k);
    }
    // 1. the token chosen, its probability (and the sampler's)
    const chosen = document.getElementById('gen-chosen');
    chosen.textContent = '';
    const p = el('b', { id: 'gen-p', text: four(s.p) });
    p.dataset.p = String(s.p);
    chosen.append(el('code', { class: 'gen-token', text: tokenLabel(s.token) }), ' (id ' + s.id + '): p = ', p);
    if (g.mode === 'sample') {
      const q = el('b', { id: 'gen-q', text: four(s.p_sample) });
      q.dataset.p = String(s.p_sample);
      chosen.append(', q = ', q);
    }
    chosen.append(el('span', { class: 'where', text: '  ·  chosen after position ' + s.step + ' “' + tokenLabel(g.rows[s.step].token) + '”' }));
    // 2. the top alternatives as bars (the chosen one marked)
    const top = document.getElementById('gen-top');
    top.textContent = '';
    const most = Math.max(1e-9, ...s.top.map((a) => a.p));
    for (const a of s.top) {
      const li = el('li', { 'data-id': String(a.id), 'data-p': String(a.p), class: a.id === s.id ? 'chosen' : '' },
        el('code', { class: 'gen-token', title: 'id ' + a.id, text: tokenLabel(a.label ?? a.token) }),
        el('span', { class: 'gen-bar' }, el('span', {})), el('span', { class: 'gen-num', text: four(a.p) }));
      li.querySelector('.gen-bar span').style.width = (100 * a.p / most).toFixed(1) + '%';
      top.append(li);
    }
    if (!s.top.some((a) => a.id === s.id))
      top.append(el('li', { class: 'note-item', text: 'the chosen token is not among these (sampled)' }));
    // 3. the chosen head's row over the tokens so far, coloured as the matrix colours its weights
    const row = generationRow(k), sc = scaleOf(state.layer, 'weights');
    const layerName = D.layers[state.layer].layer ?? state.layer;
    document.getElementById('gen-row-title').textContent = 'Attention of layer ' + layerName + ', head ' + state.head +
      ' when it was chosen (query: position ' + s.step + ')';
    const recorded = g.rows[s.step].heads.map((x) => x.head);
    document.getElementById('gen-row-note').textContent = row.recorded
      ? 'The step’s own row from the key/value cache (the steps record layer ' + g.layer + (recorded.length === 1
        ? ', head ' + recorded[0] + ' only' : ', every head') + '). Pick another head or layer above.'
      : 'The steps record layer ' + g.layer + (recorded.length === 1 ? ', head ' + recorded[0] : '') +
        ': this row is the full pass’s (it equals the step’s within ' + Number(g.decode_max_abs_diff).toPrecision(2) + ').';
    const box = document.getElementById('gen-row');
    box.textContent = '';
    box.dataset.layer = String(layerName);
    box.dataset.head = String(state.head);
    box.dataset.recorded = String(row.recorded);
    row.weights.forEach((w, j) => {
      const i = 3 * colourIndex(sc, w), rgb = [sc.cmap[i], sc.cmap[i + 1], sc.cmap[i + 2]];
      const light = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] > 140;
      const query = j === row.weights.length - 1;  // the newest token: the query, which sees itself too
      const c = el('span', { class: 'gen-cell' + (j >= g.prompt_tokens ? ' generated' : '') + (query ? ' query' : ''), 'data-j': String(j),
        'data-w': String(w), title: 'key ' + j + ' “' + tokenLabel(g.rows[j].token) + '”' + (query ? ' (the query itself)' : '') + ': ' + four(w) },
        el('span', { class: 'gen-cell-token', text: tokenLabel(g.rows[j].token) }), el('span', { class: 'gen-cell-w', text: four(w) }));
      c.style.background = 'rgb(' + rgb.join(',') + ')';
      c.style.color = light ? '#1d1d1f' : '#fff';
      box.append(c);
    });
    const key = document.getElementById('gen-row-key');
    key.textContent = 'Colours: the matrix’s weights scale for layer ' + layerName + ' (' + Number(sc.lo.toPrecision(3)) + ' to ' +
      Number(sc.hi.toPrecision(3)) + ', viridis); generated tokens underlined; outlined: the query, the newest token.';
  }
