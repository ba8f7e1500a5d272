#include "render/model_view.h"

#include "render/file_names.h"
#include "render/json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

namespace attn::render {
namespace {

std::string fmt(double v, const char* f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string millions(std::uint64_t n) {
    return n < 1000000 ? std::to_string(n) : fmt(static_cast<double>(n) / 1e6, "%.1fM");
}

}  // namespace

Trace chosen_head_trace(const Trace& t, const HeadChoice& c) {
    Trace one;
    one.kind = t.model->type + " \xC2\xB7 layer " + std::to_string(t.layers.at(c.layer).layer);
    one.model = t.model;
    one.config = t.config;
    one.tokens = one.source_tokens = t.tokens;
    one.heads = {t.layers.at(c.layer).heads.at(c.head)};
    return one;
}

double mean_attention_distance(const Mat& w) {
    const std::size_t T = w.shape(0);
    if (T < 2) return 0.0;
    double total = 0.0;
    for (std::size_t i = 1; i < T; ++i)
        for (std::size_t j = 0; j <= i && j < w.shape(1); ++j) total += static_cast<double>(w(i, j)) * static_cast<double>(i - j);
    return total / static_cast<double>(T - 1);
}

std::string model_terminal_view(const Trace& t, const HeadChoice& c, const TerminalOptions& opt) {
    std::ostringstream out;
    const ModelInfo& m = *t.model;
    // 1. the model
    out << "model:    " << m.type << " \xC2\xB7 " << m.dtype << " \xC2\xB7 " << m.n_layer << " layers \xC3\x97 " << m.n_head
        << " heads \xC2\xB7 " << m.n_embd << " wide \xC2\xB7 " << millions(m.n_params) << " parameters \xC2\xB7 context "
        << m.n_positions << "\n";
    // 2. the tokens and the chosen head's matrices
    TerminalOptions one = opt;
    one.head.reset();
    const Trace head = chosen_head_trace(t, c);
    out << terminal_view(head, one);
    out << "(head " << c.head << " of layer " << t.layers[c.layer].layer << "; pick another with --layer L --head H; "
        << "\xC2\xB7 marks a leading space)\n\n";
    // 3. every head at a glance: mean attention distance
    const std::size_t H = m.n_head;
    out << "mean attention distance in tokens (0: each token looks at itself; \xE2\x89\x88" "1: at the previous token; large: far back or at the first token)\n";
    out << "        ";
    for (std::size_t h = 0; h < H; ++h) {
        const std::string name = "h" + std::to_string(h);
        out << std::string(name.size() < 7 ? 7 - name.size() : 1, ' ') << name;
    }
    out << "\n";
    for (const auto& l : t.layers) {
        out << fmt(static_cast<double>(l.layer), "layer %-2.0f");
        for (const auto& hd : l.heads) out << "  " << fmt(mean_attention_distance(hd.weights), "%5.1f");
        out << "\n";
    }
    // 4. what the model predicts after the last token
    if (!t.predictions.empty()) {
        out << "\nnext token after \"" << t.tokens.back() << "\":";
        for (const auto& p : t.predictions.back()) {
            std::string label = p.token;
            if (!label.empty() && label[0] == ' ') label = "\xC2\xB7" + label.substr(1);
            std::string shown;
            for (char ch : label) {
                if (ch == '\n') shown += "\xE2\x86\xB5";                               // ↵
                else if (ch == '\t') shown += "\xE2\x87\xA5";                          // ⇥
                else if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) shown += "\xEF\xBF\xBD";  // a control character
                else shown += ch;
            }
            label = shown;
            out << "  " << label << " " << fmt(100.0 * p.p, "%.1f%%");
        }
        out << "\n";
    }
    return out.str();
}

std::vector<NpyFile> model_npy_files(const Trace& t) {
    std::vector<NpyFile> files;
    const xt::xtensor<std::int64_t, 1> ids = xt::adapt(t.token_ids, {t.token_ids.size()});
    const std::string model = kModelArrayPrefix;
    files.push_back({model + "-token_ids.npy", xt::dump_npy(ids)});
    for (const auto& l : t.layers)
        for (const auto& h : l.heads) {
            const std::string p = model + "-l" + std::to_string(l.layer) + "-h" + std::to_string(h.head) + "-";
            if (h.scores.size()) files.push_back({p + "scores.npy", xt::dump_npy(h.scores)});
            if (h.mask.size()) {
                const xt::xtensor<bool, 2> visible = xt::cast<bool>(h.mask);
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

std::vector<PngFile> model_pngs(const Trace& t, const HeadChoice& c, PngOptions o) {
    o.prefix = model_head_prefix(t.model->type, t.layers.at(c.layer).layer, c.head);
    std::vector<PngFile> files = render_pngs(chosen_head_trace(t, c), o);
    files.push_back({figure_file_name(t.model->type, figure_word::overview), encode_png(model_overview_image(t, o.scale))});
    return files;
}

std::vector<SvgFile> model_svgs(const Trace& t, const HeadChoice& c, SvgOptions o) {
    o.prefix = model_head_prefix(t.model->type, t.layers.at(c.layer).layer, c.head);
    return render_svgs(chosen_head_trace(t, c), o);
}

}  // namespace attn::render
