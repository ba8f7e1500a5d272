// The terminal view: what ran, the matrices --show asks for (stage by stage, heads side by side), the
// --query strip and the run's diagnostics. render/terminal/text_matrix.h lays the matrices out as text.
#include "render/terminal/terminal.h"
#include "render/view/model_title.h"
#include "render/view/numbers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "render/trace_io/json.h"
#include "render/view/stages.h"
#include "render/terminal/text_matrix.h"

namespace attn::render {
namespace {

// "head 2 · kv 1" where query heads share key/value heads, "head 2" where each has its own (MHA).
std::string head_name(const Trace& t, const HeadTrace& h) {
    const bool shared = t.config.kv_heads < t.config.heads;
    return "head " + std::to_string(h.head) + (shared ? " · kv " + std::to_string(h.kv_head) : std::string());
}

using text::Block;
using text::MatrixView;
using text::dims;
using text::note_rounding;
using text::pick;
using text::place;
using text::print_matrix;
using text::render_matrix;

// The matrix of stage s for head h (derived ones into `store`); nullptr when the trace lacks it.
const Mat* stage_matrix(const Trace& t, const HeadTrace& h, Stage s, Mat& store) {
    switch (s) {
        case Stage::scores: return h.scores.size() ? &h.scores : nullptr;
        case Stage::masked_scores: store = masked_scores(h); return store.size() ? &store : nullptr;
        case Stage::weights: return h.weights.size() ? &h.weights : nullptr;
        case Stage::zeroed: store = zeroed_weights(h); return store.size() ? &store : nullptr;
        case Stage::dropped: return h.dropped_weights.size() ? &h.dropped_weights : nullptr;
        case Stage::context: return &h.context;
        case Stage::queries: return h.queries.size() ? &h.queries : nullptr;
        case Stage::keys: return h.keys.size() ? &h.keys : nullptr;
        case Stage::values: return h.values.size() ? &h.values : nullptr;
        case Stage::output: return t.output.size() ? &t.output : nullptr;
        case Stage::mask: return nullptr;
    }
    return nullptr;
}

// Stage s of every head, on one colour scale (as the images draw them), placed side by side.
void print_stage(std::ostream& out, const Trace& t, Stage s, const TerminalOptions& opt) {
    const bool many = t.heads().size() > 1 && s != Stage::output;
    const std::size_t n = s == Stage::output ? 1 : t.heads().size();
    std::vector<Mat> store(n);
    std::vector<const Mat*> mats(n, nullptr);
    for (std::size_t k = 0; k < n; ++k) mats[k] = stage_matrix(t, t.heads()[k], s, store[k]);
    const bool shaded = s == Stage::scores || s == Stage::masked_scores || s == Stage::weights ||
                        s == Stage::zeroed || s == Stage::dropped;
    // 1. the colour scale over every head's visible values
    ValueRange r;
    const auto skipped = [&](std::size_t k) { return opt.head && s != Stage::output && t.heads()[k].head != *opt.head; };
    for (std::size_t k = 0; k < n; ++k)
        if (mats[k] && shaded && !skipped(k)) {
            const HeadTrace& h = t.heads()[k];
            const bool masked = s != Stage::scores && h.mask.size() == mats[k]->size();
            for (std::size_t c = 0; c < mats[k]->size(); ++c)
                if (!masked || h.mask.data()[c]) r.add(mats[k]->data()[c]);
        }
    const char* what = stage_value_kind(s) == ValueKind::probability ? "weight" : "score";
    const ColourScale sc = make_scale(stage_value_kind(s), r, opt.scale, what);
    // 2. one block per head
    std::vector<Block> blocks;
    for (std::size_t k = 0; k < n; ++k) {
        if (skipped(k)) continue;
        const HeadTrace& h = t.heads()[k];
        MatrixView m;
        m.rows = t.tokens, m.cols = t.source_tokens;
        m.title = many ? head_name(t, h) : stage_name(s);
        if (s == Stage::mask) {
            if (!h.mask.size()) continue;
            m.as_mask = &h.mask.get();
        } else {
            if (!mats[k]) continue;
            m.values = mats[k];
            if (shaded) m.scale = &sc;
            if ((s == Stage::weights || s == Stage::dropped || s == Stage::zeroed) && h.mask.size()) m.mask = &h.mask.get();
            if (s == Stage::dropped) m.dropout = &h;
            if (s == Stage::context || s == Stage::queries || s == Stage::output) m.cols = dims(m.values->shape(1));
            if (s == Stage::keys || s == Stage::values) m.rows = t.source_tokens, m.cols = dims(m.values->shape(1));
        }
        blocks.push_back(render_matrix(m, opt));
    }
    if (blocks.empty()) return;
    // 3. what the matrices hold, once above them
    const std::string holds = stage_subtitle(t, s), name = stage_name(s);  // "keys: one row per key token" names itself
    out << (holds.rfind(name, 0) == 0 ? holds : name + ": " + holds);
    if ((s == Stage::queries || s == Stage::keys) && !t.heads().empty() && t.heads()[0].queries_unrotated.size())
        out << " (rotated by position)";
    out << "\n";
    if (s != Stage::context && s != Stage::queries && s != Stage::keys && s != Stage::values && s != Stage::output)
        out << "  rows: " << row_axis(t) << " tokens · columns: " << col_axis(t) << " tokens";
    if (shaded && opt.colour != ColourDepth::none)
        out << " · colour: " << sc.caption << " (" << sc.low_label() << " to " << sc.high_label() << ", "
            << sc.cmap_name << ")";
    if (s != Stage::context && s != Stage::queries && s != Stage::keys && s != Stage::values && s != Stage::output)
        out << "\n";
    place(out, blocks, opt.width);
    note_rounding(out, blocks, opt);
    if (s == Stage::dropped)
        out << "(the dropout mask is the one PyTorch's CPU generator draws for this seed; a GPU, or another "
               "library, draws another)\n";
}

// --show bias (ALiBi's m (j - i), added to the scaled scores) and unrotated (queries and keys before
// RoPE), head by head (--head: that head only).
void print_position_stage(std::ostream& out, const Trace& t, const std::string& name, const TerminalOptions& opt) {
    std::vector<Block> blocks;
    for (const HeadTrace& h : t.heads()) {
        if (opt.head && h.head != *opt.head) continue;
        const std::string head = t.heads().size() > 1 ? head_name(t, h) + " · " : "";
        MatrixView m;
        m.rows = t.tokens, m.cols = t.source_tokens;
        if (name == "bias" && h.bias.size()) {
            m.values = &h.bias, m.mask = &h.mask.get();
            m.title = head + "bias (ALiBi m (j - i), added to the scaled scores)";
            blocks.push_back(render_matrix(m, opt));
        } else if (name == "unrotated" && h.queries_unrotated.size()) {
            m.values = &h.queries_unrotated, m.cols = dims(h.queries_unrotated.shape(1));
            m.title = head + "queries before RoPE";
            blocks.push_back(render_matrix(m, opt));
            m.values = &h.keys_unrotated, m.rows = t.source_tokens, m.cols = dims(h.keys_unrotated.shape(1));
            m.title = head + "keys before RoPE";
            blocks.push_back(render_matrix(m, opt));
        }
    }
    place(out, blocks, opt.width);
    note_rounding(out, blocks, opt);
}

// --query I: one query's row through every stage, and the weighted sum of the values it gives.
void print_query_strip(std::ostream& out, const Trace& t, std::size_t i, const TerminalOptions& opt) {
    for (const HeadTrace& h : t.heads()) {
        if (h.scores.size() == 0 || i >= h.scores.shape(0)) continue;
        const std::size_t S = h.scores.shape(1);
        const Mat masked = masked_scores(h);
        // rows: raw, scaled, masked, softmax                     (4, S)
        Mat strip = Mat::from_shape({4, S});
        for (std::size_t j = 0; j < S; ++j) {
            strip(0, j) = h.scores(i, j);
            strip(1, j) = h.scale * h.scores(i, j);
            strip(2, j) = masked(i, j);
            strip(3, j) = h.weights(i, j);
        }
        MatrixView m;
        const std::string head = t.heads().size() > 1 ? " · head " + std::to_string(h.head) : "";
        m.title = "query " + std::to_string(i) + " '" + (i < t.tokens.size() ? t.tokens[i] : "") + "'" + head;
        m.values = &strip, m.cols = t.source_tokens;
        m.rows = {"1 " + score_formula(t), "2 ×" + short_number(h.scale), "3 masked", "4 softmax"};
        // a model run keeps no values: its walkthrough ends at the softmax
        const bool context = h.context.size() > 0 && i < h.context.shape(0);
        out << "query " << i << ": " << score_formula(t) << " → scaled → masked (−∞) → softmax"
            << (context ? " → Σ_j w_ij v_j\n" : "\n");
        std::vector<Block> blocks{render_matrix(m, opt)};
        if (!context) {
            place(out, blocks, opt.width);
            continue;
        }
        // the weighted sum of the values                        (1, d_v)
        Mat ctx = Mat::from_shape({1, h.context.shape(1)});
        for (std::size_t d = 0; d < h.context.shape(1); ++d) ctx(0, d) = h.context(i, d);
        MatrixView c;
        c.title = "5 context = Σ_j w_ij v_j", c.values = &ctx, c.rows = {"context"}, c.cols = dims(ctx.shape(1));
        blocks.push_back(render_matrix(c, opt));
        place(out, blocks, opt.width);
    }
}

}  // namespace

const std::vector<std::string>& showable_matrices() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n = stage_names();
        for (const char* extra : {"positions", "bias", "unrotated"}) n.emplace_back(extra);
        for (const char* layer : {"mean", "rollout"}) n.emplace_back(layer);  // a model's layer (model_terminal.h)
        return n;
    }();
    return names;
}

std::string terminal_view(const Trace& t, const TerminalOptions& opt) {
    std::ostringstream out;
    write_terminal_view(out, t, opt);
    return out.str();
}

void write_terminal_view(std::ostream& out, const Trace& t, const TerminalOptions& opt) {
    // 1. what ran
    const std::size_t T = t.tokens.size(), S = t.source_tokens.size();
    out << "attn · " << t.kind << " · " << T << " token" << (T == 1 ? "" : "s");
    if (t.has_source) out << " attending over " << S << " source token" << (S == 1 ? "" : "s");
    if (const std::string note = random_weights_note(t); !note.empty()) out << " · " << note;  // as every figure says
    out << "\n";
    auto list = [&](const char* label, const std::vector<std::string>& tokens) {
        out << label;
        const auto idx = pick(tokens.size(), 40, opt.full);
        for (std::size_t k = 0; k < idx.size(); ++k)
            out << (k ? " | " : "") << (idx[k] == SIZE_MAX ? std::string("…") : tokens[idx[k]]);
        out << "\n";
    };
    list("tokens:   ", t.tokens);
    if (t.has_source) list("source:   ", t.source_tokens);
    if (!t.model) {  // a model run's settings are its config (render/outputs/model_view.cpp prints them)
        out << "settings: ";
        bool first = true;
        const Json settings = config_json(t.config);
        for (const auto& [key, value] : settings.items()) {
            // strings as text a terminal shows as such (--weights names a file: any bytes)
            out << (first ? "" : " ") << key << "=" << (value.is_string() ? printable_name(value.get<std::string>()) : value.dump());
            first = false;
        }
        out << "\n";
    }
    out << "\n";
    // 2. the matrices asked for: the positional table, then head by head
    if (std::find(opt.show.begin(), opt.show.end(), "positions") != opt.show.end() && t.positions.size()) {
        MatrixView m;
        m.title = "positions (PE[p, 2i] = sin(p / 10000^(2i/D)), PE[p, 2i+1] = cos(...), added to x)";
        m.values = &t.positions, m.rows = t.tokens, m.cols = dims(t.positions.shape(1));
        print_matrix(out, m, opt);
    }
    // the matrices asked for, stage by stage, heads side by side
    for (const auto& name : opt.show) {
        if (const auto s = find_stage(name)) print_stage(out, t, *s, opt);
        else if (name == "bias" || name == "unrotated") print_position_stage(out, t, name, opt);
    }
    if (opt.query) print_query_strip(out, t, *opt.query, opt);
    // 3. what the run measured
    for (const auto& d : t.diagnostics) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3g", d.value);
        if (d.name == "flash_max_abs_diff")
            out << "flash: largest difference from the unblocked computation: " << buf << " (" << t.tiles.size()
                << " tiles visited)\n";
        else if (d.name == "renorm_max_abs_diff")
            out << "renorm: largest difference from -inf masking: " << buf << "\n";
        else
            out << d.name << ": " << buf << "\n";
    }
    if (!t.empty_rows.empty())
        out << "note: " << t.empty_rows.size() << " query row(s) see no key; their weights and context are 0\n";
}

}  // namespace attn::render