#include "data/gpt2_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <sys/stat.h>

#include <algorithm>
#include <queue>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/npy.h"
#include "data/tokenize.h"
#include "data/utf8.h"

namespace attn {
namespace {

constexpr const char* kPattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr const char* kEndOfText = "<|endoftext|>";
constexpr std::int64_t kMaxId = 1 << 24;  // far above any GPT-2 vocabulary (50,257)

std::string utf8(char32_t c) {
    std::string s;
    if (c < 0x80) s += static_cast<char>(c);
    else if (c < 0x800) s += static_cast<char>(0xC0 | c >> 6), s += static_cast<char>(0x80 | (c & 0x3F));
    else if (c < 0x10000)
        s += static_cast<char>(0xE0 | c >> 12), s += static_cast<char>(0x80 | (c >> 6 & 0x3F)), s += static_cast<char>(0x80 | (c & 0x3F));
    else
        s += static_cast<char>(0xF0 | c >> 18), s += static_cast<char>(0x80 | (c >> 12 & 0x3F)),
            s += static_cast<char>(0x80 | (c >> 6 & 0x3F)), s += static_cast<char>(0x80 | (c & 0x3F));
    return s;
}

// The inverse of gpt2_byte_symbols(): a symbol's character -> its byte.
const std::unordered_map<std::string, unsigned char>& symbol_bytes() {
    static const auto table = [] {
        std::unordered_map<std::string, unsigned char> m;
        const auto& s = gpt2_byte_symbols();
        for (int b = 0; b < 256; ++b) m[s[static_cast<std::size_t>(b)]] = static_cast<unsigned char>(b);
        return m;
    }();
    return table;
}

// Splits a byte-mapped symbol string into its characters (UTF-8 sequences).
std::vector<std::string> characters(const std::string& s) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t n = 1;
        const auto b = static_cast<unsigned char>(s[i]);
        if (b >= 0xF0) n = 4;
        else if (b >= 0xE0) n = 3;
        else if (b >= 0xC0) n = 2;
        n = std::min(n, s.size() - i);
        out.push_back(s.substr(i, n));
        i += n;
    }
    return out;
}

[[noreturn]] void bad_file(const std::string& name, const std::string& what) {
    input_error(name + ": " + what, "use GPT-2's own vocab.json and merges.txt (or tokenizer.json) from the model's folder");
}

std::unordered_map<std::string, std::int64_t> parse_vocab(const nlohmann::json& j, const std::string& name) {
    if (!j.is_object()) bad_file(name, "the vocabulary is not a JSON object of token -> id");
    std::unordered_map<std::string, std::int64_t> vocab;
    for (const auto& [tok, id] : j.items()) {
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= kMaxId)
            bad_file(name, "the id of token '" + tok.substr(0, 40) + "' is not a whole number below 2^24");
        if (tok.empty()) bad_file(name, "an empty token");
        if (const auto problem = token_length_problem(tok)) bad_file(name, "a token " + *problem);
        vocab[tok] = id.get<std::int64_t>();
    }
    if (vocab.empty()) bad_file(name, "the vocabulary is empty");
    return vocab;
}

nlohmann::json parse_json(const std::string& text, const std::string& name) {
    try {
        return nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (depth > 6) bad_file(name, "nests deeper than a tokeniser file does");
            return true;
        });
    } catch (const nlohmann::json::exception& e) {
        bad_file(name, "not JSON (" + std::string(e.what()).substr(0, 100) + ")");
    }
}

// One merge "a b": two non-empty symbols separated by one space.
void add_merge(std::unordered_map<std::string, std::size_t>& ranks, const std::string& a, const std::string& b,
               const std::string& name, std::size_t line) {
    if (a.empty() || b.empty() || a.find(' ') != std::string::npos || b.find(' ') != std::string::npos)
        bad_file(name, "merge " + std::to_string(line) + " is not two symbols separated by one space");
    ranks.emplace(a + " " + b, ranks.size());
}

}  // namespace

const std::vector<std::string>& gpt2_byte_symbols() {
    static const std::vector<std::string> table = [] {
        std::vector<std::string> t(256);
        char32_t next = 0x100;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            t[static_cast<std::size_t>(b)] = utf8(printable ? static_cast<char32_t>(b) : next++);
        }
        return t;
    }();
    return table;
}

Gpt2Tokenizer Gpt2Tokenizer::load_dir(const std::string& dir) {
    auto exists = [](const std::string& p) {
        struct stat st {};
        return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    };
    const std::string vocab = dir + "/vocab.json", merges = dir + "/merges.txt", tj = dir + "/tokenizer.json";
    if (exists(vocab) && exists(merges))
        return from_vocab_merges(read_file(vocab, "vocabulary"), read_file(merges, "merges file"), vocab, merges);
    if (exists(tj)) return from_tokenizer_json(read_file(tj, "tokeniser file"), tj);
    input_error("no tokeniser in '" + dir + "' (vocab.json and merges.txt, or tokenizer.json)",
                "download the model's vocab.json and merges.txt into the folder");
}

Gpt2Tokenizer Gpt2Tokenizer::from_vocab_merges(const std::string& vocab_json, const std::string& merges_txt,
                                               const std::string& vocab_name, const std::string& merges_name) {
    Gpt2Tokenizer t;
    t.vocab_ = parse_vocab(parse_json(vocab_json, vocab_name), vocab_name);
    // merges.txt: "#version: 0.2" (optional, as Hugging Face reads it), then one "a b" per line.
    std::size_t line = 0;
    for (std::size_t at = 0; at < merges_txt.size();) {
        std::size_t nl = merges_txt.find('\n', at);
        if (nl == std::string::npos) nl = merges_txt.size();
        std::string l = merges_txt.substr(at, nl - at);
        at = nl + 1, ++line;
        if (!l.empty() && l.back() == '\r') l.pop_back();
        if (line == 1 && l.rfind("#version", 0) == 0) continue;
        if (l.empty()) {
            if (at < merges_txt.size()) bad_file(merges_name, "line " + std::to_string(line) + " is empty");
            continue;
        }
        const auto sp = l.find(' ');
        if (sp == std::string::npos) bad_file(merges_name, "line " + std::to_string(line) + " is not two symbols separated by one space");
        add_merge(t.ranks_, l.substr(0, sp), l.substr(sp + 1), merges_name, line);
    }
    t.finish(vocab_name, merges_name);
    return t;
}

Gpt2Tokenizer Gpt2Tokenizer::from_tokenizer_json(const std::string& text, const std::string& name) {
    const nlohmann::json j = parse_json(text, name);
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object()) bad_file(name, "no \"model\" object");
    const auto& m = j["model"];
    const std::string type = m.contains("type") && m["type"].is_string() ? m["type"].get<std::string>() : "";
    if (type != "BPE") bad_file(name, "the model is '" + type.substr(0, 32) + "', not GPT-2's byte-level BPE");
    if (j.contains("pre_tokenizer") && j["pre_tokenizer"].is_object()) {
        const auto& p = j["pre_tokenizer"];
        if (!p.contains("type") || p["type"] != "ByteLevel") bad_file(name, "the pre-tokeniser is not ByteLevel (GPT-2's)");
    }
    if (!m.contains("vocab") || !m.contains("merges") || !m["merges"].is_array()) bad_file(name, "no vocab and merges in \"model\"");
    Gpt2Tokenizer t;
    t.vocab_ = parse_vocab(m["vocab"], name);
    std::size_t line = 0;
    for (const auto& mg : m["merges"]) {
        ++line;
        if (mg.is_string()) {
            const std::string s = mg.get<std::string>();
            const auto sp = s.find(' ');
            if (sp == std::string::npos) bad_file(name, "merge " + std::to_string(line) + " is not two symbols separated by one space");
            add_merge(t.ranks_, s.substr(0, sp), s.substr(sp + 1), name, line);
        } else if (mg.is_array() && mg.size() == 2 && mg[0].is_string() && mg[1].is_string()) {
            add_merge(t.ranks_, mg[0].get<std::string>(), mg[1].get<std::string>(), name, line);
        } else {
            bad_file(name, "merge " + std::to_string(line) + " is neither \"a b\" nor [\"a\", \"b\"]");
        }
    }
    if (j.contains("added_tokens") && j["added_tokens"].is_array())
        for (const auto& a : j["added_tokens"])
            if (a.is_object() && a.value("content", "") == kEndOfText && a.contains("id") && a["id"].is_number_integer() &&
                a["id"].get<std::int64_t>() >= 0 && a["id"].get<std::int64_t>() < kMaxId)
                t.vocab_[kEndOfText] = a["id"].get<std::int64_t>();
    t.finish(name, name);
    return t;
}

// Checks the vocabulary and merges against each other and builds the tables encode() reads.
void Gpt2Tokenizer::finish(const std::string& vocab_name, const std::string& merges_name) {
    // 1. every byte has its symbol (byte-level BPE can then encode any text)
    const auto& sym = gpt2_byte_symbols();
    for (std::size_t b = 0; b < 256; ++b)
        if (!vocab_.count(sym[b]))
            bad_file(vocab_name, "no token for byte " + std::to_string(b) + " ('" + sym[b] + "'): not a byte-level BPE vocabulary");
    // 2. every merge's parts and result are tokens
    for (const auto& [pair, rank] : ranks_) {
        const auto sp = pair.find(' ');
        const std::string joined = pair.substr(0, sp) + pair.substr(sp + 1);
        if (!vocab_.count(joined))
            bad_file(merges_name, "merge " + std::to_string(rank + 1) + " ('" + excerpt(pair, 60) + "') makes a token the vocabulary lacks");
    }
    // the most raw bytes a merge can make into one token (a byte is one character of a symbol)
    max_token_bytes_ = 1;
    for (const auto& [pair, rank] : ranks_) {
        std::size_t chars = 0;
        for (unsigned char c : pair) chars += (c & 0xC0) != 0x80 && c != ' ';
        max_token_bytes_ = std::max(max_token_bytes_, chars);
    }
    // 3. ids: unique, and id -> token for decoding
    std::int64_t max_id = 0;
    for (const auto& kv : vocab_) max_id = std::max(max_id, kv.second);
    id_to_token_.assign(static_cast<std::size_t>(max_id) + 1, std::string());
    for (const auto& [tok, id] : vocab_) {
        if (!id_to_token_[static_cast<std::size_t>(id)].empty())
            bad_file(vocab_name, "id " + std::to_string(id) + " is given to two tokens");
        id_to_token_[static_cast<std::size_t>(id)] = tok;
    }
    const auto e = vocab_.find(kEndOfText);
    eot_ = e == vocab_.end() ? -1 : e->second;
    // 4. the pattern (PCRE2, UTF-8 with Unicode properties), compiled once
    int err = 0;
    PCRE2_SIZE off = 0;
    pcre2_code* re = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP,
                                   &err, &off, nullptr);
    if (re == nullptr) throw std::logic_error("GPT-2's pattern does not compile");
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  // faster when available; the interpreter otherwise
    regex_ = std::shared_ptr<void>(re, [](void* p) { pcre2_code_free(static_cast<pcre2_code*>(p)); });
}

// Step 4 and 5 on one pre-tokenised piece (raw bytes): merge the adjacent pair of lowest rank, every
// occurrence left to right, until no pair has a rank. A heap of (rank, position) does this in
// O(n log n) for a piece of n bytes (a rescan for each merge is O(n^2): 24 s on a 160,000-letter
// word); for merges whose results rank after their parts, as in every trained vocabulary, the order is
// the same as the rescan's.
void Gpt2Tokenizer::bpe(const std::string& piece, std::vector<std::int64_t>& out) const {
    const auto& sym = gpt2_byte_symbols();
    const std::size_t n = piece.size(), none = SIZE_MAX;
    std::vector<std::string> word(n);                  // the symbols; a merged-away one is left empty
    std::vector<std::size_t> next(n), prev(n);         // the live symbols as a list
    for (std::size_t i = 0; i < n; ++i) {
        word[i] = sym[static_cast<unsigned char>(piece[i])];
        next[i] = i + 1 < n ? i + 1 : none, prev[i] = i > 0 ? i - 1 : none;
    }
    using Entry = std::pair<std::size_t, std::size_t>;  // (rank, position of the pair's left symbol)
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    const auto rank_at = [&](std::size_t i) -> std::size_t {  // the rank of the pair starting at live i
        if (i == none || next[i] == none) return none;
        const auto r = ranks_.find(word[i] + " " + word[next[i]]);
        return r == ranks_.end() ? none : r->second;
    };
    const auto push = [&](std::size_t i) {
        if (const std::size_t r = rank_at(i); r != none) heap.push({r, i});
    };
    for (std::size_t i = 0; i + 1 < n; ++i) push(i);
    while (!heap.empty()) {
        const auto [rank, i] = heap.top();
        heap.pop();
        if (word[i].empty() || rank_at(i) != rank) continue;  // merged away, or the pair changed since
        const std::size_t j = next[i];
        word[i] += word[j];
        word[j].clear();
        next[i] = next[j];
        if (next[j] != none) prev[next[j]] = i;
        if (prev[i] != none) push(prev[i]);
        push(i);
    }
    for (std::size_t i = 0; i < n; i = next[i]) {
        out.push_back(vocab_.at(word[i]));  // finish() checked every merge's result
        if (next[i] == none) break;
    }
}

std::vector<std::int64_t> Gpt2Tokenizer::encode(std::string_view text, std::size_t max_tokens) const {
    if (const auto problem = text_problem(text))
        usage_error("the text " + *problem, problem->find("UTF-8") != std::string::npos ? "save the text as UTF-8"
                                                                                        : "remove it; tabs and newlines are fine");
    auto* re = static_cast<pcre2_code*>(regex_.get());
    std::unique_ptr<pcre2_match_data, void (*)(pcre2_match_data*)> md(pcre2_match_data_create_from_pattern(re, nullptr),
                                                                     pcre2_match_data_free);
    std::vector<std::int64_t> ids;
    auto encode_part = [&](std::string_view part) {
        const auto* subject = reinterpret_cast<PCRE2_SPTR>(part.data());
        for (PCRE2_SIZE at = 0; at < part.size() && ids.size() <= max_tokens;) {
            const int rc = pcre2_match(re, subject, part.size(), at, PCRE2_NO_UTF_CHECK, md.get(), nullptr);
            if (rc < 0) throw std::logic_error("GPT-2's pattern did not match at byte " + std::to_string(at));
            const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
            if (ov[1] <= at) throw std::logic_error("GPT-2's pattern matched nothing");
            const std::size_t length = ov[1] - ov[0], left = max_tokens + 1 - ids.size();
            if (max_tokens != std::numeric_limits<std::size_t>::max() && length > left * max_token_bytes_) {
                ids.resize(max_tokens + 1, -1);  // this word alone gives more ids than are left
                return;
            }
            bpe(std::string(part.substr(ov[0], length)), ids);
            at = ov[1];
        }
    };
    // 1. <|endoftext|> is the special token; the parts between are encoded
    for (std::size_t at = 0; at <= text.size() && ids.size() <= max_tokens;) {
        std::size_t e = eot_ >= 0 ? text.find(kEndOfText, at) : std::string_view::npos;
        encode_part(text.substr(at, e == std::string_view::npos ? std::string_view::npos : e - at));
        if (e == std::string_view::npos) break;
        ids.push_back(eot_);
        at = e + std::char_traits<char>::length(kEndOfText);
    }
    if (ids.size() > 1 && ids.size() - 1 > max_tokens) ids.resize(max_tokens + 1);
    return ids;
}

std::string Gpt2Tokenizer::decode(std::int64_t id) const {
    if (id < 0 || static_cast<std::size_t>(id) >= id_to_token_.size()) return "";
    const std::string& tok = id_to_token_[static_cast<std::size_t>(id)];
    if (id == eot_) return tok;
    std::string bytes;
    const auto& inv = symbol_bytes();
    for (const auto& c : characters(tok)) {
        const auto b = inv.find(c);
        if (b == inv.end()) return tok;  // not a byte-mapped token (an added token): its text as is
        bytes += static_cast<char>(b->second);
    }
    return bytes;
}

std::string Gpt2Tokenizer::text(std::int64_t id) const {
    const std::string raw = decode(id);
    std::string out;
    for (std::size_t i = 0; i < raw.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(raw, i, c);
        if (n == 0) {
            out += "\xEF\xBF\xBD";  // U+FFFD
            ++i;
        } else {
            out.append(raw, i, n);
            i += n;
        }
    }
    return out;
}

std::string Gpt2Tokenizer::label(std::int64_t id) const {
    const std::string t = text(id);
    std::string out;
    for (std::size_t i = 0; i < t.size();) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(t, i, c);
        if (c == ' ' && i == 0) out += "\xC2\xB7";                     // ·
        else if (c == '\n') out += "\xE2\x86\xB5";                     // ↵
        else if (c == '\t') out += "\xE2\x87\xA5";                     // ⇥
        else if (text_problem(t.substr(i, n), false)) out += "\xEF\xBF\xBD";  // a control character
        else out.append(t, i, n);
        i += n;
    }
    return out.empty() ? "\xEF\xBF\xBD" : out;
}

}  // namespace attn
