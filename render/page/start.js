  // ---- selection, URL fragment -----------------------------------------------------------------------------

  function fromFragment() {
    const f = new URLSearchParams(location.hash.replace(/^#/, ''));
    const l = Number(f.get('layer')), h = Number(f.get('head')), s = f.get('stage');
    if (D.layered && f.has('layer') && Number.isInteger(l) && l >= 0 && l < L) state.layer = l;
    if (f.has('head') && Number.isInteger(h) && h >= 0 && h < D.layers[state.layer].heads.length) state.head = h;
    if (s && D.stages.includes(s)) state.stage = s;
  }
  function toFragment() {
    const parts = [];
    if (D.layered) parts.push('layer=' + state.layer);
    parts.push('head=' + state.head, 'stage=' + state.stage);
    const run = liveFragmentPart();  // the live panel's settings (live.js)
    if (run) parts.push(run);
    const hash = '#' + parts.join('&');
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  function update(fragment) {
    state.head = Math.min(state.head, D.layers[state.layer].heads.length - 1);
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
    for (const s of [buildGeneration(), buildMatrix(), buildHeadView(), buildNeuron(), buildAggregates(), buildFlash()]) if (s) main.append(s);
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
    if (panel) document.body.append(el('div', { class: 'live-frame' }, panel));
    document.body.append(buildMain());
    update(true);
    window.addEventListener('hashchange', () => { fromFragment(); update(false); });
    document.documentElement.dataset.readyMs = String(Math.round(performance.now() - t0));
    document.documentElement.dataset.ready = 'true';
  }

  start().catch((e) => {
    document.body.append(el('p', { class: 'error', text: 'This page could not show its data: ' + e.message }));
    throw e;
  });
