#include "data/checkpoint/zip_memory.h"

namespace attn {

ZipArchive open_zip_in_memory(const void* data, std::size_t size, std::string& why) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(data, size, 0, &err);
    if (src == nullptr) {
        why = zip_error_strerror(&err);
        zip_error_fini(&err);
        return nullptr;
    }
    ZipArchive z(zip_open_from_source(src, ZIP_RDONLY, &err));
    if (!z) {
        zip_source_free(src);  // not taken over by a failed open
        why = zip_error_strerror(&err);
    }
    zip_error_fini(&err);
    return z;
}

bool read_zip_entry(zip_t* z, zip_uint64_t i, std::uint64_t size, std::string& bytes, std::string& why) {
    ZipEntry f(zip_fopen_index(z, i, 0));
    if (!f) {
        why = zip_strerror(z);
        return false;
    }
    bytes.assign(static_cast<std::size_t>(size), '\0');
    const zip_int64_t got = bytes.empty() ? 0 : zip_fread(f.get(), &bytes[0], size);
    if (got < 0 || static_cast<std::uint64_t>(got) != size) {
        why = got < 0 ? zip_file_strerror(f.get()) : "it is cut short";
        return false;
    }
    char more = 0;  // the end of the stream: libzip compares the CRC-32 here
    const zip_int64_t extra = zip_fread(f.get(), &more, 1);
    if (extra != 0) {
        why = extra < 0 ? zip_file_strerror(f.get()) : "it holds more bytes than its directory says";
        return false;
    }
    return true;
}

}  // namespace attn
