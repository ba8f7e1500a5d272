// attn render's input: a JSON trace or a .npy of attention, told apart by the .npy magic string. The two
// readers are render/trace_io/trace_read_json.cpp and render/trace_io/attention_npy.cpp.
#include "render/trace_io/trace_read.h"

#include "data/base/error.h"
#include "data/base/files.h"
#include "data/inputs/npy.h"

namespace attn::render {

Trace read_trace_file(const std::string& path, const std::optional<std::string>& tokens_path) {
    const std::string bytes = read_file(path, "input");
    // a file named .npy is read as one: without the magic string it is a broken array, not a trace
    const bool npy_name = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
    if (npy_name && !looks_like_npy(bytes)) parse_npy(bytes, path);  // throws: the magic string is missing
    if (!looks_like_npy(bytes)) {
        if (tokens_path)
            usage_error("--tokens applies to a .npy input; a trace carries its own tokens", "leave out --tokens");
        return read_trace_json(bytes, path);
    }
    std::optional<TokenLabels> labels;
    if (tokens_path) labels = read_token_labels(read_file(*tokens_path, "tokens file"), *tokens_path);
    return read_attention_npy(bytes, path, labels, tokens_path ? *tokens_path : std::string());
}

}  // namespace attn::render
