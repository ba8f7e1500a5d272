// A model folder's tokeniser, in the order Hugging Face's tokenizers library runs one:
//   0. added tokens first: the folder's special and added tokens are found in the raw text (the longest
//      at the earliest position; lstrip / rstrip take the whitespace beside them); the text between
//      them goes through 1-3 (for WordPiece, tokens marked "normalized" are found after step 1);
//   1. normaliser      BertNormalizer (data/text/normalizer.h); the BPE files' NFC, Prepend, Replace
//   2. pre-tokeniser   BertPreTokenizer; the BPE files' ByteLevel, Split, Digits, Metaspace (pre_tokenizer.h)
//   3. model           WordPiece (wordpiece_model.h), BPE (bpe_tokenizer.h, which runs 0-2 for its files) or
//                      SentencePiece Unigram (unigram_tokenizer.h, which runs 0-3 for its files: T5, Marian)
//   4. post-processor  the special tokens around the text or pair, with token type ids (post_processor.h)
// load_dir reads, top-down: tokenizer.json when the folder has one (as AutoTokenizer does), else
// source.spm + target.spm + vocab.json (Marian, $A </s>), else spiece.model (T5Tokenizer: the spm's ids,
// tokenizer_config.json's extra_ids, $A </s>), else vocab.json + merges.txt (+ added_tokens.json; GPT-2),
// else vocab.txt (+ tokenizer_config.json and special_tokens_map.json; BertTokenizerFast's rules); then
// tokenizer_config.json's add_bos_token, mask_token, eos_token and pad_token. Anything that would change the ids and is not run is refused by name (exit 1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "data/text/bpe_tokenizer.h"
#include "data/text/normalizer.h"
#include "data/text/post_processor.h"
#include "data/text/unigram_tokenizer.h"
#include "data/text/wordpiece_model.h"

namespace attn {

// The ids of a text (or pair) with the post-processor's special tokens, as tokenizer(text[, pair]) gives them.
struct Encoding {
    std::vector<std::int64_t> ids;
    std::vector<std::int64_t> type_ids;  // token type ids as Hugging Face's post-processor gives them
    std::vector<std::uint8_t> segment;   // 0: the first text (and its special tokens), 1: the pair's
};

class Tokenizer {
public:
    static Tokenizer load_dir(const std::string& dir);  // tokenizer.json first, else the folder's other files
    static Tokenizer from_tokenizer_json(const std::string& text, const std::string& name);
    // GPT-2's vocab.json + merges.txt (no special tokens around the text).
    static Tokenizer from_vocab_merges(const std::string& vocab_json, const std::string& merges_txt,
                                       const std::string& vocab_name, const std::string& merges_name);
    // BertTokenizerFast from vocab.txt and tokenizer_config.json's text ("" when absent).
    static Tokenizer from_vocab_txt(const std::string& vocab_txt, const std::string& config_json,
                                    const std::string& vocab_name, const std::string& config_name);

    // The ids WITH the post-processor's special tokens ([CLS] … [SEP], <s> … </s>, a BOS). At most
    // max_tokens + 1 ids; for BPE, a word too long for what is left fills them up with -1
    // (data/text/bpe_tokenizer.h). Usage error for text that is not UTF-8 or has control characters.
    Encoding encode(std::string_view text, std::size_t max_tokens = SIZE_MAX) const;
    Encoding encode_pair(std::string_view text, std::string_view pair, std::size_t max_tokens = SIZE_MAX) const;
    // A translation's text as labels (Hugging Face's text_target): a Marian folder's target.spm when it
    // differs from source.spm; every other tokeniser as encode().
    Encoding encode_target(std::string_view text, std::size_t max_tokens = SIZE_MAX) const;
    std::vector<std::int64_t> ids(std::string_view text, std::size_t max_tokens = SIZE_MAX) const {
        return encode(text, max_tokens).ids;
    }

    std::string decode(std::int64_t id) const;  // the token's bytes (WordPiece: the token, "##s")
    std::string text(std::int64_t id) const;    // decode() as valid UTF-8
    std::string label(std::int64_t id) const;   // "·journey" (BPE, data/text/bpe_tokenizer.h), "##s", "[CLS]"
    std::size_t vocab_size() const;             // largest id + 1
    std::int64_t end_of_text() const;           // <|endoftext|>, -1 when none
    std::int64_t bos() const { return post_.bos(); }  // the special token before the text, -1 when none
    std::int64_t mask_id() const { return mask_; }    // [MASK] / <mask>, -1 when none
    // The padding and end-of-sequence tokens (an encoder-decoder's decoder start and stop): the
    // config's pad_token / eos_token, else "<pad>" / "[PAD]" and "</s>"; -1 when none.
    std::int64_t pad_id() const { return pad_; }
    std::int64_t eos_id() const { return eos_; }
    // The text of generated ids with the special tokens dropped (sentencepiece: '▁' as spaces, the first
    // one dropped; BPE: the bytes; WordPiece: words joined by spaces, "##" pieces glued on).
    std::string decode_text(const std::vector<std::int64_t>& ids) const;
    std::int64_t token_id(std::string_view token) const;  // -1 when absent
    // Whether decoding every id between the special tokens gives the text back (BPE: byte-level or with
    // byte fallback), up to the whitespace an added token's lstrip / rstrip takes (strips_whitespace).
    bool round_trips() const { return bpe_ && bpe_->round_trips(); }
    bool strips_whitespace() const { return bpe_ && bpe_->strips_whitespace(); }
    bool wordpiece() const { return !bpe_ && !uni_; }
    // How many special tokens encode() puts before and after a text's ids.
    std::size_t specials_before() const { return post_.prefix_count(false); }
    std::size_t specials_after() const { return post_.added(false) - post_.prefix_count(false); }

private:
    struct Added {  // an added token of a WordPiece file
        std::string content;
        std::int64_t id = -1;
        bool lstrip = false, rstrip = false, normalized = false;
    };
    std::vector<std::int64_t> content_ids(std::string_view text, std::size_t max_tokens) const;
    void wordpiece_ids(std::string_view text, std::size_t max_tokens, std::vector<std::int64_t>& out) const;
    void split_added(std::string_view text, std::size_t max_tokens, std::vector<std::int64_t>& out) const;
    void add_wordpiece_token(Added a, const std::string& name);
    void find_mask(const std::string& mask_token);
    void find_pad_eos();

    std::shared_ptr<const BpeTokenizer> bpe_;  // BPE files; null for WordPiece
    std::shared_ptr<const UnigramTokenizer> uni_;  // SentencePiece Unigram files (T5, Marian)
    std::shared_ptr<const UnigramTokenizer> target_uni_;  // Marian's target.spm when it is not source.spm's copy
    BertNormalizer norm_;
    WordPieceModel wp_;
    std::vector<Added> added_;                 // longest first
    PostProcessor post_;
    std::int64_t mask_ = -1, pad_ = -1, eos_ = -1;
    bool eos_unless_present_ = false;  // T5Tokenizer (spiece.model alone): no second </s> after a text ending in one
};

}  // namespace attn
