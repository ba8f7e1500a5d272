// --weights FILE (data/inputs/weights_file.h, params.h given_params): the three formats told apart by
// their bytes, and the parameters matched to the kind's layers by name and shape.
#include <cstring>
#include <functional>

#include "data/base/error.h"
#include "data/inputs/params.h"
#include "data/inputs/weights_file.h"
#include "tests/helpers.h"

using namespace attn;

using attn::test::error_of;

namespace {

std::string f32_bytes(const std::vector<float>& v) {
    std::string b(v.size() * 4, '\0');
    std::memcpy(&b[0], v.data(), b.size());
    return b;
}

}  // namespace

TEST_CASE("weights file: a safetensors header of 379 bytes (first byte 0x7B, an opening brace) is read as safetensors, not JSON") {
    // a header whose length's low byte is '{' must not be mistaken for a JSON trace
    const std::string data = f32_bytes({1.0f, 2.0f, 3.0f, 4.0f});
    std::string header = R"({"W_query": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}})";
    header.resize(379, ' ');
    std::string len(8, '\0');
    len[0] = static_cast<char>(379 & 0xFF), len[1] = static_cast<char>(379 >> 8);
    REQUIRE(len[0] == '{');
    const GivenWeights w = read_weights_bytes(len + header + data, "dir/brace.safetensors");
    CHECK(w.file == "dir/brace.safetensors");  // as given: errors name it so (titles show brace.safetensors)
    REQUIRE(w.arrays.size() == 1);
    CHECK(w.arrays[0].name == "W_query");
    CHECK(w.arrays[0].shape == std::vector<std::size_t>{2, 2});
    CHECK(w.arrays[0].values == std::vector<float>{1.0f, 2.0f, 3.0f, 4.0f});
}

TEST_CASE("weights file: a trace's params read as matrices and vectors, matched in init_params's order with a vector bias as (1, n)") {
    const GivenWeights w = read_weights_bytes(
        R"({"format": "attn-trace", "params": {"b_query": [0.5, -0.5], "W_query": [[1, 2], [3, 4], [5, 6]]}})", "t.json");
    REQUIRE(w.arrays.size() == 2);
    for (const StoredArray& a : w.arrays)
        CHECK(a.shape == (a.name == "b_query" ? std::vector<std::size_t>{2} : std::vector<std::size_t>{3, 2}));
    const std::vector<Param> p = given_params({{"W_query", "b_query", 3, 2}}, w, "causal");
    REQUIRE(p.size() == 2);
    CHECK(p[0].name == "W_query");  // the order init_params names them, not the file's
    CHECK(p[0].value(2, 1) == 6.0f);
    CHECK(p[1].name == "b_query");
    CHECK(p[1].value.shape(0) == 1);
    CHECK(p[1].value(0, 1) == -0.5f);
}

TEST_CASE("weights file: column blocks of one stored parameter (mha-wrapper's heads) are one array of all the columns") {
    // two layers fill columns [0, 2) and [2, 4) of W_query: the file holds it whole, (3, 4)
    std::vector<float> v(12);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = float(i);
    const GivenWeights w{"w.npz", {{"W_query", {3, 4}, v}}};
    const std::vector<Param> p = given_params({{"W_query", "", 3, 2, 0, 4}, {"W_query", "", 3, 2, 2, 4}}, w, "mha-wrapper");
    REQUIRE(p.size() == 1);
    CHECK(p[0].value.shape(1) == 4);
    CHECK(p[0].value(1, 3) == 7.0f);
    CHECK(error_of([&] { given_params({{"W_query", "", 3, 2, 0, 4}}, GivenWeights{"w.npz", {{"W_query", {3, 2}, {}}}}, "mha-wrapper"); })
              .find("'W_query' has shape (3, 2), kind 'mha-wrapper' needs (3, 4)") != std::string::npos);
}

TEST_CASE("weights file: a vector of n values fits only a (1, n) or (n, 1) parameter") {
    const GivenWeights w{"w.npz", {{"W_query", {4}, {1, 2, 3, 4}}}};
    CHECK(error_of([&] { given_params({{"W_query", "", 2, 2}}, w, "self"); })
              .find("'W_query' has shape (4,), kind 'self' needs (2, 2)") != std::string::npos);
}

TEST_CASE("weights file: every error names the file by the path given, in the reader and when matching names and shapes") {
    const std::string trace = R"({"params": {"W_query": [[1, 2], [3, 4]], "W_qeury": [[1, 2], [3, 4]]}})";
    const GivenWeights w = read_weights_bytes(trace, "dir/w.json");
    CHECK(w.file == "dir/w.json");
    CHECK(error_of([&] { given_params({{"W_query", "", 2, 2}}, w, "self"); })
              .rfind("--weights dir/w.json holds 'W_qeury', which kind 'self' does not take here", 0) == 0);
    const GivenWeights short_rows = read_weights_bytes(R"({"params": {"W_query": [[1, 2]]}})", "dir/w.json");
    CHECK(error_of([&] { given_params({{"W_query", "", 2, 2}}, short_rows, "self"); })
              .rfind("--weights dir/w.json: 'W_query' has shape (1, 2), kind 'self' needs (2, 2)", 0) == 0);
    CHECK(error_of([&] { read_weights_bytes(R"({"params": {"W_query": [[1, 2], [3]]}})", "dir/w.json"); }) ==
          "--weights dir/w.json: params.W_query's rows differ in length");
    // a value JSON does not have: the parser's position, none of its own text
    CHECK(error_of([&] { read_weights_bytes(R"({"params": {"W_query": [[Infinity]]}})", "dir/w.json"); }) ==
          "--weights dir/w.json: invalid JSON at byte offset 25: invalid literal");
    // a cut zip: attn's words, not libzip's
    CHECK(error_of([&] { read_weights_bytes(std::string("PK\x03\x04", 4) + std::string(40, 'x'), "dir/w.npz"); }) ==
          "--weights dir/w.npz: not a readable zip: no zip directory at its end: it is cut short, or not a zip");
}
