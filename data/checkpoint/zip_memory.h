// A zip archive opened from bytes in memory with libzip: what a pytorch_model.bin (a torch.save zip)
// and a NumPy .npz (--weights) are both read as. The bytes must outlive the archive.
#pragma once

#include <zip.h>

#include <cstddef>
#include <memory>
#include <string>

namespace attn {

struct ZipCloser {
    void operator()(zip_t* z) const { zip_discard(z); }
};
struct ZipFileCloser {
    void operator()(zip_file_t* f) const { zip_fclose(f); }
};
using ZipArchive = std::unique_ptr<zip_t, ZipCloser>;
using ZipEntry = std::unique_ptr<zip_file_t, ZipFileCloser>;

// The archive in data[0, size), or null with libzip's reason in `why` ("Not a zip archive", ...).
ZipArchive open_zip_in_memory(const void* data, std::size_t size, std::string& why);

}  // namespace attn
