// data/checkpoint/zip_memory.h with libzip (libzip-dev's header; libzip.so.4 opened at the first archive,
// data/base/shared_library.h: it and the OpenSSL it loads took about 1 ms of every process's start).
#include "data/checkpoint/zip_memory.h"

#include <zip.h>

#include "data/base/shared_library.h"

namespace attn {
namespace {

struct LibZip {
    decltype(&::zip_error_init) error_init;
    decltype(&::zip_error_fini) error_fini;
    decltype(&::zip_error_code_zip) error_code_zip;
    decltype(&::zip_source_buffer_create) source_buffer_create;
    decltype(&::zip_source_free) source_free;
    decltype(&::zip_open_from_source) open_from_source;
    decltype(&::zip_discard) discard;
    decltype(&::zip_get_num_entries) get_num_entries;
    decltype(&::zip_get_name) get_name;
    decltype(&::zip_get_error) get_error;
    decltype(&::zip_stat_init) stat_init;
    decltype(&::zip_stat_index) stat_index;
    decltype(&::zip_name_locate) name_locate;
    decltype(&::zip_fopen_index) fopen_index;
    decltype(&::zip_fread) fread;
    decltype(&::zip_fclose) fclose;
    decltype(&::zip_file_get_error) file_get_error;
};

const LibZip& libzip() {
    static const LibZip z = [] {
        const SharedLibrary lib("libzip.so.4", "reading a zip archive (pytorch_model.bin, .npz)",
                                "install Debian's libzip4: scripts/setup.sh, or apt-get install libzip4");
        LibZip l{};
        lib.bind("zip_error_init", l.error_init);
        lib.bind("zip_error_fini", l.error_fini);
        lib.bind("zip_error_code_zip", l.error_code_zip);
        lib.bind("zip_source_buffer_create", l.source_buffer_create);
        lib.bind("zip_source_free", l.source_free);
        lib.bind("zip_open_from_source", l.open_from_source);
        lib.bind("zip_discard", l.discard);
        lib.bind("zip_get_num_entries", l.get_num_entries);
        lib.bind("zip_get_name", l.get_name);
        lib.bind("zip_get_error", l.get_error);
        lib.bind("zip_stat_init", l.stat_init);
        lib.bind("zip_stat_index", l.stat_index);
        lib.bind("zip_name_locate", l.name_locate);
        lib.bind("zip_fopen_index", l.fopen_index);
        lib.bind("zip_fread", l.fread);
        lib.bind("zip_fclose", l.fclose);
        lib.bind("zip_file_get_error", l.file_get_error);
        return l;
    }();
    return z;
}

// libzip's error, in attn's words (libzip's own strings are terse and name libzip's internals).
std::string reason(zip_error_t* e) {
    switch (libzip().error_code_zip(e)) {
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
        default: return "it is damaged (zip error " + std::to_string(libzip().error_code_zip(e)) + ")";
    }
}

struct ZipCloser {
    void operator()(zip_t* z) const { libzip().discard(z); }
};
struct ZipFileCloser {
    void operator()(zip_file_t* f) const { libzip().fclose(f); }
};

class LibZipArchive : public ZipArchive {
public:
    explicit LibZipArchive(zip_t* z) : z_(z) {}
    std::size_t entries() const override {
        const zip_int64_t n = libzip().get_num_entries(z_.get(), 0);
        return n < 0 ? 0 : static_cast<std::size_t>(n);
    }
    std::optional<ZipEntryInfo> entry(std::size_t i) const override {
        zip_stat_t st;
        libzip().stat_init(&st);
        const char* name = libzip().get_name(z_.get(), i, ZIP_FL_ENC_RAW);
        if (name == nullptr || libzip().stat_index(z_.get(), i, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) return std::nullopt;
        ZipEntryInfo e;
        e.name = name, e.size = st.size;
        e.compressed = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : st.size;
        e.stored = !(st.valid & ZIP_STAT_COMP_METHOD) || st.comp_method == ZIP_CM_STORE;
        return e;
    }
    std::optional<std::size_t> find(const std::string& name) const override {
        const zip_int64_t i = libzip().name_locate(z_.get(), name.c_str(), ZIP_FL_ENC_RAW);
        if (i < 0) return std::nullopt;
        return static_cast<std::size_t>(i);
    }
    bool read(std::size_t i, std::uint64_t size, std::string& bytes, std::string& why) const override {
        std::unique_ptr<zip_file_t, ZipFileCloser> f(libzip().fopen_index(z_.get(), i, 0));
        if (!f) {
            why = reason(libzip().get_error(z_.get()));
            return false;
        }
        bytes.assign(static_cast<std::size_t>(size), '\0');
        const zip_int64_t got = bytes.empty() ? 0 : libzip().fread(f.get(), &bytes[0], size);
        if (got < 0 || static_cast<std::uint64_t>(got) != size) {
            why = got < 0 ? reason(libzip().file_get_error(f.get())) : "it is cut short";
            return false;
        }
        char more = 0;  // the end of the stream: libzip compares the CRC-32 here
        const zip_int64_t extra = libzip().fread(f.get(), &more, 1);
        if (extra != 0) {
            why = extra < 0 ? reason(libzip().file_get_error(f.get())) : "it holds more bytes than its directory says";
            return false;
        }
        return true;
    }

private:
    std::unique_ptr<zip_t, ZipCloser> z_;
};

}  // namespace

std::unique_ptr<ZipArchive> open_zip_in_memory(const void* data, std::size_t size, std::string& why) {
    zip_error_t err;
    libzip().error_init(&err);
    zip_source_t* src = libzip().source_buffer_create(data, size, 0, &err);
    if (src == nullptr) {
        why = reason(&err);
        libzip().error_fini(&err);
        return nullptr;
    }
    zip_t* z = libzip().open_from_source(src, ZIP_RDONLY, &err);
    if (z == nullptr) {
        libzip().source_free(src);  // not taken over by a failed open
        why = reason(&err);
        libzip().error_fini(&err);
        return nullptr;
    }
    libzip().error_fini(&err);
    return std::make_unique<LibZipArchive>(z);
}

}  // namespace attn
