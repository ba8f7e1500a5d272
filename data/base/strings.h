// Small string helpers every layer shares.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attn {

// The parts with `sep` between them: join({"a", "b"}) = "a, b".
std::string join(const std::vector<std::string>& parts, const std::string& sep = ", ");

// Edits (insert, delete, substitute, swap two neighbours) from a to b: optimal string alignment.
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate a mistyped value most likely meant ("" when none is close): at most one edit in
// three letters (one at least), or a prefix of three letters or more ("vir" -> "viridis"); ties go
// to the first candidate. For the "did you mean" of option values, as unknown option names have.
// A byte count in decimal units as download tools print it: "248 B", "806.6 kB", "1.2 GB".
std::string decimal_bytes(double bytes);

// The bytes of s as unsigned char, for loops over UTF-8 text (`for (unsigned char c : s)` converts each
// char implicitly, which clang's -Wsign-conversion reports).
struct ByteRange {
    const unsigned char *first, *last;
    const unsigned char* begin() const { return first; }
    const unsigned char* end() const { return last; }
};
inline ByteRange bytes_of(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    return {p, p + s.size()};
}

std::string nearest_name(const std::string& given, const std::vector<std::string>& candidates);

}  // namespace attn
