// attn's own reader of a zip's stored entries (data/checkpoint/stored_zip.h), the page's zip reader (PKWARE's APPNOTE: the end of central directory record, its ZIP64 form, the
// central directory, each entry's local header). torch.save and numpy.savez store their entries as they
// are; a compressed or encrypted entry, a zip split over several files and every record that points
// outside the bytes or contradicts another are refused in the words libzip's reader gives natively.
// Each entry's CRC-32 is checked when it is read.
#include "data/checkpoint/stored_zip.h"

#include <array>
#include <limits>
#include <map>
#include <vector>

namespace attn {
namespace {

constexpr const char* kNoZip = "no zip directory at its end: it is cut short, or not a zip";
constexpr const char* kInconsistent = "its zip directory contradicts itself or the entries";

std::uint64_t le(const std::uint8_t* p, int bytes) {  // little-endian
    std::uint64_t v = 0;
    for (int k = bytes - 1; k >= 0; --k) v = v << 8 | p[k];
    return v;
}

std::uint32_t crc32(const std::uint8_t* p, std::size_t n) {  // the zip's CRC-32 (polynomial 0xEDB88320)
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

struct Entry {
    ZipEntryInfo info;
    std::uint32_t crc = 0;
    std::uint16_t method = 0, flags = 0;
    std::uint64_t local = 0;  // the local header's offset
};

class StoredZip : public ZipArchive {
public:
    StoredZip(const std::uint8_t* data, std::size_t size, std::vector<Entry> entries)
        : data_(data), size_(size), entries_(std::move(entries)) {
        for (std::size_t i = 0; i < entries_.size(); ++i) names_.emplace(entries_[i].info.name, i);  // the first of a name
    }
    std::size_t entries() const override { return entries_.size(); }
    std::optional<ZipEntryInfo> entry(std::size_t i) const override {
        if (i >= entries_.size()) return std::nullopt;
        return entries_[i].info;
    }
    std::optional<std::size_t> find(const std::string& name) const override {
        const auto at = names_.find(name);
        if (at == names_.end()) return std::nullopt;
        return at->second;
    }
    bool read(std::size_t i, std::uint64_t size, std::string& bytes, std::string& why) const override {
        const Entry& e = entries_.at(i);
        if (e.flags & 1) return why = "it is encrypted", false;
        if (e.method != 0) return why = "it is compressed, which the page does not read (numpy.savez and torch.save store entries as they are)", false;
        if (e.info.compressed != e.info.size) return why = kInconsistent, false;
        // the local header: its signature, then the data after its name and extra field
        if (e.local > size_ || size_ - e.local < 30 || le(data_ + e.local, 4) != 0x04034b50) return why = kInconsistent, false;
        const std::uint64_t start = e.local + 30 + le(data_ + e.local + 26, 2) + le(data_ + e.local + 28, 2);
        if (start > size_ || size_ - start < e.info.size) return why = "it ends early", false;
        if (size != e.info.size) return why = size < e.info.size ? "it holds more bytes than its directory says" : "it is cut short", false;
        const std::uint8_t* p = data_ + start;
        if (crc32(p, static_cast<std::size_t>(size)) != e.crc) return why = "its bytes do not match their CRC-32", false;
        bytes.assign(reinterpret_cast<const char*>(p), static_cast<std::size_t>(size));
        return true;
    }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::vector<Entry> entries_;
    std::map<std::string, std::size_t> names_;
};

// Where an end of central directory record could start (its signature), latest first: within its 22
// bytes and a comment of at most 65535 from the end, and the 20 bytes of a ZIP64 locator before that.
std::vector<std::size_t> end_records(const std::uint8_t* d, std::size_t n) {
    std::vector<std::size_t> at;
    if (n < 22) return at;
    const std::size_t lowest = n - 22 > 65535 + 20 ? n - 22 - 65535 - 20 : 0;
    for (std::size_t p = n - 22 + 1; p-- > lowest;)
        if (le(d + p, 4) == 0x06054b50) at.push_back(p);
    return at;
}

// The central directory's place from the end record at `eocd`: {entries, offset, size}, or false.
bool directory(const std::uint8_t* d, std::size_t n, std::size_t eocd, std::uint64_t& count, std::uint64_t& offset,
               std::uint64_t& bytes, std::string& why) {
    if (le(d + eocd + 4, 2) != 0 || le(d + eocd + 6, 2) != 0) return why = "it is split over several files", false;
    count = le(d + eocd + 10, 2), bytes = le(d + eocd + 12, 4), offset = le(d + eocd + 16, 4);
    if (count != 0xFFFF && bytes != 0xFFFFFFFF && offset != 0xFFFFFFFF) return true;
    // ZIP64: the locator just before, then the ZIP64 record it points at
    if (eocd < 20 || le(d + eocd - 20, 4) != 0x07064b50) return why = kInconsistent, false;
    const std::uint64_t z64 = le(d + eocd - 20 + 8, 8);
    if (z64 > n || n - z64 < 56 || le(d + z64, 4) != 0x06064b50) return why = kInconsistent, false;
    count = le(d + z64 + 32, 8), bytes = le(d + z64 + 40, 8), offset = le(d + z64 + 48, 8);
    return true;
}

// Could the end record at `eocd` open a directory, as a reader that tries each record would see it? Its
// place is inside the bytes and its first header (if any) has its signature: deliberately looser than
// entries() below, so that an archive two readers could read differently is never read.
bool could_open(const std::uint8_t* d, std::size_t n, std::size_t eocd) {
    std::uint64_t count = 0, offset = 0, bytes = 0;
    std::string why;
    if (!directory(d, n, eocd, count, offset, bytes, why)) return false;
    if (offset > n || n - offset < bytes || count > bytes / 46) return false;
    return count == 0 || le(d + offset, 4) == 0x02014b50;
}

// The central directory's entries, or false with the reason.
bool entries(const std::uint8_t* d, std::size_t size, std::size_t eocd, std::vector<Entry>& out, std::string& why) {
    std::uint64_t count = 0, offset = 0, bytes = 0;
    if (!directory(d, size, eocd, count, offset, bytes, why)) return false;
    if (offset > size || size - offset < bytes || count > bytes / 46) return why = kInconsistent, false;
    std::uint64_t at = offset;
    const std::uint64_t end = offset + bytes;
    for (std::uint64_t k = 0; k < count; ++k) {
        if (end - at < 46 || le(d + at, 4) != 0x02014b50) return why = kInconsistent, false;
        const std::uint8_t* h = d + at;
        Entry e;
        e.flags = static_cast<std::uint16_t>(le(h + 8, 2)), e.method = static_cast<std::uint16_t>(le(h + 10, 2));
        e.crc = static_cast<std::uint32_t>(le(h + 16, 4));
        e.info.compressed = le(h + 20, 4), e.info.size = le(h + 24, 4), e.local = le(h + 42, 4);
        e.info.stored = e.method == 0;
        const std::uint64_t name = le(h + 28, 2), extra = le(h + 30, 2), comment = le(h + 32, 2);
        if (end - at - 46 < name + extra + comment) return why = kInconsistent, false;
        e.info.name.assign(reinterpret_cast<const char*>(h + 46), static_cast<std::size_t>(name));
        if (e.info.name.find('\0') != std::string::npos) return why = "an entry's name holds a NUL byte", false;
        // the ZIP64 extra field (0x0001): the 8-byte values of the fields saturated above, in this order
        for (std::uint64_t x = 0; x + 4 <= extra;) {
            const std::uint8_t* f = h + 46 + name + x;
            const std::uint64_t id = le(f, 2), len = le(f + 2, 2);
            if (x + 4 + len > extra) return why = kInconsistent, false;
            if (id == 0x0001) {
                std::uint64_t used = 0;
                for (std::uint64_t* v : {&e.info.size, &e.info.compressed, &e.local})
                    if (*v == 0xFFFFFFFF) {
                        if (used + 8 > len) return why = kInconsistent, false;
                        *v = le(f + 4 + used, 8), used += 8;
                    }
            }
            x += 4 + len;
        }
        out.push_back(std::move(e));
        at += 46 + name + extra + comment;
    }
    return true;
}

}  // namespace

std::unique_ptr<ZipArchive> open_stored_zip(const void* data, std::size_t size, std::string& why) {
    const auto* d = static_cast<const std::uint8_t*>(data);
    const std::vector<std::size_t> ends = end_records(d, size);
    if (ends.empty()) return why = kNoZip, nullptr;
    std::vector<Entry> found;
    if (!entries(d, size, ends[0], found, why)) return nullptr;
    // a second end record that could open a directory: libzip may read that one, so the two readers
    // would see different entries in one file
    for (std::size_t k = 1; k < ends.size(); ++k)
        if (could_open(d, size, ends[k])) return why = "it holds two zip directories (one inside the other's bytes): which is meant is unclear", nullptr;
    return std::make_unique<StoredZip>(d, size, std::move(found));
}

}  // namespace attn
