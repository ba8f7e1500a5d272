#include "data/text/vocab_json.h"

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/base/files.h"
#include "data/base/json_strict.h"
#include "data/text/pre_tokenizer.h"
#include "data/text/tokenize.h"
#include "data/text/tokenizer_json.h"

namespace attn {

using tokenizer_json::kMaxId;

std::optional<std::string> vocab_entry_problem(const std::string& tok, std::int64_t id) {
    if (id < 0 || id >= kMaxId) return "the id of token '" + excerpt(tok, 40) + "' is not a whole number below 2^24";
    if (tok.empty()) return std::string("an empty token");
    if (const auto problem = token_length_problem(tok)) return "a token " + *problem;
    return std::nullopt;
}

std::unordered_map<std::string, std::int64_t> vocab_from_json(const nlohmann::json& j, const std::string& name) {
    if (!j.is_object()) tokenizer_file_error(name, "the vocabulary is not a JSON object of token -> id");
    std::unordered_map<std::string, std::int64_t> vocab;
    vocab.reserve(j.size());
    for (const auto& [tok, value] : j.items()) {  // in the tree's (sorted) order: the first bad token named
        const std::int64_t id = value.is_number_integer() ? value.get<std::int64_t>() : -1;
        if (const auto problem = vocab_entry_problem(tok, id)) tokenizer_file_error(name, *problem);
        vocab[tok] = id;
    }
    if (vocab.empty()) tokenizer_file_error(name, "the vocabulary is empty");
    return vocab;
}

namespace {

// The SAX handler: the tree of GPT-2's 50,257 entries, built and freed, was half the time of reading its
// tokeniser. Events nested deeper than 8 containers are refused as parse_tokenizer_file's callback does.
class VocabReader {
public:
    VocabReader(std::unordered_map<std::string, std::int64_t>& entries, const std::string& name) : entries_(entries), name_(name) {}
    bool null() { return value(-1); }
    bool boolean(bool) { return value(-1); }
    bool number_integer(std::int64_t v) { return value(v); }
    bool number_unsigned(std::uint64_t v) { return value(v < std::uint64_t(kMaxId) ? std::int64_t(v) : kMaxId); }
    bool number_float(double, const std::string&) { return value(-1); }
    bool string(std::string&) { return value(-1); }
    bool binary(nlohmann::json::binary_t&) { return value(-1); }
    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return --open_, true; }
    bool end_array() { return --open_, true; }
    bool key(std::string& k) {
        nesting();
        if (open_ == 1) key_ = std::move(k);
        return true;
    }
    template <class Exception>
    bool parse_error(std::size_t, const std::string&, const Exception& e) { throw e; }
    bool top_is_object() const { return top_object_; }

private:
    void nesting() const {  // as parse_tokenizer_file's callback: an event inside more than 8 containers
        if (open_ > 8) tokenizer_file_error(name_, "nests deeper than a tokeniser file does");
    }
    bool value(std::int64_t id) {  // at depth 1 an entry's id (a repeated token takes its last)
        nesting();
        if (open_ == 1) entries_[std::move(key_)] = id;
        return true;
    }
    bool open(bool object) {  // a container: the top level, or an entry's value (not an id)
        nesting();
        if (open_ == 0) top_object_ = object;
        else if (open_ == 1) entries_[std::move(key_)] = -1;
        return ++open_, true;
    }
    std::unordered_map<std::string, std::int64_t>& entries_;
    const std::string& name_;
    std::size_t open_ = 0;
    bool top_object_ = false;
    std::string key_;
};

}  // namespace

std::unordered_map<std::string, std::int64_t> read_vocab_json(const std::string& text, const std::string& name) {
    refuse_json_bom(text, name);
    std::unordered_map<std::string, std::int64_t> vocab;
    vocab.reserve(text.size() / 16);  // GPT-2's entries take 20 bytes each
    VocabReader reader(vocab, name);
    try {
        nlohmann::json::sax_parse(text, &reader);
    } catch (const nlohmann::json::parse_error& e) {
        tokenizer_file_error(name, json_syntax_problem(e));
    } catch (const nlohmann::json::exception&) {
        tokenizer_file_error(name, "a number in the JSON is beyond the range of a double");
    }
    if (!reader.top_is_object()) tokenizer_file_error(name, "the vocabulary is not a JSON object of token -> id");
    const std::string* first_bad = nullptr;  // the bad entry the tree's sorted order meets first
    std::string problem;
    for (const auto& [tok, id] : vocab)
        if (first_bad == nullptr || tok < *first_bad)
            if (auto p = vocab_entry_problem(tok, id)) first_bad = &tok, problem = std::move(*p);
    if (first_bad != nullptr) tokenizer_file_error(name, problem);
    if (vocab.empty()) tokenizer_file_error(name, "the vocabulary is empty");
    return vocab;
}

}  // namespace attn
