  // ---- the head view (lines from a query to every key, one colour per head) --------------------------------

  const ROW = 18;

  const MAX_HEADVIEW_TOKENS = 1000;  // 18 px a row: a taller canvas than Chromium's 32767 px draws nothing

  function buildHeadView() {
    if (!D.stages.includes('weights') || Math.max(T, S) > MAX_HEADVIEW_TOKENS) return null;
    const sec = el('section', { id: 'headview-section' }, el('h2', { text: 'Head view' }),
      el('p', { class: 'hint', text: 'Point at a query on the left (or a key on the right): lines show its weights, ' +
        'darker for more; click a head to hide or show it.' }));
    ui.toggles = el('div', { class: 'toggles', id: 'head-toggles' });
    const box = el('div', { id: 'headview', class: 'headview' });
    ui.hvLeft = el('div', { class: 'hv-col hv-q' });
    ui.hvRight = el('div', { class: 'hv-col hv-k' });
    ui.hvCanvas = el('canvas', { class: 'hv-lines' });
    D.tokens.forEach((t, i) => ui.hvLeft.append(el('div', { 'data-i': String(i), text: tokenLabel(t) })));
    D.source_tokens.forEach((t, j) => ui.hvRight.append(el('div', { 'data-j': String(j), text: tokenLabel(t) })));
    const rows = Math.max(T, S);
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    ui.hvCanvas.style.height = rows * ROW + 'px';
    ui.hvCanvas.width = 240 * dpr;
    ui.hvCanvas.height = rows * ROW * dpr;
    box.append(ui.hvLeft, ui.hvCanvas, ui.hvRight);
    ui.hvFocus = null;
    const hover = (side) => (e) => {
      const t = e.target.closest('div[data-i], div[data-j]');
      ui.hvFocus = t ? { side: side, n: Number(side === 'q' ? t.dataset.i : t.dataset.j) } : null;
      drawHeadView();
    };
    ui.hvLeft.addEventListener('mouseover', hover('q'));
    ui.hvRight.addEventListener('mouseover', hover('k'));
    box.addEventListener('mouseleave', () => { ui.hvFocus = null; drawHeadView(); });
    sec.append(ui.toggles, box);
    return sec;
  }

  function fillToggles() {
    if (!ui.toggles) return;
    ui.toggles.textContent = '';
    D.layers[state.layer].heads.forEach((x, h) => {
      const b = el('button', { type: 'button', 'data-head': String(h), 'aria-pressed': String(state.headsOn[h]),
        text: 'head ' + h });
      b.style.setProperty('--c', HEAD_COLOURS[h % HEAD_COLOURS.length]);
      b.addEventListener('click', () => {
        state.headsOn[h] = !state.headsOn[h];
        b.setAttribute('aria-pressed', String(state.headsOn[h]));
        drawHeadView();
      });
      ui.toggles.append(b);
    });
  }

  function drawHeadView() {
    if (!ui.hvCanvas) return;
    const c = ui.hvCanvas, ctx = c.getContext('2d');
    const dpr = c.width / 240;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, 240, c.height / dpr);
    let focus = ui.hvFocus;
    if (!focus && state.pin) focus = { side: 'q', n: state.pin.i };
    for (const e of ui.hvLeft.children) e.classList.toggle('on', !!focus && focus.side === 'q' && Number(e.dataset.i) === focus.n);
    for (const e of ui.hvRight.children) e.classList.toggle('on', !!focus && focus.side === 'k' && Number(e.dataset.j) === focus.n);
    if (!focus) return;
    const heads = D.layers[state.layer].heads;
    ctx.lineWidth = 2;
    heads.forEach((x, h) => {
      if (!state.headsOn[h]) return;
      const d = desc(state.layer, h, 'weights');
      ctx.strokeStyle = HEAD_COLOURS[h % HEAD_COLOURS.length];
      const pairs = focus.side === 'q' ? [...Array(S).keys()].map((j) => [focus.n, j]) : [...Array(T).keys()].map((i) => [i, focus.n]);
      for (const [i, j] of pairs) {
        const w = real(d, cell(d, i * S + j));
        if (!(w > 0.005) || !visible(state.layer, h, i * S + j)) continue;
        ctx.globalAlpha = Math.min(1, w);
        ctx.beginPath();
        ctx.moveTo(0, i * ROW + ROW / 2);
        ctx.lineTo(240, j * ROW + ROW / 2);
        ctx.stroke();
      }
    });
    ctx.globalAlpha = 1;
  }
