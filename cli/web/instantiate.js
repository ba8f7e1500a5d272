// Prepended to the WebAssembly module's JavaScript (em++ --pre-js), inside its factory: instantiate the
// module from the bytes embedded in this file (-sSINGLE_FILE's base64), never through fetch(), so a
// page opened from file:// with the network blocked fetches nothing (not even a data: URL).
Module['instantiateWasm'] = function (imports, done) {
  WebAssembly.instantiate(tryParseAsDataURI(wasmBinaryFile), imports).then(function (r) {
    done(r['instance'], r['module']);
  }, function (e) {
    err('attn: the WebAssembly core could not start: ' + e);
    if (Module['onAbort']) Module['onAbort'](e);
  });
  return {};  // exports arrive through done()
};
