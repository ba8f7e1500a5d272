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

}  // namespace attn
