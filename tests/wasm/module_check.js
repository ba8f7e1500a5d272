// The WebAssembly core under node: for a few configurations, the module's run(argv) equals the native
// binary's `attn show ARGV --json -` (same keys, numbers within 1e-6), and bad options give the native
// binary's one-line error.
//   node tests/wasm/module_check.js BUILD/wasm/attn_core.js BUILD/attn
'use strict';
const { execFileSync } = require('child_process');
const [, , modulePath, attn] = process.argv;
if (!modulePath || !attn) {
  console.error('usage: node module_check.js attn_core.js attn');
  process.exit(2);
}

const { compare } = require('./compare.js');  // the largest difference of two JSON values of one shape

function native(argv) {
  try {
    return { out: execFileSync(attn, ['show', ...argv, '--json', '-'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (e) {
    return { err: e.stderr.toString().trim().split('\n').pop() };
  }
}

const runs = [
  ['--kind', 'causal', 'Your journey starts with one step'],
  ['--kind', 'mha', '--heads', '4', '--d-out', '8', '--pos', 'rope', 'the cat sat on the mat'],
  ['--kind', 'cross', 'Wie geht es', '--source', 'How are you today'],
  ['--kind', 'flash', '--causal', '--block-q', '2', '--block-k', '3', 'one two three four five six seven'],
  ['--kind', 'self', '--dropout', '0.3', '--seed', '7', 'a b c d e'],
];
const bad = [
  ['--kind', 'gqa', '--heads', '6', '--kv-heads', '4', 'a b c'],
  ['--dropout', '1', 'a b'],
  ['--kind', 'simple', '--heads', '2', 'a b'],
];

require(require('path').resolve(modulePath))().then((m) => {
  let failed = 0;
  for (const argv of runs) {
    const n = native(argv);
    let d;
    try {
      d = compare(JSON.parse(m.run(argv)), JSON.parse(n.out), '$');
    } catch (e) {
      d = e.message;
    }
    const ok = typeof d === 'number' && d <= 1e-6;
    if (!ok) failed++;
    console.log((ok ? 'ok   ' : 'FAIL ') + argv.join(' ') + ': largest difference ' + d);
  }
  for (const argv of bad) {
    const n = native(argv);
    let got = '(no error)';
    try {
      m.run(argv);
    } catch (e) {
      got = e.message;
    }
    const ok = n.err !== undefined && got === n.err;
    if (!ok) failed++;
    console.log((ok ? 'ok   ' : 'FAIL ') + argv.join(' ') + ': ' + got + (ok ? '' : ' / native: ' + n.err));
  }
  process.exit(failed ? 1 : 0);
});
