// Shared test helpers: run a kind in-process, compare matrices, drive the real binary.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/kinds/kinds.h"
#include "data/inputs/embed.h"

namespace attn::test {

// ---- fixture files ---------------------------------------------------------------------------------

// Writes `bytes` to `path` as they are (a fixture); the test fails when it cannot.
void write(const std::string& path, const std::string& bytes);

// A .npy file whose header text is given as is, padded as numpy.save pads (format 1.0: magic, version,
// header length, header, data).
std::string npy_header(std::string header, const std::string& data);

// A .npy file as numpy.save writes it.
inline std::string npy(const std::string& descr, const std::string& shape, const std::string& data,
                       bool fortran = false) {
    return npy_header("{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                          ", 'shape': " + shape + ", }",
                      data);
}

// The raw bytes of `values`, as a .npy's data.
template <typename T>
std::string raw(std::initializer_list<T> values) {
    std::string s;
    for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);
    return s;
}

inline Inputs journey() {
    Embeddings e = example("journey");
    Inputs in;
    in.tokens = e.tokens, in.x = e.x, in.source_tokens = e.tokens, in.source_x = e.x;
    return in;
}

// Settings for the chapter's example: the kind's own defaults, d_in 3.
inline Settings journey_config(const std::string& kind, std::size_t d_out, const std::string& init,
                             std::uint64_t seed) {
    REQUIRE(find_kind(kind) != nullptr);
    SettingsRequest r;
    r.kind = kind, r.d_out = d_out, r.init = init, r.seed = seed;
    return resolve_settings(r, RunShape{6, 6, 3, 3});
}

// Golden numbers are printed to 4 decimals: they hold to within half a unit of the last place.
inline void check_row(const Mat& m, std::size_t row, const std::vector<float>& want, double eps = 6e-5) {
    REQUIRE(m.shape(1) == want.size());
    for (std::size_t j = 0; j < want.size(); ++j) {
        INFO("row " << row << ", column " << j << ": got " << m(row, j) << ", want " << want[j]);
        CHECK(std::fabs(static_cast<double>(m(row, j)) - static_cast<double>(want[j])) <= eps);
    }
}

inline void check_matrix(const Mat& m, const std::vector<std::vector<float>>& want, double eps = 6e-5) {
    REQUIRE(m.shape(0) == want.size());
    for (std::size_t i = 0; i < want.size(); ++i) check_row(m, i, want[i], eps);
}

// Runs the attn binary with arguments (NO_COLOR set); returns the exit code, stdout and stderr.
struct RunResult {
    int code = -1;
    std::string out, err;
    double peak_bytes = 0;  // the child's largest resident set (getrusage's ru_maxrss)
};
struct RunOptions {
    std::string cwd;                  // run there ("" = here)
    std::string stdout_path;          // "" = a file read back into RunResult::out
    bool remove_cwd = false;          // delete cwd (empty) after entering it: a folder that vanished
    std::string stdin_text;
};
RunResult run_attn(const std::vector<std::string>& args, const RunOptions& options);
inline RunResult run_attn(const std::vector<std::string>& args, const std::string& stdin_text = "") {
    RunOptions o;
    o.stdin_text = stdin_text;
    return run_attn(args, o);
}

// run_attn in folder dir, with standard input and, when given, standard output to a path.
RunResult run_in(const std::string& dir, const std::vector<std::string>& args, const std::string& stdin_text = "",
                 const std::string& stdout_path = "");
std::vector<std::string> tree(const std::string& dir);  // every path below dir, sorted
bool is_link(const std::string& path);
std::string one_line(const RunResult& r);  // the error, checked to be one line
std::string error_of(const std::function<void()>& f);  // the message of the attn::Error f throws, or ""
std::size_t count_of(const std::string& text, const std::string& what);  // non-overlapping occurrences

std::string temp_dir();

// The bytes of DejaVu Sans (the font built into attn) with its head table's unitsPerEm set to `em`, the
// outlines unchanged: em 16 draws every glyph 128 times too large (FreeType accepts it).
std::string dejavu_with_units_per_em(unsigned em);  // a fresh folder under the build's temp area
std::string slurp(const std::string& path);
// "" when a == b, else where they first differ with 60 bytes of each around it: a CHECK that prints
// the difference of two long texts (traces, pages) rather than both whole.
inline std::string first_difference(const std::string& a, const std::string& b) {
    if (a == b) return "";
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    const std::size_t from = i > 60 ? i - 60 : 0;
    return "byte " + std::to_string(i) + " of " + std::to_string(a.size()) + " / " + std::to_string(b.size()) + ": ..." +
           a.substr(from, 120) + "  VERSUS  ..." + b.substr(from, 120);
}

}  // namespace attn::test
