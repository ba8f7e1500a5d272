// The browser's text facilities for the page's WebAssembly core (em++ --js-library): the regex engine
// behind data/text/text_regex_browser.cpp and the Unicode tables behind data/text/unicode_browser.cpp.
// Strings cross as UTF-8 bytes; offsets go back as UTF-8 byte offsets; results are malloc'd for C++ to
// free. Nothing here evaluates text: patterns become RegExp objects, never code.
mergeInto(LibraryManager.library, {
  $attnText__deps: ['$attnUnicode14'],
  $attnText: {
    regexes: [null],  // handle -> RegExp (0: none)
    error: '',
    categories: ['Cn', 'Lu', 'Ll', 'Lt', 'Lm', 'Lo', 'Mn', 'Mc', 'Me', 'Nd', 'Nl', 'No', 'Pc', 'Pd', 'Ps', 'Pe', 'Pi',
      'Pf', 'Po', 'Sm', 'Sc', 'Sk', 'So', 'Zs', 'Zl', 'Zp', 'Cc', 'Cf', 'Cs', 'Co'],
    categoryTests: null,
    // The first code point of s that the browser assigns and Unicode 14.0 does not (attnUnicode14), as
    // "U+XXXX" in attnText.error, or false: its newer tables could class it differently from the command line's.
    newer: function (s) {
      for (var ch of s) {
        var c = ch.codePointAt(0);
        if (c < 0x378 || attnText.assigned14(c) || /^\p{Cn}$/u.test(ch)) continue;
        attnText.error = 'U+' + c.toString(16).toUpperCase().padStart(4, '0');
        return true;
      }
      return false;
    },
    assigned14: function (c) {  // binary search of the [first, last] pairs
      var r = attnUnicode14, lo = 0, hi = r.length / 2 - 1;
      while (lo <= hi) {
        var mid = (lo + hi) >> 1;
        if (c < r[2 * mid]) hi = mid - 1;
        else if (c > r[2 * mid + 1]) lo = mid + 1;
        else return true;
      }
      return false;
    },
    decode: function (p, n) { p >>>= 0; return new TextDecoder('utf-8').decode(HEAPU8.subarray(p, p + (n >>> 0))); },
    // a string's UTF-16 index -> its UTF-8 byte offset, for every index up to s.length
    byteOffsets: function (s) {
      var off = new Int32Array(s.length + 1), b = 0;
      for (var i = 0; i < s.length; i++) {
        off[i] = b;
        var c = s.charCodeAt(i);
        if (c < 0x80) b += 1;
        else if (c < 0x800) b += 2;
        else if (c >= 0xD800 && c < 0xDC00 && i + 1 < s.length) { off[++i] = b; b += 4; }
        else b += 3;
      }
      off[s.length] = b;
      return off;
    },
    ints: function (values) {  // [count, values...] as a malloc'd int32 array
      var p = _malloc(4 * (values.length + 1)) >>> 0;  // pointers above 2 GiB read as unsigned
      if (!p) return 0;
      HEAP32[p >>> 2] = values.length;
      for (var i = 0; i < values.length; i++) HEAP32[(p >>> 2) + 1 + i] = values[i];
      return p;
    },
    bytes: function (s, sizePtr) {  // s as malloc'd UTF-8 (NUL-terminated), its length in *sizePtr
      var u = new TextEncoder().encode(s), p = _malloc(u.length + 1) >>> 0;
      if (!p) return 0;
      HEAPU8.set(u, p);
      HEAPU8[p + u.length] = 0;
      if (sizePtr) HEAPU32[(sizePtr >>> 0) >>> 2] = u.length;
      return p;
    },
    // PCRE2 (UTF, UCP) -> RegExp (u): {source} or {refuse: why}. Only what reads the same in both engines
    // passes; everything else is refused by name.
    translate: function (pat) {
      var out = '', i = 0, inClass = false, classStart = false, caseless = [], depth = 0, behind = [];
      var SPACE = '\\t\\n\\v\\f\\r\\x85\\u180E\\p{Z}', WORD = '\\p{L}\\p{N}_';  // PCRE2's \s: Z, \h and \v (NEL, U+180E)
      var syntax = '^$\\.*+?()[]{}|/';
      function refuse(what) { return { refuse: 'has ' + what + ', which the page\u2019s regex engine cannot run as PCRE2 does' }; }
      function quantifierAt(j) { return /^\{\d+(,\d*)?\}/.exec(pat.slice(j)); }
      while (i < pat.length) {
        var c = pat[i];
        if (c === '\\') {
          var e = pat[i + 1];
          if (e === undefined) return { refuse: 'ends in a lone backslash' };
          i += 2;
          if (e === 's') out += inClass ? SPACE : '[' + SPACE + ']';
          else if (e === 'S') { if (inClass) return refuse('\\S inside a class'); out += '[^' + SPACE + ']'; }
          else if (e === 'd') out += '\\p{Nd}';
          else if (e === 'D') out += '\\P{Nd}';
          else if (e === 'w') out += inClass ? WORD : '[' + WORD + ']';
          else if (e === 'W') { if (inClass) return refuse('\\W inside a class'); out += '[^' + WORD + ']'; }
          else if (e === 'p' || e === 'P') {
            var name, m = /^\{\^?([A-Za-z_&][A-Za-z0-9_&]*)\}/.exec(pat.slice(i));
            var negate = e === 'P';
            if (m) { name = m[1]; if (pat[i + 1] === '^') negate = !negate; i += m[0].length; }
            else if (/[A-Za-z]/.test(pat[i] || '')) { name = pat[i]; i += 1; }
            else return refuse('\\' + e + ' without a property name');
            var prop;
            if (name === 'L&') prop = 'LC';
            else if (/^(L|Lu|Ll|Lt|Lm|Lo|M|Mn|Mc|Me|N|Nd|Nl|No|P|Pc|Pd|Ps|Pe|Pi|Pf|Po|S|Sm|Sc|Sk|So|Z|Zs|Zl|Zp|C|Cc|Cf|Cs|Co|Cn)$/.test(name)) prop = name;
            else if (/^X/.test(name) || name === 'Any') return refuse('the property \\p{' + name + '}');
            else {
              prop = 'sc=' + name;
              try { new RegExp('\\p{' + prop + '}', 'u'); } catch (err) { return refuse('the property \\p{' + name + '}'); }
            }
            out += (negate ? '\\P{' : '\\p{') + prop + '}';
          } else if (e === 'x' && caseless.length) return refuse('\\x inside (?i:...)');  // not case-folded here
          else if (e === 'x') {
            var hx = /^\{([0-9A-Fa-f]{1,6})\}/.exec(pat.slice(i)) || /^([0-9A-Fa-f]{1,2})/.exec(pat.slice(i));
            if (!hx) return refuse('\\x without hex digits');
            if (/^0*d[89a-f][0-9a-f]{2}$/i.test(hx[1])) return refuse('the surrogate \\x{' + hx[1] + '}');  // PCRE2 error 173
            i += hx[0].length;
            out += '\\u{' + hx[1] + '}';
          } else if (e === 'n' || e === 'r' || e === 't' || e === 'f') out += '\\' + e;
          else if (e === 'e') out += '\\x1B';
          else if (e === 'a') out += '\\x07';
          else if (e === 'A' && !inClass) out += '^';
          else if (e === 'z' && !inClass) out += '$';
          else if (e === 'Z' && !inClass) out += '(?=\\n?$)';
          else if (/[1-9]/.test(e) && !inClass) {
            if (behind.length) return refuse('a backreference inside a lookbehind');  // RegExp reads lookbehinds right to left
            out += '\\' + e;
          }
          else if (/[A-Za-z0-9]/.test(e)) return refuse('the escape \\' + e);
          else if (syntax.indexOf(e) >= 0 || (inClass && e === '-')) out += '\\' + e;
          else out += e;  // an escaped character that needs none
          classStart = false;
          continue;
        }
        if (inClass) {
          if (c === ']' && !classStart) { inClass = false; out += ']'; i++; continue; }
          if (c === '[' && pat[i + 1] === ':') return refuse('a POSIX class ([:name:])');
          if (caseless.length && /[A-Za-z]/.test(c)) return refuse('a class inside (?i:...)');
          out += c === ']' || c === '[' ? '\\' + c : c;
          classStart = false;
          i++;
          continue;
        }
        if (c === '[') {
          inClass = true;
          out += '[';
          i++;
          if (pat[i] === '^') { out += '^'; i++; }
          classStart = true;
          continue;
        }
        if (c === '(') {
          depth++;
          if (pat[i + 1] !== '?') { out += '('; i++; continue; }
          var rest = pat.slice(i + 2);
          if (rest.startsWith('i:')) { caseless.push(depth); out += '(?:'; i += 4; continue; }
          if (rest[0] === '#') {  // a comment
            var close = pat.indexOf(')', i);
            if (close < 0) return { refuse: 'has an unclosed comment' };
            i = close + 1;
            depth--;
            continue;
          }
          if (rest.startsWith('P<')) { out += '(?<'; i += 4; continue; }
          if (/^(<=|<!)/.test(rest)) behind.push(depth);
          if (/^(:|=|!|<=|<!|<[A-Za-z])/.test(rest)) { out += '(?'; i += 2; continue; }
          if (rest[0] === '>') return refuse('an atomic group (?>...)');
          return refuse('the group (?' + rest.slice(0, 2) + '...');
        }
        if (c === ')') {
          if (caseless.length && caseless[caseless.length - 1] === depth) caseless.pop();
          if (behind.length && behind[behind.length - 1] === depth) behind.pop();
          depth--;
          out += ')';
          i++;
        } else if (c === '*' || c === '+' || c === '?' || c === '{') {
          var q = c;
          if (c === '{') {
            var qm = quantifierAt(i);
            if (!qm) { out += '\\{'; i++; continue; }  // a literal brace, as PCRE2 reads it
            q = qm[0];
          }
          // PCRE2 takes a lookbehind of fixed length only ({n}); RegExp would run any
          if (behind.length && !/^\{(\d+)(,\1)?\}$/.test(q)) return refuse('a lookbehind of varying length');
          out += q;
          i += q.length;
          if (pat[i] === '+') return refuse('a possessive quantifier (' + q + '+)');
          if (pat[i] === '?') { out += '?'; i++; }
          if (pat[i] === '+') return refuse('a possessive quantifier');
        } else if (c === '}' || c === ']') {
          out += '\\' + c;
          i++;
        } else if (c === '.') {
          out += '[^\\n]';
          i++;
        } else if (c === '$') {
          out += '(?=\\n?$)';
          i++;
        } else if (caseless.length && /[A-Za-z]/.test(c)) {
          var lo = c.toLowerCase(), up = c.toUpperCase();
          out += '[' + lo + up + (lo === 's' ? '\\u017F' : lo === 'k' ? '\\u212A' : '') + ']';
          i++;
        } else if (caseless.length && c.toLowerCase() !== c.toUpperCase()) {
          return refuse('a non-ASCII letter inside (?i:...)');
        } else {
          out += c;
          i++;
        }
      }
      if (inClass) return { refuse: 'has an unclosed class' };
      return { source: out };
    },
  },

  attn_js_regex_compile__deps: ['$attnText'],
  attn_js_regex_compile: function (p, n) {
    var pattern = attnText.decode(p, n), t = attnText.translate(pattern);
    if (t.refuse) { attnText.error = t.refuse; return 0; }
    try {
      attnText.regexes.push(new RegExp(t.source, 'gu'));
    } catch (e) {
      attnText.error = 'does not compile (the browser\u2019s RegExp: ' + String(e.message).slice(0, 80) + ')';
      return 0;
    }
    return attnText.regexes.length - 1;
  },
  attn_js_regex_error__deps: ['$attnText'],
  attn_js_regex_error: function () { return attnText.bytes(attnText.error, 0); },
  attn_js_regex_free__deps: ['$attnText'],
  attn_js_regex_free: function (h) { if (h > 0) attnText.regexes[h] = null; },
  attn_js_regex_matches__deps: ['$attnText'],
  attn_js_regex_matches: function (h, p, n) {
    var re = attnText.regexes[h], s = attnText.decode(p, n), found = [], at = 0;
    if (attnText.newer(s)) return 0;
    var off = attnText.byteOffsets(s);
    while (at < s.length) {
      re.lastIndex = at;
      var m = re.exec(s);
      if (!m) break;
      if (m[0].length === 0) {  // an empty match: one character on
        var c = s.charCodeAt(m.index);
        at = m.index + (c >= 0xD800 && c < 0xDC00 ? 2 : 1);
        continue;
      }
      found.push(off[m.index], off[m.index + m[0].length]);
      at = m.index + m[0].length;
    }
    var r = attnText.ints(found);
    if (r) HEAP32[r >>> 2] = found.length / 2;
    return r;
  },

  attn_js_normalize__deps: ['$attnText'],
  attn_js_normalize: function (p, n, form, sizePtr) {
    var s = attnText.decode(p, n);
    if (attnText.newer(s)) return 0;
    return attnText.bytes(s.normalize(form === 0 ? 'NFC' : 'NFD'), sizePtr);
  },
  attn_js_category__deps: ['$attnText'],
  attn_js_category: function (c) {
    var T = attnText;
    if (!T.categoryTests) T.categoryTests = T.categories.map(function (name) { return new RegExp('^\\p{gc=' + name + '}$', 'u'); });
    var s = String.fromCodePoint(c);
    if (T.newer(s)) return -1;
    for (var k = 1; k < T.categoryTests.length; k++) if (T.categoryTests[k].test(s)) return k;
    return 0;
  },
  attn_js_lowercase__deps: ['$attnText'],
  attn_js_lowercase: function (c) {
    if (attnText.newer(String.fromCodePoint(c))) return -1;
    var l = String.fromCodePoint(c).toLowerCase();
    return l.codePointAt(0) !== undefined && String.fromCodePoint(l.codePointAt(0)) === l ? l.codePointAt(0) : c;
  },
  attn_js_graphemes__deps: ['$attnText'],
  attn_js_graphemes: function (p, n) {
    var s = attnText.decode(p, n), starts = [];
    if (attnText.newer(s)) return 0;
    var off = attnText.byteOffsets(s);
    var seg = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    for (var g of seg.segment(s)) starts.push(off[g.index]);
    return attnText.ints(starts);
  },
});
