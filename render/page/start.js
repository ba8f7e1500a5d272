  // ---- selection, URL fragment -----------------------------------------------------------------------------

  // The selection a fragment names (the address's, or a link's kept until its live run is drawn): layer,
  // head, stage and the pinned cell ("pin=2,0"), each where the data has it.
  function fromFragment(hash = location.hash) {
    const f = new URLSearchParams(hash.replace(/^#/, ''));
    const l = Number(f.get('layer')), h = Number(f.get('head')), s = f.get('stage');
    if (D.layered && f.has('layer') && Number.isInteger(l) && l >= 0 && l < L) state.layer = l;
    if (f.has('head') && Number.isInteger(h) && h >= 0 && h < D.layers[state.layer].heads.length) state.head = h;
    if (s && pageStages().includes(s)) state.stage = s;
    const pin = (f.get('pin') || '').split(',').map(Number);
    if (pin.length === 2 && pin.every((x) => Number.isInteger(x) && x >= 0) && pin[0] < T && pin[1] < S) state.pin = { i: pin[0], j: pin[1] };
    // flash's tile (drawFlash keeps it within the head's tiles) and a generation's step
    const tile = Number(f.get('tile')), gen = Number(f.get('gen'));
    if (f.has('tile') && Number.isInteger(tile) && tile >= 0) state.tile = tile;
    if (D.generation && f.has('gen') && Number.isInteger(gen) && gen >= 0 && gen < D.generation.steps.length) state.genStep = gen;
  }
  function toFragment() {
    const parts = [];
    if (D.layered) parts.push('layer=' + state.layer);
    parts.push('head=' + state.head, 'stage=' + state.stage);
    if (state.pin) parts.push('pin=' + state.pin.i + ',' + state.pin.j);
    if (D.tiles && D.tiles.length) parts.push('tile=' + state.tile);
    if (D.generation && D.generation.steps.length) parts.push('gen=' + (state.genStep || 0));
    const run = liveFragmentPart();  // the live panel's settings (live.js)
    if (run) parts.push(run);
    const decoded = decodeFragmentPart();  // the Decode section's head and step (decode_view.js)
    if (decoded) parts.push(decoded);
    const hash = '#' + parts.join('&');
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  function update(fragment) {
    state.head = Math.min(state.head, D.layers[state.layer].heads.length - 1);
    if (state.pin && (state.pin.i >= T || state.pin.j >= S)) state.pin = null;  // a live run of fewer tokens
    fillHeadOptions();
    if (document.getElementById('layer')) document.getElementById('layer').value = String(state.layer);
    document.getElementById('head').value = String(state.head);
    document.getElementById('stage').value = state.stage;
    for (const c of document.querySelectorAll('canvas.thumb'))
      c.classList.toggle('current', Number(c.dataset.layer) === state.layer && Number(c.dataset.head) === state.head);
    markHeadsTable();
    if (fragment) toFragment();
    fillToggles();
    drawAggregates();
    drawFlash();
    drawMatrix();
    showReadout();
    drawHeadView();
    drawNeuron();
    drawSteps();
    drawGeneration();
  }

  // Every view of the trace D, in one <main>.
  function buildMain() {
    const main = el('main', { id: 'views' });
    main.append(buildHeader());
    // an ablated run's comparison and the logit lens first (when the trace has them), then a model's heads
    for (const s of [buildAblation(), buildLens(), buildHeadsTable(), buildOverview()]) if (s) main.append(s);
    main.append(buildControls());
    // a generation's steps under the pickers, which choose the head whose row it shows
    // flash's tiles beside the matrix that draws the tile's box (under it when the width does not allow)
    const matrix = buildMatrix(), flash = buildFlash();
    const pair = flash ? el('div', { class: 'beside', id: 'matrix-and-tiles' }, matrix, flash) : matrix;
    for (const s of [buildGeneration(), pair, buildSteps(), buildPositions(), buildHeadView(), buildNeuron(), buildAggregates()]) if (s) main.append(s);
    return main;
  }
  // The views again, for a new D (a live run): the old ones go, the selection stays where it can.
  function rebuild() {
    for (const k of Object.keys(ui)) delete ui[k];
    const old = document.getElementById('views');
    const main = buildMain();
    old.replaceWith(main);
    update(true);
  }

  // ---- start ------------------------------------------------------------------------------------------

  async function start() {
    const t0 = performance.now();
    blob = await inflate(document.getElementById('attn-blob').textContent, D.blob_bytes);
    view = new DataView(blob.buffer);
    for (const layer of D.layers) for (const x of layer.heads) {
      const m = x.stages['masked-scores'];
      if (m && m[5] === 'scores') Object.assign(m, { from: x.stages.scores, scale: Math.fround(x.scale) });
    }
    if (blob.length !== D.raw_bytes) throw new Error('attn: the page data is damaged');
    if (D.init.layer !== null && D.layered) state.layer = D.init.layer;
    if (D.init.head !== null) state.head = D.init.head;
    fromFragment();
    const panel = startLive();  // the live panel, when the page carries attn's core (live.js)
    if (panel) {
      const frame = el('div', { class: 'live-frame' }, panel);
      document.body.append(frame);
      followLiveHeight(frame);  // the pickers stick under it (live.js)
    }
    document.body.append(buildMain());
    if (panel) document.body.append(buildDecode());  // the Decode section, after the views (decode_view.js)
    update(true);
    window.addEventListener('hashchange', () => { fromFragment(); update(false); });
    document.documentElement.dataset.readyMs = String(Math.round(performance.now() - t0));
    document.documentElement.dataset.ready = 'true';
  }

  start().catch((e) => {
    document.body.append(el('p', { class: 'error', text: 'This page could not show its data: ' + e.message }));
    throw e;
  });
