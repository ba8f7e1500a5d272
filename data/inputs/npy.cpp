#include "data/inputs/npy.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "data/base/error.h"

namespace attn {
namespace {

const char kMagic[] = "\x93NUMPY";

[[noreturn]] void bad_npy(const std::string& path, const std::string& why) {
    input_error(path + ": not a valid .npy file: " + why, "save it with numpy.save(path, array)");
}

// Finds `'key':` in the header dict and returns the text after it; a key given twice is an error
// (numpy's loader would take the last, attn's reader the first: neither is safe to guess).
std::string value_of(const std::string& header, const std::string& key, const std::string& path) {
    const auto at = header.find("'" + key + "'");
    if (at == std::string::npos) bad_npy(path, "header has no '" + key + "'");
    if (header.find("'" + key + "'", at + 1) != std::string::npos) bad_npy(path, "the header gives '" + key + "' twice");
    auto colon = header.find(':', at);
    if (colon == std::string::npos) bad_npy(path, "header is malformed");
    ++colon;
    while (colon < header.size() && header[colon] == ' ') ++colon;
    return header.substr(colon);
}

}  // namespace

bool looks_like_npy(const std::string& bytes) { return bytes.compare(0, 6, kMagic, 6) == 0; }

NpyArray parse_npy(const std::string& bytes, const std::string& path) {
    if (bytes.size() < 10 || !looks_like_npy(bytes)) bad_npy(path, "the magic string \\x93NUMPY is missing");
    const auto major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
    if (minor != 0 && major >= 1 && major <= 3)
        bad_npy(path, "unsupported format version " + std::to_string(major) + "." + std::to_string(minor));
    std::size_t header_len = 0, offset = 0;
    auto byte = [&](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i])); };
    if (major == 1) {
        header_len = byte(8) | byte(9) << 8;
        offset = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) bad_npy(path, "truncated header");
        header_len = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
        offset = 12;
    } else {
        bad_npy(path, "unsupported format version " + std::to_string(major));
    }
    if (header_len > bytes.size() - offset) bad_npy(path, "the header is longer than the file");
    const std::string header = bytes.substr(offset, header_len);
    offset += header_len;
    // a dict literal: "{...}", then spaces and a newline as numpy pads it
    const auto open = header.find_first_not_of(' '), close_brace = header.find_last_not_of(" \n");
    if (open == std::string::npos || header[open] != '{' || header[close_brace] != '}')
        bad_npy(path, "the header is not a Python dict {...}: " +
                      excerpt(header.substr(0, close_brace == std::string::npos ? 0 : close_brace + 1)));

    NpyArray a;
    std::string descr = value_of(header, "descr", path);
    if (descr.size() < 2 || descr[0] != '\'') bad_npy(path, "descr is not a string");
    a.descr = descr.substr(1, descr.find('\'', 1) == std::string::npos ? 0 : descr.find('\'', 1) - 1);
    if (a.descr == "<f4" || a.descr == ">f4") a.item_size = 4;
    else if (a.descr == "<f8" || a.descr == ">f8") a.item_size = 8;
    else if (a.descr == "|b1" || a.descr == "|u1" || a.descr == "<u1") a.item_size = 1;
    else bad_npy(path, "dtype '" + excerpt(a.descr) + "' is not supported (use float32 or float64; bool or uint8 for masks)");
    a.big_endian = a.descr[0] == '>';

    const std::string fortran = value_of(header, "fortran_order", path);
    if (fortran.compare(0, 4, "True") == 0) a.fortran_order = true;
    else if (fortran.compare(0, 5, "False") != 0) bad_npy(path, "fortran_order is neither True nor False");

    const std::string shape = value_of(header, "shape", path);
    if (shape.empty() || shape[0] != '(') bad_npy(path, "shape is not a tuple");
    const auto close = shape.find(')');
    if (close == std::string::npos) bad_npy(path, "shape is not a tuple");
    std::size_t total = 1;
    for (std::size_t i = 1; i < close;) {
        if (shape[i] == ' ' || shape[i] == ',') {
            ++i;
            continue;
        }
        if (shape[i] < '0' || shape[i] > '9') bad_npy(path, "shape holds a non-number");
        std::size_t dim = 0;
        while (i < close && shape[i] >= '0' && shape[i] <= '9') {
            const auto digit = static_cast<std::size_t>(shape[i] - '0');
            if (dim > (std::numeric_limits<std::size_t>::max() - digit) / 10) bad_npy(path, "shape is too large");
            dim = dim * 10 + digit;
            ++i;
        }
        if (dim != 0 && total > std::numeric_limits<std::size_t>::max() / dim) bad_npy(path, "shape is too large");
        total *= dim;
        a.shape.push_back(dim);
        if (a.shape.size() > 32) bad_npy(path, "too many dimensions");
    }
    const std::size_t data_bytes = bytes.size() - offset;
    if (total > data_bytes / a.item_size || total * a.item_size != data_bytes)
        bad_npy(path, "the header promises " + std::to_string(total) + " values of " + std::to_string(a.item_size) +
                      " bytes but the file holds " + std::to_string(data_bytes) + " bytes of data");
    a.data = bytes.substr(offset);
    return a;
}

double npy_float_at(const NpyArray& a, std::size_t r, std::size_t c) {
    return npy_float_stored(a, a.fortran_order ? c * a.shape[0] + r : r * a.shape[1] + c);
}

double npy_float_stored(const NpyArray& a, std::size_t idx) {
    char b[8];
    std::memcpy(b, a.data.data() + idx * a.item_size, a.item_size);
    if (a.big_endian) std::reverse(b, b + a.item_size);
    if (a.item_size == 4) {
        float f;
        std::memcpy(&f, b, 4);
        return f;
    }
    double d;
    std::memcpy(&d, b, 8);
    return d;
}

}  // namespace attn
