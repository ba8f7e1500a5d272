#include "render/terminal/decode_terminal.h"

#include <cstdio>
#include <sstream>

#include "data/base/utf8.h"
#include "render/terminal/terminal.h"
#include "render/view/colour_scale.h"

namespace attn::render {
namespace {

std::string bytes_text(std::uint64_t b) {
    char buf[32];
    if (b < 10240) std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
    else if (b < 10ull << 20) std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024.0);
    else std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / 1048576.0);
    return buf;
}

std::string pad(const std::string& s, std::size_t width) {
    const std::size_t w = display_width(s);
    return w >= width ? s : s + std::string(width - w, ' ');
}

}  // namespace

std::string decode_terminal_view(const DecodeTrace& d, const DecodeViewOptions& opt) {
    std::ostringstream out;
    const Settings& c = d.full.config;
    const std::size_t T = d.steps.size(), head = std::min(opt.head, d.heads - 1);
    out << "attn decode · " << d.full.kind << " · " << T << " token" << (T == 1 ? "" : "s") << " · H = " << d.heads
        << " query head" << (d.heads == 1 ? "" : "s") << ", G = " << d.kv_heads << " key/value head"
        << (d.kv_heads == 1 ? "" : "s") << ", d_k = " << d.d_k << (c.pos != "none" ? ", positions: " + c.pos : "")
        << "\n";
    out << "step t: token t's key and value join the cache; its query attends over the t + 1 cached keys\n"
        << "(mask aligned bottom-right: the newest query is the last position)\n\n";
    std::size_t tok_w = 5;
    // a step's token is shown as its first 48 characters (whole ones), and only those are measured
    const auto shown = [](const std::string& token) { return std::string(utf8_prefix(token, 48)); };
    for (const auto& s : d.steps) tok_w = std::max(tok_w, std::min<std::size_t>(display_width(shown(s.token)), 16));
    const int cell = opt.precision + 3;
    out << "step  " << pad("token", tok_w) << "  weights of head " << head << " over the cached keys";
    const std::size_t row_w = std::min<std::size_t>(T, 12) * std::size_t(cell) + (T > 12 ? 2 : 0);
    out << std::string(row_w > 35 ? row_w - 35 : 1, ' ') << "  cache (K and V)\n";
    // Long runs: the first and last steps, each with its last kMaxKeys weights.
    constexpr std::size_t kMaxKeys = 12, kHeadRows = 16, kTailRows = 8;
    const std::size_t shown_keys = std::min(T, kMaxKeys);
    const std::uint64_t last = d.steps.empty() ? 1 : d.steps.back().cache_bytes;
    for (const DecodeStep& s : d.steps) {
        if (T > kHeadRows + kTailRows && s.step >= kHeadRows && s.step + kTailRows < T) {
            if (s.step == kHeadRows) out << "   …\n";
            continue;
        }
        char buf[32];
        std::snprintf(buf, sizeof buf, "%4zu  ", s.step);
        out << buf << pad(shown(s.token), tok_w) << "  ";
        const auto& w = s.heads[head].weights;
        const std::size_t from = w.size() > kMaxKeys ? w.size() - kMaxKeys : 0;
        out << (T > kMaxKeys ? (from ? " …" : "  ") : "");
        const ColourScale weights;  // viridis, fixed 0-1: the figures' and show's scale of weights
        for (std::size_t j = from; j < w.size(); ++j) {
            std::snprintf(buf, sizeof buf, "%*.*f", cell, opt.precision, double(w[j]));
            if (opt.colour == ColourDepth::none) out << buf;
            else out << cell_escape(weights.colour(w[j]), opt.colour) << buf << "\x1b[0m";
        }
        out << std::string((shown_keys - (w.size() - from)) * std::size_t(cell), ' ') << "  ";
        const std::size_t bar = static_cast<std::size_t>(20.0 * double(s.cache_bytes) / double(last) + 0.5);
        std::string blocks;
        for (std::size_t b = 0; b < std::max<std::size_t>(bar, 1); ++b) blocks += "█";
        out << pad(bytes_text(s.cache_bytes), 10) << blocks << "\n";
    }
    out << "\nKV cache, float32, " << d.layers << " layer, d_k = " << d.d_k << ", d_v = " << d.d_v << " ("
        << d.heads << " query head" << (d.heads == 1 ? "" : "s")
        << (d.variants.size() < 2 ? "; one head, so MHA, GQA and MQA coincide: try --kind gqa --heads 4" : "") << "):\n";
    for (const CacheVariant& v : d.variants) {
        out << "  " << pad(v.name, 4) << " G = " << pad(std::to_string(v.kv_heads), 3) << " "
            << pad(bytes_text(v.bytes_per_token) + " per token", 16) << "  after " << T << " tokens: "
            << (v.this_run ? pad(bytes_text(v.bytes_per_token * T), 10) + "  ← this run" : bytes_text(v.bytes_per_token * T))
            << "\n";
    }
    char buf[96];
    std::snprintf(buf, sizeof buf, "%.3g", d.max_abs_diff);
    out << "\nsteps against the rows of the full causal pass: largest difference " << buf << "\n";
    return out.str();
}

}  // namespace attn::render
