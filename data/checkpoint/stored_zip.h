// attn's own zip reader, of stored entries only (PKWARE's APPNOTE: the end of central directory record,
// its ZIP64 form, the central directory, each entry's local header, its CRC-32): what the page's
// WebAssembly core reads pytorch_model.bin with (data/checkpoint/zip_memory_browser.cpp), having no
// libzip. Natively it is compiled too, so that it is tested and fuzzed against libzip
// (fuzz/fuzz_stored_zip.cpp): where both read an entry, they read the same bytes.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "data/checkpoint/zip_memory.h"

namespace attn {

// As open_zip_in_memory: the archive in data[0, size), or null with the reason in `why` (libzip's words
// as zip_memory.cpp gives them). A compressed or encrypted entry opens, and is refused when read.
std::unique_ptr<ZipArchive> open_stored_zip(const void* data, std::size_t size, std::string& why);

}  // namespace attn
