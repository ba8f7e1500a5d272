#include "data/gpt2_checkpoint.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/npy.h"

namespace attn {
namespace {

bool is_file(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A file of the model folder that is there but is not a regular file (a folder, a pipe, a device such
// as /dev/zero, a link that loops or dangles): an error saying so. Nothing when it is a file or absent.
void refuse_odd_file(const std::string& path, const std::string& hint) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        struct stat link {};
        if (err == ENOENT && ::lstat(path.c_str(), &link) != 0) return;  // absent: the caller says so
        input_error("cannot read '" + path + "': " + std::strerror(err), hint);
    }
    if (S_ISREG(st.st_mode)) return;
    const char* what = S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a pipe (FIFO)"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : S_ISSOCK(st.st_mode) ? "a socket"
                                                                                                    : "not a regular file";
    input_error("'" + path + "' is " + what + ", not a file", hint);
}

// A whole number in [lo, hi] from config.json.
std::size_t config_int(const nlohmann::json& j, const char* key, std::size_t lo, std::size_t hi, const std::string& name) {
    if (!j.contains(key)) input_error(name + ": \"" + key + "\" is missing", "a GPT-2 config.json names n_layer, n_head, n_embd, n_positions and vocab_size");
    const auto& v = j[key];
    if (!v.is_number_integer() || v.get<std::int64_t>() < static_cast<std::int64_t>(lo) ||
        v.get<std::int64_t>() > static_cast<std::int64_t>(hi))
        input_error(name + ": \"" + key + "\" is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi),
                    "use the config.json that came with the model");
    return static_cast<std::size_t>(v.get<std::int64_t>());
}

struct Loader {
    Gpt2Checkpoint& m;
    std::string prefix;

    [[noreturn]] void shape_error(const std::string& name, const std::string& what) const {
        input_error(m.file.path() + ": tensor '" + name + "' " + what,
                    "the weights do not belong to this config.json: download both from the same model");
    }

    // The tensor `name` as a (rows, cols) float32 matrix; its stored shape must be `want`.
    Weight get(const std::string& short_name, std::vector<std::size_t> want) {
        const std::string name = prefix + short_name;
        const SafeTensor* t = m.file.find(name);
        if (t == nullptr)
            input_error(m.file.path() + ": tensor '" + name + "' is missing",
                        "is this a GPT-2 checkpoint saved by Hugging Face tools? (expected names like h.0.attn.c_attn.weight)");
        if (t->shape != want) {
            std::string got, exp;
            for (auto d : t->shape) got += (got.empty() ? "" : ", ") + std::to_string(d);
            for (auto d : want) exp += (exp.empty() ? "" : ", ") + std::to_string(d);
            shape_error(name, "has shape (" + got + ") but config.json gives (" + exp + ")");
        }
        Weight w;
        w.rows = want.size() == 2 ? want[0] : 1;
        w.cols = want.back();
        w.data = m.file.mapped_float(*t);
        if (w.data == nullptr) {
            m.widened.emplace_back(t->count());
            m.file.read_float(*t, m.widened.back().data());
            m.file.release(*t);  // the stored F16/BF16 bytes are not needed any more
            w.data = m.widened.back().data();
        }
        m.n_params += t->count();
        return w;
    }
};

}  // namespace

Gpt2Config parse_gpt2_config(const std::string& text, const std::string& name) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
            if (depth > 16) input_error(name + ": nests too deeply", "use the config.json that came with the model");
            return true;
        });
    } catch (const nlohmann::json::exception&) {
        input_error(name + ": not JSON", "use the config.json that came with the model");
    }
    if (!j.is_object()) input_error(name + ": not a JSON object", "use the config.json that came with the model");
    const std::string type = j.contains("model_type") && j["model_type"].is_string() ? j["model_type"].get<std::string>() : "";
    if (type != "gpt2")
        input_error(name + ": model_type '" + (type.empty() ? std::string("(none)") : type.substr(0, 40)) + "' is not supported",
                    "attn runs model_type gpt2: GPT-2 small, medium, large, xl, DistilGPT-2 and their fine-tunes");
    if (j.contains("activation_function")) {
        const auto& a = j["activation_function"];
        if (!a.is_string() || (a != "gelu_new" && a != "gelu_pytorch_tanh"))
            input_error(name + ": activation_function is not GPT-2's tanh GELU (gelu_new)", "attn runs GPT-2's own architecture");
    }
    Gpt2Config c;
    c.n_layer = config_int(j, "n_layer", 1, 1024, name);
    c.n_head = config_int(j, "n_head", 1, 1024, name);
    c.n_embd = config_int(j, "n_embd", 1, 65536, name);
    c.n_positions = config_int(j, "n_positions", 1, 1 << 20, name);
    c.vocab_size = config_int(j, "vocab_size", 1, 1 << 24, name);
    if (j.contains("layer_norm_epsilon")) {
        const auto& e = j["layer_norm_epsilon"];
        if (!e.is_number() || !(e.get<double>() > 0.0) || !(e.get<double>() < 1.0))
            input_error(name + ": layer_norm_epsilon is not a number between 0 and 1", "GPT-2 uses 1e-05");
        c.layer_norm_epsilon = e.get<double>();
    }
    if (c.n_embd % c.n_head != 0)
        input_error(name + ": n_head " + std::to_string(c.n_head) + " does not divide n_embd " + std::to_string(c.n_embd),
                    "each head takes n_embd / n_head channels: use the config.json that came with the model");
    return c;
}

Gpt2Config read_gpt2_config(const std::string& dir) {
    // 1. the files: config.json and model.safetensors (never a pickle)
    const std::string config = dir + "/config.json", weights = dir + "/model.safetensors";
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        input_error("model folder '" + dir + "' does not exist", "give a folder holding config.json, model.safetensors, vocab.json and merges.txt");
    refuse_odd_file(config, "put the model's config.json file there");
    refuse_odd_file(weights, "put the model's model.safetensors file there");
    if (!is_file(config))
        input_error("no config.json in '" + dir + "'", "download the model's config.json into the folder");
    if (!is_file(weights)) {
        if (is_file(dir + "/pytorch_model.bin"))
            input_error("'" + dir + "' has only pytorch_model.bin, which attn never opens (a pickle can run code)",
                        "convert it to model.safetensors (Hugging Face's safetensors convert tool), or download model.safetensors");
        input_error("no model.safetensors in '" + dir + "'", "download the model's model.safetensors into the folder");
    }
    return parse_gpt2_config(read_file(config, "config file"), config);
}

std::unique_ptr<Gpt2Checkpoint> load_gpt2_checkpoint(const std::string& dir) {
    // 1. the files: config.json and model.safetensors (never a pickle)
    auto m = std::make_unique<Gpt2Checkpoint>();
    m->config = read_gpt2_config(dir);
    m->file = SafetensorsFile::open(dir + "/model.safetensors");
    const Gpt2Config& c = m->config;
    // 2. the names' prefix, and the stored dtype
    Loader l{*m, m->file.find("transformer.wte.weight") ? "transformer." : ""};
    const std::size_t C = c.n_embd, V = c.vocab_size;
    if (const SafeTensor* t = m->file.find(l.prefix + "wte.weight")) m->dtype = t->dtype;
    // 3. every tensor, shape checked against the config, as float32
    m->wte = l.get("wte.weight", {V, C});
    m->wpe = l.get("wpe.weight", {c.n_positions, C});
    for (std::size_t i = 0; i < c.n_layer; ++i) {
        const std::string h = "h." + std::to_string(i) + ".";
        Gpt2Block b;
        b.ln_1_w = l.get(h + "ln_1.weight", {C}), b.ln_1_b = l.get(h + "ln_1.bias", {C});
        b.c_attn_w = l.get(h + "attn.c_attn.weight", {C, 3 * C}), b.c_attn_b = l.get(h + "attn.c_attn.bias", {3 * C});
        b.attn_proj_w = l.get(h + "attn.c_proj.weight", {C, C}), b.attn_proj_b = l.get(h + "attn.c_proj.bias", {C});
        b.ln_2_w = l.get(h + "ln_2.weight", {C}), b.ln_2_b = l.get(h + "ln_2.bias", {C});
        b.c_fc_w = l.get(h + "mlp.c_fc.weight", {C, 4 * C}), b.c_fc_b = l.get(h + "mlp.c_fc.bias", {4 * C});
        b.mlp_proj_w = l.get(h + "mlp.c_proj.weight", {4 * C, C}), b.mlp_proj_b = l.get(h + "mlp.c_proj.bias", {C});
        m->blocks.push_back(b);
    }
    m->ln_f_w = l.get("ln_f.weight", {C}), m->ln_f_b = l.get("ln_f.bias", {C});
    // 4. the output head: its own lm_head.weight (never prefixed), else wte
    if (m->file.find("lm_head.weight")) {
        Loader head{*m, ""};
        m->lm_head = head.get("lm_head.weight", {V, C});
    } else {
        m->lm_head = m->wte;
    }
    return m;
}

std::uint64_t gpt2_widened_bytes(const SafetensorsFile& f) {
    std::uint64_t n = 0;
    for (const auto& t : f.header().tensors)
        if (t.dtype != "F32") n += 4ull * t.count();
    return n;
}

}  // namespace attn
