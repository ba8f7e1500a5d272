// --split words|space|chars, and special tokens kept whole in every mode.
#include "data/text/tokenize.h"
#include "tests/helpers.h"

using namespace attn;
using V = std::vector<std::string>;

TEST_CASE("split: special tokens stay whole and alone in words mode") {
    CHECK(tokenize("[CLS] The cat sat<pad> on <|endoftext|>") ==
          V{"[CLS]", "The", "cat", "sat", "<pad>", "on", "<|endoftext|>"});
    CHECK(tokenize("[SEP][MASK]</s><s><extra_id_0>") == V{"[SEP]", "[MASK]", "</s>", "<s>", "<extra_id_0>"});
    CHECK(tokenize("a <|im_start|>b") == V{"a", "<|im_start|>", "b"});
}

TEST_CASE("split: near misses are ordinary text") {
    CHECK(tokenize("[cls]") == V{"[", "cls", "]"});
    CHECK(tokenize("[ CLS ]") == V{"[", "CLS", "]"});
    CHECK(tokenize("< pad >") == V{"<", "pad", ">"});
    CHECK(tokenize("<>") == V{"<", ">"});  // empty brackets: two punctuation tokens
    CHECK(tokenize("[A-Z]") == V{"[", "A", "-", "Z", "]"});
    const std::string long_angle = "<" + std::string(33, 'x') + ">";
    CHECK(special_token_length(long_angle, 0) == 0);
    CHECK(special_token_length("<" + std::string(32, 'x') + ">", 0) == 34);
    CHECK(special_token_length("[" + std::string(16, 'A') + "]", 0) == 18);
    CHECK(special_token_length("[" + std::string(17, 'A') + "]", 0) == 0);
    CHECK(special_token_length("[1A]", 0) == 0);
    CHECK(special_token_length("<a\xC3\xA9>", 0) == 0);  // ASCII only
}

TEST_CASE("split: space mode keeps punctuation on its word, special tokens apart") {
    CHECK(tokenize("Hello, world! [SEP] don't", SIZE_MAX, Split::space) ==
          V{"Hello,", "world!", "[SEP]", "don't"});
    CHECK(tokenize("end.<pad><pad>", SIZE_MAX, Split::space) == V{"end.", "<pad>", "<pad>"});
}

TEST_CASE("split: chars mode gives each character, marks and joined emoji stay together") {
    CHECK(tokenize("ab c", SIZE_MAX, Split::chars) == V{"a", "b", "c"});
    // e + U+0301 (combining acute) is one character
    CHECK(tokenize("e\xCC\x81t", SIZE_MAX, Split::chars) == V{"e\xCC\x81", "t"});
    // woman + ZWJ + laptop is one emoji; thumbs up + skin tone is one
    CHECK(tokenize("\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD", SIZE_MAX,
                   Split::chars) ==
          V{"\xF0\x9F\x91\xA9\xE2\x80\x8D\xF0\x9F\x92\xBB", "\xF0\x9F\x91\x8D\xF0\x9F\x8F\xBD"});
    CHECK(tokenize("hi[CLS]<pad>", SIZE_MAX, Split::chars) == V{"h", "i", "[CLS]", "<pad>"});
}

TEST_CASE("split: max_tokens holds in every mode") {
    for (Split s : {Split::words, Split::space, Split::chars}) {
        const auto t = tokenize("a b c d e f g", 3, s);
        CHECK(t.size() <= 4);
        CHECK(t[0] == "a");
    }
}

TEST_CASE("cli: --split chars and special tokens from the command line") {
    const test::RunResult r = test::run_attn({"show", "--split", "chars", "ab [CLS]"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("tokens:   a | b | [CLS]\n") != std::string::npos);
    const test::RunResult w = test::run_attn({"show", "--kind", "causal", "[CLS] hi <pad>"});
    REQUIRE(w.code == 0);
    CHECK(w.out.find("tokens:   [CLS] | hi | <pad>\n") != std::string::npos);
}

TEST_CASE("split: word joiners and U+FEFF are dropped before special tokens are found") {
    // Found by fuzzing: "[" U+2060 "C]]" in space mode gave the token "[C]]", a special token glued to more.
    const std::string wj = "\xE2\x81\xA0";
    for (const Split split : {Split::words, Split::space, Split::chars})
        CHECK(tokenize("[" + wj + "C]]", SIZE_MAX, split) == V{"[C]", "]"});
    CHECK(tokenize("<p\xEF\xBB\xBF" "ad> x" + wj + "y", SIZE_MAX, Split::space) == V{"<pad>", "xy"});
    CHECK(tokenize("x" + wj + "y") == V{"xy"});
}
