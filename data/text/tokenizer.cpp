#include "data/text/tokenizer.h"

#include <sys/stat.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/text/tokenizer_json.h"
#include "data/base/files.h"
#include "data/text/pre_tokenizer.h"
#include "data/text/tokenize.h"

namespace attn {

using tokenizer_json::kMaxId;
using tokenizer_json::str;
using tokenizer_json::yes;
namespace {


bool file_exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A special token of tokenizer_config.json or special_tokens_map.json: "[MASK]" or {"content": "[MASK]", ...}.
std::string token_text(const nlohmann::json& j, const char* key) {
    if (!j.is_object() || !j.contains(key)) return "";
    const auto& t = j[key];
    return t.is_string() ? t.get<std::string>() : str(t, "content");
}

void check_text(std::string_view text) {
    if (const auto problem = text_problem(text))
        usage_error("the text " + *problem, problem->find("UTF-8") != std::string::npos ? "save the text as UTF-8"
                                                                                        : "remove it; tabs and newlines are fine");
}

}  // namespace

// ---- loading, top-down --------------------------------------------------------------------------------

Tokenizer Tokenizer::load_dir(const std::string& dir) {
    const std::string tj = dir + "/tokenizer.json", vocab = dir + "/vocab.json", merges = dir + "/merges.txt";
    const std::string vocab_txt = dir + "/vocab.txt", added = dir + "/added_tokens.json", tc = dir + "/tokenizer_config.json";
    const std::string stm = dir + "/special_tokens_map.json";
    const std::string source = dir + "/source.spm", target = dir + "/target.spm", spiece = dir + "/spiece.model";
    // a tokeniser file that is a folder, a pipe or a device is named, never taken for absent (nor opened)
    for (const std::string* f : {&tj, &vocab, &merges, &vocab_txt, &added, &tc, &stm, &source, &target, &spiece})
        refuse_odd_file(*f, "put the model's own " + f->substr(dir.size() + 1) + " file there");
    const nlohmann::json config = file_exists(tc) ? parse_tokenizer_file(read_file(tc, "tokeniser config"), tc) : nlohmann::json();
    Tokenizer t;
    // 1. the tokeniser: tokenizer.json wins, as in Hugging Face's AutoTokenizer
    if (file_exists(tj)) {
        t = from_tokenizer_json(read_file(tj, "tokeniser file"), tj);
    } else if (file_exists(source)) {  // Marian (Opus-MT): source.spm's pieces looked up in vocab.json, then </s>
        for (const std::string& f : {target, vocab})
            if (!file_exists(f)) input_error("a Marian folder with source.spm but no " + f.substr(dir.size() + 1) + " ('" + dir + "')",
                                             "download the model's source.spm, target.spm and vocab.json into the folder");
        const std::string src = read_file(source, "tokeniser file"), tgt = read_file(target, "tokeniser file");
        const std::string v = read_file(vocab, "vocabulary"), c = file_exists(tc) ? read_file(tc, "tokeniser config") : std::string();
        t.uni_ = std::make_shared<UnigramTokenizer>(UnigramTokenizer::from_marian(src, tgt, v, c, dir));
        if (tgt != src)  // a translation's text is cut by target.spm (MarianTokenizer's target mode), looked up in vocab.json
            t.target_uni_ = std::make_shared<UnigramTokenizer>(UnigramTokenizer::from_marian(tgt, src, v, c, dir));
        t.post_ = PostProcessor::eos_template(t.uni_->eos_id());
    } else if (file_exists(spiece)) {  // T5Tokenizer: spiece.model's ids, <extra_id_N> after them, then </s>
        const std::string kind = str(config, "tokenizer_class");
        if (!kind.empty() && kind != "T5Tokenizer" && kind != "T5TokenizerFast")
            tokenizer_unsupported(tc, "tokenizer_class '" + excerpt(kind, 40) + "' with only a spiece.model");
        std::int64_t extra = 100;
        if (config.is_object() && config.contains("extra_ids")) {
            if (!config["extra_ids"].is_number_integer()) tokenizer_file_error(tc, "extra_ids is not a whole number");
            extra = config["extra_ids"].get<std::int64_t>();
        }
        t.uni_ = std::make_shared<UnigramTokenizer>(UnigramTokenizer::from_t5_spm(read_file(spiece, "tokeniser file"), extra, spiece));
        t.post_ = PostProcessor::eos_template(t.uni_->eos_id());
        t.eos_unless_present_ = true;
    } else if (file_exists(vocab) && file_exists(merges)) {
        BpeTokenizer bpe = BpeTokenizer::from_vocab_merges(read_file(vocab, "vocabulary"), read_file(merges, "merges file"), vocab, merges);
        if (file_exists(added)) {  // {"<pad>": 50257, ...}: matched before the model, as the slow and fast tokenisers do
            const nlohmann::json j = parse_tokenizer_file(read_file(added, "added tokens file"), added);
            if (!j.is_object()) tokenizer_file_error(added, "not an object of token -> id");
            std::vector<std::pair<std::string, std::int64_t>> list;
            for (const auto& [tok, id] : j.items()) {
                if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= kMaxId || tok.empty())
                    tokenizer_file_error(added, "the id of token '" + excerpt(tok, 40) + "' is not a whole number below 2^24");
                list.emplace_back(tok, id.get<std::int64_t>());
            }
            bpe.add_tokens(list, added);
        }
        t.bpe_ = std::make_shared<BpeTokenizer>(std::move(bpe));
    } else if (file_exists(vocab_txt)) {
        nlohmann::json merged = config.is_object() ? config : nlohmann::json::object();
        if (file_exists(stm)) {  // special_tokens_map.json's tokens where tokenizer_config.json has none
            const nlohmann::json m = parse_tokenizer_file(read_file(stm, "special tokens map"), stm);
            if (m.is_object())
                for (const auto& [k, v] : m.items())
                    if (!merged.contains(k)) merged[k] = v;
        }
        t = from_vocab_txt(read_file(vocab_txt, "vocabulary"), merged.dump(), vocab_txt, tc);
    } else {
        input_error("no tokeniser in '" + dir + "' (tokenizer.json, source.spm, spiece.model, vocab.json and merges.txt, or vocab.txt)",
                    "download the model's tokenizer.json (or vocab.json and merges.txt) into the folder");
    }
    // 2. tokenizer_config.json: add_bos_token (Llama's) decides whether a BOS comes first
    if (t.bpe_ && config.is_object() && config.contains("add_bos_token") && config["add_bos_token"].is_boolean()) {
        if (!config["add_bos_token"].get<bool>()) t.post_ = PostProcessor::bos_template(-1);
        else {
            const std::string bos = token_text(config, "bos_token");
            const std::int64_t id = t.token_id(bos);
            if (id < 0) tokenizer_file_error(tc, "add_bos_token is true but bos_token '" + excerpt(bos, 40) + "' is not a token");
            t.post_ = PostProcessor::bos_template(id);
        }
    }
    // 3. the mask token the model's fill-mask head reads
    if (const std::string m = token_text(config, "mask_token"); !m.empty() && t.token_id(m) >= 0) t.mask_ = t.token_id(m);
    // 4. the padding and end-of-sequence tokens an encoder-decoder's generation starts and stops with
    t.find_pad_eos();
    if (const std::string p = token_text(config, "pad_token"); !p.empty() && t.token_id(p) >= 0) t.pad_ = t.token_id(p);
    if (const std::string e = token_text(config, "eos_token"); !e.empty() && t.token_id(e) >= 0) t.eos_ = t.token_id(e);
    return t;
}

Tokenizer Tokenizer::from_vocab_merges(const std::string& vocab_json, const std::string& merges_txt, const std::string& vocab_name,
                                       const std::string& merges_name) {
    Tokenizer t;
    t.bpe_ = std::make_shared<BpeTokenizer>(BpeTokenizer::from_vocab_merges(vocab_json, merges_txt, vocab_name, merges_name));
    return t;
}

Tokenizer Tokenizer::from_tokenizer_json(const std::string& text, const std::string& name) {
    const nlohmann::json j = parse_tokenizer_file(text, name);
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object()) tokenizer_file_error(name, "no \"model\" object");
    const std::string type = str(j["model"], "type");
    Tokenizer t;
    if (type == "BPE") {
        t.bpe_ = std::make_shared<BpeTokenizer>(BpeTokenizer::from_json(j, name));
    } else if (type == "Unigram") {
        t.uni_ = std::make_shared<UnigramTokenizer>(UnigramTokenizer::from_json(j, name));
    } else if (type == "WordPiece") {
        // 1. normaliser and pre-tokeniser
        const auto& n = j.contains("normalizer") ? j["normalizer"] : nlohmann::json();
        if (str(n, "type") == "BertNormalizer") t.norm_ = BertNormalizer::from_json(n, name);
        else if (n.is_null()) t.norm_ = BertNormalizer{false, false, false, false};
        else tokenizer_unsupported(name, "the normalizer '" + excerpt(str(n, "type").empty() ? "(none)" : str(n, "type"), 32) + "' with WordPiece");
        const auto& p = j.contains("pre_tokenizer") ? j["pre_tokenizer"] : nlohmann::json();
        if (str(p, "type") != "BertPreTokenizer")
            tokenizer_unsupported(name, "the pre_tokenizer '" + excerpt(str(p, "type").empty() ? "(none)" : str(p, "type"), 32) + "' with WordPiece");
        for (const char* key : {"truncation", "padding"})
            if (j.contains(key) && !j[key].is_null()) tokenizer_unsupported(name, std::string("a tokenizer.json with ") + key);
        // 2. the model
        t.wp_ = WordPieceModel::from_json(j["model"], name);
        // 3. added tokens, with their flags
        if (j.contains("added_tokens") && j["added_tokens"].is_array())
            for (const auto& a : j["added_tokens"]) {
                if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer() || str(a, "content").empty())
                    tokenizer_file_error(name, "an added token without content or id");
                if (yes(a, "single_word", false))
                    tokenizer_unsupported(name, "added token '" + excerpt(str(a, "content"), 40) + "' with single_word");
                t.add_wordpiece_token({str(a, "content"), a["id"].get<std::int64_t>(), yes(a, "lstrip", false), yes(a, "rstrip", false),
                                       yes(a, "normalized", !yes(a, "special", false))},
                                      name);
            }
    } else {
        tokenizer_unsupported(name, "the model type is '" + (type.empty() ? std::string("(none)") : excerpt(type, 32)) + "'");
    }
    // 4. the post-processor
    t.post_ = PostProcessor::from_json(j.contains("post_processor") ? j["post_processor"] : nlohmann::json(), name);
    for (const auto* tpl : {&t.post_.single, &t.post_.pair})
        for (const auto& piece : *tpl)
            for (const std::int64_t id : piece.ids)
                if (id >= static_cast<std::int64_t>(t.vocab_size())) tokenizer_file_error(name, "the post_processor's token id " + std::to_string(id) + " is not a token");
    t.find_mask("");
    t.find_pad_eos();
    return t;
}

Tokenizer Tokenizer::from_vocab_txt(const std::string& vocab_txt, const std::string& config_json, const std::string& vocab_name,
                                    const std::string& config_name) {
    const nlohmann::json c = config_json.empty() ? nlohmann::json::object() : parse_tokenizer_file(config_json, config_name);
    auto flag = [&](const char* key, bool dflt) {
        if (!c.is_object() || !c.contains(key) || c[key].is_null()) return dflt;
        if (!c[key].is_boolean()) tokenizer_file_error(config_name, std::string(key) + " is not true, false or null");
        return c[key].get<bool>();
    };
    const std::string kind = c.is_object() ? str(c, "tokenizer_class") : "";
    if (!kind.empty() && kind != "BertTokenizer" && kind != "BertTokenizerFast" && kind != "DistilBertTokenizer" &&
        kind != "DistilBertTokenizerFast")
        tokenizer_unsupported(config_name, "tokenizer_class '" + excerpt(kind, 40) + "' with only a vocab.txt");
    Tokenizer t;
    // BertConverter: BertNormalizer(clean_text, tokenize_chinese_chars, strip_accents, do_lower_case),
    // BertPreTokenizer, WordPiece("##", 100 characters), [CLS] A [SEP] (B [SEP])
    t.norm_.clean_text = true;
    t.norm_.lowercase = flag("do_lower_case", true);
    t.norm_.handle_chinese_chars = flag("tokenize_chinese_chars", true);
    t.norm_.strip_accents = flag("strip_accents", t.norm_.lowercase);
    auto special = [&](const char* key, const char* dflt) {
        const std::string s = token_text(c, key);
        return s.empty() ? std::string(dflt) : s;
    };
    const std::string unk = special("unk_token", "[UNK]"), sep = special("sep_token", "[SEP]"), pad = special("pad_token", "[PAD]");
    const std::string cls = special("cls_token", "[CLS]"), mask = special("mask_token", "[MASK]");
    t.wp_ = WordPieceModel::from_vocab_txt(vocab_txt, unk, vocab_name);
    for (const std::string& s : {unk, sep, pad, cls, mask}) {  // the special tokens, added (not normalised) as HF adds them
        if (!t.wp_.vocab.count(s)) continue;
        t.add_wordpiece_token({s, t.wp_.vocab.at(s), false, false, false}, vocab_name);
    }
    for (const std::string& s : {cls, sep})
        if (!t.wp_.vocab.count(s)) tokenizer_file_error(vocab_name, "the special token '" + excerpt(s, 40) + "' is not in the vocabulary");
    t.post_ = PostProcessor::bert(t.wp_.vocab.at(cls), t.wp_.vocab.at(sep));
    t.find_mask(mask);
    t.find_pad_eos();
    return t;
}

void Tokenizer::add_wordpiece_token(Added a, const std::string& name) {
    if (a.id < 0 || a.id >= kMaxId) tokenizer_file_error(name, "an added token's id is out of range");
    if (const auto problem = token_length_problem(a.content)) tokenizer_file_error(name, "an added token " + *problem);
    if (a.normalized) a.content = norm_.normalize(a.content);  // found in the normalised text, as HF does
    if (a.content.empty()) return;
    if (static_cast<std::size_t>(a.id) >= wp_.id_to_token.size()) wp_.id_to_token.resize(static_cast<std::size_t>(a.id) + 1);
    if (wp_.id_to_token[static_cast<std::size_t>(a.id)].empty()) wp_.id_to_token[static_cast<std::size_t>(a.id)] = a.content;
    added_.erase(std::remove_if(added_.begin(), added_.end(), [&](const Added& x) { return x.content == a.content; }), added_.end());
    added_.push_back(std::move(a));
    std::stable_sort(added_.begin(), added_.end(), [](const Added& x, const Added& y) { return x.content.size() > y.content.size(); });
}

// The mask token: the config's, else an added "[MASK]" or "<mask>".
void Tokenizer::find_mask(const std::string& mask_token) {
    for (const std::string& m : {mask_token, std::string("[MASK]"), std::string("<mask>")})
        if (!m.empty() && token_id(m) >= 0) {
            mask_ = token_id(m);
            return;
        }
}

// The padding and end-of-sequence tokens by their usual names (load_dir lets the config's win).
void Tokenizer::find_pad_eos() {
    if (uni_) {  // the tokeniser's own: T5's and Marian's </s> and <pad>
        pad_ = uni_->pad_id(), eos_ = uni_->eos_id();
        return;
    }
    for (const char* p : {"<pad>", "[PAD]"})
        if (token_id(p) >= 0) {
            pad_ = token_id(p);
            break;
        }
    eos_ = token_id("</s>") >= 0 ? token_id("</s>") : end_of_text();
}

// ---- encoding -----------------------------------------------------------------------------------------

// WordPiece steps 1-3 on text between (raw) added tokens: normalise, find the normalised added tokens,
// pre-tokenise and look the words up.
void Tokenizer::wordpiece_ids(std::string_view text, std::size_t max_tokens, std::vector<std::int64_t>& out) const {
    const std::string n = norm_.normalize(text);
    std::vector<std::string> words;
    std::size_t at = 0;
    auto words_of = [&](std::string_view part) {
        words.clear();
        bert_pre_tokenize(part, words);
        for (const auto& w : words) {
            if (out.size() > max_tokens) return;
            wp_.tokenize(w, out);
        }
    };
    while (at <= n.size() && out.size() <= max_tokens) {
        std::size_t e = std::string::npos;
        const Added* hit = nullptr;
        for (const Added& a : added_) {
            if (!a.normalized) continue;
            const std::size_t f = n.find(a.content, at);
            if (f < e) e = f, hit = &a;
        }
        if (!hit) {
            words_of(std::string_view(n).substr(at));
            break;
        }
        std::size_t stop = e + hit->content.size();
        if (hit->lstrip) e = whitespace_before(n, at, e);
        if (hit->rstrip) stop = whitespace_after(n, stop);
        words_of(std::string_view(n).substr(at, e - at));
        out.push_back(hit->id);
        at = stop;
    }
}

// Step 0 for WordPiece: the added tokens not normalised, found in the raw text (leftmost, then longest).
void Tokenizer::split_added(std::string_view text, std::size_t max_tokens, std::vector<std::int64_t>& out) const {
    for (std::size_t at = 0; at <= text.size() && out.size() <= max_tokens;) {
        std::size_t e = std::string_view::npos;
        const Added* hit = nullptr;
        for (const Added& a : added_) {
            if (a.normalized) continue;
            const std::size_t f = text.find(a.content, at);
            if (f < e) e = f, hit = &a;
        }
        if (!hit) {
            wordpiece_ids(text.substr(at), max_tokens, out);
            break;
        }
        std::size_t stop = e + hit->content.size();
        if (hit->lstrip) e = whitespace_before(text, at, e);
        if (hit->rstrip) stop = whitespace_after(text, stop);
        wordpiece_ids(text.substr(at, e - at), max_tokens, out);
        out.push_back(hit->id);
        at = stop;
    }
}

std::vector<std::int64_t> Tokenizer::content_ids(std::string_view text, std::size_t max_tokens) const {
    if (bpe_) return bpe_->encode(text, max_tokens);
    check_text(text);
    if (uni_) return uni_->encode(text, max_tokens);
    std::vector<std::int64_t> ids;
    split_added(text, max_tokens, ids);
    return ids;
}

Encoding Tokenizer::encode(std::string_view text, std::size_t max_tokens) const {
    const std::size_t before = post_.prefix_count(false);
    const std::size_t budget = max_tokens == SIZE_MAX ? SIZE_MAX : max_tokens > before ? max_tokens - before : 0;
    Encoding e;
    std::vector<std::int64_t> a = content_ids(text, budget);
    if (eos_unless_present_ && !a.empty() && a.back() == eos_) PostProcessor{}.apply(a, nullptr, e);  // T5Tokenizer's _add_eos_if_not_present
    else post_.apply(a, nullptr, e);
    if (max_tokens != SIZE_MAX && e.ids.size() > max_tokens + 1) {
        e.ids.resize(max_tokens + 1), e.type_ids.resize(max_tokens + 1), e.segment.resize(max_tokens + 1);
    }
    return e;
}

Encoding Tokenizer::encode_target(std::string_view text, std::size_t max_tokens) const {
    if (!target_uni_) return encode(text, max_tokens);
    check_text(text);
    Encoding e;
    std::vector<std::int64_t> a = target_uni_->encode(text, max_tokens == SIZE_MAX ? SIZE_MAX : max_tokens);
    post_.apply(a, nullptr, e);
    if (max_tokens != SIZE_MAX && e.ids.size() > max_tokens + 1)
        e.ids.resize(max_tokens + 1), e.type_ids.resize(max_tokens + 1), e.segment.resize(max_tokens + 1);
    return e;
}

Encoding Tokenizer::encode_pair(std::string_view text, std::string_view pair, std::size_t max_tokens) const {
    std::vector<std::int64_t> a = content_ids(text, max_tokens), b = content_ids(pair, max_tokens);
    Encoding e;
    if (eos_unless_present_) {  // T5Tokenizer: each side gets </s> unless it ends in one, every type id 0
        for (auto* side : {&a, &b})
            if (side->empty() || side->back() != eos_) side->push_back(eos_);
        PostProcessor plain;
        plain.pair = {PostProcessor::Piece{0, {}, 0}, PostProcessor::Piece{1, {}, 0}};
        plain.apply(a, &b, e);
    } else {
        post_.apply(a, &b, e);
    }
    if (max_tokens != SIZE_MAX && e.ids.size() > max_tokens + 1) {
        e.ids.resize(max_tokens + 1), e.type_ids.resize(max_tokens + 1), e.segment.resize(max_tokens + 1);
    }
    return e;
}

// ---- ids and their texts ------------------------------------------------------------------------------

std::size_t Tokenizer::vocab_size() const { return bpe_ ? bpe_->vocab_size() : uni_ ? uni_->vocab_size() : wp_.id_to_token.size(); }

std::int64_t Tokenizer::end_of_text() const { return bpe_ ? bpe_->end_of_text() : -1; }

std::int64_t Tokenizer::token_id(std::string_view token) const {
    if (bpe_) return bpe_->token_id(std::string(token));
    if (uni_) return uni_->token_id(std::string(token));
    for (const Added& a : added_)
        if (a.content == token) return a.id;
    const auto it = wp_.vocab.find(std::string(token));
    return it == wp_.vocab.end() ? -1 : it->second;
}

std::string Tokenizer::decode(std::int64_t id) const {
    if (bpe_) return bpe_->decode(id);
    if (uni_) return uni_->text(id);
    if (id < 0 || static_cast<std::size_t>(id) >= wp_.id_to_token.size()) return "";
    return wp_.id_to_token[static_cast<std::size_t>(id)];
}

std::string Tokenizer::text(std::int64_t id) const { return bpe_ ? bpe_->text(id) : utf8_replace_invalid(decode(id)); }

std::string Tokenizer::decode_text(const std::vector<std::int64_t>& ids) const {
    if (uni_) return uni_->decode_text(ids);
    auto special = [&](std::int64_t id) {
        if (id == pad_ || id == eos_ || id == bos() || id == mask_ || id == end_of_text()) return true;
        for (const auto* tpl : {&post_.single, &post_.pair})
            for (const auto& piece : *tpl)
                if (std::find(piece.ids.begin(), piece.ids.end(), id) != piece.ids.end()) return true;
        return false;
    };
    std::string out;
    for (const std::int64_t id : ids) {
        if (id < 0 || special(id)) continue;
        if (bpe_) {
            out += bpe_->decode(id);
            continue;
        }
        const std::string t = decode(id);  // WordPiece: words joined by spaces, "##" pieces glued on
        if (t.compare(0, 2, "##") == 0) out += t.substr(2);
        else out += (out.empty() ? "" : " ") + t;
    }
    return utf8_replace_invalid(out);
}

std::string Tokenizer::label(std::int64_t id) const {
    if (bpe_) return bpe_->label(id);
    if (uni_) return token_label(text(id));
    const std::string t = text(id);
    return t.empty() || text_problem(t, false) ? "\xEF\xBF\xBD" : t;
}

}  // namespace attn
