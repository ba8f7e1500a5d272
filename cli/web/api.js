// Appended to the WebAssembly module's JavaScript (em++ --post-js): the API of the module, run inside
// its factory, so `_attn_run` and the runtime's string helpers are in scope.
//   run(argv)  argv: the words `attn show` takes (options and sentence); returns the JSON trace text that
//              `attn show ARGV --json -` prints, or throws an Error whose message is the CLI's one line.
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
// fn (an entry of cli/web/attn_web.cpp) on argv, the words `attn show` takes: 'J' + the answer, or 'E' + the
// CLI's one-line error, thrown.
function attnWords(fn, name, argv) {
  if (!Array.isArray(argv) || !argv.every(function (w) { return typeof w === 'string'; }))
    throw new TypeError('attn.' + name + ' takes a list of words (strings), as attn show takes them');
  var r = attnCall(fn, JSON.stringify(argv));
  if (r.charAt(0) !== 'J') throw new Error(r.slice(1));
  return r.slice(1);
}
Module['run'] = function (argv) { return attnWords(_attn_run, 'run', argv); };
// parse(argv): what the words say after a run's checks, as JSON text {"kind", "given": [[name, value|null],
// ...], "sentence", "source"}; throws the CLI's one-line error as run does. The panel fills itself from it.
Module['parse'] = function (argv) { return attnWords(_attn_parse, 'parse', argv); };
Module['kinds'] = function () { return UTF8ToString(_attn_kinds()); };
