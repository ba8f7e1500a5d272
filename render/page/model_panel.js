  // ---- the Model panel: a model folder opened in the page runs in attn's core ------------------------------
  //
  // Part of the live panel (live.js builds it into its section). The files of a Hugging Face folder
  // (config.json, the tokenizer files, model.safetensors or its index and shards) are picked with
  // #model-files, a folder picker (#model-folder) or dropped on the panel; they go into the core's memory
  // file system at /models/NAME (cli/web/api.js, loadModel) and never leave the tab. #model-status says what
  // the folder holds (the checks a run makes: config, tokeniser, every weight) or attn's one-line error.
  // With a model chosen in #live-model, a run is `attn show --model /models/NAME TEXT`: the core returns
  // the page's data for it (api.js, page) and every view redraws, as `attn show --model DIR --html` draws.

  const models = { ui: null, info: new Map() };  // "/models/NAME" -> what describe() said

  function buildModelPanel() {
    const choose = el('select', { id: 'live-model', 'aria-label': 'model' }, el('option', { value: '', text: 'none: a seeded kind' }));
    const files = el('input', { type: 'file', id: 'model-files', multiple: '', 'aria-label': 'model files' });
    const folder = el('input', { type: 'file', id: 'model-folder', webkitdirectory: '', 'aria-label': 'model folder' });
    const status = el('p', { class: 'hint', id: 'model-status', role: 'status',
      text: 'Open a model folder’s files (config.json, the tokenizer files, model.safetensors): they stay in this tab.' });
    const row = el('div', { class: 'live-row', id: 'model-panel' }, el('label', {}, 'model ', choose),
      el('label', {}, 'open files ', files), el('label', {}, 'or a folder ', folder), el('span', { class: 'hint', text: 'or drop the files here' }));
    models.ui = { choose: choose, files: files, folder: folder, status: status };
    files.addEventListener('change', () => openModelFiles(files.files, null).then(() => { files.value = ''; }));
    folder.addEventListener('change', () => openModelFiles(folder.files, null).then(() => { folder.value = ''; }));
    choose.addEventListener('change', () => { modelChosen(); if (live.core && (choose.value || live.ui.text.value)) liveRun(); });
    return [row, status];
  }

  // Drops on the live section: the files dropped (a dropped folder's files, not the folder itself).
  function acceptModelDrops(sec) {
    sec.addEventListener('dragover', (e) => { e.preventDefault(); sec.classList.add('dropping'); });
    sec.addEventListener('dragleave', () => sec.classList.remove('dropping'));
    sec.addEventListener('drop', (e) => {
      e.preventDefault();
      sec.classList.remove('dropping');
      if (e.dataTransfer && e.dataTransfer.files.length) openModelFiles(e.dataTransfer.files, null);
    });
  }

  // The folder's name: the picked folder's (webkitRelativePath "NAME/config.json"), else "model".
  function folderNameOf(list) {
    const first = list.find((f) => f.webkitRelativePath && f.webkitRelativePath.includes('/'));
    return first ? first.webkitRelativePath.split('/')[0] : 'model';
  }

  function countedOf(n, one, many) { return n.toLocaleString('en-US') + ' ' + (n === 1 ? one : many); }

  // What the Model panel says of a loaded folder.
  function describeModel(name, info) {
    const heads = info.kv_heads && info.kv_heads !== info.heads ? info.heads + ' query heads over ' + countedOf(info.kv_heads, 'key/value head', 'key/value heads')
      : countedOf(info.heads, 'head', 'heads');
    const layers = info.stack === 'encoder-decoder' ? info.layers + ' encoder + ' + countedOf(info.decoder_layers, 'decoder layer', 'decoder layers')
      : countedOf(info.layers, 'layer', 'layers');
    return name + ': ' + info.family + ' (' + info.stack + '), ' + layers + ' × ' + heads + ', ' + countedOf(info.params, 'parameter', 'parameters') +
      ', ' + info.dtype + (info.unused ? ' · ' + info.unused.replace(/^attn: warning: /, '') : '');
  }

  // Reads the files, loads them as /models/NAME, checks them as a run does and chooses the model.
  async function openModelFiles(fileList, name) {
    const list = Array.from(fileList || []);
    if (!list.length || !live.core) return;
    const folder = name || folderNameOf(list);
    const total = list.reduce((n, f) => n + f.size, 0);
    models.ui.status.textContent = 'reading ' + countedOf(list.length, 'file', 'files') + ' (' + (total / 1048576).toFixed(1) + ' MB)…';
    const t0 = performance.now();
    let dir;
    try {
      dir = await loadCoreModel(folder, list);
      const info = (await coreCall('describe', [dir])).value;
      models.info.set(dir, info);
      models.ui.status.textContent = describeModel(folder, info) + ' · loaded in ' + Math.round(performance.now() - t0) + ' ms';
    } catch (e) {
      models.info.delete('/models/' + folder);
      await unloadCoreModel(folder).catch(() => { /* the name itself was refused */ });
      models.ui.status.textContent = e.message;
      models.ui.status.classList.add('error');
      fillModelChoices('');
      return;
    }
    models.ui.status.classList.remove('error');
    fillModelChoices(dir);
    modelChosen();
    if (!live.ui.text.value) live.ui.text.value = 'Your journey starts with one step';
    liveRun();
  }

  // A model folder the page carries (attn page --model DIR, D.embedded_model: its name and [file, size]
  // list, the files deflated one after another in <script id="attn-model">): loaded, checked and run once
  // the core is ready, as if its files had been picked.
  async function loadEmbeddedModel(m) {
    models.ui.status.textContent = 'opening the model this page carries…';
    const all = await inflate(document.getElementById('attn-model').textContent, m.bytes);
    let at = 0;
    const files = m.files.map(([name, size]) => {
      const f = new File([all.subarray(at, at + size)], name);
      at += size;
      return f;
    });
    await openModelFiles(files, m.name);
  }

  function fillModelChoices(chosen) {
    const c = models.ui.choose;
    while (c.options.length > 1) c.remove(1);
    for (const dir of models.info.keys()) c.append(el('option', { value: dir, text: dir.replace(/^\/models\//, '') }));
    c.value = models.info.has(chosen) ? chosen : '';
  }

  // The kind and its options apply to seeded runs only: hidden while a model is chosen.
  function modelChosen() {
    const on = chosenModel() !== null;
    live.ui.kind.closest('label').style.display = on ? 'none' : '';
    live.ui.options.style.display = on ? 'none' : '';  // a flex box: the hidden attribute would not hide it
    live.ui.extra.hidden = on || live.extra.length === 0;
  }
  function chosenModel() { return models.ui && models.ui.choose.value ? models.ui.choose.value : null; }

  // The words of a model run: attn show --model /models/NAME TEXT.
  function modelWords() {
    const text = live.ui.text.value;
    return ['--model', chosenModel()].concat(text.startsWith('-') ? ['--', text] : [text]);
  }

  // A model's run is drawn from the core's page data (the views as `attn show --model DIR --html`), except an
  // encoder-decoder's: refused before it runs.
  function checkModelDrawn() {
    const info = models.info.get(chosenModel());
    if (info && info.stack === 'encoder-decoder')  // its Encoder | Decoder | Cross views are not in this page
      throw new Error('attn: error: ' + info.family + ' is an encoder-decoder, whose three sets this page does not draw ' +
        '(hint: window.attn.run gives its trace here; attn show --model DIR --html draws its page on your machine)');
  }
  // [the data object, its cells] the core's page() returned, as setData takes them.
  function modelPayload([d, bytes]) {
    d.live = D.live;
    return [d, bytes];
  }
