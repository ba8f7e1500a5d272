#include "data/text/wordpiece_model.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/text/tokenizer_json.h"
#include "data/base/utf8.h"
#include "data/text/pre_tokenizer.h"
#include "data/text/tokenize.h"

namespace attn {

using tokenizer_json::kMaxId;
namespace {


std::size_t chars(std::string_view s) {
    std::size_t n = 0;
    for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

}  // namespace

WordPieceModel WordPieceModel::from_json(const nlohmann::json& m, const std::string& name) {
    WordPieceModel w;
    if (!m.contains("vocab") || !m["vocab"].is_object()) tokenizer_file_error(name, "the WordPiece model has no \"vocab\" object");
    for (const auto& [tok, id] : m["vocab"].items()) {
        if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() >= kMaxId)
            tokenizer_file_error(name, "the id of token '" + excerpt(tok, 40) + "' is not a whole number below 2^24");
        w.vocab[tok] = id.get<std::int64_t>();
    }
    if (m.contains("unk_token") && m["unk_token"].is_string()) w.unk_token = m["unk_token"].get<std::string>();
    if (m.contains("continuing_subword_prefix") && m["continuing_subword_prefix"].is_string())
        w.prefix = m["continuing_subword_prefix"].get<std::string>();
    if (m.contains("max_input_chars_per_word")) {
        const auto& x = m["max_input_chars_per_word"];
        if (!x.is_number_unsigned()) tokenizer_file_error(name, "max_input_chars_per_word is not a whole number");
        w.max_chars = x.get<std::size_t>();
    }
    w.finish(name);
    return w;
}

WordPieceModel WordPieceModel::from_vocab_txt(const std::string& text, const std::string& unk_token, const std::string& name) {
    // transformers' load_vocab: the file read in Python's text mode (universal newlines: "\r\n" and "\r"
    // end lines too), each line with its "\n" removed and nothing else, a repeated token taking its last id
    WordPieceModel w;
    w.unk_token = unk_token;
    std::int64_t id = 0;
    for (std::size_t at = 0; at < text.size(); ++id) {
        std::size_t nl = text.find_first_of("\r\n", at);
        if (nl == std::string::npos) nl = text.size();
        if (id >= kMaxId) tokenizer_file_error(name, "more than 2^24 lines");
        // Python reads the file as UTF-8 and stops at an invalid byte (UnicodeDecodeError): so does attn
        for (std::size_t i = at; i < nl;) {
            char32_t cp = 0;
            const std::size_t n = utf8_decode(text, i, cp);
            if (n == 0) tokenizer_file_error(name, "line " + std::to_string(id + 1) + " is not UTF-8 (byte " + std::to_string(i) + ")");
            i += n;
        }
        w.vocab[text.substr(at, nl - at)] = id;
        at = nl + (text.compare(nl, 2, "\r\n") == 0 ? 2 : 1);
    }
    w.finish(name);
    return w;
}

void WordPieceModel::finish(const std::string& name) {
    if (vocab.empty()) tokenizer_file_error(name, "the vocabulary is empty");
    for (const auto& [tok, id] : vocab)
        if (const auto problem = token_length_problem(tok)) tokenizer_file_error(name, "a token " + *problem);
    const auto u = vocab.find(unk_token);
    if (u == vocab.end()) tokenizer_file_error(name, "unk_token '" + excerpt(unk_token, 40) + "' is not in the vocabulary");
    unk = u->second;
    longest = 0;
    for (const auto& kv : vocab) longest = std::max(longest, kv.first.size());
    std::int64_t max_id = 0;
    for (const auto& kv : vocab) max_id = std::max(max_id, kv.second);
    id_to_token.assign(static_cast<std::size_t>(max_id) + 1, std::string());
    for (const auto& [tok, id] : vocab) id_to_token[static_cast<std::size_t>(id)] = tok;
}

void WordPieceModel::tokenize(std::string_view word, std::vector<std::int64_t>& out) const {
    if (chars(word) > max_chars) {
        out.push_back(unk);
        return;
    }
    const std::size_t first = out.size();
    std::string piece;
    for (std::size_t start = 0; start < word.size();) {
        // no piece longer than the longest token can match: the first candidate is the longest rest that
        // fits (cut back to a character's start), so a word costs O(length · longest), not O(length²)
        const std::size_t lead = start > 0 ? prefix.size() : 0;
        const std::size_t room = longest > lead ? longest - lead : 0;
        std::size_t end = start + std::min(room, word.size() - start);
        while (end > start && end < word.size() && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) --end;
        std::int64_t hit = -1;
        while (start < end) {
            piece.assign(start > 0 ? prefix : std::string());
            piece.append(word.substr(start, end - start));
            if (const auto it = vocab.find(piece); it != vocab.end()) {
                hit = it->second;
                break;
            }
            do --end; while (end > start && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80);  // one character back
        }
        if (hit < 0) {  // a rest without a token: the whole word is unknown
            out.resize(first);
            out.push_back(unk);
            return;
        }
        out.push_back(hit);
        start = end;
    }
}

}  // namespace attn
