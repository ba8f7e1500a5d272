// Steps 1b and 2 of data/text/bpe_tokenizer.h: the normalisers and pre-tokenisers of tokenizer.json, as
// Hugging Face's tokenizers library runs them, turning one part of the text (between added tokens)
// into the pieces the BPE merge engine encodes one by one.
//
// Normalisers: none, NFC (data/text/unicode.h), and sentencepiece's Prepend '▁' and Replace ' ' -> '▁' (or a Sequence).
// Pre-tokenisers: ByteLevel (GPT-2's pattern, add_prefix_space), Split with the file's own regex
// (Isolated, data/text/text_regex.h), Digits, Metaspace (its prepend_scheme and
// split), or a Sequence of these; BertPreTokenizer for WordPiece. Anything else that would change the pieces is refused by name.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/text/text_regex.h"

namespace attn {

// The visible space of sentencepiece-style vocabularies, U+2581 '▁'.
inline constexpr const char* kMetaspace = "\xE2\x96\x81";

// The hint for a tokeniser file attn cannot read: the model's own files of that kind, by the file's name
// (vocab.txt, spiece.model, source.spm, vocab.json with merges.txt, or with source.spm beside it, ...).
std::string tokenizer_file_hint(const std::string& name);

// A tokeniser file attn cannot read (exit 1, the hint above) ...
[[noreturn]] void tokenizer_file_error(const std::string& name, const std::string& what);

// ... or one that asks for something attn does not run (exit 1, naming it).
[[noreturn]] void tokenizer_unsupported(const std::string& name, const std::string& what);

struct PreTokenizer {
    // One pre-tokenisation step, in the file's order.
    struct Split {
        enum Kind { regex, digits, metaspace } kind = regex;
        CompiledRegex code;          // the compiled pattern (regex)
        bool individual = false;     // digits: each digit its own piece
    };

    bool byte_level = true;          // pieces are raw bytes (else sentencepiece style: '▁' for spaces)
    bool add_prefix_space = false;   // ByteLevel: a space before a part that lacks one
    bool nfc = false;                // the NFC normaliser (data/text/unicode.h), before the rest
    std::string prepend;             // sentencepiece: '▁' before each part, "first": before the first only, "": none
    bool prepend_unless_present = false;  // Metaspace's prepend: not before a '▁'
    bool metaspace = false;               // sentencepiece: ' ' -> '▁'
    std::vector<Split> splits;            // none: the part is one piece

    // GPT-2's own (vocab.json + merges.txt): ByteLevel with GPT-2's pattern.
    static PreTokenizer gpt2(const std::string& name);
    // tokenizer.json's normalizer, pre_tokenizer and decoder (which only tells a byte-level file).
    static PreTokenizer from_tokenizer_json(const nlohmann::json& j, const std::string& name);

    // Step 2: one part of the text as its pieces (byte-level: raw bytes; sentencepiece: the normalised
    // text). first: the part starts the text (Metaspace's "first" scheme).
    void pieces(std::string_view part, bool first, std::vector<std::string>& out) const;

private:
    std::string normalise(std::string_view part, bool first) const;
};

// BertPreTokenizer (WordPiece files): split at whitespace (dropped) and around every punctuation character
// (data/text/normalizer.h's bert_is_punctuation), each its own piece. Valid UTF-8 in.
void bert_pre_tokenize(std::string_view text, std::vector<std::string>& out);

}  // namespace attn
