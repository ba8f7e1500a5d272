// The tokeniser pipeline (data/text/tokenizer.h) on WordPiece and RoBERTa files. Every expected id list
// was given by Hugging Face's own tokenizers library (npm `tokenizers` 0.23.2) on the same files; the
// comments show its tokens. tests/tokenizers/hf_check.js compares hundreds more texts on real vocabularies.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "data/base/error.h"
#include "data/text/normalizer.h"
#include "data/text/tokenizer.h"
#include "data/text/wordpiece_model.h"
#include "tests/helpers.h"
#include "tests/model_fixtures.h"

namespace {

using Ids = std::vector<std::int64_t>;

// 26 tokens; strip_accents false or null (then it follows lowercase: true), max_input_chars_per_word 10
std::string tiny_bert(const std::string& strip_accents, const std::string& extra_added = "",
                      const std::string& pre = R"({"type": "BertPreTokenizer"})", const std::string& post = "") {
    const std::vector<std::string> list = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "##s", ",", "sat", "i",
                                           "##\xCC\x87", "i\xCC\x87", "##stan", "##bul", "un", "##aff", "##able", "a", ".",
                                           "\xE4\xBD\xA0", "\xE5\xA5\xBD", "\xC3\xA9", "e", "##e", "dog"};
    std::string vocab;
    for (std::size_t i = 0; i < list.size(); ++i) vocab += (i ? ", \"" : "\"") + list[i] + "\": " + std::to_string(i);
    auto sp = [](const char* c, int id) {
        return std::string(R"({"id": )") + std::to_string(id) + R"(, "content": ")" + c +
               R"(", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true})";
    };
    const std::string tpl = R"({"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
      "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
               {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
      "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}})";
    return R"({"version": "1.0", "truncation": null, "padding": null, "added_tokens": [)" + sp("[PAD]", 0) + ", " + sp("[UNK]", 1) +
           ", " + sp("[CLS]", 2) + ", " + sp("[SEP]", 3) + ", " + sp("[MASK]", 4) + extra_added +
           R"(], "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": )" +
           strip_accents + R"(, "lowercase": true}, "pre_tokenizer": )" + pre + R"(, "post_processor": )" + (post.empty() ? tpl : post) +
           R"(, "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
           "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 10, "vocab": {)" +
           vocab + "}}}";
}

// The message, and " (hint: ...)" after it when the hint is the one for what attn does not run.
std::string tokenizer_error(const std::string& json) {
    try {
        attn::Tokenizer::from_tokenizer_json(json, "tokenizer.json");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 1);
        const bool unsupported = e.hint().rfind("attn runs byte-level BPE", 0) == 0;
        return e.what() + (unsupported ? " (hint: " + e.hint() + ")" : std::string());
    }
    return "";
}

}  // namespace

TEST_CASE("WordPiece: greedy longest match with ##, a word with a piece missing or over max_input_chars_per_word is one [UNK]") {
    const auto tok = attn::Tokenizer::from_tokenizer_json(tiny_bert("false"), "tokenizer.json");
    CHECK(tok.ids("The cats, sat dogs") == Ids{2, 5, 6, 7, 8, 9, 25, 7, 3});  // [CLS] the cat ##s , sat dog ##s [SEP]
    CHECK(tok.ids("unaffable") == Ids{2, 15, 16, 17, 3});                      // un ##aff ##able
    CHECK(tok.ids("unaffablex") == Ids{2, 1, 3});                              // the whole word, not only "x"
    CHECK(tok.ids("aaaaaaaaaaa") == Ids{2, 1, 3});                             // 11 characters > 10
    CHECK(tok.ids("\xE4\xBD\xA0\xE5\xA5\xBD") == Ids{2, 20, 21, 3});           // 你好: each CJK ideograph its own word
    CHECK(tok.ids("a [MASK].") == Ids{2, 18, 4, 19, 3});                       // the special token matched first
    CHECK(tok.ids("\xC3\x89\xC3\xA9 e\xCC\x81") == Ids{2, 1, 1, 3});           // accents kept: "éé" and "é" unknown
    CHECK(tok.ids("the\xE2\x80\x8B" "cat\xC2\xAD" "s") == Ids{2, 1, 3});       // U+200B and U+00AD dropped: "thecats"
    CHECK(tok.mask_id() == 4);
    CHECK(tok.bos() == 2);
    CHECK(tok.label(7) == "##s");
    CHECK(tok.label(2) == "[CLS]");
    CHECK(tok.token_id("[SEP]") == 3);
    CHECK(tok.token_id("dogs") == -1);
    CHECK(tok.vocab_size() == 26);
}

namespace {

// Hugging Face's WordPiece loop as its Rust source writes it, per character and without any bound on the
// candidates: at each start, every end from the word's end back to one character, ## before a rest.
Ids wordpiece_reference(const std::vector<std::string>& word, const std::map<std::string, std::int64_t>& vocab, std::int64_t unk) {
    Ids out;
    for (std::size_t start = 0; start < word.size();) {
        std::size_t end = word.size();
        std::int64_t hit = -1;
        for (; end > start; --end) {
            std::string piece = start > 0 ? "##" : "";
            for (std::size_t i = start; i < end; ++i) piece += word[i];
            if (const auto it = vocab.find(piece); it != vocab.end()) {
                hit = it->second;
                break;
            }
        }
        if (hit < 0) return {unk};
        out.push_back(hit);
        start = end;
    }
    return out;
}

}  // namespace

TEST_CASE("WordPiece: a long word under a huge max_input_chars_per_word gives the unbounded greedy loop's ids, 1 MB words too") {
    // tokens of 1 to 6 characters over an alphabet with 2-, 3- and 4-byte characters, with and without ##
    const std::vector<std::string> alphabet = {"a", "b", "c", "\xC3\xA9", "\xE4\xBD\xA0", "\xF0\x9F\x98\x80"};
    std::mt19937 rng(7);
    std::map<std::string, std::int64_t> vocab = {{"[UNK]", 0}, {"ab", 1}, {"##ab", 2}};
    for (const auto& c : alphabet) vocab.emplace(c, static_cast<std::int64_t>(vocab.size())), vocab.emplace("##" + c, static_cast<std::int64_t>(vocab.size()));
    while (vocab.size() < 300) {
        std::string t = rng() % 2 ? "##" : "";
        for (std::size_t n = 1 + rng() % 6; n-- > 0;) t += alphabet[rng() % 3 == 0 ? rng() % alphabet.size() : rng() % 2];
        vocab.emplace(t, static_cast<std::int64_t>(vocab.size()));
    }
    nlohmann::json m = {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"},
                        {"max_input_chars_per_word", 1000000000000000000ull}, {"vocab", vocab}};
    const auto wp = attn::WordPieceModel::from_json(m, "tokenizer.json");
    for (int trial = 0; trial < 40; ++trial) {
        std::vector<std::string> word;
        for (std::size_t n = 1 + rng() % 400; n-- > 0;) word.push_back(alphabet[rng() % 4 == 0 ? rng() % alphabet.size() : rng() % 2]);
        if (trial % 5 == 4) word.push_back("d");  // a character without a token: the whole word unknown
        std::string text;
        for (const auto& c : word) text += c;
        Ids got;
        wp.tokenize(text, got);
        INFO(text);
        CHECK(got == wordpiece_reference(word, vocab, 0));
    }
    // "ab" repeated over 1 MB: ab, then ##ab for every other pair; with one unknown letter at the end, [UNK]
    m["vocab"] = {{"[UNK]", 0}, {"ab", 1}, {"##ab", 2}, {"a", 3}, {"##b", 4}, {"##a", 5}, {"##abba", 6}};
    const auto pairs = attn::WordPieceModel::from_json(m, "tokenizer.json");
    std::string ab;
    for (int i = 0; i < 500000; ++i) ab += "ab";
    Ids got;
    pairs.tokenize(ab, got);
    Ids want(500000, 2);
    want[0] = 1;
    CHECK(got == want);
    got.clear();
    pairs.tokenize(ab + "d", got);
    CHECK(got == Ids{0});
}

TEST_CASE("tokenizer.json that is not JSON (a 0xFF byte, a cut text) is named by byte offset, without the parser's own text") {
    std::string json = tiny_bert("false");
    json.insert(json.find("\"the\""), "\"\xff\": 99, ");
    const std::string e = tokenizer_error(json);
    CHECK(e.rfind("tokenizer.json: invalid JSON at byte offset ", 0) == 0);
    CHECK(e.find("ill-formed UTF-8 byte") != std::string::npos);
    CHECK(e.find("json.exception") == std::string::npos);
    CHECK(e.find("last read") == std::string::npos);
    CHECK(tokenizer_error("{\"model\": ") == "tokenizer.json: invalid JSON at byte offset 10: unexpected end of input; "
                                              "expected '[', '{', or a literal");
}

TEST_CASE("vocab.txt with a line that is not UTF-8 is refused naming the line, as transformers' load_vocab fails to decode it") {
    CHECK_THROWS_WITH_AS(attn::WordPieceModel::from_vocab_txt("[UNK]\nthe\nca\xfft\n", "[UNK]", "m/vocab.txt"),
                         "m/vocab.txt: line 3 is not UTF-8 (byte 12)", attn::Error);
    CHECK_NOTHROW(attn::WordPieceModel::from_vocab_txt("[UNK]\nthe\nca\xc3\xa9t\n", "[UNK]", "m/vocab.txt"));
}

TEST_CASE("WordPiece: lowercase is Rust's full mapping (İ gives i + U+0307), strip_accents null follows lowercase") {
    const auto keep = attn::Tokenizer::from_tokenizer_json(tiny_bert("false"), "tokenizer.json");
    const auto strip = attn::Tokenizer::from_tokenizer_json(tiny_bert("null"), "tokenizer.json");
    CHECK(keep.ids("\xC4\xB0stanbul") == Ids{2, 12, 13, 14, 3});   // i̇ ##stan ##bul
    CHECK(strip.ids("\xC4\xB0stanbul") == Ids{2, 10, 13, 14, 3});  // i ##stan ##bul
    CHECK(strip.ids("\xC3\x89\xC3\xA9 e\xCC\x81") == Ids{2, 23, 24, 23, 3});  // e ##e e
    const attn::BertNormalizer n{true, true, false, true};
    CHECK(n.normalize("\xC4\xB0") == "i\xCC\x87");  // two code points, where utf8proc_tolower gives one
    CHECK(n.normalize("A\tB\xE4\xBD\xA0") == "a b \xE4\xBD\xA0 ");
}

TEST_CASE("WordPiece pairs: [CLS] A [SEP] B [SEP] with type ids 0 then 1, and segments") {
    const auto tok = attn::Tokenizer::from_tokenizer_json(tiny_bert("false"), "tokenizer.json");
    const attn::Encoding e = tok.encode_pair("the cat", "sat.");
    CHECK(e.ids == Ids{2, 5, 6, 3, 9, 19, 3});
    CHECK(e.type_ids == Ids{0, 0, 0, 0, 1, 1, 1});
    CHECK(e.segment == std::vector<std::uint8_t>{0, 0, 0, 0, 1, 1, 1});
    const attn::Encoding one = tok.encode("the cat");
    CHECK(one.type_ids == Ids{0, 0, 0, 0});
    CHECK(tok.ids("the cat sat", 2) == Ids{2, 5, 6});  // max_tokens: at most max_tokens + 1 ids
}

TEST_CASE("RoBERTa: <s> A </s>, pair <s> A </s></s> B </s> with type ids 0, and <mask> with lstrip takes the space before it") {
    std::string vocab = attn::test::tiny_gpt2_vocab();
    vocab = vocab.substr(0, vocab.size() - 1) + R"(, "<s>": 257, "</s>": 258, "<mask>": 259})";
    auto sp = [](const char* c, int id, bool lstrip) {
        return std::string(R"({"id": )") + std::to_string(id) + R"(, "content": ")" + c + R"(", "single_word": false, "lstrip": )" +
               (lstrip ? "true" : "false") + R"(, "rstrip": false, "normalized": false, "special": true})";
    };
    const std::string json = R"({"added_tokens": [)" + sp("<|endoftext|>", 256, false) + ", " + sp("<s>", 257, false) + ", " +
                             sp("</s>", 258, false) + ", " + sp("<mask>", 259, true) +
                             R"(], "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
        "post_processor": {"type": "RobertaProcessing", "sep": ["</s>", 258], "cls": ["<s>", 257], "trim_offsets": true, "add_prefix_space": false},
        "decoder": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": )" + vocab + R"(, "merges": []}})";
    const auto tok = attn::Tokenizer::from_tokenizer_json(json, "tokenizer.json");
    CHECK(tok.ids("a <mask>") == Ids{257, 'a', 259, 258});
    CHECK(tok.ids("a  <mask>") == Ids{257, 'a', 259, 258});
    CHECK(tok.ids("a<mask> b") == Ids{257, 'a', 259, ' ', 'b', 258});  // no rstrip: the space after stays
    const attn::Encoding e = tok.encode_pair("a", "b");
    CHECK(e.ids == Ids{257, 'a', 258, 258, 'b', 258});
    CHECK(e.type_ids == Ids{0, 0, 0, 0, 0, 0});
    CHECK(e.segment == std::vector<std::uint8_t>{0, 0, 0, 1, 1, 1});
    CHECK(tok.mask_id() == 259);
    CHECK(tok.label(257) == "<s>");
}

TEST_CASE("vocab.txt folder: BertTokenizerFast's rules from tokenizer_config.json (do_lower_case, strip_accents) and special_tokens_map.json") {
    const std::string d = attn::test::temp_dir();
    attn::test::write_bytes(d + "/vocab.txt", "[PAD]\n[UNK]\r\n[CLS]\n[SEP]\n[MASK]\nthe\nThe\n##s\ni\xCC\x87\nhello  \n");
    attn::test::write_bytes(d + "/tokenizer_config.json", R"({"do_lower_case": false})");
    const auto cased = attn::Tokenizer::load_dir(d);
    CHECK(cased.ids("The thes [MASK]") == Ids{2, 6, 5, 7, 4, 3});
    CHECK(cased.ids("hello") == Ids{2, 1, 3});  // the line's spaces are the token's (transformers' load_vocab strips only "\n")
    CHECK(cased.encode_pair("the", "The").type_ids == Ids{0, 0, 0, 1, 1});
    attn::test::write_bytes(d + "/tokenizer_config.json", R"({"strip_accents": false})");
    CHECK(attn::Tokenizer::load_dir(d).ids("The \xC4\xB0") == Ids{2, 5, 8, 3});  // lowercased, the dot above kept
    attn::test::write_bytes(d + "/tokenizer_config.json", "{}");
    CHECK(attn::Tokenizer::load_dir(d).ids("\xC4\xB0") == Ids{2, 1, 3});  // accents stripped: "i" is unknown
    attn::test::write_bytes(d + "/special_tokens_map.json", R"({"mask_token": "the"})");
    CHECK(attn::Tokenizer::load_dir(d).mask_id() == 5);
}

TEST_CASE("tokenizer.json WordPiece: what attn does not run is refused by name, a broken file names its fault") {
    const std::string hint = " (hint: attn runs byte-level BPE (GPT-2, RoBERTa, Llama 3, Qwen2, SmolLM2), sentencepiece-style BPE with byte "
                             "fallback (Llama 2, TinyLlama, Mistral), WordPiece (BERT) and SentencePiece Unigram (T5, Marian) as tokenizer.json describes them)";
    CHECK(tokenizer_error(tiny_bert("false", R"(, {"id": 26, "content": "<w>", "single_word": true, "special": true})")) ==
          "tokenizer.json: added token '<w>' with single_word, which attn does not run" + hint);
    CHECK(tokenizer_error(tiny_bert("false", "", R"({"type": "Whitespace"})")) ==
          "tokenizer.json: the pre_tokenizer 'Whitespace' with WordPiece, which attn does not run" + hint);
    CHECK(tokenizer_error(tiny_bert("false", "", R"({"type": "BertPreTokenizer"})", R"({"type": "Fancy"})")) ==
          "tokenizer.json: the post_processor 'Fancy', which attn does not run" + hint);
    std::string no_unk = tiny_bert("false");
    no_unk.replace(no_unk.find(R"("unk_token": "[UNK]")"), 20, R"("unk_token": "<unk>")");
    CHECK(tokenizer_error(no_unk).rfind("tokenizer.json: unk_token '<unk>' is not in the vocabulary", 0) == 0);
    std::string norm = tiny_bert("false");
    norm.replace(norm.find(R"("type": "BertNormalizer")"), 24, R"("type": "Lowercase")");
    CHECK(tokenizer_error(norm) == "tokenizer.json: the normalizer 'Lowercase' with WordPiece, which attn does not run" + hint);
    std::string trunc = tiny_bert("false");
    trunc.replace(trunc.find(R"("truncation": null)"), 18, R"("truncation": {"max_length": 4})");
    CHECK(tokenizer_error(trunc) == "tokenizer.json: a tokenizer.json with truncation, which attn does not run" + hint);
    const std::string d = attn::test::temp_dir();
    attn::test::write_bytes(d + "/vocab.txt", "[PAD]\n[UNK]\nthe\n");
    try {
        attn::Tokenizer::load_dir(d);
        FAIL("a vocab.txt without [CLS] loaded");
    } catch (const attn::Error& e) {
        CHECK(std::string(e.what()).rfind(d + "/vocab.txt: the special token '[CLS]' is not in the vocabulary", 0) == 0);
    }
}

TEST_CASE("tokenizer.json WordPiece and post-processors: every broken field is a one-line error naming the file and the field") {
    const std::string ok = tiny_bert("false");
    auto with = [&](const std::string& from, const std::string& to) {
        std::string j = ok;
        const auto at = j.find(from);
        REQUIRE(at != std::string::npos);
        return j.replace(at, from.size(), to);
    };
    const std::vector<std::pair<std::string, std::string>> cases = {
        {with(R"("lowercase": true)", R"("lowercase": 1)"), "tokenizer.json: BertNormalizer's lowercase is not true, false or null"},
        {with(R"("max_input_chars_per_word": 10)", R"("max_input_chars_per_word": -1)"), "tokenizer.json: max_input_chars_per_word is not a whole number"},
        {with(R"("vocab": {"[PAD]")", R"("vocab": [], "x": {"[PAD]")"), "tokenizer.json: the WordPiece model has no \"vocab\" object"},
        {with(R"("ids": [2])", R"("ids": [99])"), "tokenizer.json: the post_processor's token id 99 is not a token"},
        {with(R"("ids": [2])", R"("ids": ["2"])"), "tokenizer.json: the post_processor's special token '[CLS]' has an id that is not a whole number"},
        {with(R"("special_tokens": {"[CLS]")", R"("special_tokens": {"[CLX]")"), "tokenizer.json: the post_processor's special token '[CLS]' has no ids"},
        {with(R"({"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],)",
              R"({"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],)"),
         "tokenizer.json: a post_processor template names sequence 'B'"},
        {with(R"("single": [)", R"("single": 1, "x": [)"), "tokenizer.json: a post_processor template is not a list"},
        {with(R"("single": [{"SpecialToken")", R"("single": [{"Special")"), "tokenizer.json: a post_processor template piece is neither Sequence nor SpecialToken"},
        {with(R"("type": "TemplateProcessing",)", R"("type": "BertProcessing", "sep": ["[SEP]"], "cls": ["[CLS]", 2],)"),
         "tokenizer.json: the post_processor's sep is not [token, id]"},
        {with(R"("id": 4, "content": "[MASK]")", R"("id": 16777216, "content": "[MASK]")"), "tokenizer.json: an added token's id is out of range"},
    };
    for (const auto& [json, want] : cases) {
        INFO(want);
        CHECK(tokenizer_error(json).rfind(want, 0) == 0);
    }
    // a Sequence of post-processors: ByteLevel is skipped, two that add tokens are refused
    const std::string bp = R"({"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]})";
    const auto seq = attn::Tokenizer::from_tokenizer_json(
        tiny_bert("false", "", R"({"type": "BertPreTokenizer"})", R"({"type": "Sequence", "processors": [{"type": "ByteLevel"}, )" + bp + "]}"),
        "tokenizer.json");
    CHECK(seq.encode_pair("the", "cat").type_ids == Ids{0, 0, 0, 1, 1});
    CHECK(tokenizer_error(tiny_bert("false", "", R"({"type": "BertPreTokenizer"})", R"({"type": "Sequence", "processors": [)" + bp + ", " + bp + "]}"))
              .rfind("tokenizer.json: a post_processor Sequence with two processors that add tokens, which attn does not run", 0) == 0);
}

TEST_CASE("vocab.txt folder: a broken or foreign one is refused naming the file") {
    const std::string d = attn::test::temp_dir();
    auto error_of = [&] {
        try {
            attn::Tokenizer::load_dir(d);
        } catch (const attn::Error& e) {
            CHECK(e.exit_code() == 1);
            return std::string(e.what());
        }
        return std::string();
    };
    attn::test::write_bytes(d + "/vocab.txt", "[PAD]\nthe\n");
    CHECK(error_of() == d + "/vocab.txt: unk_token '[UNK]' is not in the vocabulary");
    attn::test::write_bytes(d + "/vocab.txt", "[PAD]\n<unk>\n[CLS]\n[SEP]\nthe\n");
    attn::test::write_bytes(d + "/tokenizer_config.json", R"({"unk_token": "<unk>"})");
    CHECK(attn::Tokenizer::load_dir(d).ids("the cat") == Ids{2, 4, 1, 3});  // tokenizer_config.json's unk_token
    attn::test::write_bytes(d + "/vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n");
    attn::test::write_bytes(d + "/tokenizer_config.json", R"({"tokenizer_class": "ElectraTokenizer"})");
    CHECK(error_of() == d + "/tokenizer_config.json: tokenizer_class 'ElectraTokenizer' with only a vocab.txt, which attn does not run");
    attn::test::write_bytes(d + "/tokenizer_config.json", R"({"do_lower_case": "yes"})");
    CHECK(error_of() == d + "/tokenizer_config.json: do_lower_case is not true, false or null");
    attn::test::write_bytes(d + "/vocab.txt", "");
    attn::test::write_bytes(d + "/tokenizer_config.json", "{}");
    CHECK(error_of() == d + "/vocab.txt: the vocabulary is empty");
    const std::string empty = attn::test::temp_dir();
    try {
        attn::Tokenizer::load_dir(empty);
        FAIL("an empty folder gave a tokeniser");
    } catch (const attn::Error& e) {
        CHECK(std::string(e.what()) == "no tokeniser in '" + empty + "' (tokenizer.json, source.spm, spiece.model, vocab.json and merges.txt, or vocab.txt)");
    }
}
