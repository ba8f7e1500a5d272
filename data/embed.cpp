#include "data/embed.h"

#include <cmath>
#include <random>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/npy.h"
#include "data/rng.h"

namespace attn {
namespace {

std::uint64_t fnv1a(const std::string& s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

[[noreturn]] void bad_json(const std::string& path, const std::string& why) {
    input_error(path + ": " + why,
                "expected a JSON array of rows [[...], ...] or {\"tokens\": [...], \"x\": [[...], ...]}");
}

Mat rows_from_json(const nlohmann::json& rows, const std::string& path) {
    if (!rows.is_array() || rows.empty()) bad_json(path, "the rows must be a non-empty array");
    const std::size_t n = rows.size();
    if (!rows[0].is_array() || rows[0].empty()) bad_json(path, "row 0 is not a non-empty array of numbers");
    const std::size_t d = rows[0].size();
    Mat x = Mat::from_shape({n, d});
    for (std::size_t r = 0; r < n; ++r) {
        const auto& row = rows[r];
        if (!row.is_array()) bad_json(path, "row " + std::to_string(r) + " is not an array of numbers");
        if (row.size() != d)
            bad_json(path, "row " + std::to_string(r) + " has " + std::to_string(row.size()) +
                               " values but row 0 has " + std::to_string(d));
        for (std::size_t c = 0; c < d; ++c) {
            if (!row[c].is_number())
                bad_json(path, "row " + std::to_string(r) + ", column " + std::to_string(c) + " is not a number");
            const double v = row[c].get<double>();
            if (!std::isfinite(v) || std::fabs(v) > 3.4e38)
                bad_json(path, "row " + std::to_string(r) + ", column " + std::to_string(c) +
                                   " is not a finite float32 value");
            x(r, c) = static_cast<float>(v);
        }
    }
    return x;
}

Embeddings load_json(const std::string& bytes, const std::string& path) {
    nlohmann::json j;
    try {
        // Reject deep nesting while parsing, before it is built: rows of numbers sit at depth 3 at most.
        j = nlohmann::json::parse(bytes, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (depth > 4) bad_json(path, "nested deeper than rows of numbers");
            return true;
        });
    } catch (const nlohmann::json::parse_error& e) {
        bad_json(path, "invalid JSON at byte " + std::to_string(e.byte));
    }
    Embeddings e;
    if (j.is_array()) {
        e.x = rows_from_json(j, path);
        return e;
    }
    if (!j.is_object() || !j.contains("x")) bad_json(path, "no rows found");
    e.x = rows_from_json(j["x"], path);
    if (j.contains("tokens")) {
        const auto& t = j["tokens"];
        if (!t.is_array()) bad_json(path, "\"tokens\" must be an array of strings");
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (!t[i].is_string() || t[i].get_ref<const std::string&>().empty())
                bad_json(path, "token " + std::to_string(i) + " is not a non-empty string");
            e.tokens.push_back(t[i].get<std::string>());
        }
        if (e.tokens.size() != e.x.shape(0))
            bad_json(path, std::to_string(e.tokens.size()) + " tokens but " + std::to_string(e.x.shape(0)) + " rows");
    }
    return e;
}

Embeddings load_npy_embeddings(const std::string& bytes, const std::string& path) {
    const NpyArray a = parse_npy(bytes, path);
    if (a.shape.size() != 2 || a.shape[0] == 0 || a.shape[1] == 0)
        input_error(path + ": embeddings must be a non-empty 2-D array (tokens, d_in)",
                    "reshape it to (tokens, width) before numpy.save");
    if (a.descr != "<f4" && a.descr != "<f8")
        input_error(path + ": embeddings must be float32 or float64, not " + a.descr, "use array.astype('float32')");
    Embeddings e;
    e.x = Mat::from_shape({a.shape[0], a.shape[1]});
    for (std::size_t r = 0; r < a.shape[0]; ++r)
        for (std::size_t c = 0; c < a.shape[1]; ++c) {
            const double v = npy_float_at(a, r, c);
            if (!std::isfinite(v) || std::fabs(v) > 3.4e38)
                input_error(path + ": row " + std::to_string(r) + ", column " + std::to_string(c) +
                            " is not a finite float32 value");
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

std::vector<std::string> example_names() { return {"journey"}; }

Embeddings example(const std::string& name) {
    if (name != "journey") usage_error("unknown example '" + name + "'", "available: journey");
    Embeddings e;
    e.tokens = {"Your", "journey", "starts", "with", "one", "step"};
    e.x = Mat{{0.43f, 0.15f, 0.89f}, {0.55f, 0.87f, 0.66f}, {0.57f, 0.85f, 0.64f},
              {0.22f, 0.58f, 0.33f}, {0.77f, 0.25f, 0.10f}, {0.05f, 0.80f, 0.55f}};
    return e;
}

Embeddings load_embeddings(const std::string& path) {
    const std::string bytes = read_file(path, "embeddings file");
    if (looks_like_npy(bytes)) return load_npy_embeddings(bytes, path);
    return load_json(bytes, path);
}

}  // namespace attn
