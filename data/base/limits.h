// The limits attn enforces at its boundary: input sizes, file sizes, nesting, and how large a run may
// grow. data/ and core/ check them; docs/validation.md states them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "data/base/defaults.h"

namespace attn {

constexpr std::size_t kMaxTokensLimit = 1u << 20;        // --max-tokens upper bound
// One token's bytes: a sentence's word, an embeddings file's or a --tokens file's token, a GPT-2
// vocabulary entry. Real tokens are far shorter (the longest of GPT-2's 50,257 vocab.json entries is 256
// bytes, 128 characters); the limit keeps a 100 MB "word" from reaching the figures and the terminal.
constexpr std::size_t kMaxTokenBytes = 1024;
constexpr std::size_t kMaxWidth = 65536;                 // --d-in, --d-out, an embeddings file's width
constexpr std::uint64_t kMaxInputFileBytes = 256ull << 20;  // any file attn reads (text, embeddings, mask)
constexpr int kMaxJsonDepth = 3;                         // {"x": [[...]]}: rows of numbers inside an object
constexpr double kMaxRunBytes = 2.0 * (1ull << 30);      // matrices one run may hold
constexpr double kMaxRunWork = 68719476736.0;            // 2^36 multiply-adds (seconds, not hours)
// A float64 below this in magnitude rounds to a finite float32 (FLT_MAX plus half its last unit,
// 2^128 - 2^103): "3.4028235e38", FLT_MAX as the shortest round trip prints it, is finite.
constexpr double kFloat32Limit = 0x1.ffffffp+127;

// Throws a usage error when a run would hold more than kMaxRunBytes of matrices or do more than
// kMaxRunWork multiply-adds; `bytes` and `work` are estimates made before anything is allocated.
void check_run_size(double bytes, double work,
                    const std::string& hint = "use a smaller --d-in or --d-out, fewer --heads, or fewer tokens");

}  // namespace attn
