// The largest difference between two JSON values of the same shape (numbers compared by absolute
// difference); throws, naming the path, on a different shape, key, string or length. Shared by the node
// checks of the WebAssembly core (module_check.js, decode_check.js).
'use strict';
function compare(a, b, path) {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b);
  if (Array.isArray(a) !== Array.isArray(b) || typeof a !== typeof b || (a === null) !== (b === null))
    throw new Error(path + ': ' + JSON.stringify(a) + ' vs ' + JSON.stringify(b));
  if (a === null || typeof a !== 'object') {
    if (a !== b) throw new Error(path + ': ' + JSON.stringify(a) + ' vs ' + JSON.stringify(b));
    return 0;
  }
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.join() !== kb.join()) throw new Error(path + ': keys ' + ka + ' vs ' + kb);
  if (Array.isArray(a) && a.length !== b.length) throw new Error(path + ': ' + a.length + ' vs ' + b.length + ' items');
  let worst = 0;
  for (const k of ka) worst = Math.max(worst, compare(a[k], b[k], path + '.' + k));
  return worst;
}
module.exports = { compare };
