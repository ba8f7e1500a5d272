#include "data/text/unigram_tokenizer.h"

#include <algorithm>
#include <functional>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/text/tokenizer_json.h"
#include "data/base/utf8.h"
#include "data/text/bpe_tokenizer.h"
#include "data/text/normalizer.h"

namespace attn {

using tokenizer_json::kMaxId;
using tokenizer_json::replace_all;
using tokenizer_json::str;
using tokenizer_json::yes;
namespace {


// tokenizers' Replace with a regex: every non-empty match, left to right, replaced by content.
std::string regex_replace(const std::string& s, const TextRegex& re, const std::string& content) {
    std::string out;
    std::size_t copied = 0;
    for (const auto& [b, e] : regex_matches(re, s)) {
        out.append(s, copied, b - copied);
        out += content;
        copied = e;
    }
    out.append(s, copied, std::string::npos);
    return out;
}

std::string strip(std::string_view s, bool left, bool right) {
    std::size_t b = 0, e = s.size();
    if (left) b = whitespace_after(s, 0);
    if (right)
        while (e > b) {  // back over whole characters
            std::size_t k = e - 1;
            while (k > b && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
            char32_t c = 0;
            if (utf8_decode(s, k, c) == 0 || !rust_is_whitespace(c)) break;
            e = k;
        }
    return std::string(s.substr(b, e - b));
}

bool ends_with(const std::string& s, std::string_view t) { return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0; }

}  // namespace

void UnigramTokenizer::add_special(const std::string& token, std::int64_t id) {
    added_.erase(std::remove_if(added_.begin(), added_.end(), [&](const auto& a) { return a.first == token; }), added_.end());
    added_.emplace_back(token, id);
    std::stable_sort(added_.begin(), added_.end(), [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
    special_.insert(id);
}

// ---- tokenizer.json -----------------------------------------------------------------------------------

UnigramTokenizer UnigramTokenizer::from_json(const nlohmann::json& j, const std::string& name) {
    UnigramTokenizer t;
    t.form_ = Form::json;
    const nlohmann::json& m = j["model"];
    // 1. the model: vocab [[piece, score], ...], unk_id, byte_fallback
    if (yes(m, "byte_fallback", false)) tokenizer_unsupported(name, "a Unigram model with byte_fallback");
    if (!m.contains("vocab") || !m["vocab"].is_array() || m["vocab"].empty()) tokenizer_file_error(name, "a Unigram model without a \"vocab\" list");
    if (m["vocab"].size() > static_cast<std::size_t>(kMaxId)) tokenizer_file_error(name, "a Unigram vocabulary of more than 2^24 pieces");
    if (!m.contains("unk_id") || !m["unk_id"].is_number_integer()) tokenizer_unsupported(name, "a Unigram model without unk_id");
    std::vector<UnigramModel::Entry> entries;
    for (const auto& v : m["vocab"]) {
        if (!v.is_array() || v.size() != 2 || !v[0].is_string() || !v[1].is_number())
            tokenizer_file_error(name, "a Unigram vocab entry that is not [piece, score]");
        const std::string piece = v[0].get<std::string>();
        if (utf8_replace_invalid(piece) != piece) tokenizer_file_error(name, "a Unigram piece that is not UTF-8");
        t.vocab_[piece] = static_cast<std::int64_t>(entries.size());
        t.id_to_token_.push_back(piece);
        entries.push_back({piece, v[1].get<double>(), UnigramModel::Kind::normal});
    }
    t.unk_ = m["unk_id"].get<std::int64_t>();
    if (t.unk_ < 0 || t.unk_ >= static_cast<std::int64_t>(entries.size())) tokenizer_file_error(name, "the Unigram unk_id is not a piece");
    t.model_ = UnigramModel(std::move(entries), t.unk_, UnigramModel::Flavour::tokenizers);
    // 2. the normalisers
    std::function<void(const nlohmann::json&)> normaliser = [&](const nlohmann::json& n) {
        if (n.is_null()) return;
        const std::string ty = str(n, "type");
        if (ty == "Sequence" && n.contains("normalizers") && n["normalizers"].is_array()) {
            for (const auto& x : n["normalizers"]) normaliser(x);
        } else if (ty == "Precompiled") {
            std::string blob;
            if (n.contains("precompiled_charsmap") && !n["precompiled_charsmap"].is_null() &&
                (!n["precompiled_charsmap"].is_string() || !base64_decode(n["precompiled_charsmap"].get<std::string>(), blob)))
                tokenizer_file_error(name, "the Precompiled normalizer's precompiled_charsmap is not base64");
            if (!t.charsmap_.empty()) tokenizer_unsupported(name, "two Precompiled normalizers");
            t.charsmap_ = PrecompiledCharsmap::from_blob(blob, name);
            t.steps_.push_back({Step::precompiled, false, false, nullptr, "", ""});
        } else if (ty == "Strip") {
            t.steps_.push_back({Step::strip, yes(n, "strip_left", false), yes(n, "strip_right", false), nullptr, "", ""});
        } else if (ty == "Replace") {
            const auto& pat = n.contains("pattern") ? n["pattern"] : nlohmann::json();
            Step s{Step::replace, false, false, nullptr, "", str(n, "content")};
            if (pat.is_object() && pat.contains("String") && pat["String"].is_string()) {
                s.pattern = str(pat, "String");
            } else if (pat.is_object() && pat.contains("Regex") && pat["Regex"].is_string()) {
                s.regex = compile_tokenizer_regex(str(pat, "Regex"), name, "the Replace normalizer's regex");
            } else {
                tokenizer_file_error(name, "a Replace normalizer without a String or Regex pattern");
            }
            t.steps_.push_back(std::move(s));
        } else {
            tokenizer_unsupported(name, "the normalizer '" + (ty.empty() ? std::string("(none)") : excerpt(ty, 32)) + "' with Unigram");
        }
    };
    normaliser(j.contains("normalizer") ? j["normalizer"] : nlohmann::json());
    // 3. the pre-tokeniser (Metaspace), as the BPE files' (data/text/pre_tokenizer.h), without their normalisers
    nlohmann::json pj = nlohmann::json::object();
    for (const char* key : {"pre_tokenizer", "decoder"})
        if (j.contains(key)) pj[key] = j[key];
    t.pre_ = PreTokenizer::from_tokenizer_json(pj, name);
    if (t.pre_.byte_level) tokenizer_unsupported(name, "a byte-level pre_tokenizer with Unigram");
    for (const char* key : {"truncation", "padding"})
        if (j.contains(key) && !j[key].is_null()) tokenizer_unsupported(name, std::string("a tokenizer.json with ") + key);
    // 4. added tokens, matched in the raw text
    if (j.contains("added_tokens") && j["added_tokens"].is_array())
        for (const auto& a : j["added_tokens"]) {
            const std::string content = str(a, "content");
            if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() || content.empty())
                tokenizer_file_error(name, "an added token without content or id");
            const std::int64_t id = a["id"].get<std::int64_t>();
            if (id < 0 || id >= kMaxId) tokenizer_file_error(name, "an added token's id is out of range");
            for (const char* flag : {"single_word", "lstrip", "rstrip"})
                if (yes(a, flag, false)) tokenizer_unsupported(name, "added token '" + excerpt(content, 40) + "' with " + flag + " in a Unigram file");
            if (yes(a, "normalized", !yes(a, "special", false)))
                tokenizer_unsupported(name, "added token '" + excerpt(content, 40) + "' with normalized in a Unigram file");
            if (static_cast<std::size_t>(id) >= t.id_to_token_.size()) t.id_to_token_.resize(static_cast<std::size_t>(id) + 1);
            if (t.id_to_token_[static_cast<std::size_t>(id)].empty()) t.id_to_token_[static_cast<std::size_t>(id)] = content;
            if (!t.vocab_.count(content)) t.vocab_[content] = id;
            t.add_special(content, id);
            if (!yes(a, "special", false)) t.special_.erase(id);
        }
    t.eos_ = t.token_id("</s>");
    t.pad_ = t.token_id("<pad>");
    return t;
}

std::string UnigramTokenizer::normalise_json(std::string_view part) const {
    std::string s(part);
    for (const Step& st : steps_) {
        if (st.kind == Step::precompiled) s = charsmap_.normalize_graphemes(s);
        else if (st.kind == Step::strip) s = strip(s, st.left, st.right);
        else if (st.regex) s = regex_replace(s, *st.regex, st.content);
        else s = replace_all(s, st.pattern, st.content);
    }
    return s;
}

// ---- .spm ---------------------------------------------------------------------------------------------

UnigramTokenizer UnigramTokenizer::spm_base(const SentencePieceModel& m, const std::string& name) {
    UnigramTokenizer t;
    t.spm_ = m;
    t.spm_.pieces.clear();
    t.charsmap_ = PrecompiledCharsmap::from_blob(m.charsmap, name);
    std::vector<UnigramModel::Entry> entries;
    for (const auto& p : m.pieces) {
        const auto kind = p.type == SentencePieceModel::normal         ? UnigramModel::Kind::normal
                          : p.type == SentencePieceModel::user_defined ? UnigramModel::Kind::user_defined
                                                                        : UnigramModel::Kind::hidden;
        if (utf8_replace_invalid(p.piece) != p.piece) tokenizer_file_error(name, "a piece that is not UTF-8");
        if (p.type == SentencePieceModel::user_defined) t.user_defined_.push_back(p.piece);
        entries.push_back({p.piece, static_cast<double>(p.score), kind});
        t.spm_pieces_.push_back(p.piece);
    }
    std::stable_sort(t.user_defined_.begin(), t.user_defined_.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
    t.model_ = UnigramModel(std::move(entries), m.unk_id, UnigramModel::Flavour::sentencepiece);
    return t;
}

UnigramTokenizer UnigramTokenizer::from_t5_spm(const std::string& spm, std::int64_t extra_ids, const std::string& name) {
    const SentencePieceModel m = SentencePieceModel::load(spm, name);
    UnigramTokenizer t = spm_base(m, name);
    t.form_ = Form::spm;
    t.id_to_token_ = t.spm_pieces_;
    for (std::size_t i = 0; i < t.id_to_token_.size(); ++i) t.vocab_[t.id_to_token_[i]] = static_cast<std::int64_t>(i);
    t.unk_ = m.unk_id;
    if (extra_ids < 0 || extra_ids > 100000) tokenizer_file_error(name, "extra_ids is not between 0 and 100000");
    const auto n = static_cast<std::int64_t>(t.id_to_token_.size());
    for (std::int64_t k = 0; k < extra_ids; ++k) {  // T5Tokenizer: <extra_id_N> at vocab_size - 1 - N
        const std::string tok = "<extra_id_" + std::to_string(k) + ">";
        if (t.vocab_.count(tok)) tokenizer_unsupported(name, "a spiece.model that has '" + tok + "' as a piece besides extra_ids");
        t.id_to_token_.push_back("");
        t.vocab_[tok] = n + extra_ids - 1 - k;
    }
    for (std::int64_t k = 0; k < extra_ids; ++k) {
        const std::string tok = "<extra_id_" + std::to_string(k) + ">";
        t.id_to_token_[static_cast<std::size_t>(n + extra_ids - 1 - k)] = tok;
        t.add_special(tok, n + extra_ids - 1 - k);
    }
    for (const char* s : {"</s>", "<unk>", "<pad>"})  // T5Tokenizer's special tokens, never split
        if (t.vocab_.count(s)) t.add_special(s, t.vocab_.at(s));
    t.eos_ = t.token_id("</s>");
    t.pad_ = t.token_id("<pad>");
    if (t.eos_ < 0) tokenizer_file_error(name, "a T5 spiece.model without the piece '</s>'");
    return t;
}

UnigramTokenizer UnigramTokenizer::from_marian(const std::string& source_spm, const std::string& target_spm, const std::string& vocab_json,
                                               const std::string& config_json, const std::string& dir) {
    const std::string sname = dir + "/source.spm", tname = dir + "/target.spm", vname = dir + "/vocab.json", cname = dir + "/tokenizer_config.json";
    if (!config_json.empty()) {
        const nlohmann::json c = parse_tokenizer_file(config_json, cname);
        if (yes(c, "separate_vocabs", false)) tokenizer_unsupported(cname, "separate_vocabs: true (a target_vocab.json of its own)");
    }
    UnigramTokenizer t = spm_base(SentencePieceModel::load(source_spm, sname), sname);
    (void)SentencePieceModel::load(target_spm, tname);  // decoding reads vocab.json; target.spm must still be a model attn runs
    t.form_ = Form::marian;
    t.vocab_file_ = vname;
    const nlohmann::json v = parse_tokenizer_file(vocab_json, vname);
    if (!v.is_object()) tokenizer_file_error(vname, "not an object of piece -> id");
    for (const auto& [piece, id] : v.items()) {
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= kMaxId || piece.empty())
            tokenizer_file_error(vname, "the id of piece '" + excerpt(piece, 40) + "' is not a whole number below 2^24");
        const auto i = static_cast<std::size_t>(id.get<std::int64_t>());
        if (i >= t.id_to_token_.size()) t.id_to_token_.resize(i + 1);
        if (t.id_to_token_[i].empty()) t.id_to_token_[i] = piece;
        t.vocab_[piece] = id.get<std::int64_t>();
    }
    for (const char* s : {"</s>", "<unk>", "<pad>"}) {
        if (!t.vocab_.count(s)) tokenizer_file_error(vname, std::string("Marian's vocab.json has no '") + s + "'");
        t.add_special(s, t.vocab_.at(s));
    }
    t.unk_ = t.vocab_.at("<unk>");
    t.eos_ = t.vocab_.at("</s>");
    t.pad_ = t.vocab_.at("<pad>");
    return t;
}

// sentencepiece's normaliser (normalizer.cc, Normalize) on one part of the text.
std::string UnigramTokenizer::normalise_spm(std::string_view in) const {
    auto next = [&](std::string_view s) -> std::pair<std::string, std::size_t> {
        for (const std::string& u : user_defined_)  // USER_DEFINED pieces are matched whole, never normalised
            if (s.substr(0, u.size()) == u) return {u, u.size()};
        return charsmap_.prefix(s);
    };
    const std::string space = spm_.escape_whitespaces ? kMetaspace : " ";
    std::string out;
    if (spm_.remove_extra_whitespaces)
        while (!in.empty()) {  // leading spaces (after normalisation) are dropped
            const auto p = next(in);
            if (p.first != " ") break;
            in.remove_prefix(p.second);
        }
    if (in.empty()) return out;
    if (spm_.add_dummy_prefix) out += space;
    bool prev_space = spm_.remove_extra_whitespaces;
    while (!in.empty()) {
        const auto p = next(in);
        std::string_view sp = p.first;
        while (prev_space && !sp.empty() && sp.front() == ' ') sp.remove_prefix(1);
        if (!sp.empty()) {
            for (const char c : sp) {
                if (c == ' ' && spm_.escape_whitespaces) out += kMetaspace;
                else out += c;
            }
            prev_space = sp.back() == ' ';
        }
        in.remove_prefix(p.second);
        if (!spm_.remove_extra_whitespaces) prev_space = false;
    }
    if (spm_.remove_extra_whitespaces)
        while (ends_with(out, space)) out.resize(out.size() - space.size());
    return out;
}

void UnigramTokenizer::spm_pieces(std::string_view part, std::vector<std::int64_t>& out) const {
    const std::string n = normalise_spm(part);
    std::vector<UnigramModel::Token> toks;
    model_.encode(n, toks);
    for (const auto& tk : toks) {
        if (form_ == Form::spm) {
            out.push_back(tk.id);
            continue;
        }
        // Marian: the piece's string in vocab.json (a fused unknown run is its text)
        const std::string piece = tk.id == model_.unk_id() ? n.substr(tk.begin, tk.end - tk.begin) : spm_pieces_[static_cast<std::size_t>(tk.id)];
        const auto it = vocab_.find(piece);
        out.push_back(it == vocab_.end() ? unk_ : it->second);
    }
}

// ---- encoding -----------------------------------------------------------------------------------------

void UnigramTokenizer::encode_part(std::string_view part, bool first, std::vector<std::int64_t>& out) const {
    if (part.empty()) return;
    if (form_ == Form::spm) return spm_pieces(part, out);
    if (form_ == Form::marian) {
        // tokenization_marian.py: a leading >>xx<< (regex >>.+?<<, '.' not a newline) is one token, and
        // every such code is removed from the text the spm reads
        std::string rest;
        std::size_t copied = 0;
        for (std::size_t p = part.find(">>"); p != std::string_view::npos; p = part.find(">>", p)) {
            std::size_t q = part.find("<<", p + 3);
            const std::size_t nl = part.find('\n', p + 2);
            if (q == std::string_view::npos || (nl != std::string_view::npos && nl < q)) {
                ++p;
                continue;
            }
            if (p == 0) {
                const auto it = vocab_.find(std::string(part.substr(0, q + 2)));
                out.push_back(it == vocab_.end() ? unk_ : it->second);
            }
            rest.append(part.substr(copied, p - copied));
            p = copied = q + 2;
        }
        rest.append(part.substr(copied));
        return spm_pieces(rest, out);
    }
    const std::string n = normalise_json(part);
    std::vector<std::string> pieces;
    pre_.pieces(n, first, pieces);
    std::vector<UnigramModel::Token> toks;
    for (const std::string& p : pieces) {
        toks.clear();
        model_.encode(p, toks);
        for (const auto& tk : toks) {
            const auto it = vocab_.find(p.substr(tk.begin, tk.end - tk.begin));
            out.push_back(it == vocab_.end() ? unk_ : it->second);
        }
    }
}

std::vector<std::int64_t> UnigramTokenizer::encode(std::string_view text, std::size_t max_tokens) const {
    std::vector<std::int64_t> ids;
    for (std::size_t at = 0; at <= text.size() && ids.size() <= max_tokens;) {
        std::size_t e = std::string_view::npos;
        const std::pair<std::string, std::int64_t>* hit = nullptr;
        for (const auto& a : added_) {
            const std::size_t f = text.find(a.first, at);
            if (f < e) e = f, hit = &a;  // longest first: a tie keeps the longer
        }
        if (hit == nullptr) {
            encode_part(text.substr(at), at == 0, ids);
            break;
        }
        encode_part(text.substr(at, e - at), at == 0, ids);
        ids.push_back(hit->second);
        at = e + hit->first.size();
    }
    if (max_tokens != std::numeric_limits<std::size_t>::max() && ids.size() > max_tokens + 1) ids.resize(max_tokens + 1);
    return ids;
}

// ---- ids and their texts ------------------------------------------------------------------------------

std::int64_t UnigramTokenizer::token_id(const std::string& token) const {
    const auto it = vocab_.find(token);
    return it == vocab_.end() ? -1 : it->second;
}

std::string UnigramTokenizer::text(std::int64_t id) const {
    const bool has = id >= 0 && static_cast<std::size_t>(id) < id_to_token_.size() && !id_to_token_[static_cast<std::size_t>(id)].empty();
    // Marian: an id vocab.json lacks is <unk>, as MarianTokenizer's _convert_id_to_token says
    if (!has) return form_ == Form::marian ? "<unk>" : "";
    const std::string& p = id_to_token_[static_cast<std::size_t>(id)];
    return special(id) ? p : replace_all(p, kMetaspace, " ");
}

std::string UnigramTokenizer::decode_text(const std::vector<std::int64_t>& ids) const {
    std::string out;
    for (const std::int64_t id : ids) {
        if (special(id) || id == unk_) continue;
        // a Marian model's id that vocab.json lacks: MarianTokenizer would print <unk> there, attn would
        // print nothing, and a translation of such ids would come out empty
        if (form_ == Form::marian && (id < 0 || static_cast<std::size_t>(id) >= id_to_token_.size() || id_to_token_[static_cast<std::size_t>(id)].empty()))
            input_error(vocab_file_ + ": has no piece for id " + std::to_string(id) + ", which the model generated",
                        "use the vocab.json that came with the model: it names a piece for every id the model can generate");
        out += text(id);
    }
    if (!out.empty() && out[0] == ' ') out.erase(0, 1);
    return out;
}

}  // namespace attn
