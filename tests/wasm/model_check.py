#!/usr/bin/python3
"""Model folders in the page's WebAssembly core, against the native binary. Writes one small folder per
family attn runs (GPT-2; Llama 3 with grouped heads and its Split regex; Qwen2 with NFC; Mistral's
sentencepiece-style tokeniser; BERT with WordPiece; RoBERTa; T5 with SentencePiece Unigram; BART) and
hostile ones (a cut safetensors file, a config with a wrong field, a pytorch_model.bin cut short or with a
storage's byte changed; two Llama folders whose Split regex the page refuses by name), then runs
tests/wasm/model_check.js, which loads each folder's files into the module as the page does and compares
window.attn.run's JSON with `attn show --model DIR TEXT --json -`.

Usage: model_check.py NODE ATTN_CORE_JS ATTN"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
for sub in ("gpt2", "llama", "encoder", "seq2seq"):
    sys.path.insert(0, os.path.join(HERE, "..", sub))
import make_checkpoint  # noqa: E402
import make_encoder  # noqa: E402
import make_llama  # noqa: E402
import make_seq2seq  # noqa: E402


def folders(root):
    made = []

    def at(name):
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        made.append(d)
        return d

    make_checkpoint.make(at("gpt2"), layers=2, heads=2, embd=8)
    make_llama.make(at("llama"), family="llama", heads=4, kv_heads=2)
    make_llama.make(at("qwen2"), family="qwen2", heads=4, kv_heads=2)
    make_llama.make(at("mistral"), family="mistral", heads=4, kv_heads=1, sliding_window=4)
    make_encoder.make(at("bert"), family="bert")
    make_encoder.make(at("roberta"), family="roberta")
    make_seq2seq.make(at("t5"), variant="t5")
    make_seq2seq.make(at("bart"), variant="bart")
    # hostile: cut weights, a wrong config field, only pytorch_model.bin
    cut = at("cut")
    make_checkpoint.make(cut, layers=1, heads=2, embd=8)
    with open(os.path.join(cut, "model.safetensors"), "r+b") as f:
        f.truncate(os.path.getsize(os.path.join(cut, "model.safetensors")) - 7)
    wrong = at("wrongconfig")
    make_checkpoint.make(wrong, layers=1, heads=2, embd=8)
    cfg = json.load(open(os.path.join(wrong, "config.json")))
    cfg["n_head"] = 3
    json.dump(cfg, open(os.path.join(wrong, "config.json"), "w"))
    make_seq2seq.make(at("t5bin"), variant="t5-bin")
    # pytorch_model.bin damaged: cut short, and one byte of a storage changed (its CRC-32 no longer matches)
    for name, damage in (("cutbin", "cut"), ("crcbin", "crc")):
        d = at(name)
        make_seq2seq.make(d, variant="t5-bin")
        path = os.path.join(d, "pytorch_model.bin")
        data = bytearray(open(path, "rb").read())
        if damage == "cut":
            data = data[: len(data) // 2]
        else:
            at_ = data.find(b"/data/0")  # the first storage's name in its local header: its bytes follow (aligned to 64)
            data[at_ + 200] ^= 0xFF
        open(path, "wb").write(bytes(data))
    # Split regexes the page refuses by name though PCRE2 runs (or refuses) them
    for name, regex in (("rx-caseless-x", r"(?i:\x41)| ?\p{L}+|\s+"), ("rx-surrogate", r"[\x{D800}]| ?\p{L}+|\s+"),
                        ("rx-behind-backref", r"(?<=(k)\1) | ?\p{L}+|\s+"), ("rx-behind-varying", r"(?<=a+)b| ?\p{L}+|\s+")):
        d = at(name)
        make_llama.make(d, family="llama", layers=1, heads=2, kv_heads=1, hidden=8, inner=8)
        tj = json.load(open(os.path.join(d, "tokenizer.json"), encoding="utf-8"))
        tj["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {"Regex": regex}
        json.dump(tj, open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
    return made


def main():
    node, core, attn = sys.argv[1:4]
    with tempfile.TemporaryDirectory(prefix="attn-wasm-models-") as root:
        dirs = folders(root)
        r = subprocess.run([node, os.path.join(HERE, "model_check.js"), core, attn] + dirs)
        sys.exit(r.returncode)


if __name__ == "__main__":
    main()
