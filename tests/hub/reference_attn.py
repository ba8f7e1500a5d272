#!/usr/bin/python3
"""A plain Python stand-in for attn's Hugging Face commands, written from tests/hub's contract
(huggingface_hub's cache and download protocol), so that hub_check.py's scenarios are shown to pass on a
correct implementation and the fake hub to be usable, independently of attn's own code.

  reference_attn.py pull NAME[@REV]           download into the cache, print the snapshot folder
  reference_attn.py show ... --model NAME ...  NAME: a folder, else the cache (downloading first when
                                               online); then runs the real attn ($ATTN_REAL) on the folder
  reference_attn.py models --cached [--json]   the cached repos
Anything else goes to $ATTN_REAL unchanged. Errors: "attn: message" (and a hint line), exit 1.

ATTN_REF_BREAK=NAME[,NAME] breaks one rule on purpose (hub_check.py --self-test shows that the scenario
checking that rule then fails): ref-newline, absolute-links, no-no-exist, token-to-cdn, print-token,
no-sha256, keep-incomplete, no-resume, no-etag-check, no-commit-check, no-shard-check, ignore-offline,
cache-order, folder-loses, no-range-restart, stray-file."""
import hashlib
import http.client
import json
import os
import re
import signal
import sys
import urllib.parse

OPTIONAL = ["generation_config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
            "added_tokens.json", "vocab.json", "merges.txt", "vocab.txt", "spiece.model", "source.spm", "target.spm",
            "target_vocab.json"]
JSON_LIMIT = 64 << 20
HEX40 = re.compile(r"^[0-9a-f]{40}$")
ETAG = re.compile(r"^[0-9a-f]{40}$|^[0-9a-f]{64}$")
REPO = re.compile(r"^(\b[\w\-.]+\b/)?\b[\w\-.]{1,96}\b$")
incomplete = []
BREAK = set(filter(None, os.environ.get("ATTN_REF_BREAK", "").split(",")))


class Missing(Exception):
    pass


def fail(message, hint=None):
    for p in incomplete if "keep-incomplete" not in BREAK else []:
        try:
            os.remove(p)
        except OSError:
            pass
    sys.stderr.write("attn: %s\n" % message + ("%s\n" % hint if hint else ""))
    sys.exit(1)


def on_sigint(*_):
    for p in incomplete:
        try:
            os.remove(p)
        except OSError:
            pass
    os._exit(130)


def truthy(v):
    return (v or "").strip().upper() in ("1", "ON", "YES", "TRUE")


def cache_dir():
    e = os.environ
    hf_home = e.get("HF_HOME") or os.path.join(e.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface")
    if "cache-order" in BREAK and e.get("HF_HOME"):
        return os.path.join(e["HF_HOME"], "hub")
    return e.get("HF_HUB_CACHE") or e.get("HUGGINGFACE_HUB_CACHE") or os.path.join(hf_home, "hub")


def token():
    e = os.environ
    for k in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        if e.get(k, "").strip():
            return e[k].replace("\r", "").replace("\n", "").strip()
    hf_home = e.get("HF_HOME") or os.path.join(e.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "huggingface")
    path = e.get("HF_TOKEN_PATH") or os.path.join(hf_home, "token")
    try:
        with open(path) as f:
            return f.read().replace("\r", "").replace("\n", "").strip() or None
    except OSError:
        return None


def parse_name(name):
    repo, _, rev = name.partition("@")
    if not REPO.match(repo) or "--" in repo or ".." in repo or repo.endswith(".git"):
        fail("'%s' is not a Hugging Face repo id" % name, "a repo id is NAME or ORG/NAME")
    return repo, rev or "main"


def safe_relative(name):
    """A relative POSIX path with no empty, '.' or '..' segment, no backslash, no NUL."""
    return bool(name) and not name.startswith("/") and "\\" not in name and "\0" not in name and \
        all(p not in ("", ".", "..") for p in name.split("/"))


def request(method, url, headers):
    u = urllib.parse.urlsplit(url)
    c = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    c.request(method, u.path + ("?" + u.query if u.query else ""), headers=headers)
    return c, c.getresponse()


class Hub:
    def __init__(self, repo, rev):
        self.endpoint = (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").rstrip("/")
        self.repo, self.rev, self.token = repo, rev, token()
        self.base = os.path.join(cache_dir(), "models--" + repo.replace("/", "--"))

    def auth(self):
        return {"Authorization": "Bearer " + self.token} if self.token else {}

    def head(self, name):
        url = "%s/%s/resolve/%s/%s" % (self.endpoint, self.repo, urllib.parse.quote(self.rev, safe=""),
                                       urllib.parse.quote(name))
        for _ in range(6):
            c, r = request("HEAD", url, dict(self.auth(), **{"Accept-Encoding": "identity", "User-Agent": "attn-ref"}))
            c.close()
            loc = r.getheader("Location")
            if 300 <= r.status < 400 and loc and not urllib.parse.urlsplit(loc).netloc:
                url = self.endpoint + loc
                continue
            break
        else:
            fail("%s: too many redirects from the hub" % name)
        code = r.getheader("X-Error-Code")
        if code == "GatedRepo":
            fail("%s is a gated repo: accept its licence on the hub" % self.repo, "then set HF_TOKEN to an access token")
        if code == "RepoNotFound" or (r.status in (401, 404) and not code):
            fail("repo %s not found on %s" % (self.repo, self.endpoint), "check the name, or set HF_TOKEN for a private repo")
        if code == "RevisionNotFound":
            fail("revision '%s' not found in %s" % (self.rev, self.repo))
        commit = r.getheader("X-Repo-Commit")
        if code == "EntryNotFound":
            if commit is not None and HEX40.match(commit):
                raise Missing(commit)
            fail("%s: not found, and the hub sent no valid commit" % name)
        if r.status >= 400:
            fail("%s: HTTP %d from the hub" % (name, r.status))
        if commit is None or (not HEX40.match(commit) and "no-commit-check" not in BREAK):
            fail("%s: the hub's commit %r is not 40 hex digits" % (name, (commit or "")[:60]))
        etag = (r.getheader("X-Linked-Etag") or r.getheader("ETag") or "")
        etag = etag[2:] if etag.startswith("W/") else etag
        etag = etag.strip('"')
        if not ETAG.match(etag) and "no-etag-check" not in BREAK:
            fail("%s: the hub's etag %r is not a hash" % (name, etag[:60]))
        size = r.getheader("X-Linked-Size") or (r.getheader("Content-Length") if r.status < 300 else None)
        if size is None or not size.isdigit():
            fail("%s: no size from the hub" % name)
        return commit, etag, int(size), (loc if 300 <= r.status < 400 and loc else url)

    def fetch(self, name, required=False):
        try:
            commit, etag, size, location = self.head(name)
        except Missing as m:
            if required:
                fail("%s has no %s at %s" % (self.repo, name, self.rev))
            if "no-no-exist" in BREAK:
                return None
            p = os.path.join(self.base, ".no_exist", m.args[0], name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            open(p, "wb").close()
            return None
        if name.endswith(".json") and size > JSON_LIMIT:
            fail("%s: announced size %d bytes is over the %d-byte limit for JSON" % (name, size, JSON_LIMIT))
        self.commit = commit
        if not HEX40.match(self.rev):
            ref = os.path.join(self.base, "refs", self.rev)
            os.makedirs(os.path.dirname(ref), exist_ok=True)
            with open(ref, "w") as f:
                f.write(commit + ("\n" if "ref-newline" in BREAK else ""))
        blob = os.path.join(self.base, "blobs", etag)
        os.makedirs(os.path.dirname(blob), exist_ok=True)
        if not os.path.exists(blob):
            self.download(name, location, blob, etag, size)
        link = os.path.join(self.base, "snapshots", commit, name)
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if not os.path.lexists(link):
            os.symlink(os.path.abspath(blob) if "absolute-links" in BREAK else
                       "../" * (2 + name.count("/")) + "blobs/" + etag, link)
        return link

    def download(self, name, url, blob, etag, size):
        tmp = "%s.%s.incomplete" % (blob, os.urandom(4).hex())
        incomplete.append(tmp)
        same = urllib.parse.urlsplit(url).netloc == urllib.parse.urlsplit(self.endpoint).netloc
        with open(tmp, "wb") as out:
            for _ in range(5):
                have = out.tell()
                if have and "no-resume" in BREAK:
                    fail("%s: the download was cut" % name)
                headers = dict(self.auth() if same or "token-to-cdn" in BREAK else {}, **({"Range": "bytes=%d-" % have} if have else {}))
                c, r = request("GET", url, headers)
                if r.status == 416:  # nothing left to read: the size header was wrong
                    break
                if r.status >= 400:
                    fail("%s: HTTP %d from %s" % (name, r.status, "the hub" if same else "the download server"))
                if have and r.status == 200 and "no-range-restart" not in BREAK:
                    out.seek(0)
                    out.truncate()
                try:
                    while True:
                        chunk = r.read(65536)
                        if not chunk:
                            break
                        out.write(chunk)
                        if out.tell() > size:
                            break
                except (http.client.IncompleteRead, OSError):
                    pass
                c.close()
                if out.tell() >= size:
                    break
        got = os.path.getsize(tmp)
        if got != size:
            fail("%s: got %d bytes, the hub's size is %d" % (name, got, size))
        with open(tmp, "rb") as f:
            data = f.read()
        if len(etag) == 64 and "no-sha256" not in BREAK and hashlib.sha256(data).hexdigest() != etag:
            fail("%s: the sha256 of the download is not its etag %s" % (name, etag))
        os.replace(tmp, blob)
        incomplete.remove(tmp)

    def pull(self):
        self.commit = None
        self.fetch("config.json", required=True)
        for n in OPTIONAL:
            self.fetch(n)
        for single, index in (("model.safetensors", "model.safetensors.index.json"),
                              ("pytorch_model.bin", "pytorch_model.bin.index.json")):
            if self.fetch(single):
                break
            link = self.fetch(index)
            if link:
                with open(link) as f:
                    shards = sorted(set(json.load(f)["weight_map"].values()))
                for s in shards:
                    if "no-shard-check" not in BREAK and (not safe_relative(s) or not s.endswith((".safetensors", ".bin"))):
                        fail("%s names the shard '%s', not a file name in the repo" % (index, s))
                for s in shards:
                    self.fetch(s, required=True)
                break
        else:
            fail("%s has no weights (model.safetensors or pytorch_model.bin)" % self.repo)
        return os.path.join(self.base, "snapshots", self.commit)


def cached(repo, rev):
    base = os.path.join(cache_dir(), "models--" + repo.replace("/", "--"))
    commit = rev
    if not HEX40.match(rev):
        try:
            with open(os.path.join(base, "refs", rev)) as f:
                commit = f.read().strip()
        except OSError:
            return None
    snap = os.path.join(base, "snapshots", commit)
    return snap if os.path.isfile(os.path.join(snap, "config.json")) else None


def run_real(args):
    real = os.environ["ATTN_REAL"]
    os.execv(real, [real] + args)


def main():
    signal.signal(signal.SIGINT, on_sigint)
    args = sys.argv[1:]
    offline = "ignore-offline" not in BREAK and (
        "--offline" in args or truthy(os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE")))
    args = [a for a in args if a != "--offline"]
    if args[:1] == ["pull"] and len(args) == 2:
        repo, rev = parse_name(args[1])
        if offline:
            fail("offline: cannot pull %s" % args[1])
        hub = Hub(repo, rev)
        print(hub.pull())
        if "stray-file" in BREAK:
            open(os.path.expanduser("~/.attn_stray"), "w").close()
        if "print-token" in BREAK and hub.token:
            sys.stderr.write("attn: pulled with the token %s\n" % hub.token)
        return
    if args[:2] == ["models", "--cached"]:
        rows = []
        root = cache_dir()
        for d in sorted(os.listdir(root)) if os.path.isdir(root) else []:
            if not d.startswith("models--"):
                continue
            repo = "/".join(d.split("--")[1:])
            refs = os.path.join(root, d, "refs")
            for r in sorted(os.listdir(refs)) if os.path.isdir(refs) else []:
                snap = cached(repo, r)
                if snap:
                    with open(os.path.join(snap, "config.json")) as f:
                        family = json.load(f).get("model_type")
                    rows.append({"repo": repo, "revision": r, "commit": os.path.basename(snap), "family": family, "path": snap})
        if "--json" in args:
            print(json.dumps(rows))
        else:
            for r in rows:
                print("%s@%s  %s  %s  %s" % (r["repo"], r["revision"], r["family"], r["commit"], r["path"]))
        return
    if "--model" in args:
        i = args.index("--model") + 1
        name = args[i]
        if not os.path.isdir(name) or ("folder-loses" in BREAK and cached(*parse_name(name))):
            repo, rev = parse_name(name)
            snap = cached(repo, rev)
            if snap is None:
                if offline:
                    fail("%s is not in the Hugging Face cache %s (offline)" % (name, cache_dir()),
                         "download it first with: attn pull %s" % name)
                snap = Hub(repo, rev).pull()
            sys.stderr.write("attn: using %s from the cache: %s\n" % (name, snap))
            sys.stderr.flush()
            args[i] = snap
    run_real(args)


if __name__ == "__main__":
    main()
