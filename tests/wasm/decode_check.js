// The WebAssembly core's decode under node: for the kinds that decode, the module's decode(argv) equals the
// native binary's `attn decode ARGV --json -` (the same keys in the same order, numbers within 1e-6), bad
// words give the native binary's one-line error, and what the page cannot do (write or read files, run a
// model folder) is refused by name in one line.
//   node tests/wasm/decode_check.js BUILD/wasm/attn_core.js BUILD/attn
'use strict';
const { execFileSync } = require('child_process');
const [, , modulePath, attn] = process.argv;
if (!modulePath || !attn) {
  console.error('usage: node decode_check.js attn_core.js attn');
  process.exit(2);
}

const { compare } = require('./compare.js');  // the largest difference of two JSON values of one shape

function native(argv) {
  try {
    return { out: execFileSync(attn, ['decode', '--json', '-', ...argv], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (e) {
    return { err: e.stderr.toString().trim().split('\n').pop() };
  }
}

// decode_max_abs_diff compares the steps with the full pass: both builds' are below 1e-6, not equal
const runs = [
  ['Your journey starts with one step'],  // gqa, the default kind
  ['--kind', 'gqa', '--heads', '4', '--kv-heads', '2', '--d-out', '8', 'the cat sat on the mat'],
  ['--kind', 'mqa', '--heads', '8', '--d-out', '32', 'the cat sat on the mat'],
  ['--kind', 'causal', '--example', 'journey'],
  ['--kind', 'local', '--window', '2', 'one two three four five six'],
  ['--kind', 'mha', '--heads', '4', '--pos', 'rope', '--rope-style', 'interleaved', 'the cat sat on the mat'],
  ['--kind', 'causal', '--pos', 'alibi', 'one two three four'],
  ['--kind', 'self', '--pos', 'sinusoidal', '--seed', '7', '--init', 'torch-rand', '--qkv-bias', 'a b c d e'],
  ['--kind', 'flash', '--heads', '2', '--split', 'chars', 'abcdef'],
  ['--kind', 'mha-wrapper', '--heads', '2', '--d-in', '8', '--', '-x y z'],
];
// the native command's own refusals, word for word
const bad = [
  ['--kind', 'cross', 'a b'],
  ['--kind', 'mha', '--window', '2', 'a b'],
  ['--kind', 'gqa', '--heads', '6', '--kv-heads', '4', 'a b c'],
  ['--dropout', '0.1', 'a b'],
  ['--layer', '1', 'a b'],
  ['--max-new-tokens', '5', 'a b'],
  ['--offline', 'a b'],
  ['--kind', 'nope', 'a b'],
  ['--max-tokens', '2', 'a b c'],
  ['--example', 'journey', 'a b'],
  [],
];
// what the page cannot do, refused by name
const hint = (o) => 'attn: error: ' + o + ' writes files, which the page cannot do (hint: the page draws the run itself; run attn decode ' + o + ' on your machine for files)';
const reads = (o) => 'attn: error: ' + o + ' reads a file, which the page cannot do (hint: type the text into the page, or run attn decode ' + o + ' on your machine)';
const refused = [
  [['--png', 'out', 'a b'], hint('--png')],
  [['--svg', 'out', 'a b'], hint('--svg')],
  [['--json', 'steps.json', 'a b'], hint('--json')],
  [['--html', 'x.html', 'a b'], hint('--html')],
  [['--prefix', 'p', 'a b'], hint('--prefix')],
  [['--file', 'text.txt'], reads('--file')],
  [['--embeddings', 'x.json'], reads('--embeddings')],
  [['--weights', 'w.npz', 'a b'], reads('--weights')],
  [['--font', 'f.ttf', 'a b'], reads('--font')],
  [['--model', 'gpt2', 'a b'], 'attn: error: --model in attn decode runs on your machine, not in the page (hint: decode a seeded kind here (--kind gqa ...), or run attn decode --model on your machine)'],
  [['--help'], 'attn: error: --help and --version print on the command line (hint: run attn decode --help on your machine)'],
  [['a\u0000b'], "attn: error: 'a\\x00b' has a control character at byte offset 1 (U+0000) (hint: remove it; tabs and newlines are fine)"],
  ['not a list', 'attn.decode takes a list of words (strings), as attn decode takes them'],
  [[1, 2], 'attn.decode takes a list of words (strings), as attn decode takes them'],
];

// the module's print (--help's text) is not part of the answer
require(require('path').resolve(modulePath))({ print: () => {} }).then((m) => {
  let failed = 0;
  const say = (ok, what) => {
    if (!ok) failed++;
    console.log((ok ? 'ok   ' : 'FAIL ') + what);
  };
  for (const argv of runs) {
    const n = native(argv);
    let d;
    try {
      const got = JSON.parse(m.decode(argv)), want = JSON.parse(n.out);
      got.diagnostics.decode_max_abs_diff = want.diagnostics.decode_max_abs_diff = Math.max(got.diagnostics.decode_max_abs_diff, want.diagnostics.decode_max_abs_diff) < 1e-6 ? 0 : NaN;
      if (want.steps.length < 4) throw new Error('only ' + want.steps.length + ' steps');
      d = compare(got, want, '$');
    } catch (e) {
      d = e.message;
    }
    say(typeof d === 'number' && d <= 1e-6, argv.join(' ') + ': largest difference ' + d);
  }
  for (const argv of bad) {
    const n = native(argv);
    let got = '(no error)';
    try {
      m.decode(argv);
    } catch (e) {
      got = e.message;
    }
    say(n.err !== undefined && n.err.startsWith('attn: error: ') && got === n.err, JSON.stringify(argv) + ': ' + got + (got === n.err ? '' : ' / native: ' + n.err));
  }
  for (const [argv, want] of refused) {
    let got = '(no error)';
    try {
      m.decode(argv);
    } catch (e) {
      got = e.message;
    }
    say(got === want, JSON.stringify(argv) + ': ' + got + (got === want ? '' : ' / expected: ' + want));
  }
  // a decode above the page's 512 MiB: refused before it starts, in --max-memory's words, as natively (an
  // estimate below 4 GiB: the JSON's estimate is a size_t, which saturates at 4 GiB in WebAssembly)
  const big = ['--kind', 'mha', '--heads', '16', Array(1500).fill('w').join(' ')];
  let got = '(no error)';
  try {
    m.decode(big);
  } catch (e) {
    got = e.message;
  }
  const n = native(big.slice(0, -1).concat(['--max-memory', '512M', big[big.length - 1]]));
  say(got.startsWith('attn: error: this run would need about') && got.includes('more than --max-memory 512.0 MiB') &&
      n.err !== undefined && got.split(' (hint:')[0] === n.err.split(' (hint:')[0] && got.includes('run attn decode on your machine'),
      '1500 tokens in 16 heads: ' + got + ' / native: ' + n.err);
  // the page's show is unchanged by decode's entry: run() after decode() still gives show's trace
  const show = JSON.parse(m.run(['--kind', 'causal', 'a b c']));
  say(show.format === 'attn-trace' && show.tokens.length === 3, 'run() after decode(): show\'s trace of 3 tokens');
  process.exit(failed ? 1 : 0);
});
