// The validation table's rows (tests/validation_table.h). Over 500 lines on purpose: it is one table, a row
// per documented error (docs/validation.md is generated from it), and reads best as that one list.
#include "tests/validation_table.h"

#include "cli/policy/options.h"
#include "data/base/limits.h"

namespace attn {

std::string shell_quote(const std::string& arg) {
    if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+") ==
                            std::string::npos)
        return arg;
    std::string q = "'";
    for (char ch : arg) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
}

}  // namespace attn

namespace attn {
namespace {

constexpr ErrorKind U = ErrorKind::usage, R = ErrorKind::runtime;
const char* const kHelp = " (hint: see 'attn show --help')";
const char* const kJsonHint =
    " (hint: expected a JSON array of rows [[...], ...] or {\"tokens\": [...], \"x\": [[...], ...]})";
const char* const kNpyHint = " (hint: save it with numpy.save(path, array))";
const char* const kMaskHint = " (hint: a mask is a (T, S) JSON array of true/false or 0/1, or a bool/uint8 .npy)";

std::string e(const std::string& line) { return "attn: error: " + line; }

std::vector<ValidationRule> make_rules() {
    std::vector<ValidationRule> rows;
    // 1. the command line
    rows.push_back({"cli.command", "COMMAND", "one of attn's commands", U, {"shw", "hi"},
                    e("unknown command 'shw' (hint: the commands are show, kinds...")});
    rows.push_back({"cli.no-command", "COMMAND", "a command is required", U, {},
                    e("a subcommand is required (hint: the commands are show, kinds...")});
    rows.push_back({"cli.unknown-option", "options", "only the command's own options", U, {"show", "--bogus", "hi"},
                    e("unknown option '--bogus'") + kHelp});
    rows.push_back({"cli.unknown-option-near", "options", "an unknown option near a real one is named with it", U,
                    {"show", "--colour", "never", "The cat"},
                    e("unknown option '--colour' (hint: did you mean --color? see 'attn show --help')")});
    rows.push_back({"cli.long-argument", "arguments", "an argument a command does not take is quoted cut to 40 bytes", U,
                    {"bench", "word word word word word word word word word word word word"},
                    e("unexpected argument 'word word word word word word word word ... (59 bytes)' (hint: 'attn bench' "
                      "takes no sentence; see 'attn bench --help')")});
    rows.push_back({"cli.missing-value", "options", "an option that takes a value gets one", U,
                    {"show", "hi", "--json"}, e("--json needs a value") + kHelp});
    rows.push_back({"cli.repeated", "options", "each option at most once", U,
                    {"show", "--kind", "self", "--kind", "causal", "hi"}, e("--kind is given 2 times; give it once") + kHelp});
    rows.push_back({"cli.extra", "SENTENCE", "one sentence: several words go in quotes", U,
                    {"show", "Your", "journey"},
                    e("unexpected argument 'journey' (hint: put a sentence of several words in quotes: attn show "
                      "\"Your journey starts\")")});
    // 2. option values, from option_rules()
    for (const OptionRule& r : option_rules()) {
        std::string rule = option_rule_text(r);
        if (r.list) rule = "comma-separated, each " + rule;
        rows.push_back({std::string("option.") + (r.option + 2), r.option, rule, U, {"show", r.option, r.bad_example, "hi"},
                        e(std::string(r.option) + ": " + check_option_text(r, r.bad_example)) + kHelp});
    }
    rows.push_back({"option.dropout-float32", "--dropout", "below 1 also in float32, where attn computes", U,
                    {"show", "--dropout", "0.99999999", "hi"},
                    e("--dropout: '0.99999999' rounds to 1 in float32; the largest float32 below 1 is 0.99999994") +
                        kHelp});
    rows.push_back({"option.kind", "--kind", "a kind from the registry (attn kinds)", U, {"show", "--kind", "nope", "hi"},
                    e("unknown kind 'nope' (hint: choose one of: simple, self, causal, ...")});
    rows.push_back({"option.kind-near", "--kind", "a kind near a real one is named with it", U, {"decode", "--kind", "mqq", "hi"},
                    e("unknown kind 'mqq' (hint: did you mean 'mqa'? choose one of: simple, self, causal, ...")});
    rows.push_back({"option.value-near", "--colormap, --show, --figures, ...", "a value near one of the choices is named with it", U,
                    {"show", "--colormap", "magam", "hi"},
                    e("--colormap: 'magam' is not one of viridis, magma, cividis, gray; did you mean 'magma'? (hint: see "
                      "'attn show --help')")});
    // 3. options together
    rows.push_back({"options.kind-takes", "options", "only options the kind takes", U,
                    {"show", "--kind", "self", "--window", "3", "hi"},
                    e("--window does not apply to kind 'self' (hint: it applies to: local)")});
    rows.push_back({"options.causal", "--causal, --no-causal", "not both", U, {"show", "--causal", "--no-causal", "hi"},
                    e("--causal and --no-causal contradict each other")});
    rows.push_back({"options.heads-divide", "--d-out, --heads", "mha, mqa, gqa: --d-out a multiple of --heads", U,
                    {"show", "--kind", "mha", "--heads", "3", "--d-out", "4", "hi"},
                    e("--d-out 4 does not divide into --heads 3 (hint: pick --d-out as a multiple of --heads)")});
    rows.push_back({"options.kv-heads-divide", "--heads, --kv-heads", "gqa: --heads a multiple of --kv-heads", U,
                    {"show", "--kind", "gqa", "--heads", "4", "--kv-heads", "3", "--d-out", "8", "hi"},
                    e("--heads 4 does not divide by --kv-heads 3 (hint: pick --kv-heads as a divisor of --heads)")});
    rows.push_back({"options.cross-source", "--kind cross, --source", "cross attends over a --source (or --embeddings)", U,
                    {"show", "--kind", "cross", "Wie geht es"},
                    e("kind 'cross' needs --source (its keys and values) (hint: give the text to attend over, e.g. attn "
                      "show --kind cross \"Wie geht es\" --source \"How are you\")")});
    rows.push_back({"options.query", "--query", "a query of the sentence: below its token count", U,
                    {"show", "--query", "3", "Your journey starts"},
                    e("--query 3 is past the last query (3 tokens) (hint: pick a query from 0 to 2)")});
    rows.push_back({"options.figures-query", "--figures query, --query", "the query strip names its query", U,
                    {"show", "--figures", "query", "--png", "out", "hi"},
                    e("--figures query draws one query's strip, but no --query is given (hint: add --query I, e.g. "
                      "--query 0)")});
    rows.push_back({"options.figures-png", "--figures, --prefix", "name images: only with --png", U,
                    {"show", "--figures", "weights", "hi"},
                    e("--figures names images, but no --png folder is given (hint: add --png DIR)")});
    rows.push_back({"options.no-live-html", "--no-live", "leaves the live panel out of a page: only with --html", U,
                    {"show", "--no-live", "hi"},
                    e("--no-live leaves the live panel out of the --html page, but no --html is given (hint: add --html FILE)")});
    rows.push_back({"options.prefix-clash", "--prefix", "its names are not attn's names for a shorter prefix (a run of that "
                    "prefix would remove them)", U, {"show", "--prefix", "causal-l1-h0", "--png", "out", "hi"},
                    e("--prefix 'causal-l1-h0' gives names like causal-l1-h0-scores.png, which attn also writes for a "
                      "shorter prefix (hint: choose a prefix that does not end in -l<N>, -h<N> or a "
                      "figure's first word)")});
    rows.push_back({"options.pos-kind", "--pos, --rope-base, --rope-style", "kinds with dot-product queries and keys", U,
                    {"show", "--kind", "simple", "--pos", "rope", "hi"},
                    e("--pos does not apply to kind 'simple' (hint: it applies to: self, causal, ...")});
    rows.push_back({"options.rope-even", "--pos rope", "an even head width d_k (pairs of columns rotate)", U,
                    {"show", "--kind", "mha", "--heads", "2", "--d-out", "6", "--pos", "rope", "hi"},
                    e("--pos rope needs an even head width, and d_k is 3 (hint: pick --d-out as an even multiple of "
                      "--heads)")});
    rows.push_back({"options.align-kind", "--align", "cross only (the kind where T and S differ)", U,
                    {"show", "--kind", "causal", "--align", "bottom-right", "hi"},
                    e("--align does not apply to kind 'causal' (hint: it applies to: cross)")});
    rows.push_back({"decode.kind", "decode --kind", "a kind whose keys come from the sentence (not a source)", U,
                    {"decode", "--kind", "cross", "hi"},
                    e("kind 'cross' does not decode token by token (hint: decode takes kinds whose keys come from the "
                      "sentence: self, causal, ...")});
    rows.push_back({"decode.kind-takes", "decode options", "only options the kind takes", U,
                    {"decode", "--kind", "mha", "--kv-heads", "2", "hi"},
                    e("--kv-heads does not apply to kind 'mha' (hint: it applies to: gqa)")});
    rows.push_back({"decode.rope-even", "decode --pos rope", "an even head width d_k", U,
                    {"decode", "--kind", "mqa", "--heads", "4", "--d-out", "4", "--pos", "rope", "hi"},
                    e("--pos rope needs an even head width, and d_k is 1 (hint: pick --d-out as an even multiple of "
                      "--heads)")});
    rows.push_back({"inputs.one", "SENTENCE, --file, --example", "at most one of them", U,
                    {"show", "--example", "journey", "hi"}, e("give only one of SENTENCE, --file and --example")});
    rows.push_back({"inputs.none", "SENTENCE, --file, --example", "one of them, or --embeddings with tokens", U, {"show"},
                    e("nothing to attend over (hint: give a sentence, e.g. attn show \"Your journey starts\")")});
    rows.push_back({"inputs.example-d-in", "--example, --d-in", "the example brings its own width", U,
                    {"show", "--example", "journey", "--d-in", "4"},
                    e("--example journey has d_in = 3 (hint: drop --d-in)")});
    rows.push_back({"inputs.d-in-width", "--embeddings, --d-in", "--d-in, if given, equals the file's width", U,
                    {"show", "--embeddings", "rows.json", "--d-in", "3", "a b"},
                    e("--d-in 3 does not match the embeddings' width 2 (hint: drop --d-in)")});
    rows.push_back({"inputs.rows-tokens", "--embeddings", "with SENTENCE or --file: one row per token", R,
                    {"show", "--embeddings", "rows.json", "a b c"},
                    e("rows.json: 2 rows for 3 tokens (hint: give one row per token of the sentence)")});
    rows.push_back({"inputs.no-tokens", "--embeddings", "bare rows need SENTENCE or --file for their tokens", U,
                    {"show", "--embeddings", "rows.json"},
                    e("rows.json has rows but no tokens (hint: give the sentence they belong to)")});
    rows.push_back({"inputs.rows-max", "--embeddings", "at most --max-tokens rows", R,
                    {"show", "--embeddings", "named.json", "--max-tokens", "1"},
                    e("named.json: 2 rows, more than --max-tokens 1 (hint: raise --max-tokens)")});
    // --weights FILE: the parameters from a file (named.json's tokens a, b of width 2: kind causal needs (2, 2) each)
    const char* const kWeightsHint =
        " (hint: write the parameters from a run of the same kind and sizes: attn show --kind K ... --json trace.json, then "
        "--weights trace.json (or an .npz/.safetensors with the trace's names, shapes (in, out), x @ W))";
    rows.push_back({"weights.seed", "--weights, --seed", "--seed draws the parameters: not with --weights", U,
                    {"show", "--embeddings", "named.json", "--weights", "w2.json", "--seed", "7"},
                    e("--seed draws the parameters, which --weights w2.json gives (hint: drop --seed; the seeded embeddings "
                      "then use seed 123, and --embeddings FILE gives others)")});
    rows.push_back({"weights.init", "--weights, --init", "--init draws the parameters: not with --weights", U,
                    {"show", "--embeddings", "named.json", "--weights", "w2.json", "--init", "torch-rand"},
                    e("--init draws the parameters, which --weights w2.json gives (hint: drop --init; the seeded embeddings "
                      "then use seed 123, and --embeddings FILE gives others)")});
    rows.push_back({"weights.kind", "--weights", "only kinds with parameters (those taking --init)", U,
                    {"show", "--kind", "simple", "--weights", "w2.json", "hi"},
                    e("--weights does not apply to kind 'simple' (hint: it applies to: ...")});
    rows.push_back({"weights.missing", "--weights", "every parameter the kind needs is in the file", R,
                    {"show", "--embeddings", "named.json", "--weights", "w-missing.json"},
                    e("--weights w-missing.json has no 'W_key', which kind 'causal' needs with shape (2, 2)") + kWeightsHint});
    rows.push_back({"weights.shape", "--weights", "each parameter has the shape the kind would draw, (in, out)", R,
                    {"show", "--embeddings", "named.json", "--weights", "w-shape.json"},
                    e("--weights w-shape.json: 'W_key' has shape (2, 1), kind 'causal' needs (2, 2) here (in, out) (hint: in is the "
                      "embeddings' width (--d-in), out follows --d-out and --heads: give the options the file was made for, "
                      "or write the parameters from such a run with --json trace.json)")});
    rows.push_back({"weights.extra", "--weights", "no name the kind does not take (a typo is not ignored)", R,
                    {"show", "--embeddings", "named.json", "--weights", "w-extra.json"},
                    e("--weights w-extra.json holds 'W_qeury', which kind 'causal' does not take here (hint: its parameters "
                      "are W_query, W_key, W_value; rename or remove 'W_qeury')")});
    rows.push_back({"weights.finite", "--weights", "every value a finite float32", R,
                    {"show", "--embeddings", "named.json", "--weights", "w-inf.json"},
                    e("--weights w-inf.json: 'W_key' holds a value that is not a finite float32 (hint: parameters must be "
                      "finite numbers)")});
    rows.push_back({"weights.format", "--weights", "a safetensors file, an .npz or an attn trace", R,
                    {"show", "--embeddings", "named.json", "--weights", "long.txt"},
                    e("--weights long.txt: neither a safetensors file, a zip (.npz) nor a JSON trace (hint: give a "
                      ".safetensors file, a NumPy .npz (numpy.savez(path, W_query=..., ...)) or a trace from attn show --json)")});
    rows.push_back({"weights.twice", "--weights", "each parameter named once (JSON does not say which of two counts)", R,
                    {"show", "--embeddings", "named.json", "--weights", "w-twice.json"},
                    e("--weights w-twice.json: params.W_key is given twice in its object (JSON does not say which one counts) "
                      "(hint: give a .safetensors file, a NumPy .npz (numpy.savez(path, W_query=..., ...)) or a trace from attn show --json)")});
    rows.push_back({"weights.trace-format", "--weights", "a trace's \"format\" and \"version\", when given, those of an attn trace", R,
                    {"show", "--embeddings", "named.json", "--weights", "w-format.json"},
                    e("--weights w-format.json: \"format\" is \"attn-traces\", not \"attn-trace\" (hint: give a .safetensors "
                      "file, a NumPy .npz (numpy.savez(path, W_query=..., ...)) or a trace from attn show --json)")});
    rows.push_back({"weights.overflow", "--weights", "an overflow in the run names the parameters of --weights as a cause", R,
                    {"show", "--embeddings", "named.json", "--weights", "w-big.json"},
                    e("the scores of query row 0 overflow float32 (a q·k is infinite or NaN) (hint: the parameters of --weights "
                      "w-big.json or the embeddings are too large for float32 arithmetic: scale them down)")});
    rows.push_back({"run.memory", "the run", "its estimated memory (weights, Q/K/V, H × T × S matrices, and the JSON text, "
                    "images and .npy files it writes) at most --max-memory (default 3/4 of RAM)", U,
                    {"show", "--d-in", "1024", "--d-out", "1024", "hi", "--max-memory", "20M"},
                    e("this run would need about 28.0 MiB of memory, more than --max-memory 20.0 MiB (hint: use fewer "
                      "tokens or heads, or raise --max-memory)")});
    rows.push_back({"run.max-memory", "--max-memory", "a size: digits, an optional fraction and unit (no sign, spaces, hex or exponent)", U,
                    {"show", "hi", "--max-memory", "lots"},
                    e("--max-memory 'lots' is not a size (hint: write e.g. 512M, 8G or 1000000)")});
    rows.push_back({"run.max-memory-small", "--max-memory", "at least 1 byte (0 and sizes such as 0.4 are refused)", U,
                    {"show", "hi", "--max-memory", "0"},
                    e("--max-memory '0' is too small (hint: give at least 1 byte, e.g. 512M or 8G)")});
    rows.push_back({"run.max-memory-unit", "--max-memory", "units K, M, G, T, P, E (powers of 1024; KB, KiB... too) or B", U,
                    {"show", "hi", "--max-memory", "1Z"},
                    e("--max-memory '1Z' has an unknown unit (hint: use K, M, G, T, P or E (powers of 1024), or none "
                      "for bytes)")});
    rows.push_back({"run.max-memory-large", "--max-memory", "below 16E (2^64 bytes)", U,
                    {"show", "hi", "--max-memory", "16E"},
                    e("--max-memory '16E' is too large (hint: give less than 16E (2^64 bytes))")});
    rows.push_back({"run.flash-tiles", "--block-q, --block-k",
                    "flash: a tile is clamped to (T, S) and counted in the estimate; a refusal names the blocks when "
                    "the tiles are most of it", U,
                    {"bench", "--kind", "flash", "--tokens", "65536", "--d-in", "8", "--no-weights", "--block-q",
                     "65536", "--block-k", "65536", "--max-memory", "1G"},
                    e("this run would need about 32.3 GiB of memory, more than --max-memory 1.0 GiB (hint: lower "
                      "--block-q or --block-k (the tiles take 32.0 GiB), use fewer --tokens or a smaller --d-in, or "
                      "raise --max-memory)")});
    rows.push_back({"run.json-size", "--json", "a trace of at most 256 MiB, unless --force", U,
                    {"show", "--kind", "mha", "--heads", "128", "--d-in", "128", "--file", "many.txt", "--json", "t.json"},
                    e("the JSON trace would be about ...")});
    // 4. attn bench: show's options with show's rules and messages, and its own
    rows.push_back({"bench.kind-takes", "bench options", "only options the kind takes, as show", U,
                    {"bench", "--kind", "mqa", "--kv-heads", "2"},
                    e("--kv-heads does not apply to kind 'mqa' (hint: it applies to: gqa)")});
    rows.push_back({"bench.seed", "bench --seed", "the rule of show's --seed", U, {"bench", "--seed", "-1"},
                    e("--seed: '-1' is not a whole number from 0 to 18446744073709551615 (hint: see 'attn bench "
                      "--help')")});
    rows.push_back({"bench.tokens", "bench --tokens", "a whole number from 1 to 1048576", U, {"bench", "--tokens", "0"},
                    e("--tokens: '0' is not a whole number from 1 to 1048576 (hint: see 'attn bench --help')")});
    rows.push_back({"bench.repeat", "bench --repeat", "a whole number from 1 to 1000", U, {"bench", "--repeat", "1001"},
                    e("--repeat: '1001' is not a whole number from 1 to 1000 (hint: see 'attn bench --help')")});
    // 5. the sentence (SENTENCE and --source)
    rows.push_back({"sentence.empty", "SENTENCE, --source", "at least one token", U, {"show", ""},
                    e("the sentence is empty (hint: give at least one word, e.g. \"Your journey starts\")")});
    rows.push_back({"sentence.utf8", "SENTENCE, --source", "valid UTF-8", U, {"show", "ab\xff"},
                    e("the sentence is not valid UTF-8 at byte offset 2 (byte 0xFF) (hint: pass UTF-8 text)")});
    rows.push_back({"sentence.control", "SENTENCE, --source",
                    "no control characters (C0, DEL, C1, bidi overrides); tabs and newlines separate words", U,
                    {"show", "Your\x1b[2J journey"},
                    e("the sentence has a control character at byte offset 4 (U+001B) (hint: remove it; tabs and "
                      "newlines are fine)")});
    rows.push_back({"sentence.max-tokens", "SENTENCE, --source", "at most --max-tokens tokens (default 4096)", U,
                    {"show", "--max-tokens", "2", "Your journey starts"},
                    e("the sentence has more than 2 tokens (--max-tokens 2) (hint: raise --max-tokens or shorten the "
                      "text)")});
    rows.push_back({"sentence.token-length", "SENTENCE, --source, --file",
                    "each token at most 1024 bytes, refused as soon as one grows past that (a usage error for --file "
                    "too)", U, {"show", "--file", "long-word.txt"},
                    e("token 1 is longer than 1024 bytes, the most a token may have (\"xxxxxxxxxxxxxxxxxxxxxxxx...\") "
                      "(hint: break it with spaces, or use --split chars)")});
    rows.push_back({"sentence.source", "--source", "the sentence's rules", U,
                    {"show", "--kind", "cross", "--source", "", "hi"},
                    e("the source is empty (hint: give at least one word, e.g. \"Your journey starts\")")});
    // 6. files read: --file, --embeddings, --mask
    rows.push_back({"file.missing", "--file, --embeddings, --mask", "a readable file", R, {"show", "--file", "missing.txt"},
                    e("cannot read text file 'missing.txt': No such file or directory (hint: check the path: a relative one starts from the current folder)")});
    rows.push_back({"file.folder", "--file, --embeddings, --mask", "a file, not a folder", R,
                    {"show", "--mask", "folder", "hi"}, e("cannot read mask file 'folder': it is a folder (hint: name a file inside it)")});
    rows.push_back({"file.size", "--file, --embeddings, --mask", "at most 256 MiB", R, {"show", "--file", "large.txt"},
                    e("cannot read text file 'large.txt': it is larger than the 256 MiB attn reads")});
    rows.push_back({"text.utf8", "--file", "valid UTF-8 (a leading byte order mark is skipped)", R,
                    {"show", "--file", "bad-utf8.txt"},
                    e("bad-utf8.txt: the text is not valid UTF-8 at byte offset 5 (byte 0xFF) (hint: save the file as "
                      "UTF-8)")});
    rows.push_back({"text.control", "--file", "no control characters; tabs and newlines separate words", R,
                    {"show", "--file", "ctrl.txt"},
                    e("ctrl.txt: the text has a control character at byte offset 4 (U+001B) (hint: remove it; tabs and "
                      "newlines are fine)")});
    rows.push_back({"text.empty", "--file", "at least one token", R, {"show", "--file", "blank.txt"},
                    e("blank.txt: the text has no words (hint: give a file with at least one word)")});
    rows.push_back({"text.max-tokens", "--file", "at most --max-tokens tokens", R,
                    {"show", "--file", "long.txt", "--max-tokens", "4"},
                    e("long.txt: the text has more than 4 tokens (--max-tokens 4) (hint: raise --max-tokens or shorten "
                      "the text)")});
    // 7. embeddings, JSON
    rows.push_back({"json.syntax", "--embeddings JSON", "valid JSON", R, {"show", "--embeddings", "syntax.json", "a b"},
                    e("syntax.json: invalid JSON at byte offset 15: unexpected end of input; expected ']'") + kJsonHint});
    rows.push_back({"json.depth", "--embeddings JSON, --mask JSON", "nested at most 3 deep", R,
                    {"show", "--embeddings", "deep.json", "a b"},
                    e("deep.json: nested deeper than 3 levels (rows of values are 2 or 3 deep)") + kJsonHint});
    rows.push_back({"json.rows", "--embeddings JSON", "non-empty rows of equal length", R,
                    {"show", "--embeddings", "ragged.json", "a b"},
                    e("ragged.json: row 1 has 1 value but row 0 has 2") + kJsonHint});
    rows.push_back({"json.number", "--embeddings JSON", "every value a number", R, {"show", "--embeddings", "text.json", "a b"},
                    e("text.json: row 1, column 1 is a string, not a number") + kJsonHint});
    rows.push_back({"json.finite", "--embeddings JSON", "every value a finite float32 (1e999, 1e39 are not)", R,
                    {"show", "--embeddings", "huge.json", "a b"},
                    e("huge.json: row 1, column 1 is not a finite float32 value (1e999)") + kJsonHint});
    rows.push_back({"json.width", "--embeddings", "rows at most 65536 wide", R, {"show", "--embeddings", "wide.json", "a"},
                    e("wide.json: rows are 65537 values wide, more than 65536 (hint: attn takes embeddings up to 65536 "
                      "wide)")});
    rows.push_back({"json.token-count", "--embeddings JSON", "\"tokens\": one per row", R,
                    {"show", "--embeddings", "count.json"},
                    e("count.json: 3 tokens but 2 rows (hint: give one token per row)")});
    rows.push_back({"json.token-text", "--embeddings JSON", "\"tokens\": non-empty strings without control characters", R,
                    {"show", "--embeddings", "ctrl-token.json"},
                    e("ctrl-token.json: token 1 has a control character at byte offset 1 (U+001B) (hint: a token is "
                      "UTF-8 text without control characters)")});
    rows.push_back({"json.token-length", "--embeddings JSON", "\"tokens\": each at most 1024 bytes", R,
                    {"show", "--embeddings", "long-token.json"},
                    e("long-token.json: token 1 is 1025 bytes, more than the 1024 a token may have "
                      "(\"xxxxxxxxxxxxxxxxxxxxxxxx...\") (hint: a token is one word, as attn's tokeniser makes them)")});
    // 8. embeddings, .npy
    rows.push_back({"npy.version", "--embeddings .npy, --mask .npy", "format version 1, 2 or 3", R,
                    {"show", "--embeddings", "version.npy", "a b"},
                    e("version.npy: not a valid .npy file: unsupported format version 9") + kNpyHint});
    rows.push_back({"npy.header", "--embeddings .npy, --mask .npy", "the header fits in the file", R,
                    {"show", "--embeddings", "header.npy", "a b"},
                    e("header.npy: not a valid .npy file: the header is longer than the file") + kNpyHint});
    rows.push_back({"npy.size", "--embeddings .npy, --mask .npy", "the data is exactly shape × item size bytes", R,
                    {"show", "--embeddings", "size.npy", "a b"},
                    e("size.npy: not a valid .npy file: the header promises 1000000000000 values of 4 bytes but the file "
                      "holds 8 bytes of data") +
                        kNpyHint});
    rows.push_back({"npy.dtype", "--embeddings .npy, --mask .npy", "dtype <f4, <f8 (or big-endian >f4, >f8), |b1 or |u1", R,
                    {"show", "--embeddings", "dtype.npy", "a b"},
                    e("dtype.npy: not a valid .npy file: dtype '<i4' is not supported (use float32 or float64; bool or "
                      "uint8 for masks)") +
                        kNpyHint});
    rows.push_back({"npy.float", "--embeddings .npy", "float32 or float64", R, {"show", "--embeddings", "bool.npy", "a b"},
                    e("bool.npy: embeddings must be float32 or float64, not |b1 (hint: use array.astype('float32'))")});
    rows.push_back({"npy.shape", "--embeddings .npy", "2-D, non-empty", R, {"show", "--embeddings", "shape.npy", "a b"},
                    e("shape.npy: embeddings must be a non-empty 2-D array (tokens, d_in) (hint: reshape it to (tokens, "
                      "width) before numpy.save)")});
    rows.push_back({"npy.nan", "--embeddings .npy", "no NaN", R, {"show", "--embeddings", "nan.npy", "a b"},
                    e("nan.npy: row 1, column 0 is NaN, not a finite float32 value (hint: clean the array first, e.g. "
                      "numpy.nan_to_num)")});
    rows.push_back({"npy.inf", "--embeddings .npy", "no ±Inf, nothing beyond float32", R,
                    {"show", "--embeddings", "inf.npy", "a b"},
                    e("inf.npy: row 0, column 1 is infinite, not a finite float32 value (hint: clean the array first, "
                      "e.g. numpy.nan_to_num)")});
    // 9. the mask
    rows.push_back({"mask.syntax", "--mask JSON", "valid JSON", R, {"show", "--mask", "mask-syntax.json", "a b"},
                    e("mask-syntax.json: invalid JSON at byte offset 21: unexpected end of input; expected ']'") +
                        kMaskHint});
    rows.push_back({"mask.shape-json", "--mask JSON", "T rows of S values", R, {"show", "--mask", "mask-shape.json", "a b"},
                    e("mask-shape.json: shape (1, 3) does not match (T, S) = (2, 2)") + kMaskHint});
    rows.push_back({"mask.value-json", "--mask JSON", "true, false, 0 or 1", R, {"show", "--mask", "mask-value.json", "a b"},
                    e("mask-value.json: row 0, column 1 is not true, false, 0 or 1") + kMaskHint});
    rows.push_back({"mask.dtype", "--mask .npy", "bool or uint8", R, {"show", "--mask", "mask-float.npy", "a b"},
                    e("mask-float.npy: dtype <f4 is not bool or uint8") + kMaskHint});
    rows.push_back({"mask.shape-npy", "--mask .npy", "shape (T, S)", R, {"show", "--mask", "mask-shape.npy", "a b"},
                    e("mask-shape.npy: shape (3, 3) does not match (T, S) = (2, 2)") + kMaskHint});
    rows.push_back({"mask.value-npy", "--mask .npy", "0 or 1", R, {"show", "--mask", "mask-value.npy", "a b"},
                    e("mask-value.npy: row 0, column 1 is 7, not 0 or 1") + kMaskHint});
    // 10. outputs
    rows.push_back({"output.json-empty", "--json", "a file name", U, {"show", "hi", "--json", ""},
                    e("--json needs a file name (hint: e.g. --json out/trace.json)")});
    rows.push_back({"output.json-slash", "--json", "not ending in '/'", U, {"show", "hi", "--json", "out/"},
                    e("--json 'out/' names a folder, not a file (hint: e.g. --json out/trace.json)")});
    rows.push_back({"output.json-folder", "--json", "not an existing folder", R, {"show", "hi", "--json", "folder"},
                    e("output path 'folder' is a folder (hint: name a file inside it, e.g. folder/trace.json)")});
    rows.push_back({"output.parent", "--json, --png, --svg", "every existing part of the path a folder", R,
                    {"show", "hi", "--json", "file/trace.json"},
                    e("cannot write file 'file/trace.json': 'file' is not a folder (hint: choose a path whose folders "
                      "are folders)")});
    rows.push_back({"output.png-empty", "--png", "a folder name", U, {"show", "hi", "--png", ""},
                    e("--png needs a folder name (hint: e.g. --png out)")});
    rows.push_back({"output.png-sentence", "--png, --npy, --json",
                    "not a name that reads like the sentence: spaces, no '/' and no '.'", U,
                    {"show", "--png", "The cat sat"},
                    e("--png 'The cat sat' looks like a sentence, not a folder name (hint: did you mean the sentence? "
                      "write it outside the option: attn show \"The cat sat\" --png out; for a name with spaces write "
                      "--png './The cat sat')")});
    rows.push_back({"output.sentence-decode", "--png, --svg, --json, --html", "decode: not a name that reads like the sentence", U,
                    {"decode", "--json", "The cat sat"},
                    e("--json 'The cat sat' looks like a sentence, not a file name (hint: did you mean the sentence? "
                      "write it outside the option: attn decode \"The cat sat\" --json trace.json; for a name with spaces write "
                      "--json './The cat sat')")});
    rows.push_back({"output.png-file", "--png", "not an existing file", R, {"show", "hi", "--png", "file"},
                    e("output folder 'file' exists and is not a folder (hint: name a folder, not a file)")});
    rows.push_back({"output.svg-empty", "--svg", "a folder name", U, {"show", "hi", "--svg", ""},
                    e("--svg needs a folder name (hint: e.g. --svg out)")});
    rows.push_back({"output.svg-file", "--svg", "not an existing file", R, {"show", "hi", "--svg", "file"},
                    e("output folder 'file' exists and is not a folder (hint: name a folder, not a file)")});
    rows.push_back({"font.file", "--font", "a readable file", R, {"show", "hi", "--png", "out", "--font", "missing.ttf"},
                    e("cannot read font file 'missing.ttf': No such file or directory (hint: check the path: a relative one starts from the current folder)")});
    rows.push_back({"font.format", "--font", "a scalable TrueType or OpenType font FreeType opens", R,
                    {"show", "hi", "--png", "out", "--font", "rows.json"},
                    e("rows.json: not a scalable font FreeType can read (hint: give a TrueType or OpenType file, e.g. "
                      "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf)")});
    rows.push_back({"font.metrics", "--font", "glyphs, advances and line height within 16 ems (a font's own metrics)", R,
                    {"show", "hi", "--png", "out", "--font", "small-em.ttf"},
                    e("small-em.ttf: the font's metrics are absurd: its glyphs reach 360 ems (units per em 16; at most 16 "
                      "ems) (hint: give a TrueType or OpenType file, e.g. /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf)")});
    rows.push_back({"output.write", "--json, --png, --svg", "written whole: a failed write leaves nothing and gives the OS's reason", R,
                    {"show", "hi", "--json", "/dev/full"}, e("cannot write file '/dev/full': No space left on device")});
    rows.push_back({"output.vanished", "--json, --png", "the folder still there when writing (run in a deleted folder)", R,
                    {"show", "hi", "--json", "trace.json"}, e("cannot write file 'trace.json': No such file or directory")});
    rows.push_back({"output.stdout", "standard output", "written whole (run as attn show hi > /dev/full)", R, {"show", "hi"},
                    e("cannot write to standard output: No space left on device")});
    // 10. models (--model DIR): a Hugging Face GPT-2 folder
    const std::string dl = " (hint: the file is damaged or incomplete: download it again)";
    auto model = [](const std::string& dir) { return std::vector<std::string>{"show", "--model", dir, "--json", "t.json", "a b"}; };
    rows.push_back({"model.config", "--model DIR", "holds config.json", R, model("model-noconfig"),
                    e("no config.json in 'model-noconfig' (hint: download the model's config.json into the folder)")});
    rows.push_back({"model.config-file", "--model DIR", "config.json and model.safetensors are files (not a folder, a pipe, "
                    "a device or a looping link)", R, model("model-config-dir"),
                    e("'model-config-dir/config.json' is a folder, not a regular file (hint: put the model's config.json file there)")});
    const std::string never = ", which no state dict holds; attn never runs code from a checkpoint (hint: a weights file holds only "
                              "tensors: get the model's model.safetensors, or a pytorch_model.bin saved by torch.save(model.state_dict()))";
    rows.push_back({"model.pickle", "pytorch_model.bin", "read without running code: only a state dict's opcodes and globals "
                    "(OrderedDict, _rebuild_tensor_v2, the real, integer and bool storages); os.system or any other call is refused", R,
                    model("model-pickle"), e("model-pickle/pytorch_model.bin: the pickle calls os.system" + never)});
    rows.push_back({"torch.storage", "pytorch_model.bin", "each storage holds the bytes its persistent id declares", R,
                    model("torch-truncated"),
                    e("torch-truncated/pytorch_model.bin: storage '15' holds 12 bytes but its 4 F32 elements need 16") + dl});
    rows.push_back({"torch.view", "pytorch_model.bin", "each tensor's offset, size and stride inside its storage", R,
                    model("torch-view"),
                    e("torch-view/pytorch_model.bin: tensor 'ln_f.bias' reads element 4 of storage '15', which holds 4") + dl});
    rows.push_back({"torch.magic", "pytorch_model.bin", "a legacy (non-zip) file starts with torch's magic number", R,
                    model("torch-magic"),
                    e("torch-magic/pytorch_model.bin: not a PyTorch checkpoint: the first pickle is not torch's magic number "
                      "0x1950a86a20f9469cfc6c (hint: give a pytorch_model.bin saved by torch.save, or the model's model.safetensors)")});
    rows.push_back({"model.type", "config.json", "a model_type of attn's families (attn models)", R, model("model-mbart"),
                    e("model-mbart/config.json: model_type 'mbart' is not supported (hint: attn runs model_type gpt2, llama, "
                      "smollm, mistral, qwen2, bert, roberta, xlm-roberta, camembert, distilbert, t5, bart, marian (attn models lists them))")});
    rows.push_back({"model.heads", "config.json", "n_head divides n_embd", R, model("model-heads"),
                    e("model-heads/config.json: n_head 3 does not divide n_embd 4 (hint: each head takes n_embd / n_head "
                      "channels: use the config.json that came with the model)")});
    rows.push_back({"safetensors.empty", "model.safetensors", "not empty", R, model("st-empty"),
                    e("st-empty/model.safetensors: the file is empty") + dl});
    rows.push_back({"safetensors.length", "model.safetensors", "the header length within the file (and at most 100 MB)", R,
                    model("st-length"),
                    e("st-length/model.safetensors: the header length 65536 runs past the end of the file (10 bytes)") + dl});
    rows.push_back({"safetensors.json", "model.safetensors", "the header is a JSON object", R, model("st-json"),
                    e("st-json/model.safetensors: the header is invalid JSON at byte offset 1: invalid literal (hint: is this a safetensors file? its "
                      "first 8 bytes give the JSON header's length)")});
    rows.push_back({"safetensors.offsets", "model.safetensors", "data_offsets inside the file", R, model("st-truncated"),
                    e("st-truncated/model.safetensors: tensor 'ln_f.bias': data_offsets [5168, 5184] run past the end of "
                      "the file (5180 data bytes)") + dl});
    rows.push_back({"safetensors.overlap", "model.safetensors", "tensors neither overlap nor leave gaps", R,
                    model("st-overlap"), e("st-overlap/model.safetensors: tensor 'wpe.weight' overlaps the tensor before it") + dl});
    rows.push_back({"safetensors.twice", "model.safetensors", "each tensor named once in the header", R,
                    model("st-twice"),
                    e("st-twice/model.safetensors: the header names 'ln_f.bias' twice (which one would a reader load?)") + dl});
    rows.push_back({"safetensors.count", "model.safetensors", "dtype × shape = the bytes between the offsets", R,
                    model("st-count"),
                    e("st-count/model.safetensors: tensor 'wpe.weight': F32 × shape needs 80 bytes but data_offsets hold 64") + dl});
    rows.push_back({"safetensors.dtype", "model.safetensors", "F32, F16 or BF16 (no I64, F64, ...)", R, model("st-dtype"),
                    e("st-dtype/model.safetensors: tensor 'wte.weight' is I64, which attn does not read (hint: attn reads "
                      "F32, F16 and BF16 checkpoints: save the model in one of those)")});
    rows.push_back({"model.tensor", "model.safetensors", "every GPT-2 tensor present", R, model("model-missing"),
                    e("model-missing/model.safetensors: tensor 'ln_f.bias' is missing (hint: is this a GPT-2 checkpoint "
                      "saved by Hugging Face tools? (expected names like h.0.attn.c_attn.weight))")});
    rows.push_back({"model.shape", "model.safetensors", "every shape as config.json gives it", R, model("model-shape"),
                    e("model-shape/model.safetensors: tensor 'wpe.weight' has shape (8, 4) but config.json gives (4, 4) "
                      "(hint: the weights do not belong to this config.json: download both from the same model)")});
    rows.push_back({"model.vocab", "vocab.json", "an object of token -> whole-number id", R, model("tok-vocab"),
                    e("tok-vocab/vocab.json: the id of token 'a' is not a whole number below 2^24 (hint: use the tokenizer "
                      "files that came with the model: its vocab.json and merges.txt (or its tokenizer.json))")});
    rows.push_back({"model.vocab-length", "vocab.json", "each token at most 1024 bytes (GPT-2's longest is 256)", R,
                    model("tok-long"),
                    e("tok-long/vocab.json: a token is 1025 bytes, more than the 1024 a token may have "
                      "(\"xxxxxxxxxxxxxxxxxxxxxxxx...\") (hint: use the tokenizer files that came with the "
                      "model: its vocab.json and merges.txt (or its tokenizer.json))")});
    rows.push_back({"model.merges", "merges.txt", "one merge \"a b\" a line", R, model("tok-merges"),
                    e("tok-merges/merges.txt: line 2 is not two symbols separated by one space (hint: use the tokenizer "
                      "files that came with the model: its vocab.json and merges.txt (or its tokenizer.json))")});
    const std::string shard_hint = " (hint: the index and its shards belong together: download every model-*.safetensors the index names)";
    const std::string tok_hint = " (hint: attn runs byte-level BPE (GPT-2, RoBERTa, Llama 3, Qwen2, SmolLM2), sentencepiece-style BPE with "
                                 "byte fallback (Llama 2, TinyLlama, Mistral), WordPiece (BERT) and SentencePiece Unigram (T5, Marian) as tokenizer.json describes them)";
    rows.push_back({"model.kv-heads", "config.json", "num_key_value_heads divides num_attention_heads", R, model("llama-kv"),
                    e("llama-kv/config.json: num_attention_heads 2 is not divisible by num_key_value_heads 3 (hint: each "
                      "key/value head serves H/G query heads: use the config.json that came with the model)")});
    rows.push_back({"model.head-dim", "config.json", "head_dim × heads = the projections' shapes", R, model("llama-head-dim"),
                    e("llama-head-dim/model.safetensors: tensor 'model.layers.0.self_attn.q_proj.weight' has shape (4, 4) but "
                      "config.json gives (8, 4) (num_attention_heads, num_key_value_heads and head_dim) (hint: the weights do "
                      "not belong to this config.json: download both from the same model)")});
    rows.push_back({"model.rope-scaling", "config.json", "rope_scaling of type linear or llama3", R, model("llama-rope"),
                    e("llama-rope/config.json: rope_scaling type 'yarn' is not supported (hint: attn computes rope_scaling "
                      "linear and llama3 as Hugging Face does; other types would change the numbers)")});
    rows.push_back({"model.tokenizer-model", "tokenizer.json", "model type BPE, WordPiece or Unigram", R, model("llama-tok-model"),
                    e("llama-tok-model/tokenizer.json: the model type is 'WordLevel', which attn does not run" + tok_hint)});
    rows.push_back({"model.pre-tokenizer", "tokenizer.json", "a pre-tokenizer attn runs (ByteLevel, Split, Digits, Metaspace)", R,
                    model("llama-tok-pre"),
                    e("llama-tok-pre/tokenizer.json: the pre_tokenizer 'Whitespace', which attn does not run" + tok_hint)});
    rows.push_back({"model.shard-missing", "model.safetensors.index.json", "every shard it names is in the folder", R,
                    model("llama-shard-missing"),
                    e("llama-shard-missing/model.safetensors.index.json: names shard 'model-2.safetensors', which is missing "
                      "from the folder" + shard_hint)});
    rows.push_back({"model.shard-twice", "model.safetensors.index.json", "each tensor in one shard only", R, model("llama-shard-two"),
                    e("llama-shard-two/model.safetensors.index.json: tensor 'model.embed_tokens.weight' is in two shards, "
                      "llama-shard-two/model-1.safetensors and llama-shard-two/model-3.safetensors" + shard_hint)});
    rows.push_back({"model.name-control", "model.safetensors", "a tensor name an error quotes is one line: control characters "
                    "written \\xHH", R, model("llama-name-newline"),
                    e("llama-name-newline/model.safetensors: tensor 'model.extra\\x0aweight' has an unknown dtype 'Q4' (hint: the "
                      "file is damaged or incomplete: download it again)")});
    rows.push_back({"model.name-long", "model.safetensors", "a tensor name an error quotes is cut after 80 bytes", R,
                    model("llama-name-long"),
                    e("llama-name-long/model.safetensors: tensor '" + std::string(80, 'x') + "... (10240 bytes)' has an unknown "
                      "dtype 'Q4' (hint: the file is damaged or incomplete: download it again)")});
    rows.push_back({"model.dtypes", "model-*.safetensors", "one dtype for every tensor attn reads", R, model("llama-mixed"),
                    e("llama-mixed/model-2.safetensors: tensor 'model.layers.0.input_layernorm.weight' is F16 but "
                      "'model.embed_tokens.weight' is F32 (hint: the checkpoint mixes dtypes: save every tensor in one dtype "
                      "(F32, F16 or BF16))")});
    rows.push_back({"model.overflow", "model.safetensors", "weights whose scores fit float32", R, model("model-huge"),
                    e("the scores of query row 0 overflow float32 (a q·k is infinite or NaN) in the model's forward pass (hint: "
                      "the checkpoint's weights are too large for float32 arithmetic: check model.safetensors, or use the "
                      "checkpoint as Hugging Face saved it)")});
    rows.push_back({"model.merges-nul", "merges.txt", "a byte such as NUL in a merge is quoted, not the end of the message", R,
                    model("tok-merges-nul"),
                    e("tok-merges-nul/merges.txt: merge 1 ('a\\x00b c') makes a token the vocabulary lacks (hint: use the tokenizer "
                      "files that came with the model: its vocab.json and merges.txt (or its tokenizer.json))")});
    rows.push_back({"model.merges-part", "merges.txt", "each merge joins two tokens of the vocabulary into a third, as Hugging Face's "
                    "BPE requires", R, model("tok-merges-part"),
                    e("tok-merges-part/merges.txt: merge 2 ('ab cd') joins 'cd', a token the vocabulary lacks (hint: use the "
                      "tokenizer files that came with the model: its vocab.json and merges.txt (or its tokenizer.json))")});
    rows.push_back({"model.length", "TEXT with --model", "at most n_positions tokens", U,
                    {"show", "--model", "model-ok", "--json", "t.json", "a b c d e"},
                    e("the text has more than 4 tokens, the model's context (n_positions) (hint: shorten the text to at most "
                      "4 tokens)")});
    rows.push_back({"model.length-field", "TEXT with --model", "at most max_position_embeddings tokens (Llama, Mistral, Qwen2): "
                    "each family's own field named", U, {"show", "--model", "llama-ok", "a b c d e"},
                    e("the text has more than 4 tokens, the model's context (max_position_embeddings) (hint: shorten the text to "
                      "at most 4 tokens)")});
    rows.push_back({"model.decode-max-tokens", "decode --model", "no --max-tokens (a seeded kind's), as show --model", U,
                    {"decode", "--model", "model-ok", "--max-tokens", "3", "a b"},
                    e("--max-tokens does not apply to --model (hint: a model brings its own tokens, weights, heads and positions: "
                      "drop --max-tokens)")});
    rows.push_back({"model.rope-dynamic", "config.json", "no rope_scaling dynamic: it changes nothing within max_position_embeddings",
                    R, model("llama-dynamic"),
                    e("llama-dynamic/config.json: rope_scaling type 'dynamic' changes the positions only for a text past "
                      "max_position_embeddings (4 tokens), which attn does not run (hint: remove rope_scaling from config.json to "
                      "run texts within max_position_embeddings: the numbers are the same without it)")});
    rows.push_back({"model.shard-file", "model.safetensors.index.json", "each shard a regular file (not a folder, a pipe or a device)",
                    R, model("llama-shard-dir"),
                    e("'llama-shard-dir/model-2.safetensors' is a folder, not a regular file (hint: the index and its shards "
                      "belong together: download every shard the index names)")});
    rows.push_back({"model.tokenizer-file", "tokenizer.json", "a regular file (not a folder, a pipe or a device), never taken for absent",
                    R, model("llama-tok-dir"),
                    e("'llama-tok-dir/tokenizer.json' is a folder, not a regular file (hint: put the model's own tokenizer.json "
                      "file there)")});
    rows.push_back({"model.json-bom", "config.json, tokenizer.json, generation_config.json", "no UTF-8 byte order mark (Python's json "
                    "refuses one)", R, model("llama-bom"),
                    e("llama-bom/config.json: starts with a UTF-8 byte order mark, which Python's json and Hugging Face refuse "
                      "(hint: save the file as UTF-8 without a byte order mark (BOM))")});
    rows.push_back({"model.regex-callout", "tokenizer.json", "a Split or Replace regex without PCRE2 callouts ((?C1), (?C\"x\"))",
                    R, model("llama-callout"),
                    e("llama-callout/tokenizer.json: the pre-tokeniser's regex has a PCRE2 callout ((?C...)), which Hugging Face's "
                      "tokenizers do not accept (hint: use the tokenizer.json that came with the model)")});
    rows.push_back({"heads.file", "heads --file", "UTF-8 text without control characters, errors naming the file and the byte "
                    "offset, as show's --file", R, {"heads", "--model", "model-ok", "--file", "bad-utf8.txt"},
                    e("bad-utf8.txt: the text is not valid UTF-8 at byte offset 5 (byte 0xFF) (hint: save the file as UTF-8)")});
    rows.push_back({"output.attn-name-any-format", "--json, --html, --npy", "not one of attn's names of any format (.png, .svg, "
                    ".npy) inside a --png, --svg or --npy folder", U, {"show", "hi", "--html", "out/causal-weights.svg", "--png", "out"},
                    e("--html 'out/causal-weights.svg' has one of attn's file names inside --png 'out': a later run writing that "
                      "folder as --png, --svg or --npy would overwrite or remove it (hint: give --html a name attn does not write "
                      "there, or another folder)")});
    rows.push_back({"model.option", "--model", "no option of the seeded kinds", U,
                    {"show", "--model", "model-ok", "--kind", "mha", "a b"},
                    e("--kind does not apply to --model (hint: a model brings its own tokens, weights, heads and causal "
                      "mask: drop --kind)")});
    rows.push_back({"model.show", "--show with --model", "a stage the model run keeps: scores, masked-scores, mask, weights; the chosen head's queries, keys; the layer's mean, rollout", U,
                    {"show", "--model", "model-ok", "--show", "weights,context", "a b"},
                    e("--show context: a model run keeps each head's scores, mask and weights, and the chosen head's queries and "
                      "keys, not its context (hint: choose from scores, masked-scores, mask, weights, queries, keys, and the "
                      "layer's mean and rollout; the numbers behind them: --npy DIR)")});
    rows.push_back({"model.figures", "--figures with --model", "a figure of the kept stages, products (with --query), or query", U,
                    {"show", "--model", "model-ok", "--png", "out", "--figures", "values", "a b"},
                    e("--figures values: a model run keeps each head's scores, mask and weights, and the chosen head's queries "
                      "and keys, not its values (hint: choose from scores, masked-scores, mask, weights, queries, keys, "
                      "products, query)")});
    rows.push_back({"model.figures-products", "--figures products with --model", "with --query I", U,
                    {"show", "--model", "model-ok", "--png", "out", "--figures", "products", "a b"},
                    e("--figures products draws query I's products with every key, but no --query is given (hint: add "
                      "--query I, e.g. --query 0)")});
    rows.push_back({"model.keep-layers", "--keep-layers", "layers of the model, e.g. 0,5-7 or all", U,
                    {"show", "--model", "model-ok", "--keep-layers", "3", "a b"},
                    e("--keep-layers '3' names layer 3; the model has 1 (hint: write layers and ranges from 0 to 0, e.g. "
                      "--keep-layers 0,5-7, or all)")});
    rows.push_back({"model.ablate", "--ablate", "layer.head pairs of a decoder, each named once", U,
                    {"show", "--model", "model-ok", "--ablate", "0.2", "a b"},
                    e("--ablate '0.2' names head 2; the model has 2 heads per layer (hint: write layer.head pairs (layers 0 to 0, "
                      "heads 0 to 1), e.g. --ablate 0.1,1.0)")});
    rows.push_back({"model.ablate-twice", "--ablate", "layer.head pairs of a decoder, each named once", U,
                    {"show", "--model", "model-ok", "--ablate", "0.1,0.1", "a b"},
                    e("--ablate '0.1,0.1' names head 0.1 twice (hint: write layer.head pairs (layers 0 to 0, heads 0 to 1), e.g. "
                      "--ablate 0.1,1.0)")});
    rows.push_back({"model.lens", "--lens", "with --model (a decoder)", U, {"show", "--kind", "causal", "--lens", "a b"},
                    e("--lens acts on a trained decoder's layers, which needs --model (hint: attn show --model GPT2_DIR \"text\" "
                      "--lens)")});
    // 11. numerics
    rows.push_back({"numerics.overflow", "scores", "finite: q·k must not overflow float32", R,
                    {"show", "--kind", "simple", "--embeddings", "overflow.json", "a b"},
                    e("the scores of query row 0 overflow float32 (a q·k is infinite or NaN) (hint: use embeddings with "
                      "smaller values)")});
    // 11. hostile inputs, round two: outputs that would destroy or clash, inputs read by the tokeniser's
    //     and numpy's rules, every stage finite
    rows.push_back({"output.same-as-input", "--json, --png, --npy", "not the same file (device and inode) as an input", U,
                    {"show", "--embeddings", "named.json", "--json", "named.json"},
                    e("--json 'named.json' is the same file as --embeddings 'named.json' (hint: write the output to "
                      "another file; attn never overwrites what it reads)")});
    rows.push_back({"output.folder-over-input", "--png, --npy", "no input among the folder's attn-named files", U,
                    {"show", "--embeddings", "npy-out/causal-x.npy", "a b", "--npy", "npy-out"},
                    e("--npy 'npy-out' would overwrite --embeddings 'npy-out/causal-x.npy' (as causal-x.npy) (hint: read "
                      "the input from another folder or write the output to another)")});
    rows.push_back({"text.stdin-max-tokens", "--file -", "standard input read no further than --max-tokens words "
                    "(run with a b c d on standard input)", R, {"show", "--file", "-", "--max-tokens", "2"},
                    e("standard input: the text has more than 2 tokens (--max-tokens 2); attn stopped reading there "
                      "(hint: raise --max-tokens or shorten the text)")});
    rows.push_back({"output.same-path", "--json, --png, --npy", "each output its own path", U,
                    {"show", "hi", "--json", "same", "--npy", "same"},
                    e("--json 'same' and --npy 'same' name the same path (hint: give each output its own path)")});
    rows.push_back({"output.inside-file", "--json, --png, --npy", "no output inside another output's file", U,
                    {"show", "hi", "--json", "d", "--png", "d/x"},
                    e("--json 'd' and --png 'd/x': --png would need the file d to be a folder (hint: give each output "
                      "its own path)")});
    rows.push_back({"output.folder-stdout", "--png, --npy", "a folder: '-' is standard output, for --json only", U,
                    {"show", "hi", "--png", "-"},
                    e("--png takes a folder; '-' (standard output) is for --json only (hint: name a folder, e.g. --png "
                      "out)")});
    rows.push_back({"cli.repeated-flag", "options", "flags at most once too", U, {"kinds", "--json", "--json"},
                    e("--json is given 2 times; give it once (hint: see 'attn kinds --help')")});
    rows.push_back({"cli.no-sentence", "kinds, bench", "no sentence", U, {"kinds", "extra"},
                    e("unexpected argument 'extra' (hint: 'attn kinds' takes no sentence; see 'attn kinds --help')")});
    rows.push_back({"bench.json-empty", "bench --json", "a file name, as for show", U, {"bench", "--json", ""},
                    e("--json needs a file name (hint: e.g. --json out/trace.json)")});
    rows.push_back({"option.show-list", "--show", "one value: items separated by commas", U,
                    {"show", "--show", "weights,attention", "hi"},
                    e("--show: 'attention' in 'weights,attention' is not one of scores, masked-scores, mask, weights, zeroed, "
                      "dropped, context, queries, keys, values, output, positions, bias, unrotated, mean, rollout") + kHelp});
    rows.push_back({"options.luong-variant", "--score, --d-out, --init", "luong: only options its score uses "
                    "(dot: neither --d-out nor --init; general: no --d-out)", U,
                    {"show", "--kind", "luong", "--score", "dot", "--d-out", "7", "hi"},
                    e("--d-out does not apply to kind 'luong' with --score dot (hint: nothing uses it there; it applies "
                      "with --score concat)")});
    rows.push_back({"options.renorm", "--renorm, --no-causal", "not both", U, {"show", "--renorm", "--no-causal", "hi"},
                    e("--renorm renormalises the weights after hiding the future; with --no-causal nothing is hidden "
                      "(hint: drop --renorm or --no-causal)")});
    rows.push_back({"inputs.stdin-once", "--file, --embeddings, --mask", "at most one reads standard input ('-')", U,
                    {"show", "--file", "-", "--mask", "-"},
                    e("only one of --file, --embeddings and --mask can read standard input ('-') (hint: give the "
                      "others as files)")});
    rows.push_back({"sentence.noncharacter", "SENTENCE, --file", "no U+FFFE or U+FFFF (a byte order mark read the "
                    "wrong way round)", U, {"show", "a\xEF\xBF\xBE" "b"},
                    e("the sentence has a noncharacter at byte offset 1 (U+FFFE) (hint: remove it; tabs and newlines "
                      "are fine)")});
    rows.push_back({"text.utf16", "--file", "UTF-8, not UTF-16", R, {"show", "--file", "utf16.txt"},
                    e("utf16.txt: the text looks like UTF-16 (hint: save it as UTF-8)")});
    rows.push_back({"json.utf16", "--embeddings JSON, --mask JSON", "UTF-8, not UTF-16", R,
                    {"show", "--embeddings", "utf16.json", "a b"},
                    e("utf16.json: the file looks like UTF-16 (hint: save it as UTF-8)")});
    rows.push_back({"json.token-word", "--embeddings JSON", "\"tokens\": one word each, as the tokeniser makes "
                    "them: no white space (U+00A0 too)", R, {"show", "--embeddings", "space-token.json"},
                    e("space-token.json: token 0 has white space at byte offset 1 (U+0020) (hint: a token is one word, "
                      "as attn's tokeniser makes them: no spaces, nothing invisible)")});
    rows.push_back({"json.token-invisible", "--embeddings JSON", "\"tokens\": no invisible characters (U+200B, "
                    "U+2060, U+FEFF)", R, {"show", "--embeddings", "zwsp-token.json"},
                    e("zwsp-token.json: token 1 has an invisible character at byte offset 1 (U+200B) (hint: a token is "
                      "one word, as attn's tokeniser makes them: no spaces, nothing invisible)")});
    rows.push_back({"json.literal", "--embeddings JSON", "the number that breaks a rule is quoted, at most 40 bytes "
                    "of it", R, {"show", "--embeddings", "long-literal.json", "a"},
                    e("long-literal.json: row 0, column 0 is not a finite float32 value "
                      "(1000000000000000000000000000000000000000... (5001 bytes))") + kJsonHint});
    rows.push_back({"json.float32-max", "--embeddings JSON", "up to FLT_MAX (3.4028235e38 is finite), the literal "
                    "named", R, {"show", "--embeddings", "beyond.json", "a"},
                    e("beyond.json: row 0, column 0 is not a finite float32 value (3.5e38)") + kJsonHint});
    rows.push_back({"npy.version-minor", "--embeddings .npy, --mask .npy", "format version 1.0, 2.0 or 3.0 (as numpy)",
                    R, {"show", "--embeddings", "version11.npy", "a b"},
                    e("version11.npy: not a valid .npy file: unsupported format version 1.1") + kNpyHint});
    rows.push_back({"npy.dict", "--embeddings .npy, --mask .npy", "the header a Python dict {...}", R,
                    {"show", "--embeddings", "nodict.npy", "a b"},
                    e("nodict.npy: not a valid .npy file: the header is not a Python dict {...}: 'descr': '<f4', "
                      "'fortran_order': False, ... (56 bytes)") + kNpyHint});
    rows.push_back({"npy.duplicate-key", "--embeddings .npy, --mask .npy", "each header key once", R,
                    {"show", "--embeddings", "dupkey.npy", "a b"},
                    e("dupkey.npy: not a valid .npy file: the header gives 'descr' twice") + kNpyHint});
    rows.push_back({"npy.escaped", "--embeddings .npy, --mask .npy", "header text quoted escaped (a NUL as \\x00)", R,
                    {"show", "--embeddings", "nul.npy", "a b"},
                    e("nul.npy: not a valid .npy file: dtype '<\\x00f4' is not supported (use float32 or float64; bool "
                      "or uint8 for masks)") + kNpyHint});
    rows.push_back({"numerics.stages", "every stage", "finite: queries, keys, values, scores, weights, context, output "
                    "(tanh would hide an overflow in additive's projections)", R,
                    {"show", "--kind", "additive", "--embeddings", "big.json", "a b"},
                    e("the queries (x W_query) overflow float32 at row 0, column 10 (a value is infinite or NaN) (hint: "
                      "use embeddings with smaller values)")});
    // 11. attn render: saved traces and .npy attention
    const std::string kTrace = " (hint: give a trace written by 'attn show --json', or a .npy of attention weights)";
    const std::string kShape = " (hint: save attention of shape (L, H, T, S), (H, T, S) or (T, S), e.g. np.save(path, "
                               "torch.stack(out.attentions)[:, 0].numpy()))";
    rows.push_back({"render.outputs", "--html, --png, --svg", "attn render writes at least one of them", U,
                    {"render", "mask-float.npy"},
                    e("nothing to write (hint: give --html FILE, --png DIR or --svg DIR; see 'attn render --help')")});
    rows.push_back({"render.json", "INPUT (trace)", "valid JSON, whole", R, {"render", "trace-cut.json", "--html", "p.html"},
                    e("trace-cut.json: invalid JSON at byte offset 60: unexpected end of input; expected string literal") + kTrace});
    rows.push_back({"render.format", "INPUT (trace)", "\"format\": \"attn-trace\"", R, {"render", "rows.json", "--html", "p.html"},
                    e("rows.json: not an attn trace (no \"format\": \"attn-trace\")") + kTrace});
    rows.push_back({"render.version", "INPUT (trace)", "version 1 or 2", R, {"render", "trace-v3.json", "--html", "p.html"},
                    e("trace-v3.json: trace version 3 is not supported (this attn reads versions 1 and 2) (hint: write the trace "
                      "again with this attn, or use the attn that wrote it)")});
    rows.push_back({"render.kind", "INPUT (trace)", "\"kind\": a kind attn writes, or \"model\" (it names the figures' files)", R,
                    {"render", "trace-kind.json", "--html", "p.html"},
                    e("trace-kind.json: kind: \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (200001 bytes)\" is not a kind attn writes (attn kinds "
                      "lists them; a model's is \"model\")") + kTrace});
    rows.push_back({"render.token-length", "INPUT (trace)", "each token at most 1024 bytes, as every token attn takes", R,
                    {"render", "trace-long-token.json", "--html", "p.html"},
                    e("trace-long-token.json: tokens[0]: is 1025 bytes, more than the 1024 a token may have "
                      "(\"bbbbbbbbbbbbbbbbbbbbbbbb...\")") + kTrace});
    rows.push_back({"render.layer-number", "INPUT (trace)", "layers[].layer within the model's n_layer", R,
                    {"render", "trace-layer-past.json", "--html", "p.html"},
                    e("trace-layer-past.json: layers[0].layer: 2 is past the model's last layer (1)") + kTrace});
    rows.push_back({"render.layer-twice", "INPUT (trace)", "each layer number once", R,
                    {"render", "trace-layer-twice.json", "--html", "p.html"},
                    e("trace-layer-twice.json: layers[1].layer: layer 1 appears twice") + kTrace});
    rows.push_back({"render.rollout", "INPUT (trace)", "a model's trace holds its layer means and rollout", R,
                    {"render", "trace-no-rollout.json", "--html", "p.html"},
                    e("trace-no-rollout.json: aggregates: a model's trace needs \"layer_mean\" and \"rollout\", one "
                      "matrix per layer") + kTrace});
    rows.push_back({"render.model-heads", "INPUT (trace)", "a model's heads in \"layers\" only", R,
                    {"render", "trace-model-heads.json", "--html", "p.html"},
                    e("trace-model-heads.json: heads: a model's trace keeps its heads in \"layers\", not \"heads\"") + kTrace});
    rows.push_back({"render.hidden-weight", "INPUT (trace)", "a weight is 0 where the mask hides its key", R,
                    {"render", "trace-hidden.json", "--html", "p.html"},
                    e("trace-hidden.json: layers[0].heads[0].weights[0][1]: is 0.5 but the mask hides this key (a hidden key's "
                      "weight is 0)") + kTrace});
    rows.push_back({"render.weight-range", "INPUT (trace)", "weights (and --renorm's zeroed) in [0, 1]; dropped weights 0 or weight / (1 - p)", R,
                    {"render", "trace-weight-range.json", "--html", "p.html"},
                    e("trace-weight-range.json: layers[0].heads[0].weights[1][0]: is 1.5, not a weight in [0, 1]") + kTrace});
    rows.push_back({"render.row-sum", "INPUT (trace)", "a weights row sums to 1 within 0.001, or is all 0 when it sees no key", R,
                    {"render", "trace-row-sum.json", "--html", "p.html"},
                    e("trace-row-sum.json: layers[0].heads[0].weights[1]: sums to 0.75, not 1 (a softmax row, within 0.001)") + kTrace});
    rows.push_back({"render.head-twice", "INPUT (trace)", "each head number once in a layer", R,
                    {"render", "trace-head-twice.json", "--html", "p.html"},
                    e("trace-head-twice.json: layers[0].heads[1].head: head 0 appears twice") + kTrace});
    rows.push_back({"render.head-number", "INPUT (trace)", "head numbers below model.n_head (config.heads for a seeded kind)", R,
                    {"render", "trace-head-past.json", "--html", "p.html"},
                    e("trace-head-past.json: layers[0].heads[0].head: 1 is past the last head (0, model.n_head 1)") + kTrace});
    rows.push_back({"render.kv-head", "INPUT (trace)", "kv_head: the key/value head of the head's group, head / (H / KV) "
                    "(config.kv_heads for a seeded kind), never past the head's own number", R,
                    {"render", "trace-kv-head.json", "--html", "p.html"},
                    e("trace-kv-head.json: layers[0].heads[0].kv_head: 1 is not the key/value head of query head 0 (a group's "
                      "key/value head is numbered at most as its query heads)") + kTrace});
    rows.push_back({"render.config-heads", "INPUT (trace)", "config.heads (model.n_head) heads in every layer", R,
                    {"render", "trace-config-heads.json", "--html", "p.html"},
                    e("trace-config-heads.json: config.heads: is 7 but heads holds 1 head") + kTrace});
    rows.push_back({"render.versions", "INPUT (trace)", "one version's fields: version 1's heads or layers, version 2's attention", R,
                    {"render", "trace-versions.json", "--html", "p.html"},
                    e("trace-versions.json: attention: is version 2's field, but the trace says version 1 (whose heads are in "
                      "\"heads\" or \"layers\")") + kTrace});
    rows.push_back({"render.seeded-layers", "INPUT (trace)", "a seeded kind's version 1 trace: its heads in \"heads\", no \"layers\"", R,
                    {"render", "trace-seeded-layers.json", "--html", "p.html"},
                    e("trace-seeded-layers.json: layers: is a model's field, but this seeded kind's trace keeps its heads in "
                      "\"heads\"") + kTrace});
    rows.push_back({"render.duplicate-key", "INPUT (trace)", "each key once in its object (JSON leaves a repeated key's meaning open)", R,
                    {"render", "trace-dupkey.json", "--html", "p.html"},
                    e("trace-dupkey.json: model.n_head: is given twice in its object (JSON does not say which one counts)") + kTrace});
    rows.push_back({"render.model-type", "INPUT (trace)", "model.type a family of attn models (it starts the figures' file names)", R,
                    {"render", "trace-type.json", "--png", "out"},
                    e("trace-type.json: model.type: \"gpt2/../../x\" is not a model family attn runs (gpt2, llama, mistral, qwen2, bert, "
                      "roberta, distilbert, t5, bart, marian)") + kTrace});
    rows.push_back({"render.layer-held", "--layer", "a layer the trace holds, by its number in the model", U,
                    {"render", "trace-kl1.json", "--html", "p.html", "--layer", "0"},
                    e("--layer 0 is not in trace-kl1.json (it holds layer 1) (hint: pick one of the layers it holds)")});
    rows.push_back({"render.show-figures", "--show", "mean and rollout are figures: a --png or --svg folder", U,
                    {"render", "trace-kl1.json", "--show", "mean", "--html", "p.html"},
                    e("--show mean names figures, but no --png or --svg folder is given (hint: add --png DIR)")});
    rows.push_back({"render.show-head", "--show", "mean and rollout cover every head of a layer: no --head", U,
                    {"render", "trace-kl1.json", "--show", "rollout", "--png", "o", "--head", "0"},
                    e("--show mean and rollout draw every head of a layer together; --head picks one (hint: leave out --head, "
                      "or --show heads)")});
    rows.push_back({"render.show-word", "--show", "each of heads, mean, rollout", U,
                    {"render", "trace-kl1.json", "--show", "weights", "--png", "o"},
                    e("--show weights: render draws each layer's heads, mean or rollout (hint: choose from heads, mean, rollout, "
                      "e.g. --show heads,mean)")});
    rows.push_back({"show.show-aggregate", "--show", "mean and rollout only for a model run", U,
                    {"show", "--show", "mean", "hi"},
                    e("--show mean: a layer's mean over heads belongs to a model run (hint: attn show --model DIR --show mean "
                      "\"text\", or attn render TRACE.json --show mean --png DIR)")});
    rows.push_back({"render.npy-magic", "INPUT (.npy)", "a file named .npy starts with the .npy magic (never read as a trace)", R,
                    {"render", "nomagic.npy", "--html", "p.html"},
                    e("nomagic.npy: not a valid .npy file: the magic string \\x93NUMPY is missing (hint: save it with "
                      "numpy.save(path, array))")});
    rows.push_back({"render.npy-rank", "INPUT (.npy)", "2, 3 or 4 dimensions: (T, S), (H, T, S), (L, H, T, S)", R,
                    {"render", "shape.npy", "--html", "p.html"},
                    e("shape.npy: attention of shape (4,) has 1 dimensions, not 2, 3 or 4") + kShape});
    rows.push_back({"render.npy-rank5", "INPUT (.npy)", "not more than 4 dimensions", R,
                    {"render", "rank5.npy", "--html", "p.html"},
                    e("rank5.npy: attention of shape (1, 1, 1, 1, 1) has 5 dimensions, not 2, 3 or 4") + kShape});
    rows.push_back({"render.npy-nan", "INPUT (.npy)", "every value finite", R, {"render", "nan.npy", "--html", "p.html"},
                    e("nan.npy: the value at (1, 0) is NaN; attention must be finite numbers (hint: clean the array "
                      "first, e.g. numpy.nan_to_num)")});
    rows.push_back({"render.tokens-count", "--tokens", "T tokens (and S keys: {\"tokens\", \"source_tokens\"} when T ≠ S)", R,
                    {"render", "mask-float.npy", "--tokens", "tokens3.txt", "--html", "p.html"},
                    e("tokens3.txt: 3 tokens, but mask-float.npy holds (T, S) = (2, 2) (hint: give one token per "
                      "position, e.g. tokenizer.convert_ids_to_tokens(ids))")});
    rows.push_back({"render.tokens-length", "--tokens", "each token at most 1024 bytes", R,
                    {"render", "mask-float.npy", "--tokens", "long-token.txt", "--html", "p.html"},
                    e("long-token.txt: token 1 is 1025 bytes, more than the 1024 a token may have "
                      "(\"xxxxxxxxxxxxxxxxxxxxxxxx...\") (hint: give one token per position, e.g. "
                      "tokenizer.convert_ids_to_tokens(ids))")});
    rows.push_back({"render.tokens-trace", "--tokens", "only for a .npy (a trace carries its tokens)", U,
                    {"render", "trace-v3.json", "--tokens", "tokens3.txt", "--html", "p.html"},
                    e("--tokens applies to a .npy input; a trace carries its own tokens (hint: leave out --tokens)")});
    rows.push_back({"render.layer", "--layer", "only for traces with layers, and one of them", U,
                    {"render", "mask-float.npy", "--layer", "0", "--html", "p.html"},
                    e("--layer applies to traces with layers; mask-float.npy has none (hint: leave out --layer)")});
    rows.push_back({"render.head", "--head", "one of the trace's heads", U,
                    {"render", "mask-float.npy", "--head", "1", "--html", "p.html"},
                    e("--head 1 is past the last head (0) (hint: heads are numbered from 0)")});
    rows.push_back({"render.html-path", "--html", "a writable file path, checked before reading", R,
                    {"render", "mask-float.npy", "--html", "file/page.html"},
                    e("cannot write file 'file/page.html': 'file' is not a folder (hint: choose a path whose folders "
                      "are folders)")});
    // 11. models by name (--model NAME, attn pull; docs/hub.md): names checked before any request or path
    rows.push_back({"hub.repo-id", "attn pull NAME, --model NAME", "a folder, or a repo id: at most one '/', each part 1-96 of "
                    "[A-Za-z0-9_.-] starting and ending with a letter, digit or _, no -- or .., no .git ending", U,
                    {"pull", "org/name/extra"},
                    e("'org/name/extra' is neither a folder nor a Hugging Face repo id (hint: give a model folder, or a repo id "
                      "such as gpt2 or HuggingFaceTB/SmolLM2-135M (optionally @revision))")});
    rows.push_back({"hub.revision", "NAME@REV", "a branch, tag or commit: [A-Za-z0-9_.-] and '/', no empty, . or .. part", U,
                    {"pull", "gpt2@../main"},
                    e("'../main' is not a revision attn can use (hint: give a branch, a tag or a 40-hex commit after '@', "
                      "e.g. gpt2@main)")});
    rows.push_back({"hub.offline", "--offline", "only with --model NAME", U, {"show", "--offline", "hi"},
                    e("--offline applies to --model NAME (hint: drop --offline)")});
    return rows;
}

std::string display_arg(const std::string& arg) {
    bool plain = true;
    for (char c : arg) {
        const auto ch = static_cast<unsigned char>(c);
        plain = plain && ch >= 0x20 && ch != 0x7F && ch < 0x80;
    }
    if (plain) return shell_quote(arg);
    std::string q = "$'";
    for (char c : arg) {
        const auto ch = static_cast<unsigned char>(c);
        if (ch >= 0x20 && ch < 0x7F && ch != '\'' && ch != '\\') {
            q += static_cast<char>(ch);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", ch);
            q += buf;
        }
    }
    return q + "'";
}

std::string cell(const std::string& s) {  // a Markdown table cell: | escaped
    std::string out;
    for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
    return out;
}

}  // namespace

const std::vector<ValidationRule>& validation_rules() {
    static const std::vector<ValidationRule> rows = make_rules();
    return rows;
}

const std::vector<ValidationFixture>& validation_fixtures() {
    static const std::vector<ValidationFixture> fixtures = {
        {"rows.json", "[[1, 2], [3, 4]]"},
        {"named.json", "{\"tokens\": [\"a\", \"b\"], \"x\": [[1, 2], [3, 4]]}"},
        {"many.txt", "300 words: w0 w1 ... w299"},
        {"large.txt", "257 MiB (sparse)"},
        {"bad-utf8.txt", "Your \\xff journey"},
        {"ctrl.txt", "Your\\x1b[2J journey"},
        {"blank.txt", "spaces, a tab and a newline"},
        {"long.txt", "a b c d e"},
        {"syntax.json", "[[1, 2], [3, 4]"},
        {"deep.json", "{\"x\": [[[1]]]}"},
        {"ragged.json", "[[1, 2], [3]]"},
        {"text.json", "[[1, 2], [3, \"x\"]]"},
        {"huge.json", "[[1, 2], [3, 1e999]]"},
        {"wide.json", "one row of 65537 zeros"},
        {"count.json", "{\"tokens\": [\"a\", \"b\", \"c\"], \"x\": [[1, 2], [3, 4]]}"},
        {"ctrl-token.json", "{\"tokens\": [\"a\", \"b\\u001b[2J\"], \"x\": [[1, 2], [3, 4]]}"},
        {"long-word.txt", "Your, a space, then 1025 x"},
        {"long-token.json", "{\"tokens\": [\"a\", 1025 x], \"x\": [[1, 2], [3, 4]]}"},
        {"long-token.txt", "a, a newline, then 1025 x"},
        {"version.npy", "the magic string, then format version 9"},
        {"header.npy", "version 1, a header length of 65535, then 2 bytes"},
        {"size.npy", "<f4, shape (1000000, 1000000), 8 bytes of data"},
        {"dtype.npy", "<i4, shape (2, 2)"},
        {"bool.npy", "|b1, shape (2, 2)"},
        {"shape.npy", "<f4, shape (4,)"},
        {"nan.npy", "<f4, shape (2, 2), NaN at row 1, column 0"},
        {"inf.npy", "<f8, shape (2, 2), +Inf at row 0, column 1"},
        {"mask-syntax.json", "[[true, false], [true"},
        {"mask-shape.json", "[[1, 0, 1]]"},
        {"mask-value.json", "[[1, 2], [1, 1]]"},
        {"mask-float.npy", "<f4, shape (2, 2)"},
        {"mask-shape.npy", "|u1, shape (3, 3)"},
        {"mask-value.npy", "|u1, shape (2, 2), 7 at row 0, column 1"},
        {"overflow.json", "[[1e20, 1e20], [1e20, -1e20]]"},
        {"w2.json", "{\"params\": {\"W_query\": [[1, 0], [0, 1]], \"W_key\": (the same), \"W_value\": (the same)}}"},
        {"w-missing.json", "w2.json without W_key"},
        {"w-shape.json", "w2.json with W_key [[1], [0]]"},
        {"w-extra.json", "w2.json and W_qeury"},
        {"w-inf.json", "w2.json with W_key [[3.5e38, 0], [0, 1]]"},
        {"w-twice.json", "w2.json with W_key given twice"},
        {"w-format.json", "w2.json with \"format\": \"attn-traces\""},
        {"w-big.json", "w2.json with W_query and W_key 1e20 · I"},
        {"trace-kl1.json", "a model trace of 2 layers keeping layer 1 (show --model --keep-layers 1)"},
        {"trace-layer-past.json", "trace-kl1.json with layer 2"},
        {"trace-layer-twice.json", "trace-kl1.json with layer 1 twice"},
        {"trace-no-rollout.json", "trace-kl1.json without aggregates"},
        {"trace-model-heads.json", "trace-kl1.json with seeded \"heads\" too"},
        {"trace-hidden.json", "trace-kl1.json with a causal mask and row 0's weights [0.5, 0.5]"},
        {"trace-weight-range.json", "trace-kl1.json with row 1's weights [1.5, -0.5]"},
        {"trace-row-sum.json", "trace-kl1.json with row 1's weights [0.5, 0.25]"},
        {"trace-head-twice.json", "trace-kl1.json with n_head 2 and two heads numbered 0"},
        {"trace-head-past.json", "trace-kl1.json with its one head numbered 1"},
        {"trace-kv-head.json", "trace-kl1.json with its one head's kv_head 1"},
        {"trace-seeded-layers.json", "a causal version 1 trace with \"heads\" and \"layers\""},
        {"trace-config-heads.json", "a version 1 causal trace with config.heads 7 over one head"},
        {"trace-versions.json", "trace-kl1.json (version 1) with version 2's \"attention\" too"},
        {"trace-dupkey.json", "trace-kl1.json with \"n_head\" given twice in \"model\""},
        {"trace-type.json", "trace-kl1.json with model.type \"gpt2/../../x\""},
        {"model-config-dir", "model-ok with config.json a folder"},
        {"model-huge", "model-ok with every h.0.attn.c_attn.weight 1e30"},
        {"nomagic.npy", "an attn trace's JSON in a file named .npy"},
        {"small-em.ttf", "DejaVu Sans with head.unitsPerEm 16 (its outlines drawn 128 times too large)"},
        {"model-ok", "a GPT-2 folder: 1 layer, 2 heads, n_embd 4, n_positions 4, the 256 byte tokens and <|endoftext|>"},
        {"model-noconfig", "model-ok without config.json"},
        {"model-pickle", "config.json, vocab.json, merges.txt and a pytorch_model.bin (zip) whose data.pkl calls os.system('id')"},
        {"torch-truncated", "model-ok's weights as pytorch_model.bin (zip, a storage per tensor) with ln_f.bias's storage cut to 12 bytes"},
        {"torch-view", "model-ok's weights as pytorch_model.bin (zip) with ln_f.bias at storage offset 1"},
        {"torch-magic", "model-ok's weights as a legacy pytorch_model.bin whose magic number ends 6d, not 6c"},
        {"model-mbart", "model-ok with model_type mbart"},
        {"model-heads", "model-ok with n_head 3"},
        {"st-empty", "model-ok with an empty model.safetensors"},
        {"st-length", "model-ok; model.safetensors: a header length of 65536, then {}"},
        {"st-json", "model-ok; model.safetensors: a header of 8 bytes, not json"},
        {"st-truncated", "model-ok with the last 4 bytes of model.safetensors cut off"},
        {"st-overlap", "model-ok with wpe's data_offsets moved 4 bytes into wte's"},
        {"st-twice", "model-ok with ln_f.bias's entry twice in the header"},
        {"st-count", "model-ok with wpe's shape (5, 4) over 64 bytes"},
        {"st-dtype", "model-ok with wte as I64"},
        {"model-missing", "model-ok without ln_f.bias"},
        {"model-shape", "model-ok with wpe (8, 4)"},
        {"tok-vocab", "model-ok with vocab.json {\"a\": \"zero\"}"},
        {"tok-merges", "model-ok with merges.txt line 2 no-space-here"},
        {"tok-merges-nul", "model-ok with merges.txt merge 1 a\\x00b c"},
        {"tok-merges-part", "model-ok with vocab.json + ab, abcd and merges.txt a b, ab cd"},
        {"tok-long", "model-ok with a vocab.json entry of 1025 x"},
        {"llama-ok", "a Llama folder: 1 layer, 2 query heads over 1 key/value head, hidden 4, tied, byte-level tokenizer.json"},
        {"llama-sharded", "llama-ok in two shards (tensor i in model-(i mod 2 + 1).safetensors) with an index"},
        {"llama-kv", "llama-ok with num_key_value_heads 3"},
        {"llama-head-dim", "llama-ok with head_dim 4"},
        {"llama-rope", "llama-ok with rope_scaling {rope_type: yarn}"},
        {"llama-dynamic", "llama-ok with rope_scaling {type: dynamic, factor: 2.0}"},
        {"llama-shard-dir", "llama-sharded with model-2.safetensors a folder"},
        {"llama-tok-dir", "llama-ok with tokenizer.json a folder"},
        {"llama-bom", "llama-ok with a UTF-8 byte order mark before config.json's {"},
        {"llama-callout", "llama-ok with a Split pre-tokenizer whose regex starts (?C1)"},
        {"llama-tok-model", "llama-ok with a WordLevel tokenizer.json"},
        {"llama-tok-pre", "llama-ok with a Whitespace pre_tokenizer"},
        {"llama-shard-missing", "llama-ok in two shards, model-2.safetensors deleted"},
        {"llama-shard-two", "llama-ok in two shards and a third holding the embedding again"},
        {"llama-mixed", "llama-ok in two shards, the second F16"},
        {"llama-name-newline", "llama-ok with a tensor named \"model.extra\\nweight\" (a newline) of dtype Q4"},
        {"llama-name-long", "llama-ok with a tensor named by 10,240 x, of dtype Q4"},
        {"utf16.txt", "Your journey in UTF-16LE, no byte order mark"},
        {"utf16.json", "[[1, 2], [3, 4]] in UTF-16LE, no byte order mark"},
        {"space-token.json", "{\"tokens\": [\"a b\", \"c\"], \"x\": [[1, 2], [3, 4]]}"},
        {"zwsp-token.json", "{\"tokens\": [\"a\", \"b\\u200bc\"], \"x\": [[1, 2], [3, 4]]}"},
        {"long-literal.json", "[[1 and 5000 zeros]]"},
        {"beyond.json", "[[3.5e38]]"},
        {"version11.npy", "the magic string, then format version 1.1"},
        {"nodict.npy", "<f4, shape (2, 2), its header without { }"},
        {"dupkey.npy", "<f4, shape (2, 2), 'descr' given twice"},
        {"nul.npy", "dtype '<\\x00f4', shape (2, 2)"},
        {"big.json", "2 rows of 16: 3e38, then -3e38"},
        {"npy-out", "a folder"},
        {"npy-out/causal-x.npy", "[[1, 2], [3, 4]] (JSON, whatever the name)"},
        {"trace-cut.json", "the first 60 bytes of a trace: {\"format\": \"attn-trace\", \"version\": 1, \"tokens\": [\"a\", ..."},
        {"trace-v3.json", "{\"format\": \"attn-trace\", \"version\": 3}"},
        {"trace-kind.json", "a trace whose \"kind\" is \"x\" then 200,000 more letters"},
        {"trace-long-token.json", "a causal trace whose one token is 1025 letters b"},
        {"rank5.npy", "<f4, shape (1, 1, 1, 1, 1)"},
        {"tokens3.txt", "a, b and c, one per line"},
        {"folder", "an empty folder"},
        {"file", "a small text file"},
    };
    return fixtures;
}

std::string validation_table_markdown() {
    std::string md = "| id | what | rule | exit | example and its error |\n|---|---|---|---|---|\n";
    for (const auto& r : validation_rules()) {
        std::string cmd = "attn";
        for (const auto& a : r.example) cmd += " " + display_arg(a);
        std::string err = r.error;
        if (err.size() >= 3 && err.compare(err.size() - 3, 3, "...") == 0) err.replace(err.size() - 3, 3, "…");
        md += "| `" + r.id + "` | " + cell(r.subject) + " | " + cell(r.rule) + " | " +
              std::to_string(static_cast<int>(r.exit)) + " | `" + cell(cmd) + "`<br>`" + cell(err) + "` |\n";
    }
    md += "\nFiles the examples name:\n\n| file | holds |\n|---|---|\n";
    for (const auto& f : validation_fixtures()) md += "| `" + f.name + "` | `" + cell(f.holds) + "` |\n";
    return md;
}

}  // namespace attn
