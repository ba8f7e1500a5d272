// A zip archive opened from bytes in memory: what a pytorch_model.bin (a torch.save zip) and a NumPy .npz
// (--weights) are both read as. The bytes must outlive the archive. Two readers behind this interface,
// chosen by the build: libzip natively (data/checkpoint/zip_memory.cpp) and, in the page's WebAssembly
// core, attn's own reader of stored entries (data/checkpoint/zip_memory_browser.cpp: torch.save and
// numpy.savez store their entries uncompressed; a compressed one is refused by name there).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace attn {

// An entry as the zip's central directory records it.
struct ZipEntryInfo {
    std::string name;             // as stored (raw bytes)
    std::uint64_t size = 0;       // uncompressed
    std::uint64_t compressed = 0; // in the archive
    bool stored = true;           // method 0: the bytes as they are
};

class ZipArchive {
public:
    virtual ~ZipArchive() = default;
    virtual std::size_t entries() const = 0;
    // Entry i's record, or nothing when the directory does not give its name and size.
    virtual std::optional<ZipEntryInfo> entry(std::size_t i) const = 0;
    // The index of the entry called `name` (raw bytes), or nothing.
    virtual std::optional<std::size_t> find(const std::string& name) const = 0;
    // Entry i whole: exactly the `size` bytes its directory gives, and then the end of its stream, where
    // the CRC-32 is checked (an entry that holds more than it claims, or whose bytes do not match its CRC,
    // is refused). False with the reason in `why`, in attn's words.
    virtual bool read(std::size_t i, std::uint64_t size, std::string& bytes, std::string& why) const = 0;
};

// The archive in data[0, size), or null with the reason in `why`, in attn's words ("no zip directory at
// its end: it is cut short, or not a zip", ...), never a library's own text.
std::unique_ptr<ZipArchive> open_zip_in_memory(const void* data, std::size_t size, std::string& why);

}  // namespace attn
