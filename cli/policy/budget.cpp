#include "cli/policy/budget.h"

#include <unistd.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <limits>

#include "core/model/model.h"
#include "data/base/error.h"
#include "data/checkpoint/model_checkpoint.h"

namespace attn {

void check_run_budget(const Settings& c, const RunShape& shape, const OutputPlan& out) {
    const std::size_t limit = out.max_memory ? out.max_memory : default_max_memory();
    const RunEstimate run = out.decode ? estimate_decode_run(c, shape) : estimate_run(c, shape);
    const double json = !out.json ? 0.0
                        : out.decode ? double(estimate_decode_json_memory(c, shape))
                                     : json_bytes(c, shape);  // the text; no document tree is built
    const std::size_t heads = kind_named(c.kind).geometry(c, shape.d_src).heads;
    const double png = out.png ? double(estimate_png_bytes(heads, shape.T, shape.S, out.scale, out.text_scale)) : 0.0;
    const double svg = out.svg ? double(estimate_svg_bytes(heads, shape.T, shape.S)) : 0.0;
    const double html = out.html ? double(estimate_html_bytes(heads, shape.T, shape.S)) : 0.0;
    const double npy = out.npy ? run.total : 0.0;  // every matrix encoded in memory once more
    const double total = run.total + json + png + svg + html + npy;
    if (total > double(limit)) {
        // 1. the outputs to drop, 2. the flash tile when it is the largest part, 3. a smaller run
        std::string lower;
        if (out.json && out.json_optional) lower += "drop --json (" + format_bytes(json) + ") or write --npy instead, ";
        if (out.png) lower += "drop --png (" + format_bytes(png) + "), ";
        if (out.svg) lower += "drop --svg (" + format_bytes(svg) + "), ";
        if (out.html) lower += "drop --html (" + format_bytes(html) + "), ";
        if (out.npy) lower += "drop --npy (" + format_bytes(npy) + "), ";
        if (run.tiles > total / 2) lower += "lower --block-q or --block-k (the tiles take " + format_bytes(run.tiles) + "), ";
        if (run.records > total / 2)
            lower += "raise --block-q and --block-k (the trace's tile records take " + format_bytes(run.records) + "), ";
        usage_error("this run would need about " + format_bytes(total) + " of memory, more than --max-memory " +
                        format_bytes(double(limit)),
                    lower + out.fewer + ", or " + out.more);
    }
    const double json_text = !out.json ? 0.0
                             : out.decode ? double(estimate_decode_json_bytes(c, shape))
                                          : json_bytes(c, shape);
    if (json_text > double(kMaxJsonBytes) && !out.force)
        usage_error("the JSON trace would be about " + format_bytes(json_text) + ", more than " +
                        format_bytes(double(kMaxJsonBytes)),
                    out.big_json);
}

void check_model_run_budget(const ModelConfig& c, std::uint64_t weight_bytes, std::size_t T, std::size_t kept,
                            const OutputPlan& out) {
    const double TT = double(T) * double(T), H = double(c.n_head);
    const double weights = double(weight_bytes);  // mapped pages + widened copies (weights_memory)
    const double cell = out.raw_scores ? 9.0 : 5.0;  // a kept head's bytes a cell: scores, weights, mask (or weights, mask)
    const double run = model_run_bytes(c, T, kept, cell);
    // per kept head the scores, the weights (a decoder's causal half 0, an encoder's none: a BERT-shaped
    // run's JSON at 1,500 tokens outgrew an estimate that assumed the half), the mask's booleans; the
    // layer means and rollouts (as the weights); the predictions
    const double seen = out.bidirectional ? TT : double(T) * double(T + 1) / 2.0;
    const double numbers = double(kept) * H * (TT + seen) + 2.0 * double(c.n_layer) * seen + 15.0 * double(T);
    const double zeros = (double(kept) * H + 2.0 * double(c.n_layer)) * (TT - seen);
    const double json = out.json ? json_text_bytes(numbers, zeros, double(kept) * H * TT, 0.0) : 0.0;  // no document tree
    // one head's figures, the overview (2 MB: with the heads' masks shared the GPT-2-shaped 1-head run at
    // 1,500 words peaks at 218 MiB, and 8 MB here put the estimate at 1.30 times that)
    const double png = out.png ? double(estimate_png_bytes(1, T, T, out.scale, out.text_scale)) + 2e6 : 0.0;
    const double svg = out.svg ? double(estimate_svg_bytes(1, T, T)) : 0.0;
    const double html = out.html ? double(estimate_html_bytes(std::max<std::size_t>(kept * c.n_head, 1), T, T)) : 0.0;
    const double npy = out.npy ? double(kept) * H * 9.0 * TT + 8.0 * double(c.n_layer) * TT : 0.0;
    // What the views hold while every output above is still in memory (the files are written, then the
    // terminal view is printed): the chosen head copied into a view (scores, weights, mask: 9 bytes a
    // cell), its uniform baseline (4) and the keys it sees (1) for the mean-distance column; with
    // --show mean,rollout a layer's mean copied into a view with its visible cells, the rollout's reach
    // as booleans and its baseline (14.2 bytes a cell measured at 2,048 tokens: 15). The forward pass's
    // working layer (model_run_bytes counts it: `cell`·H bytes a cell) is freed by then, so only what the
    // views need beyond it is added. Measured on a 1-head Llama-shaped folder at 2,048 tokens, where
    // the views weigh most: 192.5 MiB of heap at the terminal view's peak, 48 bytes a cell.
    const double working = cell * H * TT;
    const double views = (out.head_view ? 14.0 * TT : 0.0) + (out.aggregates ? 15.0 * TT : 0.0);
    const double view = std::max(0.0, views - working);
    // code, libraries, OpenBLAS's buffers: a 3-token run peaks at 8.6 MiB (16.8 MiB while libcurl and its
    // libraries were linked, 12.6 MiB while libzip, libcrypto and the shared OpenBLAS were; they are now
    // opened when needed or linked in, data/base/shared_library.h)
    const double program = 12.0 * (1 << 20);
    const double limit = double(out.max_memory ? out.max_memory : default_max_memory());
    const double total = program + weights + run + json + png + svg + html + npy + view;
    if (total > limit)
        usage_error("this run would need about " + format_bytes(total) +
                        " of memory, more than --max-memory " + format_bytes(limit),
                    std::string(out.json ? "drop --json or keep fewer layers (--keep-layers), " : "") +
                        "use fewer tokens, or raise --max-memory");
    if (json > double(kMaxJsonBytes) && !out.force)
        usage_error("the JSON trace would be about " + format_bytes(json) + ", more than " +
                        format_bytes(double(kMaxJsonBytes)),
                    "keep fewer layers (--keep-layers 0,5), write --npy DIR instead, or add --force");
}

std::size_t physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    const double bytes = pages > 0 && page > 0 ? double(pages) * double(page) : double(8ull << 30);
    // saturating where size_t has 32 bits (WebAssembly)
    const double most = static_cast<double>(std::numeric_limits<std::size_t>::max());
    return bytes >= most ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(bytes);
}

std::size_t default_max_memory() { return physical_memory_bytes() / 4 * 3; }

std::size_t parse_bytes(const std::string& text, const std::string& option) {
    const std::string what = option + " '" + text + "'";
    const auto digits = [&](std::size_t i) {
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
        return i;
    };
    // 1. the number: digits, optionally '.' and more digits; nothing else
    std::size_t end = digits(0);
    if (end == 0) usage_error(what + " is not a size", "write e.g. 512M, 8G or 1000000");
    if (end < text.size() && text[end] == '.') {
        const std::size_t frac = digits(end + 1);
        if (frac == end + 1) usage_error(what + " is not a size", "write e.g. 512M, 8G or 1000000");
        end = frac;
    }
    const double value = std::strtod(text.substr(0, end).c_str(), nullptr);
    // 2. the unit: none or B; K, M, G, T, P, E with an optional B or iB
    std::string unit = text.substr(end);
    for (char& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    const std::string prefixes = "KMGTPE";
    double scale = 1.0;
    if (!unit.empty() && unit != "B") {
        const std::size_t p = prefixes.find(unit[0]);
        const std::string rest = unit.substr(1);
        if (p == std::string::npos || !(rest.empty() || rest == "B" || rest == "IB")) {
            bool letters = true;
            for (char ch : unit) letters = letters && std::isalpha(static_cast<unsigned char>(ch));
            if (!letters) usage_error(what + " is not a size", "write e.g. 512M, 8G or 1000000");
            usage_error(what + " has an unknown unit", "use K, M, G, T, P or E (powers of 1024), or none for bytes");
        }
        scale = std::ldexp(1.0, 10 * static_cast<int>(p + 1));
    }
    // 3. whole bytes, at least one, below 2^64
    const double bytes = value * scale;
    if (bytes < 1.0) usage_error(what + " is too small", "give at least 1 byte, e.g. 512M or 8G");
    if (bytes >= 18446744073709551616.0) usage_error(what + " is too large", "give less than 16E (2^64 bytes)");
    // the page's 32-bit core: what a size_t cannot hold is as good as no limit
    const double most = static_cast<double>(std::numeric_limits<std::size_t>::max());
    return bytes >= most ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(bytes);
}

std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) bytes /= 1024.0, ++u;
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

}  // namespace attn
