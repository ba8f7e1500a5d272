// Model folders in the WebAssembly core under node, loaded as the page loads them (attn.loadModel): for
// every folder and several texts, run(["--model", "/models/NAME", TEXT, ...]) equals the native binary's
// `attn show --model DIR TEXT ... --json -` (same keys, ids and strings; every number within 1e-5 of the
// native one: weights, means, rollout, probabilities, losses, queries and keys; a head's raw scores within
// 1e-5 of its matrix's largest |score|, since the page's portable product sums in another order than
// OpenBLAS and these random models' scores reach 60, where float32 steps by 4e-6); a text the native binary refuses gets its
// error word for word; a hostile folder gives the
// native binary's one-line error (its path read as the page's), a damaged pytorch_model.bin (cut short,
// a storage's byte changed) included: the page reads torch.save's zip with its own reader of stored
// entries (data/checkpoint/stored_zip.cpp), the native binary with libzip.
// Split regexes with \x inside (?i:...) or a surrogate \x{D800} are refused by name; --model
// /models/NAME/../../tmp is refused as --model /tmp is.
//   node tests/wasm/model_check.js BUILD/wasm/attn_core.js BUILD/attn DIR...   (tests/wasm/model_check.py)
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const [, , modulePath, attn, ...dirs] = process.argv;

let worstAt = '';
const perKey = {};
// The largest |x| of a nested array of numbers.
function largest(v) { return Array.isArray(v) ? v.reduce((m, x) => Math.max(m, largest(x)), 0) : typeof v === 'number' ? Math.abs(v) : 0; }
// The largest difference between two JSON values of the same shape, each divided by its scale: 1, or for a
// head's raw scores the matrix's largest |score| (at least 1); throws on a different shape, key or string.
function compare(a, b, at, scale) {
  if (typeof a === 'number' && typeof b === 'number') {
    const d = Math.abs(a - b) / (scale || 1);
    const key = at.replace(/\.[0-9]+/g, '');
    perKey[key] = Math.max(perKey[key] || 0, Math.abs(a - b));
    if (d > 1e-5 && !worstAt) worstAt = at + ' ' + a + ' vs ' + b;
    return d;
  }
  if (Array.isArray(a) !== Array.isArray(b) || typeof a !== typeof b || (a === null) !== (b === null))
    throw new Error(at + ': ' + JSON.stringify(a).slice(0, 80) + ' vs ' + JSON.stringify(b).slice(0, 80));
  if (a === null || typeof a !== 'object') {
    if (a !== b) throw new Error(at + ': ' + JSON.stringify(a) + ' vs ' + JSON.stringify(b));
    return 0;
  }
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.join() !== kb.join()) throw new Error(at + ': keys ' + ka + ' vs ' + kb);
  let worst = 0;
  for (const k of ka) worst = Math.max(worst, compare(a[k], b[k], at + '.' + k, k === 'scores' ? Math.max(1, largest(b[k])) : scale));
  return worst;
}

function native(argv) {
  try {
    return { out: execFileSync(attn, ['show', ...argv, '--json', '-'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 }) };
  } catch (e) {
    return { err: e.stderr.toString().trim().split('\n').pop() };
  }
}

const TEXTS = ['the cat sat on the mat', 'It was tired, wasn\u2019t it? 123 4567 caf\u00e9 cafe\u0301 \u212b',
  'THE Cat\u2019s  na\u00efve\t\u6771\u4eac \u00dcber \ufb01 x\u0308\u0301 \ud83d\ude00!'];
const OPTIONS = {
  gpt2: [[], ['--layer', '1', '--head', '1'], ['--lens'], ['--ablate', '0.1'], ['--show', 'queries,keys', '--query', '2'], ['--keep-layers', '1']],
  llama: [[], ['--lens']],
  bert: [[], ['--pair', 'the mat was tired']],
  t5: [[], ['--target', 'the cat']],
  bart: [[], ['--target', 'the cat']],
};
const HOSTILE = ['cut', 'wrongconfig', 'cutbin', 'crcbin'];

require(path.resolve(modulePath))({ print: () => {}, printErr: () => {} }).then((m) => {
  let failed = 0;
  const report = (ok, what) => { if (!ok) failed++; console.log((ok ? 'ok   ' : 'FAIL ') + what); };
  for (const dir of dirs) {
    const name = path.basename(dir);
    const files = fs.readdirSync(dir).map((f) => ({ name: f, bytes: new Uint8Array(fs.readFileSync(path.join(dir, f))) }));
    const page = m.loadModel(name, files);
    const asPage = (line) => line.split(dir).join(page);
    if (HOSTILE.includes(name)) {
      const n = native(['--model', dir, 'the cat']);
      let got = '(no error)';
      try { m.run(['--model', page, 'the cat']); } catch (e) { got = e.message; }
      report(n.err !== undefined && got === asPage(n.err), name + ': ' + got + (got === asPage(n.err || '') ? '' : ' / native: ' + n.err));
      m.unloadModel(name);
      continue;
    }
    if (name.startsWith('rx-')) {  // refused by name: \x is not case-folded inside (?i:...); PCRE2 refuses a surrogate
      const want = { 'rx-caseless-x': 'has \\x inside (?i:...), which the page\u2019s regex engine cannot run as PCRE2 does',
        'rx-surrogate': 'has the surrogate \\x{D800}, which the page\u2019s regex engine cannot run as PCRE2 does',
        'rx-behind-backref': 'has a backreference inside a lookbehind, which the page\u2019s regex engine cannot run as PCRE2 does',
        'rx-behind-varying': 'has a lookbehind of varying length, which the page\u2019s regex engine cannot run as PCRE2 does' }[name];
      let got = '(no error)';
      try { m.run(['--model', page, 'the cat']); } catch (e) { got = e.message; }
      report(got.startsWith('attn: error: ' + page + '/tokenizer.json: the pre-tokeniser\'s regex ' + want), name + ': ' + got);
      m.unloadModel(name);
      continue;
    }
    const options = OPTIONS[name] || [[]];
    for (const opts of options) {
      for (const text of opts.length ? TEXTS.slice(0, 1) : TEXTS) {
        const argv = [text, ...opts];
        const n = native(['--model', dir, ...argv]);
        if (n.err) {  // the page refuses it in the same words
          let got = '(no error)';
          try { m.run(['--model', page, ...argv]); } catch (e) { got = e.message; }
          report(got === asPage(n.err), name + ' ' + JSON.stringify(argv) + ': ' + got + (got === asPage(n.err) ? '' : ' / native: ' + n.err));
          continue;
        }
        let d;
        try {
          d = compare(JSON.parse(m.run(['--model', page, ...argv])), JSON.parse(n.out), '$', 1);
        } catch (e) {
          d = e.message;
        }
        report(typeof d === 'number' && d <= 1e-5, name + ' ' + JSON.stringify(argv) + ': largest difference (scores: over their largest) ' + d + (worstAt ? ' (first past 1e-5: ' + worstAt + ')' : ''));
        worstAt = '';
      }
    }
    if (name === 'gpt2') {  // weights above the page's budget are refused before they are read
      let got = '(no error)';
      try { m.describe(page, '16K'); } catch (e) { got = e.message; }
      report(/^attn: error: the folder's weights take [0-9.]+ KiB in memory, more than the 16\.0 KiB the page runs a model in \(hint: run attn show --model on your machine for a model this large\)$/.test(got),
        'describe with 16K: ' + got);
    }
    if (name === 'qwen2') {  // a character newer than the command line's Unicode 14 tables: refused, not tokenised otherwise
      let got = '(no error)';
      try { m.run(['--model', page, 'cat \u{31350} dog']); } catch (e) { got = e.message; }
      report(got === 'attn: error: the text holds U+31350, newer than the Unicode 14 tables attn\'s tokenisers use on the command line ' +
        '(hint: the page refuses it rather than tokenise it differently: leave it out, or run attn show --model on your machine)', 'qwen2 U+31350: ' + got);
    }
    m.unloadModel(name);
  }
  // the loader refuses what cannot be a folder's files, in attn's words, and leaves nothing behind
  const bytes = new Uint8Array([123, 125]);
  for (const [what, call, want] of [
    ['two files of one name', () => m.loadModel('dup', [{ name: 'config.json', bytes: bytes }, { name: 'config.json', bytes: bytes }]), 'two files are named config.json in /models/dup'],
    ['bytes not a Uint8Array', () => m.loadModel('arr', [{ name: 'config.json', bytes: [1, 2] }]), 'file 0 of /models/arr is not {name, bytes: Uint8Array}'],
    ['a null file', () => m.loadModel('nul', [null]), 'file 0 of /models/nul is not {name, bytes: Uint8Array}'],
    ['a lone surrogate', () => m.loadModel('a\ud800', [{ name: 'config.json', bytes: bytes }]), 'the folder name "a\\ud800" cannot name a file in the page'],
    ['a long name', () => m.loadModel('x'.repeat(300), [{ name: 'config.json', bytes: bytes }]), 'the folder name is longer than 255 characters'],
  ]) {
    let got = '(no error)';
    try { call(); } catch (e) { got = e.message; }
    report(got.startsWith('attn: error: ' + want), 'loadModel with ' + what + ': ' + got);
  }
  // the page reads only the folders it opened
  let got = '';
  try { m.run(['--model', '/tmp', 'a']); } catch (e) { got = e.message; }
  report(/names a folder on your machine, which the page cannot read/.test(got), '--model /tmp: ' + got);
  got = '';
  m.loadModel('up', [{ name: 'config.json', bytes: new Uint8Array([123, 125]) }]);
  try { m.run(['--model', '/models/up/../../tmp', 'a']); } catch (e) { got = e.message; }
  report(/--model \/models\/up\/\.\.\/\.\.\/tmp names a folder on your machine/.test(got), '--model /models/up/../../tmp: ' + got);
  m.unloadModel('up');
  report(JSON.stringify(m.models()) === '[]', 'models() after unloading: ' + JSON.stringify(m.models()));
  if (process.env.ATTN_PER_KEY) for (const k of Object.keys(perKey).sort()) console.log(k, perKey[k]);
  process.exit(failed ? 1 : 0);
});
