// Fuzz bodies for the model files (safetensors header, GPT-2 tokeniser files), shared by the
// libFuzzer targets fuzz/fuzz_safetensors.cpp and fuzz/fuzz_gpt2_tokenizer.cpp and by the corpus
// replay in tests/test_corpus_model.cpp. Each returns what is wrong ("" when nothing is).
#pragma once

#include <string>
#include <string_view>

#include "data/error.h"
#include "data/bpe_tokenizer.h"
#include "data/safetensors.h"
#include "data/tokenize.h"

namespace attn::fuzz {

inline std::string model_error(const Error& e) {
    const std::string what = e.what();
    if (e.exit_code() != 1 && e.exit_code() != 2) return "exit code " + std::to_string(e.exit_code());
    if (what.empty() || what.find('\n') != std::string::npos) return "not a one-line message: " + what;
    return "";
}

// ---- safetensors: the whole file --------------------------------------------------------------------
// Accepted headers must describe tensors inside the file that tile its data exactly; every F16/BF16/F32
// tensor is then read (which must either succeed or refuse inf/NaN cleanly).
inline std::string safetensors_one(const std::string& bytes) {
    SafetensorsFile f;
    try {
        f = SafetensorsFile::from_bytes(bytes, "fuzz.safetensors");
    } catch (const Error& e) {
        return model_error(e);
    }
    std::size_t at = bytes.size();
    for (auto it = f.header().tensors.rbegin(); it != f.header().tensors.rend(); ++it) {
        if (it->end != at || it->begin > it->end) return "tensors do not tile the data buffer";
        if ((it->end - it->begin) != it->count() * safetensors_dtype_size(it->dtype)) return "byte count differs from dtype × shape";
        at = it->begin;
    }
    for (const auto& t : f.header().tensors) {
        if (t.count() > (1u << 20)) continue;
        std::vector<float> out(t.count());
        try {
            f.read_float(t, out.data());
        } catch (const Error& e) {
            if (auto p = model_error(e); !p.empty()) return p;
        }
    }
    return "";
}

// ---- GPT-2 tokeniser files ----------------------------------------------------------------------------
// Byte 0 even: vocab.json \0 merges.txt \0 text; odd: tokenizer.json \0 text. A tokeniser that loads
// must give ids inside its vocabulary whose bytes are the text again.
inline std::string gpt2_tokenizer_one(std::string_view data) {
    if (data.empty()) return "";
    const bool json = static_cast<unsigned char>(data[0]) % 2 == 1;
    data.remove_prefix(1);
    auto next = [&] {
        const auto z = data.find('\0');
        std::string part(data.substr(0, z));
        data.remove_prefix(z == std::string_view::npos ? data.size() : z + 1);
        return part;
    };
    BpeTokenizer tok;
    try {
        if (json) {
            const std::string tj = next();
            tok = BpeTokenizer::from_tokenizer_json(tj, "tokenizer.json");
        } else {
            const std::string vocab = next(), merges = next();
            tok = BpeTokenizer::from_vocab_merges(vocab, merges, "vocab.json", "merges.txt");
        }
    } catch (const Error& e) {
        return model_error(e);
    }
    const std::string text(data);
    if (text_problem(text)) return "";
    const auto ids = tok.encode(text);
    std::string back;
    for (std::size_t i = 0; i < ids.size(); ++i) {
        const auto id = ids[i];
        if (id < 0 || static_cast<std::size_t>(id) >= tok.vocab_size()) return "an id outside the vocabulary";
        if (i == 0 && id == tok.bos()) continue;  // the BOS the post-processor puts first is not text
        back += tok.decode(id);
    }
    if (!tok.round_trips()) return "";  // unknown characters became <unk>
    // a space the tokeniser prepends (add_prefix_space, Prepend '▁', Metaspace), and '▁' written in the
    // text itself, decode as spaces
    std::string spaced;
    for (std::size_t at = 0; at < text.size();) {
        if (text.compare(at, 3, "\xE2\x96\x81") == 0) spaced += ' ', at += 3;
        else spaced += text[at++];
    }
    if (back != text && back != spaced && back != " " + text && back != " " + spaced) return "the tokens' bytes are not the text";
    return "";
}

}  // namespace attn::fuzz
