// A zip archive opened from bytes in memory with libzip: what a pytorch_model.bin (a torch.save zip)
// and a NumPy .npz (--weights) are both read as. The bytes must outlive the archive.
#pragma once

#include <zip.h>

#include <cstddef>
#include <cstdint>
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

// The archive in data[0, size), or null with the reason in `why`, in attn's words ("no zip directory at
// its end: it is cut short, or not a zip", ...), never libzip's own text.
ZipArchive open_zip_in_memory(const void* data, std::size_t size, std::string& why);

// Entry i whole: exactly the `size` bytes its directory gives, and then the end of its stream, where
// libzip checks the CRC-32 (an entry that holds more than it claims, or whose bytes do not match its
// CRC, is refused). False with the reason in `why` (attn's words, as above).
bool read_zip_entry(zip_t* z, zip_uint64_t i, std::uint64_t size, std::string& bytes, std::string& why);

}  // namespace attn
