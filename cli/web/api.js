// Appended to the WebAssembly module's JavaScript (em++ --post-js): the API of the module, run inside
// its factory, so `_attn_run` and the runtime's string helpers are in scope.
//   run(argv)  argv: the words `attn show` takes (options and sentence); returns the JSON trace text that
//              `attn show ARGV --json -` prints, or throws an Error whose message is the CLI's one line.
//   decode(argv) argv: the words `attn decode` takes (a seeded kind); returns the JSON text that
//              `attn decode ARGV --json -` prints, or throws an Error whose message is the CLI's one line.
//   kinds()    the text `attn kinds --json` prints.
//   parse(argv) the options, sentence and source the words give, after the checks run makes (the panel's).
// Nothing here evaluates text: the words go to C++ as one JSON array of strings.
function attnCall(fn, text) {
  var n = lengthBytesUTF8(text) + 1, p = _malloc(n);
  if (!p) throw new Error('attn: error: out of memory (hint: use fewer tokens or a smaller --d-in)');
  stringToUTF8(text, p, n);
  try {
    return UTF8ToString(fn(p));
  } finally {
    _free(p);
  }
}
// fn (an entry of cli/web/attn_web.cpp) on argv, the words `attn show` (or decode) takes: 'J' + the answer, or 'E' + the
// CLI's one-line error, thrown.
function attnWords(fn, name, argv) {
  if (!Array.isArray(argv) || !argv.every(function (w) { return typeof w === 'string'; }))
    throw new TypeError('attn.' + name + ' takes a list of words (strings), as attn ' + (name === 'decode' ? 'decode' : 'show') + ' takes them');
  var r = attnCall(fn, JSON.stringify(argv));
  if (r.charAt(0) !== 'J') throw new Error(r.slice(1));
  return r.slice(1);
}
Module['run'] = function (argv) { return attnWords(_attn_run, 'run', argv); };
Module['decode'] = function (argv) { return attnWords(_attn_decode, 'decode', argv); };
// parse(argv): what the words say after a run's checks, as JSON text {"kind", "given": [[name, value|null],
// ...], "sentence", "source"}; throws the CLI's one-line error as run does. The panel fills itself from it.
Module['parse'] = function (argv) { return attnWords(_attn_parse, 'parse', argv); };
Module['kinds'] = function () { return UTF8ToString(_attn_kinds()); };
// page(argv): a model run (--model /models/NAME) as the page's views take it: [the data object, its cells as
// a Uint8Array], what `attn show --model DIR ... --html` embeds; throws the CLI's one-line error as run does.
Module['page'] = function (argv) {
  var data = JSON.parse(attnWords(_attn_page, 'page', argv));
  var at = _attn_blob() >>> 0;
  return [data, HEAPU8.slice(at, at + (_attn_blob_size() >>> 0))];
};
// loadModel(name, files): a model folder the page opened, into the module's file system at /models/NAME/
// (a folder of that name is replaced). files: [{name, bytes: Uint8Array}], each file by its own name (a
// path's last part). Returns "/models/NAME", which run() takes as --model. The bytes stay in this tab.
// throws attn's one-line error for a name that cannot be a folder's.
function attnRefuse(what, hint) { throw new Error('attn: error: ' + what + ' (hint: ' + hint + ')'); }
function attnFolderName(name, what) {
  if (typeof name !== 'string' || name === '') attnRefuse(what + ' is empty or not a string', 'give the folder\u2019s own name');
  if (name.length > 255) attnRefuse(what + ' is longer than 255 characters', 'give the folder a shorter name');
  if (name === '.' || name === '..' || /[\/\\\u0000-\u001f\u007f]/.test(name) ||
      /[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/.test(name))
    attnRefuse(what + ' ' + JSON.stringify(name.slice(0, 40)) + ' cannot name a file in the page',
      'rename it without slashes, control characters or lone surrogates');
  return name;
}
Module['loadModel'] = function (name, files) {
  var dir = '/models/' + attnFolderName(name, 'the folder name');
  if (!Array.isArray(files) || !files.length) attnRefuse('no files were given for ' + dir, 'pick the folder\u2019s config.json, tokenizer and weights');
  var names = files.map(function (f, k) {
    if (!f || typeof f !== 'object' || !(f.bytes instanceof Uint8Array))
      attnRefuse('file ' + k + ' of ' + dir + ' is not {name, bytes: Uint8Array}', 'read each file\u2019s bytes with File.arrayBuffer()');
    return attnFolderName(String(f.name).split(/[\/\\]/).pop(), 'the file name');
  });
  names.forEach(function (n, k) {
    if (names.indexOf(n) !== k) attnRefuse('two files are named ' + n + ' in ' + dir, 'give each file of the folder once');
  });
  FS.mkdirTree('/models');
  Module['unloadModel'](name);
  FS.mkdir(dir);
  try {
    files.forEach(function (f, k) { FS.writeFile(dir + '/' + names[k], f.bytes, { canOwn: true }); });
  } catch (e) {  // out of memory: nothing half-written stays
    Module['unloadModel'](name);
    attnRefuse('the files of ' + dir + ' do not fit in the page\u2019s memory', 'close other model folders (unloadModel), or run attn show --model on your machine');
  }
  return dir;
};
// unloadModel(name): frees a folder loadModel wrote (nothing when there is none).
Module['unloadModel'] = function (name) {
  var dir = '/models/' + attnFolderName(name, 'the folder name');
  if (!FS.analyzePath(dir).exists) return;
  FS.readdir(dir).forEach(function (f) { if (f !== '.' && f !== '..') FS.unlink(dir + '/' + f); });
  FS.rmdir(dir);
};
// describe(dir[, maxMemory]): a loaded folder checked as a run checks it (its weights within the page's 2 GiB, or
// a smaller maxMemory in --max-memory's words), as an object {model, family, stack, layers,
// decoder_layers, heads, kv_heads, params, dtype, unused}; throws attn's one-line error.
Module['describe'] = function (dir, maxMemory) {
  var mm = String(maxMemory || ''), n = lengthBytesUTF8(mm) + 1, p = _malloc(n);
  stringToUTF8(mm, p, n);
  var r;
  try {
    r = attnCall(function (d) { return _attn_describe(d, p); }, String(dir));
  } finally {
    _free(p);
  }
  if (r.charAt(0) !== 'J') throw new Error(r.slice(1));
  return JSON.parse(r.slice(1));
};
// models(): the folders loaded, as "/models/NAME" paths.
Module['models'] = function () {
  if (!FS.analyzePath('/models').exists) return [];
  return FS.readdir('/models').filter(function (f) { return f !== '.' && f !== '..'; }).map(function (f) { return '/models/' + f; });
};
