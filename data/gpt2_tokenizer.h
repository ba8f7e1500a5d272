// GPT-2's byte-level BPE tokeniser, exact (the ids of Hugging Face's and OpenAI's encoders):
//   1. `<|endoftext|>` in the text is the special token; the text between is encoded as follows.
//   2. Pre-tokenise with GPT-2's pattern (PCRE2 with Unicode properties):
//        's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   3. Map each byte of a piece to a printable character (bytes '!'..'~', '¡'..'¬', '®'..'ÿ' to
//      themselves, the other 68 to U+0100 onward in byte order; a space becomes 'Ġ').
//   4. Merge adjacent symbols by rank (merges.txt, "#version: 0.2"), lowest rank first, until none applies.
//   5. Look each symbol up in vocab.json.
// The files are read strictly: anything that is not GPT-2's format is a one-line error (exit 1).
//
// Labels (what the terminal, the figures and the trace's "tokens" show): the token's bytes as UTF-8
// with a leading space drawn as '·' (U+00B7), so " journey" reads "·journey"; a newline is '↵', a tab
// '⇥', other control characters and bytes that are not valid UTF-8 on their own (a token holding part
// of a character) U+FFFD.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attn {

class Gpt2Tokenizer {
public:
    // vocab.json + merges.txt in `dir`, else tokenizer.json; a one-line error when neither is there.
    static Gpt2Tokenizer load_dir(const std::string& dir);
    // From the files' bytes; the names only name the files in errors. (The fuzzer calls these.)
    static Gpt2Tokenizer from_vocab_merges(const std::string& vocab_json, const std::string& merges_txt,
                                           const std::string& vocab_name, const std::string& merges_name);
    static Gpt2Tokenizer from_tokenizer_json(const std::string& text, const std::string& name);

    // Token ids of a UTF-8 text (usage error for invalid UTF-8). Stops after max_tokens + 1 ids. A word
    // so long that it alone must give more ids than are left (its bytes over the longest merge's) is
    // not encoded: the ids are then filled up to max_tokens + 1 with -1 (more ids than max_tokens is
    // all a caller can use them for).
    std::vector<std::int64_t> encode(std::string_view text,
                                     std::size_t max_tokens = std::numeric_limits<std::size_t>::max()) const;
    std::string decode(std::int64_t id) const;  // the token's raw bytes ("" for an unknown id)
    std::string text(std::int64_t id) const;    // decode() as valid UTF-8 (invalid bytes as U+FFFD)
    std::string label(std::int64_t id) const;   // as the header describes ("·journey")
    std::size_t vocab_size() const { return id_to_token_.size(); }  // largest id + 1
    std::int64_t end_of_text() const { return eot_; }                // -1 when the vocabulary lacks it

private:
    void finish(const std::string& vocab_name, const std::string& merges_name);
    void bpe(const std::string& piece, std::vector<std::int64_t>& out) const;

    std::unordered_map<std::string, std::int64_t> vocab_;  // symbol (byte-mapped) -> id
    std::vector<std::string> id_to_token_;                 // id -> symbol ("" for ids not used)
    std::unordered_map<std::string, std::size_t> ranks_;   // "a b" -> merge rank
    std::int64_t eot_ = -1;
    std::size_t max_token_bytes_ = 1;                      // raw bytes of the longest token a merge makes
    std::shared_ptr<void> regex_;                          // the compiled PCRE2 pattern
};

// The byte-to-character table of step 3: bytes_to_unicode()[b] is the UTF-8 of byte b's character.
const std::vector<std::string>& gpt2_byte_symbols();

// The tokeniser a model run reads labels and prediction texts from.
using Tokenizer = Gpt2Tokenizer;

}  // namespace attn
