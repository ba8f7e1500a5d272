// Test tool: reads a JSON array of strings on standard input and prints, as a JSON array, attn's
// GPT-2 token ids of each, with the tokeniser of the model folder given as the one argument.
// tests/gpt2/encoder_check.js compares them with the npm package gpt-3-encoder.
#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/text/bpe_tokenizer.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: gpt2_encode MODEL_DIR < strings.json\n";
        return 2;
    }
    try {
        const auto tok = attn::BpeTokenizer::load_dir(argv[1]);
        const std::string in((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
        nlohmann::json out = nlohmann::json::array();
        for (const auto& s : nlohmann::json::parse(in)) out.push_back(tok.encode(s.get<std::string>()));
        std::cout << out.dump() << "\n";
    } catch (const attn::Error& e) {
        std::cerr << "gpt2_encode: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
