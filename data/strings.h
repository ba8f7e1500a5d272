// Small string helpers every layer shares.
#pragma once

#include <string>
#include <vector>

namespace attn {

// The parts with `sep` between them: join({"a", "b"}) = "a, b".
std::string join(const std::vector<std::string>& parts, const std::string& sep = ", ");

}  // namespace attn
