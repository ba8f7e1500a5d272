// The data layer: tokeniser, seeded embeddings, parameter draws, input files.
#include <fstream>

#include "core/base/ops.h"
#include "tests/ops_helpers.h"
#include "data/inputs/embed.h"
#include "data/base/error.h"
#include "data/inputs/inputs.h"
#include "data/inputs/params.h"
#include "data/text/tokenize.h"
#include "tests/helpers.h"

using namespace attn;
using Tokens = std::vector<std::string>;

TEST_CASE("tokenize: words with punctuation as separate tokens") {
    CHECK(tokenize("Hello, world!") == Tokens{"Hello", ",", "world", "!"});
    CHECK(tokenize("  Your journey\tstarts\n") == Tokens{"Your", "journey", "starts"});
    CHECK(tokenize("Wait... what?!") == Tokens{"Wait", "...", "what", "?", "!"});
    CHECK(tokenize("don't") == Tokens{"don", "'", "t"});
    CHECK(tokenize("naïve café — déjà vu") == Tokens{"naïve", "café", "—", "déjà", "vu"});
    CHECK(tokenize("猫が好き") == Tokens{"猫", "が", "好", "き"});
    CHECK(tokenize("hi 👋🏽 there") == Tokens{"hi", "👋🏽", "there"});
    CHECK(tokenize("one") == Tokens{"one"});
    CHECK(tokenize(" \t\n").empty());
}

TEST_CASE("tokenize: invalid UTF-8 and control characters name the byte offset") {
    auto message = [](const std::string& s) {
        try {
            tokenize(s);
        } catch (const Error& e) {
            CHECK(e.exit_code() == 2);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(message("ab\xff").find("byte offset 2") != std::string::npos);
    CHECK(message("ok \xc3(") .find("byte offset 3") != std::string::npos);   // truncated sequence
    CHECK(message("\xc0\xaf").find("byte offset 0") != std::string::npos);    // overlong '/'
    CHECK(message("\xed\xa0\x80").find("byte offset 0") != std::string::npos);  // a surrogate
    CHECK(message("bell\x07").find("control character at byte offset 4") != std::string::npos);
}

TEST_CASE("embeddings: a token's vector is the same wherever it stands, and depends on the seed") {
    const Mat a = embed_tokens({"the", "cat", "the"}, 8, 123);
    const Mat b = embed_tokens({"dog", "the"}, 8, 123);
    const Mat c = embed_tokens({"the"}, 8, 124);
    CHECK(max_abs_diff(rows(a, 0, 1), rows(a, 2, 1)) == 0.0f);
    CHECK(max_abs_diff(rows(a, 0, 1), rows(b, 1, 1)) == 0.0f);
    CHECK(max_abs_diff(rows(a, 0, 1), rows(a, 1, 1)) > 0.0f);
    CHECK(max_abs_diff(rows(a, 0, 1), c) > 0.0f);
    for (float v : a) CHECK((v >= -1.0f && v < 1.0f));
}

TEST_CASE("params: torch.rand and nn.Linear draws follow PyTorch's generator") {
    // torch.manual_seed(123); torch.rand(3, 2) -> the chapter's W_query for SelfAttention_v1:
    // [[0.2961, 0.5166], [0.2517, 0.6886], [0.0740, 0.8665]]
    TorchGenerator g(123);
    const auto p = init_params({{"W_query", "", 3, 2}}, InitMode::torch_rand, g);
    test::check_matrix(p[0].value, {{0.2961f, 0.5166f}, {0.2517f, 0.6886f}, {0.0740f, 0.8665f}});
    // nn.Linear draws stay within ±1/sqrt(fan_in), the bias after the weight.
    TorchGenerator g2(7);
    const auto q = init_params({{"W", "b", 4, 3}}, InitMode::torch, g2);
    REQUIRE(q.size() == 2);
    CHECK(q[0].name == "W");
    CHECK(q[1].name == "b");
    CHECK(q[0].value.shape(0) == 4);
    for (float v : q[0].value) CHECK(std::fabs(v) <= 0.5f);
}

TEST_CASE("inputs: embeddings files, rows and tokens") {
    const std::string dir = test::temp_dir();
    const std::string good = dir + "/good.json", bad_row = dir + "/bad.json", obj = dir + "/obj.json";
    std::ofstream(good) << "[[1, 2], [3, 4]]";
    std::ofstream(bad_row) << "[[1, 2], [3]]";
    std::ofstream(obj) << R"({"tokens": ["a", "b", "c"], "x": [[1,0],[0,1],[1,1]]})";
    InputRequest r;
    r.sentence = "hello world";
    r.embeddings = good;
    const Inputs in = make_inputs(r);
    CHECK(in.x.shape(1) == 2);
    CHECK(in.x(1, 0) == 3.0f);
    r.embeddings = bad_row;
    try {
        make_inputs(r);
        FAIL("expected an error");
    } catch (const Error& e) {
        CHECK(e.exit_code() == 1);
        CHECK(std::string(e.what()).find("row 1") != std::string::npos);
    }
    InputRequest o;
    o.embeddings = obj;
    const Inputs in2 = make_inputs(o);
    CHECK(in2.tokens == Tokens{"a", "b", "c"});
}

TEST_CASE("excerpt: control bytes and non-UTF-8 as \\xHH, the bidirectional controls as \\u escapes, other text kept") {
    CHECK(attn::excerpt("W_\xE2\x80\xAEquery\n") == "W_\\u202equery\\x0a");
    CHECK(attn::excerpt("a\xE2\x81\xA6" "b\xE2\x80\xAA" "c") == "a\\u2066b\\u202ac");
    CHECK(attn::excerpt("\xE2\x80\x94 \xC3\xA9 \xE2\x80\xAF") == "\xE2\x80\x94 \xC3\xA9 \xE2\x80\xAF");  // a dash, é, U+202F: text
    CHECK(attn::excerpt("\x1b[31m\xFF") == "\\x1b[31m\\xff");
}
