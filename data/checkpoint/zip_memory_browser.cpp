// data/checkpoint/zip_memory.h in the page's WebAssembly core, which has no libzip: attn's own reader of
// stored entries (data/checkpoint/stored_zip.h). torch.save stores its entries as they are.
#include "data/checkpoint/stored_zip.h"

namespace attn {

std::unique_ptr<ZipArchive> open_zip_in_memory(const void* data, std::size_t size, std::string& why) {
    return open_stored_zip(data, size, why);
}

}  // namespace attn
