// attn's byte-level BPE with a Llama-3 Split pattern, ignore_merges and special tokens against the npm
// package llama3-tokenizer-js (MIT; an independent JavaScript encoder shipping Llama 3's real 128,000-token
// vocabulary, its merges and its 256 special tokens). The package's data are written as a Llama 3
// tokenizer.json (Split with Llama 3's regex, compiled by PCRE2, then ByteLevel without a regex;
// ignore_merges; the specials as added tokens; a <|begin_of_text|> template), attn encodes a few hundred
// varied strings from it, and the ids must equal the package's encode(text, {bos: true, eos: false}).
// Usage: node bl_encoder_check.mjs PATH/TO/gpt2_encode PATH/TO/node_modules/llama3-tokenizer-js
import fs from 'fs';
import os from 'os';
import path from 'path';
import { execFileSync } from 'child_process';
import { pathToFileURL } from 'url';

const [tool, pkg] = process.argv.slice(2);
const { default: llama } = await import(pathToFileURL(path.join(path.resolve(pkg), 'bundle', 'llama3-tokenizer-with-baked-data.js')).href);

// 1. the package's vocabulary, merges and special tokens as tokenizer.json
const SPLIT = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const vocab = Object.create(null);  // no prototype: 'constructor' is a token
const added = [];
llama.vocabById.forEach((t, id) => {
  if (t.startsWith('<|') && t.endsWith('|>') && id >= 128000) added.push({ id, content: t, single_word: false, lstrip: false,
                                                                           rstrip: false, normalized: false, special: true });
  else if (!(t in vocab)) vocab[t] = id;
});
const merges = [...llama.merges.entries()].sort((a, b) => a[1] - b[1]).map(([m]) => m);
const bos = '<|begin_of_text|>';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-llama3-tok-'));
fs.writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify({
  added_tokens: added, normalizer: null,
  pre_tokenizer: { type: 'Sequence', pretokenizers: [
    { type: 'Split', pattern: { Regex: SPLIT }, behavior: 'Isolated', invert: false },
    { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false }] },
  post_processor: { type: 'Sequence', processors: [
    { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    { type: 'TemplateProcessing', single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [], special_tokens: { [bos]: { id: bos, ids: [llama.getSpecialTokenId(bos)], tokens: [bos] } } }] },
  decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
  model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
           fuse_unk: false, byte_fallback: false, ignore_merges: true, vocab, merges } }));

// 2. a few hundred varied strings: fixed cases, then seeded mixtures of fragments
const fixed = [
  'Hello world', 'Your journey starts with one step', "I'M SURE YOU'LL SEE IT'S WHAT WE'VE DONE", "they're we'd o'clock",
  '3.14159 1,000,000 2024-11-23 0x1F 1e-5 1234567', '   leading spaces', 'trailing spaces   ', 'a  b   c    d',
  'line\nbreak\n\nparagraph\n\n\n', 'tab\there\t\tand\r\nwindows', ' \n \n ', 'café naïve résumé Zürich façade',
  'Ελληνικά кириллица עברית العربية', '你好，世界！这是一个测试。', '日本語のテキストとカタカナ', '한국어 문장',
  '😀 👍🏽 👨‍👩‍👧 🇫🇷 emoji!', '∑ ∫ ≈ ≠ → ⇒ ∞', 'Mixed123Numbers456and789', '$$$ !!! ??? ... --- ___',
  "The animal didn't cross the street because it was too tired.", 'https://example.com/path?q=1&b=2#frag',
  '<|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>', 'x<|reserved_special_token_5|>y', '<|begin_of_text|>',
  'snake_case camelCase kebab-case PascalCase', '§1.2(a)(iii) — “quotes” ‘single’ «guillemets»', 'x\u00a0y\u2003z',
  'supercalifragilisticexpialidocious', '\t\t\tindented(code) { return x; }\n',
];
const fragments = [' the', 'The', ' quick', ' brown', ' fox', "'s", "'T", "'re", "'LL", ' 42', '2023', '12345', ' 3.5', '  ',
  '   ', '\n', '\n\n', '\t', ' é', 'ü', ' 東京', '漢字', ' 😀', '!', '?!', ' ...', ',', ';', ' (', ')', ' Zoë', ' ✓', '-',
  '_', ' "', "'", ' 100%', ' $9.99', ' €', 'JSON', ' tokenization', '<|eot_id|>', '\r\n', ' \n'];
let seed = 777;
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const texts = fixed.slice();
while (texts.length < 300) {
  let s = '';
  const n = 1 + rand(12);
  for (let i = 0; i < n; i++) s += fragments[rand(fragments.length)];
  texts.push(s);
}

// 3. both encoders, compared string by string
const want = texts.map((t) => llama.encode(t, { bos: true, eos: false }));
const got = JSON.parse(execFileSync(tool, [dir], { input: JSON.stringify(texts), maxBuffer: 1 << 26 }).toString());
fs.rmSync(dir, { recursive: true });
let bad = 0;
texts.forEach((t, i) => {
  if (JSON.stringify(got[i]) !== JSON.stringify(want[i])) {
    if (bad++ < 10) console.error(`differs: ${JSON.stringify(t)}\n  attn:                ${JSON.stringify(got[i])}\n  llama3-tokenizer-js: ${JSON.stringify(want[i])}`);
  }
});
console.log(`${texts.length} strings, ${want.reduce((n, w) => n + w.length, 0)} tokens, ${bad} differ`);
process.exit(bad ? 1 : 0);
