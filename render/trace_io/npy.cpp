#include "render/trace_io/npy.h"

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include "render/trace_io/file_names.h"

namespace attn::render {

std::vector<NpyFile> npy_files(const Trace& t, const std::string& prefix_in) {
    const std::string prefix = prefix_in.empty() ? t.kind : prefix_in;
    std::vector<NpyFile> files;
    auto add = [&](const std::string& name, const Mat& m) {
        if (m.size() > 0 || name == "output") files.push_back({prefix + "-" + name + ".npy", xt::dump_npy(m)});
    };
    add("x", t.x);
    if (t.has_source) add("source_x", t.source_x);
    for (const auto& p : t.params) add(p.name, p.value);
    for (const auto& h : t.heads()) {
        const std::string hp = "h" + std::to_string(h.head) + "-";
        add(hp + "queries", h.queries);
        add(hp + "keys", h.keys);
        add(hp + "values", h.values);
        add(hp + "scores", h.scores);
        if (h.mask.size() > 0) {
            const xt::xtensor<bool, 2> visible = xt::cast<bool>(h.mask.get());
            files.push_back({prefix + "-" + hp + "mask.npy", xt::dump_npy(visible)});
        }
        add(hp + "weights", h.weights);
        add(hp + "zeroed", h.zeroed);
        add(hp + "dropped_weights", h.dropped_weights);
        add(hp + "context", h.context);
    }
    add("output", t.output);
    return files;
}

std::vector<NpyFile> model_npy_files(const Trace& t) {
    std::vector<NpyFile> files;
    const xt::xtensor<std::int64_t, 1> ids = xt::adapt(t.token_ids, {t.token_ids.size()});
    const std::string model = kModelArrayPrefix;
    files.push_back({model + "-token_ids.npy", xt::dump_npy(ids)});
    for (const auto& l : t.layers())
        for (const auto& h : l.heads) {
            const std::string p = model + "-l" + std::to_string(l.layer) + "-h" + std::to_string(h.head) + "-";
            if (h.scores.size()) files.push_back({p + "scores.npy", xt::dump_npy(h.scores)});
            if (h.mask.size()) {
                const xt::xtensor<bool, 2> visible = xt::cast<bool>(h.mask.get());
                files.push_back({p + "mask.npy", xt::dump_npy(visible)});
            }
            if (h.weights.size()) files.push_back({p + "weights.npy", xt::dump_npy(h.weights)});
        }
    for (std::size_t l = 0; l < t.layer_mean.size(); ++l) {
        files.push_back({model + "-l" + std::to_string(l) + "-mean.npy", xt::dump_npy(t.layer_mean[l])});
        files.push_back({model + "-l" + std::to_string(l) + "-rollout.npy", xt::dump_npy(t.rollout[l])});
    }
    return files;
}

}  // namespace attn::render
