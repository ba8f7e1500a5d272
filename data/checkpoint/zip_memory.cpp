#include "data/checkpoint/zip_memory.h"

namespace attn {
namespace {

// libzip's error, in attn's words (libzip's own strings are terse and name libzip's internals).
std::string reason(zip_error_t* e) {
    switch (zip_error_code_zip(e)) {
        case ZIP_ER_NOZIP: return "no zip directory at its end: it is cut short, or not a zip";
        case ZIP_ER_INCONS: return "its zip directory contradicts itself or the entries";
        case ZIP_ER_CRC: return "its bytes do not match their CRC-32";
        case ZIP_ER_COMPNOTSUPP: return "it is compressed by a method other than stored or deflate";
        case ZIP_ER_ENCRNOTSUPP:
        case ZIP_ER_NOPASSWD: return "it is encrypted";
        case ZIP_ER_ZLIB: return "its deflated bytes are damaged";
        case ZIP_ER_EOF: return "it ends early";
        case ZIP_ER_MULTIDISK: return "it is split over several files";
        case ZIP_ER_MEMORY: return "out of memory";
        default: return "it is damaged (zip error " + std::to_string(zip_error_code_zip(e)) + ")";
    }
}

}  // namespace

ZipArchive open_zip_in_memory(const void* data, std::size_t size, std::string& why) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* src = zip_source_buffer_create(data, size, 0, &err);
    if (src == nullptr) {
        why = reason(&err);
        zip_error_fini(&err);
        return nullptr;
    }
    ZipArchive z(zip_open_from_source(src, ZIP_RDONLY, &err));
    if (!z) {
        zip_source_free(src);  // not taken over by a failed open
        why = reason(&err);
    }
    zip_error_fini(&err);
    return z;
}

bool read_zip_entry(zip_t* z, zip_uint64_t i, std::uint64_t size, std::string& bytes, std::string& why) {
    ZipEntry f(zip_fopen_index(z, i, 0));
    if (!f) {
        why = reason(zip_get_error(z));
        return false;
    }
    bytes.assign(static_cast<std::size_t>(size), '\0');
    const zip_int64_t got = bytes.empty() ? 0 : zip_fread(f.get(), &bytes[0], size);
    if (got < 0 || static_cast<std::uint64_t>(got) != size) {
        why = got < 0 ? reason(zip_file_get_error(f.get())) : "it is cut short";
        return false;
    }
    char more = 0;  // the end of the stream: libzip compares the CRC-32 here
    const zip_int64_t extra = zip_fread(f.get(), &more, 1);
    if (extra != 0) {
        why = extra < 0 ? reason(zip_file_get_error(f.get())) : "it holds more bytes than its directory says";
        return false;
    }
    return true;
}

}  // namespace attn
