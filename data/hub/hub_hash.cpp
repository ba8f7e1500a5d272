// sha256 and git blob SHA-1 of a file, through OpenSSL's EVP digests (data/hub/hub_hash.h), from
// libcrypto.so.3 opened at the first hash (data/base/shared_library.h).
#include "data/hub/hub_hash.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "data/base/shared_library.h"

namespace attn::hub {
namespace {

struct Crypto {
    decltype(&::EVP_MD_CTX_new) ctx_new;
    decltype(&::EVP_MD_CTX_free) ctx_free;
    decltype(&::EVP_DigestInit_ex) init;
    decltype(&::EVP_DigestUpdate) update;
    decltype(&::EVP_DigestFinal_ex) final;
    decltype(&::EVP_sha256) sha256;
    decltype(&::EVP_sha1) sha1;
};

const Crypto& crypto() {
    static const Crypto c = [] {
        const SharedLibrary lib("libcrypto.so.3", "checking a download's hash", "install Debian's libssl3: scripts/setup.sh, or apt-get install libssl3");
        Crypto k{};
        lib.bind("EVP_MD_CTX_new", k.ctx_new);
        lib.bind("EVP_MD_CTX_free", k.ctx_free);
        lib.bind("EVP_DigestInit_ex", k.init);
        lib.bind("EVP_DigestUpdate", k.update);
        lib.bind("EVP_DigestFinal_ex", k.final);
        lib.bind("EVP_sha256", k.sha256);
        lib.bind("EVP_sha1", k.sha1);
        return k;
    }();
    return c;
}

}  // namespace

std::optional<std::string> etag_of_file(const std::string& path, std::size_t etag_length) {
    const Crypto& c = crypto();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(c.ctx_new(), c.ctx_free);
    struct stat st {};
    bool ok = ctx && ::fstat(fd, &st) == 0 && c.init(ctx.get(), etag_length == 64 ? c.sha256() : c.sha1(), nullptr) == 1;
    if (ok && etag_length != 64) {  // git hashes "blob <size>\0" before the bytes
        const std::string prefix = "blob " + std::to_string(st.st_size) + std::string(1, '\0');
        ok = c.update(ctx.get(), prefix.data(), prefix.size()) == 1;
    }
    std::vector<unsigned char> buffer(1 << 20);
    while (ok) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n <= 0) {
            ok = n == 0;
            break;
        }
        ok = c.update(ctx.get(), buffer.data(), static_cast<std::size_t>(n)) == 1;
    }
    ::close(fd);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!ok || c.final(ctx.get(), digest, &len) != 1) return std::nullopt;
    std::string hex;
    for (unsigned int i = 0; i < len; ++i) {
        hex += "0123456789abcdef"[digest[i] >> 4];
        hex += "0123456789abcdef"[digest[i] & 15];
    }
    return hex;
}

}  // namespace attn::hub
