// SentencePiece Unigram tokenisers (T5, Marian/Opus-MT), in three forms, each run as its reference runs it:
//
// tokenizer.json with a Unigram model (T5, as Hugging Face's T5Converter writes it), as tokenizers does:
//   0. added tokens (<pad>, </s>, <unk>, <extra_id_N>) found in the raw text first, leftmost then longest;
//   1. the normalisers: Precompiled (data/text/precompiled_charsmap.h, by grapheme cluster), Strip,
//      Replace (a string or a PCRE2 regex such as " {2,}"), in a Sequence; others refused by name;
//   2. the Metaspace pre-tokeniser (data/text/pre_tokenizer.h): ' ' -> '▁', a '▁' before, split before each '▁';
//   3. Viterbi (data/text/unigram_model.h) on each piece; a piece's string looked up in the vocabulary
//      (a fused unknown run -> unk_id).
// An .spm (T5's spiece.model without tokenizer.json; data/text/sentencepiece_model.h), as T5Tokenizer runs
// sentencepiece (its </s> only when the text does not end in one: data/text/tokenizer.h):
//   0. T5Tokenizer's special tokens (</s>, <unk>, <pad>, <extra_id_N> = vocab_size - 1 - N) found first;
//   1. normalise: USER_DEFINED pieces matched whole, else the charsmap's longest rule or one character;
//      remove_extra_whitespaces drops leading spaces, runs of spaces and trailing spaces; a dummy-prefix
//      space first; ' ' -> '▁';
//   2. Viterbi over the whole normalised text; ids are the spm's.
// Marian (source.spm, target.spm, vocab.json; tokenization_marian.py):
//   0. </s>, <unk>, <pad> found first; in each part a leading ">>xx<<" (regex >>.+?<<) is kept as one
//      token (its vocab.json id, else <unk>'s) and every such code removed from the rest;
//   1-2. source.spm as above, then each piece's string looked up in vocab.json (absent -> <unk>'s id).
//   Decoding reads vocab.json's pieces (the shared vocabulary of source.spm and target.spm).
// The post-processor ($A </s>) is the caller's (data/text/tokenizer.h).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/text/pre_tokenizer.h"
#include "data/text/precompiled_charsmap.h"
#include "data/text/sentencepiece_model.h"
#include "data/text/unigram_model.h"

namespace attn {

class UnigramTokenizer {
public:
    // tokenizer.json ("model": {"type": "Unigram"}); name only names the file in errors.
    static UnigramTokenizer from_json(const nlohmann::json& j, const std::string& name);
    // T5's spiece.model alone, with extra_ids <extra_id_N> tokens after its pieces.
    static UnigramTokenizer from_t5_spm(const std::string& spm, std::int64_t extra_ids, const std::string& name);
    // A Marian folder's files' bytes (config_json "" when absent).
    static UnigramTokenizer from_marian(const std::string& source_spm, const std::string& target_spm, const std::string& vocab_json,
                                        const std::string& config_json, const std::string& dir);

    // The text's ids without the post-processor's special tokens; at most max_tokens + 1. Valid UTF-8 in.
    std::vector<std::int64_t> encode(std::string_view text, std::size_t max_tokens = std::numeric_limits<std::size_t>::max()) const;

    std::string text(std::int64_t id) const;  // the piece with '▁' as ' ' ("" for an unknown id)
    std::size_t vocab_size() const { return id_to_token_.size(); }
    std::int64_t token_id(const std::string& token) const;  // -1 when absent
    std::int64_t eos_id() const { return eos_; }
    std::int64_t pad_id() const { return pad_; }
    bool special(std::int64_t id) const { return special_.count(id) != 0; }
    // The text of generated ids: special tokens dropped, '▁' as spaces, the first piece's leading space dropped.
    std::string decode_text(const std::vector<std::int64_t>& ids) const;

private:
    struct Step {  // one normaliser of tokenizer.json
        enum Kind { precompiled, strip, replace } kind = precompiled;
        bool left = false, right = false;  // strip
        CompiledRegex regex;               // replace: a compiled pattern, or null for a string
        std::string pattern, content;
    };
    void encode_part(std::string_view part, bool first, std::vector<std::int64_t>& out) const;
    std::string normalise_json(std::string_view part) const;
    std::string normalise_spm(std::string_view part) const;
    void spm_pieces(std::string_view part, std::vector<std::int64_t>& out) const;
    void add_special(const std::string& token, std::int64_t id);
    static UnigramTokenizer spm_base(const SentencePieceModel& m, const std::string& name);

    enum class Form { json, spm, marian } form_ = Form::json;
    UnigramModel model_;
    std::vector<std::string> id_to_token_;                  // id -> piece ("" for ids not used)
    std::string vocab_file_;                                // Marian: the vocab.json ids are looked up in
    std::unordered_map<std::string, std::int64_t> vocab_;   // piece -> id (tokenizers: the last of a repeated piece)
    std::vector<std::pair<std::string, std::int64_t>> added_;  // matched first, longest first
    std::unordered_set<std::int64_t> special_;
    std::int64_t unk_ = -1, eos_ = -1, pad_ = -1;
    // tokenizer.json
    std::vector<Step> steps_;
    PrecompiledCharsmap charsmap_;
    PreTokenizer pre_;
    // .spm
    SentencePieceModel spm_;
    std::vector<std::string> user_defined_;                      // longest first
    std::vector<std::string> spm_pieces_;                        // spm id -> piece (Marian's lookup)
};

}  // namespace attn
