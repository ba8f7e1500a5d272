  // ---- attn's core in a Web Worker: runs off the page's thread, asynchronous, cancellable -------------------
  //
  // The page carries the core once (<script id="attn-core">, cli/web/, and its .wasm); a worker named 'attn-core'
  // is started from that same text (a blob: URL, allowed by the page's worker-src) and given the module the
  // page compiled, and there cli/web/worker.js answers the
  // calls of cli/web/api.js. Every run (a seeded kind's, a model's) goes there, so the page keeps answering
  // while a long one computes, and a run can be cancelled: the worker is stopped and a new one started, into
  // which the model folders opened so far are read again from their files (they never leave the tab).
  // The page's own thread keeps its instance of the core for what is instant (parse, kinds).

  const coreWorker = { worker: null, url: null, wasm: null, next: 1, pending: new Map(), folders: new Map(), reloading: null };

  function startCoreWorker() {
    if (!coreWorker.url) {
      const text = document.getElementById('attn-core').textContent;
      coreWorker.url = URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
    }
    const w = new Worker(coreWorker.url, { name: 'attn-core' });
    w.postMessage({ wasmModule: coreWorker.wasm });  // compiled once, by the page (live.js)
    w.onmessage = (e) => settleCoreCall(e.data);
    // a worker that fails to start, or dies, fails every call in flight with one line
    w.onerror = (e) => {
      e.preventDefault();
      restartCoreWorker('attn: error: attn’s core stopped: ' + (e.message || 'in its worker') +
        ' (hint: use fewer tokens, or run attn on your machine)');
    };
    coreWorker.worker = w;
  }

  // call(name, args[, moved ArrayBuffers]): a Promise of {value, notes}; rejected with the core's error
  // (an Error, or a TypeError for words that are not a list of strings).
  async function coreCall(call, args, moved) {
    if (!coreWorker.worker) startCoreWorker();
    if (coreWorker.reloading) await coreWorker.reloading;
    const id = coreWorker.next++;
    return new Promise((resolve, reject) => {
      coreWorker.pending.set(id, { resolve: resolve, reject: reject });
      try {
        coreWorker.worker.postMessage({ id: id, call: call, args: args }, moved || []);
      } catch (e) {  // a value that cannot be sent (a function, a DOM node) is not a word
        coreWorker.pending.delete(id);
        reject(new TypeError('attn.' + call + ' takes a list of words (strings), as attn ' + (call === 'decode' ? 'decode' : 'show') + ' takes them'));
      }
    });
  }
  function settleCoreCall(m) {
    const p = coreWorker.pending.get(m.id);
    if (!p) return;  // a call of a worker since stopped
    coreWorker.pending.delete(m.id);
    if (!m.error) return p.resolve({ value: m.value, notes: m.notes });
    p.reject(m.error.name === 'TypeError' ? new TypeError(m.error.message) : new Error(m.error.message));
    // a trap or an abort leaves the module unusable: start another
    if (m.error.name === 'RuntimeError') restartCoreWorker('attn: error: attn’s core stopped during an earlier call (hint: run again)');
  }

  // Stops the worker (its calls in flight fail with the one line `why`) and starts another, reading the
  // opened folders into it again.
  function restartCoreWorker(why) {
    if (coreWorker.worker) coreWorker.worker.terminate();
    coreWorker.worker = null;
    const pending = Array.from(coreWorker.pending.values());
    coreWorker.pending.clear();
    for (const p of pending) p.reject(new Error(why));
    startCoreWorker();
    const folders = Array.from(coreWorker.folders);
    if (!folders.length) return;
    const reload = (async () => {
      for (const [name, files] of folders) {
        let bytes;
        try {
          bytes = await Promise.all(files.map((f) => f.arrayBuffer()));
        } catch (e) {  // a file since removed from the disk: runs on that folder say it is not there
          coreWorker.folders.delete(name);
          continue;
        }
        coreWorker.worker.postMessage({ id: coreWorker.next++, call: 'loadModel',
          args: [name, files.map((f, k) => ({ name: f.name, bytes: new Uint8Array(bytes[k]) }))] }, bytes);
      }
    })();
    coreWorker.reloading = reload;
    const clear = () => { if (coreWorker.reloading === reload) coreWorker.reloading = null; };
    reload.then(clear, clear);
  }

  // Cancels every call in flight: each rejects with this one line.
  function cancelCoreCalls() {
    if (coreWorker.pending.size) restartCoreWorker('attn: error: the run was cancelled');
  }

  // A model folder into the worker (/models/NAME), kept by its files so that a new worker can read it again.
  async function loadCoreModel(name, files) {
    const bytes = await Promise.all(files.map((f) => f.arrayBuffer()));
    const dir = (await coreCall('loadModel', [name, files.map((f, k) => ({ name: f.name, bytes: new Uint8Array(bytes[k]) }))], bytes)).value;
    coreWorker.folders.set(name, files);
    return dir;
  }
  async function unloadCoreModel(name) {
    coreWorker.folders.delete(name);
    await coreCall('unloadModel', [name]);
  }
