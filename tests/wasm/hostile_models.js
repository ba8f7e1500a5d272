// Hostile model folders in the WebAssembly core under node, against the native binary (driven by
// tests/wasm/hostile_models.py, which writes the folders and cases.json). Prints one line per case:
// "ok" when the page agrees with native attn (same tokens and ids, or the same error, or a refusal naming
// tokenizer.json), "FINDING" otherwise; after every case a good folder must still run. Exits 1 on a finding.
//   node tests/wasm/hostile_models.js BUILD/wasm/attn_core.js BUILD/attn CASES.json
// HOSTILE_ONLY=REGEX runs only the tokenizer cases whose label matches; HOSTILE_LOADER=1 skips them.
//
// Findings (node 20.20, ICU 78.2 / Unicode 17.0; native: Debian 12's PCRE2 10.42 / Unicode 14, utf8proc
// 2.8 / Unicode 15.0). Each is printed as a FINDING line by this script.
//  Fixed here (one line each: data/text/text_browser.js, cli/web/attn_web.cpp):
//   - \s, \S and [\s...] in the page lacked U+0085 (NEL) and U+180E, which PCRE2's \s holds (its \h and \v):
//     Split (?<=\s)" " on "\u0085 cat" gave native "·", "cat", the page "·cat". Now SPACE has \x85\u180E.
//   - \x inside (?i:...) was not case-folded: (?i:\x41) missed "a", (?i:\x{212A}) missed K and k,
//     (?i:\x{1E9E}) missed ß, (?i:\x{DF}) missed ẞ (PCRE2 matches all). Now refused by name.
//   - --model /models/good/../../tmp passed the check that refuses --model /tmp ("names a folder on your
//     machine") and read the module's own /tmp, /dev. cli/web/attn_web.cpp now checks the path made
//     lexically normal (/models/good/.. is /models/ itself and still says "no config.json in ...").
//   - Split [\x{D800}]: PCRE2 refuses a surrogate in UTF mode (error 173); the page ran it. Now refused by
//     name (the surrogate \x{D800}).
//  Fixed after this round (the cases below now pass): a text holding a character newer than Unicode 14
//  is refused by name (1-3: data/text/unicode_assigned.js); a backreference inside a lookbehind and a
//  lookbehind of varying length are refused (4, 5); loadModel refuses lone surrogates, two files of one
//  name, bytes that are not a Uint8Array and null entries (6, 7); --max-memory above 4 GiB is capped at
//  the page's 2 GiB (8). As found:
//   1. Unicode versions: the page's \p{..}, \d, \w (and their negations, \p{Cn}) follow the browser's
//      Unicode (17 under node 20), PCRE2 10.42 its Unicode 14. Characters assigned since differ, e.g.
//      Split (?<=\p{L})" " on "X cat" for X = U+31350, U+11F04, U+1E4D0 (Unicode 15 letters), U+1C89/U+1C8A
//      (Unicode 16 Lu/Ll): native "·cat", page "·", "cat"; \d and \p{N}: U+1E4F0, U+11F50; \p{P}: U+1E5FF;
//      \p{M}: U+0CF3; \p{So}: U+1FAE8; \p{Han}: U+31350. Llama 3's own split ([^\r\n\p{L}\p{N}]?\p{L}+,
//      \p{N}{1,3}) cuts such texts into other pieces too; with this test vocabulary the byte tokens come out
//      the same, with a real one (merges over those bytes) they need not. The same through T5's
//      Replace normaliser (Replace \p{L}, \d or [^\s\p{L}] by " the "): other source tokens, so another
//      translation. Fix idea: subtract the code points assigned after Unicode 14 from every translated
//      class ((?![NEW])\p{L}; [NEW]|\P{L}), or refuse texts holding them.
//   2. Qwen2 NFC: "\U000105D2\u0307" (Todhri, Unicode 16 composition) -> the page composes it to U+105C9
//      (4 bytes, 4 byte tokens), native (utf8proc, Unicode 15) keeps 6 bytes: different ids.
//   3. BERT and DistilBERT (every normaliser setting): "a\U0001E5FFb" -> native one word [UNK] (U+1E5FF
//      unassigned in utf8proc 2.8), the page splits it as punctuation: "a", [UNK], "b" (ids 18, 1, 46).
//   4. A backreference inside a lookbehind: Split (?<=(?i:(k)\1))" " — JavaScript matches a lookbehind
//      right to left, so \1 is still empty and the page reads it as (?<=(?i:k)): "K cat" gives "·", "cat"
//      on the page, "·cat" native (which needs "kk"). Refuse \1..\9 inside (?<=...) / (?<!...).
//  Open (the page runs what native refuses; 6 is fixed above):
//   5. Split (?<=a+)b: PCRE2 10.42 refuses a variable-length lookbehind (error 125); the page runs it.
//  Open (loader and memory):
//   7. loadModel('a\ud800', files) loads; run(['--model', '/models/a\ud800', ...]) then says "attn.run takes
//      a list of words (strings)". A lone surrogate should be refused at load as "a/b" is.
//   8. Two files named config.json (the second garbage): loaded, the later silently replaces the earlier;
//      a run fails "config.json: not JSON". A duplicate name could be refused at load.
//   9. bytes not a Uint8Array (a plain array, or missing): Emscripten's "Unsupported data type", not attn's
//      words, and models() keeps listing the half-written /models/NAME. A null entry in the list: TypeError
//      "Cannot read properties of null (reading 'name')".
//  10. --max-memory in the page: 100G is capped at 3.0 GiB (a model run's budget is documented as 2 GiB),
//      so a 1500-token run of 4 layers x 8 heads (native estimate 2.8 GiB) with --max-memory 100G --force is
//      attempted and ends after 3.6-7.8 s in "out of memory (hint: use fewer tokens or a smaller --d-in)";
//      the module still runs afterwards. Without --max-memory, runs past 2 GiB are refused up front in
//      --max-memory's words (19.1 GiB estimate refused in 0.26 s). 3G is quoted as 2.0 GiB.
//  Minor: a 3 GiB model.safetensors (HOSTILE_HUGE=1; native runs it) loads, then run says "cannot map
//  '/models/huge/model.safetensors': Out of memory (hint: check memory limits)" (0.2 s; the module
//  still runs): attn's words, but the hint could say how much the page holds.
//  Minor wording: a 5000-character folder name is refused with the hint "rename it without slashes or
//  control characters"; \p{Script=Latin} and \p{sc=Han} are refused as "\p without a property name".
//  Held: GPT-2, Llama 3, Mistral, RoBERTa, T5, T5 v1.1, BART and Marian folders give native's tokens on
//  every text here (accents NFC/NFD, CJK, ZWJ emoji, RTL, NEL/NBSP/BOM/LS, tabs, case-folding traps, Indic
//  conjuncts, halfwidth kana with sound marks, Hangul jamo, a 500-character text), and so do the Llama 3
//  split and about 120 edited Split regexes; what the translation cannot run it refuses by name (the
//  tokenizer.json path and the construct). Every damaged safetensors/config/index case gives native's error with the page's path; names
//  with / .. NUL newline are refused; file names keep their last path part (sub/config.json, ../config.json
//  land in /models/NAME, nothing is written outside it); reloading a name replaces the folder; unload
//  then run says the folder does not exist; after every error the module still runs a good folder.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const [, , modulePath, attn, casesPath] = process.argv;
const { cases, good, llama, sharded } = JSON.parse(fs.readFileSync(casesPath, 'utf8'));
const only = process.env.HOSTILE_ONLY ? new RegExp(process.env.HOSTILE_ONLY) : null;

function native(argv, retry = 1) {
  try {
    return { out: execFileSync(attn, ['show', ...argv, '--json', '-'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 }) };
  } catch (e) {
    // killed by a signal (the machine short of memory): once more
    if (e.status === null && retry) return native(argv, retry - 1);
    return { err: (e.stderr || '').toString().trim().split('\n').pop() || ('status ' + e.status + ' signal ' + e.signal) };
  }
}
// The tokens of a trace: every top-level key naming tokens, and each attention's query and key tokens.
function tokensOf(json) {
  const t = JSON.parse(json);
  const out = {};
  for (const k of Object.keys(t)) if (/token/.test(k)) out[k] = t[k];
  (t.attention || []).forEach((a, i) => { out['att' + i] = [a.name, a.query_tokens, a.key_tokens]; });
  return JSON.stringify(out);
}
function filesOf(dir) {
  return fs.readdirSync(dir).map((f) => ({ name: f, bytes: new Uint8Array(fs.readFileSync(path.join(dir, f))) }));
}
const show = (s) => String(JSON.stringify(s)).slice(0, 160);

require(path.resolve(modulePath))({ print: () => {}, printErr: () => {} }).then((m) => {
  let findings = 0;
  const finding = (what) => { findings++; console.log('FINDING ' + what); };
  const ok = (what) => console.log('ok      ' + what);
  // Calls f; returns {value} or {err: message}; a throw that is not an Error is a finding.
  const call = (what, f) => {
    try { return { value: f() }; } catch (e) {
      if (!(e instanceof Error)) { finding(what + ': threw a non-Error ' + show(String(e))); return { err: String(e), odd: true }; }
      if (e instanceof WebAssembly.RuntimeError || /Aborted|unreachable|RuntimeError|memory access/.test(e.message)) {
        finding(what + ': the module crashed: ' + e.message); return { err: e.message, odd: true };
      }
      return { err: e.message };
    }
  };
  // After each case, a good folder still loads and runs.
  const goodPage = m.loadModel('good', filesOf(good));
  const goodRef = tokensOf(native(['--model', good, 'the cat']).out);
  const stillWorks = (after) => {
    const r = call('good folder after ' + after, () => m.run(['--model', goodPage, 'the cat']));
    if (r.value === undefined || tokensOf(r.value) !== goodRef) { finding('the good folder no longer runs after ' + after + ': ' + show(r.err)); return false; }
    return true;
  };

  // 1-2. tokenizers
  for (const c of process.env.HOSTILE_LOADER ? [] : cases) {
    if (only && !only.test(c.label)) continue;
    const name = path.basename(c.dir);
    const ld = call(c.label + ' load', () => m.loadModel(name, filesOf(c.dir)));
    if (ld.err) { finding(c.label + ': loadModel threw ' + ld.err); continue; }
    const page = ld.value;
    const asPage = (line) => line.split(c.dir).join(page);
    const bad = [], notes = [];
    for (const text of c.texts) {
      const n = native(['--model', c.dir, text]);
      const p = call(c.label + ' ' + show(text), () => m.run(['--model', page, text]));
      if (p.odd) { bad.push('crash on ' + show(text)); break; }
      if (n.err !== undefined && p.err !== undefined) {
        if (asPage(n.err) !== p.err) (/tokenizer\.json/.test(p.err) ? notes : bad).push('errors differ on ' + show(text) + ': native: ' + n.err + ' / page: ' + p.err);
      } else if (n.err !== undefined) {
        bad.push('native refuses (' + n.err + ') but the page runs ' + show(text) + ' giving ' + tokensOf(p.value).slice(0, 200));
      } else if (p.err !== undefined) {
        // a refusal naming the tokenizer file, or the text's character newer than the command line's Unicode 14
        (/tokenizer\.json|newer than the Unicode 14 tables/.test(p.err) ? notes : bad).push('page refuses ' + show(text) + ': ' + p.err);
        if (/tokenizer\.json/.test(p.err)) break;
      } else {
        const a = tokensOf(n.out), b = tokensOf(p.value);
        if (a !== b && c.probes) {  // which X of "X cat" the two engines class differently
          const inClass = (json) => JSON.parse(json).tokens.filter((t) => t === 'cat' || t === '\u00b7cat').map((t) => t === 'cat');
          const na = inClass(n.out), pa = inClass(p.value);
          const cp = (x) => [...x].map((ch) => 'U+' + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')).join(' ');
          bad.push('classed otherwise by the page (native in class -> page): ' + c.probes.map((x, i) => na[i] === pa[i] ? '' : cp(x) + ' ' + na[i] + '->' + pa[i]).filter((x) => x).join(', '));
        } else if (a !== b) bad.push('different tokens for ' + show(text) + '\n          native: ' + a.slice(0, 400) + '\n          page:   ' + b.slice(0, 400));
      }
    }
    if (bad.length) finding(c.label + ': ' + bad.join('\n          '));
    else ok(c.label + (notes.length ? ' (refused by name: ' + notes[0] + ')' : ''));
    m.unloadModel(name);
    if (!stillWorks(c.label)) break;
  }
  if (only) process.exit(findings ? 1 : 0);

  // 3. the loader
  const gfiles = filesOf(good);
  const file = (n) => gfiles.find((f) => f.name === n);
  const without = (n) => gfiles.filter((f) => f.name !== n);
  const enc = (s) => new Uint8Array(Buffer.from(s));
  // Each: [label, name, files, expectation]; expectation 'error' = a clear Error (any message), 'runs' = loads and runs.
  const loads = [
    ['name with /', 'a/b', gfiles, 'error'], ['name ..', '..', gfiles, 'error'], ['name .', '.', gfiles, 'error'],
    ['empty name', '', gfiles, 'error'], ['name with a newline', 'a\nb', gfiles, 'error'], ['name with NUL', 'a\u0000b', gfiles, 'error'],
    ['name 5000 chars', 'x'.repeat(5000), gfiles, 'either'], ['name ../../etc', '../../etc', gfiles, 'error'],
    ['name of emoji', '\ud83d\ude00', gfiles, 'runs'],
    // FINDING: a lone surrogate loads, then run() says "attn.run takes a list of words (strings)"
    ['name with lone surrogate', 'a\ud800', gfiles, 'error'],
    ['empty files list', 'empty', [], 'error'], ['files list not an array', 'na', 'config.json', 'error'],
    // the page keeps a file name's last part (a folder picker gives "folder/config.json")
    ['file named sub/config.json', 'sub', [...without('config.json'), { name: 'sub/config.json', bytes: file('config.json').bytes }], 'runs'],
    ['file named ../config.json', 'dotdot', [...without('config.json'), { name: '../config.json', bytes: file('config.json').bytes }], 'runs'],
    ['file named ""', 'emptyfile', [...gfiles, { name: '', bytes: enc('x') }], 'error'],
    ['file named "."', 'dotfile', [...gfiles, { name: '.', bytes: enc('x') }], 'error'],
    ['file with a newline in its name', 'nlfile', [...gfiles, { name: 'a\nb', bytes: enc('x') }], 'error'],
    // FINDING: two files of one name load; the later silently replaces the earlier
    ['two config.json, garbage second', 'dup', [...gfiles, { name: 'config.json', bytes: enc('garbage') }], 'error'],
    // FINDING: bytes not a Uint8Array: Emscripten's "Unsupported data type", not attn's words, and the half-written folder stays in models()
    ['bytes as a plain array', 'plain', gfiles.map((f) => ({ name: f.name, bytes: Array.from(f.bytes) })), 'error'],
    ['bytes missing', 'nobytes', [...without('config.json'), { name: 'config.json' }], 'error'],
    ['bytes a string', 'strbytes', [...without('config.json'), { name: 'config.json', bytes: '{}' }], 'either'],
    // FINDING: TypeError "Cannot read properties of null (reading 'name')"
    ['file entry null', 'nullfile', [...gfiles, null], 'error'],
  ];
  for (const [label, name, files, expect] of loads) {
    const ld = call(label, () => m.loadModel(name, files));
    if (ld.odd) { stillWorks(label); continue; }
    if (ld.err !== undefined) {
      const words = /^attn: error: /.test(ld.err) ? '' : ' (not attn\'s words)';
      const left = m.models().includes('/models/' + name) ? ' (and models() still lists /models/' + name + ')' : '';
      (expect === 'runs' || words || left ? finding : ok)(label + ': refused: ' + ld.err + words + left);
      call('', () => m.unloadModel(name));
    } else {
      const r = call(label + ' run', () => m.run(['--model', ld.value, 'the cat']));
      const txt = label + ': loaded as ' + show(ld.value) + ', models() = ' + show(m.models()) + ', run: ' + (r.err ? 'error ' + r.err : 'ran');
      if (expect === 'error' || (expect === 'runs' && r.value === undefined)) finding(txt + ' (expected ' + (expect === 'error' ? 'a refusal' : 'a run') + ')');
      else ok(txt);
      const u = call(label + ' unload', () => m.unloadModel(name));
      if (u.err) finding(label + ': unloadModel threw ' + u.err);
    }
    // nothing written outside /models/NAME
    const top = m.FS.readdir('/models').filter((f) => f !== '.' && f !== '..');
    if (top.length !== 1 || top[0] !== 'good' || m.FS.readdir('/').length !== 7) finding(label + ': left ' + show(top) + ' in /models, ' + show(m.FS.readdir('/')) + ' in /');
    stillWorks(label);
  }
  // the same name twice: the second load must replace the first (a run sees the second folder)
  {
    const l1 = filesOf(llama);
    m.loadModel('twice', gfiles);
    const r = call('same name twice', () => m.loadModel('twice', l1));
    const run = r.err ? r : call('same name twice run', () => m.run(['--model', '/models/twice', 'the cat']));
    const want = tokensOf(native(['--model', llama, 'the cat']).out);
    if (r.err) ok('same name twice: refused: ' + r.err);
    else if (run.value !== undefined && tokensOf(run.value) === want) ok('same name twice: the second folder replaces the first');
    else finding('same name twice: run after reloading gives ' + show(run.err || tokensOf(run.value)) + ' (want the Llama folder ' + want.slice(0, 80) + ')');
    call('unload', () => m.unloadModel('twice'));
    // a folder named like another's prefix, or differing in case
    m.loadModel('gpt', gfiles);
    const r2 = call('prefix name', () => m.loadModel('gpt2x', l1));
    const a = call('', () => m.run(['--model', '/models/gpt', 'the cat']));
    if (a.value !== undefined && tokensOf(a.value) === goodRef) ok('folders gpt and gpt2x stay apart'); else finding('folders gpt and gpt2x: ' + show(a.err || a.value));
    call('', () => m.unloadModel('gpt')); call('', () => m.unloadModel('gpt2x'));
    void r2;
    // unload then run
    m.loadModel('gone', gfiles); m.unloadModel('gone');
    const g = call('run after unload', () => m.run(['--model', '/models/gone', 'the cat']));
    if (g.err !== undefined && !g.odd) ok('run after unload: ' + g.err); else if (!g.odd) finding('run after unload ran');
    const u = call('unload unknown', () => m.unloadModel('never-loaded'));
    ok('unload of a name never loaded: ' + (u.err ? 'error ' + u.err : 'returns ' + show(u.value)));
    // --model must name a folder the page opened: /models/NAME/.. climbs out of /models
    for (const dir of ['/models/good/../../tmp', '/models/good/../../dev', '/models/good/../../models/../proc']) {
      const r = call(dir, () => m.run(['--model', dir, 'the cat']));
      if (/names a folder on your machine/.test(r.err || '')) ok('--model ' + dir + ': ' + r.err);
      else finding('--model ' + dir + ': ' + (r.err || 'ran') + ' (--model /tmp is refused as "a folder on your machine")');
    }
    // describe
    const d = call('describe missing', () => m.describe('/models/nothing'));
    ok('describe of a missing folder: ' + (d.err ? 'error ' + d.err : show(d.value)));
    stillWorks('loader specials');
  }
  // damaged folders: the page's error must be native's with its path read as the page's
  const tmp = fs.mkdtempSync('/tmp/attn-hostile-loader-');
  const st = file('model.safetensors').bytes;
  const le64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
  const cfg = JSON.parse(Buffer.from(file('config.json').bytes).toString());
  const damaged = {
    'st-empty': { 'model.safetensors': new Uint8Array(0) },
    'st-garbage': { 'model.safetensors': enc('garbage garbage garbage') },
    'st-huge-header': { 'model.safetensors': new Uint8Array(Buffer.concat([le64(2 ** 40), Buffer.from('{}')])) },
    'st-header-2^63': { 'model.safetensors': new Uint8Array(Buffer.concat([le64(2n ** 63n), Buffer.from('{}')])) },
    'st-header-past-end': { 'model.safetensors': new Uint8Array(Buffer.concat([le64(1000), Buffer.from('{}')])) },
    'st-7-bytes': { 'model.safetensors': st.slice(0, 7) },
    'st-header-only': { 'model.safetensors': st.slice(0, 8 + Number(Buffer.from(st.slice(0, 8)).readBigUInt64LE())) },
    'st-cut-1': { 'model.safetensors': st.slice(0, st.length - 1) },
    'no-safetensors': { 'model.safetensors': null },
    'no-config': { 'config.json': null },
    'no-tokenizer': { 'vocab.json': null, 'merges.txt': null, 'tokenizer.json': null },
    'config-garbage': { 'config.json': enc('{"n_layer": ') },
    'config-empty': { 'config.json': enc('') },
    'config-array': { 'config.json': enc('[]') },
    'config-n_layer-neg': { 'config.json': enc(JSON.stringify({ ...cfg, n_layer: -1 })) },
    'config-n_layer-0': { 'config.json': enc(JSON.stringify({ ...cfg, n_layer: 0 })) },
    'config-n_layer-1e12': { 'config.json': enc(JSON.stringify({ ...cfg, n_layer: 1e12 })) },
    'config-n_head-0': { 'config.json': enc(JSON.stringify({ ...cfg, n_head: 0 })) },
    'config-n_embd-float': { 'config.json': enc(JSON.stringify({ ...cfg, n_embd: 8.5 })) },
    'config-n_embd-string': { 'config.json': enc(JSON.stringify({ ...cfg, n_embd: '8' })) },
    'config-vocab-2^40': { 'config.json': enc(JSON.stringify({ ...cfg, vocab_size: 2 ** 40 })) },
    'config-positions-2^31': { 'config.json': enc(JSON.stringify({ ...cfg, n_positions: 2 ** 31 })) },
    'config-eps-null': { 'config.json': enc(JSON.stringify({ ...cfg, layer_norm_epsilon: null })) },
    'config-model_type-bogus': { 'config.json': enc(JSON.stringify({ ...cfg, model_type: 'bogus' })) },
    'config-model_type-number': { 'config.json': enc(JSON.stringify({ ...cfg, model_type: 7 })) },
    'config-dup-key': { 'config.json': enc('{"n_layer": 1, "n_layer": 2, ' + JSON.stringify(cfg).slice(1)) },
    'config-deep': { 'config.json': enc('{"x": ' + '['.repeat(100000) + ']'.repeat(100000) + ', ' + JSON.stringify(cfg).slice(1)) },
    'config-bom': { 'config.json': new Uint8Array([0xef, 0xbb, 0xbf, ...file('config.json').bytes]) },
    'tokenizer-garbage': { 'tokenizer.json': enc('{') },
  };
  for (const [label, edits] of Object.entries(damaged)) {
    const dir = path.join(tmp, label);
    fs.mkdirSync(dir);
    const files = [];
    for (const f of gfiles) {
      const b = f.name in edits ? edits[f.name] : f.bytes;
      if (b === null) continue;
      fs.writeFileSync(path.join(dir, f.name), b);
      files.push({ name: f.name, bytes: b });
    }
    for (const [n, b] of Object.entries(edits)) if (b !== null && !gfiles.find((f) => f.name === n)) { fs.writeFileSync(path.join(dir, n), b); files.push({ name: n, bytes: b }); }
    const n = native(['--model', dir, 'the cat']);
    const ld = call(label + ' load', () => m.loadModel(label, files));
    let got = ld.err;
    if (ld.value !== undefined) { const r = call(label, () => m.run(['--model', ld.value, 'the cat'])); got = r.err === undefined ? '(ran)' : r.err; }
    const want = n.err === undefined ? '(ran)' : n.err.split(dir).join('/models/' + label);
    if (got === want) ok(label + ': ' + got); else finding(label + ': page: ' + got + '\n          native: ' + want);
    call('', () => m.unloadModel(label));
    stillWorks(label);
  }
  // a sharded folder: every shard, then the index with a shard missing
  {
    const sf = filesOf(sharded);
    const n = native(['--model', sharded, 'the cat']);
    const a = call('sharded', () => m.run(['--model', m.loadModel('sharded', sf), 'the cat']));
    if (a.value !== undefined && n.out && tokensOf(a.value) === tokensOf(n.out)) ok('sharded folder runs'); else finding('sharded folder: ' + show(a.err));
    m.unloadModel('sharded');
    const missing = sf.filter((f) => !/00002-of/.test(f.name));
    const dir = path.join(tmp, 'shard-missing');
    fs.mkdirSync(dir);
    for (const f of missing) fs.writeFileSync(path.join(dir, f.name), f.bytes);
    const n2 = native(['--model', dir, 'the cat']);
    const b = call('shard missing', () => m.run(['--model', m.loadModel('shard-missing', missing), 'the cat']));
    const want = (n2.err || '(ran)').split(dir).join('/models/shard-missing');
    if (b.err === want) ok('index + missing shard: ' + b.err); else finding('index + missing shard: page: ' + (b.err || '(ran)') + '\n          native: ' + want);
    call('', () => m.unloadModel('shard-missing'));
    stillWorks('shards');
  }
  // 4. memory: a run estimated past 2 GiB is refused before running, in --max-memory's words
  {
    const big = path.join(path.dirname(good), 'big');
    const text = 'the cat '.repeat(2000);
    const n = native(['--model', big, text, '--max-memory', '2G']);
    const t0 = Date.now();
    const r = call('big', () => m.run(['--model', m.loadModel('big', filesOf(big)), text]));
    const ms = Date.now() - t0;
    const want = (n.err || '(ran)').split(big).join('/models/big');
    if (r.err !== undefined && /memory|--max-memory/.test(r.err)) ok('4000-token run of 4 layers x 8 heads refused in ' + ms + ' ms: ' + r.err + (r.err === want ? '' : '\n          native with --max-memory 2G: ' + want));
    else finding('4000-token run of 4 layers x 8 heads: ' + (r.err || 'ran in ' + ms + ' ms') + ' / native with --max-memory 2G: ' + want);
    // the user's --max-memory: quoted as given, never past the page's 2 GiB for a model run
    for (const [given, shown] of [['1G', '1.0 GiB'], ['3G', '3.0 GiB'], ['100G', '100.0 GiB']]) {
      const q = call('', () => m.run(['--model', '/models/big', text, '--max-memory', given]));
      const said = /more than --max-memory ([0-9.]+ [GM]iB)/.exec(q.err || '');
      if (said && (said[1] === shown || said[1] === '2.0 GiB' && given !== '1G')) ok('--max-memory ' + given + ': ' + q.err);
      else finding('--max-memory ' + given + ': ' + (q.err || 'ran') + ' (quotes ' + (said ? said[1] : 'nothing') + ')');
    }
    // a run estimated at 2.8 GiB (native: "about 2.8 GiB of memory, more than --max-memory 2.0 GiB") is refused up front
    const t1 = Date.now();
    const q = call('', () => m.run(['--model', '/models/big', 'the cat '.repeat(750), '--max-memory', '100G', '--force']));
    const ms1 = Date.now() - t1;
    if (q.err !== undefined && /--max-memory/.test(q.err)) ok('1500 tokens, --max-memory 100G --force: refused in ' + ms1 + ' ms: ' + q.err);
    else finding('1500 tokens, --max-memory 100G --force (estimate 2.8 GiB, past the page\'s 2 GiB): ' + (q.err || 'ran') + ' after ' + ms1 + ' ms');
    call('', () => m.unloadModel('big'));
    stillWorks('memory');
  }
  // HOSTILE_HUGE=1: a model.safetensors of 3 GiB (the good folder's tensors and an unused 3 GiB one,
  // written sparse); native runs it (warning: extra.weight ignored), the page cannot hold it.
  if (process.env.HOSTILE_HUGE) {
    const dir = path.join(tmp, 'huge');
    fs.mkdirSync(dir);
    for (const f of gfiles) if (f.name !== 'model.safetensors') fs.writeFileSync(path.join(dir, f.name), f.bytes);
    const n0 = Number(Buffer.from(st.slice(0, 8)).readBigUInt64LE());
    const header = JSON.parse(Buffer.from(st.slice(8, 8 + n0)).toString());
    const end = st.length - 8 - n0, big = 3 * 2 ** 30;
    header['extra.weight'] = { dtype: 'F32', shape: [big / 4], data_offsets: [end, end + big] };
    let hj = JSON.stringify(header);
    hj += ' '.repeat((8 - (hj.length % 8)) % 8);
    const fd = fs.openSync(path.join(dir, 'model.safetensors'), 'w');
    fs.writeSync(fd, Buffer.concat([le64(hj.length), Buffer.from(hj), Buffer.from(st.slice(8 + n0))]));
    fs.writeSync(fd, Buffer.from([0]), 0, 1, 8 + hj.length + end + big - 1);
    fs.closeSync(fd);
    const read = (p) => {  // readFileSync stops at 2 GiB
      const size = fs.statSync(p).size, u = new Uint8Array(size), h = fs.openSync(p, 'r');
      for (let o = 0; o < size;) o += fs.readSync(h, u, o, Math.min(size - o, 2 ** 30), o);
      fs.closeSync(h);
      return u;
    };
    const files = fs.readdirSync(dir).map((f) => ({ name: f, bytes: read(path.join(dir, f)) }));
    const n = native(['--model', dir, 'the cat']);
    const t0 = Date.now();
    const r = call('huge', () => m.run(['--model', m.loadModel('huge', files), 'the cat']));
    const line = '3 GiB model.safetensors (native: ' + (n.err || 'runs') + '): ' + (r.err || 'ran') + ' in ' + (Date.now() - t0) + ' ms';
    if (r.err !== undefined && !r.odd && /^attn: error: /.test(r.err)) ok(line); else finding(line);
    call('', () => m.unloadModel('huge'));
    fs.unlinkSync(path.join(dir, 'model.safetensors'));
    stillWorks('huge');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  console.log(findings + ' finding(s)');
  process.exit(findings ? 1 : 0);
});
