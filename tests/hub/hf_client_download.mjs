// Downloads a repo into a Hugging Face cache with npm's @huggingface/hub (an independent client that
// writes huggingface_hub's layout: refs/<rev>, blobs/<etag>, relative links in snapshots/<commit>).
// Usage: node hf_client_download.mjs NODE_MODULES HUB_URL CACHE_DIR REPO [REV [FILE...]]
//   no FILE: snapshotDownload (revision info, the file tree, every file)
//   FILEs:   downloadFileToCacheDir for each, at REV
// Prints one JSON line: {"snapshot": path} or {"files": [pointer paths]}; exit 1 with the error otherwise.
import { createRequire } from "node:module";
import path from "node:path";

const [modules, hubUrl, cacheDir, repo, rev, ...files] = process.argv.slice(2);
if (!repo) {
  console.error("usage: node hf_client_download.mjs NODE_MODULES HUB_URL CACHE_DIR REPO [REV [FILE...]]");
  process.exit(2);
}
const require = createRequire(path.join(modules, "noop.js"));
const hub = require("@huggingface/hub");
console.debug = () => {};  // the client logs each download on console.debug
const accessToken = process.env.HF_TOKEN || undefined;
try {
  if (files.length === 0) {
    const snapshot = await hub.snapshotDownload({ repo, revision: rev || "main", hubUrl, cacheDir, accessToken });
    console.log(JSON.stringify({ snapshot }));
  } else {
    const out = [];
    for (const file of files)
      out.push(await hub.downloadFileToCacheDir({ repo, path: file, revision: rev || "main", hubUrl, cacheDir, accessToken }));
    console.log(JSON.stringify({ files: out }));
  }
} catch (e) {
  console.error(`hf_client_download: ${e && e.message ? e.message : e}`);
  process.exit(1);
}
