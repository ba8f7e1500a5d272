// Prepended to the WebAssembly module's JavaScript (em++ --pre-js), inside its factory. The page inflates
// and compiles the .wasm it carries itself (render/page/live.js) and hands the module over as
// Module.wasmModule, so nothing is ever fetched (a page opened from file:// with the network blocked).
// Under node the .wasm beside this file is read as bytes (emscripten would hand its path to fetch(),
// which node's fetch refuses).
if (Module['wasmModule']) {
  Module['instantiateWasm'] = function (imports, done) {
    WebAssembly.instantiate(Module['wasmModule'], imports).then(function (instance) {
      done(instance, Module['wasmModule']);
    }, function (e) {
      err('attn: the WebAssembly core could not start: ' + e);
      if (Module['onAbort']) Module['onAbort'](e);
    });
    return {};  // exports arrive through done()
  };
} else if (!Module['wasmBinary'] && typeof process === 'object' && typeof require === 'function') {
  Module['wasmBinary'] = require('fs').readFileSync(require('path').join(__dirname, 'attn_core.wasm'));
}
