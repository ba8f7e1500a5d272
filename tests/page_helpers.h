// Decoding a page's data as the page's JavaScript does (render/page/shared.js: inflate, cell, format): the
// JSON in <script id="attn-data">, its buffer (base64, then zlib) and the 4-decimal text of a cell.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace attn::test {

struct PageData {
    nlohmann::json json;
    std::string blob;  // the inflated buffer
};

PageData page_data(const std::string& html);

// The JSON in <script id="attn-data"> alone.
nlohmann::json page_json(const std::string& html);

// A stage's cell idx in ten-thousandths. Its byte planes are n = T * S cells apart (0: the page's own
// tokens × source_tokens; an encoder-decoder set's are its own). Masked scores (a descriptor with a sixth
// element) need the head's raw scores' descriptor and its scale.
std::int64_t page_k(const PageData& d, const nlohmann::json& desc, std::size_t idx, const nlohmann::json* scores = nullptr,
                    float scale = 1, std::size_t n = 0);

// The page's 4-decimal text of a cell.
std::string page_cell(const PageData& d, const nlohmann::json& desc, std::size_t idx, const nlohmann::json* scores = nullptr,
                      float scale = 1, std::size_t n = 0);

// What "%.4f" prints (never "-0.0000"): the independent reference for the page's digits.
std::string four(double v);

}  // namespace attn::test
