#include "data/validation.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace attn {
namespace {

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

std::string join(const std::vector<std::string>& v, const char* sep) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
    return s;
}

std::string rule_text(const OptionRule& r) {
    switch (r.type) {
        case OptionType::whole:
            return "a whole number from " + std::to_string(r.min) + " to " + std::to_string(r.max);
        case OptionType::fraction:
            return "a number from 0 up to, not including, 1";
        case OptionType::choice:
            return "one of " + join(r.choices, ", ");
    }
    return "";
}

std::string gib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1ull << 30));
    return buf;
}

}  // namespace

const std::vector<OptionRule>& option_rules() {
    static const std::vector<OptionRule> rules = {
        {"--d-in", OptionType::whole, 1, kMaxWidth, {}, false, "0"},
        {"--d-out", OptionType::whole, 1, kMaxWidth, {}, false, "100000"},
        {"--seed", OptionType::whole, 0, kU64Max, {}, false, "-1"},
        {"--heads", OptionType::whole, 1, 1024, {}, false, "0"},
        {"--kv-heads", OptionType::whole, 1, 1024, {}, false, "2.5"},
        {"--window", OptionType::whole, 0, kMaxTokensLimit, {}, false, "-2"},
        {"--block-q", OptionType::whole, 1, kMaxTokensLimit, {}, false, "0"},
        {"--block-k", OptionType::whole, 1, kMaxTokensLimit, {}, false, "1e3"},
        {"--max-tokens", OptionType::whole, 1, kMaxTokensLimit, {}, false, "0x10"},
        {"--precision", OptionType::whole, 0, 9, {}, false, "10"},
        {"--dropout", OptionType::fraction, 0, 0, {}, false, "1"},
        {"--init", OptionType::choice, 0, 0, {"torch", "torch-rand"}, false, "xavier"},
        {"--score", OptionType::choice, 0, 0, {"dot", "general", "concat"}, false, "cosine"},
        {"--color", OptionType::choice, 0, 0, {"auto", "always", "never"}, false, "red"},
        {"--show", OptionType::choice, 0, 0,
         {"scores", "mask", "weights", "dropped", "context", "queries", "keys", "values", "output"}, true,
         "attention"},
    };
    return rules;
}

const OptionRule& option_rule(const std::string& option) {
    for (const auto& r : option_rules())
        if (option == r.option) return r;
    throw std::logic_error("no validation rule for option " + option);
}

std::string check_option_text(const OptionRule& r, const std::string& text) {
    const std::string why = "'" + text + "' is not " + rule_text(r);
    switch (r.type) {
        case OptionType::whole: {
            if (text.empty() || text.size() > 20) return why;
            std::uint64_t v = 0;
            for (char ch : text) {
                if (ch < '0' || ch > '9') return why;
                const auto digit = static_cast<std::uint64_t>(ch - '0');
                if (v > (kU64Max - digit) / 10) return why;
                v = v * 10 + digit;
            }
            return v >= r.min && v <= r.max ? "" : why;
        }
        case OptionType::fraction: {
            if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos) return why;
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            if (end != text.c_str() + text.size() || !(v >= 0.0 && v < 1.0) || !(static_cast<float>(v) < 1.0f))
                return why;
            return "";
        }
        case OptionType::choice:
            for (const auto& c : r.choices)
                if (text == c) return "";
            return why;
    }
    return why;
}

void check_run_size(double bytes, double work, const std::string& hint) {
    if (bytes > kMaxRunBytes)
        usage_error("this run would need about " + gib(bytes) + " of memory, more than the " + gib(kMaxRunBytes) +
                        " attn allows",
                    hint);
    if (work > kMaxRunWork) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "this run would take about %.1e multiply-adds, more than the %.1e attn allows",
                      work, kMaxRunWork);
        usage_error(buf, hint);
    }
}

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
        std::string rule = rule_text(r);
        if (r.list) rule = "comma-separated, each " + rule;
        rows.push_back({std::string("option.") + (r.option + 2), r.option, rule, U, {"show", r.option, r.bad_example, "hi"},
                        e(std::string(r.option) + ": " + check_option_text(r, r.bad_example)) + kHelp});
    }
    rows.push_back({"option.kind", "--kind", "a kind from the registry (attn kinds)", U, {"show", "--kind", "nope", "hi"},
                    e("unknown kind 'nope' (hint: choose one of: simple, self, causal, ...")});
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
    rows.push_back({"run.memory", "the run", "its estimated memory (weights, Q/K/V, H × T × S matrices, and the JSON tree, "
                    "images and .npy files it writes) at most --max-memory (default 3/4 of RAM)", U,
                    {"show", "--d-in", "1024", "--d-out", "1024", "hi", "--max-memory", "20M"},
                    e("this run would need about 32.1 MiB of memory, more than --max-memory 20.0 MiB (hint: use fewer "
                      "tokens or heads, or raise --max-memory)")});
    rows.push_back({"run.max-memory", "--max-memory", "a size: a number with K, M, G or T (or none, for bytes)", U,
                    {"show", "hi", "--max-memory", "lots"},
                    e("--max-memory 'lots' is not a size (hint: write e.g. 512M, 8G or 1000000)")});
    rows.push_back({"run.json-size", "--json", "a trace of at most 256 MiB, unless --force", U,
                    {"show", "--kind", "mha", "--heads", "128", "--d-in", "128", "--file", "many.txt", "--json", "t.json"},
                    e("the JSON trace would be about ...")});
    // 4. the sentence (SENTENCE and --source)
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
    rows.push_back({"sentence.source", "--source", "the sentence's rules", U,
                    {"show", "--kind", "cross", "--source", "", "hi"},
                    e("the source is empty (hint: give at least one word, e.g. \"Your journey starts\")")});
    // 5. files read: --file, --embeddings, --mask
    rows.push_back({"file.missing", "--file, --embeddings, --mask", "a readable file", R, {"show", "--file", "missing.txt"},
                    e("cannot read text file 'missing.txt': No such file or directory")});
    rows.push_back({"file.folder", "--file, --embeddings, --mask", "a file, not a folder", R,
                    {"show", "--mask", "folder", "hi"}, e("cannot read mask file 'folder': it is a folder")});
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
    // 6. embeddings, JSON
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
    // 7. embeddings, .npy
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
    rows.push_back({"npy.dtype", "--embeddings .npy, --mask .npy", "dtype <f4, <f8, |b1 or |u1", R,
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
    // 8. the mask
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
    // 9. outputs
    rows.push_back({"output.json-empty", "--json", "a file name", U, {"show", "hi", "--json", ""},
                    e("--json needs a file name (hint: e.g. --json out/trace.json)")});
    rows.push_back({"output.json-slash", "--json", "not ending in '/'", U, {"show", "hi", "--json", "out/"},
                    e("--json 'out/' names a folder, not a file (hint: e.g. --json out/trace.json)")});
    rows.push_back({"output.json-folder", "--json", "not an existing folder", R, {"show", "hi", "--json", "folder"},
                    e("output path 'folder' is a folder (hint: name a file inside it, e.g. folder/trace.json)")});
    rows.push_back({"output.parent", "--json, --png", "every existing part of the path a folder", R,
                    {"show", "hi", "--json", "file/trace.json"},
                    e("cannot write file 'file/trace.json': 'file' is not a folder (hint: choose a path whose folders "
                      "are folders)")});
    rows.push_back({"output.png-empty", "--png", "a folder name", U, {"show", "hi", "--png", ""},
                    e("--png needs a folder name (hint: e.g. --png out)")});
    rows.push_back({"output.png-file", "--png", "not an existing file", R, {"show", "hi", "--png", "file"},
                    e("output folder 'file' exists and is not a folder (hint: name a folder, not a file)")});
    rows.push_back({"output.write", "--json, --png", "written whole: a failed write leaves nothing and gives the OS's reason", R,
                    {"show", "hi", "--json", "/dev/full"}, e("cannot write file '/dev/full': No space left on device")});
    rows.push_back({"output.vanished", "--json, --png", "the folder still there when writing (run in a deleted folder)", R,
                    {"show", "hi", "--json", "trace.json"}, e("cannot write file 'trace.json': No such file or directory")});
    rows.push_back({"output.stdout", "standard output", "written whole (run as attn show hi > /dev/full)", R, {"show", "hi"},
                    e("cannot write to standard output: No space left on device")});
    // 10. numerics
    rows.push_back({"numerics.overflow", "scores", "finite: q·k must not overflow float32", R,
                    {"show", "--kind", "simple", "--embeddings", "overflow.json", "a b"},
                    e("the scores of query row 0 overflow float32 (a q·k is infinite or NaN) (hint: use embeddings with "
                      "smaller values)")});
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
