// attn decode's JSON ("attn-decode", version 1; docs/trace-format.md).
#pragma once

#include <string>

#include "core/kinds/decode.h"
#include "render/trace_io/json.h"

namespace attn::render {

Json decode_json(const DecodeTrace& d);
std::string decode_json_text(const DecodeTrace& d);

}  // namespace attn::render
