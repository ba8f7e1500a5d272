#!/usr/bin/python3
"""Hostile model folders in the page's WebAssembly core, against the native binary: tokenizer.json files
with edited Split / Replace regexes, normalisers on tricky Unicode, damaged folders and odd loader calls,
and a run past the page's memory budget. Writes the folders and a list of cases, then runs
tests/wasm/hostile_models.js, which prints one line per case (ok / FINDING) and exits 1 on any finding.

Usage: hostile_models.py NODE ATTN_CORE_JS ATTN [--keep DIR]
  e.g. tests/wasm/hostile_models.py node build/wasm/attn_core.js build/attn   (about 2 minutes on 2 cores)
  HOSTILE_ONLY=REGEX runs only the matching tokenizer cases, HOSTILE_LOADER=1 skips them, HOSTILE_HUGE=1
  adds a 3 GiB model.safetensors (written sparse; node then holds 3 GiB).
It exits 1 while any finding stands, so it is not part of ctest.

The rule checked for every tokenizer case: the page gives the same tokens and ids as native attn, or the
same error as native, or refuses by name (an input error naming tokenizer.json); never other tokens.
Findings are listed at the end of hostile_models.js's header comment."""
import copy
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

# Texts every tokenizer case is run on (ASCII, accents NFC and NFD, CJK, emoji with ZWJ, RTL, combining
# marks, NEL, NBSP, BOM, LINE SEPARATOR, tabs and newlines, other digits and spaces, case-folding traps).
TEXTS = [
    "the cat's mat, it's 12345 {x} [a-b] a/b a-b a_b",
    "caf\u00e9 cafe\u0301 \u00c5ngstr\u00f6m A\u030a x\u0308\u0301",
    "\u6771\u4eac\u90fd \u4f60\u597d\u3002\u3053\u3093\u306b\u3061\u306f \ud55c\uad6d\uc5b4",
    "\U0001F469\u200d\U0001F469\u200d\U0001F467 \U0001F44D\U0001F3FD \U0001F1EB\U0001F1F7 x",
    "\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd \u0645\u0631\u062d\u0628\u0627 \u200f\u0661\u0662\u0663",
    "a\u0085b\u00a0c\ufeffd\u2028e\u2029f\u180eg\u200bh\u3000i\u000bj\u000ck",
    "a\tb\n\nc\r\nd \n e  \t\n",
    "K\u212a k \u017f S s \u00df SS \u0130 i \u0131 I \u03a3\u03c3\u03c2 \ufb01 \u1e9e",
    "\uff13\uff14 \u0663\u0664 \u0b67 \u2163 \u00bd \u00b2 Ab_C9",
    "end\n",
    # letters, digits, punctuation and compositions newer than PCRE2 10.42's Unicode 14 and utf8proc 2.8's 15.0
    "\U00031350\U00011F04\U0001E4D0 \u0cf3 \U0001FAE8 \U0001E4F0\U00011F50 \u1c89\u1c8a \U000105D2\u0307 a\U0001E5FFb \u0915\u094d\u0937",
    "the tea, the cat. $1 $& $$ a.b (t) \\ end",
]
# Grapheme clusters that Unicode 15.1 joined (Indic conjuncts), NFKC across a cluster (halfwidth kana with
# its sound mark, Thai SARA AM, e + acute), Hangul jamo, flags and ZWJ sequences: for the charsmaps.
GRAPHEMES = ["\u0915\u094d\u0937 \u0915\u093c\u094d\u0937 \u0915\u094d\u200d\u0937 \u0995\u09cd\u09b7",
             "\uff8a\uff9f \uff76\uff9e \u0e01\u0e33 e\u0301\u0301 \u1100\u1161\u11a8 \U0001F1EB\U0001F1F7\U0001F1E9",
             "\u00e9\u0301 \u2460\u0301 \ufb01\u0301 \u3300 \U0001F469\U0001F3FD\u200d\U0001F4BB a\u200db"]
LONG = ("The quick brown fox, caf\u00e9 \u6771\u4eac \U0001F600 jumps 12345 over\tthe lazy dog.\n" * 6)

# Split regexes (tokenizer.json pre_tokenizer Split, behavior Isolated) tried on the Llama folder.
SPLITS = [
    r"\s+", r"\S+", r"\d", r"\d+", r"\w+", r"\W+", r"\p{L}+", r"\P{L}+", r"\p{Han}+", r"\p{Lu}\p{Ll}*",
    r"\p{Nd}+", r"\p{Zs}", r"\p{M}+", r"[\x{4E00}-\x{9FFF}]+", r"\x41", r"\x{1F600}", r"(?i:the)", r"(?i:k)",
    r"(?i:s)", r"(?i:ss)", r"(?i:\x{212A})", r"(?i:[a-c]+)", r"(?i)the", r".", r".+", r"(?s).", r"\N", r"$", r"\w+$",
    r"^\w+", r"(?m)^\w+", r"\A\w+", r"\w+\z", r"\w+\Z", r"\p{N}{1,3}", r"\w{2,}", r"x{,3}", r"{", r"a{", r"}",
    r"\{\w\}", r"{x}", r"[a-]+", r"[-a]+", r"[]a]+", r"[^]a]+", r"[[]+", r"[a[]+", r"[\]]", r"[\w-]+", r"[\w-.]+",
    r"[^\s\w]+", r"[[:alpha:]]+", r"[[:^digit:]]+", r"\'s", r"\-", r"\/", r"\_", r"\e", r"\a", r"\cA",
    r"\o{101}", r"\101", r"\h+", r"\v+", r"\R", r"\H+", r"\V+", r"\X", r"\C", r"\K", r"\G", r"\b\w", r"\B",
    r"\s+(?!\S)", r"(?<=a)b", r"(?<!\d)\d{2}", r"(?<=a+)b", r"(?=\p{L})\w", r"a|", r"|a", r"(a|)b", r"(|t)h",
    r"(?:)", r"(", r"a**", r"[z-a]", r"\p{Foo}", r"\y", r"a++", r"(?>a+)", r"(a)\1", r"(?<n>t)\k<n>",
    r"(?x) t h e", r"(?|(a)|(b))", r"\Qa.b\E", r"(?#c)t", r"\p{Greek}+", r"\p{Arabic}+", r"\p{Cf}", r"\p{Co}",
    r"\p{L&}+", r"\p{Xan}+", r"\p{Xwd}+", r"\p{Xsp}", r"\p{Any}", r"[\p{L}--a]", r"[\d\D]", r"[^\d]+", r"[\s\S]",
    r"\u0041", r"\x{FFFF}", r"[\x{D800}]", r"\x{dfff}", r"\x{110000}", r"\uD83D", r"\ud83d\ude00", r"(?U)\w+", r"\w+?",
    r"(?i:[^a])", r"(?i:\w)", r"(?i:\p{Lu})", r"[\s\p{L}]+", r"\p{Script=Latin}+", r"\p{sc=Han}", r"\p{gc=Lu}",
]
REPLACES = [r"\s+", r"\s", r"\p{M}", r"[^\x{0}-\x{7F}]", r"(?i:a)", r".", r"$", r"\d", r"\x{FEFF}", r"[\[\]]"]


# (pattern, content) of a Replace normaliser: the content is literal (no $1, $&, $$ expansion); a String
# pattern is literal text.
REPLACE_CONTENTS = [({"Regex": "(t)"}, "$1$&$$"), ({"String": "."}, "$&"), ({"String": "("}, "x"),
                    ({"String": "$"}, "\u0120"), ({"Regex": "e"}, "$'"), ({"String": "the"}, "$`")]


# Classes probed by a Split regex (?<=CLASS)" ": a space after a character of the class is its own piece,
# so "X cat" gives "·", "cat" when the engine puts X in the class and "·cat" when not (a Split that
# isolates X itself shows nothing: byte-level BPE gives X's bytes either way; native attn refuses the
# Removed behaviour and Replace with a regex).
PROBED = [r"\p{L}", r"\p{Lu}", r"\p{Ll}", r"\p{N}", r"\d", r"\w", r"\W", r"\s", r"\S", r"\p{P}", r"\p{M}", r"\p{Han}",
          r"(?i:k)", r"(?i:s)", r"(?i:\x{1C8A})", r"(?i:\x{DF})", r".", r"[^\s\p{L}\p{N}]", r"\p{Cn}", r"\p{Co}", r"\p{Cf}",
          r"\p{Zs}", r"\p{So}", r"\p{Latin}", r"[\w]", r"[^\w]", r"[\s]", r"[^\S]", r"[^\d]", r"\P{L}",
          r"(?i:\x41)", r"(?i:\x{212A})", r"(?i:\x{3A3})", r"(?i:\x{1E9E})",
          r"(?i:\p{Lu})", r"(?i:\p{Ll})", r"(?i:(k)\1)"]
PROBES = ("\U00031350 \U00011F04 \U0001E4D0 \u0cf3 \U0001E4F0 \U00011F50 \u1c89 \u1c8a \U0001E5FF \u0085 \u00a0 \ufeff "
          "\u2028 \u180e \u200b \u3000 \u000b \u000c _ \u203f \u0301 \u00b2 \u2163 \u0663 \uff13 \u212a \u017f \u0130 \u0131 "
          "\u1e9e \u00df 1 a A K k S s \u4e2d \U0001F600 \ue000 \U0010FFFD \u0378 \u00ad \u200d \u05d0 \u0627 \u2e5e \U0001FAE8").split(" ")
PROBE_TEXT = "".join(x + " cat " for x in PROBES)


def llama_with(base_tj, split=None, replace=None, content="\u0120x", behavior="Isolated"):
    tj = copy.deepcopy(base_tj)
    if split is not None:
        tj["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {"Regex": split}
        tj["pre_tokenizer"]["pretokenizers"][0]["behavior"] = behavior
    if replace is not None:
        tj["normalizer"] = {"type": "Sequence", "normalizers": [
            {"type": "NFC"}, {"type": "Replace", "pattern": replace if isinstance(replace, dict) else {"Regex": replace},
                              "content": content}]}
    return tj


def main():
    node, core, attn = sys.argv[1:4]
    keep = sys.argv[sys.argv.index("--keep") + 1] if "--keep" in sys.argv else None
    tmp = None if keep else tempfile.TemporaryDirectory(prefix="attn-hostile-")
    root = keep or tmp.name
    os.makedirs(root, exist_ok=True)
    cases = []

    def at(name):
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        return d

    base = at("llama")
    make_llama.make(base, family="llama", layers=1, heads=2, kv_heads=1, hidden=8, inner=8, positions=4096)
    base_tj = json.load(open(os.path.join(base, "tokenizer.json"), encoding="utf-8"))
    other = {f: os.path.join(base, f) for f in os.listdir(base) if f != "tokenizer.json"}

    def tok_case(label, tj, texts, probes=None):
        name = "t%03d" % len(cases)
        with open(os.path.join(root, name + ".tokenizer.json"), "w", encoding="utf-8") as f:
            json.dump(tj, f, ensure_ascii=False)
        d = at(name)
        for f, p in other.items():
            if not os.path.exists(os.path.join(d, f)):
                os.symlink(p, os.path.join(d, f))
        os.replace(os.path.join(root, name + ".tokenizer.json"), os.path.join(d, "tokenizer.json"))
        cases.append({"kind": "tok", "label": label, "dir": d, "texts": texts, "probes": probes})

    tok_case("llama3 split (unchanged)", base_tj, TEXTS + [LONG])
    for s in SPLITS:
        tok_case("Split " + s, llama_with(base_tj, split=s), TEXTS)
    for r in PROBED:
        tok_case("Split (?<=%s) on 'X cat' for %d tricky X" % (r, len(PROBES)), llama_with(base_tj, split="(?<=%s) " % r), [PROBE_TEXT], PROBES)
    for r in REPLACES:
        tok_case("Replace " + r, llama_with(base_tj, replace=r), TEXTS)
    for pat, content in REPLACE_CONTENTS:
        tok_case("Replace %s by %s" % (json.dumps(pat), json.dumps(content)), llama_with(base_tj, replace=pat, content=content), TEXTS[-1:])
    # normalisers of the other families on the same texts
    for fam, maker in (("qwen2", lambda d: make_llama.make(d, family="qwen2", layers=1, heads=2, kv_heads=1, hidden=8, inner=8, positions=4096)),
                       ("mistral", lambda d: make_llama.make(d, family="mistral", layers=1, heads=2, kv_heads=1, hidden=8, inner=8, positions=4096, sliding_window=8)),
                       ("bert", lambda d: make_encoder.make(d, family="bert", layers=1, positions=512)),
                       ("roberta", lambda d: make_encoder.make(d, family="roberta", layers=1, positions=512)),
                       ("t5", lambda d: make_seq2seq.make(d, variant="t5")),
                       ("bart", lambda d: make_seq2seq.make(d, variant="bart")),
                       ("t5v11", lambda d: make_seq2seq.make(d, variant="t5v11")),
                       ("marian", lambda d: make_seq2seq.make(d, variant="marian", weights="safetensors")),
                       ("distilbert", lambda d: make_encoder.make(d, family="distilbert", layers=1, positions=512))):
        d = at(fam)
        maker(d)
        cases.append({"kind": "tok", "label": fam + " as made", "dir": d, "texts": TEXTS + GRAPHEMES})
    # T5's Unigram runs a Replace normaliser with a regex (content literal, empty matches skipped)
    t5_tj = json.load(open(os.path.join(root, "t5", "tokenizer.json"), encoding="utf-8"))
    for r in (r"\s+", r"$", r"x*", r"\p{L}", r"\d", r"(?<=\s)t", r"\w+\z", r"[^\s\p{L}]"):
        tj = copy.deepcopy(t5_tj)
        tj["normalizer"]["normalizers"].append({"type": "Replace", "pattern": {"Regex": r}, "content": " the "})
        d = at("u%03d" % len(cases))
        for f in os.listdir(os.path.join(root, "t5")):
            if f != "tokenizer.json":
                os.symlink(os.path.join(root, "t5", f), os.path.join(d, f))
        json.dump(tj, open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
        cases.append({"kind": "tok", "label": "t5 Replace " + r + " by ' the '", "dir": d, "texts": TEXTS + [PROBE_TEXT]})
    # BERT without lowercase, with strip_accents true, without chinese chars
    bert_tj = json.load(open(os.path.join(root, "bert", "tokenizer.json"), encoding="utf-8"))
    for label, edit in (("bert lowercase false", {"lowercase": False}), ("bert strip_accents true", {"strip_accents": True}),
                        ("bert chinese false clean false", {"handle_chinese_chars": False, "clean_text": False})):
        tj = copy.deepcopy(bert_tj)
        tj["normalizer"].update(edit)
        d = at("b%03d" % len(cases))
        for f in os.listdir(os.path.join(root, "bert")):
            if f != "tokenizer.json":
                os.symlink(os.path.join(root, "bert", f), os.path.join(d, f))
        json.dump(tj, open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8"), ensure_ascii=False)
        cases.append({"kind": "tok", "label": label, "dir": d, "texts": TEXTS})

    # loader folders
    g = at("gpt2")
    make_checkpoint.make(g, layers=1, heads=2, embd=8)
    big = at("big")  # a GPT-2 config whose run needs more than 2 GiB (weights are tiny; the config is checked first)
    make_checkpoint.make(big, layers=4, heads=8, embd=16, positions=4096)
    sharded = at("sharded")
    make_llama.make(sharded, family="llama", layers=2, heads=2, kv_heads=1, hidden=8, inner=8, shards=2)
    with open(os.path.join(root, "cases.json"), "w", encoding="utf-8") as f:
        json.dump({"cases": cases, "good": g, "llama": base, "sharded": sharded}, f, ensure_ascii=False)
    r = subprocess.run([node, os.path.join(HERE, "hostile_models.js"), core, attn, os.path.join(root, "cases.json")])
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
