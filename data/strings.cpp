#include "data/strings.h"

namespace attn {

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string s;
    for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? sep : std::string()) + parts[i];
    return s;
}

}  // namespace attn
