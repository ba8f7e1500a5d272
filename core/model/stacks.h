// One forward function per stack kind (data/checkpoint/model_family.h's Stack), each built from the
// layer functions of core/model/layers.h; run_model (core/model/model.h) picks the family's. The
// encoder-decoder stack (T5, BART, Marian) has its own header, core/model/seq2seq.h.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model/model.h"

namespace attn {

// Causal, pre-norm, over a key/value cache (core/model/decoder.cpp).
Trace decoder_forward(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                      const ModelRunOptions& opt);
// Bidirectional, post-norm, token types, the masked-LM head at the mask positions (core/model/encoder.cpp).
Trace encoder_forward(const ModelCheckpoint& m, const Tokenizer& tok, const std::vector<std::int64_t>& ids,
                      const ModelRunOptions& opt);

}  // namespace attn
