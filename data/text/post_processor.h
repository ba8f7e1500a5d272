// Step 4 of data/text/tokenizer.h: tokenizer.json's post_processor, which puts the special tokens around
// the encoded text (or pair of texts) and gives each id its token type id, as Hugging Face's
// tokenizers library (processors/) does:
//   TemplateProcessing  its "single" and "pair" templates ($A / $B and special tokens, each with a type_id)
//   BertProcessing      [CLS] A [SEP] (type 0), pair: ... B [SEP] (type 1)
//   RobertaProcessing   <s> A </s>, pair: <s> A </s> </s> B </s>, every type id 0
//   ByteLevel           offsets only: no change to the ids
//   a Sequence of these; null: the text's ids alone.
// Anything else is refused by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace attn {

struct Encoding;

struct PostProcessor {
    struct Piece {
        int sequence = -1;               // 0: $A, 1: $B, -1: special tokens
        std::vector<std::int64_t> ids;   // the special tokens' ids
        std::int64_t type_id = 0;
    };
    std::vector<Piece> single{Piece{0, {}, 0}};
    std::vector<Piece> pair{Piece{0, {}, 0}, Piece{1, {}, 1}};

    static PostProcessor from_json(const nlohmann::json& p, const std::string& name);
    // Llama's tokenizer_config.json add_bos_token: <s> A, pair <s> A <s> B (-1: no BOS).
    static PostProcessor bos_template(std::int64_t bos);
    // T5's and Marian's: A </s>, pair A </s> B </s> (every type id 0).
    static PostProcessor eos_template(std::int64_t eos);
    // BertTokenizerFast's: [CLS] A [SEP], pair [CLS] A [SEP] B [SEP] with type ids 0 and 1.
    static PostProcessor bert(std::int64_t cls, std::int64_t sep);

    // The special tokens before $A in the single template (a decoder's BOS), and their count.
    std::int64_t bos() const;
    std::size_t prefix_count(bool with_pair) const;
    std::size_t added(bool with_pair) const;  // special tokens a text (or pair) gets

    // Assembles the encoding of a (and b when with_pair): ids, type ids, segments.
    void apply(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>* b, Encoding& out) const;
};

}  // namespace attn
