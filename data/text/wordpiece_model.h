// Step 3 of data/text/tokenizer.h for BERT-style files: the WordPiece model, as Hugging Face's tokenizers
// library (models/wordpiece) runs it on each pre-tokenised word:
//   - a word of more than max_input_chars_per_word characters (100) is unk_token;
//   - else greedy longest-match-first: the longest prefix that is a token, then the longest rest
//     that is a token once continuing_subword_prefix ("##") is put before it, and so on;
//   - when some rest has no such token, the whole word is unk_token (not only that rest).
// A candidate longer (in bytes) than the vocabulary's longest token is never looked up: the result is
// the library's, and a long word costs time linear in its length (the library's loop is quadratic when
// max_input_chars_per_word is raised).
// From tokenizer.json's {"type": "WordPiece", "vocab": {token: id}, ...} or from a vocab.txt (a token
// a line, its id the line's index, as BertTokenizerFast reads it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace attn {

struct WordPieceModel {
    std::unordered_map<std::string, std::int64_t> vocab;  // token -> id
    std::vector<std::string> id_to_token;                 // id -> token ("" for ids not used)
    std::string unk_token = "[UNK]", prefix = "##";
    std::int64_t unk = -1;
    std::size_t max_chars = 100;
    std::size_t longest = 0;  // bytes of the longest token (set by finish)

    static WordPieceModel from_json(const nlohmann::json& m, const std::string& name);
    static WordPieceModel from_vocab_txt(const std::string& text, const std::string& unk_token, const std::string& name);

    // The ids of one word (valid UTF-8, non-empty), appended to out.
    void tokenize(std::string_view word, std::vector<std::int64_t>& out) const;

private:
    void finish(const std::string& name);
};

}  // namespace attn
