// A SentencePiece model file (.spm, spiece.model): the serialised protobuf ModelProto (proto2 wire
// format), read by a small reader of its own: varints, length-delimited fields and fixed32 floats;
// fields attn does not use are skipped by their wire type. The fields read (sentencepiece_model.proto):
//   ModelProto       1 pieces (repeated), 2 trainer_spec, 3 normalizer_spec, 5 denormalizer_spec
//   SentencePiece    1 piece, 2 score (float), 3 type (1 NORMAL, 2 UNKNOWN, 3 CONTROL, 4 USER_DEFINED,
//                    5 UNUSED, 6 BYTE)
//   TrainerSpec      3 model_type (1 UNIGRAM, 2 BPE, 3 WORD, 4 CHAR), 24 treat_whitespace_as_suffix,
//                    35 byte_fallback, 40 unk_id, 41 bos_id, 42 eos_id, 43 pad_id
//   NormalizerSpec   1 name, 2 precompiled_charsmap, 3 add_dummy_prefix, 4 remove_extra_whitespaces,
//                    5 escape_whitespaces (the last three true when absent)
// Truncated or malformed bytes give a one-line error naming the file; nothing is read past the end.
// What attn does not run is refused by name: a model type other than UNIGRAM, byte_fallback,
// treat_whitespace_as_suffix, a denormalizer with rules, BYTE pieces.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

struct SentencePieceModel {
    enum Type : int { normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 };
    struct Piece {
        std::string piece;
        float score = 0;
        int type = normal;
    };
    std::vector<Piece> pieces;
    int model_type = 1;  // 1 UNIGRAM
    std::int64_t unk_id = 0, bos_id = 1, eos_id = 2, pad_id = -1;
    bool byte_fallback = false, treat_whitespace_as_suffix = false;
    std::string normalizer_name, charsmap, denormalizer_charsmap;
    bool add_dummy_prefix = true, remove_extra_whitespaces = true, escape_whitespaces = true;

    // The wire format only (no refusals): a one-line error naming the file for malformed bytes.
    static SentencePieceModel parse(std::string_view bytes, const std::string& name);
    // parse, then the refusals above (and no UNKNOWN piece, duplicate pieces) by name.
    static SentencePieceModel load(std::string_view bytes, const std::string& name);
};

}  // namespace attn
