#include "data/checkpoint/generation_config.h"

#include <sys/stat.h>

#include "data/base/error.h"
#include "data/base/files.h"

namespace attn {
namespace {

[[noreturn]] void bad_field(const std::string& name, const std::string& what, const std::string& hint) {
    input_error(name + ": " + what, hint);
}

bool present(const nlohmann::json& j, const char* key) { return j.contains(key) && !j[key].is_null(); }

std::int64_t id(const nlohmann::json& v, const std::string& key, const std::string& name) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
        bad_field(name, "\"" + key + "\" is not a token id (a whole number from 0)", "use the model's own config files");
    return v.get<std::int64_t>();
}

// An id or a list of ids (eos_token_id and forced_eos_token_id may be either).
std::vector<std::int64_t> ids(const nlohmann::json& j, const char* key, const std::string& name) {
    if (!present(j, key)) return {};
    const auto& v = j[key];
    if (!v.is_array()) return {id(v, key, name)};
    if (v.size() > 4096) bad_field(name, std::string("\"") + key + "\" lists more than 4096 ids", "use the model's own config files");
    std::vector<std::int64_t> out;
    for (const auto& e : v) out.push_back(id(e, key, name));
    return out;
}

std::size_t count(const nlohmann::json& j, const char* key, const std::string& name) {
    if (!present(j, key)) return 0;
    const auto& v = j[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > (1 << 20))
        bad_field(name, std::string("\"") + key + "\" is not a whole number from 0 to 1048576", "use the model's own config files");
    return static_cast<std::size_t>(v.get<std::int64_t>());
}

// A field that would change a greedy choice in a way attn does not apply: refused when it is set.
void refuse_if_set(const nlohmann::json& j, const char* key, bool set, const std::string& name) {
    if (set)
        bad_field(name, std::string("\"") + key + "\" is set, which changes the generated tokens in a way attn does not apply",
            "attn applies bad_words_ids, forced_bos/eos_token_id, min_length, min_new_tokens, no_repeat_ngram_size and "
            "repetition_penalty; remove the field to decode without it");
    (void)j;
}

bool non_empty(const nlohmann::json& j, const char* key) {
    return present(j, key) && !(j[key].is_array() && j[key].empty());
}

}  // namespace

const std::set<std::string>& generation_fields() {
    static const std::set<std::string> f = {
        "decoder_start_token_id", "eos_token_id", "pad_token_id", "bos_token_id", "forced_bos_token_id", "forced_eos_token_id",
        "bad_words_ids", "min_length", "min_new_tokens", "max_length", "max_new_tokens", "repetition_penalty",
        "no_repeat_ngram_size", "num_beams", "do_sample", "early_stopping", "temperature", "top_k", "top_p", "typical_p",
        "epsilon_cutoff", "eta_cutoff", "length_penalty", "num_return_sequences", "num_beam_groups", "diversity_penalty",
        "renormalize_logits", "remove_invalid_values", "output_scores", "return_dict_in_generate", "output_attentions",
        "output_hidden_states", "use_cache", "max_time", "suppress_tokens", "begin_suppress_tokens", "forced_decoder_ids",
        "encoder_no_repeat_ngram_size", "encoder_repetition_penalty", "exponential_decay_length_penalty", "sequence_bias",
        "guidance_scale", "low_memory", "constraints", "force_words_ids", "penalty_alpha", "_from_model_config",
        "transformers_version", "decoder_start_token_ids"};
    return f;
}

GenerationConfig parse_generation_config(const nlohmann::json& j, const std::string& name) {
    GenerationConfig g;
    g.file = name;
    // 1. the processors attn applies
    if (present(j, "decoder_start_token_id")) g.decoder_start = id(j["decoder_start_token_id"], "decoder_start_token_id", name);
    else if (present(j, "bos_token_id")) g.decoder_start = id(j["bos_token_id"], "bos_token_id", name);
    g.eos = ids(j, "eos_token_id", name);
    if (present(j, "pad_token_id")) g.pad = id(j["pad_token_id"], "pad_token_id", name);
    if (present(j, "forced_bos_token_id")) g.forced_bos = id(j["forced_bos_token_id"], "forced_bos_token_id", name);
    else if (present(j, "force_bos_token_to_be_generated") && j["force_bos_token_to_be_generated"] == true && present(j, "bos_token_id"))
        g.forced_bos = id(j["bos_token_id"], "bos_token_id", name);  // BartConfig's old name for forcing bos
    g.forced_eos = ids(j, "forced_eos_token_id", name);
    if (present(j, "bad_words_ids")) {
        const auto& b = j["bad_words_ids"];
        if (!b.is_array() || b.size() > 65536) bad_field(name, "\"bad_words_ids\" is not a list of id lists", "use the model's own config files");
        for (const auto& seq : b) {
            if (!seq.is_array() || seq.empty() || seq.size() > 256)
                bad_field(name, "\"bad_words_ids\" holds an entry that is not a list of 1 to 256 ids", "use the model's own config files");
            std::vector<std::int64_t> s;
            for (const auto& e : seq) s.push_back(id(e, "bad_words_ids", name));
            g.bad_words.push_back(std::move(s));
        }
    }
    g.min_length = count(j, "min_length", name);
    g.min_new_tokens = count(j, "min_new_tokens", name);
    g.no_repeat_ngram = count(j, "no_repeat_ngram_size", name);
    if (present(j, "repetition_penalty")) {
        if (!j["repetition_penalty"].is_number() || !(j["repetition_penalty"].get<double>() > 0.0))
            bad_field(name, "\"repetition_penalty\" is not a positive number", "use the model's own config files");
        g.repetition_penalty = j["repetition_penalty"].get<double>();
    }
    // 2. what Hugging Face would search with (attn decodes greedily and says so)
    g.num_beams = present(j, "num_beams") ? std::max<std::size_t>(1, count(j, "num_beams", name)) : 1;
    g.do_sample = present(j, "do_sample") && j["do_sample"] == true;
    // what it would sample with (only said, never run unless asked: a value out of range is left out)
    if (present(j, "temperature") && j["temperature"].is_number() && j["temperature"].get<double>() > 0.0)
        g.temperature = j["temperature"].get<double>();
    if (present(j, "top_k") && j["top_k"].is_number_integer() && j["top_k"].get<std::int64_t>() >= 0)
        g.top_k = static_cast<std::size_t>(j["top_k"].get<std::int64_t>());
    if (present(j, "top_p") && j["top_p"].is_number() && j["top_p"].get<double>() > 0.0 && j["top_p"].get<double>() <= 1.0)
        g.top_p = j["top_p"].get<double>();
    // 3. fields that would change a greedy choice and that attn does not apply
    refuse_if_set(j, "suppress_tokens", non_empty(j, "suppress_tokens"), name);
    refuse_if_set(j, "begin_suppress_tokens", non_empty(j, "begin_suppress_tokens"), name);
    refuse_if_set(j, "forced_decoder_ids", non_empty(j, "forced_decoder_ids"), name);
    refuse_if_set(j, "decoder_start_token_ids", non_empty(j, "decoder_start_token_ids"), name);
    refuse_if_set(j, "encoder_no_repeat_ngram_size", count(j, "encoder_no_repeat_ngram_size", name) > 0, name);
    refuse_if_set(j, "encoder_repetition_penalty",
                  present(j, "encoder_repetition_penalty") && j["encoder_repetition_penalty"] != 1.0, name);
    refuse_if_set(j, "exponential_decay_length_penalty", present(j, "exponential_decay_length_penalty"), name);
    refuse_if_set(j, "sequence_bias", non_empty(j, "sequence_bias"), name);
    refuse_if_set(j, "guidance_scale", present(j, "guidance_scale") && j["guidance_scale"] != 1.0, name);
    refuse_if_set(j, "constraints", non_empty(j, "constraints"), name);
    refuse_if_set(j, "force_words_ids", non_empty(j, "force_words_ids"), name);
    refuse_if_set(j, "penalty_alpha", present(j, "penalty_alpha") && j["penalty_alpha"] != 0.0, name);
    return g;
}

namespace {

nlohmann::json read_json(const std::string& path, const char* what) {
    nlohmann::json j;
    const std::string text = read_file(path, what);
    refuse_json_bom(text, path);
    try {
        j = nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (depth > 16) bad_field(path, "nests too deeply", "use the model's own config files");
            return true;
        });
    } catch (const nlohmann::json::exception&) {
        bad_field(path, "not JSON", "use the model's own config files");
    }
    if (!j.is_object()) bad_field(path, "not a JSON object", "use the model's own config files");
    return j;
}

// The config class's defaults for the ids a config.json may leave out.
nlohmann::json class_defaults(const std::string& model_type) {
    if (model_type == "bart")
        return {{"eos_token_id", 2}, {"decoder_start_token_id", 2}, {"forced_eos_token_id", 2}, {"pad_token_id", 1}, {"bos_token_id", 0}};
    if (model_type == "marian")
        return {{"eos_token_id", 0}, {"decoder_start_token_id", 58100}, {"forced_eos_token_id", 0}, {"pad_token_id", 58100}};
    if (model_type == "t5") return {{"eos_token_id", 1}, {"pad_token_id", 0}};
    return nlohmann::json::object();
}

}  // namespace

GenerationConfig read_generation_config(const std::string& dir, const std::string& model_type) {
    const std::string config = dir + "/config.json", gen = dir + "/generation_config.json";
    nlohmann::json merged = nlohmann::json::object();
    const nlohmann::json cj = read_json(config, "config file");  // held: a temporary's items() would dangle
    for (const auto& [key, v] : cj.items())
        if (generation_fields().count(key)) merged[key] = v;
    refuse_odd_file(gen, "put the model's own generation_config.json file there, or none");
    struct stat st {};
    const bool own = ::stat(gen.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    const nlohmann::json gj = own ? read_json(gen, "generation config") : nlohmann::json::object();
    if (own)
        for (const auto& [key, v] : gj.items()) {
            if (!generation_fields().count(key))
                bad_field(gen, "field \"" + excerpt(key, 60) + "\" is not one attn reads, and it may change the generated tokens",
                    "attn applies the generation fields Hugging Face's greedy search applies or refuses them by name");
            if (!v.is_null()) merged[key] = v;
        }
    const nlohmann::json defaults = class_defaults(model_type);
    for (const auto& [key, v] : defaults.items())
        if (!merged.contains(key)) merged[key] = v;
    const std::string name = own ? gen : config;
    if (merged.contains("eos_token_id") && merged["eos_token_id"].is_null())
        bad_field(name, "eos_token_id is null: the decoder would never end before --max-new-tokens",
            "give the model's end token id (eos_token_id), as its own config files do");
    return parse_generation_config(merged, name);
}

void check_generation_ids(const GenerationConfig& g, std::size_t vocab_size) {
    const std::string hint = "the ids must name rows of the model's vocabulary: use the model's own config files";
    auto in_range = [&](std::int64_t v, const char* what) {
        if (v >= 0 && static_cast<std::size_t>(v) >= vocab_size)
            bad_field(g.file, std::string(what) + " " + std::to_string(v) + " is past the vocabulary (" + std::to_string(vocab_size) + " ids)", hint);
    };
    if (g.decoder_start < 0)
        bad_field(g.file, "names no decoder_start_token_id (nor bos_token_id)", "the decoder needs a first token: use the model's own config files");
    in_range(g.decoder_start, "decoder_start_token_id");
    for (auto e : g.eos) in_range(e, "eos_token_id");
    in_range(g.forced_bos, "forced_bos_token_id");
    for (auto e : g.forced_eos) in_range(e, "forced_eos_token_id");
    for (const auto& s : g.bad_words)
        for (auto e : s) in_range(e, "bad_words_ids");
}

}  // namespace attn
