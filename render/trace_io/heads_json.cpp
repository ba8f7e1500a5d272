#include "render/trace_io/heads_json.h"

namespace attn::render {
namespace {

// (L, H) scores, null where undefined.
Json score_grid(const HeadReport& r, const HeadGrid& g) {
    Json grid = Json::array();
    for (std::size_t l = 0; l < r.n_layer; ++l) {
        Json row = Json::array();
        for (std::size_t h = 0; h < r.n_head; ++h) {
            const auto& s = g.at(l).at(h);
            row.push_back(s ? Json(*s) : Json(nullptr));
        }
        grid.push_back(std::move(row));
    }
    return grid;
}

}  // namespace

Json heads_json(const HeadReport& r, const std::string& model_name, const std::vector<TopHead>& top, std::optional<HeadPattern> rank) {
    Json j;
    j["format"] = "attn-heads";
    j["version"] = 1;
    j["model"] = {{"name", model_name}, {"type", r.model.type}, {"n_layer", r.n_layer}, {"n_head", r.n_head}};
    if (r.bidirectional()) j["model"]["stack"] = "encoder";  // the encoder definitions (head_patterns.h)
    j["patterns"] = Json::object();
    j["chance"] = Json::object();
    j["defined_texts"] = Json::object();
    for (const auto& info : head_patterns()) {
        if (!r.shows(info.pattern)) continue;  // a decoder's JSON has no next
        const auto p = static_cast<std::size_t>(info.pattern);
        j["patterns"][info.name] = score_grid(r, r.scores[p]);
        j["chance"][info.name] = score_grid(r, r.chance[p]);
        j["defined_texts"][info.name] = r.defined[p];
    }
    j["chance_rule"] = {{"margin", kChanceMargin}, {"ratio", kChanceRatio},
                        {"rule", "a head is named when score >= chance + margin and score >= ratio * chance"}};
    j["induction_text"] = score_grid(r, r.induction_text);
    j["induction_text_chance"] = score_grid(r, r.induction_text_chance);
    j["induction_text_defined_texts"] = r.induction_text_defined;
    j["texts"] = Json::array();
    j["sinks"] = Json::array();
    for (const HeadText& t : r.texts) {
        j["texts"].push_back({{"text", t.text}, {"tokens", t.tokens}, {"token_ids", t.ids}, {"punctuation", t.punctuation}});
        Json layers = Json::array();
        for (const auto& heads : t.sinks) {
            Json row = Json::array();
            for (const auto& s : heads)
                row.push_back(s ? Json{{"position", s->key}, {"token", t.tokens.at(s->key)}, {"weight", s->weight}} : Json(nullptr));
            layers.push_back(std::move(row));
        }
        j["sinks"].push_back(std::move(layers));
    }
    if (r.induction_length)
        j["induction"] = {{"R", r.induction_length}, {"seed", r.induction_seed}, {"token_ids", r.induction_ids},
                          {"rule", "R distinct ids: std::mt19937(seed)() mod vocab_size, a repeat drawn again; fed twice"}};
    else
        j["induction"] = nullptr;
    if (rank) {
        Json heads = Json::array();
        for (const TopHead& t : top)
            heads.push_back({{"layer", t.head.layer}, {"head", t.head.head}, {"score", t.head.score}, {"text", t.text}});
        j["top"] = {{"pattern", head_patterns()[static_cast<std::size_t>(*rank)].name}, {"heads", heads}};
    }
    if (!r.effect.empty()) j["effect"] = r.effect;  // --effect: (L, H) loss increase with the head zero-ablated
    return j;
}

std::string heads_json_text(const HeadReport& r, const std::string& model_name, const std::vector<TopHead>& top,
                            std::optional<HeadPattern> rank) {
    return heads_json(r, model_name, top, rank).dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace attn::render
