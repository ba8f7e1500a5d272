// Test tool: reads a PyTorch checkpoint (pytorch_model.bin, either format) with attn's weights-only
// reader and prints what it read as JSON: [{"name", "dtype", "shape", "hex"}, ...] in the state dict's
// order, "hex" the tensor's contiguous little-endian bytes. An error goes to standard error as attn
// prints it (exit 1). tests/torch_bin/torch_bin_check.py compares the tensors with torch.load's.
#include <iostream>

#include <nlohmann/json.hpp>

#include "data/base/error.h"
#include "data/checkpoint/torch_checkpoint.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: torch_read FILE.bin\n";
        return 2;
    }
    try {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& t : attn::read_torch_checkpoint(argv[1])) {
            std::string hex;
            hex.reserve(2 * t.bytes.size());
            for (unsigned char b : t.bytes) hex += "0123456789abcdef"[b >> 4], hex += "0123456789abcdef"[b & 15];
            out.push_back({{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}, {"hex", hex}});
        }
        std::cout << out.dump() << "\n";
    } catch (const attn::Error& e) {
        std::cerr << "attn: error: " << e.what() << (e.hint().empty() ? "" : " (hint: " + e.hint() + ")") << "\n";
        return e.exit_code();
    }
    return 0;
}
