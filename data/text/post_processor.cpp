#include "data/text/post_processor.h"

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/text/tokenizer_json.h"
#include "data/text/pre_tokenizer.h"
#include "data/text/tokenizer.h"

namespace attn {

using tokenizer_json::str;
namespace {

// BertProcessing's and RobertaProcessing's "cls"/"sep": ["[CLS]", 101]
std::int64_t pair_id(const nlohmann::json& p, const char* key, const std::string& name) {
    const auto& x = p.contains(key) ? p[key] : nlohmann::json();
    if (!x.is_array() || x.size() != 2 || !x[1].is_number_integer() || x[1].get<std::int64_t>() < 0)
        tokenizer_file_error(name, std::string("the post_processor's ") + key + " is not [token, id]");
    return x[1].get<std::int64_t>();
}

std::vector<PostProcessor::Piece> parse_template(const nlohmann::json& t, const nlohmann::json& specials, bool pair,
                                                 const std::string& name) {
    if (!t.is_array()) tokenizer_file_error(name, "a post_processor template is not a list");
    std::vector<PostProcessor::Piece> out;
    for (const auto& piece : t) {
        PostProcessor::Piece p;
        const bool seq = piece.is_object() && piece.contains("Sequence");
        const auto& body = seq ? piece["Sequence"] : piece.is_object() && piece.contains("SpecialToken") ? piece["SpecialToken"] : nlohmann::json();
        if (!body.is_object()) tokenizer_file_error(name, "a post_processor template piece is neither Sequence nor SpecialToken");
        if (body.contains("type_id") && body["type_id"].is_number_unsigned()) p.type_id = body["type_id"].get<std::int64_t>();
        const std::string id = str(body, "id");
        if (seq) {
            if (id != "A" && (id != "B" || !pair)) tokenizer_file_error(name, "a post_processor template names sequence '" + excerpt(id, 8) + "'");
            p.sequence = id == "A" ? 0 : 1;
        } else {
            if (!specials.is_object() || !specials.contains(id) || !specials[id].contains("ids") || !specials[id]["ids"].is_array())
                tokenizer_file_error(name, "the post_processor's special token '" + excerpt(id, 40) + "' has no ids");
            for (const auto& i : specials[id]["ids"]) {
                if (!i.is_number_unsigned()) tokenizer_file_error(name, "the post_processor's special token '" + excerpt(id, 40) + "' has an id that is not a whole number");
                p.ids.push_back(i.get<std::int64_t>());
            }
        }
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace

PostProcessor PostProcessor::bos_template(std::int64_t bos) {
    PostProcessor p;
    if (bos >= 0) {
        p.single = {Piece{-1, {bos}, 0}, Piece{0, {}, 0}};
        p.pair = {Piece{-1, {bos}, 0}, Piece{0, {}, 0}, Piece{-1, {bos}, 1}, Piece{1, {}, 1}};
    }
    return p;
}

PostProcessor PostProcessor::eos_template(std::int64_t eos) {
    PostProcessor p;
    if (eos >= 0) {
        p.single = {Piece{0, {}, 0}, Piece{-1, {eos}, 0}};
        p.pair = {Piece{0, {}, 0}, Piece{-1, {eos}, 0}, Piece{1, {}, 0}, Piece{-1, {eos}, 0}};
    }
    return p;
}

PostProcessor PostProcessor::bert(std::int64_t cls, std::int64_t sep) {
    PostProcessor p;
    p.single = {Piece{-1, {cls}, 0}, Piece{0, {}, 0}, Piece{-1, {sep}, 0}};
    p.pair = {Piece{-1, {cls}, 0}, Piece{0, {}, 0}, Piece{-1, {sep}, 0}, Piece{1, {}, 1}, Piece{-1, {sep}, 1}};
    return p;
}

PostProcessor PostProcessor::from_json(const nlohmann::json& p, const std::string& name) {
    PostProcessor out;
    if (p.is_null()) return out;
    const std::string ty = str(p, "type");
    if (ty == "Sequence" && p.contains("processors") && p["processors"].is_array()) {
        bool set = false;
        for (const auto& x : p["processors"]) {
            const std::string sub = str(x, "type");
            if (sub == "ByteLevel") continue;
            if (set) tokenizer_unsupported(name, "a post_processor Sequence with two processors that add tokens");
            out = from_json(x, name), set = true;
        }
    } else if (ty == "ByteLevel") {
        // offsets only
    } else if (ty == "TemplateProcessing") {
        const auto& sp = p.contains("special_tokens") ? p["special_tokens"] : nlohmann::json();
        out.single = parse_template(p.contains("single") ? p["single"] : nlohmann::json(), sp, false, name);
        if (p.contains("pair") && !p["pair"].is_null()) out.pair = parse_template(p["pair"], sp, true, name);
        else out.pair = out.single, out.pair.push_back(Piece{1, {}, 1});  // no pair template: the second text after
    } else if (ty == "BertProcessing") {
        out = bert(pair_id(p, "cls", name), pair_id(p, "sep", name));
    } else if (ty == "RobertaProcessing") {
        const std::int64_t cls = pair_id(p, "cls", name), sep = pair_id(p, "sep", name);
        out.single = {Piece{-1, {cls}, 0}, Piece{0, {}, 0}, Piece{-1, {sep}, 0}};
        out.pair = {Piece{-1, {cls}, 0}, Piece{0, {}, 0}, Piece{-1, {sep}, 0}, Piece{-1, {sep}, 0}, Piece{1, {}, 0}, Piece{-1, {sep}, 0}};
    } else {
        tokenizer_unsupported(name, "the post_processor '" + (ty.empty() ? std::string("(none)") : excerpt(ty, 32)) + "'");
    }
    return out;
}

std::int64_t PostProcessor::bos() const {
    return !single.empty() && single[0].sequence < 0 && !single[0].ids.empty() ? single[0].ids[0] : -1;
}

std::size_t PostProcessor::prefix_count(bool with_pair) const {
    std::size_t n = 0;
    for (const Piece& p : with_pair ? pair : single) {
        if (p.sequence >= 0) break;
        n += p.ids.size();
    }
    return n;
}

std::size_t PostProcessor::added(bool with_pair) const {
    std::size_t n = 0;
    for (const Piece& p : with_pair ? pair : single) n += p.ids.size();
    return n;
}

// Segments: the pieces before $A's end are the first text's; between $A and $B, a special token whose
// type id is $B's belongs to $B, and with equal type ids the first piece closes $A and the rest open $B.
void PostProcessor::apply(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>* b, Encoding& out) const {
    const auto& t = b ? pair : single;
    std::int64_t type_b = 0;
    for (const Piece& p : t)
        if (p.sequence == 1) type_b = p.type_id;
    int seen = 0;           // sequences passed
    bool closed_a = false;  // a piece after $A taken by the first text
    for (const Piece& p : t) {
        std::uint8_t seg = 0;
        if (p.sequence >= 0) {
            seg = static_cast<std::uint8_t>(p.sequence);
            ++seen;
        } else if (seen >= 2 || (seen == 1 && !b)) {
            seg = b ? 1 : 0;
        } else if (seen == 1) {
            std::int64_t type_a = 0;
            for (const Piece& q : t)
                if (q.sequence == 0) type_a = q.type_id;
            if (type_a != type_b) seg = p.type_id == type_b ? 1 : 0;
            else seg = closed_a ? 1 : 0;
            closed_a = true;
        }
        const auto& ids = p.sequence == 0 ? a : p.sequence == 1 ? *b : p.ids;
        for (const std::int64_t id : ids) {
            out.ids.push_back(id);
            out.type_ids.push_back(p.type_id);
            out.segment.push_back(seg);
        }
    }
}

}  // namespace attn
