"""Tiny SentencePiece Unigram tokenisers for tests: T5 and Marian (Opus-MT) model folders.

Trains small Unigram models with Debian's python3-sentencepiece (0.1.97) on a built-in English/German corpus
and writes the files Hugging Face's folders hold:
  write_t5_tokenizer(dir, extra_ids=100) -> n_ids
      tokenizer.json as HF's T5Converter (convert_slow_tokenizer.py, SpmConverter) writes it: Unigram vocab
      with <pad> 0, </s> 1, <unk> 2, the pieces, then <extra_id_99..0> (score 0); the Precompiled normaliser
      (the model's nmt_nfkc charsmap in base64) followed by Strip(right) and Replace(" {2,}" -> "▁");
      Metaspace (prepend_scheme "always", split true); TemplateProcessing "$A </s>"; plus spiece.model and
      tokenizer_config.json / special_tokens_map.json.
  write_marian_tokenizer(dir, vocab_size_hint=300) -> n_ids
      source.spm and target.spm (the same model), vocab.json in Marian's order (</s> 0, <unk> 1, the pieces
      in spm order, the language codes, <pad> last as convert_marian_to_pytorch's add_to_vocab_ adds it),
      tokenizer_config.json (separate_vocabs false).
Both are deterministic (fixed seed, one thread); training takes a fraction of a second.
Also: spm_model_bytes(...) and read_spm(bytes) (a small proto2 reader for pieces and the charsmap: Debian's
python3-sentencepiece ships without python3-protobuf).
"""
import base64
import io
import json
import os
import struct

import sentencepiece as spm

# ---- corpus -------------------------------------------------------------------------------------------
ENGLISH = """The quick brown fox jumps over the lazy dog.
I am a small frog and I live in a green pond near the old mill.
Attention is all you need, said the paper, and everyone read it twice.
She sells sea shells by the sea shore, but nobody buys them on Sundays.
The weather today is cold and windy, so take a warm coat with you.
We walked along the river until the sun went down behind the hills.
How many languages do you speak? I speak English, German and a little French.
The train to Berlin leaves at seven o'clock from platform three.
Numbers like 1, 2, 3, 42 and 1999 appear in many sentences.
Please translate this sentence into German as well as you can.
My grandmother grows tomatoes, potatoes and beans in her garden.
The children played football in the park after school.
A cup of coffee costs three euros in this small cafe.
He opened the window and listened to the birds singing outside.
Reading books is a good way to learn new words every day.
The museum is closed on Mondays, but open every other day of the week.
Can you tell me where the station is, please?
They built a new bridge across the river last year.
The doctor said that I should drink more water and sleep longer.
Our teacher explained the lesson with a long story about a king.
"""
GERMAN = """Der schnelle braune Fuchs springt über den faulen Hund.
Ich bin ein kleiner Frosch und wohne in einem grünen Teich bei der alten Mühle.
Aufmerksamkeit ist alles, was man braucht, sagte das Papier.
Das Wetter ist heute kalt und windig, also nimm einen warmen Mantel mit.
Wir gingen am Fluss entlang, bis die Sonne hinter den Hügeln unterging.
Wie viele Sprachen sprichst du? Ich spreche Englisch, Deutsch und ein wenig Französisch.
Der Zug nach Berlin fährt um sieben Uhr von Gleis drei ab.
Bitte übersetze diesen Satz so gut du kannst ins Deutsche.
Meine Großmutter baut Tomaten, Kartoffeln und Bohnen in ihrem Garten an.
Die Kinder spielten nach der Schule Fußball im Park.
Eine Tasse Kaffee kostet in diesem kleinen Café drei Euro.
Er öffnete das Fenster und hörte den Vögeln draußen zu.
Bücher zu lesen ist ein guter Weg, jeden Tag neue Wörter zu lernen.
Das Museum ist montags geschlossen, aber an allen anderen Tagen geöffnet.
Können Sie mir bitte sagen, wo der Bahnhof ist?
Sie bauten letztes Jahr eine neue Brücke über den Fluss.
Der Arzt sagte, ich solle mehr Wasser trinken und länger schlafen.
Unser Lehrer erklärte die Stunde mit einer langen Geschichte über einen König.
Straße, Größe, Äpfel, Öl und Übung sind deutsche Wörter.
"""


def corpus_lines():
    return [line for line in (ENGLISH + GERMAN).splitlines() if line.strip()]


# ---- training -----------------------------------------------------------------------------------------
def spm_model_bytes(vocab_size=300, ids=None, user_defined=()):
    """A serialised Unigram ModelProto trained on the corpus. ids: dict of unk_id/bos_id/eos_id/pad_id."""
    spm.set_random_generator_seed(17)
    out = io.BytesIO()
    ids = ids or {}
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus_lines()), model_writer=out, model_type='unigram',
        vocab_size=vocab_size, hard_vocab_limit=False, normalization_rule_name='nmt_nfkc',
        character_coverage=1.0, num_threads=1, minloglevel=2,
        user_defined_symbols=list(user_defined), **ids)
    return out.getvalue()


# ---- a small proto2 reader (fields attn's tests need) -------------------------------------------------
def _varint(b, i):
    v, shift = 0, 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def _fields(b):
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = _varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 2:
            n, i = _varint(b, i)
            v, i = b[i:i + n], i + n
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError('wire type %d' % wt)
        yield num, wt, v


def read_spm(model):
    """{'pieces': [(piece, score, type)], 'charsmap': bytes, 'trainer': {field: value}}."""
    pieces, charsmap, trainer = [], b'', {}
    for num, _, v in _fields(model):
        if num == 1:
            piece, score, kind = '', 0.0, 1
            for n, _, x in _fields(v):
                if n == 1:
                    piece = x.decode('utf-8')
                elif n == 2:
                    score = struct.unpack('<f', x)[0]
                elif n == 3:
                    kind = x
            pieces.append((piece, score, kind))
        elif num == 2:
            for n, wt, x in _fields(v):
                if wt == 0:
                    trainer[n] = x
        elif num == 3:
            for n, _, x in _fields(v):
                if n == 2:
                    charsmap = x
    return {'pieces': pieces, 'charsmap': charsmap, 'trainer': trainer}


def _write(path, data):
    with open(path, 'wb' if isinstance(data, bytes) else 'w', encoding=None if isinstance(data, bytes) else 'utf-8') as f:
        f.write(data)


def _json(path, obj):
    _write(path, json.dumps(obj, ensure_ascii=False, indent=2))


# ---- T5 -----------------------------------------------------------------------------------------------
T5_IDS = {'pad_id': 0, 'eos_id': 1, 'unk_id': 2, 'bos_id': -1}


def t5_tokenizer_json(model, extra_ids=100):
    """tokenizer.json as T5Converter writes it for this spiece.model."""
    proto = read_spm(model)
    vocab = [[p, s] for p, s, _ in proto['pieces']]
    vocab += [['<extra_id_%d>' % i, 0.0] for i in range(extra_ids - 1, -1, -1)]
    n = len(vocab)
    unk_id = next(i for i, (_, _, t) in enumerate(proto['pieces']) if t == 2)

    def added(i, content):
        return {'id': i, 'content': content, 'single_word': False, 'lstrip': False, 'rstrip': False,
                'normalized': False, 'special': True}
    specials = [added(i, p) for i, (p, _, t) in enumerate(proto['pieces']) if t in (2, 3)]
    specials += [added(n - 1 - i, '<extra_id_%d>' % i) for i in range(extra_ids - 1, -1, -1)]
    specials.sort(key=lambda a: a['id'])
    eos = next(i for i, (p, _, _) in enumerate(proto['pieces']) if p == '</s>')
    return {
        'version': '1.0',
        'truncation': None,
        'padding': None,
        'added_tokens': specials,
        'normalizer': {'type': 'Sequence', 'normalizers': [
            {'type': 'Precompiled', 'precompiled_charsmap': base64.b64encode(proto['charsmap']).decode('ascii')},
            {'type': 'Strip', 'strip_left': False, 'strip_right': True},
            {'type': 'Replace', 'pattern': {'Regex': ' {2,}'}, 'content': '▁'}]},
        'pre_tokenizer': {'type': 'Metaspace', 'replacement': '▁', 'prepend_scheme': 'always', 'split': True},
        'post_processor': {
            'type': 'TemplateProcessing',
            'single': [{'Sequence': {'id': 'A', 'type_id': 0}}, {'SpecialToken': {'id': '</s>', 'type_id': 0}}],
            'pair': [{'Sequence': {'id': 'A', 'type_id': 0}}, {'SpecialToken': {'id': '</s>', 'type_id': 0}},
                     {'Sequence': {'id': 'B', 'type_id': 0}}, {'SpecialToken': {'id': '</s>', 'type_id': 0}}],
            'special_tokens': {'</s>': {'id': '</s>', 'ids': [eos], 'tokens': ['</s>']}}},
        'decoder': {'type': 'Metaspace', 'replacement': '▁', 'prepend_scheme': 'always', 'split': True},
        'model': {'type': 'Unigram', 'unk_id': unk_id, 'vocab': vocab, 'byte_fallback': False},
    }


def write_t5_tokenizer(dir, extra_ids=100, vocab_size_hint=300, with_json=True):
    """T5 tokenizer files in dir (tokenizer.json unless with_json is False, spiece.model). Returns n_ids."""
    os.makedirs(dir, exist_ok=True)
    model = spm_model_bytes(vocab_size_hint, T5_IDS)
    _write(os.path.join(dir, 'spiece.model'), model)
    tok = t5_tokenizer_json(model, extra_ids)
    if with_json:
        _json(os.path.join(dir, 'tokenizer.json'), tok)
    _json(os.path.join(dir, 'tokenizer_config.json'), {
        'tokenizer_class': 'T5Tokenizer', 'eos_token': '</s>', 'unk_token': '<unk>', 'pad_token': '<pad>',
        'extra_ids': extra_ids, 'model_max_length': 512})
    _json(os.path.join(dir, 'special_tokens_map.json'), {
        'eos_token': '</s>', 'unk_token': '<unk>', 'pad_token': '<pad>',
        'additional_special_tokens': ['<extra_id_%d>' % i for i in range(extra_ids)]})
    return len(tok['model']['vocab'])


# ---- Marian -------------------------------------------------------------------------------------------
def marian_vocab(model, lang_codes=(), drop=()):
    """vocab.json in Marian's order: </s> 0, <unk> 1, the spm's normal pieces, language codes, <pad> last."""
    vocab = {'</s>': 0, '<unk>': 1}
    for piece, _, kind in read_spm(model)['pieces']:
        if kind == 1 and piece not in vocab and piece not in drop:
            vocab[piece] = len(vocab)
    for code in lang_codes:
        vocab[code] = len(vocab)
    vocab['<pad>'] = len(vocab)
    return vocab


def write_marian_tokenizer(dir, vocab_size_hint=300, lang_codes=(), drop=()):
    """Marian tokenizer files in dir. drop: pieces left out of vocab.json (they encode as <unk>). Returns n_ids."""
    os.makedirs(dir, exist_ok=True)
    model = spm_model_bytes(vocab_size_hint)
    _write(os.path.join(dir, 'source.spm'), model)
    _write(os.path.join(dir, 'target.spm'), model)
    vocab = marian_vocab(model, lang_codes, drop)
    _json(os.path.join(dir, 'vocab.json'), vocab)
    _json(os.path.join(dir, 'tokenizer_config.json'), {
        'tokenizer_class': 'MarianTokenizer', 'source_lang': 'en', 'target_lang': 'de', 'separate_vocabs': False,
        'eos_token': '</s>', 'unk_token': '<unk>', 'pad_token': '<pad>', 'model_max_length': 512})
    return len(vocab)


if __name__ == '__main__':
    import sys
    import time
    t = time.time()
    out = sys.argv[1] if len(sys.argv) > 1 else '/tmp/spm_files'
    print('t5', write_t5_tokenizer(os.path.join(out, 't5')), 'marian', write_marian_tokenizer(os.path.join(out, 'marian')),
          '%.2f s' % (time.time() - t))
