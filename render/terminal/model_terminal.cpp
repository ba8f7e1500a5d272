#include "render/terminal/model_terminal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "core/analysis/head_patterns.h"
#include "render/terminal/text_matrix.h"
#include "render/view/alignment.h"
#include "render/view/layer_aggregates.h"
#include "render/view/model_title.h"

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

// A token as the terminal shows it: a leading space as "·", a newline "↵", a tab "⇥", other control
// characters "�".
std::string shown(const std::string& token) {
    std::string label = token, s;
    if (!label.empty() && label[0] == ' ') label = "\xC2\xB7" + label.substr(1);
    for (char ch : label) {
        if (ch == '\n') s += "\xE2\x86\xB5";                               // ↵
        else if (ch == '\t') s += "\xE2\x87\xA5";                          // ⇥
        else if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F) s += "\xEF\xBF\xBD";  // a control character
        else s += ch;
    }
    return s;
}

// Text padded with spaces to `width` display columns (left-aligned).
std::string padded(const std::string& text, std::size_t width) {
    const std::size_t w = display_width(text);
    return text + std::string(w < width ? width - w : 0, ' ');
}

bool is_aggregate(const std::string& s) { return s == "mean" || s == "rollout"; }

// --show mean / rollout: the chosen layer's mean over heads, the rollout through it, shaded on the
// weights' scale, hidden cells as "·".
void print_aggregates(std::ostream& out, const Trace& t, std::size_t layer, const TerminalOptions& opt) {
    for (const std::string& s : opt.show) {
        if (!is_aggregate(s)) continue;
        const AggregateView v = aggregate_view(t, layer, s == "mean" ? LayerAggregate::mean : LayerAggregate::rollout);
        const HeadTrace& h = v.trace.heads().at(0);
        ValueRange r;
        for (std::size_t c = 0; c < h.weights.size(); ++c)
            if (h.mask.data()[c]) r.add(h.weights.data()[c]);
        const ColourScale sc = make_scale(ValueKind::probability, r, opt.scale, "weight");
        text::MatrixView m;
        m.title = v.trace.kind + " \xC2\xB7 " + v.title_word;
        m.values = &h.weights, m.mask = &h.mask.get(), m.rows = t.tokens, m.cols = t.tokens, m.scale = &sc;
        out << v.subtitle << "; \xC2\xB7: " << v.hidden << "\n";
        text::print_matrix(out, m, opt);
        out << "\n";
    }
}

// Token labels as one line each, wrapped to `width` columns after `indent` (a leading space shown as "·").
void print_tokens(std::ostream& out, const std::string& head, const std::vector<std::string>& tokens, std::size_t width) {
    const std::size_t indent = display_width(head);
    out << head;
    std::size_t at = indent;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        std::string label = tokens[i];
        if (!label.empty() && label[0] == ' ') label = "\xC2\xB7" + label.substr(1);
        for (char& ch : label)
            if (static_cast<unsigned char>(ch) < 0x20) ch = ' ';
        const std::size_t w = display_width(label) + (i ? 1 : 0);
        if (i && at + w > width) out << "\n" << std::string(indent, ' '), at = indent;
        else if (i) out << " ";
        out << label;
        at += w;
    }
    out << "\n";
}

// Text of parts joined by " · ", broken between parts to fit `width` columns.
void print_wrapped(std::ostream& out, const std::string& text, std::size_t width) {
    const std::string dot = " \xC2\xB7 ";
    std::size_t at = 0, col = 0;
    while (at <= text.size()) {
        const std::size_t end = std::min(text.find(dot, at), text.size());
        const std::string part = text.substr(at, end - at);
        const std::size_t w = display_width(part);
        if (col > 0 && col + 3 + w > width) out << "\n", col = 0;
        else if (col > 0) out << dot, col += 3;
        out << part, col += w;
        at = end + dot.size();
    }
    out << "\n";
}

// --show queries,keys: what the chosen head's queries and keys are; with --query I, Q[I], the products
// of Q[I] with every key (rows: keys, columns: dimensions) and each row's sum beside the model's own score.
void print_neuron(std::ostream& out, const Trace& t, const HeadChoice& c, const TerminalOptions& opt) {
    const NeuronTrace* n = neuron_of(t, c);
    if (n == nullptr) return;
    const bool grouped = t.config.kv_heads > 0 && t.config.kv_heads < t.config.heads;
    out << "neuron view (layer " << n->layer << ", head " << n->head << (grouped ? ", kv g " + std::to_string(n->kv_head) : "")
        << "): queries and keys " << neuron_note(t, *n) << "\n";
    if (!n->query || n->products.size() == 0) {
        out << "(add --query I for query I's products with every key)\n\n";
        return;
    }
    const std::size_t I = *n->query, S = n->products.shape(0), d = n->products.shape(1);
    const HeadTrace& h = t.layers().at(c.layer).heads.at(c.head);
    const std::vector<std::string>& keys = t.sets.at(0).key_tokens;
    // 1. Q[I] and the products, on one diverging scale
    Mat q = Mat::from_shape({1, d});
    for (std::size_t k = 0; k < d; ++k) q(0, k) = n->queries(I, k);
    ValueRange r;
    for (float v : q) r.add(v);
    for (float v : n->products) r.add(v);
    const ColourScale sc = make_scale(ValueKind::signed_value, r, opt.scale, "value");
    text::MatrixView mq;
    mq.title = "Q[" + std::to_string(I) + "]", mq.values = &q, mq.rows = {t.tokens.at(I)}, mq.cols = text::dims(d), mq.scale = &sc;
    text::print_matrix(out, mq, opt);
    out << "products Q[" << I << "][c]\xC2\xB7K[j][c]: one row per key j, one column per dimension c; each row sums to the raw score q\xC2\xB7k\n";
    text::MatrixView mp;
    mp.title = "products", mp.values = &n->products, mp.rows = keys, mp.cols = text::dims(d), mp.scale = &sc;
    text::print_matrix(out, mp, opt);
    // 2. each row's sum beside the model's raw score, scaled, and the weight
    const std::string f = "%." + std::to_string(opt.precision) + "f";
    std::vector<std::vector<std::string>> rows = {{"key", "token", "\xCE\xA3 products", "model's q\xC2\xB7k",
                                                   "\xC3\x97 " + fmt(n->scaled_by, "%.6g"), "weight"}};
    for (std::size_t j = 0; j < S; ++j) {
        double sum = 0.0;
        for (std::size_t k = 0; k < d; ++k) sum += static_cast<double>(n->products(j, k));
        const bool seen = h.mask.size() == 0 || h.mask(I, j);
        rows.push_back({std::to_string(j), shown(j < keys.size() ? keys[j] : std::to_string(j)), fmt(sum, f.c_str()),
                        h.scores.size() ? fmt(h.scores(I, j), f.c_str()) : std::string("-"), fmt(sum * n->scaled_by, f.c_str()),
                        seen ? fmt(h.weights(I, j), f.c_str()) : std::string("hidden")});
    }
    std::vector<std::size_t> widths(rows[0].size(), 0);
    for (const auto& row : rows)
        for (std::size_t k = 0; k < row.size(); ++k) widths[k] = std::max(widths[k], display_width(row[k]));
    const std::vector<std::size_t> shown_rows = text::pick(S, 24, opt.full);
    auto line = [&](const std::vector<std::string>& row) {
        out << " ";
        for (std::size_t k = 0; k < row.size(); ++k) out << " " << (k + 1 < row.size() ? padded(row[k], widths[k]) : row[k]);
        out << "\n";
    };
    line(rows[0]);
    for (std::size_t j : shown_rows) {
        if (j == SIZE_MAX) out << "  \xE2\x80\xA6\n";
        else line(rows[j + 1]);
    }
    out << "(\xCE\xA3 products equals the model's own raw score q\xC2\xB7k; \xC3\x97 scale gives the score the softmax reads)\n\n";
}

}  // namespace

std::string encoder_decoder_terminal_view(const Trace& t, const AlignChoice& c, const TerminalOptions& opt) {
    std::ostringstream out;
    const ModelInfo& m = *t.model;
    const Alignment a = alignment(t, c);
    // 1. the model, the source and what the decoder generated
    const auto count = [](std::size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
    out << "model:     " << model_title_with_family(m) << " \xC2\xB7 encoder-decoder \xC2\xB7 " << count(m.n_layer, "encoder layer") << " \xC3\x97 "
        << count(m.n_decoder_layer, "decoder layer") << " \xC2\xB7 " << count(m.n_head, "head") << "\n";
    print_tokens(out, "source:    ", t.source_tokens, opt.width);
    print_tokens(out, "generated: ", generated_labels(t), opt.width);
    out << "           " << (t.teacher_forced ? "teacher-forced: the decoder read --target, not its own choices"
                                              : "greedy: each step's most likely token (beam search may differ)")
        << "\n\n";
    // 2. the alignment matrix on the weights' scale
    ValueRange r;
    for (float v : a.weights) r.add(v);
    const ColourScale sc = make_scale(ValueKind::probability, r, opt.scale, "weight");
    text::MatrixView mv;
    mv.title = a.title;
    mv.values = &a.weights, mv.rows = a.rows, mv.cols = a.cols, mv.scale = &sc;
    for (const std::string& line : a.caption_lines) print_wrapped(out, line, opt.width);
    text::print_matrix(out, mv, opt);
    return out.str();
}

std::string model_terminal_view(const Trace& t, const HeadChoice& c, const TerminalOptions& opt,
                                const std::vector<LayerDistances>* distances) {
    std::ostringstream out;
    const ModelInfo& m = *t.model;
    // 1. the model
    out << "model:    " << model_title_with_family(m) << " \xC2\xB7 " << m.dtype << " \xC2\xB7 " << m.n_layer << " layers \xC3\x97 " << m.n_head
        << " heads \xC2\xB7 " << m.n_embd << " wide \xC2\xB7 " << millions(m.n_params) << " parameters \xC2\xB7 context "
        << m.n_positions << "\n";
    const bool encoder = m.stack == "encoder";
    if (encoder)
        out << "          an encoder: every token sees every token (nothing is hidden), "
            << (t.segments.empty() ? "one text" : "a sentence pair (segments A and B)") << "\n";
    const std::size_t H_ = t.config.heads, G_ = t.config.kv_heads;
    if (G_ > 0 && G_ < H_)  // grouped-query attention: name the groups (kv_head_of in core/base/head.h)
        out << "          " << H_ << " query heads share " << G_ << " key/value heads, " << H_ / G_
            << " each: query head h reads key/value head h / " << H_ / G_ << "\n";
    // 2. the tokens and the chosen head's matrices
    TerminalOptions one = opt;
    one.head.reset();
    one.show.erase(std::remove_if(one.show.begin(), one.show.end(), is_aggregate), one.show.end());
    const Trace head = chosen_head_trace(t, c);
    out << terminal_view(head, one);
    out << "(head " << c.head << " of layer " << t.layers()[c.layer].layer << "; pick another with --layer L --head H; "
        << "\xC2\xB7 marks a leading space)\n";
    if (G_ > 0 && G_ < H_) {
        const std::size_t g = t.layers()[c.layer].heads.at(c.head).kv_head, first = g * (H_ / G_);
        out << "(query head " << c.head << " reads key/value head " << g << ", shared by query heads " << first << "\xE2\x80\x93"
            << first + H_ / G_ - 1 << ")\n";
    }
    out << "\n";
    print_neuron(out, t, c, opt);
    print_aggregates(out, t, t.layers()[c.layer].layer, opt);
    // 3. every head at a glance: mean attention distance
    const std::size_t H = m.n_head;
    if (encoder)
        out << "mean attention distance in tokens (0: each token looks at itself; \xE2\x89\x88" "1: at a neighbour; large: far away, often at [CLS] or [SEP])\n";
    else
        out << "mean attention distance in tokens (0: each token looks at itself; \xE2\x89\x88" "1: at the previous token; large: far back or at the first token)\n";
    out << "        ";
    for (std::size_t h = 0; h < H; ++h) {
        const std::string name = "h" + std::to_string(h);
        out << std::string(name.size() < 7 ? 7 - name.size() : 1, ' ') << name;
    }
    out << "  uniform\n";
    std::vector<LayerDistances> from_trace;
    if (distances == nullptr) {
        for (const LayerTrace& l : t.layers()) from_trace.push_back(layer_distances(l, encoder));
        distances = &from_trace;
    }
    for (const LayerDistances& l : *distances) {
        out << fmt(static_cast<double>(l.layer), "layer %-2.0f");
        for (double d : l.heads) out << "  " << fmt(d, "%5.1f");
        if (!l.heads.empty()) out << "    " << fmt(l.uniform, "%5.1f");
        out << "\n";
    }
    out << "(uniform: the distance of a head that spreads each query's weight evenly over its visible keys, the baseline)\n";
    // 4. what the model predicts: after the last token (decoders), at each mask (encoders)
    if (!t.predictions.empty()) {
        out << "\nnext token after \"" << t.tokens.back() << "\":";
        for (const auto& p : t.predictions.back()) out << "  " << shown(p.token) << " " << fmt(100.0 * p.p, "%.1f%%");
        out << "\n";
    }
    for (const auto& mp : t.mask_predictions) {
        out << (&mp == &t.mask_predictions.front() ? "\n" : "") << "masked-LM head at " << t.tokens.at(mp.position) << " (token "
            << mp.position << "):";
        for (const auto& p : mp.top) out << "  " << shown(p.token) << " " << fmt(100.0 * p.p, "%.1f%%");
        out << "\n";
    }
    return out.str();
}

std::string ablation_terminal_view(const Trace& t, const TerminalOptions& opt) {
    if (!t.ablation) return "";
    const AblationSummary& a = *t.ablation;
    std::ostringstream out;
    // 1. which heads, how, and the text's loss before and after
    std::string heads;
    for (const auto& [l, h] : a.heads) heads += (heads.empty() ? "" : ", ") + std::to_string(l) + "." + std::to_string(h);
    out << "\nablated (" << a.mode << "): heads " << heads << " (layer.head)"
        << (a.mode == "zero" ? ", their context vectors set to 0" : ", their context vectors set to their mean over the text") << "\n";
    const int pr = opt.precision;
    const std::string f = "%." + std::to_string(pr) + "f", fs = "%+." + std::to_string(pr) + "f";
    out << "loss of the text (mean next-token cross-entropy, nats): " << fmt(a.loss_before, f.c_str()) << " \xE2\x86\x92 "
        << fmt(a.loss_after, f.c_str()) << " (" << fmt(a.loss_after - a.loss_before, fs.c_str()) << ")\n";
    // 2. the positions whose top prediction changed, and the 5 whose loss changed most (in order of position)
    std::vector<std::size_t> order(a.positions.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    auto delta = [&](std::size_t i) { return std::abs(a.positions[i].loss_after - a.positions[i].loss_before); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return delta(x) > delta(y); });
    std::vector<bool> listed(a.positions.size(), opt.full);
    for (std::size_t k = 0; k < order.size() && k < 5; ++k) listed[order[k]] = true;
    std::size_t changed = 0;
    for (std::size_t i = 0; i < a.positions.size(); ++i)
        if (a.positions[i].top_before != a.positions[i].top_after) listed[i] = true, ++changed;
    out << changed << " of " << a.positions.size() << " positions changed their top prediction; "
        << (opt.full ? "every position" : "those and the 5 whose loss changed most") << ":\n";
    std::vector<std::vector<std::string>> rows = {{"pos", "token", "next", "top before", "", "top after", "\xCE\x94 loss"}};
    for (std::size_t i = 0; i < a.positions.size(); ++i) {
        if (!listed[i]) continue;
        const AblationPosition& p = a.positions[i];
        rows.push_back({std::to_string(i), shown(t.tokens.at(i)), shown(t.tokens.at(i + 1)),
                        shown(p.token_before) + " " + fmt(p.p_before, f.c_str()), "\xE2\x86\x92",
                        shown(p.token_after) + " " + fmt(p.p_after, f.c_str()) + (p.top_after != p.top_before ? " *" : ""),
                        fmt(p.loss_after - p.loss_before, fs.c_str())});
    }
    std::vector<std::size_t> widths(rows[0].size(), 0);
    for (const auto& r : rows)
        for (std::size_t c = 0; c < r.size(); ++c) widths[c] = std::max(widths[c], display_width(r[c]));
    for (const auto& r : rows) {
        out << " ";
        for (std::size_t c = 0; c < r.size(); ++c) out << " " << (c + 1 < r.size() ? padded(r[c], widths[c]) : r[c]);
        out << "\n";
    }
    out << "(* the top prediction changed; \xCE\x94 loss = loss after \xE2\x88\x92 loss before of the true next token)\n";
    return out.str();
}

std::string lens_terminal_view(const Trace& t, const TerminalOptions& opt) {
    if (t.lens.empty()) return "";
    std::ostringstream out;
    const std::size_t T = t.tokens.size();
    const std::string f = "%." + std::to_string(opt.precision) + "f";
    out << "\nlogit lens: the top next token (and its probability) from the residual stream after each layer\n";
    // cells: the header row is the input tokens, then one row per depth
    std::vector<std::string> head(T);
    std::vector<std::vector<std::string>> cells(t.lens.size(), std::vector<std::string>(T));
    std::vector<std::size_t> widths(T);
    for (std::size_t i = 0; i < T; ++i) {
        head[i] = shown(t.tokens[i]), widths[i] = display_width(head[i]);
        for (std::size_t r = 0; r < t.lens.size(); ++r) {
            cells[r][i] = shown(t.lens[r].tokens.at(i)) + " " + fmt(t.lens[r].p.at(i), f.c_str());
            widths[i] = std::max(widths[i], display_width(cells[r][i]));
        }
    }
    const std::size_t label = 9;  // "layer 11 " / "emb      "
    std::size_t used = label, fit = 0;
    for (std::size_t i = 0; i < T && used + widths[i] + 2 <= opt.width; ++i) used += widths[i] + 2, ++fit;
    const std::vector<std::size_t> cols = text::pick(T, std::max<std::size_t>(fit, 2 * text::kEdge + 1), opt.full);
    auto line = [&](const std::string& name, const std::vector<std::string>& row) {
        out << padded(name, label);
        for (std::size_t c : cols) out << "  " << (c == SIZE_MAX ? std::string("\xE2\x80\xA6") : padded(row[c], widths[c]));
        out << "\n";
    };
    line("input", head);
    for (std::size_t r = 0; r < t.lens.size(); ++r)
        line(t.lens[r].layer == "emb" ? "emb" : "layer " + t.lens[r].layer, cells[r]);
    out << "(emb: the embeddings; the last layer's row is the model's own prediction)\n";
    return out.str();
}

}  // namespace attn::render
