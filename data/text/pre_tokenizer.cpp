#include "data/text/pre_tokenizer.h"

#include <sys/stat.h>

#include <functional>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/text/tokenizer_json.h"
#include "data/base/utf8.h"
#include "data/text/normalizer.h"
#include "data/text/unicode.h"

namespace attn {

using tokenizer_json::replace_all;
using tokenizer_json::str;
using tokenizer_json::yes;
namespace {

constexpr const char* kPattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

CompiledRegex compile(const std::string& pattern, const std::string& name) {
    return compile_tokenizer_regex(pattern, name, "the pre-tokeniser's regex");
}

// A PCRE2 pattern matching the literal string s.
std::string literal(const std::string& s) {
    std::string o;
    for (char c : s) {
        if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) o += '\\';
        o += c;
    }
    return o;
}

}  // namespace

std::string tokenizer_file_hint(const std::string& name) {
    const std::string dir = name.find('/') == std::string::npos ? std::string() : name.substr(0, name.rfind('/') + 1);
    const std::string base = name.substr(dir.size());
    struct stat st {};
    const bool marian = ::stat((dir + "source.spm").c_str(), &st) == 0;  // its vocab.json goes with source.spm
    const bool spm = base.size() > 4 && base.compare(base.size() - 4, 4, ".spm") == 0;
    if (spm || (base == "vocab.json" && marian)) return "use the tokenizer files that came with the model: its source.spm, target.spm and vocab.json";
    if (base == "vocab.json" || base == "merges.txt" || base == "added_tokens.json")
        return "use the tokenizer files that came with the model: its vocab.json and merges.txt (or its tokenizer.json)";
    if (base == "vocab.txt" || base == "spiece.model")
        return "use the tokenizer files that came with the model: its " + base + " (or its tokenizer.json)";
    if (base == "tokenizer.json" || base == "tokenizer_config.json" || base == "special_tokens_map.json")
        return "use the " + base + " that came with the model";
    return "use the tokenizer files that came with the model";
}

void tokenizer_file_error(const std::string& name, const std::string& what) {
    input_error(name + ": " + what, tokenizer_file_hint(name));
}

void tokenizer_unsupported(const std::string& name, const std::string& what) {
    input_error(name + ": " + what + ", which attn does not run",
                "attn runs byte-level BPE (GPT-2, RoBERTa, Llama 3, Qwen2, SmolLM2), sentencepiece-style BPE with byte fallback "
                "(Llama 2, TinyLlama, Mistral), WordPiece (BERT) and SentencePiece Unigram (T5, Marian) as tokenizer.json describes them");
}

PreTokenizer PreTokenizer::gpt2(const std::string& name) {
    PreTokenizer t;
    t.splits.push_back({Split::regex, compile(kPattern, name), false});
    return t;
}

PreTokenizer PreTokenizer::from_tokenizer_json(const nlohmann::json& j, const std::string& name) {
    PreTokenizer t;
    // 1. the normaliser: none, NFC, or sentencepiece's Prepend "▁" and Replace " " -> "▁"
    bool sentencepiece = false;
    std::function<void(const nlohmann::json&)> normaliser = [&](const nlohmann::json& n) {
        if (n.is_null()) return;
        const std::string ty = str(n, "type");
        if (ty == "Sequence" && n.contains("normalizers") && n["normalizers"].is_array()) {
            for (const auto& x : n["normalizers"]) normaliser(x);
        } else if (ty == "NFC") {
            t.nfc = true;
        } else if (ty == "Prepend" && str(n, "prepend") == kMetaspace) {
            t.prepend = kMetaspace, sentencepiece = true;
        } else if (ty == "Replace" && n.contains("pattern") && str(n["pattern"], "String") == " " && str(n, "content") == kMetaspace) {
            t.metaspace = true, sentencepiece = true;
        } else {
            tokenizer_unsupported(name, "the normalizer '" + (ty.empty() ? std::string("(none)") : excerpt(ty, 32)) + "'");
        }
    };
    normaliser(j.contains("normalizer") ? j["normalizer"] : nlohmann::json());
    // 2. the pre-tokeniser: ByteLevel, Split (Isolated), Digits, Metaspace, or a Sequence of them
    bool byte_level = false, prefix_first_only = false;
    std::function<void(const nlohmann::json&)> pre = [&](const nlohmann::json& p) {
        if (p.is_null()) return;
        const std::string ty = str(p, "type");
        if (ty == "Sequence" && p.contains("pretokenizers") && p["pretokenizers"].is_array()) {
            for (const auto& x : p["pretokenizers"]) pre(x);
        } else if (ty == "ByteLevel") {
            byte_level = true;
            t.add_prefix_space = yes(p, "add_prefix_space", false);
            if (yes(p, "use_regex", true)) t.splits.push_back({Split::regex, compile(kPattern, name), false});
        } else if (ty == "Split") {
            const auto& pat = p.contains("pattern") ? p["pattern"] : nlohmann::json();
            const std::string re = pat.contains("Regex") ? str(pat, "Regex") : literal(str(pat, "String"));
            if (re.empty()) tokenizer_file_error(name, "a Split pre-tokenizer without a pattern");
            if (str(p, "behavior") != "Isolated" || yes(p, "invert", false))
                tokenizer_unsupported(name, "the Split behavior '" + excerpt(str(p, "behavior"), 32) + "'" + (yes(p, "invert", false) ? " inverted" : ""));
            t.splits.push_back({Split::regex, compile(re, name), false});
        } else if (ty == "Digits") {
            t.splits.push_back({Split::digits, nullptr, yes(p, "individual_digits", false)});
        } else if (ty == "Metaspace") {
            if (!p.contains("replacement") || str(p, "replacement") != kMetaspace) tokenizer_unsupported(name, "a Metaspace replacement other than '▁'");
            const std::string scheme = p.contains("prepend_scheme") ? str(p, "prepend_scheme") : (yes(p, "add_prefix_space", true) ? "always" : "never");
            if (scheme != "always" && scheme != "first" && scheme != "never") tokenizer_unsupported(name, "the Metaspace prepend_scheme '" + excerpt(scheme, 20) + "'");
            if (scheme != "never") t.prepend = kMetaspace;
            prefix_first_only = scheme == "first";
            t.prepend_unless_present = true;
            t.metaspace = true, sentencepiece = true;
            if (yes(p, "split", true)) t.splits.push_back({Split::metaspace, nullptr, false});
        } else {
            tokenizer_unsupported(name, "the pre_tokenizer '" + (ty.empty() ? std::string("(none)") : excerpt(ty, 32)) + "'");
        }
    };
    pre(j.contains("pre_tokenizer") ? j["pre_tokenizer"] : nlohmann::json());
    if (j.contains("decoder") && str(j["decoder"], "type") == "ByteLevel") byte_level = true;
    if (byte_level == sentencepiece)
        tokenizer_unsupported(name, byte_level ? "a tokeniser both byte-level and sentencepiece-style"
                                     : "a tokeniser neither byte-level (a ByteLevel pre_tokenizer) nor sentencepiece-style (▁)");
    t.byte_level = byte_level;
    if (prefix_first_only) t.prepend = "first";
    return t;
}

// Sentencepiece's normaliser on one part of the text (between added tokens): spaces as '▁', a '▁' before.
std::string PreTokenizer::normalise(std::string_view part, bool first) const {
    std::string s(part);
    if (metaspace) s = replace_all(s, " ", kMetaspace);
    // Prepend: always; Metaspace: unless the part starts with '▁' already (and with "first", the first part only)
    if (!prepend.empty() && !s.empty() && (prepend != "first" || first) && !(prepend_unless_present && s.compare(0, 3, kMetaspace) == 0))
        s = kMetaspace + s;
    return s;
}

// Step 2: one part of the text as the pre-tokeniser's pieces.
void PreTokenizer::pieces(std::string_view part, bool first, std::vector<std::string>& out) const {
    std::vector<std::string> cur;
    const std::string text = nfc ? utf8_nfc(part) : std::string(part);  // the normaliser first, as Hugging Face runs it
    if (byte_level) cur.push_back((add_prefix_space && !text.empty() && text[0] != ' ' ? " " : "") + text);
    else cur.push_back(normalise(text, first));
    for (const Split& sp : splits) {
        std::vector<std::string> next;
        for (const std::string& p : cur) {
            if (sp.kind == Split::regex) {  // Isolated: the matches and the gaps between them
                std::size_t gap = 0;
                for (const auto& [b, e] : regex_matches(*sp.code, p)) {
                    if (b > gap) next.push_back(p.substr(gap, b - gap));
                    next.push_back(p.substr(b, e - b));
                    gap = e;
                }
                if (gap < p.size()) next.push_back(p.substr(gap));
            } else if (sp.kind == Split::digits) {
                std::size_t start = 0;
                for (std::size_t i = 0; i <= p.size(); ++i) {
                    const bool digit = i < p.size() && p[i] >= '0' && p[i] <= '9';
                    const bool was = i > 0 && p[i - 1] >= '0' && p[i - 1] <= '9';
                    if (i > start && (i == p.size() || digit != was || (digit && sp.individual))) {
                        next.push_back(p.substr(start, i - start));
                        start = i;
                    }
                }
            } else {  // metaspace: a new piece at each '▁' (MergedWithNext)
                std::size_t start = 0;
                for (std::size_t at = p.find(kMetaspace, 1); at != std::string::npos; at = p.find(kMetaspace, at + 1)) {
                    if (at > start) next.push_back(p.substr(start, at - start));
                    start = at;
                }
                if (start < p.size()) next.push_back(p.substr(start));
            }
        }
        cur = std::move(next);
    }
    for (auto& p : cur)
        if (!p.empty()) out.push_back(std::move(p));
}

void bert_pre_tokenize(std::string_view text, std::vector<std::string>& out) {
    std::string word;
    auto flush = [&] {
        if (!word.empty()) out.push_back(std::move(word));
        word.clear();
    };
    for (std::size_t i = 0; i < text.size();) {
        char32_t c = 0;
        std::size_t n = utf8_decode(text, i, c);
        if (n == 0) n = 1;
        if (rust_is_whitespace(c)) flush();
        else if (bert_is_punctuation(c)) flush(), out.emplace_back(text.substr(i, n));
        else word.append(text.substr(i, n));
        i += n;
    }
    flush();
}

}  // namespace attn
