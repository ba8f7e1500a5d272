// How an encoder-decoder model chooses its output tokens, as Hugging Face's generate() reads it:
// generation_config.json when the folder has one, else config.json (GenerationConfig.from_model_config).
// attn decodes greedily (the first maximum on ties) whatever num_beams or do_sample say, applying the
// logits processors that change a greedy choice as Hugging Face's do (core/model/generate.cpp); a field
// that would change the choice and that attn does not apply is refused by name.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace attn {

struct GenerationConfig {
    std::string file;                          // the file the settings came from
    std::int64_t decoder_start = -1;           // decoder_start_token_id, else bos_token_id
    std::vector<std::int64_t> eos;             // eos_token_id (int or list): generation stops after one; empty: none
    std::int64_t pad = -1;                     // pad_token_id
    std::int64_t forced_bos = -1;              // forced_bos_token_id: the only choice at the first step
    std::vector<std::int64_t> forced_eos;      // forced_eos_token_id: the only choices at the last step
    std::vector<std::vector<std::int64_t>> bad_words;  // bad_words_ids: never completed
    std::size_t min_length = 0;                // min_length: eos hidden while the decoder's input is shorter
    std::size_t min_new_tokens = 0;            // min_new_tokens: eos hidden while fewer tokens were generated
    std::size_t no_repeat_ngram = 0;           // no_repeat_ngram_size: an n-gram never repeats
    double repetition_penalty = 1.0;           // logits of tokens already in the decoder's input: / p if > 0, · p if < 0
    std::size_t num_beams = 1;                 // what Hugging Face's own generate() would search with (attn: greedy)
    bool do_sample = false;                    // whether Hugging Face would sample (attn: greedy unless asked)
    double temperature = 1.0;                  // what it would sample with: temperature, top_k (Hugging Face's
    std::size_t top_k = 50;                    // default 50; 0: off), top_p (1: off)
    double top_p = 1.0;
};

// Every field name a generation config may hold (the config parsers let them pass to this reader).
const std::set<std::string>& generation_fields();

// config.json's generation fields with generation_config.json's (when the folder has one) over them; a
// field neither file gives takes the default of the model type's config class (BartConfig: eos 2,
// start 2, forced eos 2, pad 1; MarianConfig: eos 0, start and pad 58100, forced eos 0; T5Config: eos 1,
// pad 0). A null eos_token_id is refused: the decoder would never end before the limit.
GenerationConfig read_generation_config(const std::string& dir, const std::string& model_type);
// The same from parsed JSON (`name` names the file in errors).
GenerationConfig parse_generation_config(const nlohmann::json& j, const std::string& name);
// Every id must name a row of the vocabulary, and the decoder needs a start token.
void check_generation_ids(const GenerationConfig& g, std::size_t vocab_size);

}  // namespace attn
