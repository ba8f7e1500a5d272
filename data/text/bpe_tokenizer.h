// Byte-pair-encoding tokenisers as Hugging Face's tokenizers library runs them, exact:
//
// Byte-level BPE (GPT-2, SmolLM2, Qwen2, Llama 3), from vocab.json + merges.txt (GPT-2's) or tokenizer.json:
//   1. Added and special tokens (`<|endoftext|>`, tokenizer.json's added_tokens, added_tokens.json) are
//      matched first, the longest at each position; the text between them is encoded as follows.
//   2. Pre-tokenise (data/text/pre_tokenizer.h, with the normalisers): ByteLevel with GPT-2's pattern (PCRE2 with Unicode properties)
//        's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//      (add_prefix_space: a space before the text), or a Split with the file's own regex (Isolated),
//      Digits, or a Sequence of these.
//   3. Map each byte of a piece to a printable character (bytes '!'..'~', '¡'..'¬', '®'..'ÿ' to
//      themselves, the other 68 to U+0100 onward in byte order; a space becomes 'Ġ').
//   4. With ignore_merges, a piece that is a token is that token; else merge adjacent symbols by rank
//      (lowest first) until none applies.
//   5. Look each symbol up in the vocabulary.
// Sentencepiece-style BPE (Llama 2, TinyLlama, Mistral), from tokenizer.json: spaces become '▁' (a
// Replace normaliser with Prepend '▁', or the Metaspace pre-tokeniser), merges run on characters, and
// a symbol the vocabulary lacks becomes its bytes' <0xNN> tokens (byte_fallback).
// This is the model step of data/text/tokenizer.h for BPE files (with the BPE files' own normalisers and
// pre-tokenisers, and the added tokens matched first); the post-processor's special tokens (a BOS)
// are data/text/post_processor.h's. Anything in the files that would change the ids and that attn
// does not run (a normaliser, a pre-tokeniser, an added token's single_word) is refused by name: a
// one-line error (exit 1).
//
// Labels (what the terminal, the figures and the trace's "tokens" show): the token's bytes as UTF-8
// with a leading space drawn as '·' (U+00B7), so " journey" (or "▁journey") reads "·journey"; a newline
// is '↵', a tab '⇥', other control characters U+FFFD; bytes that are not valid UTF-8 (a token holding
// part of a character) become one U+FFFD per maximal invalid sequence, as Python's and Hugging Face's
// decoders write them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/text/pre_tokenizer.h"

namespace attn {

class BpeTokenizer {
public:
    // From the files' bytes; the names only name the files in errors. (data/text/tokenizer.h's
    // Tokenizer::load_dir reads the files.)
    static BpeTokenizer from_vocab_merges(const std::string& vocab_json, const std::string& merges_txt,
                                          const std::string& vocab_name, const std::string& merges_name);
    // tokenizer.json's model ("type": "BPE"), normalizer, pre_tokenizer and added_tokens; its
    // post_processor is data/text/post_processor.h's.
    static BpeTokenizer from_json(const nlohmann::json& j, const std::string& name);

    // Token ids of a UTF-8 text (usage error for invalid UTF-8). Stops after max_tokens + 1 ids. A word
    // so long that it alone must give more ids than are left (its bytes over the longest token's) is
    // not encoded: the ids are then filled up to max_tokens + 1 with -1 (more ids than max_tokens is
    // all a caller can use them for).
    std::vector<std::int64_t> encode(std::string_view text,
                                     std::size_t max_tokens = std::numeric_limits<std::size_t>::max()) const;
    std::string decode(std::int64_t id) const;  // the token's raw bytes ("" for an unknown id)
    std::string text(std::int64_t id) const;    // decode() as valid UTF-8 (one U+FFFD per maximal invalid sequence)
    std::string label(std::int64_t id) const;   // as the header describes ("·journey")
    std::size_t vocab_size() const { return id_to_token_.size(); }  // largest id + 1
    std::int64_t end_of_text() const { return eot_; }                // -1 when the vocabulary lacks it
    std::int64_t token_id(const std::string& token) const;          // -1 when absent
    // Whether decoding every id gives the text back (up to a prepended space and '▁' read
    // as a space): byte-level, or sentencepiece-style with byte fallback. (The fuzzer checks it.)
    bool round_trips() const { return pre_.byte_level || byte_fallback_; }
    bool strips_whitespace() const { return !strip_.empty(); }  // an added token with lstrip or rstrip

    // Added tokens matched before the model (content, id); a folder's added_tokens.json adds to them.
    void add_tokens(const std::vector<std::pair<std::string, std::int64_t>>& tokens, const std::string& name);

private:
    void finish(const std::string& vocab_name, const std::string& merges_name);
    void bpe(const std::string& piece, std::vector<std::int64_t>& out) const;

    std::unordered_map<std::string, std::int64_t> vocab_;  // symbol (byte-mapped) -> id
    std::vector<std::string> id_to_token_;                 // id -> symbol ("" for ids not used)
    std::unordered_map<std::string, std::size_t> ranks_;   // "a b" -> merge rank
    std::vector<std::pair<std::string, std::int64_t>> added_;  // added tokens, longest first
    std::unordered_map<std::int64_t, std::string> added_by_id_;
    std::unordered_map<std::string, std::pair<bool, bool>> strip_;  // added token -> (lstrip, rstrip)
    std::int64_t eot_ = -1, unk_ = -1;
    std::size_t max_token_bytes_ = 1;                      // raw bytes of the longest token a merge makes
    bool ignore_merges_ = false, byte_fallback_ = false;
    PreTokenizer pre_;                                     // normaliser and pre-tokeniser (byte-level or sentencepiece style)
};

// The byte-to-character table of step 3: bytes_to_unicode()[b] is the UTF-8 of byte b's character.
const std::vector<std::string>& gpt2_byte_symbols();

// A tokeniser file's JSON (a one-line error when it is not JSON or nests deeper than tokenizer.json does).
nlohmann::json parse_tokenizer_file(const std::string& text, const std::string& name);

// Added tokens' lstrip and rstrip (Hugging Face's AddedVocabulary): the start of the whitespace (Rust's
// char::is_whitespace) that ends text[from, at), and the end of the whitespace that starts text[at, ...).
std::size_t whitespace_before(std::string_view text, std::size_t from, std::size_t at);
std::size_t whitespace_after(std::string_view text, std::size_t at);

// A token's label from its text (valid UTF-8), as the header describes: a leading space as '·', '↵', '⇥'.
std::string token_label(const std::string& text);

// Text as valid UTF-8: each maximal invalid sequence (the Unicode Standard's "maximal subpart", what
// Python's bytes.decode(errors="replace") does) becomes one U+FFFD.
std::string utf8_replace_invalid(const std::string& raw);

}  // namespace attn
