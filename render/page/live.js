  // ---- the live panel: attn's core, compiled to WebAssembly, runs a typed sentence in the page ------------
  //
  // Present when the page carries the core (a <script> defining AttnCore, cli/web/) and D.live (the words
  // of the run the page opened with). window.attn.run(argv) takes the words `attn show` takes and returns
  // a Promise of the JSON trace `attn show ARGV --json -` prints, computed in a Web Worker (core_worker.js),
  // or rejected with the CLI's one-line error; the panel builds
  // those words from its controls, and every view redraws from the trace. Nothing typed is evaluated:
  // the words go to the core as strings, tokens come back into the page as text.

  // How each option of `attn kinds --json` is asked for: a number, a choice, a flag or text.
  const LIVE_FIELDS = {
    '--heads': { label: 'heads', number: true },
    '--kv-heads': { label: 'kv heads', number: true },
    '--window': { label: 'window', number: true },
    '--score': { label: 'score', choices: ['dot', 'general', 'concat'] },
    '--block-q': { label: 'block q', number: true },
    '--block-k': { label: 'block k', number: true },
    '--renorm': { label: 'renorm', flag: true },
    '--causal': { label: 'mask', choices: ['--causal', '--no-causal'], texts: ['causal', 'no causal'], words: true },
    '--source': { label: 'source text', text: true, placeholder: 'the text attended over (keys, values)' },
    '--qkv-bias': { label: 'qkv bias', flag: true },
    '--d-out': { label: 'd_out', number: true },
    '--init': { label: 'init', choices: ['torch', 'torch-rand'] },
    '--dropout': { label: 'dropout', number: true, step: 'any' },
    '--pos': { label: 'positions', choices: null },  // the kind's own list
    '--rope-base': { label: 'rope base', number: true },
    '--rope-style': { label: 'rope style', choices: ['half', 'interleaved'] },
    '--align': { label: 'align', choices: ['top-left', 'bottom-right'] },
    '--seed': { label: 'seed', number: true },
    '--d-in': { label: 'd_in', number: true },
    '--split': { label: 'split', choices: ['words', 'space', 'chars'] },
    '--dropout-seed': { label: 'dropout seed', number: true },
    '--example': { label: 'example', choices: ['journey'], texts: ['journey (the chapter’s 6 tokens)'] },
    '--range': { label: 'colour range', text: true, placeholder: 'auto, data or MIN,MAX', size: '16' },
    '--colormap': { label: 'colours', choices: ['viridis', 'magma', 'cividis', 'gray'] },
    '--log': { label: 'log colours', flag: true },
  };
  // every kind takes them (show's own options): the input, and the colours as the figures take them
  const LIVE_COMMON = ['--seed', '--d-in', '--split', '--example', '--range', '--colormap', '--log'];

  const live = { core: null, kinds: [], fields: new Map(), argv: null, notes: [], extra: [], seq: 0, ticker: null };

  function liveKind(name) { return live.kinds.find((k) => k.kind === name); }
  // The options a kind takes, in the registry's order ("--pos/--rope-base/--rope-style" is three), then the
  // ones every kind takes.
  function liveOptions(kind) {
    const flags = kind.options.split(', ').flatMap((o) => o.split('/')).filter((f) => f !== '--no-causal');
    // --dropout-seed beside --dropout, for the kinds that drop
    return flags.flatMap((f) => (f === '--dropout' ? [f, '--dropout-seed'] : [f])).filter((f) => LIVE_FIELDS[f]).concat(LIVE_COMMON);
  }
  function fieldId(flag) { return 'live-opt-' + flag.replace(/^--/, ''); }

  // The controls of the chosen kind's options; values typed for the previous kind stay where they apply.
  function fillLiveOptions(values) {
    const kind = liveKind(live.ui.kind.value);
    const old = values || liveValues();
    live.ui.options.textContent = '';
    live.fields.clear();
    for (const flag of liveOptions(kind)) {
      const f = LIVE_FIELDS[flag];
      let input;
      if (f.flag) input = el('input', { type: 'checkbox', id: fieldId(flag) });
      else if (f.choices !== undefined) {
        input = el('select', { id: fieldId(flag) });
        const choices = f.choices || kind.positions;
        input.append(el('option', { value: '', text: 'default' }));
        choices.forEach((c, k) => input.append(el('option', { value: c, text: f.texts ? f.texts[k] : c })));
      } else if (f.number) input = el('input', { type: 'number', id: fieldId(flag), min: '0', step: f.step || '1', placeholder: 'default' });
      else input = el('input', { type: 'text', id: fieldId(flag), size: f.size || '28', placeholder: f.placeholder || 'the sentence itself' });
      const v = old[flag];
      if (v !== undefined) {
        if (f.flag) input.checked = v === true;
        else input.value = String(v);
        if (input.tagName === 'SELECT' && input.value !== String(v)) input.value = '';
      }
      live.fields.set(flag, input);
      live.ui.options.append(el('label', { class: f.flag ? 'flag' : '' }, f.label + ' ', input));
    }
    showApplicable();
  }
  // Options that matter only beside another one's value: shown then, or while they hold a value (so nothing
  // hidden is ever sent). The kind's own list (kinds().options) decides which fields exist at all.
  const LIVE_ONLY_WITH = {
    '--rope-base': (v) => v['--pos'] === 'rope',
    '--rope-style': (v) => v['--pos'] === 'rope',
    '--dropout-seed': (v) => Number(v['--dropout'] || 0) > 0,
    '--align': (v) => v['--causal'] === '--causal',  // where the causal mask's diagonal starts when T != S
    '--split': (v) => !v['--example'],  // the chapter's example comes already split
  };
  function showApplicable() {
    const v = liveValues();
    for (const [flag, input] of live.fields) {
      const rule = LIVE_ONLY_WITH[flag];
      input.closest('label').hidden = !!rule && !rule(v) && v[flag] === undefined;
    }
    // the folded options' summary: what is set, as the command line's words would say it
    const set = Object.entries(v).map(([flag, value]) => LIVE_FIELDS[flag].label + (value === true ? '' : ' ' +
      (LIVE_FIELDS[flag].words ? value.replace(/^--/, '') : value)));
    live.ui.summary.textContent = 'options' + (set.length ? ': ' + set.join(' · ') : '');
  }
  // flag -> value (true for a set flag) of the controls as they are.
  function liveValues() {
    const v = {};
    for (const [flag, input] of live.fields) {
      if (LIVE_FIELDS[flag].flag) { if (input.checked) v[flag] = true; }
      else if (input.value !== '') v[flag] = input.value;
    }
    return v;
  }

  // The words `attn show` takes for the panel's settings: --kind, each option set, the options kept from
  // the run the panel was filled from that it has no control for (live.extra), then the sentence (left out
  // when the box is empty and kept options give the input, as --example does).
  function liveWords() {
    const words = ['--kind', live.ui.kind.value];
    for (const [flag, value] of Object.entries(liveValues())) {
      if (value === true) words.push(flag);
      else if (LIVE_FIELDS[flag].words) words.push(value);  // --causal or --no-causal
      else if (LIVE_FIELDS[flag].text || !value.startsWith('-')) words.push(flag, LIVE_FIELDS[flag].text ? value : value.trim());
      else words.push(flag + '=' + value);  // a value that reads like an option
    }
    words.push(...live.extra);
    const text = live.ui.text.value;
    if (text === '' && (live.extra.length || liveValues()['--example'])) return words;
    if (text.startsWith('-')) words.push('--');
    words.push(text);
    return words;
  }
  // The controls from words (the page's own run, or a link's #run=), read by attn's own command line in the
  // core (window.attn.run's parser and checks): the panel's options fill its controls; the others are kept
  // as given (live.extra, listed under the options) and go with every run. Throws the CLI's one-line error.
  function fillFromWords(words) {
    const parsed = JSON.parse(live.core.parse(words));
    const values = {}, extra = [];
    for (const [name, value] of parsed.given) {
      if (name === '--kind') continue;
      if (name === '--causal' || name === '--no-causal') values['--causal'] = name;
      else if (LIVE_FIELDS[name]) values[name] = value === null ? true : value;
      else if (value === null) extra.push(name);
      else if (value.startsWith('-')) extra.push(name + '=' + value);
      else extra.push(name, value);
    }
    if (parsed.source !== null) values['--source'] = parsed.source;
    live.ui.kind.value = parsed.kind;
    live.ui.text.value = parsed.sentence === null ? '' : parsed.sentence;
    live.extra = extra;
    fillLiveOptions(values);
    showExtra();
  }
  // The kept options, each as the command line has it, with a button that drops them all.
  function showExtra() {
    live.ui.extra.textContent = '';
    live.ui.extra.hidden = live.extra.length === 0;
    if (!live.extra.length) return;
    const drop = el('button', { type: 'button', id: 'live-extra-drop', text: 'drop them' });
    drop.addEventListener('click', () => { live.extra = []; showExtra(); });
    live.ui.extra.append('also given (no control here): ', el('code', { id: 'live-extra-words', text: live.extra.join(' ') }), ' ', drop);
  }
  function showLiveError(message) {
    showRunning(null);
    live.ui.error.textContent = message;
    live.ui.error.hidden = false;
    liveStatus('');
    pointAtField(message);
  }
  // An error that names an option the panel has a control for points at that control (a cross run without
  // --source: the "source text" box): the options open, the field is outlined and takes the focus.
  function pointAtField(message) {
    for (const l of live.ui.options.querySelectorAll('label.wanted')) l.classList.remove('wanted');
    const named = /(^|[\s'(])(--[a-z][a-z-]*)/.exec(message.replace(/^this link’s run was not made: /, '').replace(/^attn: error: /, ''));
    const input = named && live.fields.get(named[2]);
    if (!input) return;
    live.ui.optionsBox.open = true;
    input.closest('label').hidden = false;
    input.closest('label').classList.add('wanted');
    input.focus({ preventScroll: true });
  }

  // ---- running --------------------------------------------------------------------------------------------

  // A run of the panel's words in the core's worker: the views redraw when it is done (unless a newer run
  // was started meanwhile). Resolves true when drawn, false after an error or a cancel.
  async function liveRun() {
    const words = chosenModel() ? modelWords() : liveWords();
    const seq = ++live.seq;
    const t0 = performance.now();
    let colour, answer;
    try {
      if (chosenModel()) checkModelDrawn();
      else colour = liveColour(JSON.parse(live.core.parse(words)).given);  // the command line's checks, at once
      showRunning(t0);
      answer = await coreCall(chosenModel() ? 'page' : 'run', [words]);
    } catch (e) {
      if (seq === live.seq) showLiveError(e.message);
      return false;
    }
    if (seq !== live.seq) return false;
    const t1 = performance.now();
    showRunning(null);
    liveStatus('drawing…');
    live.ui.error.textContent = '';
    live.ui.error.hidden = true;
    for (const l of live.ui.options.querySelectorAll('label.wanted')) l.classList.remove('wanted');
    live.notes = answer.notes.map((t) => t.replace(/^attn: note: /, ''));
    const [d, bytes] = chosenModel() ? modelPayload(answer.value) : livePayload(JSON.parse(answer.value), colour);
    setData(d, bytes);
    live.argv = words;
    rebuild();
    const t2 = performance.now();
    liveStatus((live.notes.length ? live.notes.join(' ') + ' · ' : '') + 'computed in ' +
      Math.round(t1 - t0) + ' ms, drawn in ' + Math.round(t2 - t1) + ' ms');
    liveRan();
    document.documentElement.dataset.liveRuns = String(Number(document.documentElement.dataset.liveRuns || 0) + 1);
    return true;
  }
  // The status in the bar: one line, cut short where the bar is narrow (whole in its tooltip).
  function liveStatus(text) {
    live.ui.status.textContent = text;
    live.ui.status.title = text;
  }
  // The progress line while a run computes (the time so far, and a cancel button); null: the run is over.
  function showRunning(t0) {
    clearInterval(live.ticker);
    live.ui.cancel.hidden = t0 === null;
    document.documentElement.dataset.liveRunning = t0 === null ? 'false' : 'true';
    if (t0 === null) return;
    const tick = () => liveStatus('computing… ' + ((performance.now() - t0) / 1000).toFixed(1) + ' s');
    tick();
    live.ticker = setInterval(tick, 100);
  }
  // The cancel button: the run in flight stops (its worker with it) and the views stay as they were.
  function cancelLiveRun() {
    live.seq++;
    showRunning(null);
    cancelCoreCalls();
    liveStatus('cancelled: the views show the run before it');
  }

  // The fragment's part for the live settings: run=<the words as JSON>, so a link reproduces a student's run.
  function liveFragmentPart() {
    // a model's run is not kept: its folder lives in this tab only, so a link could not run it elsewhere
    return live.argv && live.argv[0] !== '--model' ? 'run=' + encodeURIComponent(JSON.stringify(live.argv)) : '';
  }
  function liveFragmentWords() {
    const f = new URLSearchParams(location.hash.replace(/^#/, ''));
    if (!f.has('run')) return null;
    try {
      const w = JSON.parse(f.get('run'));
      return Array.isArray(w) && w.every((x) => typeof x === 'string') ? w : null;
    } catch (e) {
      return null;
    }
  }

  // The panel as one compact bar that stays at the top of the window: the sentence, the kind and run in a
  // row; the kind's options and the model folder fold into drop-downs over the page, which a run closes, so
  // that on a laptop (1366 x 768 at 100-150 %: 1366 x 630 to 911 x 380 of page) the matrix, its readout and
  // run are in view together after a run (liveRan scrolls the matrix under the bar).
  function buildLive() {
    const sec = el('section', { id: 'live', class: 'live' });
    const text = el('input', { type: 'text', id: 'live-text', size: '40', 'aria-label': 'sentence' });
    const kind = el('select', { id: 'live-kind', 'aria-label': 'kind' });
    const run = el('button', { type: 'button', id: 'live-run', text: 'run', disabled: '' });
    // attn decode of the same settings: the Decode section (decode_view.js)
    const decode = el('button', { type: 'button', id: 'live-decode', text: 'decode', disabled: '',
      title: 'attn decode: feed the tokens one at a time over a key/value cache (the Decode section)' });
    const options = el('div', { class: 'live-options', id: 'live-options' });
    const summary = el('summary', { id: 'live-options-summary', text: 'options' });
    const extra = el('p', { class: 'hint', id: 'live-extra' });
    extra.hidden = true;
    const error = el('p', { class: 'error', id: 'live-error', role: 'alert' });
    error.hidden = true;
    const status = el('span', { class: 'hint', id: 'live-status', role: 'status', text: 'starting attn’s core…' });
    const cancel = el('button', { type: 'button', id: 'live-cancel', text: 'cancel' });
    cancel.hidden = true;
    const drop = (id, head, ...body) => el('details', { class: 'live-drop', id: id }, head, el('div', { class: 'live-drop-body' }, ...body));
    const optionsBox = drop('live-options-box', summary, el('p', { class: 'hint', text: 'attn itself runs in this page ' +
      '(compiled to WebAssembly, offline): type a sentence, pick a kind and the options it takes, or open a trained ' +
      'model’s folder (model), and press Enter or run. Every view redraws; the address keeps a kind’s settings.' }), options);
    const modelBox = drop('live-model-box', el('summary', { text: 'model' }), ...buildModelPanel());
    sec.append(el('div', { class: 'live-row live-bar' }, el('h2', { text: 'Try it' }), el('label', { class: 'live-sentence' }, 'sentence ', text),
      el('label', {}, 'kind ', kind), run, decode, optionsBox, modelBox, el('span', { class: 'live-progress' }, status, cancel)), extra, error);
    live.ui = { text: text, kind: kind, run: run, decode: decode, cancel: cancel, options: options, summary: summary, optionsBox: optionsBox, extra: extra, error: error, status: status };
    cancel.addEventListener('click', cancelLiveRun);
    acceptModelDrops(sec);
    sec.addEventListener('drop', () => { modelBox.open = true; });  // the folder's status is in there
    kind.addEventListener('change', () => fillLiveOptions());
    options.addEventListener('input', showApplicable);
    options.addEventListener('change', showApplicable);
    run.addEventListener('click', () => { if (live.core) liveRun(); });
    decode.addEventListener('click', () => decodeRun(true));
    sec.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && live.core && e.target.tagName !== 'BUTTON') { e.preventDefault(); liveRun(); }
    });
    return sec;
  }
  // After a run is drawn: the drop-downs fold away and, unless they are in view already, the matrix and its
  // readout scroll up under the bars (#matrix-section's scroll-margin-top is their height).
  function liveRan() {
    for (const d of document.querySelectorAll('#live details.live-drop')) d.open = false;
    const frame = document.querySelector('.live-frame');  // its height now, not at the next resize callback
    if (frame) document.documentElement.style.setProperty('--live-h', frame.offsetHeight + 'px');
    const sec = document.getElementById('matrix-section'), readout = document.getElementById('readout');
    if (!sec || !readout) return;
    const bars = document.querySelector('.controls');
    const top = bars ? bars.getBoundingClientRect().bottom : 0;
    if (sec.getBoundingClientRect().top < top || readout.getBoundingClientRect().bottom > window.innerHeight) sec.scrollIntoView({ block: 'start' });
  }
  // The bar's height as --live-h on <html>: the pickers stick under it and the matrix scrolls to below both.
  function followLiveHeight(frame) {
    const set = () => document.documentElement.style.setProperty('--live-h', frame.offsetHeight + 'px');
    set();
    if (typeof ResizeObserver === 'function') new ResizeObserver(set).observe(frame);
  }
  function liveBarHeight() {
    const f = document.querySelector('.live-frame');
    return f ? f.offsetHeight : 0;
  }

  // Starts the core; window.attn is its API once ready (data-live-ready on <html>, with the time since the
  // page began loading in data-live-ready-ms).
  function startLive() {
    if (!D.live || typeof AttnCore !== 'function') return null;
    const sec = buildLive();
    const fromLink = liveFragmentWords();  // read now: the first update() rewrites the fragment
    const linkHash = location.hash;  // its head, stage and pinned cell, applied once its run is drawn
    const carried = D.embedded_model;  // a model folder in the page (attn page --model DIR)
    live.argv = fromLink || D.live.argv;
    // the .wasm the page carries, deflated: inflated and compiled once, for this thread's core and the worker's
    inflate(document.getElementById('attn-wasm').textContent, D.core_bytes)
      .then((bytes) => WebAssembly.compile(bytes))
      .then((wasm) => {
        coreWorker.wasm = wasm;
        return AttnCore({ wasmModule: wasm, print: (t) => live.notes.push(t), printErr: (t) => live.notes.push(t.replace(/^attn: note: /, '')) });
      })
      .then((core) => {
        live.core = core;
        startCoreWorker();  // the runs' own core, started now so that the first run does not wait for it
        window.attn = Object.freeze({
          // a Promise of the JSON trace `attn show ARGV --json -` prints, computed in the worker; rejected with
          // the CLI's one-line error (a TypeError when argv is not a list of strings)
          run: (argv) => coreCall('run', [argv]).then((a) => a.value),
          // a Promise of the JSON `attn decode ARGV --json -` prints (a seeded kind), computed in the worker as run's
          decode: (argv) => coreCall('decode', [argv]).then((a) => a.value),
          kinds: () => core.kinds(),
          // the folders opened in the Model panel ("/models/NAME"), which run() takes as --model
          models: () => Array.from(models.info.keys()),
          // stops every run in flight (each rejects with "attn: error: the run was cancelled")
          cancel: () => cancelCoreCalls(),
        });
        live.kinds = JSON.parse(core.kinds());
        for (const k of live.kinds) live.ui.kind.append(el('option', { value: k.kind, text: k.kind }));
        live.ui.kind.value = D.kind;
        // a link's words go through the core's command line: refused ones say why, and the panel keeps the page's run
        let linkError = null;
        try {
          fillFromWords(live.argv);
        } catch (e) {
          linkError = 'this link’s run was not made: ' + e.message;
          live.argv = D.live.argv;
          fillFromWords(live.argv);
        }
        live.ui.run.disabled = false;
        live.ui.decode.disabled = false;
        liveStatus('ready');
        document.documentElement.dataset.liveReadyMs = String(Math.round(performance.now()));
        document.documentElement.dataset.liveReady = 'true';
        if (carried) loadEmbeddedModel(carried);
        if (linkError) showLiveError(linkError);
        else if (fromLink) liveRun().then((drawn) => {
          if (!drawn) return;
          fromFragment(linkHash);
          update(true);
          decodeFromLink(linkHash);
        });
        if (!linkError && !fromLink) decodeFromLink(linkHash);
        if (!carried) decodeWhenSeen();  // the Decode section decodes the page's own run once scrolled to
      }, (e) => {
        liveStatus('attn’s core could not start in this browser: ' + e);
      });
    return sec;
  }
