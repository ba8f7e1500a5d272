"""attn's SentencePiece Unigram tokenisers against independent encoders, on the tiny models of spm_files.py:
  t5-json    tokenizer.json (T5Converter's layout)  vs Hugging Face's tokenizers (npm, the Rust library)
  t5-spm     spiece.model alone (T5Tokenizer)       vs python3-sentencepiece, T5Tokenizer's special tokens
  marian     source.spm + vocab.json                vs python3-sentencepiece plus vocab.json looked up as
                                                       tokenization_marian.py does (written here)
Usage: spm_check.py GPT2_ENCODE NODE NODE_MODULES [t5-json|t5-spm|marian ...]
Each text's ids (with </s>) must be equal; prints the agreement count per tokeniser.
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

import sentencepiece as spm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spm_files  # noqa: E402

tool, node, modules = sys.argv[1:4]
which = sys.argv[4:] or ['t5-json', 't5-spm', 'marian']

# ---- 1. the texts -------------------------------------------------------------------------------------
HAND = [
    '', ' ', '   ', 'Hello world', 'Hey friend!', 'I am a small frog', 'The quick brown fox jumps over the lazy dog.',
    'Der schnelle braune Fuchs springt über den faulen Hund.', 'Straße Größe Äpfel Öl Übung', '||', 'a  b   c ', '  lead',
    'trail  ', '\ttab\tand\nnewline\n', 'x\r\ny', 'ﬁne ½', 'ﬁ', '½', '①②③', 'Ｆｕｌｌｗｉｄｔｈ ＡＢＣ１２３', 'a\u00A0b\u200Bc', 'no\u3000break',
    '¹\uFE0F', 'e\u0301', 'cafe\u0301 café', '日本語のテキスト', '中文字符', '한국어', 'emoji 😀👍🏽 👨‍👩‍👧', '🇩🇪🇫🇷', 'Ω≈ç√∫',
    'unknown ĳ ǆ ﬀ', '>>de<< Hello world', '>>fr<<Bonjour', '>>xx<< unknown code', 'a >>de<< b', '>>de<<', '>> de <<', '>>a\nb<<',
    '<pad>', '</s>', '<unk>', 'a</s>b', 'x<pad>y<unk>z', '<extra_id_0>', 'The <extra_id_0> walks in <extra_id_1> park',
    '<extra_id_99><extra_id_100>', '</s></s>', '<s>', 'numbers 1, 2, 3, 42 and 1999', '3.14159 2,718 1e10',
    "it's don't we'll", '"quoted" (paren) [bracket] {brace}', '--- *** ___ ...', 'a.b,c;d:e!f?g', 'ＡＢＣ', 'ｶﾀｶﾅ',
    'Ⅻ ⅻ ℃ ℉ ㎏ ㍻', '\u2028line\u2029para', 'zero\u200Dwidth\u200Cjoin', 'soft\u00ADhyphen', 'x\uFEFFy', 'Ǆungla',
    'ＫＥＥＰ　ＳＰＡＣＥ', 'नमस्ते दुनिया', 'مرحبا بالعالم', 'שלום עולם', 'Привет мир', 'Γειά σου Κόσμε', 'ﾊﾝｶｸ',
]
PARTS = ['the', 'The', ' ', '  ', '\t', '\n', 'und', 'über', 'ß', 'ﬁ', '½', '²', 'Ａ', '\u00A0', '\u200B', '中', '😀', 'ĳ', 'é',
         'e\u0301', ',', '.', '!', '?', '1', '42', '>>de<<', '</s>', '<pad>', '<unk>', '<extra_id_3>', 'frog', 'Frosch', 'x',
         'ǅ', '\u3000', '…', '—', '‘', '’', '“', '”', '€', '™', '℃', 'ｶ', 'ﾞ', '\uFE0F', '¹', 'ö', 'Ö', 'ç', 'ñ', '🇩', '🇪']


def texts():
    rng = random.Random(1234)
    out = list(HAND)
    words = spm_files.corpus_lines()
    while len(out) < 340:
        k = rng.randrange(3)
        if k == 0:  # a corpus sentence with something odd put in
            s = rng.choice(words)
            at = rng.randrange(len(s) + 1)
            out.append(s[:at] + rng.choice(PARTS) + s[at:])
        elif k == 1:  # a run of parts
            out.append(''.join(rng.choice(PARTS) for _ in range(rng.randrange(1, 9))))
        else:  # words from the corpus with odd spacing
            ws = ' '.join(rng.choice(words).split()[:6]).split(' ')
            out.append(''.join(w + rng.choice([' ', '  ', '\t', ' \n ', '\u00A0', '']) for w in ws))
    return out


# ---- 2. the references --------------------------------------------------------------------------------
def split_specials(text, specials):
    """Leftmost, longest-first split on the special tokens, as the slow tokenisers' trie does."""
    pat = re.compile('|'.join(re.escape(s) for s in sorted(specials, key=len, reverse=True)))
    out, at = [], 0
    for m in pat.finditer(text):
        if m.start() > at:
            out.append((False, text[at:m.start()]))
        out.append((True, m.group(0)))
        at = m.end()
    if at < len(text):
        out.append((False, text[at:]))
    return out


def t5_spm_reference(folder, strings, extra_ids=100):
    sp = spm.SentencePieceProcessor(model_file=os.path.join(folder, 'spiece.model'))
    n = sp.get_piece_size()
    special = {'</s>': sp.piece_to_id('</s>'), '<unk>': sp.piece_to_id('<unk>'), '<pad>': sp.piece_to_id('<pad>')}
    for i in range(extra_ids):
        special['<extra_id_%d>' % i] = n + extra_ids - 1 - i
    out = []
    for s in strings:
        ids = []
        for is_special, part in split_specials(s, special):
            ids += [special[part]] if is_special else sp.encode(part)
        out.append(ids if ids and ids[-1] == special['</s>'] else ids + [special['</s>']])  # _add_eos_if_not_present
    return out


LANG_CODE = re.compile(r'>>.+?<<')  # tokenization_marian.py's language_code_re


def marian_reference(folder, strings):
    sp = spm.SentencePieceProcessor(model_file=os.path.join(folder, 'source.spm'))
    vocab = json.load(open(os.path.join(folder, 'vocab.json'), encoding='utf-8'))
    unk = vocab['<unk>']
    out = []
    for s in strings:
        ids = []
        for is_special, part in split_specials(s, ['</s>', '<unk>', '<pad>']):
            if is_special:
                ids.append(vocab[part])
                continue
            m = LANG_CODE.match(part)
            code = [m.group(0)] if m else []
            pieces = code + sp.encode(LANG_CODE.sub('', part), out_type=str)
            ids += [vocab.get(p, unk) for p in pieces]
        out.append(ids + [vocab['</s>']])
    return out


HF_JS = r'''
const { Tokenizer } = require(require('path').join(process.argv[1], 'tokenizers'));
(async () => {
  const tok = Tokenizer.fromFile(process.argv[2]);
  const strings = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const out = [];
  for (const s of strings) out.push(Array.from((await tok.encode(s)).getIds()));
  process.stdout.write(JSON.stringify(out));
})();
'''


def hf_reference(folder, strings):
    r = subprocess.run([node, '-e', HF_JS, modules, os.path.join(folder, 'tokenizer.json')], input=json.dumps(strings),
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


def attn_ids(folder, strings):
    r = subprocess.run([tool, folder], input=json.dumps(strings), capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('attn failed on %s: %s' % (folder, r.stderr))
    return json.loads(r.stdout)


# ---- 3. compare ---------------------------------------------------------------------------------------
def main():
    strings = texts()
    failed = False
    with tempfile.TemporaryDirectory() as root:
        for name in which:
            folder = os.path.join(root, name)
            if name == 't5-json':
                spm_files.write_t5_tokenizer(folder)
                want = hf_reference(folder, strings)
            elif name == 't5-spm':
                spm_files.write_t5_tokenizer(folder, with_json=False)
                want = t5_spm_reference(folder, strings)
            else:
                spm_files.write_marian_tokenizer(folder, lang_codes=('>>de<<', '>>fr<<'), drop=('▁Frosch', 'ung', '▁über'))
                want = marian_reference(folder, strings)
            got = attn_ids(folder, strings)
            bad = [i for i in range(len(strings)) if want[i] != got[i]]
            print('%s: %d of %d texts give the same ids' % (name, len(strings) - len(bad), len(strings)))
            for i in bad[:8]:
                print('  %r\n    want %s\n    got  %s' % (strings[i], want[i], got[i]))
            failed |= bool(bad)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
