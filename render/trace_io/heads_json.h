// attn heads' JSON ("attn-heads", version 1; docs/trace-format.md): every pattern's layers × heads
// scores, the texts, the induction run and every head's sink per text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/analysis/head_report.h"
#include "render/trace_io/json.h"

namespace attn::render {

// `top`, when given (--rank with --top), is recorded with the pattern and the text each figure is drawn on.
Json heads_json(const HeadReport& r, const std::string& model_name, const std::vector<TopHead>& top = {},
                std::optional<HeadPattern> rank = std::nullopt);
std::string heads_json_text(const HeadReport& r, const std::string& model_name, const std::vector<TopHead>& top = {},
                            std::optional<HeadPattern> rank = std::nullopt);

}  // namespace attn::render
