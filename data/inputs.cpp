#include "data/inputs.h"

#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "data/embed.h"
#include "data/error.h"
#include "data/npy.h"
#include "data/tokenize.h"

namespace attn {
namespace {

std::vector<std::string> tokens_of(const std::string& text, const char* what, std::size_t max_tokens) {
    std::vector<std::string> tokens = tokenize(text);
    if (tokens.empty())
        usage_error(std::string("the ") + what + " is empty", "give at least one word, e.g. \"Your journey starts\"");
    if (tokens.size() > max_tokens)
        usage_error(std::string("the ") + what + " has " + std::to_string(tokens.size()) +
                        " tokens, more than --max-tokens " + std::to_string(max_tokens),
                    "raise --max-tokens or shorten the text");
    return tokens;
}

std::string read_text(const std::string& path) {
    if (path != "-") return read_file(path, "text file");
    std::string s{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
    return s;
}

[[noreturn]] void bad_mask(const std::string& path, const std::string& why) {
    input_error(path + ": " + why, "a mask is a (T, S) JSON array of true/false or 0/1, or a bool/uint8 .npy");
}

}  // namespace

Mask load_mask(const std::string& path, std::size_t t, std::size_t s) {
    const std::string bytes = read_file(path, "mask file");
    const std::string want = "(" + std::to_string(t) + ", " + std::to_string(s) + ")";
    Mask m = Mask::from_shape({t, s});
    if (looks_like_npy(bytes)) {
        const NpyArray a = parse_npy(bytes, path);
        if (a.item_size != 1) bad_mask(path, "dtype " + a.descr + " is not bool or uint8");
        if (a.shape.size() != 2 || a.shape[0] != t || a.shape[1] != s)
            bad_mask(path, "shape does not match (T, S) = " + want);
        for (std::size_t i = 0; i < t; ++i)
            for (std::size_t j = 0; j < s; ++j) {
                const auto v = static_cast<unsigned char>(a.data[a.fortran_order ? j * t + i : i * s + j]);
                if (v > 1) bad_mask(path, "row " + std::to_string(i) + ", column " + std::to_string(j) + " is not 0 or 1");
                m(i, j) = v;
            }
        return m;
    }
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(bytes, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (depth > 3) bad_mask(path, "nested deeper than rows of values");
            return true;
        });
    } catch (const nlohmann::json::parse_error& e) {
        bad_mask(path, "invalid JSON at byte " + std::to_string(e.byte));
    }
    if (!j.is_array() || j.size() != t) bad_mask(path, "expected " + std::to_string(t) + " rows for shape " + want);
    for (std::size_t i = 0; i < t; ++i) {
        if (!j[i].is_array() || j[i].size() != s)
            bad_mask(path, "row " + std::to_string(i) + " does not have " + std::to_string(s) + " values");
        for (std::size_t k = 0; k < s; ++k) {
            const auto& v = j[i][k];
            if (v.is_boolean()) m(i, k) = v.get<bool>() ? 1 : 0;
            else if (v.is_number_integer() && (v.get<std::int64_t>() == 0 || v.get<std::int64_t>() == 1))
                m(i, k) = static_cast<std::uint8_t>(v.get<std::int64_t>());
            else bad_mask(path, "row " + std::to_string(i) + ", column " + std::to_string(k) + " is not true/false or 0/1");
        }
    }
    return m;
}

Inputs make_inputs(const InputRequest& r) {
    const int sources = int(r.sentence.has_value()) + int(r.text_file.has_value()) + int(r.example.has_value());
    if (sources > 1) usage_error("give only one of SENTENCE, --file and --example");
    if (sources == 0 && !r.embeddings)
        usage_error("nothing to attend over", "give a sentence, e.g. attn show \"Your journey starts\"");
    Inputs in;
    // 1. tokens and their vectors
    if (r.example) {
        if (r.embeddings) usage_error("--example brings its own embeddings; drop --embeddings");
        Embeddings e = example(*r.example);
        if (r.d_in && *r.d_in != e.x.shape(1))
            usage_error("--example " + *r.example + " has d_in = " + std::to_string(e.x.shape(1)), "drop --d-in");
        in.tokens = e.tokens, in.x = e.x;
    } else {
        std::vector<std::string> tokens;
        if (r.sentence) tokens = tokens_of(*r.sentence, "sentence", r.max_tokens);
        if (r.text_file) tokens = tokens_of(read_text(*r.text_file), "text file", r.max_tokens);
        if (r.embeddings) {
            Embeddings e = load_embeddings(*r.embeddings);
            if (r.d_in && *r.d_in != e.x.shape(1))
                usage_error("--d-in " + std::to_string(*r.d_in) + " does not match the embeddings' width " +
                            std::to_string(e.x.shape(1)), "drop --d-in");
            if (tokens.empty()) tokens = e.tokens;
            if (tokens.empty())
                usage_error(*r.embeddings + " has rows but no tokens", "give the sentence they belong to");
            if (tokens.size() != e.x.shape(0))
                input_error(*r.embeddings + ": " + std::to_string(e.x.shape(0)) + " rows for " +
                                std::to_string(tokens.size()) + " tokens",
                            "give one row per token of the sentence");
            if (tokens.size() > r.max_tokens)
                usage_error(std::to_string(tokens.size()) + " tokens, more than --max-tokens " +
                            std::to_string(r.max_tokens), "raise --max-tokens");
            in.x = e.x;
        } else {
            in.x = embed_tokens(tokens, r.d_in.value_or(r.default_d_in), r.seed);
        }
        in.tokens = tokens;
    }
    // 2. the source: its own text embedded at the same width, else the sentence itself
    if (r.source) {
        in.source_tokens = tokens_of(*r.source, "source", r.max_tokens);
        in.source_x = embed_tokens(in.source_tokens, in.x.shape(1), r.seed);
        in.has_source = true;
    } else {
        in.source_tokens = in.tokens, in.source_x = in.x;
    }
    // 3. the user's mask
    if (r.mask_file) in.user_mask = load_mask(*r.mask_file, in.tokens.size(), in.source_tokens.size());
    return in;
}

}  // namespace attn
