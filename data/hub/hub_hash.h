// The hashes the hub names blobs by (OpenSSL): sha256 of an LFS file's bytes, git's blob SHA-1
// ("blob <size>\0" then the bytes) of any other file; both as lower-case hex.
#pragma once

#include <optional>
#include <string>

namespace attn::hub {

// The hash of the file at `path` the etag's length calls for (64 hex: sha256, 40 hex: git blob SHA-1);
// nothing when the file cannot be read.
std::optional<std::string> etag_of_file(const std::string& path, std::size_t etag_length);

}  // namespace attn::hub
