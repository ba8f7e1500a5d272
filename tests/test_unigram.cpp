// SentencePiece Unigram tokenisers (data/text/unigram_tokenizer.h): the .spm reader on malformed bytes,
// the charsmap walker on a hand-made double array, Viterbi's ties and unknown runs, T5 and Marian
// folders, and every refusal by name. Expected ids come from the reference libraries on the same
// hand-made files: python3-sentencepiece 0.1.97 (SentencePieceProcessor(model_proto=...)) for the .spm,
// Hugging Face's tokenizers (npm 0.23.2) for tokenizer.json; tests/seq2seq/spm_check.py compares
// hundreds more texts on trained models.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "data/base/error.h"
#include "data/text/precompiled_charsmap.h"
#include "data/text/sentencepiece_model.h"
#include "data/text/tokenizer.h"
#include "data/text/unigram_model.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"

namespace {

using Ids = std::vector<std::int64_t>;

// ---- protobuf bytes, written by hand ----
std::string varint(std::uint64_t v) {
    std::string o;
    do {
        const auto b = static_cast<char>(v & 0x7F);
        v >>= 7;
        o += v ? static_cast<char>(b | 0x80) : b;
    } while (v);
    return o;
}
std::string f_bytes(unsigned n, const std::string& b) { return varint(n << 3 | 2) + varint(b.size()) + b; }
std::string f_var(unsigned n, std::uint64_t v) { return varint(n << 3) + varint(v); }
std::string f_float(unsigned n, float x) {
    std::string o = varint(n << 3 | 5);
    char b[4];
    std::memcpy(b, &x, 4);
    return o + std::string(b, 4);
}
std::string piece(const std::string& p, float score, int type = 1) {
    return f_bytes(1, f_bytes(1, p) + f_float(2, score) + (type != 1 ? f_var(3, static_cast<std::uint64_t>(type)) : ""));
}
// Eleven pieces: <unk> <s> </s> (UNKNOWN, CONTROL, CONTROL), ▁ -2, ▁a -1.5, b -2.5, ▁ab -4, a -2, c -3,
// <u> (USER_DEFINED), ab -3.5; trainer_spec UNIGRAM, unk 0, bos 1, eos 2, pad -1; normalizer "identity".
std::string hand_spm(const std::string& trainer_extra = "", const std::string& tail = "") {
    std::string m = piece("<unk>", 0, 2) + piece("<s>", 0, 3) + piece("</s>", 0, 3) + piece("\xE2\x96\x81", -2) + piece("\xE2\x96\x81" "a", -1.5f) +
                    piece("b", -2.5f) + piece("\xE2\x96\x81" "ab", -4) + piece("a", -2) + piece("c", -3) + piece("<u>", 0, 4) + piece("ab", -3.5f);
    m += f_bytes(2, f_var(3, 1) + f_var(40, 0) + f_var(41, 1) + f_var(42, 2) + f_var(43, ~std::uint64_t{0}) + trainer_extra);
    m += f_bytes(3, f_bytes(1, "identity"));
    return m + tail;
}

// The message of the input error (exit code 1) f throws, or "".
std::string input_error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 1);
        return e.what();
    }
    return "";
}

std::string parse_error(const std::string& bytes) {
    return input_error_of([&] { attn::SentencePieceModel::parse(bytes, "x.spm"); });
}
std::string load_error(const std::string& bytes) {
    return input_error_of([&] { attn::SentencePieceModel::load(bytes, "x.spm"); });
}

// The same vocabulary as a T5-style tokenizer.json (Metaspace, $A </s>, </s> an added token).
std::string hand_tokenizer_json(const std::string& model_extra = "", const std::string& normalizer = "null", const std::string& added_flags = "") {
    return R"({"version":"1.0","truncation":null,"padding":null,"added_tokens":[{"id":2,"content":"</s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true)" +
           added_flags + R"(}],
"normalizer":)" + normalizer + R"(,"pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true},
"post_processor":{"type":"TemplateProcessing","single":[{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"</s>","type_id":0}}],"pair":[{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"</s>","type_id":0}},{"Sequence":{"id":"B","type_id":0}},{"SpecialToken":{"id":"</s>","type_id":0}}],"special_tokens":{"</s>":{"id":"</s>","ids":[2],"tokens":["</s>"]}}},
"decoder":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true},
"model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["<s>",0],["</s>",0],["▁",-2],["▁a",-1.5],["b",-2.5],["▁ab",-4],["a",-2],["c",-3],["<u>",0],["ab",-3.5]])" +
           model_extra + "}}";
}

// A darts-clone double array by hand: keys "a" -> "x" and "ab" -> "yz". Unit = offset << 10 | has_leaf << 8
// | label; value units have bit 31. Root offset 1: "a" is unit 1 ^ 0x61 = 96 (offset 1: its value at
// 97 and its children at 97 ^ c), "ab" is unit 97 ^ 0x62 = 3 (offset 4: its value at 7).
std::string hand_charsmap(std::uint32_t trie_bytes_override = 0) {
    std::vector<std::uint32_t> u(98, 0);
    u[0] = 1u << 10;
    u[96] = 1u << 10 | 1u << 8 | 0x61;
    u[97] = 0x80000000u | 0;  // "x" at byte 0
    u[3] = 4u << 10 | 1u << 8 | 0x62;
    u[7] = 0x80000000u | 2;   // "yz" at byte 2
    std::string blob(4 + 4 * u.size(), '\0');
    const std::uint32_t n = trie_bytes_override ? trie_bytes_override : static_cast<std::uint32_t>(4 * u.size());
    std::memcpy(&blob[0], &n, 4);
    std::memcpy(&blob[4], u.data(), 4 * u.size());
    return blob + std::string("x\0yz\0", 5);
}

std::string spm_folder(const std::string& spm) {
    const std::string d = attn::test::temp_dir();
    attn::test::write_bytes(d + "/spiece.model", spm);
    attn::test::write_bytes(d + "/tokenizer_config.json", R"({"tokenizer_class": "T5Tokenizer", "extra_ids": 3})");
    return d;
}

std::string marian_folder(const std::string& vocab, const std::string& config = R"({"separate_vocabs": false})") {
    const std::string d = attn::test::temp_dir();
    attn::test::write_bytes(d + "/source.spm", hand_spm());
    attn::test::write_bytes(d + "/target.spm", hand_spm());
    attn::test::write_bytes(d + "/vocab.json", vocab);
    attn::test::write_bytes(d + "/tokenizer_config.json", config);
    return d;
}

// Marian's order: </s> 0, <unk> 1, the pieces (here without "b"), a language code, <pad> last.
const char* kMarianVocab = R"({"</s>": 0, "<unk>": 1, "▁": 2, "▁a": 3, "▁ab": 4, "a": 5, "c": 6, "<u>": 7, "ab": 8, ">>de<<": 9, "<pad>": 10})";

}  // namespace

TEST_CASE("spm reader: truncated or malformed bytes are a one-line error naming the file and the byte, never a read past the end") {
    const std::string ok = hand_spm();
    CHECK(attn::SentencePieceModel::parse(ok, "x.spm").pieces.size() == 11);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {ok.substr(0, ok.size() - 3), "x.spm: not a SentencePiece model: its ModelProto has a field longer than what is left of it"},
        {std::string("\x0a", 1), "x.spm: not a SentencePiece model: its ModelProto ends inside a number"},
        {std::string("\x00\x01", 2), "x.spm: not a SentencePiece model: its ModelProto has a field number 0 or above 2^29"},
        {std::string("\x33", 1), "x.spm: not a SentencePiece model: its ModelProto has wire type 3 (groups or not protobuf)"},
        {std::string("\x21\x01\x02", 3), "x.spm: not a SentencePiece model: its ModelProto ends inside an 8-byte field"},
        {std::string("\x08\x01", 2), "x.spm: not a SentencePiece model: its ModelProto has a field of the wrong wire type"},
        {std::string("\x48") + std::string(11, '\xFF'), "x.spm: not a SentencePiece model: its ModelProto has a number longer than 10 bytes"},
        {f_bytes(1, f_bytes(1, "a") + std::string("\x15\x00\x00", 3)), "x.spm: not a SentencePiece model: its piece ends inside a 4-byte field"},
        {f_bytes(2, std::string("\x1a\x05", 2)), "x.spm: not a SentencePiece model: its trainer_spec has a field longer than what is left of it"},
        {f_bytes(3, std::string("\x12", 1)), "x.spm: not a SentencePiece model: its normalizer_spec ends inside a number"},
        {f_bytes(5, std::string("\x12\x09", 2)), "x.spm: not a SentencePiece model: its denormalizer_spec has a field longer than what is left of it"},
    };
    for (const auto& [bytes, want] : cases) {
        INFO(want);
        CHECK(parse_error(bytes).rfind(want + " (byte ", 0) == 0);
    }
    // fields attn does not read are skipped by wire type: a varint, a fixed64, bytes and a fixed32
    const std::string extra = f_var(99, 7) + varint(98 << 3 | 1) + std::string(8, '\x01') + f_bytes(97, "zz") + f_float(96, 1.5f);
    const auto m = attn::SentencePieceModel::load(extra + hand_spm(extra, extra), "x.spm");
    CHECK(m.pieces.size() == 11);
    CHECK(m.pieces[4].piece == "\xE2\x96\x81" "a");
    CHECK(m.pieces[4].score == -1.5f);
    CHECK(m.pieces[9].type == attn::SentencePieceModel::user_defined);
    CHECK(m.eos_id == 2);
    CHECK(m.pad_id == -1);
    CHECK(m.normalizer_name == "identity");
    CHECK(m.add_dummy_prefix);
}

TEST_CASE("spm reader: BPE, WORD and CHAR models, byte_fallback, BYTE pieces and denormalizer rules are refused by name") {
    const std::string not_run = ", which attn does not run";
    CHECK(load_error(hand_spm(f_var(3, 2))) == "x.spm: the SentencePiece model type BPE (not UNIGRAM)" + not_run);
    CHECK(load_error(hand_spm(f_var(3, 3))) == "x.spm: the SentencePiece model type WORD (not UNIGRAM)" + not_run);
    CHECK(load_error(hand_spm(f_var(3, 4))) == "x.spm: the SentencePiece model type CHAR (not UNIGRAM)" + not_run);
    CHECK(load_error(hand_spm(f_var(3, 9))) == "x.spm: the SentencePiece model type 9 (not UNIGRAM)" + not_run);
    CHECK(load_error(hand_spm(f_var(35, 1))) == "x.spm: a SentencePiece model with byte_fallback" + not_run);
    CHECK(load_error(hand_spm(f_var(24, 1))) == "x.spm: a SentencePiece model with treat_whitespace_as_suffix" + not_run);
    CHECK(load_error(hand_spm("", f_bytes(5, f_bytes(2, "rules")))) == "x.spm: a SentencePiece model with denormalizer rules" + not_run);
    CHECK(load_error(hand_spm("", piece("<0x41>", 0, 6))) == "x.spm: a SentencePiece model with BYTE pieces" + not_run);
    CHECK(load_error(f_bytes(2, f_var(3, 1))) == "x.spm: a SentencePiece model without pieces");
    CHECK(load_error(hand_spm("", piece("q", 0, 7))) == "x.spm: a piece of type 7");
    CHECK(load_error(hand_spm("", piece("", 0))) == "x.spm: an empty piece");
    CHECK(load_error(hand_spm("", piece("c", -1))) == "x.spm: the piece 'c' twice");
    CHECK(load_error(hand_spm("", piece("<unk2>", 0, 2))) == "x.spm: a SentencePiece model needs exactly one UNKNOWN piece (it has 2)");
    CHECK(load_error(hand_spm(f_var(40, 3))) == "x.spm: trainer_spec.unk_id 3 is not the UNKNOWN piece");
}

TEST_CASE("charsmap: sentencepiece takes the longest key at each position, tokenizers the shortest key of each grapheme cluster") {
    const auto m = attn::PrecompiledCharsmap::from_blob(hand_charsmap(), "x.spm");
    const auto keys = m.prefixes("abc");
    REQUIRE(keys.size() == 2);
    CHECK(keys[0].first == 1);
    CHECK(keys[0].second == "x");
    CHECK(keys[1].first == 2);
    CHECK(keys[1].second == "yz");
    CHECK(m.prefix("abc") == std::pair<std::string, std::size_t>{"yz", 2});
    CHECK(m.prefix("\xC3\xA9z") == std::pair<std::string, std::size_t>{"\xC3\xA9", 2});  // no key: one character copied
    CHECK(m.prefix("\xFFz") == std::pair<std::string, std::size_t>{"\xEF\xBF\xBD", 1});  // a malformed byte reads as U+FFFD
    // graphemes: "a" and "b" are two clusters, so "ab" is never seen whole; "a" + U+0301 is one cluster
    // whose shortest key "a" replaces it all (the accent goes, as "¹\uFE0F" gives "1")
    CHECK(m.normalize_graphemes("ab") == "xb");
    CHECK(m.normalize_graphemes("a\xCC\x81" "c") == "xc");
    CHECK(m.normalize_graphemes("") == "");
    CHECK(attn::PrecompiledCharsmap::from_blob("", "x.spm").empty());
    CHECK(input_error_of([] { attn::PrecompiledCharsmap::from_blob(std::string("\x01\x00", 2), "x.spm"); }) ==
          "x.spm: the precompiled_charsmap is shorter than its 4-byte header");
    CHECK(input_error_of([] { attn::PrecompiledCharsmap::from_blob(hand_charsmap(4000), "x.spm"); }) ==
          "x.spm: the precompiled_charsmap's trie (4000 bytes) does not fit its 401 bytes");
    CHECK(input_error_of([] { attn::PrecompiledCharsmap::from_blob(hand_charsmap(6), "x.spm"); }) ==
          "x.spm: the precompiled_charsmap's trie (6 bytes) does not fit its 401 bytes");
    CHECK(input_error_of([] { attn::PrecompiledCharsmap::from_blob(hand_charsmap() + "\xC3", "x.spm"); }) ==
          "x.spm: the precompiled_charsmap's replacements are not UTF-8");
    // a trie whose offsets point outside the array finds nothing (and reads nothing outside it)
    std::string wild = hand_charsmap();
    wild[4 + 4 * 96 + 3] = '\x7F';
    CHECK(attn::PrecompiledCharsmap::from_blob(wild, "x.spm").prefixes("ab").empty());
    std::string out;
    CHECK(attn::base64_decode("eHl6", out));
    CHECK(out == "xyz");
    CHECK(attn::base64_decode("eA==", out));
    CHECK(out == "x");
    CHECK(attn::base64_decode("eHk=", out));
    CHECK(out == "xy");
    CHECK_FALSE(attn::base64_decode("e*==", out));
    CHECK_FALSE(attn::base64_decode("eHl", out));
}

TEST_CASE("Viterbi: a tie keeps the piece that starts first, and a run of unknown characters is one unknown token") {
    // ▁ab (-4) against ▁a + b (-1.5 - 2.5): equal, and both libraries keep ▁ab
    using E = attn::UnigramModel::Entry;
    const std::vector<E> v = {{"<unk>", 0, attn::UnigramModel::Kind::hidden}, {"\xE2\x96\x81" "a", -1.5}, {"b", -2.5}, {"\xE2\x96\x81" "ab", -4}};
    for (const auto flavour : {attn::UnigramModel::Flavour::tokenizers, attn::UnigramModel::Flavour::sentencepiece}) {
        const attn::UnigramModel m(v, 0, flavour);
        CHECK(m.min_score() == -4);
        std::vector<attn::UnigramModel::Token> t;
        m.encode("\xE2\x96\x81" "ab", t);
        REQUIRE(t.size() == 1);
        CHECK(t[0].id == 3);
        t.clear();
        m.encode("\xE2\x96\x81" "axyzb", t);  // x, y, z have no piece: one unknown token over "xyz"
        REQUIRE(t.size() == 3);
        CHECK(t[1].id == 0);
        CHECK(t[1].begin == 4);
        CHECK(t[1].end == 7);
    }
    // the same on whole files: sentencepiece and tokenizers give these ids
    const auto spm = attn::Tokenizer::load_dir(spm_folder(hand_spm()));
    const auto json = attn::Tokenizer::from_tokenizer_json(hand_tokenizer_json(), "tokenizer.json");
    for (const auto* t : {&spm, &json}) {
        CHECK(t->ids("ab") == Ids{6, 2});
        CHECK(t->ids("abc") == Ids{6, 8, 2});
        CHECK(t->ids("axyb") == Ids{4, 0, 5, 2});
        CHECK(t->ids("cab") == Ids{3, 8, 10, 2});
        CHECK(t->ids("a b") == Ids{4, 3, 5, 2});
    }
}

TEST_CASE("spm and tokenizer.json differ where the libraries do: CONTROL and USER_DEFINED pieces, runs of spaces") {
    const auto spm = attn::Tokenizer::load_dir(spm_folder(hand_spm()));
    const auto json = attn::Tokenizer::from_tokenizer_json(hand_tokenizer_json(), "tokenizer.json");
    // sentencepiece: <s> is CONTROL (never a piece: '<' 's' '>' unknown), <u> USER_DEFINED matched whole
    CHECK(spm.ids("a<s>b") == Ids{4, 0, 5, 2});
    CHECK(spm.ids("a<u>b") == Ids{4, 9, 5, 2});
    // tokenizers: every vocabulary entry is a piece
    CHECK(json.ids("a<s>b") == Ids{4, 1, 5, 2});
    // sentencepiece drops leading, repeated and trailing spaces; Metaspace without a normaliser keeps them
    CHECK(spm.ids("  a   b  ") == Ids{4, 3, 5, 2});
    CHECK(json.ids("  a   b  ") == Ids{3, 4, 3, 3, 3, 5, 3, 3, 2});
    CHECK(json.ids("a</s>b") == Ids{4, 2, 3, 5, 2});
    CHECK(spm.ids("xyz") == Ids{3, 0, 2});
}

TEST_CASE("T5 spiece.model alone: the spm's ids, <extra_id_N> at vocab_size - 1 - N, </s> after, labels and decoded text") {
    const auto t = attn::Tokenizer::load_dir(spm_folder(hand_spm()));
    CHECK(t.vocab_size() == 14);
    CHECK(t.token_id("<extra_id_0>") == 13);
    CHECK(t.token_id("<extra_id_2>") == 11);
    CHECK(t.ids("a<extra_id_0>b</s>") == Ids{4, 13, 3, 5, 2});  // T5Tokenizer adds no second </s>
    CHECK(t.ids("</s>a") == Ids{2, 4, 2});
    CHECK(t.encode_pair("a</s>", "b").ids == Ids{4, 2, 3, 5, 2});
    CHECK(t.eos_id() == 2);
    CHECK(t.pad_id() == -1);
    CHECK(t.label(4) == "\xC2\xB7" "a");  // "▁a" reads "·a", as BPE's " a" does
    CHECK(t.text(4) == " a");
    CHECK(t.label(13) == "<extra_id_0>");
    CHECK(t.decode_text({4, 5, 13, 3, 8, 2}) == "ab c");
    CHECK_FALSE(t.wordpiece());
    CHECK(t.specials_after() == 1);
}

TEST_CASE("Marian folder: >>xx<< kept as one token, pieces looked up in vocab.json (absent: <unk>), </s> appended, specials not split") {
    const std::string d = marian_folder(kMarianVocab);
    const auto t = attn::Tokenizer::load_dir(d);
    // sentencepiece gives ▁a b for "a b" ... and "b" is not in vocab.json: <unk> (tokenization_marian.py)
    CHECK(t.ids("ab") == Ids{4, 0});
    CHECK(t.ids("a b") == Ids{3, 2, 1, 0});
    CHECK(t.ids(">>de<< ab") == Ids{9, 4, 0});
    CHECK(t.ids(">>fr<< ab") == Ids{1, 4, 0});          // a code vocab.json lacks is <unk>
    CHECK(t.ids("ab >>de<< c") == Ids{4, 2, 6, 0});     // not leading: removed, not kept
    CHECK(t.ids("xyz") == Ids{2, 1, 0});                // "xyz" is one unknown piece of source.spm
    CHECK(t.ids("ab<pad>ab</s>") == Ids{4, 10, 4, 0, 0});
    CHECK(t.eos_id() == 0);
    CHECK(t.pad_id() == 10);
    CHECK(t.decode_text({9, 4, 6, 10, 0}) == ">>de<< abc");
    CHECK(t.label(3) == "\xC2\xB7" "a");
    // Hugging Face's test on opus-mt-en-de, "||" -> [unk, unk, eos]: sentencepiece gives "▁" and the unknown
    // run "||", and neither is in vocab.json
    const std::string no_space = marian_folder(R"({"</s>": 0, "<unk>": 1, "▁a": 2, "<pad>": 3})");
    CHECK(attn::Tokenizer::load_dir(no_space).ids("||") == Ids{1, 1, 0});
}

TEST_CASE("Marian folder: an id vocab.json lacks is <unk> as a label, and a translation holding one is refused, never an empty text") {
    // ids 2 and 4..9 have no piece: MarianTokenizer's _convert_id_to_token gives <unk> for them
    const std::string d = marian_folder(R"({"</s>": 0, "<unk>": 1, "▁a": 3, "<pad>": 10})");
    const auto t = attn::Tokenizer::load_dir(d);
    CHECK(t.decode_text({3, 0}) == "a");
    CHECK(t.text(2) == "<unk>");
    for (const Ids& ids : {Ids{3, 2, 0}, Ids{5}, Ids{11, 0}}) {
        const std::string id = std::to_string(ids.size() == 3 ? 2 : ids[0]);
        CHECK(input_error_of([&] { (void)t.decode_text(ids); }) == d + "/vocab.json: has no piece for id " + id + ", which the model generated");
    }
    // a full vocab.json decodes as before
    CHECK(attn::Tokenizer::load_dir(marian_folder(kMarianVocab)).decode_text({3, 2, 0}) == "a ");
}

TEST_CASE("Marian folder: a translation's text (--target) is cut by target.spm when it differs from source.spm") {
    const std::string d = marian_folder(kMarianVocab);
    // target.spm: "▁ab" costly, "▁" and "ab" cheap, so "ab" is ▁ + ab there and ▁ab in source.spm
    std::string m = piece("<unk>", 0, 2) + piece("<s>", 0, 3) + piece("</s>", 0, 3) + piece("\xE2\x96\x81", -0.1f) +
                    piece("\xE2\x96\x81" "a", -1.5f) + piece("b", -2.5f) + piece("\xE2\x96\x81" "ab", -40) + piece("a", -2) +
                    piece("c", -3) + piece("<u>", 0, 4) + piece("ab", -0.1f);
    m += f_bytes(2, f_var(3, 1) + f_var(40, 0) + f_var(41, 1) + f_var(42, 2) + f_var(43, ~std::uint64_t{0}));
    m += f_bytes(3, f_bytes(1, "identity"));
    attn::test::write_bytes(d + "/target.spm", m);
    const auto t = attn::Tokenizer::load_dir(d);
    CHECK(t.ids("ab") == Ids{4, 0});
    CHECK(t.encode_target("ab").ids == Ids{2, 8, 0});
    CHECK(t.encode_target(">>de<< ab").ids == Ids{9, 2, 8, 0});
    // the same file on both sides: the target's ids are the source's
    CHECK(attn::Tokenizer::load_dir(marian_folder(kMarianVocab)).encode_target("ab").ids == Ids{4, 0});
}

TEST_CASE("tokeniser file errors hint at the files of their kind: source.spm and Marian's vocab.json, spiece.model, vocab.txt, tokenizer.json, GPT-2's vocab.json") {
    auto hint_of = [](const std::string& dir) {
        try {
            attn::Tokenizer::load_dir(dir);
        } catch (const attn::Error& e) {
            return std::string(e.what()) + " (hint: " + e.hint() + ")";
        }
        return std::string("loaded");
    };
    const std::string marian = " (hint: use the tokenizer files that came with the model: its source.spm, target.spm and vocab.json)";
    const std::string cut = marian_folder(kMarianVocab);
    attn::test::write_bytes(cut + "/source.spm", hand_spm().substr(0, 7));
    const std::string cut_error = hint_of(cut);
    CHECK(cut_error.rfind(cut + "/source.spm: not a SentencePiece model: ", 0) == 0);
    CHECK(cut_error.size() > marian.size());
    CHECK(cut_error.compare(cut_error.size() - marian.size(), marian.size(), marian) == 0);
    const std::string list = marian_folder("[]");
    CHECK(hint_of(list) == list + "/vocab.json: not an object of piece -> id" + marian);
    const std::string t5 = spm_folder(hand_spm().substr(0, 7));
    const std::string t5_error = hint_of(t5);
    CHECK(t5_error.rfind(t5 + "/spiece.model: not a SentencePiece model: ", 0) == 0);
    CHECK(t5_error.find(" (hint: use the tokenizer files that came with the model: its spiece.model (or its tokenizer.json))") != std::string::npos);
    const std::string bert = attn::test::temp_dir();
    attn::test::write_bytes(bert + "/vocab.txt", "");
    CHECK(hint_of(bert) == bert + "/vocab.txt: the vocabulary is empty"
                               " (hint: use the tokenizer files that came with the model: its vocab.txt (or its tokenizer.json))");
    const std::string tj = attn::test::temp_dir();
    attn::test::write_bytes(tj + "/tokenizer.json", R"({"model": 1})");
    CHECK(hint_of(tj) == tj + "/tokenizer.json: no \"model\" object (hint: use the tokenizer.json that came with the model)");
    const std::string gpt2 = attn::test::temp_dir();
    attn::test::write_bytes(gpt2 + "/vocab.json", "[]");
    attn::test::write_bytes(gpt2 + "/merges.txt", "#version: 0.2\n");
    CHECK(hint_of(gpt2).find("(hint: use the tokenizer files that came with the model: its vocab.json and merges.txt (or its tokenizer.json))") !=
          std::string::npos);
}

TEST_CASE("Marian and T5 folders: separate_vocabs, a vocab.json without </s>, <unk> or <pad>, a missing file are refused by name") {
    const std::string d = marian_folder(kMarianVocab, R"({"separate_vocabs": true})");
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(d); }) ==
          d + "/tokenizer_config.json: separate_vocabs: true (a target_vocab.json of its own), which attn does not run");
    for (const char* tok : {"</s>", "<unk>", "<pad>"}) {
        std::string v = kMarianVocab;
        v.replace(v.find(std::string("\"") + tok + "\""), std::strlen(tok) + 2, "\"<x>\"");
        const std::string e = marian_folder(v);
        CHECK(input_error_of([&] { attn::Tokenizer::load_dir(e); }) == e + "/vocab.json: Marian's vocab.json has no '" + tok + "'");
    }
    const std::string bad_id = marian_folder(R"({"</s>": -1})");
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(bad_id); }) == bad_id + "/vocab.json: the id of piece '</s>' is not a whole number below 2^24");
    const std::string list = marian_folder("[]");
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(list); }) == list + "/vocab.json: not an object of piece -> id");
    const std::string no_target = marian_folder(kMarianVocab);
    std::remove((no_target + "/target.spm").c_str());
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(no_target); }) == "a Marian folder with source.spm but no target.spm ('" + no_target + "')");
    const std::string bpe_target = marian_folder(kMarianVocab);
    attn::test::write_bytes(bpe_target + "/target.spm", hand_spm(f_var(3, 2)));
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(bpe_target); }) ==
          bpe_target + "/target.spm: the SentencePiece model type BPE (not UNIGRAM), which attn does not run");
    // T5: spiece.model with another tokenizer_class, a bad extra_ids, no </s>
    const std::string s = spm_folder(hand_spm());
    attn::test::write_bytes(s + "/tokenizer_config.json", R"({"tokenizer_class": "AlbertTokenizer"})");
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(s); }) ==
          s + "/tokenizer_config.json: tokenizer_class 'AlbertTokenizer' with only a spiece.model, which attn does not run");
    attn::test::write_bytes(s + "/tokenizer_config.json", R"({"extra_ids": "3"})");
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(s); }) == s + "/tokenizer_config.json: extra_ids is not a whole number");
    attn::test::write_bytes(s + "/tokenizer_config.json", R"({"extra_ids": -3})");
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(s); }) == s + "/spiece.model: extra_ids is not between 0 and 100000");
    attn::test::write_bytes(s + "/tokenizer_config.json", R"({"extra_ids": 1})");
    attn::test::write_bytes(s + "/spiece.model", hand_spm("", piece("<extra_id_0>", 0, 4)));
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(s); }) ==
          s + "/spiece.model: a spiece.model that has '<extra_id_0>' as a piece besides extra_ids, which attn does not run");
    std::string no_eos = hand_spm();
    no_eos.replace(no_eos.find("</s>"), 4, "<\\s>");
    attn::test::write_bytes(s + "/spiece.model", no_eos);
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(s); }) == s + "/spiece.model: a T5 spiece.model without the piece '</s>'");
    std::string bad_utf8 = hand_spm();
    bad_utf8.replace(bad_utf8.find("<u>"), 3, "<\xFF>");
    attn::test::write_bytes(s + "/spiece.model", bad_utf8);
    CHECK(input_error_of([&] { attn::Tokenizer::load_dir(s); }) == s + "/spiece.model: a piece that is not UTF-8");
}

TEST_CASE("tokenizer.json Unigram: byte_fallback, a missing unk_id, normalisers and added-token flags attn does not run are refused by name") {
    const std::string not_run = ", which attn does not run";
    auto err = [](const std::string& j) { return input_error_of([&] { attn::Tokenizer::from_tokenizer_json(j, "tokenizer.json"); }); };
    CHECK(err(hand_tokenizer_json(R"(,"byte_fallback":true)")) == "tokenizer.json: a Unigram model with byte_fallback" + not_run);
    std::string no_unk = hand_tokenizer_json();
    no_unk.replace(no_unk.find(R"("unk_id":0)"), 10, R"("unk_id":null)");
    CHECK(err(no_unk) == "tokenizer.json: a Unigram model without unk_id" + not_run);
    std::string big_unk = hand_tokenizer_json();
    big_unk.replace(big_unk.find(R"("unk_id":0)"), 10, R"("unk_id":11)");
    CHECK(err(big_unk) == "tokenizer.json: the Unigram unk_id is not a piece");
    std::string bad_entry = hand_tokenizer_json();
    bad_entry.replace(bad_entry.find(R"(["c",-3])"), 8, R"(["c","-3"])");
    CHECK(err(bad_entry) == "tokenizer.json: a Unigram vocab entry that is not [piece, score]");
    std::string no_vocab = hand_tokenizer_json();
    no_vocab.replace(no_vocab.find(R"("vocab":[)"), 9, R"("vocab":[],"x":[)");
    CHECK(err(no_vocab) == "tokenizer.json: a Unigram model without a \"vocab\" list");
    std::string bad_piece = hand_tokenizer_json();
    bad_piece.replace(bad_piece.find(R"(["c",-3])"), 8, "[\"\xFF\",-3]");
    CHECK(err(bad_piece).rfind("tokenizer.json: ", 0) == 0);  // nlohmann refuses the JSON before attn reads the piece
    CHECK(err(hand_tokenizer_json("", R"({"type":"NFKC"})")) == "tokenizer.json: the normalizer 'NFKC' with Unigram" + not_run);
    CHECK(err(hand_tokenizer_json("", R"({"type":"Precompiled","precompiled_charsmap":"e*=="})")) ==
          "tokenizer.json: the Precompiled normalizer's precompiled_charsmap is not base64");
    CHECK(err(hand_tokenizer_json("", R"({"type":"Sequence","normalizers":[{"type":"Precompiled","precompiled_charsmap":"BAAAAAAAAAA="},{"type":"Precompiled","precompiled_charsmap":"BAAAAAAAAAA="}]})")) ==
          "tokenizer.json: two Precompiled normalizers" + not_run);
    CHECK(err(hand_tokenizer_json("", R"({"type":"Replace","pattern":{"Regex":"("},"content":"x"})"))
              .rfind("tokenizer.json: the Replace normalizer's regex does not compile (PCRE2 error ", 0) == 0);
    CHECK(err(hand_tokenizer_json("", R"({"type":"Replace","pattern":{},"content":"x"})")) ==
          "tokenizer.json: a Replace normalizer without a String or Regex pattern");
    CHECK(err(hand_tokenizer_json("", "null", R"(,"lstrip":true)")) == "tokenizer.json: added token '</s>' with lstrip in a Unigram file" + not_run);
    std::string normalized = hand_tokenizer_json();
    normalized.replace(normalized.find(R"("normalized":false)"), 18, R"("normalized":true)");
    CHECK(err(normalized) == "tokenizer.json: added token '</s>' with normalized in a Unigram file" + not_run);
    std::string no_id = hand_tokenizer_json();
    no_id.replace(no_id.find(R"("id":2,)"), 7, "");
    CHECK(err(no_id) == "tokenizer.json: an added token without content or id");
    std::string big_id = hand_tokenizer_json();
    big_id.replace(big_id.find(R"("id":2,)"), 7, R"("id":16777216,)");
    CHECK(err(big_id) == "tokenizer.json: an added token's id is out of range");
    std::string byte_level = hand_tokenizer_json();
    byte_level.replace(byte_level.find(R"("pre_tokenizer":{"type":"Metaspace")"), 35, R"("pre_tokenizer":{"type":"ByteLevel","x":0)");
    CHECK(err(byte_level) == "tokenizer.json: a byte-level pre_tokenizer with Unigram" + not_run);
    std::string trunc = hand_tokenizer_json();
    trunc.replace(trunc.find(R"("truncation":null)"), 17, R"("truncation":{"max_length":4})");
    CHECK(err(trunc) == "tokenizer.json: a tokenizer.json with truncation" + not_run);
}

TEST_CASE("tokenizer.json Unigram normalisers: Strip and Replace (string and regex) as tokenizers runs them") {
    // tokenizers (npm 0.23.2) on these files: with T5Converter's Strip(right) and Replace(" {2,}" -> "▁"),
    // "  a   b  " -> [▁a, ▁, b, </s>] (no '▁' prepended: the text starts with one); with a string Replace
    // "c" -> "a", "cab" -> [▁a, ab, </s>], decoded without specials "abb"
    const auto seq = attn::Tokenizer::from_tokenizer_json(
        hand_tokenizer_json("", R"({"type":"Sequence","normalizers":[{"type":"Strip","strip_left":false,"strip_right":true},{"type":"Replace","pattern":{"Regex":" {2,}"},"content":"▁"}]})"),
        "tokenizer.json");
    CHECK(seq.ids("  a   b  ") == Ids{4, 3, 5, 2});
    const auto rep = attn::Tokenizer::from_tokenizer_json(hand_tokenizer_json("", R"({"type":"Replace","pattern":{"String":"c"},"content":"a"})"),
                                                          "tokenizer.json");
    CHECK(rep.ids("cab") == Ids{4, 10, 2});
    CHECK(rep.eos_id() == 2);
    CHECK(rep.decode_text({6, 5, 2}) == "abb");
}
