// The Unigram model of SentencePiece and of Hugging Face's tokenizers: the most probable split of a
// normalised text into the vocabulary's pieces (Viterbi over byte positions), exact to both libraries:
//   - at each character start s (in order), every piece that is a prefix of text[s..] (a byte trie,
//     shortest first) offers an edge s -> s + len with its score; the best total reaching each end
//     wins, and a later candidate must be strictly better (so a tie keeps the earlier start, and at one
//     start the shorter piece);
//   - when no piece is exactly the one character at s, an unknown edge covers that character with
//     score min_score - 10 (both libraries' kUnkPenalty);
//   - backtrack from the end; consecutive unknown edges are fused into one unknown token (fuse_unk in
//     tokenizers; sentencepiece merges them when it builds the result).
// The two libraries differ in details this class follows by flavour:
//   tokenizers     every vocabulary entry is in the trie; min_score over all of them; scores and sums
//                  in double precision (models/unigram/model.rs, encode_optimized)
//   sentencepiece  NORMAL and USER_DEFINED pieces only (CONTROL, UNKNOWN, UNUSED never come out);
//                  min_score over NORMAL pieces; a USER_DEFINED piece scores len_bytes * max_score - 0.1
//                  (max_score starts at FLT_MIN); sums kept in float: a piece candidate is the double
//                  sum of two floats compared with the stored float, an unknown candidate a float sum
//                  (unigram_model.cc, EncodeOptimized, v0.1.97).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attn {

class UnigramModel {
public:
    enum class Flavour { tokenizers, sentencepiece };
    enum class Kind { normal, user_defined, hidden };  // hidden: in the vocabulary, never in a split
    struct Entry {
        std::string piece;
        double score = 0;
        Kind kind = Kind::normal;
    };
    struct Token {
        std::size_t begin = 0, end = 0;  // bytes of the normalised text
        std::int64_t id = -1;            // the piece's id; unk_id for a fused run of unknown characters
    };

    UnigramModel() = default;
    // entries in id order; unk_id must be one of them.
    UnigramModel(std::vector<Entry> entries, std::int64_t unk_id, Flavour flavour);

    // The best split of valid UTF-8 text, appended to out.
    void encode(std::string_view text, std::vector<Token>& out) const;
    std::int64_t unk_id() const { return unk_; }
    double min_score() const { return min_score_; }

private:
    std::int32_t child(std::int32_t node, unsigned char c) const;

    std::vector<Entry> entries_;
    std::unordered_map<std::uint64_t, std::int32_t> edges_;  // (node << 8 | byte) -> node
    std::vector<std::int64_t> node_id_;                      // node -> the piece ending there, -1 none
    std::int64_t unk_ = -1;
    double min_score_ = 0, max_score_ = 0;
    Flavour flavour_ = Flavour::tokenizers;
};

}  // namespace attn
