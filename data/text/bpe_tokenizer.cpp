#include "data/text/bpe_tokenizer.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <queue>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/text/tokenizer_json.h"
#include "data/base/json_strict.h"
#include "data/base/strings.h"
#include "data/base/files.h"
#include "data/text/normalizer.h"
#include "data/text/pre_tokenizer.h"
#include "data/text/tokenize.h"
#include "data/text/vocab_json.h"
#include "data/base/utf8.h"

namespace attn {

using tokenizer_json::kMaxId;
using tokenizer_json::replace_all;
using tokenizer_json::str;
using tokenizer_json::yes;
namespace {

constexpr const char* kEndOfText = "<|endoftext|>";

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

[[noreturn]] void bad_file(const std::string& name, const std::string& what) { tokenizer_file_error(name, what); }

// One merge "a b": two non-empty symbols separated by one space.
void add_merge(std::unordered_map<std::string, std::size_t>& ranks, const std::string& a, const std::string& b,
               const std::string& name, std::size_t line) {
    if (a.empty() || b.empty() || a.find(' ') != std::string::npos || b.find(' ') != std::string::npos)
        bad_file(name, "merge " + std::to_string(line) + " is not two symbols separated by one space");
    ranks.emplace(a + " " + b, ranks.size());
}

// The bytes of a "<0xNN>" token, or -1.
int byte_token(const std::string& tok) {
    if (tok.size() != 6 || tok.compare(0, 3, "<0x") != 0 || tok[5] != '>') return -1;
    auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
    const int hi = hex(tok[3]), lo = hex(tok[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

std::string byte_token_name(unsigned char b) {
    static const char* digits = "0123456789ABCDEF";
    return std::string("<0x") + digits[b >> 4] + digits[b & 15] + ">";
}

}  // namespace

nlohmann::json parse_tokenizer_file(const std::string& text, const std::string& name) {
    refuse_json_bom(text, name);
    try {
        return nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (depth > 8) bad_file(name, "nests deeper than a tokeniser file does");
            return true;
        });
    } catch (const nlohmann::json::parse_error& e) {
        bad_file(name, json_syntax_problem(e));  // the parser's own text quotes the file raw, cut anywhere
    } catch (const nlohmann::json::exception&) {
        bad_file(name, "a number in the JSON is beyond the range of a double");
    }
}

std::size_t whitespace_before(std::string_view text, std::size_t from, std::size_t at) {
    while (at > from) {
        std::size_t b = at - 1;
        while (b > from && (static_cast<unsigned char>(text[b]) & 0xC0) == 0x80) --b;
        char32_t c = 0;
        if (utf8_decode(text, b, c) == 0 || !rust_is_whitespace(c)) break;
        at = b;
    }
    return at;
}

std::size_t whitespace_after(std::string_view text, std::size_t at) {
    while (at < text.size()) {
        char32_t c = 0;
        const std::size_t n = utf8_decode(text, at, c);
        if (n == 0 || !rust_is_whitespace(c)) break;
        at += n;
    }
    return at;
}

std::string utf8_replace_invalid(const std::string& raw) {
    std::string out;
    const auto* s = reinterpret_cast<const unsigned char*>(raw.data());
    const std::size_t n = raw.size();
    for (std::size_t i = 0; i < n;) {
        char32_t c = 0;
        const std::size_t len = utf8_decode(raw, i, c);
        if (len > 0) {
            out.append(raw, i, len);
            i += len;
            continue;
        }
        // Not a character: its maximal subpart (a lead byte and the continuation bytes that could still
        // complete it, with the Standard's ranges after E0, ED, F0, F4) is one U+FFFD.
        const unsigned char b = s[i];
        std::size_t need = b >= 0xC2 && b <= 0xDF ? 1 : b >= 0xE0 && b <= 0xEF ? 2 : b >= 0xF0 && b <= 0xF4 ? 3 : 0;
        std::size_t j = i + 1;
        for (std::size_t k = 0; k < need && j < n; ++k, ++j) {
            unsigned char lo = 0x80, hi = 0xBF;
            if (k == 0 && b == 0xE0) lo = 0xA0;
            if (k == 0 && b == 0xED) hi = 0x9F;
            if (k == 0 && b == 0xF0) lo = 0x90;
            if (k == 0 && b == 0xF4) hi = 0x8F;
            if (s[j] < lo || s[j] > hi) break;
        }
        out += "\xEF\xBF\xBD";
        i = j;
    }
    return out;
}

const std::vector<std::string>& gpt2_byte_symbols() {
    static const std::vector<std::string> table = [] {
        std::vector<std::string> t(256);
        char32_t next = 0x100;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            t[static_cast<std::size_t>(b)] = utf8_encode(printable ? static_cast<char32_t>(b) : next++);
        }
        return t;
    }();
    return table;
}

BpeTokenizer BpeTokenizer::from_vocab_merges(const std::string& vocab_json, const std::string& merges_txt,
                                             const std::string& vocab_name, const std::string& merges_name) {
    BpeTokenizer t;
    t.vocab_ = read_vocab_json(vocab_json, vocab_name);
    // merges.txt: "#version: 0.2" (optional, as Hugging Face reads it), then one "a b" per line.
    std::size_t line = 0;
    t.ranks_.reserve(static_cast<std::size_t>(std::count(merges_txt.begin(), merges_txt.end(), '\n')) + 1);
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
    t.pre_ = PreTokenizer::gpt2(vocab_name);
    if (t.vocab_.count(kEndOfText)) t.added_.push_back({kEndOfText, t.vocab_.at(kEndOfText)});
    t.finish(vocab_name, merges_name);
    return t;
}

void BpeTokenizer::add_tokens(const std::vector<std::pair<std::string, std::int64_t>>& tokens, const std::string& name) {
    for (const auto& token : tokens) {
        const std::string& content = token.first;  // a plain reference: C++17 lambdas cannot capture a binding
        const std::int64_t id = token.second;
        if (content.empty() || id < 0 || id >= kMaxId) bad_file(name, "an added token without content or with an id out of range");
        if (const auto problem = token_length_problem(content)) bad_file(name, "an added token " + *problem);
        if (static_cast<std::size_t>(id) >= id_to_token_.size()) id_to_token_.resize(static_cast<std::size_t>(id) + 1);
        id_to_token_[static_cast<std::size_t>(id)] = content;
        vocab_[content] = id;
        added_by_id_[id] = content;
        added_.erase(std::remove_if(added_.begin(), added_.end(), [&](const auto& a) { return a.first == content; }), added_.end());
        added_.push_back({content, id});
    }
    std::stable_sort(added_.begin(), added_.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
    if (vocab_.count(kEndOfText)) eot_ = vocab_.at(kEndOfText);
}

BpeTokenizer BpeTokenizer::from_json(const nlohmann::json& j, const std::string& name) {
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object()) bad_file(name, "no \"model\" object");
    const auto& m = j["model"];
    const std::string type = m.contains("type") && m["type"].is_string() ? m["type"].get<std::string>() : "";
    if (type != "BPE") tokenizer_unsupported(name, "the model type is '" + (type.empty() ? std::string("(none)") : excerpt(type, 32)) + "'");
    BpeTokenizer t;
    // 1. the model's options
    if (m.contains("dropout") && !m["dropout"].is_null() && !(m["dropout"].is_number() && m["dropout"].get<double>() == 0.0))
        tokenizer_unsupported(name, "BPE dropout");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
        if (!str(m, key).empty()) tokenizer_unsupported(name, std::string("the BPE option ") + key);
    t.ignore_merges_ = yes(m, "ignore_merges", false);
    t.byte_fallback_ = yes(m, "byte_fallback", false);
    // 2. the normaliser and the pre-tokeniser (data/pre_tokenizer)
    t.pre_ = PreTokenizer::from_tokenizer_json(j, name);
    // 3. vocabulary and merges
    if (!m.contains("vocab") || !m.contains("merges") || !m["merges"].is_array()) bad_file(name, "no vocab and merges in \"model\"");
    t.vocab_ = vocab_from_json(m["vocab"], name);
    t.ranks_.reserve(m["merges"].size());
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
    const std::string unk = str(m, "unk_token");
    if (!unk.empty()) {
        if (!t.vocab_.count(unk)) bad_file(name, "unk_token '" + excerpt(unk, 40) + "' is not in the vocabulary");
        t.unk_ = t.vocab_.at(unk);
    }
    // 4. added tokens, matched first
    std::vector<std::pair<std::string, std::int64_t>> added;
    if (j.contains("added_tokens") && j["added_tokens"].is_array())
        for (const auto& a : j["added_tokens"]) {
            if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() || str(a, "content").empty())
                bad_file(name, "an added token without content or id");
            if (yes(a, "single_word", false))
                tokenizer_unsupported(name, "added token '" + excerpt(str(a, "content"), 40) + "' with single_word");
            added.emplace_back(str(a, "content"), a["id"].get<std::int64_t>());
            // lstrip / rstrip: the token takes the whitespace before / after it
            if (yes(a, "lstrip", false) || yes(a, "rstrip", false)) t.strip_[str(a, "content")] = {yes(a, "lstrip", false), yes(a, "rstrip", false)};
        }
    for (const auto& [content, id] : added) t.vocab_[content] = id;
    t.finish(name, name);
    t.add_tokens(added, name);
    return t;
}

// Checks the vocabulary and merges against each other and builds the tables encode() reads.
void BpeTokenizer::finish(const std::string& vocab_name, const std::string& merges_name) {
    // 1. every byte has its symbol (byte-level BPE can then encode any text), or its <0xNN> token
    const auto& sym = gpt2_byte_symbols();
    if (pre_.byte_level) {
        for (std::size_t b = 0; b < 256; ++b)
            if (!vocab_.count(sym[b]))
                bad_file(vocab_name, "no token for byte " + std::to_string(b) + " ('" + sym[b] + "'): not a byte-level BPE vocabulary");
    } else if (byte_fallback_) {
        for (unsigned b = 0; b < 256; ++b)
            if (!vocab_.count(byte_token_name(static_cast<unsigned char>(b))))
                bad_file(vocab_name, "byte_fallback is true but there is no token " + byte_token_name(static_cast<unsigned char>(b)));
    } else if (unk_ < 0) {
        tokenizer_unsupported(vocab_name, "a sentencepiece-style tokeniser without byte_fallback or unk_token");
    }
    // 2. every merge's result and parts are tokens, as Hugging Face's BPE builder requires (a part that is
    // not a token would be merged from bytes the byte fallback spells otherwise); the lowest such merge named
    std::string why, a, b, ab;  // the keys looked up, their buffers reused (three allocations a merge took 4% of a
                                // 50,000-merge tokenizer.json's run)
    std::size_t worst = ranks_.size();
    for (const auto& [pair, rank] : ranks_) {
        if (rank >= worst) continue;
        const auto sp = pair.find(' ');
        a.assign(pair, 0, sp), b.assign(pair, sp + 1, std::string::npos);
        ab.assign(a).append(b);
        std::string what;
        if (!vocab_.count(ab)) what = "makes a token the vocabulary lacks";
        else if (!vocab_.count(a) || !vocab_.count(b)) what = "joins '" + excerpt(vocab_.count(a) ? b : a, 60) + "', a token the vocabulary lacks";
        else continue;
        worst = rank;
        why = "merge " + std::to_string(rank + 1) + " ('" + excerpt(pair, 60) + "') " + what;
    }
    if (!why.empty()) bad_file(merges_name, why);
    // the most text bytes one token can stand for (byte-level: a byte is one character of a symbol;
    // sentencepiece: the token's own bytes)
    max_token_bytes_ = 1;
    auto count = [&](const std::string& s) {
        std::size_t chars = 0;
        for (unsigned char c : bytes_of(s)) chars += pre_.byte_level ? (c & 0xC0) != 0x80 && c != ' ' : c != ' ';
        return chars;
    };
    for (const auto& [pair, rank] : ranks_) max_token_bytes_ = std::max(max_token_bytes_, count(pair));
    if (ignore_merges_ || !pre_.byte_level)
        for (const auto& [tok, id] : vocab_) max_token_bytes_ = std::max(max_token_bytes_, count(tok));
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
}

// Step 4 and 5 on one pre-tokenised piece: merge the adjacent pair of lowest rank, every occurrence
// left to right, until no pair has a rank. A heap of (rank, position) does this in O(n log n) for a
// piece of n symbols (a rescan for each merge is O(n^2): 24 s on a 160,000-letter word); for merges
// whose results rank after their parts, as in every trained vocabulary, the order is the same as the
// rescan's.
void BpeTokenizer::bpe(const std::string& piece, std::vector<std::int64_t>& out) const {
    const auto& sym = gpt2_byte_symbols();
    // the symbols: a byte's character (byte-level) or a character (sentencepiece)
    std::vector<std::string> word;
    if (pre_.byte_level)
        for (unsigned char b : bytes_of(piece)) word.push_back(sym[b]);
    else
        word = characters(piece);
    if (ignore_merges_) {  // a piece that is a token is that token
        std::string whole;
        for (const auto& w : word) whole += w;
        if (const auto it = vocab_.find(whole); it != vocab_.end()) {
            out.push_back(it->second);
            return;
        }
    }
    const std::size_t n = word.size(), none = SIZE_MAX;
    std::vector<std::size_t> next(n), prev(n);         // the live symbols as a list; a merged-away one is left empty
    for (std::size_t i = 0; i < n; ++i) next[i] = i + 1 < n ? i + 1 : none, prev[i] = i > 0 ? i - 1 : none;
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
    for (std::size_t i = 0; i < n && n > 0; i = next[i]) {
        const auto it = vocab_.find(word[i]);
        if (it != vocab_.end()) out.push_back(it->second);  // byte-level: finish() checked every merge's result
        else if (byte_fallback_)
            for (unsigned char b : bytes_of(word[i])) out.push_back(vocab_.at(byte_token_name(b)));
        else out.push_back(unk_);
        if (next[i] == none) break;
    }
}

std::vector<std::int64_t> BpeTokenizer::encode(std::string_view text, std::size_t max_tokens) const {
    if (const auto problem = text_problem(text))
        usage_error("the text " + *problem, problem->find("UTF-8") != std::string::npos ? "save the text as UTF-8"
                                                                                        : "remove it; tabs and newlines are fine");
    std::vector<std::int64_t> ids;
    std::vector<std::string> ps;
    auto encode_part = [&](std::string_view part, bool first) {
        ps.clear();
        pre_.pieces(part, first, ps);
        for (const std::string& p : ps) {
            if (ids.size() > max_tokens) return;
            const std::size_t left = max_tokens + 1 - ids.size();
            if (max_tokens != std::numeric_limits<std::size_t>::max() && p.size() > left * max_token_bytes_) {
                ids.resize(max_tokens + 1, -1);  // this word alone gives more ids than are left
                return;
            }
            bpe(p, ids);
        }
    };
    // 1. added tokens first (the longest at the earliest position); the parts between are encoded
    for (std::size_t at = 0; at <= text.size() && ids.size() <= max_tokens;) {
        std::size_t e = std::string_view::npos;
        const std::pair<std::string, std::int64_t>* hit = nullptr;
        for (const auto& a : added_) {
            const std::size_t f = text.find(a.first, at);
            if (f < e) e = f, hit = &a;  // added_ is longest first: a tie keeps the longer
        }
        if (e == std::string_view::npos) {
            encode_part(text.substr(at), at == 0);
            break;
        }
        std::size_t stop = e + hit->first.size();
        if (const auto s = strip_.find(hit->first); s != strip_.end()) {  // lstrip / rstrip take the whitespace around
            if (s->second.first) e = whitespace_before(text, at, e);
            if (s->second.second) stop = whitespace_after(text, stop);
        }
        encode_part(text.substr(at, e - at), at == 0);
        ids.push_back(hit->second);
        at = stop;
    }
    if (ids.size() > max_tokens + 1 && max_tokens != std::numeric_limits<std::size_t>::max()) ids.resize(max_tokens + 1);
    return ids;
}

std::int64_t BpeTokenizer::token_id(const std::string& token) const {
    const auto it = vocab_.find(token);
    return it == vocab_.end() ? -1 : it->second;
}

std::string BpeTokenizer::decode(std::int64_t id) const {
    if (id < 0 || static_cast<std::size_t>(id) >= id_to_token_.size()) return "";
    const std::string& tok = id_to_token_[static_cast<std::size_t>(id)];
    if (id == eot_ || added_by_id_.count(id)) return tok;
    if (!pre_.byte_level) {
        if (const int b = byte_token(tok); b >= 0) return std::string(1, static_cast<char>(b));
        return replace_all(tok, kMetaspace, " ");
    }
    std::string bytes;
    const auto& inv = symbol_bytes();
    for (const auto& c : characters(tok)) {
        const auto b = inv.find(c);
        if (b == inv.end()) return tok;  // not a byte-mapped token (an added token): its text as is
        bytes += static_cast<char>(b->second);
    }
    return bytes;
}

std::string BpeTokenizer::text(std::int64_t id) const { return utf8_replace_invalid(decode(id)); }

std::string BpeTokenizer::label(std::int64_t id) const { return token_label(text(id)); }

std::string token_label(const std::string& t) {
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
