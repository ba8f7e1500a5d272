// Long tokens and long labels: every source of tokens refuses one longer than kMaxTokenBytes (1024
// bytes), the tokeniser as soon as a token grows past it; the figures and the terminal measure at most
// the first characters of a label, so a long one costs what a short one does.
#include <sys/stat.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/inputs/embed.h"
#include "data/text/bpe_tokenizer.h"
#include "data/base/limits.h"
#include "data/text/tokenize.h"
#include "data/base/utf8.h"
#include "fuzz/harness.h"
#include "render/text/font.h"
#include "render/trace_io/trace_read.h"
#include "tests/helpers.h"

using namespace attn;
using V = std::vector<std::string>;

namespace {

const std::string kAcute = "\xCC\x81";    // U+0301 COMBINING ACUTE ACCENT, 2 bytes
const std::string kEllipsis = "\xE2\x80\xA6";  // U+2026

std::string repeat(const std::string& s, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
}

// The error `f` throws: "exit N: message (hint: ...)", or "" when it throws none.
template <typename F>
std::string error_of(F f) {
    try {
        f();
    } catch (const Error& e) {
        return "exit " + std::to_string(e.exit_code()) + ": " + e.what() + " (hint: " + e.hint() + ")";
    }
    return "";
}

}  // namespace

TEST_CASE("long tokens: the tokeniser keeps a 1024-byte token and refuses a 1025-byte one in every mode") {
    static_assert(kMaxTokenBytes == 1024);
    const std::string x1024(1024, 'x'), x1025(1025, 'x');
    const std::string opening = "(\"xxxxxxxxxxxxxxxxxxxxxxxx...\")";
    for (const Split split : {Split::words, Split::space}) {
        CHECK(tokenize("a " + x1024 + " b", SIZE_MAX, split) == V{"a", x1024, "b"});
        CHECK(error_of([&] { tokenize("a " + x1025 + " b", SIZE_MAX, split); }) ==
              "exit 2: token 1 is longer than 1024 bytes, the most a token may have " + opening +
                  " (hint: break it with spaces, or use --split chars)");
    }
    // words: a run of one punctuation character is one token
    CHECK(tokenize(std::string(1024, '!')) == V{std::string(1024, '!')});
    CHECK(error_of([] { tokenize("Wow " + std::string(1025, '!')); }).rfind("exit 2: token 1 is longer than 1024", 0) == 0);
    // chars: a character keeps its combining marks; é (2 bytes) + 511 marks is 1024 bytes, e + 512 is 1025
    const std::string e1024 = "\xC3\xA9" + repeat(kAcute, 511), e1025 = "e" + repeat(kAcute, 512);
    REQUIRE(e1024.size() == 1024);
    REQUIRE(e1025.size() == 1025);
    CHECK(tokenize("a" + e1024, SIZE_MAX, Split::chars) == V{"a", e1024});
    CHECK(error_of([&] { tokenize("ab " + e1025, SIZE_MAX, Split::chars); }) ==
          "exit 2: token 2 is longer than 1024 bytes, the most a token may have (\"e" + repeat(kAcute, 11) +
              "...\") (hint: a character and its combining marks make one token: remove some marks)");
    // the opening is escaped and cut at a whole character
    CHECK(token_opening("\xC3\xA9" + std::string(30, 'a')) == "\xC3\xA9" + std::string(22, 'a') + "...");
    CHECK(token_opening(std::string(23, 'a') + "\xC3\xA9" + "b") == std::string(23, 'a') + "...");
    CHECK(token_opening("a\x1b" "b") == "a\\x1bb");
}

TEST_CASE("long tokens: embeddings files, --tokens files and GPT-2 vocabularies refuse a token over 1024 bytes") {
    const std::string x1024(1024, 'x'), x1025(1025, 'x');
    const std::string too_long = "is 1025 bytes, more than the 1024 a token may have (\"xxxxxxxxxxxxxxxxxxxxxxxx...\")";
    // --embeddings JSON
    const auto embeddings = [](const std::string& token) {
        return R"({"tokens": ["a", ")" + token + R"("], "x": [[1], [2]]})";
    };
    CHECK(load_embeddings_bytes(embeddings(x1024), "e.json").tokens == V{"a", x1024});
    CHECK(error_of([&] { load_embeddings_bytes(embeddings(x1025), "e.json"); }) ==
          "exit 1: e.json: token 1 " + too_long + " (hint: a token is one word, as attn's tokeniser makes them)");
    // the length is checked first: a long token with a control character is named for its length
    CHECK(error_of([&] { load_embeddings_bytes(embeddings(x1025 + "\\u001b"), "e.json"); })
              .find("token 1 is 1026 bytes") != std::string::npos);
    CHECK(token_problem(x1025) == too_long);
    // attn render --tokens: one per line, or JSON
    CHECK(render::read_token_labels("a\n" + x1024 + "\n", "t.txt").tokens == V{"a", x1024});
    const std::string labels_hint = " (hint: give one token per position, e.g. tokenizer.convert_ids_to_tokens(ids))";
    CHECK(error_of([&] { render::read_token_labels("a\n" + x1025 + "\n", "t.txt"); }) ==
          "exit 1: t.txt: token 1 " + too_long + labels_hint);
    CHECK(error_of([&] { render::read_token_labels(R"({"tokens": ["a"], "source_tokens": [")" + x1025 + "\"]}", "t.json"); }) ==
          "exit 1: t.json: token 0 " + too_long + labels_hint);
    // vocab.json: GPT-2's own entries are at most 256 bytes; a 1024-byte one still loads
    std::string vocab = "{";
    const auto& sym = gpt2_byte_symbols();
    for (int b = 0; b < 256; ++b) vocab += nlohmann::json(sym[static_cast<std::size_t>(b)]).dump() + ": " + std::to_string(b) + ", ";
    CHECK_NOTHROW(BpeTokenizer::from_vocab_merges(vocab + "\"" + x1024 + "\": 256}", "#version: 0.2\n", "vocab.json", "m.txt"));
    CHECK(error_of([&] { BpeTokenizer::from_vocab_merges(vocab + "\"" + x1025 + "\": 256}", "#version: 0.2\n", "vocab.json", "m.txt"); }) ==
          "exit 1: vocab.json: a token " + too_long +
              " (hint: use the tokenizer files that came with the model: its vocab.json and merges.txt (or its tokenizer.json))");
}

TEST_CASE("long tokens: attn show --file with a 2 MB word exits 2 naming the token, and writes nothing") {
    const std::string dir = test::temp_dir();
    test::write(dir + "/word.txt", std::string(2'000'000, 'a'));
    test::RunOptions o;
    o.cwd = dir;
    const test::RunResult r = test::run_attn({"show", "--file", "word.txt", "--png", "out", "--max-memory", "64M"}, o);
    CHECK(r.code == 2);
    CHECK(r.err == "attn: error: token 0 is longer than 1024 bytes, the most a token may have "
                   "(\"aaaaaaaaaaaaaaaaaaaaaaaa...\") (hint: break it with spaces, or use --split chars)\n");
    CHECK(r.out.empty());
    struct stat st {};
    CHECK(::stat((dir + "/out").c_str(), &st) != 0);  // no folder
    fuzz::remove_tree(dir);
}

TEST_CASE("long labels: Font::fit measures only a label's first 256 characters") {
    static_assert(render::kMaxLabelChars == 256);
    render::Font f;
    // 99,999 letters and then U+0378, a character no font has: 100,000 characters
    const std::string label = std::string(99'999, 'a') + "\xCD\xB8";
    const std::string cut = f.fit(label, 14.0f, 120);
    CHECK(cut.size() < 40);
    CHECK(cut.substr(cut.size() - 3) == kEllipsis);
    CHECK(cut == f.fit(label.substr(0, 256), 14.0f, 120));
    // room for the whole label (100,000 × 'a' is about 860,000 px at 14 px): still cut at 256 characters
    CHECK(f.fit(label, 14.0f, 2'000'000) == std::string(256, 'a') + kEllipsis);
    // the end of the label was never shaped: no box was drawn for U+0378, no warning will name it
    CHECK(f.missing().empty());
    // 256 characters that fit come back whole
    CHECK(f.fit(std::string(256, 'i'), 14.0f, 2'000'000) == std::string(256, 'i'));
}

TEST_CASE("long labels: any text Font measures or draws stops at 1024 characters and an ellipsis") {
    static_assert(render::kMaxTextChars == 1024);
    render::Font f;
    const std::string title(5000, 'k'), shown = std::string(1024, 'k') + kEllipsis;
    CHECK(render::shown_text(title) == shown);
    CHECK(render::shown_text("short") == "short");
    CHECK(render::shown_text("\xC3\xA9\xC3\xA9\xC3\xA9", 2) == "\xC3\xA9\xC3\xA9" + kEllipsis);
    CHECK(f.text_width(title, 14.0f) == f.text_width(shown, 14.0f));
    CHECK(f.render(title, 14.0f).width == f.render(shown, 14.0f).width);
    CHECK(f.text_width(title, 14.0f) < 1100 * f.text_width("k", 14.0f));  // a fifth of the whole
}

TEST_CASE("long labels: utf8_prefix counts characters as decode_utf8 does and reads no further") {
    CHECK(utf8_prefix("a\xC3\xA9" "b", 2) == "a\xC3\xA9");
    CHECK(utf8_prefix("a\xFF\xFF" "b", 2) == "a\xFF");         // an invalid byte is one character
    CHECK(utf8_prefix("\xE2\x82" "x", 1) == "\xE2\x82");       // a truncated sequence is one too
    CHECK(utf8_prefix("abc", 0).empty());
    CHECK(utf8_prefix("abc", 10) == "abc");
    const std::string big(10'000'000, 'z');
    CHECK(utf8_prefix(big, 256).size() == 256);
    CHECK(decode_utf8(utf8_prefix("a\xFF\xC3\xA9\xE2\x82" "b", 4)).size() == 4);
}

TEST_CASE("long labels: the terminal cuts a label of more than 256 characters even when it is narrow") {
    // a letter and 300 combining marks: 601 bytes, one column; the matrix label is its first 256 characters
    const std::string token = "a" + repeat(kAcute, 300);
    const test::RunResult r = test::run_attn({"show", token + " b"});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("a" + repeat(kAcute, 255) + kEllipsis) != std::string::npos);
}
