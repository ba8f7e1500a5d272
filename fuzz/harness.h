// The fuzz targets' bodies, shared by the libFuzzer executables (fuzz/fuzz_*.cpp) and by the corpus
// replay in tests/test_corpus.cpp, so every input that ever crashed stays a test.
//
// Each function feeds one input to one of attn's entry points and returns what is wrong ("" when
// nothing is): an attn::Error is an expected answer to a bad input, but it must carry the right exit
// code and a one-line message; anything else thrown escapes to the caller (a crash for libFuzzer, a
// failed test for doctest). Sanitizers catch memory errors and undefined behaviour underneath.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/cli.h"
#include "data/inputs/embed.h"
#include "data/base/error.h"
#include "data/inputs/inputs.h"
#include "data/inputs/npy.h"
#include "data/text/tokenize.h"
#include "data/base/limits.h"
#include "render/page/html.h"
#include "render/trace_io/json.h"
#include "render/trace_io/trace_read.h"

namespace attn::fuzz {

inline std::string check_error(const Error& e, int want_code) {
    const std::string what = e.what();
    if (e.exit_code() != want_code)
        return "exit code " + std::to_string(e.exit_code()) + " instead of " + std::to_string(want_code) + ": " + what;
    if (what.empty()) return "an empty error message";
    return "";
}

// True when text has a stretch of more than kMaxTokenBytes bytes without ASCII white space: what a
// token past the limit needs (no white space of any kind separates it).
inline bool has_long_stretch(std::string_view text) {
    std::size_t run = 0;
    for (char ch : text) {
        run = (ch == ' ' || (ch >= '\t' && ch <= '\r')) ? 0 : run + 1;
        if (run > kMaxTokenBytes) return true;
    }
    return false;
}

// ---- tokeniser: bytes as a sentence, in every --split mode ----------------------------------------
inline std::string tokenize_mode(std::string_view text, Split split, const char* mode) {
    const bool bad = text_problem(text).has_value();
    std::vector<std::string> tokens;
    try {
        tokens = tokenize(text, std::numeric_limits<std::size_t>::max(), split);
    } catch (const Error& e) {
        const bool too_long = std::string(e.what()).find(" is longer than " + std::to_string(kMaxTokenBytes) +
                                                         " bytes") != std::string::npos;
        if (too_long && !has_long_stretch(text))
            return std::string(mode) + ": tokenize refused a long token in a text without one: " + e.what();
        if (!bad && !too_long) return std::string(mode) + ": tokenize threw for a text without a problem: " + e.what();
        return check_error(e, 2);
    }
    if (bad) return std::string(mode) + ": tokenize accepted a text with a problem";
    // Every token is one an embeddings file may give (non-empty clean UTF-8, no white space, nothing
    // invisible), the tokens appear in order in the text without its invisible joiners (U+2060,
    // U+FEFF), which the tokeniser drops, and a token that starts with a special token is exactly
    // that special token (kept whole, never glued to more).
    std::string visible(text);
    for (const char* joiner : {"\xE2\x81\xA0", "\xEF\xBB\xBF"})
        for (auto k = visible.find(joiner); k != std::string::npos; k = visible.find(joiner, k)) visible.erase(k, 3);
    std::size_t at = 0;
    for (const auto& t : tokens) {
        if (t.empty()) return std::string(mode) + ": an empty token";
        if (t.size() > kMaxTokenBytes) return std::string(mode) + ": a token longer than kMaxTokenBytes";
        if (text_problem(t, false)) return std::string(mode) + ": a token with a control character or invalid UTF-8";
        if (const auto problem = token_problem(t)) return std::string(mode) + ": token '" + t + "' " + *problem;
        const auto found = visible.find(t, at);
        if (found == std::string::npos) return std::string(mode) + ": token '" + t + "' is not in the text in order";
        at = found + t.size();
        const std::size_t sp = special_token_length(t, 0);
        if (sp != 0 && sp != t.size()) return std::string(mode) + ": special token glued to more in '" + t + "'";
    }
    // The limit: at most max + 1 tokens, and the same first ones.
    const std::size_t max = tokens.size() / 2;
    const auto limited = tokenize(text, max, split);
    if (limited.size() > max + 1) return std::string(mode) + ": tokenize ignored max_tokens";
    for (std::size_t i = 0; i < limited.size() && i < tokens.size(); ++i)
        if (limited[i] != tokens[i] && i < max) return std::string(mode) + ": a limited tokenize differs";
    return "";
}

inline std::string tokenize_one(std::string_view text) {
    for (const auto& [split, mode] : {std::pair{Split::words, "words"}, std::pair{Split::space, "space"},
                                      std::pair{Split::chars, "chars"}})
        if (std::string problem = tokenize_mode(text, split, mode); !problem.empty()) return problem;
    return "";
}

// ---- embeddings: JSON or .npy bytes ----------------------------------------------------------------
inline std::string embeddings_one(const std::string& bytes) {
    Embeddings e;
    try {
        e = load_embeddings_bytes(bytes, "fuzz-input");
    } catch (const Error& err) {
        return check_error(err, 1);
    }
    if (e.x.shape(0) == 0 || e.x.shape(1) == 0) return "accepted embeddings without rows or columns";
    if (e.x.shape(1) > kMaxWidth) return "accepted embeddings wider than kMaxWidth";
    if (!e.tokens.empty() && e.tokens.size() != e.x.shape(0)) return "tokens and rows differ in count";
    for (const auto& t : e.tokens)
        if (t.empty() || t.size() > kMaxTokenBytes || text_problem(t, false)) return "accepted a bad token";
    for (float v : e.x)
        if (!std::isfinite(v)) return "accepted a value that is not finite";
    return "";
}

// ---- .npy: the bytes after the magic string -------------------------------------------------------
inline std::string npy_one(std::string_view data) {
    const std::string bytes = std::string("\x93NUMPY", 6) + std::string(data);
    NpyArray a;
    try {
        a = parse_npy(bytes, "fuzz.npy");
    } catch (const Error& e) {
        return check_error(e, 1);
    }
    std::size_t total = a.item_size == 0 ? 0 : 1;
    for (std::size_t d : a.shape) total *= d;
    if (a.item_size == 0 || total * a.item_size != a.data.size()) return "parse_npy: data size differs from the shape";
    if (std::string problem = embeddings_one(bytes); !problem.empty()) return problem;
    if (a.shape.size() == 2 && a.shape[0] <= 64 && a.shape[1] <= 64) {
        try {
            const Mask m = load_mask_bytes(bytes, "fuzz.npy", a.shape[0], a.shape[1]);
            for (auto v : m)
                if (v > 1) return "a mask value other than 0 or 1";
        } catch (const Error& e) {
            return check_error(e, 1);
        }
    }
    return "";
}

// ---- attn render's input: a JSON trace, or .npy attention (render/trace_io/trace_read.h) ---------------------
// An accepted trace writes back to JSON that reads again to the same text (seeded traces), and small
// ones render to a page.
inline std::string trace_one(const std::string& bytes) {
    Trace t;
    try {
        t = looks_like_npy(bytes) ? render::read_attention_npy(bytes, "fuzz.npy", std::nullopt, "")
                                  : render::read_trace_json(bytes, "fuzz.json");
    } catch (const Error& e) {
        return check_error(e, 1);
    }
    if (t.tokens.empty() || t.source_tokens.empty()) return "accepted a trace without tokens";
    if (t.model && t.model->stack == "encoder-decoder") {  // several sets: written as read, each set's figures drawable
        const std::string once = render::trace_json_text(t);
        if (render::trace_json_text(render::read_trace_json(once, "again.json")) != once) return "a trace written and read again changed";
        for (const auto& set : t.sets)
            for (const auto& l : set.layers)
                for (const auto& h : l.heads)
                    if (h.weights.size() && (h.weights.shape(0) != set.query_tokens.size() || h.weights.shape(1) != set.key_tokens.size()))
                        return "accepted a set whose weights are not its tokens' shape";
        return "";
    }
    if (t.sets.size() != 1 || t.layers().empty() || t.heads().empty()) return "accepted a trace without heads";
    if (!t.sets[0].model_layers && !looks_like_npy(bytes)) {  // a seeded trace, version 1 or 2: written as 2
        const std::string once = render::trace_json_text(t);
        if (render::trace_json_text(render::read_trace_json(once, "again.json")) != once)
            return "a trace written and read again changed";
    }
    std::size_t cells = 0;
    for (const auto& l : t.layers()) cells += l.heads.size();
    cells *= t.tokens.size() * t.source_tokens.size();
    if (cells <= 65536 && render::render_html(t, {}).find("attn-data") == std::string::npos) return "a page without data";
    return "";
}

// ---- mask: two bytes of shape, then the file ----------------------------------------------------
inline std::string mask_one(std::string_view data) {
    if (data.size() < 2) return "";
    const std::size_t t = 1 + static_cast<unsigned char>(data[0]) % 8, s = 1 + static_cast<unsigned char>(data[1]) % 8;
    Mask m;
    try {
        m = load_mask_bytes(std::string(data.substr(2)), "fuzz-mask", t, s);
    } catch (const Error& e) {
        return check_error(e, 1);
    }
    if (m.shape(0) != t || m.shape(1) != s) return "a mask of the wrong shape";
    for (auto v : m)
        if (v > 1) return "a mask value other than 0 or 1";
    return "";
}

// ---- the whole command line ------------------------------------------------------------------------
// The input is the arguments after "attn", separated by NUL bytes. The run happens in a scratch
// folder (the current directory while it runs) holding a few input files; arguments that could reach
// outside it (an absolute path, "..") and sizes that would make one run slow are refused up front.
// After the run the folder must hold no temporary file, and it is emptied for the next input.

inline bool remove_tree(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return false;
    if (S_ISDIR(st.st_mode)) {
        if (DIR* d = ::opendir(path.c_str())) {
            while (const dirent* e = ::readdir(d)) {
                const std::string name = e->d_name;
                if (name != "." && name != "..") remove_tree(path + "/" + name);
            }
            ::closedir(d);
        }
        return ::rmdir(path.c_str()) == 0;
    }
    return ::unlink(path.c_str()) == 0;
}

// Every path under dir, relative to it ("a", "a/b.png"), depth first.
inline void list_tree(const std::string& dir, const std::string& prefix, std::vector<std::string>& out) {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return;
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        out.push_back(prefix + name);
        struct stat st {};
        if (::lstat((dir + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            list_tree(dir + "/" + name, prefix + name + "/", out);
    }
    ::closedir(d);
}

inline void write_text(const std::string& path, const std::string& bytes) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return;
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
}

// Input files a fuzzed command line may name.
inline void write_fixtures(const std::string& dir) {
    write_text(dir + "/e.json", "[[1, 2], [3, 4], [0.5, -1]]");
    write_text(dir + "/t.json", R"({"tokens": ["Your", "journey", "starts"], "x": [[1, 0], [0, 1], [1, 1]]})");
    write_text(dir + "/m.json", "[[true, false, true], [1, 1, 0], [0, 0, 0]]");
    write_text(dir + "/s.txt", "Your journey starts with one step.");
}

// Arguments that name anything outside the scratch folder, or ask for a slow run, are refused.
inline bool argument_allowed(const std::string& arg, const std::string& previous) {
    if (arg.size() > 128) return false;
    const auto eq = arg.find('=');
    const std::string value = eq == std::string::npos ? arg : arg.substr(eq + 1);
    for (const std::string& v : {arg, value}) {
        if (!v.empty() && (v[0] == '/' || v[0] == '~')) return false;
        if (v == ".." || v.rfind("../", 0) == 0 || v.find("/../") != std::string::npos ||
            (v.size() >= 3 && v.compare(v.size() - 3, 3, "/..") == 0))
            return false;
    }
    // Numbers bound the run's size: keep them small (the seed may be anything).
    const bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
    const std::string option = eq == std::string::npos ? previous : arg.substr(0, eq);
    if (digits && option != "--seed" && (value.size() > 2 || std::stoul(value) > 32)) return false;
    return true;
}

// Standard input reads nothing (for --file -).
inline void stdin_from_dev_null() {
    const int fd = ::open("/dev/null", O_RDONLY);
    if (fd >= 0 && fd != 0) {
        ::dup2(fd, 0);
        ::close(fd);
    }
}

// Decodes the arguments; false when the input is refused.
inline bool decode_arguments(std::string_view data, std::vector<std::string>& args) {
    args.clear();
    std::string current;
    for (char ch : data) {
        if (ch == '\0') {
            args.push_back(current);
            current.clear();
        } else {
            current += ch;
        }
    }
    if (!current.empty()) args.push_back(current);
    if (args.size() > 40) return false;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (!argument_allowed(args[i], i ? args[i - 1] : std::string())) return false;
    return true;
}

// Runs attn's command line on the decoded arguments inside `scratch` (an existing empty folder).
inline std::string cli_one(std::string_view data, const std::string& scratch) {
    std::vector<std::string> args;
    if (!decode_arguments(data, args)) return "";
    write_fixtures(scratch);
    std::vector<std::string> before;
    list_tree(scratch, "", before);

    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) == nullptr) return "getcwd failed";
    if (::chdir(scratch.c_str()) != 0) return "cannot enter the scratch folder";
    std::vector<const char*> argv = {"attn"};
    for (const auto& a : args) argv.push_back(a.c_str());
    const int code = cli::run_cli(static_cast<int>(argv.size()), argv.data());
    const int back = ::chdir(cwd);

    std::string problem;
    if (back != 0) problem = "cannot return to the working folder";
    if (code != 0 && code != 1 && code != 2) problem = "exit code " + std::to_string(code);
    std::vector<std::string> after;
    list_tree(scratch, "", after);
    for (const auto& p : after) {
        if (p.find(".attn-") != std::string::npos) problem = "a temporary file was left behind: " + p;
        if (code != 0) {
            bool existed = false;
            for (const auto& b : before) existed = existed || b == p;
            if (!existed) problem = "a failed run left " + p + " behind";
        }
    }
    // Empty the folder for the next input.
    for (const auto& p : after)
        if (p.find('/') == std::string::npos) remove_tree(scratch + "/" + p);
    return problem;
}

// ---- a --font file: the bytes as the font of a small show run's PNG and SVG figures ----------------
// FreeType reads it (render/text/font_faces.cpp): a file it cannot read and absurd metrics (the
// small-em font of fuzz/corpus/font/) are refused by name, exit 1; an accepted font draws within
// --max-memory. The run is cli_one's, so nothing may be left behind but the figures.
inline std::string font_one(const std::string& bytes, const std::string& scratch) {
    write_text(scratch + "/f.ttf", bytes);
    static const char kArgs[] = "show\0--kind\0causal\0Ab g\0--png\0out\0--svg\0out\0--font\0f.ttf\0--max-memory\0" "200M";
    return cli_one({kArgs, sizeof kArgs - 1}, scratch);
}

// A fresh scratch folder under TMPDIR (or /tmp).
inline std::string make_scratch(const char* what) {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/attn-" + what + "-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    return tmpl;
}

}  // namespace attn::fuzz
