// Appended after the WebAssembly module's factory (em++ --extern-post-js). In a Web Worker named
// 'attn-core' (the page starts one from its own copy of this file and hands it the compiled module:
// render/page/core_worker.js), the module serves the page's calls off the page's thread: a message {id, call, args} is answered with
// {id, value, notes} or {id, error: {name, message}, notes}, where notes are the lines the core printed
// (attn: note: …) during that call. Bytes travel as transferred ArrayBuffers both ways (a model folder's
// files in, a model page's cells out). Anywhere else (the page's own thread, node) this does nothing.
(function () {
  if (typeof WorkerGlobalScope === 'undefined' || !(self instanceof WorkerGlobalScope) || self.name !== 'attn-core') return;
  // the calls a page may make: cli/web/api.js's API, nothing else
  var calls = ['run', 'decode', 'parse', 'kinds', 'page', 'loadModel', 'unloadModel', 'describe', 'models'];
  var notes = [];
  var ready = null;  // the core, once the first message brought its compiled module
  function start(wasmModule) {
    ready = AttnCore({
      wasmModule: wasmModule,
      print: function (t) { notes.push(t); },
      printErr: function (t) { notes.push(t); },
    });
  }
  function answer(m, core) {
    notes = [];
    try {
      if (calls.indexOf(m.call) < 0 || !Array.isArray(m.args)) throw new Error('attn: error: the core has no call ' + String(m.call));
      var value = core[m.call].apply(null, m.args);
      // a model page's cells: moved to the page, not copied
      var moved = m.call === 'page' ? [value[1].buffer] : [];
      self.postMessage({ id: m.id, value: value, notes: notes }, moved);
    } catch (e) {
      // a trap or an abort (RuntimeError) leaves the module unusable: the page starts another worker
      self.postMessage({ id: m.id, error: { name: e && e.name || 'Error', message: String(e && e.message || e) }, notes: notes });
    }
  }
  // the first message is {wasmModule}: the WebAssembly.Module the page compiled; then the calls
  self.onmessage = function (e) {
    var m = e.data;
    if (!ready) return start(m.wasmModule);
    ready.then(function (core) { answer(m, core); }, function (err) {
      self.postMessage({ id: m.id, error: { name: 'RuntimeError', message: 'attn: error: attn\u2019s core could not start in a worker: ' + err }, notes: [] });
    });
  };
})();
