// attn decode --model DIR: a real model's key/value cache filled one token at a time.
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/policy/budget.h"
#include "cli/show_model.h"
#include "core/model.h"
#include "data/error.h"
#include "data/model_checkpoint.h"

namespace attn::cli {

void run_decode_model(const std::string& dir, const std::string& text, int precision) {
    // 1. the folder and the text, within the model's context
    const ModelConfig c = read_model_config(dir).config;
    const BpeTokenizer tok = BpeTokenizer::load_dir(dir);
    const std::vector<std::int64_t> ids = model_token_ids(tok, c, text);
    const auto model = load_model_checkpoint(dir);
    // 2. the full pass and the steps
    const ModelDecode d = run_model_decode(*model, tok, ids);
    // 3. the steps, the check against the full pass, the cache
    std::cout << "model:    " << model->family->name << " \xC2\xB7 " << model->dtype << " \xC2\xB7 " << c.n_layer << " layers \xC3\x97 "
              << c.n_head << " query heads over " << c.n_kv_head << " key/value heads \xC2\xB7 head_dim " << c.head_dim << "\n";
    std::cout << "attn decode \xC2\xB7 " << ids.size() << " tokens fed one at a time; each step's queries attend over the cached keys\n\n";
    // columns padded by characters, not bytes (labels hold '·' and other non-ASCII text)
    auto pad = [](const std::string& s, std::size_t width, bool right = false) {
        std::size_t chars = 0;
        for (unsigned char ch : s) chars += (ch & 0xC0) != 0x80;
        const std::string fill(chars < width ? width - chars : 0, ' ');
        return right ? fill + s : s + fill;
    };
    std::cout << pad("step", 5, true) << "  " << pad("token", 18) << pad("next (top 1)", 18) << pad("cache", 10, true) << "\n";
    for (const auto& s : d.steps)
        std::cout << pad(std::to_string(s.step), 5, true) << "  " << pad(s.token, 18) << pad(s.next, 18)
                  << pad(format_bytes(static_cast<double>(s.cache_bytes)), 10, true) << "\n";
    char diff[400];  // %g of a double: at most 310 characters
    std::snprintf(diff, sizeof diff, "%.*g", std::max(1, precision / 2), d.max_abs_diff);
    std::cout << "\nevery step's weights equal row t of the full pass within " << diff << " (largest difference)"
              << (d.top_changed ? "; some top prediction differs from the full pass's" : "; the same top predictions") << "\n";
    const auto G = c.n_kv_head, H = c.n_head;
    std::cout << "key/value cache per token: " << c.n_layer << " layers \xC3\x97 " << G << " key/value heads \xC3\x97 " << c.head_dim
              << " head_dim \xC3\x97 2 (k, v) \xC3\x97 " << d.dtype_bytes << " bytes (" << model->dtype
              << ") = " << d.cache_bytes_per_token << " bytes\n";
    std::cout << "  as multi-head attention (" << H << " key/value heads): " << d.mha_bytes_per_token << " bytes";
    if (G != H) std::cout << "; sharing each key/value head among " << H / G << " query heads keeps 1/" << H / G << " of it";
    std::cout << "\n";
}

}  // namespace attn::cli
