// The defaults of a run, in one place: the CLI's option defaults, Config's and InputRequest's
// member initialisers all read these.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attn {

constexpr std::uint64_t kDefaultSeed = 123;        // --seed
constexpr std::size_t kDefaultDIn = 16;            // --d-in (and d_out when --d-out is not given)
constexpr std::size_t kDefaultWindow = 2;          // --window (local)
constexpr std::size_t kDefaultMaxTokens = 4096;    // --max-tokens (show)

}  // namespace attn
