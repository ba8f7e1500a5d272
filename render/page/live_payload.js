  // ---- a trace (attn-trace JSON) as the page's payload: every stage as float32 (descriptor bytes 0) ---------

  // render/view/numbers.cpp's short_number: 3 decimals (3 significant ones below 0.01), trailing zeros
  // dropped, U+2212 for minus.
  function shortNumber(v) {
    const decimals = v !== 0 && Math.abs(v) < 0.01 ? Math.min(8, 2 - Math.floor(Math.log10(Math.abs(v)))) : 3;
    let s = v.toFixed(decimals);
    if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
    if (s.startsWith('-')) s = /[1-9]/.test(s) ? '\u2212' + s.slice(1) : s.slice(1);
    return s;
  }
  // render/view/colour_scale.cpp's make_scale, for a live run's stage under the page's --range, --log and
  // --colormap (D.colour): r holds the visible values' {lo, hi, mag, minPositive, any}. The scale as
  // html.cpp writes it: [lo, hi, map name, log, bottom label, top label].
  function liveScale(signed, r, c) {
    if (signed) {  // diverging, centred on 0: ±(largest visible |value|)
      const m = r.mag > 0 ? r.mag : 1;
      return [-m, m, 'RdBu_r', false, shortNumber(-m), shortNumber(m)];
    }
    let lo = 0, hi = 1;
    if (c.range === 'data') {
      lo = r.any ? r.lo : 0;
      hi = r.any && r.hi > lo ? r.hi : lo + 1;
    } else if (c.range === 'fixed') {
      lo = c.min, hi = c.max;
    }
    if (c.log && (c.range !== 'fixed' || lo <= 0)) {
      const smallest = r.minPositive > 0 ? r.minPositive : 1e-6;
      lo = Math.fround(Math.max(1e-6, Math.pow(10, Math.floor(Math.log10(smallest)))));
      if (c.range === 'data' && r.any && r.hi > lo) hi = r.hi;
      if (!(hi > lo)) hi = Math.fround(lo * 10);
    }
    return [lo, hi, c.colormap, c.log, (r.any && r.lo < lo ? '\u2264 ' : '') + shortNumber(lo),
      (r.any && r.hi > hi ? '\u2265 ' : '') + shortNumber(hi)];
  }

  // The colour rule a run's words give (--range, --log, --colormap; their defaults otherwise), as D.colour.
  function liveColour(given) {
    const c = { range: 'auto', min: 0, max: 1, log: false, colormap: 'viridis' };
    for (const [name, value] of given) {
      if (name === '--log') c.log = true;
      else if (name === '--colormap') c.colormap = value;
      else if (name === '--range' && value === 'data') c.range = 'data';
      else if (name === '--range' && value !== 'auto') {
        const [a, b] = value.split(',').map(Number);
        Object.assign(c, { range: 'fixed', min: Math.fround(a), max: Math.fround(b) });
      }
    }
    return c;
  }

  function livePayload(tr, colour) {
    const src = tr.source_tokens.length ? tr.source_tokens : tr.tokens;
    const nT = tr.tokens.length, nS = src.length, n = nT * nS;
    const trHeads = tr.attention[0].layers[0].heads;  // a seeded run: one set, one layer
    const h0 = trHeads[0];
    const stages = [];
    if (h0.weights) stages.push('weights');
    if (h0.scores) stages.push('scores');
    if (h0.scores && h0.mask) stages.push('masked-scores');
    if (h0.mask) stages.push('mask');
    if (h0.dropped_weights) stages.push('dropped');
    const cells = new Float32Array(n * stages.length * trHeads.length);
    const ranges = {};  // stage -> the visible values of every head, as the figures' scale spans them
    let at = 0;
    const heads = trHeads.map((h) => {
      // masked scores as the kinds compute them: scale · score in float32 (as render/page/html.cpp stores them)
      const value = {
        'weights': (i, j) => h.weights[i][j],
        'scores': (i, j) => h.scores[i][j],
        'masked-scores': (i, j) => Math.fround(Math.fround(h.scale) * h.scores[i][j]),
        'mask': (i, j) => (h.mask[i][j] ? 1 : 0),
        'dropped': (i, j) => h.dropped_weights[i][j],
      };
      const st = {};
      for (const s of stages) {
        let lo = Infinity, hi = -Infinity;
        const r = ranges[s] || (ranges[s] = { lo: Infinity, hi: -Infinity, mag: 0, minPositive: 0, any: false });
        for (let i = 0; i < nT; i++) for (let j = 0; j < nS; j++) {
          const shown = s === 'mask' || !h.mask || h.mask[i][j];
          const v = shown ? value[s](i, j) : 0;
          cells[at + i * nS + j] = v;
          if (shown) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
          // the figures span raw scores over every cell, the other stages over the visible ones
          if ((shown || s === 'scores') && isFinite(v)) {
            const x = Math.fround(s === 'scores' ? h.scores[i][j] : v);
            r.lo = Math.min(r.lo, x), r.hi = Math.max(r.hi, x), r.mag = Math.max(r.mag, Math.abs(x)), r.any = true;
            if (x > 0 && (r.minPositive === 0 || x < r.minPositive)) r.minPositive = x;
          }
        }
        if (!(lo <= hi)) lo = hi = 0;
        st[s] = [4 * at, 0, 0, lo, hi];
        at += n;
      }
      const x = { head: h.head, kv_head: h.kv_head, scale: h.scale, stages: st, hidden: h.mask ? st.mask : null };
      if (h.queries && h.keys && h.values && h.context)
        x.vectors = { queries: h.queries, keys: h.keys, values: h.values, context: h.context, queries_unrotated: h.queries_unrotated,
          keys_unrotated: h.keys_unrotated, bias: h.bias, scores: h.bias ? h.scores : undefined };
      if (tr.tiles && tr.tiles.length && h.scores) x.flash = flashFinal(h, nT, nS);
      return x;
    });
    const info = liveKind(tr.kind) || {};
    const d = {
      kind: tr.kind, description: info.description || '', formula: info.formula || '', paper: info.paper || '',
      score_stages: info.score_stages && ((info.score_stages.by_score || {})[tr.config.score] || info.score_stages),  // attn kinds --json
      weights_note: (info.options || '').split(', ').some((o) => o === '--init') ? 'random weights (seed ' + tr.config.seed + ')' : '',
      settings: tr.config, model: null, tokens: tr.tokens, source_tokens: src, token_ids: [], predictions: [],
      layered: false, stages: stages,
      layers: [{ layer: null, heads: heads, scales: Object.fromEntries(stages.filter((s) => s !== 'mask')
        .map((s) => [s, liveScale(s === 'scores' || s === 'masked-scores', ranges[s], colour)])) }],
      tiles: (tr.tiles || []).map((t) => [t.head, t.rows[0], t.rows[1], t.cols[0], t.cols[1], t.row_max, t.row_sum]),
      empty_rows: tr.empty_rows, viridis: D.viridis, rdbu: D.rdbu, colour: colour, colormaps: D.colormaps, init: { layer: null, head: null }, live: D.live,
    };
    lectureLive(tr, d, colour);  // inputs, q, k, v, context, output and the position figures (vector_stages.js)
    return [d, new Uint8Array(cells.buffer)];
  }
  // The full softmax's m* and l* of every row (what the tiles' running values converge to), as render/page/html.cpp.
  function flashFinal(h, nT, nS) {
    const m = [], l = [];
    for (let i = 0; i < nT; i++) {
      let mx = -Infinity, sum = 0;
      for (let j = 0; j < nS; j++) if (!h.mask || h.mask[i][j]) mx = Math.max(mx, Math.fround(h.scale) * h.scores[i][j]);
      for (let j = 0; j < nS; j++) if (isFinite(mx) && (!h.mask || h.mask[i][j])) sum += Math.exp(Math.fround(h.scale) * h.scores[i][j] - mx);
      m.push(isFinite(mx) ? Math.fround(mx) : null);
      l.push(Math.fround(sum));
    }
    return { m: m, l: l };
  }
