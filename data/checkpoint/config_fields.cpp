// The typed reads every config.json parser is built from (data/checkpoint/config_parsers.h): each refuses
// a bad value by name, and check_fields refuses a field no parser reads.
#include <cmath>
#include <set>
#include <string>

#include "data/base/error.h"
#include "data/checkpoint/config_parsers.h"

namespace attn::config {

[[noreturn]] void bad(const std::string& name, const std::string& what, const std::string& hint) {
    input_error(name + ": " + what, hint);
}

// A whole number in [lo, hi] from the first of `keys` present (Hugging Face's alias names first).
std::optional<std::size_t> whole(const nlohmann::json& j, std::initializer_list<const char*> keys, std::size_t lo, std::size_t hi,
                                 const std::string& name) {
    for (const char* key : keys) {
        if (!j.contains(key) || j[key].is_null()) continue;
        const auto& v = j[key];
        if (!v.is_number_integer() || v.get<std::int64_t>() < static_cast<std::int64_t>(lo) ||
            v.get<std::int64_t>() > static_cast<std::int64_t>(hi))
            bad(name, "\"" + std::string(key) + "\" is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
        return static_cast<std::size_t>(v.get<std::int64_t>());
    }
    return std::nullopt;
}

std::size_t required(const nlohmann::json& j, std::initializer_list<const char*> keys, std::size_t lo, std::size_t hi,
                     const std::string& name, const char* hint) {
    if (const auto v = whole(j, keys, lo, hi, name)) return *v;
    bad(name, "\"" + std::string(*(keys.end() - 1)) + "\" is missing", hint);
}

// A number in (lo, hi); `range` says so in words ("between 0 and 1").
std::optional<double> number(const nlohmann::json& j, const char* key, double lo, double hi, const char* range,
                             const std::string& name) {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    const auto& v = j[key];
    if (!v.is_number() || !(v.get<double>() > lo) || !(v.get<double>() < hi))
        bad(name, std::string(key) + " is not a number " + range);
    return v.get<double>();
}

std::optional<bool> flag(const nlohmann::json& j, const char* key, const std::string& name) {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    if (!j[key].is_boolean()) bad(name, std::string(key) + " is not true or false");
    return j[key].get<bool>();
}

// Every field is either read by the parser (`read`), known not to change a number (`harmless`), or
// refused by name: a field attn does not know could change the model (quantization_config, ...).
void check_fields(const nlohmann::json& j, const std::string& name, const std::set<std::string>& read,
                  const std::set<std::string>& harmless) {
    static const std::set<std::string> common = {
        "model_type", "architectures", "_name_or_path", "transformers_version", "torch_dtype", "use_cache",
        "bos_token_id", "eos_token_id", "pad_token_id", "sep_token_id", "decoder_start_token_id", "initializer_range",
        "id2label", "label2id", "_num_labels", "num_labels", "task_specific_params", "output_attentions",
        "output_hidden_states", "return_dict", "tokenizer_class", "prefix", "is_decoder", "is_encoder_decoder",
        "problem_type", "finetuning_task", "_attn_implementation", "attn_implementation", "gradient_checkpointing",
        "output_past", "use_return_dict", "torchscript", "max_length", "min_length", "do_sample", "early_stopping",
        "num_beams", "temperature", "top_k", "top_p", "repetition_penalty", "length_penalty", "no_repeat_ngram_size",
        "bad_words_ids", "num_return_sequences", "chunk_size_feed_forward", "tie_encoder_decoder", "pruned_heads"};
    for (const auto& [key, value] : j.items()) {
        if (read.count(key) || harmless.count(key) || common.count(key)) continue;
        bad(name, "field \"" + excerpt(key, 60) + "\" is not one attn reads, and it may change the numbers",
            "attn computes every field as Hugging Face does or refuses it: remove the field only if the model does not use it");
    }
}

// hidden_act / activation as Hugging Face's ACT2FN maps it, for the activations attn runs.
MlpKind activation(const nlohmann::json& j, const char* key, MlpKind fallback, const std::string& name, bool allow_silu) {
    if (!j.contains(key) || j[key].is_null()) return fallback;
    const auto& a = j[key];
    if (a == "gelu") return MlpKind::gelu_erf;
    if (a == "gelu_new" || a == "gelu_pytorch_tanh") return MlpKind::gelu_tanh;
    if (a == "relu") return MlpKind::relu;
    if (allow_silu && (a == "silu" || a == "swish")) return MlpKind::silu;
    bad(name, std::string(key) + " is not an activation attn runs (gelu, gelu_new, gelu_pytorch_tanh, relu" +
                  (allow_silu ? ", silu, swish" : "") + ")",
        "attn computes the activations these checkpoints use; another one would change the numbers");
}

}  // namespace attn::config
