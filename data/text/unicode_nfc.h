// Unicode Normalization Form C (canonical decomposition, then canonical composition), as tokenizer.json's
// "NFC" normaliser (Qwen2) asks for, computed by utf8proc (libutf8proc-dev: Unicode 15 tables).
#pragma once

#include <string>
#include <string_view>

namespace attn {

// The NFC form of valid UTF-8 text ("e\u0301" -> "\u00E9", "\u212B" -> "\u00C5"); text already in NFC
// (every ASCII text) comes back unchanged. Invalid UTF-8 is a one-line input error (exit 1).
std::string utf8_nfc(std::string_view text);

}  // namespace attn
