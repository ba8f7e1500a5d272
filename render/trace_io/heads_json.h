// attn heads' JSON ("attn-heads", version 1; docs/trace-format.md): every pattern's layers × heads
// scores, the texts, the induction run and every head's sink per text.
#pragma once

#include <string>

#include "core/analysis/head_report.h"
#include "render/trace_io/json.h"

namespace attn::render {

Json heads_json(const HeadReport& r, const std::string& model_name);
std::string heads_json_text(const HeadReport& r, const std::string& model_name);

}  // namespace attn::render
