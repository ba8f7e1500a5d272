  // ---- decode: tokens one at a time, each query over a growing key/value cache ------------------------------
  //
  // Pages that carry attn's core (live.js). The panel's "decode" button runs `attn decode` in the core's worker
  // (as window.attn.decode: the JSON `attn decode ARGV --json -` prints, docs/trace-format.md "attn-decode")
  // with the panel's kind, sentence and the options decode takes, and draws two figures from the trace:
  //   the staircase: row t is step t's weights over the t + 1 cached keys (T steps × T keys, lower
  //                  triangular), coloured as the weights matrices are (fixed 0–1, the page's colour
  //                  map); keys not yet in the cache are left empty, keys a window hides are hatched;
  //   the cache:     its bytes after each step for MHA, GQA and MQA at this run's sizes (the trace's
  //                  cache_variants: bytes per token × tokens cached), as the PNG `attn decode --png` draws.
  // A head picker (naming the key/value head each query head reads) and a step slider choose what the
  // readouts say: hover a cell for its exact weight and tokens.

  // The options of the panel that `attn decode` takes too (cli/decode_options.cpp binds them).
  const DECODE_TAKES = new Set(['--kind', '--d-in', '--d-out', '--seed', '--init', '--qkv-bias', '--heads', '--kv-heads', '--window',
    '--pos', '--rope-base', '--rope-style', '--split', '--example', '--max-tokens']);
  const dec = { trace: null, head: 0, step: 0, hover: null, ui: null, busy: false };

  // The panel's words for decode: the options decode takes (in the panel's order, the kept ones after), the
  // sentence; and the ones it leaves out ("--no-causal", "--dropout 0.1": decode is always causal and draws
  // no dropout). --colormap is not a word of decode: it colours the staircase.
  function decodeWords() {
    if (chosenModel()) return { words: ['--model', chosenModel(), live.ui.text.value], left: [] };
    const words = ['--kind', live.ui.kind.value], left = [];
    const take = (name, value) => {
      if (name === '--colormap') return;
      const shown = value === null ? name : name + ' ' + value;
      if (!DECODE_TAKES.has(name)) left.push(shown);
      else if (value === null) words.push(name);
      else words.push(value.startsWith('-') ? name + '=' + value : name, ...(value.startsWith('-') ? [] : [value]));
    };
    for (const [flag, value] of Object.entries(liveValues())) {
      if (LIVE_FIELDS[flag].words) left.push(value);  // --causal or --no-causal
      else take(flag, value === true ? null : LIVE_FIELDS[flag].text ? value : value.trim());
    }
    // the kept options, as fillFromWords keeps them: "--name", "--name=value" or "--name", "value"
    for (let k = 0; k < live.extra.length; k++) {
      const w = live.extra[k], eq = w.indexOf('=');
      if (eq > 0) take(w.slice(0, eq), w.slice(eq + 1));
      else if (k + 1 < live.extra.length && !live.extra[k + 1].startsWith('-')) take(w, live.extra[++k]);
      else take(w, null);
    }
    const text = live.ui.text.value;
    if (!(text === '' && words.includes('--example'))) {
      if (text.startsWith('-')) words.push('--');
      words.push(text);
    }
    return { words: words, left: left };
  }

  // Runs decode for the panel's settings in the core's worker (core_worker.js), with the panel's progress line
  // and cancel button; the Decode section redraws, or #live-error shows decode's one-line error. first: the
  // page's own run as it opened, quietly (the error of a kind that does not decode stays in the section).
  // Resolves true when drawn.
  async function decodeRun(scroll, first) {
    if (!live.core || dec.busy) return false;
    const { words, left } = decodeWords();
    const seq = live.seq;  // a cancel, or a run started meanwhile, owns the panel's lines after this
    const t0 = performance.now();
    dec.busy = true;
    let text;
    try {
      if (!first) showRunning(t0);
      text = (await coreCall('decode', [words])).value;
    } catch (e) {
      if (first) dec.ui.first.textContent = 'This page’s run does not decode: ' + e.message;
      else if (seq === live.seq) showLiveError(e.message);
      return false;
    } finally {
      dec.busy = false;
    }
    const t1 = performance.now();
    showDecode(JSON.parse(text), words, left);
    if (!first && seq === live.seq) {
      showRunning(null);
      live.ui.error.textContent = '';
      live.ui.error.hidden = true;
      liveStatus('decoded in ' + Math.round(t1 - t0) + ' ms, drawn in ' + Math.round(performance.now() - t1) + ' ms');
    }
    document.documentElement.dataset.decodeRuns = String(Number(document.documentElement.dataset.decodeRuns || 0) + 1);
    if (scroll) dec.ui.sec.scrollIntoView({ block: 'start' });
    return true;
  }

  // The page's own run, decoded when the Decode section first comes into view (not at load: the worker
  // stays free for the panel's first runs), unless decode was pressed before.
  function decodeWhenSeen() {
    if (!dec.ui || typeof IntersectionObserver !== 'function') return;
    const seen = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      seen.disconnect();
      if (!dec.trace) decodeRun(false, true);
    });
    seen.observe(dec.ui.sec);
  }

  function buildDecode() {
    const sec = el('section', { id: 'decode', class: 'decode' }, el('h2', { text: 'Decode: one token at a time, over a growing key/value cache' }),
      el('p', { class: 'hint', text: 'A model generates one token per step. Step t appends token t’s key and value to the cache, ' +
        'and its one query attends over the t + 1 cached keys: row t of the staircase, the same numbers as row t of the ' +
        'causal weights matrix. The cache grows by the same number of bytes every step; sharing key/value heads (GQA, MQA) ' +
        'shrinks it. Press decode in the panel above to decode its sentence and settings.' }));
    const first = el('p', { class: 'hint', id: 'decode-first' });
    const note = el('p', { class: 'hint', id: 'decode-words' });
    const headPick = el('select', { id: 'decode-head', 'aria-label': 'decode head' });
    const slider = el('input', { type: 'range', id: 'decode-step', min: '0', max: '0', value: '0', 'aria-label': 'step' });
    const stepText = el('span', { id: 'decode-step-text' });
    const controls = el('div', { class: 'decode-controls' }, el('label', {}, 'head ', headPick),
      el('label', {}, 'step ', slider), stepText);
    const stair = el('figure', { class: 'decode-stair', id: 'decode-stair' });
    const cache = el('figure', { class: 'decode-cache', id: 'decode-cache-figure' });
    // the readouts next to what they read: the weight above the staircase, the bytes under the cache's lines
    const readout = el('div', { class: 'readout', id: 'decode-readout', 'aria-live': 'polite' });
    const cacheText = el('div', { class: 'readout', id: 'decode-cache' });
    // the pickers and the readout stay in view (sticky) while a long staircase scrolls under them
    const body = el('div', { id: 'decode-body' }, note, el('div', { class: 'decode-sticky' }, controls, readout),
      el('div', { class: 'decode-figures' }, stair, cache));
    body.hidden = true;
    sec.append(first, body);
    headPick.addEventListener('change', () => { dec.head = Number(headPick.value); drawDecode(); toFragment(); });
    slider.addEventListener('input', () => { dec.step = Number(slider.value); dec.hover = null; drawDecode(); toFragment(); });
    dec.ui = { sec: sec, first: first, body: body, note: note, head: headPick, slider: slider, stepText: stepText, stair: stair, cache: cache,
      readout: readout, cacheText: cacheText };
    return sec;
  }

  // A new trace: the pickers follow its heads and steps (the head and step kept where they exist).
  function showDecode(tr, words, left) {
    dec.trace = tr;
    const H = tr.steps[0].heads.length, T = tr.steps.length;
    dec.head = Math.min(dec.head, H - 1);
    dec.step = T - 1;
    dec.hover = null;
    const u = dec.ui;
    u.body.hidden = false;
    u.first.textContent = '';
    u.note.textContent = '';
    u.note.append('attn decode ', el('code', { text: words.map(shellWord).join(' ') }),
      left.length ? ' · left out (decode does not take them; it is always causal): ' + left.join(', ') : '');
    u.head.textContent = '';
    tr.steps[0].heads.forEach((x, k) => u.head.append(el('option', { value: String(k),
      text: 'head ' + x.head + (tr.cache.kv_heads < tr.cache.heads ? ' (kv head ' + x.kv_head + ')' : '') })));
    u.head.value = String(dec.head);
    u.slider.max = String(T - 1);
    u.slider.value = String(dec.step);
    drawStair();
    drawCacheChart();
    drawDecode();
    toFragment();
  }
  // The address keeps the Decode section's head and step once it shows a trace: decode=HEAD,STEP.
  function decodeFragmentPart() { return dec.trace ? 'decode=' + dec.head + ',' + dec.step : ''; }
  // A link's decode=HEAD,STEP: the section decodes the panel's run at once and shows that head and step
  // (where the trace has them). Nothing when the link has no decode part.
  async function decodeFromLink(hash) {
    const f = new URLSearchParams(hash.replace(/^#/, ''));
    if (!f.has('decode') || !dec.ui) return;
    const [h, s] = f.get('decode').split(',').map(Number);
    if (!(await decodeRun(true, false))) return;
    const H = dec.trace.steps[0].heads.length, T = dec.trace.steps.length;
    if (Number.isInteger(h) && h >= 0 && h < H) dec.head = h;
    if (Number.isInteger(s) && s >= 0 && s < T) dec.step = s;
    dec.ui.head.value = String(dec.head);
    dec.ui.slider.value = String(dec.step);
    drawDecode();
    toFragment();
  }
  function shellWord(w) { return /^[\w.,:=\/+-]+$/.test(w) ? w : '"' + w.replace(/["\\$`]/g, '\\$&') + '"'; }

  // Key j is hidden at step t by the window (kind local: step t sees keys t − W .. t).
  function windowHides(tr, t, j) { return tr.kind === 'local' && tr.config && j < t - tr.config.window; }

  // The staircase of the chosen head: a T × T grid of cells of c px, keys on the columns (labelled with their
  // tokens), steps on the rows; redrawn for a new head.
  function drawStair() {
    const tr = dec.trace, T = tr.steps.length, fig = dec.ui.stair;
    // cells as large as the width beside the chart and the window's height under the sticky readout allow
    const room = Math.min((Math.min(1100, window.innerWidth || 1200) - 560), (window.innerHeight || 800) - 240);
    const c = Math.max(8, Math.min(36, Math.floor(room / T)));
    fig.textContent = '';
    const grid = el('div', { class: 'matrix-grid' });  // the matrix's layout; its own label classes (the views' are the matrix's)
    const cols = el('div', { class: 'decode-cols' }), rows = el('div', { class: 'decode-rows' });
    cols.style.width = (T * c) + 'px';
    // the keys' labels as tall as the longest needs (up to the matrix's 96 px)
    const longest = Math.max(...tr.tokens.map((w, k) => (k + ' ' + tokenLabel(w)).length));
    cols.style.height = Math.min(96, 10 + 8 * longest) + 'px';
    rows.style.height = (T * c) + 'px';
    const step = c >= 14 ? 1 : niceStep(Math.ceil(14 / c));
    for (let k = 0; k < T; k += step) {
      const r = el('span', { text: 'step ' + k + ' ' + tokenLabel(tr.tokens[k]) });
      r.style.top = (k * c) + 'px';
      r.style.height = r.style.lineHeight = Math.max(c, 14) + 'px';
      rows.append(r);
      const s = el('span', { text: k + ' ' + tokenLabel(tr.tokens[k]) });
      s.style.left = (k * c) + 'px';
      s.style.width = s.style.lineHeight = Math.max(c, 14) + 'px';
      cols.append(s);
    }
    const canvas = cellCanvas({ class: 'decode-map', id: 'decode-map' }, T, T, c);
    canvas.addEventListener('mousemove', (e) => {
      const r = canvas.getBoundingClientRect();
      const j = Math.floor((e.clientX - r.left) / r.width * T), t = Math.floor((e.clientY - r.top) / r.height * T);
      if (t < 0 || t >= T || j < 0 || j >= T) return;
      dec.hover = { t: t, j: j };
      dec.step = t;
      dec.ui.slider.value = String(t);
      drawDecode();
    });
    canvas.addEventListener('mouseleave', () => { dec.hover = null; drawDecode(); });
    grid.append(el('div', { class: 'corner', text: 'step ↓ key →' }), cols, rows, canvas);
    const cmap = sequential((D.colour && D.colour.colormap) || 'viridis');
    fig.append(el('figcaption', { text: 'Each step’s weights over the cached keys (key j is token j’s)' }), grid,
      el('div', { class: 'matrix-key decode-key' }, colourBar(cmap, '0', '1'),
        el('span', { class: 'key-item' }, el('span', { class: 'swatch decode-empty' }), 'not in the cache yet'),
        tr.kind === 'local' ? el('span', { class: 'key-item' }, el('span', { class: 'swatch hatched' }), 'cached, outside the window (weight 0)') : ''));
    dec.ui.map = canvas;
  }

  // The cells of the chosen head, the chosen step's row outlined, the hovered cell boxed.
  function paintStair() {
    const tr = dec.trace, T = tr.steps.length, canvas = dec.ui.map, ctx = canvas.getContext('2d');
    const sx = canvas.width / T, sy = canvas.height / T;
    const sc = { lo: 0, hi: 1, log: false, cmap: sequential((D.colour && D.colour.colormap) || 'viridis') };
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const x0 = (j) => Math.round(j * sx), y0 = (t) => Math.round(t * sy);
    for (let t = 0; t < T; t++) {
      const w = tr.steps[t].heads[dec.head].weights;
      for (let j = 0; j < T; j++) {
        const x = x0(j), y = y0(t), wd = x0(j + 1) - x, ht = y0(t + 1) - y;
        if (j > t) {  // not cached yet: the page's background with a faint outline
          ctx.strokeStyle = '#e4e4e4';
          ctx.strokeRect(x + 0.5, y + 0.5, wd - 1, ht - 1);
          continue;
        }
        if (windowHides(tr, t, j)) {
          ctx.fillStyle = 'rgb(' + HIDDEN_RGB.join(',') + ')';
          ctx.fillRect(x, y, wd, ht);
          ctx.beginPath();
          ctx.moveTo(x, y + ht);
          ctx.lineTo(x + wd, y);
          ctx.strokeStyle = 'rgb(120,120,120)';
          ctx.stroke();
          continue;
        }
        const k = 3 * colourIndex(sc, w[j]);
        ctx.fillStyle = 'rgb(' + sc.cmap[k] + ',' + sc.cmap[k + 1] + ',' + sc.cmap[k + 2] + ')';
        ctx.fillRect(x, y, wd, ht);
      }
    }
    const box = (t, j0, j1, colour, width) => {
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      ctx.strokeRect(x0(j0) + width / 2, y0(t) + width / 2, x0(j1) - x0(j0) - width, y0(t + 1) - y0(t) - width);
      ctx.lineWidth = 1;
    };
    box(dec.step, 0, dec.step + 1, '#ff2d2d', 2);
    if (dec.hover) box(dec.hover.t, dec.hover.j, dec.hover.j + 1, '#ffffff', 2);
  }

  const BYTES = (n) => n.toLocaleString('en-US') + ' bytes';
  // A size in bytes with its binary unit when large: "2,048 bytes (2 KiB)".
  function bytesText(n) {
    const units = [['GiB', 2 ** 30], ['MiB', 2 ** 20], ['KiB', 2 ** 10]];
    for (const [u, v] of units) if (n >= v) return BYTES(n) + ' (' + +(n / v).toFixed(2) + ' ' + u + ')';
    return BYTES(n);
  }

  // The cache's bytes after each step for each variant (MHA, GQA, MQA): one line each against the tokens
  // cached (1 .. T), as the native figure draws it, in SVG; the chosen step marked.
  function drawCacheChart() {
    const tr = dec.trace, T = tr.steps.length, fig = dec.ui.cache;
    const W = 460, Hh = 250, m = { l: 78, r: 16, t: 12, b: 40 };
    const vars = tr.cache_variants.length ? tr.cache_variants
      : [{ name: tr.cache.kv_heads === 1 ? 'MQA' : 'MHA', kv_heads: tr.cache.kv_heads, bytes_per_token: tr.steps[0].cache_bytes, this_run: true }];
    const top = Math.max(...vars.map((v) => v.bytes_per_token)) * T;
    const yStep = niceStep(top / 5), yTop = Math.ceil(top / yStep) * yStep;
    const X = (n) => m.l + (T === 1 ? 0.5 : (n - 1) / (T - 1)) * (W - m.l - m.r), Y = (b) => Hh - m.b - b / yTop * (Hh - m.t - m.b);
    const NS = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(NS, 'svg');
    const add = (tag, attrs, text) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text !== undefined) e.textContent = text;
      svg.append(e);
      return e;
    };
    Object.entries({ width: W, height: Hh, viewBox: '0 0 ' + W + ' ' + Hh, class: 'decode-chart', id: 'decode-chart' })
      .forEach(([k, v]) => svg.setAttribute(k, v));
    for (let b = 0; b <= yTop; b += yStep) {
      add('line', { x1: m.l, x2: W - m.r, y1: Y(b), y2: Y(b), stroke: '#e4e4e4' });
      add('text', { x: m.l - 6, y: Y(b) + 4, 'text-anchor': 'end', 'font-size': 11 }, b.toLocaleString('en-US'));
    }
    const xStep = niceStep(Math.ceil(T / 8));
    // 1, the multiples of the step, and T unless a multiple sits too close to it
    for (let n = 1; n <= T; n++) if (n === 1 || n % xStep === 0 || (n === T && T % xStep >= xStep / 2))
      add('text', { x: X(n), y: Hh - m.b + 16, 'text-anchor': 'middle', 'font-size': 11 }, String(n));
    add('text', { x: (m.l + W - m.r) / 2, y: Hh - 6, 'text-anchor': 'middle', 'font-size': 12 }, 'tokens in the cache');
    add('text', { x: 14, y: (m.t + Hh - m.b) / 2, 'text-anchor': 'middle', 'font-size': 12, transform: 'rotate(-90 14 ' + (m.t + Hh - m.b) / 2 + ')' }, 'bytes');
    add('line', { x1: m.l, x2: m.l, y1: m.t, y2: Hh - m.b, stroke: '#888' });
    add('line', { x1: m.l, x2: W - m.r, y1: Hh - m.b, y2: Hh - m.b, stroke: '#888' });
    const colours = ['#1f77b4', '#ff7f0e', '#2ca02c'];
    const legend = el('div', { class: 'decode-legend' });
    vars.forEach((v, k) => {
      const pts = [];
      for (let n = 1; n <= T; n++) pts.push(X(n).toFixed(1) + ',' + Y(v.bytes_per_token * n).toFixed(1));
      add('polyline', { points: pts.join(' '), fill: 'none', stroke: colours[k % 3], 'stroke-width': v.this_run ? 3 : 1.5 });
      const line = el('span', { class: 'swatch-line' });
      line.style.background = colours[k % 3];
      legend.append(el('div', { class: 'key-item' + (v.this_run ? ' this-run' : '') }, line,
        v.name + ', G = ' + v.kv_heads + ': ' + BYTES(v.bytes_per_token) + ' per token' + (v.this_run ? ' (this run)' : '')));
    });
    if (vars.length === 1)  // one head: MHA, GQA and MQA are one cache
      legend.append(el('div', { class: 'hint', text: 'With ' + counted(tr.cache.heads, 'query head') + ' there is one cache to draw: give the ' +
        'panel more heads (mha, gqa, mqa) to compare MHA, GQA and MQA.' }));
    dec.ui.marker = add('line', { x1: 0, x2: 0, y1: m.t, y2: Hh - m.b, stroke: '#ff2d2d', 'stroke-dasharray': '4 3' });
    dec.ui.markerAt = X;
    dec.ui.vars = vars;
    fig.textContent = '';
    fig.append(el('figcaption', { text: 'KV cache after each step: per token, layers × G × (d_k + d_v) × 4 bytes = ' +
      tr.cache.layers + ' × G × (' + tr.cache.d_k + ' + ' + tr.cache.d_v + ') × 4' }), svg, legend, dec.ui.cacheText);
  }

  // The readouts and the marks for the chosen head, step and hovered cell.
  function drawDecode() {
    const tr = dec.trace;
    if (!tr) return;
    const u = dec.ui, t = dec.step, st = tr.steps[t], hs = st.heads[dec.head];
    paintStair();
    u.stepText.textContent = 'step ' + t + ' (of 0–' + (tr.steps.length - 1) + '): “' + tokenLabel(st.token) + '” attends over ' + counted(t + 1, 'cached key');
    const r = u.readout;
    r.textContent = '';
    const j = dec.hover ? dec.hover.j : null;
    const where = '  ·  head ' + hs.head + (tr.cache.kv_heads < tr.cache.heads ? ' (kv head ' + hs.kv_head + ')' : '');
    if (j === null) {
      // the step's whole row: every cached key with its weight
      r.append(el('span', { class: 'q', text: 'step ' + t + ' “' + st.token + '”' }), ' over its cache: ');
      hs.weights.forEach((w, k) => {
        if (k) r.append(', ');
        r.append(el('span', { class: 'k', text: k + ' “' + tr.tokens[k] + '” ' }), el('b', { text: w.toFixed(4) }));
      });
      r.append(el('span', { class: 'where', text: where + '  ·  point at a cell for its exact weight' }));
      Object.assign(r.dataset, { step: t, head: dec.head, key: '', weight: '' });
    } else if (j > t) {
      r.append(el('span', { class: 'q', text: 'step ' + t + ' “' + st.token + '”' }), ' → ',
        el('span', { class: 'k', text: 'key ' + j + ' “' + tr.tokens[j] + '”' }), ': ',
        el('b', { text: 'not in the cache yet' }), ' (token ' + j + ' is fed at step ' + j + ')', el('span', { class: 'where', text: where }));
      Object.assign(r.dataset, { step: t, head: dec.head, key: j, weight: '' });
    } else {
      const w = hs.weights[j];
      r.append(el('span', { class: 'q', text: 'step ' + t + ' “' + st.token + '”' }), ' → ',
        el('span', { class: 'k', text: 'key ' + j + ' “' + tr.tokens[j] + '”' }), ': weight = ', el('b', { class: 'v', text: String(w) }),
        windowHides(tr, t, j) ? ' (outside the window: hidden)' : '', el('span', { class: 'where', text: where }));
      Object.assign(r.dataset, { step: t, head: dec.head, key: j, weight: String(w) });
    }
    // the cache after this step, for each variant
    const n = t + 1, c = u.cacheText;
    c.textContent = '';
    c.append('after step ' + t + ' (' + counted(n, 'token') + ' cached): ');
    u.vars.forEach((v, k) => {
      if (k) c.append(' · ');
      c.append(v.name + ' ', el('b', { class: 'cache-bytes', 'data-variant': v.name, text: bytesText(v.bytes_per_token * n) }));
    });
    c.append(el('span', { class: 'where', text: '  ·  this run (G = ' + tr.cache.kv_heads + '): ' + bytesText(st.cache_bytes) }));
    Object.assign(c.dataset, { step: t, bytes: String(st.cache_bytes) });
    const x = u.markerAt(n);
    u.marker.setAttribute('x1', x);
    u.marker.setAttribute('x2', x);
  }
