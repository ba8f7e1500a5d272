// Test tool: reads a JSON array on standard input and prints, as a JSON array, attn's token ids of
// each entry (with the post-processor's special tokens), with the tokeniser of the model folder given
// as the first argument. An entry is a text, or [text, pair] for a sentence pair. With --types, each
// answer is {"ids": [...], "type_ids": [...]}. Scripts in tests/gpt2, tests/llama and tests/tokenizers
// compare them with independent encoders (gpt-3-encoder, llama-tokenizer-js, Hugging Face's tokenizers).
#include <cstring>
#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/text/tokenizer.h"

int main(int argc, char** argv) {
    const bool types = argc == 3 && std::strcmp(argv[2], "--types") == 0;
    if (argc != 2 && !types) {
        std::cerr << "usage: gpt2_encode MODEL_DIR [--types] < strings.json\n";
        return 2;
    }
    try {
        const auto tok = attn::Tokenizer::load_dir(argv[1]);
        const std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
        nlohmann::json out = nlohmann::json::array();
        for (const auto& s : nlohmann::json::parse(in)) {
            const attn::Encoding e = s.is_array() ? tok.encode_pair(s[0].get<std::string>(), s[1].get<std::string>())
                                                  : tok.encode(s.get<std::string>());
            if (types) out.push_back({{"ids", e.ids}, {"type_ids", e.type_ids}});
            else out.push_back(e.ids);
        }
        std::cout << out.dump() << "\n";
    } catch (const attn::Error& e) {
        std::cerr << "gpt2_encode: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
