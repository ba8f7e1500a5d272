// The data of attn's page for a trace: the JSON object its views read (tokens, heads, stages'
// descriptors, colour scales, the model's predictions and head scores, ...) and, appended to `blob`, the
// cells of every stage (render/page/page_buffer.h says how they are packed). render/page/html.cpp builds
// the page around it; the page's WebAssembly core hands it to the views for a model run.
#pragma once

#include <cstddef>
#include <string>

#include "core/base/trace.h"
#include "render/page/html.h"
#include "render/trace_io/json.h"

namespace attn::render {

Json page_payload(const Trace& t, const HtmlOptions& opt, std::string& blob);

// An encoder-decoder's trace (three sets: encoder, decoder, cross); its page opens on this set, cross.
bool encoder_decoder(const Trace& t);
inline constexpr std::size_t kOpeningSet = 2;
// Its sets must be encoder, decoder and cross, in that order, each with layers (std::invalid_argument).
void check_seq2seq_sets(const Trace& t);

}  // namespace attn::render
