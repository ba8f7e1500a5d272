// sha256 and git blob SHA-1 of a file, through OpenSSL's EVP digests (data/hub/hub_hash.h).
#include "data/hub/hub_hash.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <vector>

namespace attn::hub {

std::optional<std::string> etag_of_file(const std::string& path, std::size_t etag_length) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    struct stat st {};
    bool ok = ctx && ::fstat(fd, &st) == 0 && EVP_DigestInit_ex(ctx.get(), etag_length == 64 ? EVP_sha256() : EVP_sha1(), nullptr) == 1;
    if (ok && etag_length != 64) {  // git hashes "blob <size>\0" before the bytes
        const std::string prefix = "blob " + std::to_string(st.st_size) + std::string(1, '\0');
        ok = EVP_DigestUpdate(ctx.get(), prefix.data(), prefix.size()) == 1;
    }
    std::vector<unsigned char> buffer(1 << 20);
    while (ok) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n <= 0) {
            ok = n == 0;
            break;
        }
        ok = EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(n)) == 1;
    }
    ::close(fd);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!ok || EVP_DigestFinal_ex(ctx.get(), digest, &len) != 1) return std::nullopt;
    std::string hex;
    for (unsigned int i = 0; i < len; ++i) {
        hex += "0123456789abcdef"[digest[i] >> 4];
        hex += "0123456789abcdef"[digest[i] & 15];
    }
    return hex;
}

}  // namespace attn::hub
