#!/usr/bin/python3
"""A fake Hugging Face hub on 127.0.0.1 for attn's download tests (Python's standard library only).

Two threaded HTTP servers: the HUB (resolve URLs and the few API routes a client lists files with) and
a "CDN" that serves LFS content from pre-signed URLs, as huggingface.co and its storage do:

  HEAD|GET /{repo}/resolve/{rev}/{path}      (rev URL-encoded: refs%2Fpr%2F1)
    git file  -> 200, ETag "<git blob sha1>", X-Repo-Commit, Content-Length (GET honours Range: 206)
    LFS file  -> 302, absolute Location http://127.0.0.1:<cdn>/cdn/<sha256>?X-Amz-Expires=3600&...,
                 X-Linked-Etag "<sha256>", X-Linked-Size, X-Repo-Commit
    errors    -> X-Error-Code RepoNotFound (401 without a token, 404 with one), RevisionNotFound (404),
                 EntryNotFound (404 + X-Repo-Commit), GatedRepo (401 unless Bearer <token>)
  GET  /api/models/{repo}/revision/{rev}     {"id", "sha", "siblings": [{"rfilename"}], ...}
  GET  /api/models/{repo}/tree/{rev}         [{"type", "path", "size", "oid", "lfs"?}]
  POST /api/models/{repo}/paths-info/{rev}   the same entries for the paths asked, with lastCommit
  GET  (CDN) /cdn/<sha256>?...               200 or 206 + Content-Range; 400 to any request that
                                             carries an Authorization header (recorded in the log)

Traps, per repo (Repo fields) or per file (File fields): a renamed repo (relative 307), a redirect
loop, a hostile commit header, hostile etags, a size header that lies, LFS content whose sha256 is
not its etag, a CDN that cuts the body once or always, one that ignores Range, a slow one.

Every request is logged (server, method, path, Authorization present and its value, Range) in
FakeHub.log, which a test reads. As a program: fake_hub.py REPO_ID FOLDER [--lfs NAME ...] serves one
folder as a repo and prints {"hub": URL, "cdn": URL} as the first line of stdout."""
import hashlib
import http.server
import json
import os
import socketserver
import threading
import time
import urllib.parse


def git_blob_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def lfs_pointer(data):
    return ("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n" % (sha256(data), len(data))).encode()


class File:
    """One file of a repo. lfs: served from the CDN. Traps: etag (the etag header sent instead of the
    real one), size_delta (added to the size header), served (the bytes actually sent, when they are
    not `data`), size_header (a size header to send instead), cut ("once" or "always": the CDN or hub
    closes the connection half-way), ignore_range (the CDN answers 200 to a Range request), slow
    (seconds between chunks of `chunk` bytes)."""

    def __init__(self, data, lfs=False, etag=None, size_delta=0, served=None, size_header=None, cut=None,
                 ignore_range=False, slow=0.0, chunk=256, status=None, location=None):
        self.data = data
        self.status = status      # answer this HTTP status (without X-Error-Code) instead of the file
        self.location = location  # answer 302 to this address instead of the file (or its CDN)
        self.lfs = lfs
        self.real_etag = sha256(data) if lfs else git_blob_sha1(data)
        self.etag = etag if etag is not None else self.real_etag
        self.size_header = size_header if size_header is not None else len(data) + size_delta
        self.served = served if served is not None else data
        self.cut = cut
        self.ignore_range = ignore_range
        self.slow = slow
        self.chunk = chunk
        self.requests = 0  # GETs of the content so far (for cut="once")


class Repo:
    """A model repo: its id, the commit every branch and tag names unless refs says otherwise, and files.
    gated: answer 401 GatedRepo unless the hub's token arrives. renamed_to: a relative 307 to that repo.
    loop: a 307 to itself. commit_header: the X-Repo-Commit sent instead of the real commit.
    echo_auth: every resolve answers 400 with the request's Authorization header in X-Error-Message, as a
    careless proxy might (a client must not print it)."""

    def __init__(self, repo_id, commit, files, refs=None, gated=False, renamed_to=None, loop=False,
                 commit_header=None, echo_auth=False):
        self.repo_id = repo_id
        self.commit = commit
        self.files = files
        self.refs = dict(refs) if refs else {"main": commit}
        self.gated = gated
        self.renamed_to = renamed_to
        self.loop = loop
        self.commit_header = commit_header
        self.echo_auth = echo_auth

    def resolve(self, rev):
        """The commit a revision names, or None."""
        if rev in self.refs:
            return self.refs[rev]
        if rev in self.refs.values() or rev == self.commit:
            return rev
        return None

    def entry(self, path, commit, expand=False):
        f = self.files[path]
        pointer = lfs_pointer(f.data) if f.lfs else f.data
        e = {"type": "file", "path": path, "size": len(f.data), "oid": git_blob_sha1(pointer)}
        if f.lfs:
            e["lfs"] = {"oid": sha256(f.data), "size": len(f.data), "pointerSize": len(pointer)}
        if expand:
            e["lastCommit"] = {"id": commit, "title": "Upload", "date": "2026-01-01T00:00:00.000Z"}
        return e


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class FakeHub:
    def __init__(self, repos=(), token=None):
        self.repos = {r.repo_id: r for r in repos}
        self.token = token
        self.log = []
        self.lock = threading.Lock()
        self.cdn_files = {}  # signature -> File
        self.stopping = False
        hub = self

        class HubHandler(_Handler):
            server_name_ = "hub"
            owner = hub

            def route(self):
                hub._hub(self)

        class CdnHandler(_Handler):
            server_name_ = "cdn"
            owner = hub

            def route(self):
                hub._cdn(self)

        self.hub_server = _Server(("127.0.0.1", 0), HubHandler)
        self.cdn_server = _Server(("127.0.0.1", 0), CdnHandler)
        self.hub_url = "http://127.0.0.1:%d" % self.hub_server.server_address[1]
        self.cdn_url = "http://127.0.0.1:%d" % self.cdn_server.server_address[1]
        self.threads = []

    def add(self, repo):
        self.repos[repo.repo_id] = repo

    def start(self):
        for s in (self.hub_server, self.cdn_server):
            t = threading.Thread(target=s.serve_forever, daemon=True)
            t.start()
            self.threads.append(t)
        return self

    def stop(self):
        self.stopping = True
        for s in (self.hub_server, self.cdn_server):
            s.shutdown()
            s.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # the log ---------------------------------------------------------------------------------
    def record(self, handler, status):
        auth = handler.headers.get("Authorization")
        with self.lock:
            self.log.append({"server": handler.server_name_, "method": handler.command, "path": handler.path,
                             "auth": auth is not None, "auth_value": auth, "range": handler.headers.get("Range"),
                             "status": status, "time": time.time()})

    def entries(self, since=0, **match):
        with self.lock:
            rows = list(self.log[since:])
        return [r for r in rows if all(r.get(k) == v for k, v in match.items())]

    def mark(self):
        with self.lock:
            return len(self.log)

    # the hub ---------------------------------------------------------------------------------
    def _authorised(self, h):
        return self.token is not None and h.headers.get("Authorization") == "Bearer " + self.token

    def _find_repo(self, parts, marker):
        """(repo_id, index of the part after the repo id) when parts[1] or parts[2] is `marker`."""
        if len(parts) > 1 and parts[1] == marker:
            return urllib.parse.unquote(parts[0]), 2
        if len(parts) > 2 and parts[2] == marker:
            return urllib.parse.unquote(parts[0]) + "/" + urllib.parse.unquote(parts[1]), 3
        return None, None

    def _repo_error(self, h, repo_id):
        """The answer for a missing or gated repo, or None when the request may go on."""
        repo = self.repos.get(repo_id)
        if repo is None:
            status = 404 if h.headers.get("Authorization") else 401
            h.error(status, "RepoNotFound", "Repository Not Found for url: %s." % h.path)
            return True
        if repo.gated and not self._authorised(h):
            h.error(401, "GatedRepo", "Access to model %s is restricted. You must have access to it and be "
                    "authenticated to access it. Please log in." % repo_id)
            return True
        return False

    def _redirect_repo(self, h, repo, raw_parts_after_repo, prefix=""):
        """The relative 307 of a renamed repo or of a loop; True when sent."""
        if repo.renamed_to or repo.loop:
            target = repo.renamed_to if repo.renamed_to else repo.repo_id
            location = prefix + "/" + target + "/" + "/".join(raw_parts_after_repo)
            h.send(307, {"Location": location, "Content-Type": "text/plain"}, b"Temporary Redirect. Redirecting to " +
                   location.encode())
            return True
        return False

    def _hub(self, h):
        url = urllib.parse.urlsplit(h.path)
        parts = url.path.lstrip("/").split("/")
        if parts[0] == "api" and len(parts) > 1 and parts[1] == "models":
            return self._api(h, parts[2:], url.query)
        repo_id, i = self._find_repo(parts, "resolve")
        if repo_id is None or len(parts) < i + 2 or h.command not in ("GET", "HEAD"):
            return h.error(404, None, "Not Found")
        repo = self.repos.get(repo_id)
        if repo is not None and self._redirect_repo(h, repo, parts[i - 1:]):
            return
        if self._repo_error(h, repo_id):
            return
        if repo.echo_auth:
            return h.error(400, None, "bad request: %s" % h.headers.get("Authorization", "no authorization"))
        rev = urllib.parse.unquote(parts[i])
        path = urllib.parse.unquote("/".join(parts[i + 1:]))
        commit = repo.resolve(rev)
        if commit is None:
            return h.error(404, "RevisionNotFound", "Invalid rev id: %s" % rev)
        commit_header = repo.commit_header or commit
        f = repo.files.get(path)
        if f is None:
            return h.error(404, "EntryNotFound", "%s does not exist on \"%s\"" % (path, rev),
                           {"X-Repo-Commit": commit_header})
        if f.status:
            return h.error(f.status, None, "Not Found" if f.status == 404 else "Unauthorized", {"X-Repo-Commit": commit_header})
        if f.location:
            return h.send(302, {"Location": f.location, "X-Linked-Etag": '"%s"' % f.etag, "X-Linked-Size": str(f.size_header),
                                "X-Repo-Commit": commit_header, "ETag": '"%s"' % f.etag}, b"")
        if f.lfs:
            signature = "%s-%d" % (f.real_etag[:16], id(f))
            self.cdn_files[signature] = f
            location = "%s/cdn/%s?X-Amz-Expires=3600&X-Amz-Signature=%s" % (self.cdn_url, f.real_etag, signature)
            pointer = lfs_pointer(f.data)
            return h.send(302, {"Location": location, "X-Linked-Etag": '"%s"' % f.etag,
                                "X-Linked-Size": str(f.size_header), "X-Repo-Commit": commit_header,
                                "ETag": '"%s"' % git_blob_sha1(pointer), "Content-Type": "text/plain"},
                          b"Found. Redirecting to " + location.encode())
        headers = {"ETag": '"%s"' % f.etag, "X-Repo-Commit": commit_header, "Accept-Ranges": "bytes",
                   "Content-Type": "text/plain; charset=utf-8"}
        self._content(h, f, headers, git=True)

    def _api(self, h, parts, query):
        # models/{repo}/revision/{rev} | tree/{rev}[/path] | paths-info/{rev}
        for marker in ("revision", "tree", "paths-info"):
            repo_id, i = self._find_repo(parts, marker)
            if repo_id is not None:
                break
        else:
            return h.error(404, None, "Not Found")
        repo = self.repos.get(repo_id)
        if repo is not None and repo.renamed_to:
            return self._redirect_repo(h, repo, parts[i - 1:], prefix="/api/models")
        if self._repo_error(h, repo_id):
            return
        rev = urllib.parse.unquote(parts[i]) if len(parts) > i else "main"
        commit = repo.resolve(rev)
        if commit is None:
            return h.error(404, "RevisionNotFound", "Invalid rev id: %s" % rev)
        sha = repo.commit_header or commit
        if marker == "revision":
            body = {"_id": "fake" + sha256(repo_id.encode())[:20], "id": repo_id, "modelId": repo_id, "sha": sha,
                    "private": False, "gated": "auto" if repo.gated else False, "disabled": False,
                    "downloads": 0, "likes": 0, "tags": [], "pipeline_tag": "text-generation",
                    "library_name": "transformers", "lastModified": "2026-01-01T00:00:00.000Z",
                    "createdAt": "2026-01-01T00:00:00.000Z",
                    "siblings": [{"rfilename": p} for p in sorted(repo.files)]}
            return h.send_json(200, body)
        if marker == "tree":
            sub = urllib.parse.unquote("/".join(parts[i + 1:]))
            recursive = "recursive=true" in query or "recursive=1" in query
            entries, dirs = [], set()
            for p in sorted(repo.files):
                if sub and not p.startswith(sub + "/"):
                    continue
                rest = p[len(sub) + 1:] if sub else p
                if "/" in rest:
                    d = (sub + "/" if sub else "") + rest.split("/")[0]
                    if d not in dirs:
                        dirs.add(d)
                        entries.append({"type": "directory", "path": d, "size": 0, "oid": sha256(d.encode())[:40]})
                    if not recursive:
                        continue
                entries.append(repo.entry(p, commit))
            return h.send_json(200, entries)
        if h.command != "POST":
            return h.error(405, None, "Method Not Allowed")
        try:
            n = int(h.headers.get("Content-Length") or 0)
            ask = json.loads(h.rfile.read(n) or b"{}")
        except ValueError:
            return h.error(400, None, "Bad Request")
        expand = bool(ask.get("expand"))
        return h.send_json(200, [repo.entry(p, commit, expand) for p in ask.get("paths", []) if p in repo.files])

    # content, from the hub (git files) or the CDN (LFS) ----------------------------------------
    def _content(self, h, f, headers, git):
        total = len(f.served)
        if h.command == "HEAD":
            headers["Content-Length"] = str(f.size_header)
            return h.send(200, headers, b"", head_length=True)
        f.requests += 1
        start, end = 0, total - 1
        status = 200
        rng = h.headers.get("Range")
        if rng and not (f.ignore_range and not git):
            try:
                unit, spec = rng.split("=", 1)
                a, b = spec.split("-", 1)
                start = int(a)
                end = min(int(b), total - 1) if b else total - 1
                if unit.strip() != "bytes" or start > end or start >= total:
                    raise ValueError
            except ValueError:
                return h.send(416, {"Content-Range": "bytes */%d" % total}, b"")
            status = 206
            headers["Content-Range"] = "bytes %d-%d/%d" % (start, end, total)
        body = f.served[start:end + 1]
        cut = f.cut == "always" or (f.cut == "once" and f.requests == 1)
        headers["Content-Length"] = str(len(body))
        h.send_status_and_headers(status, headers)
        if cut:
            h.wfile.write(body[:max(1, len(body) // 2)])
            h.wfile.flush()
            h.close_connection = True
            return
        if f.slow:
            for k in range(0, len(body), f.chunk):
                if self.stopping:
                    return
                h.wfile.write(body[k:k + f.chunk])
                h.wfile.flush()
                time.sleep(f.slow)
        else:
            h.wfile.write(body)

    def _cdn(self, h):
        url = urllib.parse.urlsplit(h.path)
        q = urllib.parse.parse_qs(url.query)
        if h.headers.get("Authorization") is not None:
            # as S3 answers a pre-signed URL that also carries a token
            return h.error(400, None, "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, "
                           "Signature query string parameter or the Authorization header should be specified")
        f = self.cdn_files.get((q.get("X-Amz-Signature") or [""])[0])
        if f is None or not url.path.startswith("/cdn/") or h.command not in ("GET", "HEAD"):
            return h.error(403, None, "AccessDenied")
        self._content(h, f, {"ETag": '"%s"' % f.real_etag, "Accept-Ranges": "bytes",
                             "Content-Type": "application/octet-stream"}, git=False)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_name_ = "?"
    owner = None

    def log_message(self, *args):
        pass

    def handle_one_request(self):
        try:
            super().handle_one_request()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_GET(self):
        self.route()

    def do_HEAD(self):
        self.route()

    def do_POST(self):
        self.route()

    def send_status_and_headers(self, status, headers):
        self.owner.record(self, status)
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()

    def send(self, status, headers, body, head_length=False):
        headers = dict(headers)
        if not head_length:
            headers["Content-Length"] = str(len(body))
        self.send_status_and_headers(status, headers)
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, status, obj):
        self.send(status, {"Content-Type": "application/json; charset=utf-8"}, json.dumps(obj).encode())

    def error(self, status, code, message, extra=None):
        headers = {"Content-Type": "application/json; charset=utf-8", "X-Error-Message": message}
        if code:
            headers["X-Error-Code"] = code
        headers.update(extra or {})
        self.send(status, headers, json.dumps({"error": message}).encode())


def repo_from_folder(repo_id, folder, lfs_names=(), commit=None):
    files = {}
    for root, _, names in os.walk(folder):
        for n in names:
            p = os.path.join(root, n)
            rel = os.path.relpath(p, folder).replace(os.sep, "/")
            with open(p, "rb") as fh:
                files[rel] = File(fh.read(), lfs=rel in lfs_names or rel.endswith(".safetensors"))
    return Repo(repo_id, commit or sha256(repo_id.encode())[:40], files)


if __name__ == "__main__":
    import argparse

    a = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a.add_argument("repo_id")
    a.add_argument("folder")
    a.add_argument("--lfs", action="append", default=[], help="a file served from the CDN (.safetensors always are)")
    a.add_argument("--token", help="make the repo gated behind this token")
    o = a.parse_args()
    repo = repo_from_folder(o.repo_id, o.folder, o.lfs)
    repo.gated = bool(o.token)
    hub = FakeHub([repo], token=o.token).start()
    print(json.dumps({"hub": hub.hub_url, "cdn": hub.cdn_url, "commit": repo.commit}), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        hub.stop()
