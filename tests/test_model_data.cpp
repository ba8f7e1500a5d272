// The model files: safetensors (format checks, exact F16/BF16 widening), GPT-2's byte-level BPE on a
// small vocabulary, the attention aggregates against plain loops, and the model fuzz corpora replayed.
#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/model/model.h"
#include "data/checkpoint/model_checkpoint.h"
#include "data/text/bpe_tokenizer.h"
#include "data/checkpoint/safetensors.h"
#include "fuzz/harness_model.h"
#include "tests/helpers.h"

namespace {

std::vector<std::string> corpus(const std::string& target) {
    const std::string dir = std::string(ATTN_SOURCE_DIR) + "/fuzz/corpus/" + target;
    std::vector<std::string> files;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') files.push_back(dir + "/" + e->d_name);
        ::closedir(d);
    }
    std::sort(files.begin(), files.end());
    return files;
}

// 8-byte length + header + data, as the format defines.
std::string st_file(const std::string& header, const std::string& data) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[static_cast<std::size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
    return s + header + data;
}

std::string st_error(const std::string& bytes) {
    try {
        attn::SafetensorsFile::from_bytes(bytes, "m.safetensors");
    } catch (const attn::Error& e) {
        CHECK(e.exit_code() == 1);
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("corpus: safetensors") {
    const auto files = corpus("safetensors");
    REQUIRE(files.size() >= 5);
    for (const auto& f : files) {
        INFO(f);
        CHECK(attn::fuzz::safetensors_one(attn::test::slurp(f)) == "");
    }
}

TEST_CASE("corpus: shard_index") {
    const auto files = corpus("shard_index");
    REQUIRE(files.size() >= 10);
    for (const auto& f : files) {
        INFO(f);
        CHECK(attn::fuzz::shard_index_one(attn::test::slurp(f)) == "");
    }
}

TEST_CASE("shard index: the fuzz seeds over fuzz/harness_model.h's folder load, or are refused with the index's own message") {
    const std::string dir = std::string(ATTN_SOURCE_DIR) + "/fuzz/corpus/shard_index/";
    const auto load = [&](const std::string& seed) -> std::string {
        std::map<std::string, int> opened;
        try {
            return "loaded " + std::to_string(attn::fuzz::shard_index_load(attn::test::slurp(dir + seed), opened).files.size());
        } catch (const attn::Error& e) {
            CHECK(e.exit_code() == 1);
            const std::string what = e.what();
            return what.substr(0, what.find(" (hint: "));
        }
    };
    const std::string i = "model.safetensors.index.json: ";
    CHECK(load("ok-two-shards") == "loaded 2");
    CHECK(load("ok-one-shard") == "loaded 1");
    CHECK(load("ok-fuzzed-shard") == "loaded 2");
    CHECK(load("shard-missing") == i + "names shard 'missing.safetensors', which is missing from the folder");
    CHECK(load("tensor-in-two") == i + "tensor 'a' is in two shards, again.safetensors and model-00001-of-00002.safetensors");
    CHECK(load("tensor-not-there") == i + "puts tensor 'c' in model-00001-of-00002.safetensors, which does not hold it");
    CHECK(load("not-a-file-name") == i + "shard '../model-00001-of-00002.safetensors' is not a file name in the folder");
    CHECK(load("empty-map") == i + "the weight_map is empty");
    CHECK(load("shard-not-string") == i + "the shard of tensor 'a' is not a file name");
    CHECK(load("deep") == i + "nests deeper than an index does");
    CHECK(load("not-json") == i + "not JSON");
    CHECK(load("shard-broken").rfind("broken.safetensors: ", 0) == 0);
    CHECK(load("fuzzed-shard-bad-length").rfind("fuzz.safetensors: ", 0) == 0);
}

TEST_CASE("corpus: gpt2_tokenizer") {
    const auto files = corpus("gpt2_tokenizer");
    REQUIRE(files.size() >= 5);
    for (const auto& f : files) {
        INFO(f);
        CHECK(attn::fuzz::gpt2_tokenizer_one(attn::test::slurp(f)) == "");
    }
}

TEST_CASE("corpus: spm_tokenizer") {
    const auto files = corpus("spm_tokenizer");
    REQUIRE(files.size() >= 3);
    for (const auto& f : files) {
        INFO(f);
        CHECK(attn::fuzz::spm_tokenizer_one(attn::test::slurp(f)) == "");
    }
}

TEST_CASE("half_to_float equals sign · 2^(e-15) · (1 + m/1024), subnormals m · 2^-24, for all 65536 patterns") {
    for (std::uint32_t u = 0; u < 65536; ++u) {
        const int sign = (u >> 15) ? -1 : 1, e = static_cast<int>((u >> 10) & 31), m = static_cast<int>(u & 1023);
        const float got = attn::half_to_float(static_cast<std::uint16_t>(u));
        if (e == 31) {
            CHECK((m == 0 ? std::isinf(got) : std::isnan(got)));
            continue;
        }
        const double want = sign * (e == 0 ? std::ldexp(m, -24) : std::ldexp(1.0 + m / 1024.0, e - 15));
        if (static_cast<double>(got) != want) FAIL("pattern " << u << ": " << got << " != " << want);
        CHECK(std::signbit(got) == (sign < 0));
    }
}

TEST_CASE("bfloat16_to_float is the upper half of the float32 pattern") {
    CHECK(attn::bfloat16_to_float(0x3F80) == 1.0f);
    CHECK(attn::bfloat16_to_float(0xC040) == -3.0f);
    CHECK(attn::bfloat16_to_float(0x0001) == std::ldexp(1.0f, -133));  // the smallest subnormal
    CHECK(std::isinf(attn::bfloat16_to_float(0x7F80)));
}

TEST_CASE("safetensors: entries are read with their dtype, shape and offsets, metadata kept") {
    const std::string h = R"({"__metadata__": {"format": "pt"}, "b": {"dtype": "F16", "shape": [2], "data_offsets": [8, 12]},)"
                          R"( "a": {"dtype": "F32", "shape": [1, 2], "data_offsets": [0, 8]}})";
    std::string data(12, '\0');
    const float a[2] = {1.5f, -2.0f};
    std::memcpy(&data[0], a, 8);
    data[8] = 0x00, data[9] = 0x3C, data[10] = 0x01, data[11] = 0x00;  // 1.0, 2^-24
    const auto f = attn::SafetensorsFile::from_bytes(st_file(h, data), "m.safetensors");
    REQUIRE(f.header().tensors.size() == 2);
    CHECK(f.header().metadata.at("format") == "pt");
    const auto* b = f.find("b");
    REQUIRE(b != nullptr);
    float out[2];
    f.read_float(*b, out);
    CHECK(out[0] == 1.0f);
    CHECK(out[1] == std::ldexp(1.0f, -24));
    f.read_float(*f.find("a"), out);
    CHECK(out[1] == -2.0f);
}

TEST_CASE("safetensors: every malformed header is a one-line error naming the problem") {
    const std::string one = R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
    CHECK(st_error("").find("empty") != std::string::npos);
    CHECK(st_error(st_file(one, std::string(8, '\0')).substr(0, 20)).find("runs past the end") != std::string::npos);
    CHECK(st_error(st_file("[1, 2", "")).find("is invalid JSON at byte offset") != std::string::npos);
    CHECK(st_error(st_file(one, std::string(4, '\0'))).find("run past the end") != std::string::npos);
    CHECK(st_error(st_file(one, std::string(12, '\0'))).find("bytes after the last tensor") != std::string::npos);
    CHECK(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", std::string(8, '\0')))
              .find("needs 12 bytes") != std::string::npos);
    CHECK(st_error(st_file(R"({"a": {"dtype": "Q4", "shape": [2], "data_offsets": [0, 8]}})", std::string(8, '\0')))
              .find("unknown dtype") != std::string::npos);
    CHECK(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, )"
                           R"("b": {"dtype": "F32", "shape": [1], "data_offsets": [2, 6]}})",
                           std::string(6, '\0')))
              .find("overlaps") != std::string::npos);
    CHECK(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", std::string(8, '\0')))
              .find("gap") != std::string::npos);
    CHECK(st_error(st_file(R"({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", std::string(4, '\0')))
              .find("not a whole number") != std::string::npos);
}

TEST_CASE("safetensors: inf, NaN and unsupported dtypes are refused when read, naming the tensor") {
    const auto f = attn::SafetensorsFile::from_bytes(
        st_file(R"({"h": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}, "i": {"dtype": "I64", "shape": [1], "data_offsets": [2, 10]}})",
                std::string("\x00\x7e", 2) + std::string(8, '\0')),
        "m.safetensors");
    float out[1];
    try {
        f.read_float(*f.find("h"), out);
        FAIL("NaN accepted");
    } catch (const attn::Error& e) {
        CHECK(std::string(e.what()) == "m.safetensors: tensor 'h' holds NaN at element 0");
    }
    try {
        f.read_float(*f.find("i"), out);
        FAIL("I64 accepted");
    } catch (const attn::Error& e) {
        CHECK(std::string(e.what()).find("tensor 'i' is I64") != std::string::npos);
    }
}

// all_finite reads 16 values an iteration, then the rest one by one: an inf or NaN (of either sign, any
// payload) in every place of a vector's body and of the tail is found, and the largest finite values pass.
TEST_CASE("safetensors: the finite check finds an inf or NaN at every position of 1 to 40 values") {
    const float specials[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN()};
    for (std::size_t n = 1; n <= 40; ++n) {
        std::vector<float> v(n, std::numeric_limits<float>::max());
        for (std::size_t i = 0; i < n; i += 2) v[i] = -std::numeric_limits<float>::max();
        v[n / 2] = std::numeric_limits<float>::denorm_min();
        CHECK(attn::all_finite(v.data(), n));
        for (std::size_t at = 0; at < n; ++at)
            for (float x : specials) {
                std::vector<float> w = v;
                w[at] = x;
                INFO("n " << n << ", at " << at << ", value " << x);
                CHECK_FALSE(attn::all_finite(w.data(), n));
            }
    }
    std::uint32_t nan_payload = 0x7F800001u;  // a signalling NaN's pattern
    float s;
    std::memcpy(&s, &nan_payload, 4);
    std::vector<float> w(33, 1.0f);
    w[17] = s;
    CHECK_FALSE(attn::all_finite(w.data(), w.size()));
    CHECK(attn::all_finite(w.data(), 17));
}

TEST_CASE("gpt2 byte table: 256 distinct characters, printable bytes map to themselves, space to U+0120") {
    const auto& s = attn::gpt2_byte_symbols();
    CHECK(std::set<std::string>(s.begin(), s.end()).size() == 256);
    CHECK(s['A'] == "A");
    CHECK(s[' '] == "\xC4\xA0");     // Ġ
    CHECK(s[0] == "\xC4\x80");       // U+0100
    CHECK(s['\n'] == "\xC4\x8A");    // Ċ
    CHECK(s[0xAD] == "\xC5\x83");    // the soft hyphen is the 68th remapped byte: U+0143
}

namespace {
// A vocabulary of the 256 byte symbols (ids 0..255 in byte order) plus merges "Ġ c", "Ġc a", "Ġca t".
attn::BpeTokenizer small_tokenizer() {
    const auto& s = attn::gpt2_byte_symbols();
    std::string vocab = "{";
    for (int b = 0; b < 256; ++b) {
        std::string esc;
        for (char ch : s[static_cast<std::size_t>(b)]) {
            if (ch == '"' || ch == '\\') esc += '\\';
            esc += ch;
        }
        vocab += "\"" + esc + "\": " + std::to_string(b) + ", ";
    }
    vocab += "\"\xC4\xA0" "c\": 256, \"\xC4\xA0" "ca\": 257, \"\xC4\xA0" "cat\": 258, \"<|endoftext|>\": 259}";
    const std::string merges = "#version: 0.2\n\xC4\xA0 c\n\xC4\xA0" "c a\n\xC4\xA0" "ca t\n";
    return attn::BpeTokenizer::from_vocab_merges(vocab, merges, "vocab.json", "merges.txt");
}
}  // namespace

TEST_CASE("gpt2 BPE: a long word merges as the rescan does, one too long for max_tokens is not encoded") {
    const auto tok = small_tokenizer();
    using V = std::vector<std::int64_t>;
    // 2,000 " cat"s run together are one pre-tokenised word: " cat" then "cat" × 1,999 (no merge starts
    // without the space): a heap of merges and a rescan per merge agree on every id
    std::string word = " cat";
    for (int i = 1; i < 2000; ++i) word += "cat";
    const V ids = tok.encode(word);
    REQUIRE(ids.size() == 1 + 3 * 1999);
    CHECK(ids[0] == 258);
    for (std::size_t i = 1; i < ids.size(); ++i) CHECK(ids[i] == V{'c', 'a', 't'}[(i - 1) % 3]);
    // 50 MB of one letter with room for 1,024 ids: its length alone proves it needs more (the longest
    // merge makes 4 bytes), so it is not encoded, and the ids say "more than 1,024"
    const V over = tok.encode(std::string(50u << 20, 'x'), 1024);
    REQUIRE(over.size() == 1025);
    CHECK(over.back() == -1);
    // a word that fits is encoded exactly up to the limit
    CHECK(tok.encode("a cat", 1) == V{'a', 258});
}

TEST_CASE("gpt2 BPE: merges by rank, the special token, labels with a visible leading space") {
    const auto tok = small_tokenizer();
    using V = std::vector<std::int64_t>;
    CHECK(tok.encode("a cat") == V{'a', 258});
    CHECK(tok.encode(" cats") == V{258, 's'});
    CHECK(tok.encode("cat") == V{'c', 'a', 't'});  // no merge starts without the space
    CHECK(tok.encode("a<|endoftext|> cat") == V{'a', 259, 258});
    CHECK(tok.encode("x  cat") == V{'x', ' ', 258});  // \s+(?!\S) leaves the last space to the word
    CHECK(tok.label(258) == "\xC2\xB7" "cat");
    CHECK(tok.label('\n') == "\xE2\x86\xB5");
    CHECK(tok.label(0xE4) == "\xEF\xBF\xBD");  // a lone lead byte
    CHECK(tok.text(258) == " cat");
}

TEST_CASE("gpt2 tokeniser files: garbage is a one-line error naming the file") {
    auto err = [](const std::string& v, const std::string& m) -> std::string {
        try {
            attn::BpeTokenizer::from_vocab_merges(v, m, "vocab.json", "merges.txt");
        } catch (const attn::Error& e) {
            CHECK(e.exit_code() == 1);
            return e.what();
        }
        return "";
    };
    CHECK(err("not json", "").rfind("vocab.json: invalid JSON at byte offset ", 0) == 0);
    CHECK(err("{\"a\": 0}", "").find("no token for byte 0") != std::string::npos);
    CHECK(err("[1]", "").find("not a JSON object") != std::string::npos);
}

TEST_CASE("gpt2 vocab.json is read without a JSON tree: each malformed entry refused by name, a repeated token takes its last id") {
    auto err = [](const std::string& v) -> std::string {
        try {
            attn::BpeTokenizer::from_vocab_merges(v, "#version: 0.2\n", "vocab.json", "merges.txt");
        } catch (const attn::Error& e) {
            const std::string w = e.what();
            return w.substr(0, w.find(" (hint: "));
        }
        return "loaded";
    };
    for (const char* top : {"[1]", "7", "\"a\"", "null", "[{\"a\": 1}]"})
        CHECK(err(top) == "vocab.json: the vocabulary is not a JSON object of token -> id");
    for (const char* id : {"1.0", "-1", "16777216", "18446744073709551615", "\"1\"", "null", "true", "[1]", "{\"b\": 1}", "1e3"})
        CHECK(err(std::string("{\"b\": 2, \"a\": ") + id + "}") == "vocab.json: the id of token 'a' is not a whole number below 2^24");
    CHECK(err("{\"\": 1}") == "vocab.json: an empty token");
    CHECK(err("{}") == "vocab.json: the vocabulary is empty");
    CHECK(err("{\"a\": 1e400}") == "vocab.json: a number in the JSON is beyond the range of a double");
    // a syntax error as the tree's parser words it (parse_tokenizer_file, which other tokeniser files use)
    auto tree_err = [](const std::string& v) -> std::string {
        try {
            attn::parse_tokenizer_file(v, "vocab.json");
        } catch (const attn::Error& e) {
            const std::string w = e.what();
            return w.substr(0, w.find(" (hint: "));
        }
        return "parsed";
    };
    for (const char* broken : {"{\"a\": 1,}", "{\"a\": 1", "{\"a\" 1}", "{\"a\": 01}", "{\"a\": 1} x", "", "{\"a\xFF\": 1}", "{'a': 1}",
                               "{\"zzzf\": 1.5, \"b\": 2", "[1, 2", "42 garbage", "{\"a\": -1} x"}) {
        CAPTURE(broken);
        CHECK(err(broken).rfind("vocab.json: invalid JSON at byte offset ", 0) == 0);
        CHECK(err(broken) == tree_err(broken));
    }
    CHECK(err("\xEF\xBB\xBF{\"a\": 1}") == "vocab.json: starts with a UTF-8 byte order mark, which Python's json and Hugging Face refuse");
    // as the tree's reader: a number beyond a double before any bad id, nesting past 8 where it is met, the
    // bad token that sorts first, a bad id overwritten by a repeated token's good one forgotten
    CHECK(err("{\"a1\": 1.5, \"a2\": 1e400}") == "vocab.json: a number in the JSON is beyond the range of a double");
    CHECK(err("{\"a\": [[[[[[[1]]]]]]]}") == "vocab.json: the id of token 'a' is not a whole number below 2^24");  // 8 containers
    CHECK(err("{\"a\": [[[[[[[[1]]]]]]]]}") == "vocab.json: nests deeper than a tokeniser file does");             // a value in 9
    CHECK(err("[[[[[[[[[]]]]]]]]]") == "vocab.json: the vocabulary is not a JSON object of token -> id");
    CHECK(err("[[[[[[[[[[]]]]]]]]]]") == "vocab.json: nests deeper than a tokeniser file does");
    CHECK(err("{\"" + std::string(2000, 'x') + "\": 5, \"\": 1}") == "vocab.json: an empty token");
    CHECK(err("{\"b\": 1.5, \"a\": -1}") == "vocab.json: the id of token 'a' is not a whole number below 2^24");
    CHECK(err("{\"a\": 1.5, \"b\": 2, \"a\": 1}").find("no token for byte 0") != std::string::npos);  // past the entries
    // the 256 byte symbols, then "Ġc" first as 300, again as 256: the last id holds, as in a JSON tree
    const auto& s = attn::gpt2_byte_symbols();
    std::string vocab = "{\"\xC4\xA0" "c\": 300";
    for (int b = 0; b < 256; ++b) {
        std::string esc;
        for (char ch : s[static_cast<std::size_t>(b)]) esc += (ch == '"' || ch == '\\') ? std::string("\\") + ch : std::string(1, ch);
        vocab += ", \"" + esc + "\": " + std::to_string(b);
    }
    vocab += ", \"\xC4\xA0" "c\": 256}";
    const auto tok = attn::BpeTokenizer::from_vocab_merges(vocab, "#version: 0.2\n\xC4\xA0 c\n", "vocab.json", "merges.txt");
    CHECK(tok.encode(" c") == std::vector<std::int64_t>{256});
    CHECK(tok.encode("\"\\") == std::vector<std::int64_t>{'"', '\\'});
}

TEST_CASE("attention rollout equals Ã_l·…·Ã_0 with Ã = 0.5·mean + 0.5·I, rows renormalised (plain loops)") {
    const std::size_t T = 4;
    std::vector<attn::Mat> means;
    for (int l = 0; l < 3; ++l) {
        attn::Mat a = attn::Mat::from_shape({T, T});
        for (std::size_t i = 0; i < T; ++i) {
            float s = 0;
            for (std::size_t j = 0; j < T; ++j) s += (a(i, j) = j <= i ? float(1 + (i * 7 + j * 3 + l) % 5) : 0.0f);
            for (std::size_t j = 0; j < T; ++j) a(i, j) /= s;
        }
        means.push_back(a);
    }
    const auto r = attn::attention_rollout(means);
    // plain: R = I; for each layer R = Ã · R in double
    std::vector<double> R(T * T, 0.0), A(T * T), N(T * T);
    for (std::size_t i = 0; i < T; ++i) R[i * T + i] = 1.0;
    for (std::size_t l = 0; l < 3; ++l) {
        for (std::size_t i = 0; i < T; ++i) {
            double s = 0;
            for (std::size_t j = 0; j < T; ++j) s += (A[i * T + j] = 0.5 * means[l](i, j) + (i == j ? 0.5 : 0.0));
            for (std::size_t j = 0; j < T; ++j) A[i * T + j] /= s;
        }
        for (std::size_t i = 0; i < T; ++i)
            for (std::size_t j = 0; j < T; ++j) {
                double s = 0;
                for (std::size_t k = 0; k < T; ++k) s += A[i * T + k] * R[k * T + j];
                N[i * T + j] = s;
            }
        R = N;
        for (std::size_t i = 0; i < T; ++i) {
            double row = 0;
            for (std::size_t j = 0; j < T; ++j) {
                CHECK(std::fabs(r[l](i, j) - R[i * T + j]) < 1e-6);
                row += r[l](i, j);
            }
            CHECK(std::fabs(row - 1.0) < 1e-5);  // rollout rows stay distributions
        }
    }
}

TEST_CASE("the mean over heads is the plain average of their weights") {
    std::vector<attn::HeadTrace> heads(3);
    for (std::size_t h = 0; h < 3; ++h) {
        heads[h].weights = attn::Mat::from_shape({2, 2});
        for (std::size_t k = 0; k < 4; ++k) heads[h].weights.data()[k] = float(h * 4 + k);
    }
    const auto m = attn::head_mean(heads);
    for (std::size_t k = 0; k < 4; ++k) CHECK(m.data()[k] == doctest::Approx((k + (4 + k) + (8 + k)) / 3.0));
}

TEST_CASE("gpt2 config: model_type, n_head dividing n_embd, and the numbers are checked") {
    auto err = [](const std::string& text) -> std::string {
        try {
            attn::parse_model_config(text, "config.json");
        } catch (const attn::Error& e) {
            return e.what();
        }
        return "";
    };
    const std::string ok = R"("n_layer": 2, "n_head": 2, "n_embd": 8, "n_positions": 16, "vocab_size": 300)";
    CHECK(err("{\"model_type\": \"gpt2\", " + ok + "}") == "");
    CHECK(err("{\"model_type\": \"mbart\", " + ok + "}") == "config.json: model_type 'mbart' is not supported");
    CHECK(err(R"({"model_type": "gpt2", "n_layer": 2, "n_head": 3, "n_embd": 8, "n_positions": 16, "vocab_size": 300})") ==
          "config.json: n_head 3 does not divide n_embd 8");
    CHECK(err(R"({"model_type": "gpt2", "n_layer": 2, "n_head": 2, "n_embd": 8, "vocab_size": 300})") ==
          "config.json: \"n_positions\" is missing");
}
