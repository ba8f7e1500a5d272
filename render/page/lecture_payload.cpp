#include "render/page/lecture_payload.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/kinds/kinds.h"
#include "render/view/position_series.h"

namespace attn::render {
namespace {

// The lecture's order of the stages that are not (T, S) attention (render/page/vector_stages.js's VECTOR_STAGES).
constexpr const char* kVectorStages[] = {"inputs", "queries", "keys", "values", "context", "output"};

const Mat* head_matrix(const HeadTrace& h, const std::string& stage) {
    if (stage == "queries") return &h.queries;
    if (stage == "keys") return &h.keys;
    if (stage == "values") return &h.values;
    return &h.context;
}

// The stage's matrices: one per head, or the run's one (inputs, output). Empty when the trace lacks it.
std::vector<const Mat*> stage_matrices(const Trace& t, const std::string& stage) {
    if (stage == "inputs") return t.x.size() ? std::vector<const Mat*>{&t.x} : std::vector<const Mat*>{};
    if (stage == "output") return t.output.size() ? std::vector<const Mat*>{&t.output} : std::vector<const Mat*>{};
    std::vector<const Mat*> out;
    for (const HeadTrace& h : t.heads()) {
        const Mat* m = head_matrix(h, stage);
        if (m->size() == 0) return {};
        out.push_back(m);
    }
    return out;
}

Json position_figures(const Trace& t) {
    Json f = Json::object();
    if (t.positions.size())
        f["sinusoidal"] = {{"first", t.config.pos_offset}, {"run", matrix(t.positions)}, {"table", matrix(sinusoidal_rows(t))}};
    if (const auto rope = rope_curves(t))
        f["rope"] = {{"d_k", rope->d_k}, {"token", rope->token}, {"ones", rope->ones}, {"head0", rope->head0},
                     {"base", t.config.rope_base}, {"style", t.config.rope_style}};
    if (!t.heads().empty() && t.heads()[0].bias.size()) f["alibi"] = Json::object();
    return f;
}

}  // namespace

Json page_scale_json(const ColourScale& sc) {
    return Json::array({sc.lo, sc.hi, sc.cmap_name, sc.log, sc.low_label(), sc.high_label()});
}

void add_lecture_stages(const Trace& t, const ColourSpec& colour, Json& data) {
    if (!find_kind(t.kind) || t.model || t.sets.empty() || t.sets[0].model_layers || t.layers().size() != 1) return;
    const Json& heads = data["layers"][0]["heads"];
    if (heads.empty() || !heads[0].contains("vectors")) return;
    // 1. the stages the trace has, each with its colour scale over every head drawn together
    Json stages = Json::array();
    Json& scales = data["layers"][0]["scales"];
    for (const char* stage : kVectorStages) {
        const std::vector<const Mat*> mats = stage_matrices(t, stage);
        if (mats.empty()) continue;
        ValueRange r;
        for (const Mat* m : mats)
            for (float v : *m)
                if (std::isfinite(v)) r.add(v);
        scales[stage] = page_scale_json(make_scale(ValueKind::signed_value, r, colour, "value"));
        stages.push_back(stage);
    }
    data["vector_stages"] = stages;
    data["run_vectors"] = {{"inputs", matrix(t.x)}, {"output", matrix(t.output)}};
    // 2. the position figures, with --pos
    data["position_figures"] = position_figures(t);
}

}  // namespace attn::render
