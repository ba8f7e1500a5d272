  // ---- an encoder's page (BERT, RoBERTa, DistilBERT) --------------------------------------------------
  // Only an encoder's page carries this file (render/page/page_assets.cpp, page_js(true)), after start.js:
  // it runs before start()'s first await ends, so the views it wraps are the ones the page builds.
  // D.stack 'encoder'; D.segments (T): a sentence pair's segment of each token (0 = A, 1 = B), empty for one
  // text; D.mask_predictions: [position, token, [[token, p] x 5]] for each [MASK] / <mask> position.

  const SEGMENT_COLOURS = ['rgb(31, 119, 180)', 'rgb(214, 39, 40)'];  // render/view/style.h kSegmentA, kSegmentB
  const segmentB = D.segments && D.segments.length ? D.segments.indexOf(1) : -1;  // the first token of B

  // The header: bidirectional attention, the segments as a token strip, the masked-LM head's predictions.
  const decoderHeader = buildHeader;
  buildHeader = function () {
    const h = decoderHeader();
    h.append(el('p', { class: 'settings', id: 'encoder', text: 'encoder (bidirectional): every query sees every key, none is hidden' }));
    if (segmentB > 0) {
      const strip = el('p', { class: 'tokens', id: 'segments' }, 'segments A | B: ');
      D.tokens.forEach((t, i) => {
        if (i === segmentB) strip.append(el('b', { text: ' | ' }));
        const chip = el('span', { class: 'segment-' + (D.segments[i] ? 'b' : 'a'), text: tokenLabel(t), title: 'token ' + i + ' · segment ' + (D.segments[i] ? 'B' : 'A') });
        Object.assign(chip.style, { color: SEGMENT_COLOURS[D.segments[i]], whiteSpace: 'pre', margin: '0 2px' });
        strip.append(chip);
      });
      h.append(strip);
    }
    for (const [pos, token, top] of D.mask_predictions || []) {
      const p = el('p', { class: 'predictions mask-predictions', id: 'mask-' + pos }, token + ' at ' + pos + ': ');
      top.forEach(([tok, prob], k) => {
        if (k) p.append(', ');
        p.append(el('code', { text: tok }), ' ' + (100 * prob).toFixed(1) + '%');
      });
      h.append(p);
    }
    return h;
  };

  // No key is hidden: the decoders' "hatched" keys say nothing here, in the overview's key or the matrix's.
  // The overview's maps and the matrix draw a sentence pair's line (the layer's mean and rollout, one pixel
  // a cell, do not: a line there would cover a column of cells).
  const dropHatchedKeys = (root) => {
    for (const item of root.querySelectorAll('.key-item')) if (item.querySelector('.swatch.hatched')) item.remove();
  };
  // A sentence pair's line before segment B's first token, across a canvas of the (T, S) matrix.
  const segmentLine = (canvas, edge, line) => {
    const ctx = canvas.getContext('2d');
    const x = segmentB * canvas.width / S, y = segmentB * canvas.height / T;
    for (const [colour, width] of [['rgb(20, 20, 20)', edge], ['rgb(255, 255, 255)', line]]) {
      ctx.fillStyle = colour;
      ctx.fillRect(x - width / 2, 0, width, canvas.height);
      ctx.fillRect(0, y - width / 2, canvas.width, width);
    }
  };
  const decoderOverview = buildOverview;
  buildOverview = function () {
    const sec = decoderOverview();
    if (sec) dropHatchedKeys(sec);
    if (sec && segmentB > 0) for (const c of sec.querySelectorAll('canvas.thumb')) segmentLine(c, 4, 2);
    return sec;
  };
  const decoderKeyDraw = drawMatrix;
  drawMatrix = function () {
    decoderKeyDraw();
    if (ui.key) dropHatchedKeys(ui.key);
  };

  // The matrix: the line between the segments on both axes, and each label in its segment's colour.
  if (segmentB > 0) {
    const decoderMatrix = buildMatrix;
    buildMatrix = function () {
      const sec = decoderMatrix();
      for (const s of sec.querySelectorAll('.row-labels span, .col-labels span')) {
        const i = parseInt(s.style.top || s.style.left, 10) / ui.cell;
        if (Number.isInteger(i) && i < D.segments.length) s.style.color = SEGMENT_COLOURS[D.segments[i]];
      }
      sec.querySelector('.readout').before(el('p', { class: 'hint', id: 'segment-legend',
        text: 'segments A | B: tokens 0–' + (segmentB - 1) + ' | ' + segmentB + '–' + (D.tokens.length - 1) + ' (the white line between them)' }));
      return sec;
    };
    const decoderDraw = drawMatrix;
    drawMatrix = function () {
      decoderDraw();
      segmentLine(ui.canvas, 4, 2);
    };
  }
