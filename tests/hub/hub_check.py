#!/usr/bin/python3
"""attn pull and --model NAME against a fake Hugging Face hub (tests/hub/fake_hub.py).

Usage: hub_check.py ATTN_BINARY [--npm-modules DIR] [--only NAME ...]
       hub_check.py --self-test [--npm-modules DIR] [--attn ATTN_BINARY]

The hub serves tiny GPT-2 folders made by tests/gpt2/make_checkpoint.py as `gpt2` and `org/tiny-gpt2`
(config.json and tokeniser files as git files, model.safetensors from the CDN as LFS), a sharded variant,
a gated repo, renamed repos and one repo per trap. Each scenario runs attn with HOME, the cache and the
working folder in a fresh temporary folder and checks what huggingface_hub's own cache would hold:
refs/<rev> (the commit, no newline), blobs/<etag> (the served bytes), snapshots/<commit>/<file> relative
links to ../../blobs/<etag>, .no_exist/<commit>/<file> for optional files the hub lacks, nothing else
anywhere, no *.incomplete. Errors: exit 1, stderr starting "attn: ", at most two lines, naming the cause.
The token must reach the hub and never the CDN (checked over the whole run's log) nor attn's output.

--self-test drives the fake hub itself with http.client and with npm's @huggingface/hub (an independent
client), so the server's answers are checked before attn is; with --attn it also runs every scenario on
reference_attn.py (a plain Python implementation of the same contract, with ATTN_BINARY running the
models it finds), which must pass, and on 16 variants of it that each break one rule, which must fail
the scenarios that check that rule. One line per scenario: "ok NAME" or
"FAIL NAME: reason" (or "skip NAME: reason" when a tool is missing); exit 1 on any failure."""
import hashlib
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "gpt2"))
from fake_hub import FakeHub, File, Repo, git_blob_sha1, sha256  # noqa: E402
from hf_files import safetensors_bytes  # noqa: E402
from make_checkpoint import make  # noqa: E402

TOKEN = "hf_FakeHubToken0123456789abcdefghijKLMNOP"  # hf_ + 37 letters and digits, as real tokens are
OPTIONAL = ["generation_config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
            "added_tokens.json", "vocab.json", "merges.txt", "vocab.txt", "spiece.model", "source.spm", "target.spm",
            "target_vocab.json"]
HEX40 = re.compile(r"^[0-9a-f]{40}$")
HEX_ETAG = re.compile(r"^[0-9a-f]{40}$|^[0-9a-f]{64}$")
TEXT = "Hello world"


def commit_of(name):
    return hashlib.sha1(name.encode()).hexdigest()


# the model folders ---------------------------------------------------------------------------------
def folder_files(folder):
    out = {}
    for n in sorted(os.listdir(folder)):
        with open(os.path.join(folder, n), "rb") as f:
            out[n] = f.read()
    return out


def split_safetensors(data):
    """Two shards (tensors alternately) and the index naming them, from one safetensors file's bytes."""
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    base = 8 + n
    tensors = [(k, v["dtype"], v["shape"], data[base + v["data_offsets"][0]:base + v["data_offsets"][1]])
               for k, v in header.items() if k != "__metadata__"]
    names = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    shards = [safetensors_bytes(tensors[0::2], {"format": "pt"}), safetensors_bytes(tensors[1::2], {"format": "pt"})]
    weight_map = {t[0]: names[i % 2] for i, t in enumerate(tensors)}
    index = {"metadata": {"total_size": sum(len(t[3]) for t in tensors)}, "weight_map": weight_map}
    return dict(zip(names, shards)), json.dumps(index, indent=2).encode()


class Models:
    """The bytes every repo serves, made once."""

    def __init__(self, tmp):
        def folder(name, **kw):
            d = os.path.join(tmp, "models", name)
            make(d, extra_buffers=False, **kw)
            return folder_files(d)

        self.gpt2 = folder("gpt2", seed=1)  # config.json, merges.txt, model.safetensors, vocab.json; 8 wide
        self.tiny = dict(folder("tiny", seed=2))
        self.tiny["tokenizer_config.json"] = json.dumps({"model_max_length": 32}).encode()
        self.tiny["generation_config.json"] = json.dumps({"_from_model_config": True}).encode()
        self.local = folder("local", seed=3, embd=12, heads=3)  # a ./gpt2 folder that must win: 12 wide
        self.sharded = dict(folder("sharded", seed=4))
        shards, index = split_safetensors(self.sharded.pop("model.safetensors"))
        self.sharded.update(shards)
        self.sharded["model.safetensors.index.json"] = index
        self.big = folder("big", seed=5, embd=32, layers=2)  # ~100 kB of weights, for the slow CDN
        self.traps = {k: folder("trap%d" % k, seed=10 + k) for k in range(12)}  # each its own sha256


def files_of(contents, lfs=("model.safetensors",), **traps):
    """name -> File; names in lfs (and every shard) served from the CDN; traps: name -> File keyword args."""
    out = {}
    for name, data in contents.items():
        kw = traps.get(name, {})
        out[name] = File(data, lfs=name in lfs or name.startswith("model-"), **kw)
    return out


def build_repos(m):
    c = commit_of
    tiny = files_of(m.tiny)
    tiny["README.md"] = File(b"---\nlicense: mit\n---\n# tiny-gpt2\n")
    tiny["flax_model.msgpack"] = File(b"\x80not-downloaded" * 8, lfs=True)
    tiny["pytorch_model.bin"] = File(b"PK\x03\x04 not downloaded when model.safetensors exists", lfs=True)
    repos = [
        Repo("gpt2", c("gpt2"), files_of(m.gpt2)),
        Repo("org/tiny-gpt2", c("tiny"), tiny,
             refs={"main": c("tiny"), "v1.0": c("tiny"), "refs/pr/1": c("tiny-pr1")}),
        Repo("org/tiny-gpt2-sharded", c("sharded"), files_of(m.sharded)),
        Repo("org/gated", c("gated"), files_of(m.traps[0]), gated=True),
        Repo("old-org/tiny-gpt2", c("unused"), {}, renamed_to="org/tiny-gpt2"),
        Repo("old-org/gated", c("unused"), {}, renamed_to="org/gated"),
        Repo("org/loop", c("loop"), files_of(m.gpt2), loop=True),
        Repo("org/no-config", c("no-config"), files_of({k: v for k, v in m.gpt2.items() if k != "config.json"})),
        Repo("org/evil-etag-git", c("eeg"), files_of(m.gpt2, **{"config.json": {"etag": "../../evil"}})),
        Repo("org/evil-etag-lfs", c("eel"), files_of(m.traps[1], **{"model.safetensors": {"etag": "../../evil"}})),
        Repo("org/evil-commit-dots", c("ecd"), files_of(m.gpt2), commit_header="../x"),
        Repo("org/evil-commit-39", c("ec39"), files_of(m.gpt2), commit_header=c("ec39")[:39]),
        Repo("org/evil-shard-dots", c("esd"), shard_trap(m, "../x.safetensors")),
        Repo("org/evil-shard-abs", c("esa"), shard_trap(m, "/etc/passwd")),
        Repo("org/size-lie-lfs", c("sll"), files_of(m.traps[2], **{"model.safetensors": {"size_delta": 7}})),
        Repo("org/size-lie-git", c("slg"), files_of(m.gpt2, **{"config.json": {"size_delta": 3}})),
        Repo("org/sha-mismatch", c("shm"), files_of(m.traps[3], **{"model.safetensors": {
            "served": flip_byte(m.traps[3]["model.safetensors"])}})),
        Repo("org/cut-always", c("cua"), files_of(m.traps[4], **{"model.safetensors": {"cut": "always"}})),
        Repo("org/cut-once", c("cuo"), files_of(m.traps[5], **{"model.safetensors": {"cut": "once"}})),
        Repo("org/cut-once-no-range", c("cor"), files_of(m.traps[6], **{"model.safetensors": {
            "cut": "once", "ignore_range": True}})),
        Repo("org/slow", c("slow"), files_of(m.big, **{"model.safetensors": {"slow": 0.02, "chunk": 1024}})),
        Repo("org/echo-auth", c("echo"), files_of(m.gpt2), echo_auth=True),
        Repo("org/other-commit", c("other"), files_of(m.traps[8]), commit_header=c("not-the-pinned-one")),
        Repo("org/plain-404-tokenizer", c("p404"), files_of(dict(m.traps[9], **{"tokenizer.json": b"{}"}), **{"tokenizer.json": {"status": 404}})),
        Repo("org/401-tokenizer", c("p401"), files_of(dict(m.traps[10], **{"tokenizer.json": b"{}"}), **{"tokenizer.json": {"status": 401}})),
        Repo("org/file-redirect", c("fred"), files_of(m.traps[11], **{"model.safetensors": {"location": "file:///etc/passwd"}})),
        Repo("org/huge-config-git", c("hcg"), files_of(m.gpt2, **{"config.json": {"size_header": 10 ** 12}})),
        Repo("org/huge-config-lfs", c("hcl"), files_of(m.traps[7], lfs=("model.safetensors", "config.json"),
                                                        **{"config.json": {"size_header": 10 ** 12}})),
    ]
    return repos


def shard_trap(m, bad):
    files = files_of(m.sharded)
    index = json.loads(m.sharded["model.safetensors.index.json"])
    first = next(iter(index["weight_map"]))
    index["weight_map"][first] = bad
    files["model.safetensors.index.json"] = File(json.dumps(index).encode())
    return files


def flip_byte(data):
    b = bytearray(data)
    b[len(b) // 2] ^= 0x01
    return bytes(b)


def weights_of(repo):
    """The weight files attn fetches, in the order the contract fixes."""
    f = repo.files
    for single, index in (("model.safetensors", "model.safetensors.index.json"),
                          ("pytorch_model.bin", "pytorch_model.bin.index.json")):
        if single in f:
            return [single]
        if index in f:
            shards = sorted(set(json.loads(f[index].data)["weight_map"].values()))
            return [index] + shards
    return []


def pulled_files(repo):
    return ["config.json"] + [n for n in OPTIONAL if n in repo.files] + weights_of(repo)


def folder_name(repo_id):
    return "models--" + repo_id.replace("/", "--")


# the hand-written cache (huggingface_hub's layout, written as its file_download.py does) -----------
def write_cache(cache, repo_id, commit, files, ref="main", symlinks=True, no_exist=(), ref_text=None):
    base = os.path.join(cache, folder_name(repo_id))
    snap = os.path.join(base, "snapshots", commit)
    os.makedirs(os.path.join(base, "blobs"), exist_ok=True)
    os.makedirs(snap, exist_ok=True)
    if ref:
        os.makedirs(os.path.dirname(os.path.join(base, "refs", ref)), exist_ok=True)
        with open(os.path.join(base, "refs", ref), "w") as f:
            f.write(commit if ref_text is None else ref_text)
    for name, f in files.items():
        target = os.path.join(snap, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if symlinks:
            with open(os.path.join(base, "blobs", f.etag), "wb") as out:
                out.write(f.data)
            os.symlink("../" * (2 + name.count("/")) + "blobs/" + f.etag, target)
        else:  # no symlinks (Windows without Developer Mode): the blob moved into the snapshot
            with open(target, "wb") as out:
                out.write(f.data)
    for name in no_exist:
        p = os.path.join(base, ".no_exist", commit, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "wb").close()
    return snap


# the run ---------------------------------------------------------------------------------------------
class Failed(Exception):
    pass


class Scenario:
    """One scenario's temporary folder (home/, work/, cache/), environment and checks."""

    def __init__(self, suite, name):
        self.suite, self.name = suite, name
        self.tmp = tempfile.mkdtemp(prefix=name[:20] + "-", dir=suite.root)
        self.home, self.work, self.cache = (os.path.join(self.tmp, d) for d in ("home", "work", "cache"))
        for d in (self.home, self.work):
            os.makedirs(d)
        self.problems = []
        self.placed = set()  # files the scenario itself put outside the cache

    def expect(self, cond, what):
        if not cond:
            self.problems.append(what)
        return cond

    def env(self, **over):
        drop = ("HF_", "HUGGING", "XDG_", "TRANSFORMERS_", "http_proxy", "https_proxy", "HTTP_PROXY",
                "HTTPS_PROXY", "ALL_PROXY", "all_proxy")
        env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
        env.update(HOME=self.home, NO_COLOR="1", HF_ENDPOINT=self.suite.hub.hub_url, HF_HUB_CACHE=self.cache,
                   no_proxy="127.0.0.1,localhost", NO_PROXY="127.0.0.1,localhost")
        for k, v in over.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = v
        return env

    def attn(self, args, env=None, timeout=60, cwd=None):
        env = env or self.env()
        try:
            r = subprocess.run([self.suite.attn] + args, capture_output=True, text=True, timeout=timeout,
                               env=env, cwd=cwd or self.work)
        except subprocess.TimeoutExpired:
            raise Failed("attn %s still running after %d s" % (" ".join(args), timeout))
        self.expect(TOKEN not in r.stdout and TOKEN not in r.stderr, "the token appears in attn's output")
        self.expect("internal error" not in r.stderr.lower(), "stderr says internal error: " + r.stderr.strip()[:200])
        return r

    def ok_run(self, r, what):
        if not self.expect(r.returncode == 0, "%s: exit %s, stderr %r" % (what, r.returncode, r.stderr.strip()[-400:])):
            raise Failed("; ".join(self.problems))

    def error(self, r, what, *keywords, any_of=None):
        """exit 1, stderr starts with "attn: ", at most 2 lines, holds every keyword (case-insensitive)
        and one of any_of."""
        err = r.stderr
        self.expect(r.returncode == 1, "%s: exit %s (want 1), stderr %r" % (what, r.returncode, err.strip()[-300:]))
        self.expect(err.startswith("attn: "), "%s: stderr does not start with 'attn: ': %r" % (what, err[:200]))
        self.expect(len(err.strip().splitlines()) <= 2, "%s: stderr has %d lines (at most 2): %r"
                    % (what, len(err.strip().splitlines()), err[:400]))
        for k in keywords:
            self.expect(k.lower() in err.lower(), "%s: stderr does not name %r: %r" % (what, k, err.strip()[:300]))
        if any_of:
            self.expect(any(k.lower() in err.lower() for k in any_of),
                        "%s: stderr names none of %s: %r" % (what, any_of, err.strip()[:300]))

    # the cache ----------------------------------------------------------------------------------------
    def cache_sane(self, cache=None):
        """Only huggingface_hub's names in the cache; nothing outside it but what the scenario placed."""
        cache = cache or self.cache
        if os.path.isdir(cache):
            for n in os.listdir(cache):
                self.expect(n.startswith("models--") or n in (".locks", "CACHEDIR.TAG"), "unexpected %s in the cache" % n)
            for repo in (n for n in os.listdir(cache) if n.startswith("models--")):
                base = os.path.join(cache, repo)
                for n in os.listdir(base):
                    self.expect(n in ("blobs", "refs", "snapshots", ".no_exist", "trees"),
                                "unexpected %s/%s" % (repo, n))
                for sub, rx in (("blobs", HEX_ETAG), ("snapshots", HEX40), (".no_exist", HEX40)):
                    d = os.path.join(base, sub)
                    for n in os.listdir(d) if os.path.isdir(d) else []:
                        self.expect(rx.match(n), "%s/%s/%s is not named by a hash" % (repo, sub, n))
            for root, dirs, names in os.walk(cache):
                for n in names + dirs:
                    self.expect(not n.endswith(".incomplete") and ".incomplete" not in n,
                                "%s left behind" % os.path.join(root, n))
                    self.expect(n != "evil", "%s written" % os.path.join(root, n))
        def inside(p, folder):
            return p == folder or p.startswith(folder + os.sep)

        cache = os.path.abspath(cache)
        for root, _, names in os.walk(self.tmp):
            for p in (os.path.abspath(os.path.join(root, n)) for n in names):
                if not inside(p, cache) and not any(inside(p, q) for q in self.placed):
                    self.expect(False, "file outside the cache: " + os.path.relpath(p, self.tmp))

    def check_snapshot(self, r, repo, rev="main", typed=None, cache=None, names=None, absent=None):
        """attn pull's result: the printed path, refs, links, blobs, .no_exist."""
        cache = cache or self.cache
        typed = typed or repo.repo_id
        commit = repo.resolve(rev)
        base = os.path.join(cache, folder_name(typed))
        snap = os.path.join(base, "snapshots", commit)
        lines = r.stdout.strip().splitlines()
        self.expect(lines and os.path.realpath(lines[-1]) == os.path.realpath(snap),
                    "last line of stdout %r is not %s" % (lines[-1] if lines else "", snap))
        ref = os.path.join(base, "refs", rev)
        if HEX40.match(rev):
            self.expect(not os.path.exists(ref), "refs/%s written for a commit revision" % rev)
        elif self.expect(os.path.isfile(ref), "no refs/%s" % rev):
            with open(ref, "rb") as f:
                got = f.read()
            self.expect(got == commit.encode(), "refs/%s holds %r, not the commit with no newline" % (rev, got))
        names = names if names is not None else pulled_files(repo)
        for name in names:
            f = repo.files[name]
            p = os.path.join(snap, name)
            want = "../" * (2 + name.count("/")) + "blobs/" + f.real_etag
            if not self.expect(os.path.islink(p), "snapshots/<commit>/%s is not a symlink" % name):
                continue
            self.expect(os.readlink(p) == want, "%s links to %s, not %s" % (name, os.readlink(p), want))
            blob = os.path.join(base, "blobs", f.real_etag)
            if self.expect(os.path.isfile(blob), "no blobs/%s for %s" % (f.real_etag, name)):
                with open(blob, "rb") as fh:
                    self.expect(fh.read() == f.data, "blobs/%s differs from the served %s" % (f.real_etag, name))
        if os.path.isdir(snap):
            got = set()
            for root, _, files in os.walk(snap):
                got |= {os.path.relpath(os.path.join(root, n), snap) for n in files}
            self.expect(got == set(names), "snapshot holds %s, want %s" % (sorted(got), sorted(names)))
        absent = absent if absent is not None else [n for n in OPTIONAL if n not in repo.files]
        for name in absent:
            p = os.path.join(base, ".no_exist", commit, name)
            self.expect(os.path.isfile(p) and os.path.getsize(p) == 0, "no empty .no_exist/<commit>/%s" % name)
        return snap

    def no_blob(self, repo, name, cache=None):
        base = os.path.join(cache or self.cache, folder_name(repo.repo_id))
        etag = repo.files[name].real_etag
        self.expect(not os.path.exists(os.path.join(base, "blobs", etag)), "blobs/<etag> of %s written" % name)
        self.expect(not os.path.lexists(os.path.join(base, "snapshots", repo.commit, name)), "snapshot link to %s written" % name)


class Suite:
    def __init__(self, attn, npm_modules, only, models=None, quiet=False):
        self.attn = attn
        self.npm_modules = npm_modules
        self.only = only
        self.quiet = quiet
        self.root = tempfile.mkdtemp(prefix="attn-hub-")
        self.models = models or Models(self.root)
        self.repos = {r.repo_id: r for r in build_repos(self.models)}
        self.hub = FakeHub(self.repos.values(), token=TOKEN).start()
        self.failed = 0
        self.results = {}

    def repo(self, repo_id):
        return self.repos[repo_id]

    def run(self, scenarios):
        for fn in scenarios:
            name = fn.__name__
            if self.only and name not in self.only:
                continue
            s = Scenario(self, name)
            skip = None
            try:
                skip = fn(self, s)
                if not skip:
                    s.cache_sane()
            except Failed as e:
                s.problems.append(str(e))
            except Exception:
                s.problems.append(traceback.format_exc().strip().splitlines()[-1])
            if s.problems:
                self.failed += 1
                line = "FAIL %s: %s" % (name, " | ".join(dict.fromkeys(s.problems)))
            elif skip:
                line = "skip %s: %s" % (name, skip)
            else:
                line = "ok   %s" % name
            self.results[name] = line
            if not self.quiet:
                print(line, flush=True)

    def close(self):
        self.hub.stop()
        shutil.rmtree(self.root, ignore_errors=True)


SCENARIOS = []
ATTN_ONLY = []  # hostile cases found by testing attn itself: run on attn, not on the reference


def scenario(fn):
    SCENARIOS.append(fn)
    return fn


def attn_scenario(fn):
    ATTN_ONLY.append(fn)
    return fn


# pulls -------------------------------------------------------------------------------------------
@scenario
def pull_gpt2_writes_huggingface_hub_layout(suite, s):
    repo = suite.repo("gpt2")
    mark = suite.hub.mark()
    r = s.attn(["pull", "gpt2"])
    s.ok_run(r, "attn pull gpt2")
    s.check_snapshot(r, repo)
    lfs = repo.files["model.safetensors"]
    cdn = suite.hub.entries(mark, server="cdn")
    s.expect(any(lfs.real_etag in e["path"] and e["method"] == "GET" for e in cdn), "model.safetensors not fetched from the CDN")
    hub = suite.hub.entries(mark, server="hub")
    mine = ("/gpt2/resolve/", "/api/models/gpt2/")
    s.expect(hub and all(e["path"].startswith(mine) for e in hub),
             "requests outside gpt2's routes: %s" % [e["path"] for e in hub if not e["path"].startswith(mine)])
    s.expect(not any(e["auth"] for e in hub + cdn), "a request carried Authorization with no token set")


@scenario
def pull_org_repo_fetches_only_the_named_files(suite, s):
    repo = suite.repo("org/tiny-gpt2")
    mark = suite.hub.mark()
    r = s.attn(["pull", "org/tiny-gpt2@main"])
    s.ok_run(r, "attn pull org/tiny-gpt2@main")
    s.check_snapshot(r, repo)
    asked = " ".join(e["path"] for e in suite.hub.entries(mark))
    for decoy in ("README.md", "flax_model.msgpack", "pytorch_model.bin"):
        s.expect(decoy not in asked, "%s requested though model.safetensors exists" % decoy)


@scenario
def pull_tag_writes_its_ref(suite, s):
    r = s.attn(["pull", "org/tiny-gpt2@v1.0"])
    s.ok_run(r, "attn pull org/tiny-gpt2@v1.0")
    s.check_snapshot(r, suite.repo("org/tiny-gpt2"), rev="v1.0")


@scenario
def pull_pr_ref_is_url_encoded_and_nested(suite, s):
    repo = suite.repo("org/tiny-gpt2")
    mark = suite.hub.mark()
    r = s.attn(["pull", "org/tiny-gpt2@refs/pr/1"])
    s.ok_run(r, "attn pull org/tiny-gpt2@refs/pr/1")
    s.check_snapshot(r, repo, rev="refs/pr/1")
    paths = [e["path"] for e in suite.hub.entries(mark, server="hub")]
    s.expect(any("refs%2Fpr%2F1" in p for p in paths), "the revision is never sent as refs%%2Fpr%%2F1: %s" % paths[:3])
    s.expect(not any("/refs/pr/1/" in p for p in paths), "the revision sent unencoded: %s"
             % [p for p in paths if "/refs/pr/1/" in p][:2])


@scenario
def pull_commit_writes_no_ref(suite, s):
    repo = suite.repo("org/tiny-gpt2")
    r = s.attn(["pull", "org/tiny-gpt2@" + repo.commit])
    s.ok_run(r, "attn pull org/tiny-gpt2@<commit>")
    s.check_snapshot(r, repo, rev=repo.commit)
    refs = os.path.join(s.cache, folder_name(repo.repo_id), "refs")
    s.expect(not os.path.isdir(refs) or not os.listdir(refs), "refs/ holds %s" % (os.listdir(refs) if os.path.isdir(refs) else ""))


@scenario
def pull_sharded_fetches_index_and_every_shard(suite, s):
    repo = suite.repo("org/tiny-gpt2-sharded")
    r = s.attn(["pull", "org/tiny-gpt2-sharded"])
    s.ok_run(r, "attn pull org/tiny-gpt2-sharded")
    s.check_snapshot(r, repo)


@scenario
def pull_twice_keeps_the_same_cache(suite, s):
    repo = suite.repo("gpt2")
    s.ok_run(s.attn(["pull", "gpt2"]), "first pull")
    r = s.attn(["pull", "gpt2"])
    s.ok_run(r, "second pull")
    s.check_snapshot(r, repo)


@scenario
def pull_two_revisions_share_blobs(suite, s):
    repo = suite.repo("org/tiny-gpt2")
    s.ok_run(s.attn(["pull", "org/tiny-gpt2"]), "pull main")
    r = s.attn(["pull", "org/tiny-gpt2@refs/pr/1"])
    s.ok_run(r, "pull refs/pr/1")
    s.check_snapshot(r, repo, rev="refs/pr/1")
    blobs = os.listdir(os.path.join(s.cache, folder_name(repo.repo_id), "blobs"))
    s.expect(sorted(blobs) == sorted({repo.files[n].real_etag for n in pulled_files(repo)}),
             "blobs/ holds %d files, want one per distinct file" % len(blobs))


@scenario
def endpoint_with_a_trailing_slash_is_stripped(suite, s):
    mark = suite.hub.mark()
    r = s.attn(["pull", "gpt2"], env=s.env(HF_ENDPOINT=suite.hub.hub_url + "/"))
    s.ok_run(r, "attn pull gpt2 with HF_ENDPOINT ending in /")
    s.check_snapshot(r, suite.repo("gpt2"))
    s.expect(not any(e["path"].startswith("//") for e in suite.hub.entries(mark)), "a request path starts with //")


# where the cache is ------------------------------------------------------------------------------
@scenario
def cache_location_follows_the_environment_order(suite, s):
    t = s.tmp
    cands = {"HF_HUB_CACHE": os.path.join(t, "a"), "HUGGINGFACE_HUB_CACHE": os.path.join(t, "b"),
             "HF_HOME": os.path.join(t, "c"), "XDG_CACHE_HOME": os.path.join(t, "d")}
    where = {"HF_HUB_CACHE": cands["HF_HUB_CACHE"], "HUGGINGFACE_HUB_CACHE": cands["HUGGINGFACE_HUB_CACHE"],
             "HF_HOME": os.path.join(cands["HF_HOME"], "hub"),
             "XDG_CACHE_HOME": os.path.join(cands["XDG_CACHE_HOME"], "huggingface", "hub"),
             None: os.path.join(s.home, ".cache", "huggingface", "hub")}
    order = ["HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME", None]
    repo = suite.repo("gpt2")
    for i, first in enumerate(order):
        env = s.env(HF_HUB_CACHE=None)
        for k in order[i:]:
            if k:
                env[k] = cands[k]
        for d in list(cands.values()) + [os.path.join(s.home, ".cache")]:
            shutil.rmtree(d, ignore_errors=True)
        r = s.attn(["pull", "gpt2"], env=env)
        s.ok_run(r, "pull with %s first" % (first or "no variable"))
        s.check_snapshot(r, repo, cache=where[first])
        s.cache_sane(where[first])
        others = [d for k, d in where.items() if k != first and os.path.exists(os.path.join(d, "models--gpt2"))]
        s.expect(not others, "with %s first, models--gpt2 also in %s" % (first, others))
    s.cache_sane = lambda *a: None  # each case was checked in turn


# tokens and gated repos --------------------------------------------------------------------------
def gated_pull(suite, s, env, repo_id="org/gated", want_ok=True):
    mark = suite.hub.mark()
    r = s.attn(["pull", repo_id], env=env)
    target = suite.repo("org/gated")
    if want_ok:
        s.ok_run(r, "attn pull %s with a token" % repo_id)
        s.check_snapshot(r, target, typed=repo_id, cache=env.get("HF_HUB_CACHE") or os.path.join(env["HF_HOME"], "hub"))
        hub = suite.hub.entries(mark, server="hub")
        gated = [e for e in hub if e["path"].startswith("/org/gated/")]
        s.expect(gated, "no request reached /org/gated/")
        s.expect(all(e["auth_value"] == "Bearer " + TOKEN for e in gated),
                 "a request to the gated repo lacked the token: %s" % [e["path"] for e in gated if not e["auth"]][:3])
        s.expect(any(e["method"] == "HEAD" for e in gated), "no HEAD request to the gated repo")
    return r


@scenario
def gated_without_token_says_gated_and_hf_token(suite, s):
    r = s.attn(["pull", "org/gated"])
    s.error(r, "gated repo, no token", "gated", "HF_TOKEN")
    s.expect(not os.path.isdir(os.path.join(s.cache, "models--org--gated", "blobs")) or
             not os.listdir(os.path.join(s.cache, "models--org--gated", "blobs")), "blobs written for a refused repo")


@scenario
def gated_with_a_wrong_token_is_refused(suite, s):
    r = s.attn(["pull", "org/gated"], env=s.env(HF_TOKEN="hf_WrongToken0123456789abcdefghijklmnopq"))
    s.error(r, "gated repo, wrong token", "gated")


@scenario
def token_from_hf_token(suite, s):
    gated_pull(suite, s, s.env(HF_TOKEN=TOKEN))


@scenario
def token_from_hugging_face_hub_token(suite, s):
    gated_pull(suite, s, s.env(HUGGING_FACE_HUB_TOKEN=TOKEN))


@scenario
def token_from_hf_token_path_file(suite, s):
    p = os.path.join(s.tmp, "secret", "token")
    os.makedirs(os.path.dirname(p))
    with open(p, "w") as f:
        f.write(TOKEN + "\n")
    s.placed.add(p)
    gated_pull(suite, s, s.env(HF_TOKEN_PATH=p))


@scenario
def token_from_hf_home_token_file(suite, s):
    hf_home = os.path.join(s.tmp, "hfhome")
    os.makedirs(hf_home)
    with open(os.path.join(hf_home, "token"), "w") as f:
        f.write(TOKEN)
    s.placed.add(os.path.join(hf_home, "token"))
    env = s.env(HF_HUB_CACHE=None, HF_HOME=hf_home)
    gated_pull(suite, s, env)
    s.cache_sane(os.path.join(hf_home, "hub"))
    s.cache_sane = lambda *a: None


@scenario
def renamed_repo_follows_the_relative_redirect(suite, s):
    mark = suite.hub.mark()
    r = s.attn(["pull", "old-org/tiny-gpt2"])
    s.ok_run(r, "attn pull old-org/tiny-gpt2 (renamed)")
    s.check_snapshot(r, suite.repo("org/tiny-gpt2"), typed="old-org/tiny-gpt2")
    hub = suite.hub.entries(mark, server="hub")
    s.expect(any(e["status"] == 307 for e in hub) and any(e["path"].startswith("/org/tiny-gpt2/resolve/") for e in hub),
             "the 307 was not followed to /org/tiny-gpt2/")


@scenario
def renamed_gated_repo_keeps_the_token_on_the_redirect(suite, s):
    gated_pull(suite, s, s.env(HF_TOKEN=TOKEN), repo_id="old-org/gated")


# errors ------------------------------------------------------------------------------------------
@scenario
def missing_repo_is_named_not_found(suite, s):
    s.error(s.attn(["pull", "org/missing"]), "missing repo (401 RepoNotFound)", "org/missing", "not found")
    s.error(s.attn(["pull", "org/missing"], env=s.env(HF_TOKEN=TOKEN)), "missing repo with a token (404 RepoNotFound)",
            "org/missing", "not found")


@scenario
def missing_revision_is_named(suite, s):
    s.error(s.attn(["pull", "org/tiny-gpt2@no-such-branch"]), "missing revision", "no-such-branch")


@scenario
def missing_config_is_named(suite, s):
    s.error(s.attn(["pull", "org/no-config"]), "repo without config.json", "config.json")


@scenario
def redirect_loop_is_refused(suite, s):
    mark = suite.hub.mark()
    s.error(s.attn(["pull", "org/loop"], timeout=30), "redirect loop", "redirect")
    s.expect(len(suite.hub.entries(mark)) < 60, "%d requests for a redirect loop" % len(suite.hub.entries(mark)))


@scenario
def hostile_etag_on_a_git_file_is_refused(suite, s):
    s.error(s.attn(["pull", "org/evil-etag-git"]), "etag ../../evil", "etag")


@scenario
def hostile_etag_on_an_lfs_file_is_refused(suite, s):
    repo = suite.repo("org/evil-etag-lfs")
    s.error(s.attn(["pull", repo.repo_id]), "X-Linked-Etag ../../evil", "etag")
    s.no_blob(repo, "model.safetensors")


@scenario
def hostile_commit_with_dots_is_refused(suite, s):
    s.error(s.attn(["pull", "org/evil-commit-dots"]), "X-Repo-Commit ../x", "commit")
    base = os.path.join(s.cache, "models--org--evil-commit-dots")
    s.expect(not os.path.lexists(os.path.join(base, "x")), "models--org--evil-commit-dots/x written")


@scenario
def hostile_commit_of_39_hex_is_refused(suite, s):
    s.error(s.attn(["pull", "org/evil-commit-39"]), "X-Repo-Commit of 39 hex digits", "commit")


@scenario
def hostile_shard_name_with_dots_is_refused(suite, s):
    mark = suite.hub.mark()
    s.error(s.attn(["pull", "org/evil-shard-dots"]), "weight_map ../x.safetensors", any_of=["../x.safetensors", "shard"])
    s.expect(not any("x.safetensors" in e["path"] and "model-" not in e["path"] for e in suite.hub.entries(mark)),
             "../x.safetensors requested")
    s.expect(not os.path.lexists(os.path.join(s.cache, "models--org--evil-shard-dots", "snapshots", "x.safetensors")),
             "snapshots/x.safetensors written")


@scenario
def hostile_shard_name_absolute_is_refused(suite, s):
    mark = suite.hub.mark()
    s.error(s.attn(["pull", "org/evil-shard-abs"]), "weight_map /etc/passwd", any_of=["/etc/passwd", "shard"])
    s.expect(not any("passwd" in e["path"] for e in suite.hub.entries(mark)), "/etc/passwd requested")


@scenario
def invalid_repo_ids_are_refused_before_any_request(suite, s):
    for bad in ("../evil", "org/../evil", "a--b/c", "org/name/extra", "org/name.git", "/abs"):
        mark = suite.hub.mark()
        r = s.attn(["pull", bad])
        s.expect(r.returncode in (1, 2) and r.stderr.startswith("attn: ") and bad in r.stderr,
                 "pull %r: exit %s, stderr %r (want exit 1 or 2 naming the id)" % (bad, r.returncode, r.stderr[:200]))
        s.expect(not suite.hub.entries(mark), "pull %r made a request" % bad)
        wrote = os.listdir(s.cache) if os.path.isdir(s.cache) else []
        s.expect(all(n in ("CACHEDIR.TAG", ".locks") for n in wrote), "pull %r wrote %s" % (bad, wrote))


@scenario
def size_header_that_lies_on_lfs_is_refused(suite, s):
    repo = suite.repo("org/size-lie-lfs")
    s.error(s.attn(["pull", repo.repo_id]), "X-Linked-Size 7 bytes too large", "size")
    s.no_blob(repo, "model.safetensors")


@scenario
def size_header_that_lies_on_a_git_file_is_refused(suite, s):
    repo = suite.repo("org/size-lie-git")
    s.error(s.attn(["pull", repo.repo_id]), "Content-Length 3 bytes too large", "size")
    s.no_blob(repo, "config.json")


@scenario
def sha256_mismatch_is_refused(suite, s):
    repo = suite.repo("org/sha-mismatch")
    s.error(s.attn(["pull", repo.repo_id]), "LFS bytes whose sha256 is not the etag", "sha256")
    s.no_blob(repo, "model.safetensors")


@scenario
def cdn_that_always_cuts_leaves_no_partial_blob(suite, s):
    repo = suite.repo("org/cut-always")
    s.error(s.attn(["pull", repo.repo_id], timeout=90), "a CDN that always cuts the body")
    s.no_blob(repo, "model.safetensors")


@scenario
def cdn_that_cuts_once_is_resumed_with_range(suite, s):
    repo = suite.repo("org/cut-once")
    mark = suite.hub.mark()
    r = s.attn(["pull", repo.repo_id], timeout=90)
    s.ok_run(r, "a CDN that cuts the body once")
    s.check_snapshot(r, repo)
    ranges = [e["range"] for e in suite.hub.entries(mark, server="cdn") if e["range"]]
    s.expect(any(re.match(r"bytes=[1-9]\d*-", x or "") for x in ranges), "no Range request from a non-zero offset: %s" % ranges)


@scenario
def cdn_that_ignores_range_still_gives_the_right_blob(suite, s):
    repo = suite.repo("org/cut-once-no-range")
    mark = suite.hub.mark()
    r = s.attn(["pull", repo.repo_id], timeout=90)
    s.ok_run(r, "a CDN that cuts once and then ignores Range")
    s.check_snapshot(r, repo)
    s.expect(any(e["range"] and e["status"] == 200 for e in suite.hub.entries(mark, server="cdn")),
             "no Range request answered 200 (the restart was not exercised)")


@scenario
def oversized_config_header_is_refused_on_a_git_file(suite, s):
    repo = suite.repo("org/huge-config-git")
    s.error(s.attn(["pull", repo.repo_id]), "config.json announced as 1 TB", any_of=["size", "large", "big", "limit", "exceed"])
    s.no_blob(repo, "config.json")


@scenario
def oversized_config_header_is_refused_on_an_lfs_file(suite, s):
    repo = suite.repo("org/huge-config-lfs")
    s.error(s.attn(["pull", repo.repo_id]), "config.json with X-Linked-Size 1 TB", any_of=["size", "large", "big", "limit", "exceed"])
    s.no_blob(repo, "config.json")


@scenario
def ctrl_c_during_a_slow_download_leaves_nothing_partial(suite, s):
    repo = suite.repo("org/slow")
    f = repo.files["model.safetensors"]
    mark = suite.hub.mark()
    p = subprocess.Popen([suite.attn, "pull", repo.repo_id], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=s.env(), cwd=s.work)
    deadline = time.time() + 30
    while time.time() < deadline and p.poll() is None:
        if any(f.real_etag in e["path"] and e["method"] == "GET" for e in suite.hub.entries(mark, server="cdn")):
            break
        time.sleep(0.05)
    started = p.poll() is None
    time.sleep(0.4)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        s.expect(False, "attn still running 20 s after SIGINT")
    s.expect(started, "attn ended before the slow download began: exit %s, %r" % (p.returncode, err.decode()[-200:]))
    s.expect(p.returncode != 0, "attn exited 0 after SIGINT")
    s.expect(TOKEN.encode() not in out + err, "the token appears in attn's output")
    s.no_blob(repo, "model.safetensors")


# hostile caches and answers (attn only) -------------------------------------------------------------
@attn_scenario
def folder_links_inside_the_cache_are_refused(suite, s):
    """A folder of the cache that is a symbolic link to elsewhere (refs/, blobs/, the repo folder) is
    refused: nothing is written through it."""
    repo = suite.repo("org/tiny-gpt2")
    outside = os.path.join(s.tmp, "outside")
    for planted in ("refs", "blobs", "snapshots", ""):
        shutil.rmtree(s.cache, ignore_errors=True)
        shutil.rmtree(outside, ignore_errors=True)
        os.makedirs(outside)
        with open(os.path.join(outside, "main"), "w") as f:
            f.write("keep me")
        base = os.path.join(s.cache, folder_name(repo.repo_id))
        link = os.path.join(base, planted) if planted else base
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(outside, link)
        s.error(s.attn(["pull", repo.repo_id]), "%s as a link out of the cache" % (planted or "the repo folder"), "symbolic link")
        s.expect(sorted(os.listdir(outside)) == ["main"], "files written through the %s link: %s" % (planted, os.listdir(outside)))
        s.expect(open(os.path.join(outside, "main")).read() == "keep me", "a file outside the cache was replaced")
        os.unlink(link)
    shutil.rmtree(outside, ignore_errors=True)


@attn_scenario
def a_fifo_as_refs_main_does_not_hang(suite, s):
    repo = suite.repo("org/tiny-gpt2")
    refs = os.path.join(s.cache, folder_name(repo.repo_id), "refs")
    os.makedirs(refs)
    os.mkfifo(os.path.join(refs, "main"))
    s.ok_run(s.attn(["pull", repo.repo_id], timeout=30), "refs/main a FIFO")
    s.expect(open(os.path.join(refs, "main")).read() == repo.commit, "refs/main does not hold the commit")


@attn_scenario
def an_optional_file_answered_a_plain_404_is_absent(suite, s):
    repo = suite.repo("org/plain-404-tokenizer")  # tokenizer.json answers 404 without X-Error-Code
    s.ok_run(s.attn(["pull", repo.repo_id]), "a plain 404 on the optional tokenizer.json")
    snap = os.path.join(s.cache, folder_name(repo.repo_id), "snapshots", repo.commit)
    s.expect(not os.path.lexists(os.path.join(snap, "tokenizer.json")), "tokenizer.json linked though the hub lacks it")
    s.expect(os.path.exists(os.path.join(snap, "vocab.json")), "vocab.json not pulled")


@attn_scenario
def a_401_on_one_file_names_that_file_not_a_missing_repo(suite, s):
    r = s.attn(["pull", "org/401-tokenizer"])
    s.error(r, "401 on tokenizer.json after config.json", "the hub refused tokenizer.json of org/401-tokenizer (HTTP 401)")
    s.expect("not found" not in r.stderr, "a 401 on one file called the repo missing: %r" % r.stderr)


@attn_scenario
def a_redirect_to_a_file_address_is_named(suite, s):
    repo = suite.repo("org/file-redirect")
    r = s.attn(["pull", repo.repo_id])
    s.error(r, "model.safetensors redirected to file:///etc/passwd",
            "the hub redirected model.safetensors to a file:// address, which attn does not follow")
    s.expect("Unsupported protocol" not in r.stderr and "passwd" not in r.stderr, "libcurl's text or the address printed: %r" % r.stderr)
    s.no_blob(repo, "model.safetensors")


@attn_scenario
def a_token_the_hub_echoes_is_not_printed(suite, s):
    r = s.attn(["pull", "org/echo-auth"], env=s.env(HF_TOKEN=TOKEN))  # attn() checks the token is absent
    s.error(r, "the hub echoing Authorization in X-Error-Message", "400")
    s.expect("Bearer" not in r.stderr or "Bearer ***" in r.stderr, "a Bearer value printed: %r" % r.stderr)


@attn_scenario
def a_stale_incomplete_download_is_removed(suite, s):
    repo = suite.repo("org/tiny-gpt2")
    f = repo.files["model.safetensors"]
    blobs = os.path.join(s.cache, folder_name(repo.repo_id), "blobs")
    os.makedirs(blobs)
    for stale in (f.real_etag + ".0badc0de.incomplete", f.real_etag + ".incomplete"):
        with open(os.path.join(blobs, stale), "wb") as out:
            out.write(b"partial")
    r = s.attn(["pull", repo.repo_id])
    s.ok_run(r, "a pull beside stale .incomplete files")
    s.check_snapshot(r, repo)


@attn_scenario
def a_pinned_commit_is_enforced(suite, s):
    repo = suite.repo("org/other-commit")
    s.error(s.attn(["pull", "%s@%s" % (repo.repo_id, repo.commit)]), "a hub answering another commit than the one pinned",
            repo.commit)
    s.expect(not os.path.isdir(os.path.join(s.cache, folder_name(repo.repo_id), "snapshots", commit_of("not-the-pinned-one"))),
             "a snapshot of the other commit was written")


@attn_scenario
def a_damaged_blob_is_fetched_again(suite, s):
    repo = suite.repo("org/tiny-gpt2")
    s.ok_run(s.attn(["pull", repo.repo_id]), "first pull")
    f = repo.files["config.json"]
    blob = os.path.join(s.cache, folder_name(repo.repo_id), "blobs", f.real_etag)
    with open(blob, "rb") as b:
        good = b.read()
    with open(blob, "wb") as b:
        b.write(flip_byte(good))
    s.ok_run(s.attn(["pull", repo.repo_id]), "a pull over a damaged blob of the right size")
    with open(blob, "rb") as b:
        s.expect(b.read() == good, "the damaged blob was kept")


@attn_scenario
def a_failing_model_name_run_prints_one_line(suite, s):
    r = s.attn(["show", "--model", "org/absent", TEXT])
    s.error(r, "show --model NAME of a missing repo", "not found")
    s.expect(len(r.stderr.strip().splitlines()) == 1, "stderr has more than the error: %r" % r.stderr)
    repo = suite.repo("org/tiny-gpt2")
    hand_cache(suite, s, repo.repo_id)
    cfg = os.path.join(snapshot_path(s, repo), "config.json")
    os.unlink(cfg)
    with open(cfg, "w") as f:
        f.write("{not json")
    r = s.attn(["show", "--model", repo.repo_id, TEXT], env=s.env(HF_HUB_OFFLINE="1"))
    s.expect(r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, "a cached model's error is not one line: %r" % r.stderr)


def killed_by(suite, s, sig):
    repo = suite.repo("org/slow")
    f = repo.files["model.safetensors"]
    mark = suite.hub.mark()
    p = subprocess.Popen([suite.attn, "pull", repo.repo_id], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=s.env(), cwd=s.work)
    deadline = time.time() + 30
    while time.time() < deadline and p.poll() is None:
        if any(f.real_etag in e["path"] and e["method"] == "GET" for e in suite.hub.entries(mark, server="cdn")):
            break
        time.sleep(0.05)
    time.sleep(0.4)
    p.send_signal(sig)
    try:
        p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        s.expect(False, "attn still running 20 s after signal %d" % sig)
    s.expect(p.returncode == -sig, "attn ended with %s, not by signal %d" % (p.returncode, sig))
    s.no_blob(repo, "model.safetensors")


@attn_scenario
def sighup_leaves_nothing_partial_and_ends_by_sighup(suite, s):
    killed_by(suite, s, signal.SIGHUP)


@attn_scenario
def sigterm_leaves_nothing_partial_and_ends_by_sigterm(suite, s):
    killed_by(suite, s, signal.SIGTERM)


# --model NAME -------------------------------------------------------------------------------------
def hand_cache(suite, s, repo_id, symlinks=True, ref="main", ref_text=None, cache=None):
    repo = suite.repo(repo_id)
    files = {n: repo.files[n] for n in pulled_files(repo)}
    absent = [n for n in OPTIONAL if n not in repo.files]
    return write_cache(cache or s.cache, repo_id, repo.commit, files, ref=ref, symlinks=symlinks,
                       no_exist=absent, ref_text=ref_text)


def offline_show(suite, s, model, env=None, extra=()):
    mark = suite.hub.mark()
    r = s.attn(["show", "--model", model, TEXT] + list(extra), env=env or s.env(HF_HUB_OFFLINE="1"))
    s.expect(not suite.hub.entries(mark), "offline, attn made %d requests" % len(suite.hub.entries(mark)))
    return r


def snapshot_path(s, repo):
    return os.path.join(s.cache, folder_name(repo.repo_id), "snapshots", repo.commit)


def runs_as(s, r, folder, what):
    """show --model NAME printed what show --model FOLDER prints: NAME ran that folder."""
    ref = s.attn(["show", "--model", folder, TEXT], env=s.env(HF_HUB_OFFLINE="1"))
    s.expect(ref.returncode == 0 and ref.stdout.strip() and r.stdout == ref.stdout,
             "%s: the output is not show --model %s's (exit %s %r)" % (what, folder, ref.returncode, ref.stderr[:200]))
    return ref.stdout


@scenario
def offline_show_after_pull_uses_the_snapshot(suite, s):
    s.ok_run(s.attn(["pull", "gpt2"]), "attn pull gpt2")
    s.ok_run(s.attn(["pull", "org/tiny-gpt2"]), "attn pull org/tiny-gpt2")
    for model, repo in (("gpt2", "gpt2"), ("org/tiny-gpt2@main", "org/tiny-gpt2")):
        r = offline_show(suite, s, model)
        s.ok_run(r, "offline show --model " + model)
        s.expect(suite.repo(repo).commit in r.stderr, "offline show --model %s: stderr does not name the snapshot: %r"
                 % (model, r.stderr[:300]))
        runs_as(s, r, snapshot_path(s, suite.repo(repo)), "show --model " + model)
    r = s.attn(["models", "--cached", "--json"], env=s.env(HF_HUB_OFFLINE="1"))
    s.ok_run(r, "attn models --cached --json after two pulls")
    try:
        rows = {e.get("repo"): e for e in json.loads(r.stdout) if isinstance(e, dict)}
    except ValueError:
        raise Failed("--cached --json is not JSON: %r" % r.stdout[:200])
    for repo in ("gpt2", "org/tiny-gpt2"):
        e = rows.get(repo, {})
        s.expect(e.get("commit") == suite.repo(repo).commit and e.get("family") == "gpt2",
                 "models --cached --json after pulls: %s is %s" % (repo, e or "missing"))


@scenario
def offline_switches_every_spelling(suite, s):
    hand_cache(suite, s, "gpt2")
    for var, value in (("HF_HUB_OFFLINE", "1"), ("HF_HUB_OFFLINE", "ON"), ("HF_HUB_OFFLINE", "yes"),
                       ("HF_HUB_OFFLINE", "TRUE"), ("TRANSFORMERS_OFFLINE", "1")):
        r = offline_show(suite, s, "gpt2", env=s.env(**{var: value}))
        s.ok_run(r, "show --model gpt2 with %s=%s" % (var, value))
    r = offline_show(suite, s, "gpt2", env=s.env(), extra=["--offline"])
    s.ok_run(r, "show --model gpt2 --offline")


@scenario
def offline_with_nothing_cached_says_attn_pull(suite, s):
    for env in (s.env(HF_HUB_OFFLINE="1"), s.env(TRANSFORMERS_OFFLINE="true")):
        r = offline_show(suite, s, "gpt2", env=env)
        s.error(r, "offline, nothing cached", "cache", "attn pull")
    r = offline_show(suite, s, "org/tiny-gpt2", env=s.env(), extra=["--offline"])
    s.error(r, "--offline, nothing cached", "cache", "attn pull")


@scenario
def local_folder_wins_over_the_cache(suite, s):
    hand_cache(suite, s, "gpt2")
    local = os.path.join(s.work, "gpt2")
    os.makedirs(local)
    for n, data in suite.models.local.items():
        with open(os.path.join(local, n), "wb") as f:
            f.write(data)
    s.placed.add(local)
    r = offline_show(suite, s, "gpt2")
    s.ok_run(r, "show --model gpt2 with ./gpt2 present")
    from_folder = runs_as(s, r, "./gpt2", "show --model gpt2 with ./gpt2 present")
    shutil.rmtree(local)
    s.placed.discard(local)
    r = offline_show(suite, s, "gpt2")
    s.ok_run(r, "show --model gpt2 without ./gpt2")
    from_cache = runs_as(s, r, snapshot_path(s, suite.repo("gpt2")), "show --model gpt2 without ./gpt2")
    s.expect(from_folder != from_cache, "./gpt2 and the cached gpt2 print the same: the check tells nothing")


@scenario
def online_show_downloads_first(suite, s):
    repo = suite.repo("org/tiny-gpt2")
    mark = suite.hub.mark()
    r = s.attn(["show", "--model", "org/tiny-gpt2", TEXT])
    s.ok_run(r, "show --model org/tiny-gpt2 with nothing cached")
    runs_as(s, r, snapshot_path(s, repo), "show --model org/tiny-gpt2 online")
    s.expect(suite.hub.entries(mark, server="cdn"), "nothing fetched from the CDN")
    base = os.path.join(s.cache, folder_name(repo.repo_id))
    with open(os.path.join(base, "refs", "main"), "rb") as f:
        s.expect(f.read() == repo.commit.encode(), "refs/main is not the commit")
    for n in pulled_files(repo):
        s.expect(os.path.islink(os.path.join(base, "snapshots", repo.commit, n)), "snapshot lacks " + n)


@scenario
def hand_written_cache_with_symlinks_is_found_offline(suite, s):
    hand_cache(suite, s, "org/tiny-gpt2")
    r = offline_show(suite, s, "org/tiny-gpt2")
    s.ok_run(r, "offline show of a hand-written cache")
    runs_as(s, r, snapshot_path(s, suite.repo("org/tiny-gpt2")), "show --model org/tiny-gpt2")


@scenario
def hand_written_cache_of_plain_files_is_found_offline(suite, s):
    hand_cache(suite, s, "org/tiny-gpt2", symlinks=False)
    r = offline_show(suite, s, "org/tiny-gpt2")
    s.ok_run(r, "offline show of a cache without symlinks")
    runs_as(s, r, snapshot_path(s, suite.repo("org/tiny-gpt2")), "show --model org/tiny-gpt2")


@scenario
def ref_with_a_trailing_newline_is_read(suite, s):
    repo = suite.repo("org/tiny-gpt2")
    hand_cache(suite, s, "org/tiny-gpt2", ref_text=repo.commit + "\n")
    s.ok_run(offline_show(suite, s, "org/tiny-gpt2"), "offline show with refs/main ending in a newline")


@scenario
def commit_revision_uses_its_snapshot_without_refs(suite, s):
    repo = suite.repo("org/tiny-gpt2")
    hand_cache(suite, s, "org/tiny-gpt2", ref=None)
    r = offline_show(suite, s, "org/tiny-gpt2@" + repo.commit)
    s.ok_run(r, "offline show --model org/tiny-gpt2@<commit> with no refs/")
    s.expect(repo.commit in r.stderr, "stderr does not name the snapshot")
    r = offline_show(suite, s, "org/tiny-gpt2")
    s.error(r, "offline show --model org/tiny-gpt2 with no refs/main", "cache")


@scenario
def models_cached_lists_repos_commits_and_families(suite, s):
    snaps = {rid: hand_cache(suite, s, rid) for rid in ("gpt2", "org/tiny-gpt2")}
    env = s.env(HF_HUB_OFFLINE="1")
    r = s.attn(["models", "--cached"], env=env)
    s.ok_run(r, "attn models --cached")
    for rid in snaps:
        s.expect(rid in r.stdout, "attn models --cached does not list %s" % rid)
    r = s.attn(["models", "--cached", "--json"], env=env)
    s.ok_run(r, "attn models --cached --json")
    try:
        rows = json.loads(r.stdout)
    except ValueError:
        raise Failed("--cached --json is not JSON: %r" % r.stdout[:200])
    s.expect(isinstance(rows, list), "--cached --json is not an array")
    by_repo = {e.get("repo"): e for e in rows if isinstance(e, dict)}
    for rid, snap in snaps.items():
        e = by_repo.get(rid)
        if not s.expect(e is not None, "--cached --json has no entry for %s" % rid):
            continue
        s.expect(e.get("commit") == suite.repo(rid).commit, "%s: commit %r" % (rid, e.get("commit")))
        s.expect(e.get("family") == "gpt2", "%s: family %r" % (rid, e.get("family")))
        s.expect(isinstance(e.get("path"), str) and os.path.realpath(e["path"]) == os.path.realpath(snap),
                 "%s: path %r, want %s" % (rid, e.get("path"), snap))


# interop with npm's @huggingface/hub ---------------------------------------------------------------
def js_download(modules, hub_url, cache, repo_id, rev="main", files=()):
    return subprocess.run(["node", os.path.join(HERE, "hf_client_download.mjs"), modules, hub_url, cache, repo_id, rev]
                          + list(files), capture_output=True, text=True, timeout=120,
                          env=dict({k: v for k, v in os.environ.items() if not k.startswith("HF_")},
                                   no_proxy="127.0.0.1", NO_PROXY="127.0.0.1"))


def npm_missing(modules):
    if not shutil.which("node"):
        return "no node on PATH (scripts/setup.sh --tests installs it)"
    if not modules or not os.path.isfile(os.path.join(modules, "@huggingface", "hub", "package.json")):
        return "no @huggingface/hub in %s (scripts/setup.sh --tests installs it)" % (modules or "--npm-modules")
    return None


def tree(cache, repo_id):
    """refs bytes, snapshot links and blob contents of one repo folder."""
    base = os.path.join(cache, folder_name(repo_id))
    out = {"refs": {}, "links": {}, "blobs": {}}
    for sub in ("refs", "snapshots", "blobs"):
        for root, _, names in os.walk(os.path.join(base, sub)):
            for n in names:
                p = os.path.join(root, n)
                rel = os.path.relpath(p, base)
                if sub == "snapshots":
                    out["links"][rel] = os.readlink(p) if os.path.islink(p) else "(a regular file)"
                else:
                    with open(p, "rb") as f:
                        out[sub][rel] = f.read()
    return out


@scenario
def npm_client_writes_the_same_cache(suite, s):
    why = npm_missing(suite.npm_modules)
    if why:
        return why
    # a hub of its own whose repos hold exactly the files attn fetches, so a whole-repo snapshot compares
    repos = [Repo("gpt2", commit_of("gpt2"), files_of(suite.models.gpt2)),
             Repo("org/tiny-gpt2-sharded", commit_of("sharded"), files_of(suite.models.sharded))]
    with FakeHub(repos) as hub:
        for repo in repos:
            js_cache = os.path.join(s.tmp, "js-cache")
            r = js_download(suite.npm_modules, hub.hub_url, js_cache, repo.repo_id)
            if not s.expect(r.returncode == 0, "@huggingface/hub: %s" % r.stderr.strip()[-300:]):
                continue
            r = s.attn(["pull", repo.repo_id], env=s.env(HF_ENDPOINT=hub.hub_url))
            s.ok_run(r, "attn pull " + repo.repo_id)
            a, b = tree(s.cache, repo.repo_id), tree(js_cache, repo.repo_id)
            s.expect(a["refs"] == b["refs"], "%s: refs differ: attn %s, @huggingface/hub %s" % (repo.repo_id, a["refs"], b["refs"]))
            s.expect(a["links"] == b["links"], "%s: links differ: attn %s, @huggingface/hub %s" % (repo.repo_id, a["links"], b["links"]))
            s.expect(sorted(a["blobs"]) == sorted(b["blobs"]), "%s: blob names differ: %s vs %s"
                     % (repo.repo_id, sorted(a["blobs"]), sorted(b["blobs"])))
            s.expect(a["blobs"] == b["blobs"], "%s: blob contents differ" % repo.repo_id)
            s.expect(a["links"], "%s: nothing compared" % repo.repo_id)
        s.expect(not any(e["auth"] for e in hub.log), "a request to the interop hub carried Authorization")
    s.placed.add(os.path.join(s.tmp, "js-cache"))


# last: over the whole run ----------------------------------------------------------------------------
@scenario
def cdn_never_received_authorization(suite, s):
    cdn = suite.hub.entries(0, server="cdn")
    s.expect(cdn, "the CDN received no request in the whole run")
    bad = [e["path"] for e in cdn if e["auth"]]
    s.expect(not bad, "the CDN received Authorization %d times: %s" % (len(bad), bad[:3]))


# the fake hub itself ---------------------------------------------------------------------------------
def request(base, method, path, headers=None, body=None):
    u = urllib.parse.urlsplit(base)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    try:
        data = r.read()
    except http.client.IncompleteRead as e:
        data = e
    c.close()
    return r, data


def self_test(npm_modules):
    problems = []

    def expect(cond, what):
        if not cond:
            problems.append(what)

    expect(git_blob_sha1(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a", "git blob sha1 of 'hello\\n'")
    expect(git_blob_sha1(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391", "git blob sha1 of the empty file")
    data = bytes(range(256)) * 4
    text = b'{"model_type": "gpt2"}'
    commit, pr = commit_of("c"), commit_of("pr")
    files = {"config.json": File(text), "model.safetensors": File(data, lfs=True),
             "cut.bin": File(data + b"x", lfs=True, cut="once"), "norange.bin": File(data + b"y", lfs=True, ignore_range=True)}
    repos = [Repo("org/m", commit, files, refs={"main": commit, "refs/pr/1": pr}),
             Repo("org/g", commit, {"config.json": File(text)}, gated=True),
             Repo("old/m", commit, {}, renamed_to="org/m"), Repo("org/loop", commit, {}, loop=True)]
    with FakeHub(repos, token=TOKEN) as hub:
        r, _ = request(hub.hub_url, "HEAD", "/org/m/resolve/main/config.json")
        expect(r.status == 200, "HEAD git file: %d" % r.status)
        expect(r.getheader("ETag") == '"%s"' % git_blob_sha1(text), "git ETag %s" % r.getheader("ETag"))
        expect(r.getheader("X-Repo-Commit") == commit, "X-Repo-Commit on a git file")
        expect(r.getheader("Content-Length") == str(len(text)), "Content-Length on HEAD")
        r, body = request(hub.hub_url, "GET", "/org/m/resolve/main/config.json")
        expect(r.status == 200 and body == text, "GET git file")
        r, _ = request(hub.hub_url, "HEAD", "/org/m/resolve/refs%2Fpr%2F1/config.json")
        expect(r.status == 200 and r.getheader("X-Repo-Commit") == pr, "refs%2Fpr%2F1 resolves to its commit")
        r, _ = request(hub.hub_url, "HEAD", "/org/m/resolve/%s/config.json" % pr)
        expect(r.status == 200 and r.getheader("X-Repo-Commit") == pr, "a commit revision resolves to itself")
        r, _ = request(hub.hub_url, "HEAD", "/org/m/resolve/main/model.safetensors")
        loc = r.getheader("Location") or ""
        expect(r.status == 302, "HEAD LFS file: %d" % r.status)
        expect(loc.startswith(hub.cdn_url + "/cdn/" + sha256(data) + "?X-Amz-Expires=3600"), "LFS Location %s" % loc)
        expect(r.getheader("X-Linked-Etag") == '"%s"' % sha256(data), "X-Linked-Etag")
        expect(r.getheader("X-Linked-Size") == str(len(data)), "X-Linked-Size")
        expect(r.getheader("X-Repo-Commit") == commit, "X-Repo-Commit on an LFS file")
        cdn_path = loc[len(hub.cdn_url):]
        r, body = request(hub.cdn_url, "GET", cdn_path)
        expect(r.status == 200 and body == data, "CDN GET")
        r, body = request(hub.cdn_url, "GET", cdn_path, {"Range": "bytes=100-"})
        expect(r.status == 206 and body == data[100:], "CDN Range: %d" % r.status)
        expect(r.getheader("Content-Range") == "bytes 100-%d/%d" % (len(data) - 1, len(data)), "Content-Range")
        r, body = request(hub.cdn_url, "GET", cdn_path, {"Authorization": "Bearer " + TOKEN})
        expect(r.status == 400, "CDN with Authorization: %d" % r.status)
        expect(any(e["server"] == "cdn" and e["auth"] for e in hub.log), "the CDN's Authorization is in the log")
        r, _ = request(hub.hub_url, "HEAD", "/org/m/resolve/main/cut.bin")
        cut_path = r.getheader("Location")[len(hub.cdn_url):]
        r, body = request(hub.cdn_url, "GET", cut_path)
        expect(isinstance(body, http.client.IncompleteRead), "cut once: the first body is cut")
        r, body = request(hub.cdn_url, "GET", cut_path, {"Range": "bytes=10-"})
        expect(r.status == 206 and body == (data + b"x")[10:], "cut once: the Range retry is whole")
        r, _ = request(hub.hub_url, "HEAD", "/org/m/resolve/main/norange.bin")
        r, body = request(hub.cdn_url, "GET", r.getheader("Location")[len(hub.cdn_url):], {"Range": "bytes=10-"})
        expect(r.status == 200 and body == data + b"y", "ignore-range CDN answers 200 with everything")
        for path, auth, status, code in (("/org/missing/resolve/main/config.json", None, 401, "RepoNotFound"),
                                         ("/org/missing/resolve/main/config.json", TOKEN, 404, "RepoNotFound"),
                                         ("/org/m/resolve/nope/config.json", None, 404, "RevisionNotFound"),
                                         ("/org/m/resolve/main/absent.json", None, 404, "EntryNotFound"),
                                         ("/org/g/resolve/main/config.json", None, 401, "GatedRepo"),
                                         ("/org/g/resolve/main/config.json", "hf_wrong", 401, "GatedRepo")):
            r, _ = request(hub.hub_url, "HEAD", path, {"Authorization": "Bearer " + auth} if auth else {})
            expect(r.status == status and r.getheader("X-Error-Code") == code,
                   "%s: %d %s, want %d %s" % (path, r.status, r.getheader("X-Error-Code"), status, code))
        r, _ = request(hub.hub_url, "HEAD", "/org/m/resolve/main/absent.json")
        expect(r.getheader("X-Repo-Commit") == commit, "EntryNotFound carries X-Repo-Commit")
        r, _ = request(hub.hub_url, "HEAD", "/org/g/resolve/main/config.json", {"Authorization": "Bearer " + TOKEN})
        expect(r.status == 200, "gated with the token: %d" % r.status)
        r, _ = request(hub.hub_url, "HEAD", "/old/m/resolve/main/config.json")
        expect(r.status == 307 and r.getheader("Location") == "/org/m/resolve/main/config.json",
               "renamed: %d %s" % (r.status, r.getheader("Location")))
        r, _ = request(hub.hub_url, "HEAD", "/org/loop/resolve/main/config.json")
        expect(r.status == 307 and r.getheader("Location") == "/org/loop/resolve/main/config.json", "loop")
        r, body = request(hub.hub_url, "GET", "/api/models/org/m/revision/main")
        expect(r.status == 200 and json.loads(body)["sha"] == commit, "api revision")
        r, body = request(hub.hub_url, "GET", "/api/models/org/m/tree/main?recursive=true")
        t = {e["path"]: e for e in json.loads(body)}
        expect(t["model.safetensors"]["lfs"]["oid"] == sha256(data) and t["config.json"]["oid"] == git_blob_sha1(text),
               "api tree oids")
        r, body = request(hub.hub_url, "POST", "/api/models/org/m/paths-info/main", {"Content-Type": "application/json"},
                          json.dumps({"paths": ["config.json"], "expand": True}).encode())
        expect(json.loads(body)[0]["lastCommit"]["id"] == commit, "api paths-info")
    print(("FAIL fake_hub_answers_as_hub_md_says: " + " | ".join(problems)) if problems else
          "ok   fake_hub_answers_as_hub_md_says", flush=True)
    failed = bool(problems)

    why = npm_missing(npm_modules)
    if why:
        print("skip npm_client_downloads_from_the_fake_hub: " + why, flush=True)
        return failed
    problems = []
    root = tempfile.mkdtemp(prefix="attn-hub-self-")
    try:
        files = {"config.json": File(text), "vocab.json": File(b'{"a": 0}'), "model.safetensors": File(data, lfs=True)}
        repo = Repo("org/m", commit, files)
        with FakeHub([repo]) as hub:
            r = js_download(npm_modules, hub.hub_url, root, "org/m")
            expect(r.returncode == 0, "snapshotDownload: " + r.stderr.strip()[-300:])
            t = tree(root, "org/m")
            expect(t["refs"] == {"refs/main": commit.encode()}, "refs/main: %s" % t["refs"])
            want = {"snapshots/%s/%s" % (commit, n): "../../blobs/" + f.real_etag for n, f in files.items()}
            expect(t["links"] == want, "links %s" % t["links"])
            expect(t["blobs"] == {"blobs/" + f.real_etag: f.data for f in files.values()}, "blobs")
            expect(not any(e["server"] == "cdn" and e["auth"] for e in hub.log), "CDN got Authorization")
            expect(any(e["server"] == "cdn" for e in hub.log), "the CDN was not used")
            os.makedirs(os.path.join(root, "one"))
            r = js_download(npm_modules, hub.hub_url, os.path.join(root, "one"), "org/m", commit, ["config.json"])
            expect(r.returncode == 0, "downloadFileToCacheDir: " + r.stderr.strip()[-300:])
            p = os.path.join(root, "one", "models--org--m", "snapshots", commit, "config.json")
            expect(os.path.islink(p) and os.readlink(p) == "../../blobs/" + files["config.json"].real_etag,
                   "downloadFileToCacheDir link")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(("FAIL npm_client_downloads_from_the_fake_hub: " + " | ".join(problems)) if problems else
          "ok   npm_client_downloads_from_the_fake_hub", flush=True)
    return failed or bool(problems)


# each rule the reference breaks on purpose (reference_attn.py ATTN_REF_BREAK) and the scenarios that must
# then fail: the scenarios can fail, and each fails for the rule it names
MUTANTS = {
    "ref-newline": ["pull_gpt2_writes_huggingface_hub_layout", "npm_client_writes_the_same_cache"],
    "absolute-links": ["pull_gpt2_writes_huggingface_hub_layout", "npm_client_writes_the_same_cache"],
    "no-no-exist": ["pull_gpt2_writes_huggingface_hub_layout"],
    "token-to-cdn": ["token_from_hf_token", "cdn_never_received_authorization"],
    "print-token": ["token_from_hf_token"],
    "no-sha256": ["sha256_mismatch_is_refused"],
    "keep-incomplete": ["cdn_that_always_cuts_leaves_no_partial_blob"],
    "no-resume": ["cdn_that_cuts_once_is_resumed_with_range"],
    "no-range-restart": ["cdn_that_ignores_range_still_gives_the_right_blob"],
    "no-etag-check": ["hostile_etag_on_a_git_file_is_refused", "hostile_etag_on_an_lfs_file_is_refused"],
    "no-commit-check": ["hostile_commit_with_dots_is_refused", "hostile_commit_of_39_hex_is_refused"],
    "no-shard-check": ["hostile_shard_name_with_dots_is_refused", "hostile_shard_name_absolute_is_refused"],
    "ignore-offline": ["offline_with_nothing_cached_says_attn_pull"],
    "cache-order": ["cache_location_follows_the_environment_order"],
    "folder-loses": ["local_folder_wins_over_the_cache"],
    "stray-file": ["pull_gpt2_writes_huggingface_hub_layout"],
}


def reference_wrapper(folder, real_attn, breaks=""):
    """An executable that runs reference_attn.py with the real attn behind it."""
    path = os.path.join(folder, "attn-reference" + ("-" + breaks if breaks else ""))
    with open(path, "w") as f:
        f.write("#!/bin/sh\nATTN_REAL='%s' ATTN_REF_BREAK='%s' exec '%s' '%s' \"$@\"\n"
                % (real_attn, breaks, sys.executable, os.path.join(HERE, "reference_attn.py")))
    os.chmod(path, 0o755)
    return path


def self_test_reference(real_attn, npm_modules):
    """Every scenario passes on reference_attn.py; each broken variant fails the scenarios named for it."""
    failed = False
    root = tempfile.mkdtemp(prefix="attn-hub-ref-")
    try:
        models = Models(root)
        suite = Suite(reference_wrapper(root, real_attn), npm_modules, set(), models, quiet=True)
        try:
            suite.run(SCENARIOS)
        finally:
            suite.close()
        bad = [line for line in suite.results.values() if not line.startswith(("ok", "skip"))]
        skipped = [line for line in suite.results.values() if line.startswith("skip")]
        print(("FAIL every_scenario_passes_on_the_reference: " + " | ".join(bad)) if bad else
              "ok   every_scenario_passes_on_the_reference (%d scenarios%s)"
              % (len(suite.results), ", " + "; ".join(skipped) if skipped else ""), flush=True)
        failed |= bool(bad)
        for brk, names in MUTANTS.items():
            suite = Suite(reference_wrapper(root, real_attn, brk), npm_modules, set(names), models, quiet=True)
            try:
                suite.run(SCENARIOS)
            finally:
                suite.close()
            survived = [n for n in names if not suite.results.get(n, "").startswith("FAIL")]
            if npm_missing(npm_modules) and "npm_client_writes_the_same_cache" in survived:
                survived.remove("npm_client_writes_the_same_cache")
            print(("FAIL reference_with_%s_fails: %s still pass" % (brk, survived)) if survived else
                  "ok   reference_with_%s_fails: %s" % (brk, ", ".join(names)), flush=True)
            failed |= bool(survived)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return failed


def main():
    args = sys.argv[1:]
    npm = None
    if "--npm-modules" in args:
        i = args.index("--npm-modules")
        npm = args[i + 1]
        del args[i:i + 2]
    if "--self-test" in args:
        args.remove("--self-test")
        failed = self_test(npm)
        if args[:1] == ["--attn"]:  # the scenarios on the reference implementation, with this attn behind it
            failed |= self_test_reference(os.path.abspath(args[1]), npm)
        else:
            print("skip every_scenario_passes_on_the_reference: no --attn ATTN_BINARY given")
        sys.exit(1 if failed else 0)
    only = set()
    while "--only" in args:
        i = args.index("--only")
        only.add(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    suite = Suite(os.path.abspath(args[0]), npm, only)
    try:
        suite.run(SCENARIOS + ATTN_ONLY)
    finally:
        suite.close()
    ran = len(suite.results)
    skipped = len([r for r in suite.results.values() if r.startswith("skip")])
    print("%d of %d scenarios failed" % (suite.failed, ran) if suite.failed else
          "all %d scenarios passed" % (ran - skipped) + (", %d skipped (said why above)" % skipped if skipped else ""))
    sys.exit(1 if suite.failed else 0)


if __name__ == "__main__":
    main()
