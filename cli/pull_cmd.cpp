// attn pull NAME[@REV]: a model's files from the Hugging Face hub into its cache (cli/model_source.h,
// data/hub/hub_pull.h).
#include <memory>

#include "cli/cli.h"
#include "cli/model_source.h"

namespace attn::cli {

void setup_pull(CLI::App& app) {
    auto name = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("pull", "Download a model by its Hugging Face name into the Hugging Face cache, for show/decode/heads --model NAME");
    cmd->add_option("name", *name, "A repo id, optionally @revision: gpt2, HuggingFaceTB/SmolLM2-135M, org/name@main")->required();
    cmd->footer(
        "Downloads only what attn needs: config.json, generation_config.json and the tokenizer files when the repo has\n"
        "them, and the weights (model.safetensors, else its shards, else pytorch_model.bin). The cache is the one\n"
        "Python's huggingface_hub uses: HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub. HF_ENDPOINT\n"
        "names a mirror; HF_TOKEN (or the token file `huggingface-cli login` writes) opens gated and private repos.\n"
        "The last line printed is the snapshot folder.\n"
        "Examples:\n"
        "  attn pull gpt2\n"
        "  attn pull HuggingFaceTB/SmolLM2-135M@main\n"
        "  attn show --model gpt2 \"The cat sat on the mat.\"   (pulls it first when it is not cached)");
    cmd->callback([name] { pull_model_files(*name, true); });
}

}  // namespace attn::cli
