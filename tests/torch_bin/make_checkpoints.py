#!/usr/bin/python3
"""PyTorch checkpoints (pytorch_model.bin) for attn's weights-only reader, written by torch.save itself
(PyTorch 1.13), and hostile or broken files written as raw bytes (never unpickled here).

Usage: make_checkpoints.py DIR   writes DIR/good/*.bin and DIR/bad/*.bin; DIR/bad/expected.json maps each
bad file to a piece of the one-line error attn must give.
As a module: make(dir) returns (good file names, {bad file name: expected error piece})."""
import collections
import io
import json
import os
import struct
import sys
import zipfile

import torch


# ---- state dicts shaped like Hugging Face's ----------------------------------------------------------
class BertLike(torch.nn.Module):
    """Names like bert.encoder.layer.3.attention.self.query.weight; a decoder tied to the embedding."""

    def __init__(self, layers=64, hidden=8, inner=16, vocab=40, positions=20):
        super().__init__()
        e = torch.nn.Module()
        e.word_embeddings = torch.nn.Embedding(vocab, hidden)
        e.position_embeddings = torch.nn.Embedding(positions, hidden)
        e.token_type_embeddings = torch.nn.Embedding(2, hidden)
        e.LayerNorm = torch.nn.LayerNorm(hidden)
        e.register_buffer("position_ids", torch.arange(positions).expand((1, -1)))  # int64, stride (0, 1)
        layer = []
        for _ in range(layers):
            m = torch.nn.Module()
            m.attention = torch.nn.Module()
            m.attention.self = torch.nn.Module()
            for n in ("query", "key", "value"):
                setattr(m.attention.self, n, torch.nn.Linear(hidden, hidden))
            m.attention.output = torch.nn.Module()
            m.attention.output.dense = torch.nn.Linear(hidden, hidden)
            m.attention.output.LayerNorm = torch.nn.LayerNorm(hidden)
            m.intermediate = torch.nn.Module()
            m.intermediate.dense = torch.nn.Linear(hidden, inner)
            m.output = torch.nn.Module()
            m.output.dense = torch.nn.Linear(inner, hidden)
            m.output.LayerNorm = torch.nn.LayerNorm(hidden)
            layer.append(m)
        self.bert = torch.nn.Module()
        self.bert.embeddings = e
        self.bert.encoder = torch.nn.Module()
        self.bert.encoder.layer = torch.nn.ModuleList(layer)
        self.cls = torch.nn.Module()
        self.cls.predictions = torch.nn.Module()
        self.cls.predictions.decoder = torch.nn.Linear(hidden, vocab)
        self.cls.predictions.decoder.weight = e.word_embeddings.weight  # tied: one storage, two names


def bert_state_dict(dtype):
    torch.manual_seed(0)
    m = BertLike()
    for p in m.parameters():  # LayerNorm's ones and zeros would hide a misplaced byte
        torch.nn.init.normal_(p)
    m = m.to(dtype)
    sd = m.state_dict()
    w = sd["bert.encoder.layer.3.intermediate.dense.weight"]  # (16, 8)
    sd["extra.transposed"] = w.t()                   # strides (1, 8)
    sd["extra.sliced"] = w[2:7, 1::3]                # storage offset 17, strides (8, 3)
    sd["extra.cube"] = w.reshape(4, 4, 8)[:, 1:, ::2]  # rank 3 (TUPLE3), offset 8
    sd["extra.rank5"] = w.reshape(2, 2, 2, 2, 8).permute(4, 3, 2, 1, 0)  # rank 5 (TUPLE with MARK)
    sd["extra.scalar"] = w[5, 5]                     # rank 0 (EMPTY_TUPLE), offset 45
    sd["extra.empty"] = w[:0]                        # no elements
    return sd


def save(obj, path, zip_format=True, buffer=False):
    if buffer:  # to io.BytesIO (the zip's top folder is then 'archive'), then written out
        b = io.BytesIO()
        torch.save(obj, b, _use_new_zipfile_serialization=zip_format)
        with open(path, "wb") as f:
            f.write(b.getvalue())
    else:
        torch.save(obj, path, _use_new_zipfile_serialization=zip_format)


def deflated(src, dst):
    """The same zip with every entry deflated (torch.save stores them; a re-zipped file may not)."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for i in zin.infolist():
            zout.writestr(i.filename, zin.read(i.filename))


# ---- raw pickles in torch's form, for the broken and hostile files -----------------------------------
def binunicode(s):
    b = s.encode()
    return b"X" + struct.pack("<I", len(b)) + b


def binint(v):
    return b"J" + struct.pack("<i", v) if v < 2**31 else b"\x8a\x08" + struct.pack("<q", v)


def tup(items):
    return b"(" + b"".join(items) + b"t"


def state_dict_pickle(entries, legacy=False):
    """entries: (name, storage type, key, numel, offset, size, stride), as torch.save writes them
    (protocol 2, without the memo; the legacy persistent id has a sixth element, None)."""
    out = b"\x80\x02" + b"ccollections\nOrderedDict\n)R("
    for name, stype, key, numel, offset, size, stride in entries:
        pid = tup([binunicode("storage"), b"ctorch\n" + stype.encode() + b"\n", binunicode(key), binunicode("cpu"), binint(numel)]
                  + ([b"N"] if legacy else []))
        args = [pid + b"Q", binint(offset), tup([binint(s) for s in size]), tup([binint(s) for s in stride]), b"\x89",
                b"ccollections\nOrderedDict\n)R"]
        out += binunicode(name) + b"ctorch._utils\n_rebuild_tensor_v2\n" + tup(args) + b"R"
    return out + b"u."


def zip_file(path, pickle, storages, folder="archive", with_pkl=True):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        if with_pkl:
            z.writestr(folder + "/data.pkl", pickle)
        for key, data in storages.items():
            z.writestr(folder + "/data/" + key, data)
        z.writestr(folder + "/version", "3\n")


LEGACY_MAGIC = b"\x80\x02\x8a\x0a" + (0x1950a86a20f9469cfc6c).to_bytes(10, "little") + b"."
LEGACY_PROTOCOL = b"\x80\x02M\xe9\x03."
LEGACY_SYS_INFO = (b"\x80\x02}(" + binunicode("protocol_version") + b"M\xe9\x03" + binunicode("little_endian") + b"\x88"
                   + binunicode("type_sizes") + b"}(" + binunicode("short") + b"K\x02" + binunicode("int") + b"K\x04"
                   + binunicode("long") + b"K\x04uu.")


def legacy_file(path, pickle, storages, magic=LEGACY_MAGIC):
    keys = b"\x80\x02](" + b"".join(binunicode(k) for k in storages) + b"e."
    body = b"".join(struct.pack("<q", n) + data for n, data in storages.values())
    with open(path, "wb") as f:
        f.write(magic + LEGACY_PROTOCOL + LEGACY_SYS_INFO + pickle + keys + body)


def hostile(path, pickle):
    """A zip holding a data.pkl that is not a state dict (written as bytes; never unpickled)."""
    zip_file(path, pickle, {})


NEVER_RUN = "attn never runs code from a checkpoint"


def make(out):
    good_dir, bad_dir = os.path.join(out, "good"), os.path.join(out, "bad")
    os.makedirs(good_dir, exist_ok=True)
    os.makedirs(bad_dir, exist_ok=True)
    good = []
    # 1. torch.save itself: F32, F16, BF16; zip and legacy; to a path and to a buffer
    for dtype, dname in ((torch.float32, "f32"), (torch.float16, "f16"), (torch.bfloat16, "bf16")):
        sd = bert_state_dict(dtype)
        for zip_format, fname in ((True, "zip"), (False, "legacy")):
            for buffer in (False, True):
                name = f"bert-{dname}-{fname}-{'buffer' if buffer else 'path'}.bin"
                save(sd, os.path.join(good_dir, name), zip_format, buffer)
                good.append(name)
    deflated(os.path.join(good_dir, "bert-f32-zip-path.bin"), os.path.join(good_dir, "bert-f32-zip-deflated.bin"))
    good.append("bert-f32-zip-deflated.bin")
    torch.manual_seed(1)
    save(collections.OrderedDict(p=torch.nn.Parameter(torch.randn(3, 2))), os.path.join(good_dir, "parameter.bin"))  # _rebuild_parameter
    good.append("parameter.bin")
    # buffers of every real, integer and bool dtype, as GPT-2 state dicts of transformers 4.x hold its causal
    # mask h.N.attn.bias (uint8, later bool) beside the float32 weights; zip and legacy
    mask = torch.tril(torch.ones(5, 5)).view(1, 1, 5, 5)
    buffers = collections.OrderedDict([
        ("h.0.attn.c_attn.weight", torch.randn(4, 12)),
        ("h.0.attn.bias", mask.to(torch.uint8)), ("h.1.attn.bias", mask.to(torch.bool)),
        ("h.0.attn.masked_bias", torch.tensor(-1e4)),
        ("f64", torch.randn(3, 2, dtype=torch.float64)), ("i32", torch.arange(-3, 3, dtype=torch.int32)),
        ("i16", torch.arange(-3, 3, dtype=torch.int16)), ("i8", torch.arange(-3, 3, dtype=torch.int8)),
        ("u8-sliced", torch.arange(250, 256, dtype=torch.uint8)[1::2]), ("i64", torch.arange(4))])
    for zip_format, fname in ((True, "zip"), (False, "legacy")):
        save(buffers, os.path.join(good_dir, f"buffers-{fname}.bin"), zip_format)
        good.append(f"buffers-{fname}.bin")
    # 2. hostile and broken files, each with a piece of the error attn must give
    bad = {}
    run = b"\x80\x02cos\nsystem\n" + binunicode("touch " + os.path.join(out, "PWNED")) + b"\x85R."
    hostile(os.path.join(bad_dir, "os-system.bin"), run)
    bad["os-system.bin"] = "the pickle calls os.system, which no state dict holds; " + NEVER_RUN
    hostile(os.path.join(bad_dir, "posix-system.bin"), run.replace(b"cos\n", b"cposix\n"))
    bad["posix-system.bin"] = "the pickle calls posix.system"
    hostile(os.path.join(bad_dir, "subprocess.bin"), b"\x80\x02csubprocess\ncheck_output\n" + binunicode("id") + b"\x85\x85R.")
    bad["subprocess.bin"] = "the pickle calls subprocess.check_output"
    hostile(os.path.join(bad_dir, "eval.bin"), b"\x80\x02c__builtin__\neval\n" + binunicode("1+1") + b"\x85R.")
    bad["eval.bin"] = "the pickle calls __builtin__.eval"
    hostile(os.path.join(bad_dir, "builtins-eval.bin"), b"\x80\x02cbuiltins\neval\n" + binunicode("1+1") + b"\x85R.")
    bad["builtins-eval.bin"] = "the pickle calls builtins.eval"
    hostile(os.path.join(bad_dir, "stack-global.bin"), b"\x80\x02" + binunicode("os") + binunicode("system") + b"\x93.")
    bad["stack-global.bin"] = "the pickle uses opcode STACK_GLOBAL at byte 20, which no state dict holds; " + NEVER_RUN
    hostile(os.path.join(bad_dir, "inst.bin"), b"\x80\x02(" + binunicode("id") + b"ios\nsystem\n.")
    bad["inst.bin"] = "the pickle uses opcode INST"
    hostile(os.path.join(bad_dir, "protocol4.bin"), b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00}.")
    bad["protocol4.bin"] = "uses pickle protocol 4; torch.save writes protocol 2"
    save(collections.OrderedDict(w=torch.zeros(2, dtype=torch.complex64)), os.path.join(bad_dir, "complex.bin"))
    bad["complex.bin"] = "the checkpoint holds a torch.ComplexFloatStorage, which attn does not read"
    save(collections.OrderedDict(p=torch.arange(4).expand(3, -1)), os.path.join(bad_dir, "broadcast.bin"))
    bad["broadcast.bin"] = "tensor 'p' has 12 elements, more than its storage '0' holds (4)"
    w = struct.pack("<6f", *range(6))
    ok = [("w", "FloatStorage", "0", 6, 0, [2, 3], [3, 1])]
    zip_file(os.path.join(bad_dir, "truncated.bin"), state_dict_pickle(ok), {"0": w[:20]})
    bad["truncated.bin"] = "storage '0' holds 20 bytes but its 6 F32 elements need 24"
    zip_file(os.path.join(bad_dir, "offset.bin"), state_dict_pickle([("w", "FloatStorage", "0", 6, 1, [2, 3], [3, 1])]), {"0": w})
    bad["offset.bin"] = "tensor 'w' reads element 6 of storage '0', which holds 6"
    zip_file(os.path.join(bad_dir, "stride.bin"), state_dict_pickle([("w", "FloatStorage", "0", 6, 0, [2**40, 2**40], [1, 1])]), {"0": w})
    bad["stride.bin"] = "tensor 'w' is impossibly large"
    zip_file(os.path.join(bad_dir, "missing-storage.bin"), state_dict_pickle(ok), {})
    bad["missing-storage.bin"] = "storage '0' is missing (no 'archive/data/0' in the zip)"
    zip_file(os.path.join(bad_dir, "no-data-pkl.bin"), b"", {"0": w}, with_pkl=False)
    bad["no-data-pkl.bin"] = "the zip holds no <folder>/data.pkl: not a PyTorch checkpoint"
    legacy_file(os.path.join(bad_dir, "legacy-magic.bin"), state_dict_pickle(ok, True), {"0": (6, w)},
                magic=b"\x80\x02\x8a\x0a" + (0x1950a86a20f9469cfc6d).to_bytes(10, "little") + b".")
    bad["legacy-magic.bin"] = "not a PyTorch checkpoint: the first pickle is not torch's magic number 0x1950a86a20f9469cfc6c"
    legacy_file(os.path.join(bad_dir, "legacy-truncated.bin"), state_dict_pickle(ok, True), {"0": (6, w[:20])})
    bad["legacy-truncated.bin"] = "storage '0' needs 24 bytes but the file has 20 left"
    # the controls, written by the same code as the broken files: torch.load and attn both read them
    legacy_file(os.path.join(good_dir, "hand-legacy.bin"), state_dict_pickle(ok, True), {"0": (6, w)})
    zip_file(os.path.join(good_dir, "hand-zip.bin"), state_dict_pickle(ok), {"0": w})
    good += ["hand-legacy.bin", "hand-zip.bin"]
    with open(os.path.join(bad_dir, "expected.json"), "w") as f:
        json.dump(bad, f, indent=1)
    return good, bad


if __name__ == "__main__":
    make(sys.argv[1])
