"""Trains a tiny Marian (Opus-MT layout) model on a synthetic "English -> toy German" language, for the docs'
alignment figure.

The language: "DET [ADJ] NOUN VERB DET [ADJ] NOUN". Each English word has one made-up target word, except the
verbs, which become two ("sees" -> "ka mira"). Two reorderings make the alignment non-diagonal: the adjective
follows its noun ("the small dog" -> "lo hundo pikla") and the verb goes to the end of the sentence.
  the small dog sees the red ball  ->  lo hundo pikla lo bala roza ka mira

The model is Hugging Face's MarianMTModel written in plain PyTorch (modeling_marian.py): post-norm layers, q
scaled by head_dim^-0.5, static sinusoidal positions (sin half, then cos half, row = position), embeddings
times sqrt(d_model), one shared embedding tied to the output head plus final_logits_bias, decoder start = pad,
swish (SiLU) in the feed-forward. Trained with teacher forcing; greedy decoding bans <pad>, as
generation_config's bad_words_ids does.

The folder is written as convert_marian_to_pytorch writes opus-mt: pytorch_model.bin (state dict under model.,
tied names sharing one storage), config.json, generation_config.json, source.spm, target.spm (one shared
SentencePiece Unigram model), vocab.json (</s> 0, <unk> 1, the pieces, <pad> last), tokenizer_config.json.

  /usr/bin/python3 docs/tools/train_toy_translation.py OUT_DIR                 # train and save
  /usr/bin/python3 docs/tools/train_toy_translation.py OUT_DIR --attn build/attn  # attn's greedy vs PyTorch's
Deterministic (fixed seeds, one thread); under two minutes on one core.
"""
import collections
import io
import json
import math
import os
import random
import struct
import sys
import time

import numpy as np
import sentencepiece as spm
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "seq2seq"))
from spm_files import _fields, marian_vocab, read_spm  # noqa: E402  (proto reader; vocab.json in Marian's order)
from make_seq2seq import sinusoid_table as marian_sinusoids  # noqa: E402  (sin half, then cos half, in float64)

# ---- the synthetic language ---------------------------------------------------------------------------
DETS = {"the": "lo", "a": "un"}
ADJS = {"small": "pikla", "big": "granda", "red": "roza", "green": "verda", "tall": "alta", "happy": "gaja"}
NOUNS = {"dog": "hundo", "cat": "kato", "ball": "bala", "house": "domo", "bird": "birdo", "man": "viro",
         "woman": "virina", "car": "auto"}
VERBS = {"sees": "ka mira", "likes": "ka ama", "chases": "ka casa", "finds": "ka trova", "eats": "ka manja"}
HELD_OUT = 300  # sentences never seen in training, for the accuracy


def noun_phrase(rng):
    det, noun = rng.choice(sorted(DETS)), rng.choice(sorted(NOUNS))
    adj = rng.choice(sorted(ADJS)) if rng.random() < 0.6 else None
    src = [det] + ([adj] if adj else []) + [noun]
    tgt = [DETS[det], NOUNS[noun]] + ([ADJS[adj]] if adj else [])  # adjective after its noun
    return src, tgt


def sentence(rng):
    s1, t1 = noun_phrase(rng)
    s2, t2 = noun_phrase(rng)
    verb = rng.choice(sorted(VERBS))
    return " ".join(s1 + [verb] + s2), " ".join(t1 + t2 + [VERBS[verb]])  # the verb goes last


def translate_by_rule(english):
    words = english.split()
    v = next(i for i, w in enumerate(words) if w in VERBS)

    def np_(ws):
        return [DETS[ws[0]], NOUNS[ws[-1]]] + ([ADJS[ws[1]]] if len(ws) == 3 else [])
    return " ".join(np_(words[:v]) + np_(words[v + 1:]) + VERBS[words[v]].split())


# ---- tokeniser ----------------------------------------------------------------------------------------
def train_spm(lines, vocab_size):
    spm.set_random_generator_seed(17)
    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines), model_writer=out, model_type="unigram", vocab_size=vocab_size,
        hard_vocab_limit=False, normalization_rule_name="nmt_nfkc", character_coverage=1.0, num_threads=1,
        minloglevel=2)
    return out.getvalue()


def _varint_bytes(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def add_word_pieces(model, words):
    """The trained Unigram model with a normal piece "▁word" for each word it lacks, scored as its best piece.

    On a 43-word language sentencepiece 0.1.97's Unigram trainer keeps pieces such as "▁dog" but splits even
    "the" into ▁t h e (at every vocab_size tried, 60 to 150). One piece per word makes the figures readable; the
    added pieces are ordinary NORMAL pieces appended to the model, so every Unigram encoder (sentencepiece,
    attn) picks them by the same Viterbi search.
    """
    proto = read_spm(model)
    have = {p for p, _, _ in proto["pieces"]}
    top = max(sc for _, sc, kind in proto["pieces"] if kind == 1)
    extra = b""
    for w in words:
        if "\u2581" + w not in have:
            piece = ("\u2581" + w).encode("utf-8")
            body = b"\x0a" + _varint_bytes(len(piece)) + piece + b"\x15" + struct.pack("<f", top)
            extra += b"\x0a" + _varint_bytes(len(body)) + body
    head, tail = bytearray(), bytearray()
    for num, wt, v in _fields(model):  # re-emit: the pieces, the new pieces, then the specs
        key = _varint_bytes(num << 3 | wt)
        raw = key + (_varint_bytes(len(v)) + v if wt == 2 else _varint_bytes(v) if wt == 0 else v)
        (head if num == 1 else tail).extend(raw)
    return bytes(head) + extra + bytes(tail)


class Tokeniser:
    """MarianTokenizer's encode: spm pieces looked up in vocab.json (unknown -> <unk>), then </s>."""

    def __init__(self, model_bytes, vocab):
        self.sp = spm.SentencePieceProcessor(model_proto=model_bytes)
        self.vocab, self.inv = vocab, {i: p for p, i in vocab.items()}
        self.eos, self.unk, self.pad = vocab["</s>"], vocab["<unk>"], vocab["<pad>"]

    def encode(self, text):
        return [self.vocab.get(p, self.unk) for p in self.sp.encode(text, out_type=str)] + [self.eos]

    def decode(self, ids):
        pieces = [self.inv[i] for i in ids if i not in (self.eos, self.pad)]
        return self.sp.decode_pieces(pieces)


# ---- the model (modeling_marian.py, eval-mode forward) ------------------------------------------------
def sinusoid_table(n_pos, dim):
    """Marian's static positions (tests/seq2seq/make_seq2seq.py computes them as Hugging Face does)."""
    return torch.from_numpy(marian_sinusoids(n_pos, dim))


class Attention(nn.Module):
    def __init__(self, C, H):
        super().__init__()
        self.H, self.D = H, C // H
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(C, C) for _ in range(4))

    def forward(self, x, kv, bias):
        """x (B, T, C), kv (B, S, C), bias broadcastable to (B, H, T, S) with -inf on hidden keys."""
        B, T, C = x.shape
        S = kv.shape[1]
        q = (self.q_proj(x) * self.D ** -0.5).view(B, T, self.H, self.D).transpose(1, 2)  # (B, H, T, D)
        k = self.k_proj(kv).view(B, S, self.H, self.D).transpose(1, 2)                    # (B, H, S, D)
        v = self.v_proj(kv).view(B, S, self.H, self.D).transpose(1, 2)
        w = torch.softmax(q @ k.transpose(-1, -2) + bias, dim=-1)                          # (B, H, T, S)
        return self.out_proj((w @ v).transpose(1, 2).reshape(B, T, C)), w


class Layer(nn.Module):
    def __init__(self, C, H, Fd, cross):
        super().__init__()
        self.self_attn, self.self_attn_layer_norm = Attention(C, H), nn.LayerNorm(C)
        if cross:
            self.encoder_attn, self.encoder_attn_layer_norm = Attention(C, H), nn.LayerNorm(C)
        self.fc1, self.fc2, self.final_layer_norm = nn.Linear(C, Fd), nn.Linear(Fd, C), nn.LayerNorm(C)

    def forward(self, h, self_bias, enc=None, cross_bias=None):
        h = self.self_attn_layer_norm(h + self.self_attn(h, h, self_bias)[0])  # post-norm
        w = None
        if enc is not None:
            a, w = self.encoder_attn(h, enc, cross_bias)
            h = self.encoder_attn_layer_norm(h + a)
        h = self.final_layer_norm(h + self.fc2(F.silu(self.fc1(h))))
        return h, w


class Stack(nn.Module):
    def __init__(self, C, H, Fd, L, max_pos, cross):
        super().__init__()
        self.embed_positions = nn.Embedding(max_pos, C)
        self.embed_positions.weight.data.copy_(sinusoid_table(max_pos, C))
        self.embed_positions.weight.requires_grad_(False)
        self.layers = nn.ModuleList(Layer(C, H, Fd, cross) for _ in range(L))


class Marian(nn.Module):
    def __init__(self, V, C, H, Fd, L, max_pos, pad):
        super().__init__()
        self.C, self.pad = C, pad
        self.shared = nn.Embedding(V, C, padding_idx=pad)
        nn.init.normal_(self.shared.weight, std=C ** -0.5)
        with torch.no_grad():
            self.shared.weight[pad].zero_()
        self.encoder = Stack(C, H, Fd, L, max_pos, False)
        self.decoder = Stack(C, H, Fd, L, max_pos, True)
        self.final_logits_bias = nn.Parameter(torch.zeros(1, V))

    def embed(self, stack, ids):
        pos = stack.embed_positions.weight[: ids.shape[1]]
        return self.shared(ids) * math.sqrt(self.C) + pos

    def encode(self, src):
        key_bias = torch.zeros(src.shape, dtype=torch.float32).masked_fill(src == self.pad, float("-inf"))
        key_bias = key_bias[:, None, None, :]                                             # (B, 1, 1, S)
        h = self.embed(self.encoder, src)
        for layer in self.encoder.layers:
            h, _ = layer(h, key_bias)
        return h, key_bias

    def decode(self, dec_in, enc, key_bias):
        T = dec_in.shape[1]
        causal = torch.full((T, T), float("-inf")).triu(1)                                 # (T, T)
        h = self.embed(self.decoder, dec_in)
        cross = []
        for layer in self.decoder.layers:
            h, w = layer(h, causal, enc, key_bias)
            cross.append(w)
        return h @ self.shared.weight.T + self.final_logits_bias, cross                   # (B, T, V)

    def state_dict_marian(self):
        """The state dict under Hugging Face's names, the tied embeddings sharing one storage."""
        sd = collections.OrderedDict()
        shared = self.shared.weight.detach().clone().contiguous()
        sd["final_logits_bias"] = self.final_logits_bias.detach().clone()
        sd["model.shared.weight"] = shared
        sd["model.encoder.embed_tokens.weight"] = shared
        sd["model.decoder.embed_tokens.weight"] = shared
        for name, t in self.encoder.state_dict().items():
            sd["model.encoder." + name] = t.detach().clone()
        for name, t in self.decoder.state_dict().items():
            sd["model.decoder." + name] = t.detach().clone()
        sd["lm_head.weight"] = shared
        return sd


@torch.no_grad()
def greedy(model, tok, text, max_length=64):
    """Greedy decoding as generate(num_beams=1) with bad_words_ids [[pad]]: start at pad, stop at </s>."""
    src = torch.tensor([tok.encode(text)])
    enc, kb = model.encode(src)
    out = [tok.pad]
    while len(out) < max_length:
        logits, _ = model.decode(torch.tensor([out]), enc, kb)
        step = logits[0, -1].clone()
        step[tok.pad] = float("-inf")
        if len(out) == max_length - 1:  # forced_eos_token_id
            step[:] = float("-inf")
            step[tok.eos] = 0
        nxt = int(step.argmax())
        out.append(nxt)
        if nxt == tok.eos:
            break
    return out[1:]


def batch(pairs, tok):
    src = [tok.encode(s) for s, _ in pairs]
    tgt = [tok.encode(t) for _, t in pairs]
    S, T = max(map(len, src)), max(map(len, tgt))
    src_t = torch.full((len(pairs), S), tok.pad)
    lab = torch.full((len(pairs), T), -100)
    dec = torch.full((len(pairs), T), tok.pad)
    for i, (s, t) in enumerate(zip(src, tgt)):
        src_t[i, : len(s)] = torch.tensor(s)
        lab[i, : len(t)] = torch.tensor(t)
        dec[i, 1: len(t)] = torch.tensor(t[:-1])  # shift right, decoder start = pad
    return src_t, dec, lab


def main(out, steps=1200, C=64, H=4, Fd=128, L=2, max_pos=64, seed=0):
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    t0, cpu0 = time.time(), time.process_time()

    # 1. held-out sentences, a training pool disjoint from them, one shared spm over both sides
    held, seen = [], set()
    while len(held) < HELD_OUT:
        p = sentence(rng)
        if p[0] not in seen:
            seen.add(p[0])
            held.append(p)
    lines = []
    for _ in range(4000):
        lines.extend(sentence(rng))
    words = sorted({w for line in lines for w in line.split()})
    model_bytes = add_word_pieces(train_spm(lines, vocab_size=100), words)
    vocab = marian_vocab(model_bytes)
    tok = Tokeniser(model_bytes, vocab)
    V, pad = len(vocab), vocab["<pad>"]
    for s, t in held[:3]:
        print("example:", s, "->", t, "| pieces", tok.sp.encode(s, out_type=str), tok.sp.encode(t, out_type=str))
    assert all(tok.unk not in tok.encode(s) + tok.encode(t) for s, t in held), "a word encodes as <unk>"

    # 2. teacher-forced training
    model = Marian(V, C, H, Fd, L, max_pos, pad)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=2e-3, betas=(0.9, 0.98))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 200) * max(0.05, 1 - s / steps))
    model.train()
    for step in range(steps):
        pairs = []
        while len(pairs) < 64:
            p = sentence(rng)
            if p[0] not in seen:
                pairs.append(p)
        src, dec, lab = batch(pairs, tok)
        enc, kb = model.encode(src)
        logits, _ = model.decode(dec, enc, kb)
        loss = F.cross_entropy(logits.reshape(-1, V), lab.reshape(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        with torch.no_grad():
            model.shared.weight[pad].zero_()
        if step % 250 == 0 or step == steps - 1:
            print(f"step {step:5d}  loss {loss.item():.4f}  {time.time() - t0:5.1f} s", flush=True)
    train_s, train_cpu = time.time() - t0, time.process_time() - cpu0

    # 3. greedy accuracy on the held-out sentences
    model.eval()
    right = 0
    for s, t in held:
        hyp = tok.decode(greedy(model, tok, s))
        right += hyp == t
    acc = right / len(held)
    print(f"held-out greedy exact-match accuracy: {right}/{len(held)} = {100 * acc:.1f}%")
    print(f"training time: {train_s:.1f} s wall, {train_cpu:.1f} s CPU (one thread, {steps} steps of 64 sentences)")

    # 4. the folder, as opus-mt ships it
    os.makedirs(out, exist_ok=True)
    torch.save(model.state_dict_marian(), os.path.join(out, "pytorch_model.bin"))
    for name in ("source.spm", "target.spm"):
        with open(os.path.join(out, name), "wb") as f:
            f.write(model_bytes)

    def dump(name, obj):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False, indent=2)
    dump("vocab.json", vocab)
    dump("tokenizer_config.json", {
        "tokenizer_class": "MarianTokenizer", "source_lang": "en", "target_lang": "toy", "separate_vocabs": False,
        "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "<pad>", "model_max_length": 512})
    config = {"model_type": "marian", "architectures": ["MarianMTModel"], "d_model": C, "encoder_layers": L,
              "decoder_layers": L, "encoder_attention_heads": H, "decoder_attention_heads": H, "encoder_ffn_dim": Fd,
              "decoder_ffn_dim": Fd, "activation_function": "swish", "max_position_embeddings": max_pos,
              "vocab_size": V, "decoder_vocab_size": V, "scale_embedding": True, "pad_token_id": pad,
              "eos_token_id": 0, "decoder_start_token_id": pad, "forced_eos_token_id": 0, "is_encoder_decoder": True,
              "share_encoder_decoder_embeddings": True, "tie_word_embeddings": True, "dropout": 0.0,
              "attention_dropout": 0.0, "activation_dropout": 0.0, "init_std": 0.02, "use_cache": True,
              "num_hidden_layers": L, "bad_words_ids": [[pad]], "max_length": 64, "num_beams": 4}
    dump("config.json", config)
    dump("generation_config.json", {"bad_words_ids": [[pad]], "decoder_start_token_id": pad, "eos_token_id": 0,
                                    "forced_eos_token_id": 0, "max_length": 64, "num_beams": 4, "pad_token_id": pad})
    return model, tok, acc


def load(folder):
    """The saved folder back into the PyTorch model and tokeniser (weights_only: no pickled code runs)."""
    with open(os.path.join(folder, "config.json")) as f:
        c = json.load(f)
    with open(os.path.join(folder, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)
    with open(os.path.join(folder, "source.spm"), "rb") as f:
        tok = Tokeniser(f.read(), vocab)
    model = Marian(c["vocab_size"], c["d_model"], c["encoder_attention_heads"], c["encoder_ffn_dim"],
                   c["encoder_layers"], c["max_position_embeddings"], c["pad_token_id"])
    sd = torch.load(os.path.join(folder, "pytorch_model.bin"), map_location="cpu", weights_only=True)
    with torch.no_grad():
        model.shared.weight.copy_(sd["model.shared.weight"])
        model.final_logits_bias.copy_(sd["final_logits_bias"])
        for stack in ("encoder", "decoder"):
            getattr(model, stack).load_state_dict(
                {k[len("model.") + len(stack) + 1:]: v for k, v in sd.items()
                 if k.startswith("model." + stack + ".") and "embed_tokens" not in k})
    return model.eval(), tok


def compare_with_attn(folder, attn, sentences):
    """Greedy translations from the saved folder: this PyTorch forward and `attn show --model`, side by side."""
    import subprocess
    model, tok = load(folder)
    same = 0
    for s in sentences:
        ours = tok.decode(greedy(model, tok, s))
        out = subprocess.run([attn, "show", "--model", folder, s, "--color", "never"], capture_output=True,
                             text=True, check=True).stdout
        theirs = next(line for line in out.splitlines() if line.startswith("translation:"))
        theirs = theirs[len("translation:"):].split("   (greedy")[0].strip()
        same += ours == theirs
        print(f"{s!r}\n  pytorch greedy: {ours!r}\n  attn greedy:    {theirs!r}  {'same' if ours == theirs else 'DIFFERENT'}"
              f"  (rule: {translate_by_rule(s)!r})")
    print(f"attn and PyTorch agree on {same}/{len(sentences)} sentences")
    return same == len(sentences)


if __name__ == "__main__":
    import argparse
    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("out", nargs="?", default="toy", help="the model folder to write (or, with --attn, to read)")
    a.add_argument("--attn", help="only compare: the attn binary whose greedy translations are checked")
    a.add_argument("--compare", type=int, default=20, help="with --attn: how many held-out sentences (seed 1)")
    a.add_argument("sentences", nargs="*", default=["the small dog sees the red ball"])
    args = a.parse_intermixed_args()
    if args.attn:
        r = random.Random(1)
        extra = [sentence(r)[0] for _ in range(args.compare)]
        sys.exit(0 if compare_with_attn(args.out, args.attn, args.sentences + extra) else 1)
    model, tok, _ = main(args.out)
    for s in args.sentences:
        ids = greedy(model, tok, s)
        print(f"pytorch greedy: {s!r} -> {tok.decode(ids)!r}  ids {ids}  (rule: {translate_by_rule(s)!r})")
