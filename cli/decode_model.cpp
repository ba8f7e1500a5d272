// attn decode --model DIR: a real model's key/value cache filled one token at a time; the terminal
// table, and the steps as JSON ("attn-decode"), figures (staircase, cache) and the full pass's page.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/policy/budget.h"
#include "cli/policy/progress.h"
#include "cli/show_model.h"
#include "core/model/model.h"
#include "data/base/error.h"
#include "data/checkpoint/model_checkpoint.h"
#include "render/outputs/figures.h"
#include "render/page/html.h"
#include "render/text/font.h"
#include "render/trace_io/decode_json.h"

namespace attn::cli {
namespace {

// --layer and --head against the model's shape (usage errors: exit 2).
ModelDecodeOptions decode_choice(const ModelDecodeCliOptions& o, const ModelConfig& c) {
    ModelDecodeOptions d;
    d.layer = o.layer.value_or(0), d.head = o.head;
    if (d.layer >= c.n_layer)
        usage_error("--layer " + std::to_string(d.layer) + " is past the model's last layer " + std::to_string(c.n_layer - 1),
                    "layers count from 0");
    if (d.head && *d.head >= c.n_head)
        usage_error("--head " + std::to_string(*d.head) + " is past the model's last head " + std::to_string(c.n_head - 1),
                    "heads count from 0");
    return d;
}

// The full pass (every layer kept, as the steps are checked against all of them) with the figures and
// page asked for, then the decode JSON: its steps' rows, T(T + 1)/2 numbers per recorded head.
void check_decode_budget(const ModelDecodeCliOptions& o, const ModelConfig& c, std::size_t T, std::size_t recorded_heads,
                         double text_scale) {
    const policy::OutputRequest& r = o.outputs;
    OutputPlan plan;
    plan.png = r.png.has_value(), plan.svg = r.svg.has_value(), plan.html = r.html.has_value();
    plan.scale = o.scale, plan.text_scale = text_scale, plan.force = true;  // the trace's JSON is not written
    plan.max_memory = o.max_memory ? parse_bytes(*o.max_memory, "--max-memory") : 0;
    check_model_run_budget(c, weights_memory(o.model), T, c.n_layer, plan);
    if (!r.json) return;
    const double half = double(T) * double(T + 1) / 2.0;
    const double json = json_text_bytes(double(recorded_heads) * half + 2.0 * double(T), 0.0, 0.0, 64.0 * double(T));
    if (json > double(kMaxJsonBytes) && !o.force)
        usage_error("the decode JSON would be about " + format_bytes(json) + ", more than " + format_bytes(double(kMaxJsonBytes)),
                    "decode fewer tokens, record one head (--head N), or add --force");
}

void print_decode(const DecodeTrace& d, const ModelCheckpoint& model, int precision) {
    const ModelConfig& c = model.config;
    std::cout << "model:    " << model.family->name << " \xC2\xB7 " << model.dtype << " \xC2\xB7 " << c.n_layer << " layers \xC3\x97 "
              << c.n_head << " query heads over " << c.n_kv_head << " key/value heads \xC2\xB7 head_dim " << c.head_dim << "\n";
    std::cout << "attn decode \xC2\xB7 " << d.steps.size() << " tokens fed one at a time; each step's queries attend over the cached keys\n\n";
    // columns padded by characters, not bytes (labels hold '·' and other non-ASCII text)
    auto pad = [](const std::string& s, std::size_t width, bool right = false) {
        std::size_t chars = 0;
        for (unsigned char ch : s) chars += (ch & 0xC0) != 0x80;
        const std::string fill(chars < width ? width - chars : 0, ' ');
        return right ? fill + s : s + fill;
    };
    std::cout << pad("step", 5, true) << "  " << pad("token", 18) << pad("next (top 1)", 18) << pad("cache", 10, true) << "\n";
    for (const auto& s : d.steps)
        std::cout << pad(std::to_string(s.step), 5, true) << "  " << pad(s.token, 18) << pad(s.next, 18)
                  << pad(format_bytes(static_cast<double>(s.cache_bytes)), 10, true) << "\n";
    char diff[400];  // %g of a double: at most 310 characters
    std::snprintf(diff, sizeof diff, "%.*g", std::max(1, precision / 2), d.max_abs_diff);
    std::cout << "\nevery step's weights equal row t of the full pass within " << diff << " (largest difference)"
              << (d.model->top_changed ? "; some top prediction differs from the full pass's" : "; the same top predictions") << "\n";
    const auto G = c.n_kv_head, H = c.n_head;
    const std::size_t bytes = d.model->dtype_bytes;
    std::cout << "key/value cache per token: " << c.n_layer << " layers \xC3\x97 " << G << " key/value heads \xC3\x97 " << c.head_dim
              << " head_dim \xC3\x97 2 (k, v) \xC3\x97 " << bytes << " bytes (" << model.dtype
              << ") = " << cache_bytes_per_token(c.n_layer, G, c.head_dim, c.head_dim, bytes) << " bytes\n";
    std::cout << "  as multi-head attention (" << H << " key/value heads): "
              << cache_bytes_per_token(c.n_layer, H, c.head_dim, c.head_dim, bytes) << " bytes";
    if (G != H) std::cout << "; sharing each key/value head among " << H / G << " query heads keeps 1/" << H / G << " of it";
    std::cout << "\n";
}

}  // namespace

void run_decode_model(const ModelDecodeCliOptions& o) {
    const policy::OutputRequest& r = o.outputs;
    const double text_scale = o.font ? render::check_font_file(*o.font) : 1.0;
    // 1. the folder and the text, within the model's context; the layer and head recorded
    const ParsedConfig parsed = read_model_config(o.model);
    const ModelConfig& c = parsed.config;
    if (parsed.family->recipe.stack == Stack::encoder)
        usage_error(std::string("decode feeds a decoder one token at a time through its key/value cache, and ") + parsed.family->title +
                        " is an encoder: every token sees every other at once",
                    "attn show --model " + o.model + " \"text\" shows an encoder's heads");
    const Tokenizer tok = Tokenizer::load_dir(o.model);
    const std::vector<std::int64_t> ids = model_token_ids(tok, c, o.text);
    const ModelDecodeOptions choice = decode_choice(o, c);
    check_decode_budget(o, c, ids.size(), choice.head ? 1 : c.n_head, text_scale);
    const auto model = load_model_checkpoint(o.model);
    // 2. the full pass and the steps
    const bool quiet = policy::json_to_stdout(r);
    policy::Progress progress(::isatty(STDERR_FILENO) && !quiet);
    progress("decoding", 0, 1);
    const DecodeTrace d = run_model_decode(*model, tok, ids, choice);
    // 3. the outputs: the steps, the figures (named after --prefix or the family), the full pass's page
    policy::RunOutputs out(r);
    if (r.json) out.files.push_back({*r.json, render::decode_json_text(d)});
    const render::FigureFiles figures{r.prefix, o.scale, o.font.value_or("")};
    if (r.png) out.png.add(out.files, render::decode_figures(d, figures, render::FileType::png));
    if (r.svg) out.svg.add(out.files, render::decode_figures(d, figures, render::FileType::svg));
    if (r.html)
        out.files.push_back({*r.html, render::render_html(d.full, {"attn decode --model", choice.layer, choice.head.value_or(0), std::nullopt})});
    progress("writing files", out.files.size(), out.files.size());
    policy::write_outputs(r, out, render::FileSet::decode);
    if (!quiet) {
        print_decode(d, *model, o.precision);
        policy::say_written(r, std::cout);
        std::cout.flush();
    }
}

}  // namespace attn::cli
