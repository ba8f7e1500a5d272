#include "render/page/html.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <zlib.h>

#include "core/analysis/head_report.h"
#include "core/kinds/kinds.h"
#include "data/text/bpe_tokenizer.h"
#include "render/page/page_buffer.h"
#include "render/page/page_payload.h"
#include "render/view/colormaps.h"
#include "render/view/model_title.h"
#include "render/view/colour_scale.h"
#include "render/view/model_choice.h"
#include "render/view/stages.h"
#include "render/text/font.h"
#include "render/trace_io/decode_json.h"
#include "render/trace_io/json.h"

namespace attn::render {
namespace {

// The page's buffer deflated (zlib), as its scripts inflate it (DecompressionStream).
std::string deflate_buffer(const std::string& raw) {
    uLongf size = compressBound(static_cast<uLong>(raw.size()));
    std::string out(size, '\0');
    // Level 6 (zlib's default): on a 12-layer, 12-head trace at 128 tokens, level 9 saved under 2%.
    if (compress2(reinterpret_cast<Bytef*>(&out[0]), &size, reinterpret_cast<const Bytef*>(raw.data()),
                  static_cast<uLong>(raw.size()), 6) != Z_OK)
        throw std::runtime_error("render_html: zlib could not compress the page's data");
    out.resize(size);
    return out;
}


// JSON inside <script>: "<", ">" and "&" only occur inside strings there, where \u escapes mean the same.
std::string script_safe(const std::string& json) {
    std::string out;
    out.reserve(json.size());
    for (char c : json) {
        if (c == '<') out += "\\u003c";
        else if (c == '>') out += "\\u003e";
        else if (c == '&') out += "\\u0026";
        else out += c;
    }
    return out;
}

std::string html_text(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '&') out += "&amp;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

}  // namespace

namespace {

// The page of a trace; `generation` (or null) joins its data as "generation" (render_decode_html).
std::string page_html(const Trace& t, const HtmlOptions& opt, Json generation) {
    // 1. the selection it opens with must exist (an encoder-decoder's page opens on its cross set)
    const bool seq2seq = encoder_decoder(t);
    if (seq2seq) check_seq2seq_sets(t);
    const AttentionSet& opening = t.sets.at(seq2seq ? kOpeningSet : 0);
    const std::size_t L = opening.layers.size();
    if (opt.layer && (!opening.model_layers || *opt.layer >= L)) throw std::invalid_argument("render_html: no such layer");
    const std::size_t H = opening.layers.at(opt.layer.value_or(0)).heads.size();
    if (opt.head && *opt.head >= H) throw std::invalid_argument("render_html: no such head");
    // 2. the data; the live panel only where it can run the trace again (page_runs_live), and only with the core
    HtmlOptions o = opt;
    const std::string core = o.live && page_runs_live(t) ? live_core_js() : std::string();
    if (core.empty()) o.live.reset();
    std::string blob;
    Json data = page_payload(t, o, blob);
    if (!generation.is_null()) data["generation"] = std::move(generation);
    data["raw_bytes"] = blob.size();
    const std::string packed = deflate_buffer(blob);
    data["blob_bytes"] = packed.size();
    const std::string wasm = core.empty() ? std::string() : live_core_wasm();  // deflated by the build
    if (!core.empty()) data["core_bytes"] = wasm.size();
    std::string model_packed;  // a carried model folder's files, one after another, deflated
    if (!core.empty() && !o.embedded_files.empty()) {
        std::string raw;
        Json files = Json::array();
        for (const auto& [name, bytes] : o.embedded_files) {
            files.push_back({name, bytes.size()});
            raw += bytes;
        }
        model_packed = deflate_buffer(raw);
        data["embedded_model"] = {{"name", o.embedded_model}, {"files", files}, {"bytes", model_packed.size()}};
    }
    // 3. the page
    std::string title = "attn: " + shown_text(t.kind, kMaxLabelChars);  // a trace's strings may be long
    const std::vector<std::string>& words = seq2seq ? t.source_tokens : t.tokens;  // a decoder's first token is its start
    if (!words.empty()) title += " — " + shown_text(words[0], kMaxLabelChars) + (words.size() > 1 ? " …" : "");
    std::string page;
    page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    // Nothing may be fetched: no network, no other file (the page is one file on a USB stick).
    // The live panel compiles WebAssembly ('wasm-unsafe-eval' allows that and nothing else: no eval()) and
    // runs it in a worker made from the page's own copy of the core (a blob: URL, render/page/core_worker.js).
    page += std::string("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'") +
            (core.empty() ? "" : " 'wasm-unsafe-eval'; worker-src blob:") +
            "; style-src 'unsafe-inline'; img-src data: blob:; connect-src data: blob:\">\n";
    const PageStack stack = seq2seq ? PageStack::encoder_decoder
                            : t.model && t.model->stack == "encoder" ? PageStack::encoder : PageStack::decoder;
    page += "<title>" + html_text(title) + "</title>\n<style>\n" + page_css(stack) + "</style>\n</head>\n<body>\n";
    page += "<noscript>This page draws attention with JavaScript: please allow scripts for this file.</noscript>\n";
    page += "<script type=\"application/json\" id=\"attn-data\">" + script_safe(data.dump(-1, ' ', false, Json::error_handler_t::replace)) + "</script>\n";
    page += "<script type=\"application/octet-stream\" id=\"attn-blob\">" + text7(packed) + "</script>\n";
    if (!model_packed.empty()) page += "<script type=\"application/octet-stream\" id=\"attn-model\">" + text7(model_packed) + "</script>\n";
    if (!core.empty()) {
        // emscripten's JavaScript: it must not end its own <script> (checked, not escaped:
        // escaping would change the code)
        std::string lower = core;
        for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (lower.find("</script") != std::string::npos || lower.find("<!--") != std::string::npos)
            throw std::logic_error("render_html: the WebAssembly core's script holds </script or <!--");
        page += "<script type=\"application/octet-stream\" id=\"attn-wasm\">" + text7(wasm) + "</script>\n";
        page += "<script id=\"attn-core\">\n" + core + "</script>\n";
    }
    page += "<script>\n" + page_js(stack) + "</script>\n</body>\n</html>\n";
    return page;
}

}  // namespace

bool page_runs_live(const Trace& t) {
    return find_kind(t.kind) != nullptr && !t.model && !t.sets.empty() && !t.sets.at(0).model_layers;
}

std::string render_html(const Trace& t, const HtmlOptions& opt) { return page_html(t, opt, nullptr); }

std::string render_decode_html(const DecodeTrace& d, const HtmlOptions& opt) {
    if (!d.model || !d.model->generation) return page_html(d.full, opt, nullptr);
    // the decode JSON's own fields (render/trace_io/decode_json.cpp), as `attn decode --json` writes them
    Json j = decode_json(d);
    Json g = std::move(j["generation"]);
    for (Json& step : g["steps"])  // each alternative's label beside its text ("·the" for " the")
        for (Json& a : step["top"]) a["label"] = token_label(a["token"].get<std::string>());
    g["generated_ids"] = std::move(j["generated_ids"]);
    g["layer"] = d.model->layer;
    g["decode_max_abs_diff"] = d.max_abs_diff;
    // each fed step: {step, token, token_id, heads [{head, kv_head, weights}]}, the heads only at the steps
    // that chose a token (the text's last and after: a long text's other rows would only weigh the page down)
    const std::size_t first_choice = d.model->generation->prompt - 1;
    g["rows"] = Json::array();
    for (Json& s : j["steps"])
        g["rows"].push_back({{"step", s["step"]}, {"token", s["token"]}, {"token_id", s["token_id"]},
                             {"heads", s["step"].get<std::size_t>() < first_choice ? Json::array() : std::move(s["heads"])}});
    return page_html(d.full, opt, std::move(g));
}

}  // namespace attn::render
