#include "data/inputs/embed.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "data/base/error.h"
#include "data/inputs/jsonrows.h"
#include "data/base/files.h"
#include "data/inputs/npy.h"
#include "data/base/rng.h"
#include "data/text/tokenize.h"
#include "data/base/limits.h"

namespace attn {
namespace {

std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h;
}

const char* const kJsonHint = "expected a JSON array of rows [[...], ...] or {\"tokens\": [...], \"x\": [[...], ...]}";

void check_width(std::size_t width, const std::string& name) {
    if (width > kMaxWidth)
        input_error(name + ": rows are " + std::to_string(width) + " values wide, more than " +
                        std::to_string(kMaxWidth),
                    "attn takes embeddings up to " + std::to_string(kMaxWidth) + " wide");
}

Embeddings load_json(const std::string& bytes, const std::string& name) {
    JsonRows rows = parse_json_rows(bytes, name, JsonCells::number, true, kJsonHint);
    check_width(rows.cols, name);
    Embeddings e;
    e.x = Mat::from_shape({rows.rows, rows.cols});
    std::copy(rows.values.begin(), rows.values.end(), e.x.begin());
    if (rows.has_tokens) {
        for (std::size_t i = 0; i < rows.tokens.size(); ++i) {
            const std::string& t = rows.tokens[i];
            if (t.empty()) input_error(name + ": token " + std::to_string(i) + " is empty", "give every row a token");
            if (const auto problem = token_length_problem(t))  // before anything reads the whole of it
                input_error(name + ": token " + std::to_string(i) + " " + *problem,
                            "a token is one word, as attn's tokeniser makes them");
            if (const auto problem = text_problem(t, false))
                input_error(name + ": token " + std::to_string(i) + " " + *problem,
                            "a token is UTF-8 text without control characters");
            if (const auto problem = token_problem(t))
                input_error(name + ": token " + std::to_string(i) + " " + *problem,
                            "a token is one word, as attn's tokeniser makes them: no spaces, nothing invisible");
        }
        if (rows.tokens.size() != rows.rows)
            input_error(name + ": " + std::to_string(rows.tokens.size()) + " tokens but " + std::to_string(rows.rows) +
                            " rows",
                        "give one token per row");
        e.tokens = std::move(rows.tokens);
    }
    return e;
}

Embeddings load_npy_embeddings(const std::string& bytes, const std::string& path) {
    const NpyArray a = parse_npy(bytes, path);
    if (a.shape.size() != 2 || a.shape[0] == 0 || a.shape[1] == 0)
        input_error(path + ": embeddings must be a non-empty 2-D array (tokens, d_in)",
                    "reshape it to (tokens, width) before numpy.save");
    if (a.item_size != 4 && a.item_size != 8)  // <f4, <f8, or big-endian >f4, >f8
        input_error(path + ": embeddings must be float32 or float64, not " + a.descr, "use array.astype('float32')");
    check_width(a.shape[1], path);
    Embeddings e;
    e.x = Mat::from_shape({a.shape[0], a.shape[1]});
    for (std::size_t r = 0; r < a.shape[0]; ++r)
        for (std::size_t c = 0; c < a.shape[1]; ++c) {
            const double v = npy_float_at(a, r, c);
            if (!std::isfinite(v) || !(std::fabs(v) < kFloat32Limit))
                input_error(path + ": row " + std::to_string(r) + ", column " + std::to_string(c) + " is " +
                                (std::isnan(v) ? "NaN" : std::isinf(v) ? "infinite" : "beyond float32") +
                                ", not a finite float32 value",
                            "clean the array first, e.g. numpy.nan_to_num");
            e.x(r, c) = static_cast<float>(v);
        }
    return e;
}

}  // namespace

Mat embed_tokens(const std::vector<std::string>& tokens, std::size_t d_in, std::uint64_t seed) {
    Mat x = Mat::from_shape({tokens.size(), d_in});
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        const std::uint64_t h = fnv1a(tokens[t]);
        std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                          static_cast<std::uint32_t>(h), static_cast<std::uint32_t>(h >> 32)};
        std::mt19937 mt(seq);
        for (std::size_t c = 0; c < d_in; ++c)
            x(t, c) = static_cast<float>(mt() & 0xFFFFFFu) * (2.0f / 16777216.0f) - 1.0f;
    }
    return x;
}

Embeddings example(const std::string& name) {
    if (name != "journey") usage_error("unknown example '" + excerpt(name) + "'", "available: journey");
    Embeddings e;
    e.tokens = {"Your", "journey", "starts", "with", "one", "step"};
    e.x = Mat{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f},
              {0.22f, 0.58f, 0.33f}, {0.77f, 0.25f, 0.10f}, {0.05f, 0.80f, 0.55f}};
    return e;
}

Embeddings load_embeddings_bytes(const std::string& bytes, const std::string& name) {
    if (looks_like_npy(bytes)) return load_npy_embeddings(bytes, name);
    if (looks_like_utf16(bytes)) input_error(name + ": the file looks like UTF-16", "save it as UTF-8");
    return load_json(bytes, name);
}

Embeddings load_embeddings(const std::string& path) {
    if (path == "-") return load_embeddings_bytes(read_stdin("embeddings"), "standard input");
    return load_embeddings_bytes(read_file(path, "embeddings file"), path);
}

}  // namespace attn
