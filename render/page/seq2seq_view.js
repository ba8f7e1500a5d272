  // ---- an encoder–decoder model's page (T5, BART, Marian): Encoder | Decoder | Cross tabs -------------------
  // Only such a page carries this file (render/page/page_assets.cpp, page_js(PageStack::encoder_decoder)), after
  // start.js: it runs before start()'s first await ends, so the views it wraps are the ones the page builds.
  // D.sets (render/page/html.cpp): encoder (S x S), decoder (T x T), cross (T x S), each {name, tokens,
  // source_tokens, layers, stages, empty_rows}, every layer with its colour scales (`scales`: [lo, hi, map]
  // per stage, by the PNGs' rule). One set is shown at a time by making it D's own: the views (overview,
  // matrix, head view, the layer as a whole) read D, T, S and L, so each tab is the same views of its set.
  // D.translation: {source, text, generated (T labels), teacher_forced}.

  const SETS = D.sets;
  const SET_INFO = {
    encoder: { tab: 'Encoder', rows: 'source', cols: 'source',
      about: 'The encoder’s self-attention: each source token over every source token (bidirectional, nothing hidden).' },
    decoder: { tab: 'Decoder', rows: 'decoder', cols: 'decoder',
      about: 'The decoder’s self-attention: each decoder token over itself and the decoder tokens before it (causal).' },
    cross: { tab: 'Cross', rows: 'decoder', cols: 'source',
      about: 'Cross-attention: each decoder token (left, rows) over the source tokens (right, columns), the encoder’s output. ' +
        'Row i is the step whose next token is the decoder’s token i + 1.' },
  };
  const OPENING_SET = SETS.length - 1;  // cross
  const decoderPredictions = D.predictions;  // (T) the decoder's top 5 at each of its rows
  const kept = SETS.map(() => null);  // each tab's selection when it was left
  let shown = -1;

  // The set the URL fragment names ("set=encoder"), or -1.
  function fragmentSet() {
    const name = new URLSearchParams(location.hash.replace(/^#/, '')).get('set');
    return SETS.findIndex((s) => s.name === name);
  }

  // Set k becomes D's: its tokens, layers and stages; the decoder's predictions on the rows that are the
  // decoder's (the encoder's rows are source tokens).
  function useSet(k) {
    const s = SETS[k];
    Object.assign(D, { tokens: s.tokens, source_tokens: s.source_tokens, layers: s.layers, stages: s.stages,
      empty_rows: s.empty_rows, predictions: s.name === 'encoder' ? [] : decoderPredictions });
    T = D.tokens.length;
    S = D.source_tokens.length;
    L = D.layers.length;
    cache.clear();  // its pictures are keyed by layer, head and stage: another set's
    shown = k;
  }

  // Every set's masked scores read their raw scores (start() links only D's own layers), and the layer's
  // mean and rollout take the PNGs' colours: drawAggregates colours from min(0, d[3]) to d[4].
  for (const s of SETS) for (const layer of s.layers) {
    for (const x of layer.heads) {
      const m = x.stages['masked-scores'];
      if (m && m[5] === 'scores') Object.assign(m, { from: x.stages.scores, scale: Math.fround(x.scale) });
    }
    for (const d of Object.values(layer.aggregates || {})) {
      const [lo, hi] = layer.scales.aggregates;
      d[3] = d[1] === 0 ? lo : Math.round(lo * 10000);
      d[4] = d[1] === 0 ? hi : Math.round(hi * 10000);
    }
  }

  // ---- the tabs -------------------------------------------------------------------------------------------

  function shapeText(s) {
    const info = SET_INFO[s.name];
    return info.rows + ' × ' + info.cols + ' · ' + s.tokens.length + ' × ' + s.source_tokens.length + ' · ' + s.layers.length + ' layers';
  }

  // Another set: the selection it had when it was left (or the nearest layer and head), every view rebuilt.
  function openSet(k, focus) {
    if (k === shown) return;
    kept[shown] = { layer: state.layer, head: state.head, stage: state.stage };
    useSet(k);
    const back = kept[k] || { layer: Math.min(state.layer, L - 1), head: state.head, stage: state.stage };
    if (!D.stages.includes(back.stage)) back.stage = D.stages[0];
    Object.assign(state, back, { pin: null, hover: null, tile: 0, headsOn: [] });
    rebuild();
    if (focus) document.getElementById('set-tab-' + SETS[k].name).focus({ preventScroll: true });
  }

  function buildTabs() {
    const bar = el('div', { class: 'set-tabs', role: 'tablist', 'aria-label': 'attention set' });
    SETS.forEach((s, k) => {
      const b = el('button', { type: 'button', role: 'tab', id: 'set-tab-' + s.name, 'data-set': s.name,
        'aria-selected': String(k === shown), 'aria-controls': 'views', tabindex: k === shown ? '0' : '-1' },
      el('b', { text: SET_INFO[s.name].tab }), el('span', { class: 'set-shape', text: shapeText(s) }));
      b.addEventListener('click', () => openSet(k, true));
      b.addEventListener('keydown', (e) => {  // the arrow keys move between tabs (WAI-ARIA's tabs pattern)
        const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
        if (!step) return;
        e.preventDefault();
        openSet((k + step + SETS.length) % SETS.length, true);
      });
      bar.append(b);
    });
    return el('nav', { class: 'set-nav', id: 'set-nav' }, bar,
      el('p', { class: 'hint set-about', id: 'set-about', text: SET_INFO[SETS[shown].name].about }));
  }

  // "source" → "translation", greedy or teacher-forced.
  function translationLine() {
    const t = D.translation;
    const mode = t.teacher_forced ? 'teacher-forced' : 'greedy';
    return el('p', { class: 'translation', id: 'translation' },
      el('span', { class: 'source', text: '“' + t.source + '”' }), el('span', { class: 'arrow', text: ' → ' }),
      el('span', { class: 'target', text: '“' + t.text + '”' }), ' ',
      el('span', { class: 'mode', id: 'translation-mode', text: mode, title: t.teacher_forced
        ? 'the decoder read the given target’s tokens, not its own choices'
        : 'each output token is the decoder’s most likely next token (a beam search may translate differently)' }));
  }

  // ---- the views, wrapped -------------------------------------------------------------------------------

  // The header: the translation first (it says the text), the encoder's and the decoder's depths.
  const singleHeader = buildHeader;
  buildHeader = function () {
    const h = singleHeader();
    const text = h.querySelector('#text');
    if (text) text.remove();
    const m = h.querySelector('#model');
    if (m) m.textContent = m.textContent.replace(D.model.n_layer + ' layers ×',
      'encoder ' + D.model.n_layer + ' layers, decoder ' + D.model.n_decoder_layer + ' layers ×');
    const name = h.querySelector('#model-name');
    (name || h.querySelector('h1')).after(translationLine());
    return h;
  };

  // The tabs at the top of the views, under the header.
  const singleMain = buildMain;
  buildMain = function () {
    const main = singleMain();
    main.querySelector('header').after(buildTabs());
    main.dataset.set = SETS[shown].name;
    return main;
  };

  // The set picker in the sticky bar, beside the layer, head and stage: the set stays in sight (and can
  // change) while the matrix or the head view is scrolled to.
  const singleControls = buildControls;
  buildControls = function () {
    const bar = singleControls();
    const label = select('set', 'set', SETS.map((s, k) => [k, SET_INFO[s.name].tab]));
    const s = label.querySelector('select');
    s.value = String(shown);
    s.addEventListener('change', () => openSet(Number(s.value), false));
    bar.prepend(label);
    return bar;
  };

  // Whether a head's mask hides any key (its mask's smallest value is 0): the encoder's and the cross
  // set's hide none, and then their keys say nothing of hatching.
  function hidesAny(x) { return !!x.hidden && x.hidden[3] === 0; }
  const dropHatchedKeys = (root) => {
    for (const item of root.querySelectorAll('.key-item')) if (item.querySelector('.swatch.hatched')) item.remove();
  };

  // The overview: the set in its title, thumbnails in the set's shape (cross is T x S), no hatching key
  // when nothing is hidden.
  const singleOverview = buildOverview;
  buildOverview = function () {
    const sec = singleOverview();
    if (!sec) return sec;
    sec.querySelector('h2').textContent = 'Model overview · ' + SET_INFO[SETS[shown].name].tab;
    if (!D.layers.some((x) => x.heads.some(hidesAny))) dropHatchedKeys(sec);
    if (T !== S) {
      const size = parseFloat(sec.querySelector('#overview').style.getPropertyValue('--thumb'));
      for (const c of sec.querySelectorAll('canvas.thumb')) {
        c.style.width = (T > S ? size * S / T : size) + 'px';
        c.style.height = (T > S ? size : size * T / S) + 'px';
      }
    }
    return sec;
  };

  const singleDraw = drawMatrix;
  drawMatrix = function () {
    singleDraw();
    if (ui.key && !hidesAny(head(state.layer, state.head))) dropHatchedKeys(ui.key);
  };

  // The matrix: its axes say which tokens they are.
  const singleMatrix = buildMatrix;
  buildMatrix = function () {
    const sec = singleMatrix();
    const info = SET_INFO[SETS[shown].name];
    sec.querySelector('h2').textContent = 'Matrix · ' + info.tab;
    sec.querySelector('.corner').textContent = info.rows + ' ↓  ' + info.cols + ' →';
    return sec;
  };

  // The readout names the set, and which tokens the row and the column are.
  const singleReadout = showReadout;
  showReadout = function () {
    singleReadout();
    const r = ui.readout;
    if (!r) return;
    const name = SETS[shown].name, info = SET_INFO[name];
    r.dataset.set = name;
    const where = r.querySelector('.where');
    if (where) where.textContent = '  ·  ' + name + where.textContent;
    const q = r.querySelector('.q'), k = r.querySelector('.k');
    const p = state.hover || state.pin;
    const next = info.rows === 'decoder' && p ? ', next “' + D.translation.generated[p.i] + '”' : '';  // what row i chose
    if (q) q.textContent += ' (' + info.rows + next + ')';
    if (k) k.textContent += ' (' + info.cols + ')';
  };

  // The head view: BertViz's layout, the rows' tokens on the left (cross: the decoder's), the columns' on
  // the right (cross: the source), each column named.
  const singleHeadView = buildHeadView;
  buildHeadView = function () {
    const sec = singleHeadView();
    if (!sec) return sec;
    const info = SET_INFO[SETS[shown].name];
    sec.querySelector('h2').textContent = 'Head view · ' + info.tab;
    ui.hvLeft.prepend(el('div', { class: 'hv-heading', text: info.rows + ' (query)' }));
    ui.hvRight.prepend(el('div', { class: 'hv-heading', text: info.cols + ' (key)' }));
    ui.hvCanvas.style.marginTop = ROW + 'px';  // the lines start at the first token, under the headings
    return sec;
  };

  // The layer as a whole: a (T, S) picture keeps its shape (cross is not square); the readout names the set.
  const singleAggregates = buildAggregates;
  buildAggregates = function () {
    const sec = singleAggregates();
    if (!sec) return sec;
    const c = Math.min(cellSize(), 360 / Math.max(T, S));
    for (const canvas of Object.values(ui.aggregates)) {
      canvas.style.width = S * c + 'px';
      canvas.style.height = T * c + 'px';
      canvas.addEventListener('mousemove', () => {
        ui.aggReadout.textContent = SETS[shown].name + ' · ' + ui.aggReadout.textContent;
      });
    }
    if (!D.layers[0].aggregates.rollout)
      sec.querySelector('.hint').textContent = 'The mean of this layer’s heads (cross-attention has no rollout: its rows and columns are different tokens).';
    return sec;
  };

  // The URL fragment says the set too ("#layer=1&head=0&stage=weights&set=cross").
  const singleToFragment = toFragment;
  toFragment = function () {
    singleToFragment();
    const hash = location.hash + '&set=' + SETS[shown].name;
    history.replaceState(null, '', hash);
  };
  const singleFromFragment = fromFragment;
  fromFragment = function () {
    const k = fragmentSet();
    if (k < 0 || k === shown) return singleFromFragment();
    kept[shown] = { layer: state.layer, head: state.head, stage: state.stage };
    useSet(k);
    Object.assign(state, kept[k] || { layer: 0, head: 0, stage: state.stage }, { pin: null, hover: null, tile: 0, headsOn: [] });
    if (!D.stages.includes(state.stage)) state.stage = D.stages[0];
    singleFromFragment();
    if (document.getElementById('views')) rebuild();
  };

  // The page opens on the set its fragment names, else on cross (where --layer and --head point).
  useSet(fragmentSet() >= 0 ? fragmentSet() : OPENING_SET);
  if (shown !== OPENING_SET) D.init = { layer: null, head: null };
  if (!D.stages.includes(state.stage)) state.stage = D.stages[0];
