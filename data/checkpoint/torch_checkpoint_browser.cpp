// data/checkpoint/torch_checkpoint.h in the page's WebAssembly core, which has no zip reader: a folder
// whose weights are only pytorch_model.bin is refused by name, with the way to a file the page reads.
#include "data/checkpoint/torch_checkpoint.h"

#include "data/base/error.h"

namespace attn {

std::vector<TorchTensor> read_torch_checkpoint(const std::string& path) { return torch_checkpoint_from_bytes(std::string(), path); }

std::vector<TorchTensor> torch_checkpoint_from_bytes(const std::string&, const std::string& path) {
    input_error("'" + excerpt(path) + "' is a PyTorch checkpoint, which the page does not read (attn on the command line does)",
                "give the page the folder's model.safetensors instead (Hugging Face's save_pretrained writes it), or run attn show --model on your machine");
}

std::string safetensors_image(std::vector<TorchTensor>&&, const std::string& path) {
    torch_checkpoint_from_bytes(std::string(), path);  // refused
    return {};
}

}  // namespace attn
