// A strict reader of NumPy .npy files (format versions 1-3). The header is checked against the
// file's real size before anything is allocated, so a hostile file cannot ask for more memory
// than it holds. Writing goes through xtensor's xt::dump_npy.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace attn {

struct NpyArray {
    std::string descr;                // "<f4", "<f8", ">f4", ">f8", "|b1", "|u1", ...
    bool big_endian = false;          // ">f4", ">f8": read with the bytes swapped
    bool fortran_order = false;
    std::vector<std::size_t> shape;
    std::string data;                 // raw bytes as in the file, shape product * item size
    std::size_t item_size = 0;
};

bool looks_like_npy(const std::string& bytes);

// Parses `bytes` read from `path` (the path only names the file in errors). As numpy.load: version
// 1.0, 2.0 or 3.0; the header a Python dict literal {...} with each key once; anything quoted from
// the header in an error is escaped (a NUL byte shows as \x00).
NpyArray parse_npy(const std::string& bytes, const std::string& path);

// Element (r, c) of a 2-D array as double, honouring fortran_order and byte order; a float descr.
double npy_float_at(const NpyArray& a, std::size_t r, std::size_t c);
// The idx-th value as stored (any rank; the caller applies the order), honouring byte order; a float descr.
double npy_float_stored(const NpyArray& a, std::size_t idx);
// A float descr: <f4, >f4, <f8 or >f8 (what every reader of values takes, embeddings and attention alike).
inline bool npy_is_float(const NpyArray& a) { return a.item_size == 4 || a.item_size == 8; }

}  // namespace attn
