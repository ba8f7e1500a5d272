// A byte-level BPE vocabulary, token -> id: vocab.json's text read straight into a map (nlohmann's SAX
// interface, no JSON tree), or tokenizer.json's model.vocab object from the tree already parsed. Both
// refuse the same entries in the same words (through tokenizer_file_error, data/text/pre_tokenizer.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json_fwd.hpp>

namespace attn {

// What is wrong with one entry token -> id (id -1: not a whole number), if anything: an id that is not
// a whole number below 2^24, an empty token, a token longer than a token may be.
std::optional<std::string> vocab_entry_problem(const std::string& tok, std::int64_t id);

// tokenizer.json's model.vocab (j): an object of token -> id, not empty, every entry sound (the first bad
// one in the tree's sorted order named).
std::unordered_map<std::string, std::int64_t> vocab_from_json(const nlohmann::json& j, const std::string& name);

// vocab.json's text, answered as vocab_from_json on parse_tokenizer_file's tree would be: a syntax error
// anywhere first, nesting deeper than 8 where the tree's reader stops, then a top level that is not an
// object, then the bad entry whose token sorts first once a repeated token has taken its last id.
std::unordered_map<std::string, std::int64_t> read_vocab_json(const std::string& text, const std::string& name);

}  // namespace attn
