#include "render/npy.h"

#include <xtensor/xnpy.hpp>

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
    for (const auto& h : t.heads) {
        const std::string hp = "h" + std::to_string(h.head) + "-";
        add(hp + "queries", h.queries);
        add(hp + "keys", h.keys);
        add(hp + "values", h.values);
        add(hp + "scores", h.scores);
        if (h.mask.size() > 0) {
            const xt::xtensor<bool, 2> visible = xt::cast<bool>(h.mask);
            files.push_back({prefix + "-" + hp + "mask.npy", xt::dump_npy(visible)});
        }
        add(hp + "weights", h.weights);
        add(hp + "dropped_weights", h.dropped_weights);
        add(hp + "context", h.context);
    }
    add("output", t.output);
    return files;
}

}  // namespace attn::render
