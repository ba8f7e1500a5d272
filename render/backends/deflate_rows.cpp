// The compressor behind render/backends/png_encode.cpp, made for figures: a figure is flat colour, so
// almost every byte repeats the pixel to its left or the one above it. Each position tries those matches
// (distance 3 and the row's length + 1; then the diagonals and a hashed earlier position, see parse),
// compared 8 bytes at a time, and falls back to a literal; the symbols are then Huffman-coded in one
// dynamic block (RFC 1951).
#include "render/backends/deflate_rows.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>

namespace {

// Measured on the three figures of `attn show --kind causal "Your journey starts with one step" --png`
// (1636 x 1058, 1292 x 1058 and 1652 x 1104 px, 14.8 MB of rows) on this project's 2-core machine while
// others built on it (load 2.7 in the first round, 4.7 in the second), one core, best of 5, deflate only:
//   zlib 1.2.13, filter none, level 1 (attn before)                          38 ms, 30 ms   410 KB
//   zlib, filter up where a row repeats the one above, else sub, level 1     37 ms          453 KB
//   zlib, filter up, Z_RLE                                                   45 ms          641 KB
//   zlib, filter none, Z_RLE                                                 62 ms         2297 KB
//   this compressor, left and above only                                     10 ms          394 KB
//   this compressor, with the diagonals and the hashed match                 10 ms          330 KB
// A prediction filter (sub, up, paeth) turns the few colours of a figure into differences that are no
// cheaper to code, and zlib spends its time hashing and verifying matches byte by byte; here the likely
// candidates are compared 8 bytes at a time, and the hash is consulted only where they fall short.

// ---- deflate's alphabets (RFC 1951, 3.2.5) -----------------------------------------------------------

constexpr int kLitLenCodes = 286, kDistCodes = 30, kCodeLenCodes = 19;
constexpr int kEndOfBlock = 256;
constexpr std::size_t kMinMatch = 3, kMaxMatch = 258, kWindow = 32768;

constexpr std::array<std::uint16_t, 29> kLengthBase = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                                       31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr std::array<std::uint8_t, 29> kLengthExtra = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr std::array<std::uint16_t, 30> kDistBase = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,
                                                     33,  49,  65,  97,  129, 193,  257,  385,  513,  769,
                                                     1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr std::array<std::uint8_t, 30> kDistExtra = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                                     6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
constexpr std::array<std::uint8_t, kCodeLenCodes> kCodeLenOrder = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                                   11, 4,  12, 3, 13, 2, 14, 1, 15};

// The length code (index into kLengthBase) of every match length 3..258.
struct LengthCodes {
    std::array<std::uint8_t, kMaxMatch + 1> code{};
    constexpr LengthCodes() {
        for (std::size_t len = kMinMatch; len <= kMaxMatch; ++len) {
            std::size_t c = 0;
            while (c + 1 < kLengthBase.size() && kLengthBase[c + 1] <= len) ++c;
            code[len] = static_cast<std::uint8_t>(c);
        }
    }
};
constexpr LengthCodes kLengthCodes;

int dist_code(std::size_t dist) {  // 1..32768
    return static_cast<int>(std::upper_bound(kDistBase.begin(), kDistBase.end(), dist) - kDistBase.begin()) - 1;
}

// ---- Huffman codes ------------------------------------------------------------------------------------

// Code lengths of at most max_bits for the frequencies (0: symbol unused), by Huffman's algorithm on the
// symbols sorted by (frequency, symbol); while the longest code is too long, every used frequency is
// halved (rounding up) and the code built again. At least two symbols get a code (deflate's decoders
// want complete codes), the first unused ones when fewer are used. Deterministic.
std::vector<std::uint8_t> code_lengths(std::vector<std::uint32_t> freq, int max_bits) {
    const std::size_t n = freq.size();
    for (std::size_t s = 0, used = static_cast<std::size_t>(std::count_if(freq.begin(), freq.end(), [](auto f) { return f > 0; }));
         used < 2 && s < n; ++s)
        if (freq[s] == 0) freq[s] = 1, ++used;
    std::vector<std::uint8_t> len(n, 0);
    for (;;) {
        std::vector<std::size_t> order;
        for (std::size_t s = 0; s < n; ++s)
            if (freq[s] > 0) order.push_back(s);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return freq[a] < freq[b]; });
        // two queues (leaves in order, then internal nodes in the order made): weights and parents
        const std::size_t leaves = order.size();
        std::vector<std::uint64_t> weight(2 * leaves);
        std::vector<std::size_t> parent(2 * leaves, 0);
        for (std::size_t k = 0; k < leaves; ++k) weight[k] = freq[order[k]];
        std::size_t next_leaf = 0, next_node = leaves, made = leaves;
        const auto take = [&]() {
            if (next_leaf < leaves && (next_node == made || weight[next_leaf] <= weight[next_node])) return next_leaf++;
            return next_node++;
        };
        while (made < 2 * leaves - 1) {
            const std::size_t a = take(), b = take();
            weight[made] = weight[a] + weight[b];
            parent[a] = parent[b] = made++;
        }
        // depths from the root (the last node made) down: a node's parent was made after it
        std::vector<int> depth(2 * leaves - 1, 0);
        int longest = 0;
        for (std::size_t k = 2 * leaves - 1; k-- > 0;)
            if (k != 2 * leaves - 2) depth[k] = depth[parent[k]] + 1;
        for (std::size_t k = 0; k < leaves; ++k) longest = std::max(longest, depth[k]);
        if (longest <= max_bits) {
            for (std::size_t k = 0; k < leaves; ++k) len[order[k]] = static_cast<std::uint8_t>(depth[k]);
            return len;
        }
        for (auto& f : freq)
            if (f > 0) f = (f + 1) / 2;
    }
}

// Canonical codes for the lengths (RFC 1951, 3.2.2), bit-reversed: deflate writes codes from the top bit,
// and the bit writer below fills bytes from the low bit.
std::vector<std::uint16_t> canonical_codes(const std::vector<std::uint8_t>& len) {
    std::array<std::uint16_t, 16> count{}, next{};
    for (std::uint8_t l : len)
        if (l) ++count[l];
    std::uint16_t code = 0;
    for (int bits = 1; bits < 16; ++bits) {
        code = static_cast<std::uint16_t>((code + count[static_cast<std::size_t>(bits) - 1]) << 1);
        next[static_cast<std::size_t>(bits)] = code;
    }
    next[0] = 0;
    std::vector<std::uint16_t> codes(len.size(), 0);
    for (std::size_t s = 0; s < len.size(); ++s) {
        const int l = len[s];
        if (l == 0) continue;
        std::uint16_t c = next[static_cast<std::size_t>(l)]++, r = 0;
        for (int b = 0; b < l; ++b, c = static_cast<std::uint16_t>(c >> 1)) r = static_cast<std::uint16_t>(r << 1 | (c & 1));
        codes[s] = r;
    }
    return codes;
}

// Bits into bytes, low bit first (RFC 1951, 3.1.1), into a buffer sized beforehand (capacity bytes).
class BitWriter {
public:
    // the buffer is not zeroed: only the pages written are touched (the bound is several times the output)
    explicit BitWriter(std::size_t capacity) : out_(new std::uint8_t[capacity]), capacity_(capacity) {}
    void put(std::uint32_t bits, int count) {  // count <= 32
        acc_ |= std::uint64_t{bits} << used_;
        used_ += count;
        if (used_ >= 32) {
            if (size_ + 4 > capacity_) throw std::logic_error("encode_png: deflate output beyond its bound");
            for (int k = 0; k < 4; ++k) out_[size_++] = static_cast<std::uint8_t>(acc_ >> (8 * k));
            acc_ >>= 32;
            used_ -= 32;
        }
    }
    void align() {  // to the next byte
        if (used_ % 8) put(0, 8 - used_ % 8);
    }
    std::vector<std::uint8_t> take() {  // aligned first
        align();
        for (; used_ > 0; used_ -= 8, acc_ >>= 8) {
            if (size_ + 1 > capacity_) throw std::logic_error("encode_png: deflate output beyond its bound");
            out_[size_++] = static_cast<std::uint8_t>(acc_);
        }
        return std::vector<std::uint8_t>(out_.get(), out_.get() + size_);  // no spare capacity kept
    }

private:
    std::unique_ptr<std::uint8_t[]> out_;
    std::size_t capacity_ = 0, size_ = 0;
    std::uint64_t acc_ = 0;
    int used_ = 0;
};

// ---- the parse: left or up ----------------------------------------------------------------------------

// How many bytes from a and b agree, at most max, 8 at a time.
inline __attribute__((always_inline)) std::size_t common_length(const std::uint8_t* a, const std::uint8_t* b, std::size_t max) {
    std::size_t k = 0;
    for (; k + 8 <= max; k += 8) {
        std::uint64_t x, y;
        std::memcpy(&x, a + k, 8);
        std::memcpy(&y, b + k, 8);
        if (x != y) return k + static_cast<std::size_t>(__builtin_ctzll(x ^ y) / 8);  // little-endian machines
    }
    while (k < max && a[k] == b[k]) ++k;
    return k;
}

// One deflate symbol: a literal byte (dist 0) or a match of len bytes at distance dist.
struct Symbol {
    std::uint16_t len_or_byte;
    std::uint16_t dist;
};

// Symbols appended without a check that stops inlining: the buffer is not zeroed, and doubles when full.
class SymbolList {
public:
    explicit SymbolList(std::size_t capacity) : data_(new Symbol[std::max<std::size_t>(capacity, 16)]), capacity_(std::max<std::size_t>(capacity, 16)) {}
    void push(Symbol s) {
        if (size_ == capacity_) grow();
        data_[size_++] = s;
    }
    const Symbol* begin() const { return data_.get(); }
    const Symbol* end() const { return data_.get() + size_; }
    std::size_t size() const { return size_; }

private:
    void grow() {
        std::unique_ptr<Symbol[]> more(new Symbol[2 * capacity_]);
        std::copy(begin(), end(), more.get());
        data_ = std::move(more);
        capacity_ *= 2;
    }
    std::unique_ptr<Symbol[]> data_;
    std::size_t capacity_ = 0, size_ = 0;
};

// The symbols of rows [y0, y1) of an image whose rows are `stride` bytes. The PNG data holds each row
// behind its filter byte 0: byte i of row y is at y * line + 1 + i (line = stride + 1), so the pixel above
// is line bytes back. Each row starts with the literal filter byte; then at each position the longest of
// the matches with the pixel to the left (distance 3), and when that is short the one above (line), the
// ones above and to the right or left (line - 3, line + 3: hatching) and the last position whose next 4
// bytes hashed the same (text: a glyph drawn before) — the earlier candidate when they tie — or a literal
// when none reaches 3 bytes. No match crosses a row's end (a repeated row costs its filter byte as a
// literal, a few bits), and none reaches back past deflate's 32 KiB window. The hash table is the part's
// own: the symbols depend only on the image and the rows of the part.
constexpr std::size_t kDiagonalTry = 16;  // the other candidates are tried when the left match is shorter
constexpr int kHashBits = 13;  // 32 KiB of table, in L1: 2^14 encoded 0.2% smaller, 20% slower
// `first` is row y0's bytes, the rows after it follow; with `above`, row y0 - 1 precedes it.
SymbolList parse(const std::uint8_t* first, bool above, std::size_t stride, std::size_t y0, std::size_t y1) {
    const auto row_at = [&](std::size_t y) { return first + (y - y0) * stride; };  // y >= y0
    SymbolList syms((y1 - y0) * (stride / 64 + 16));  // about what the figures take: no growing on the way
    const std::size_t line = stride + 1;
    constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    std::vector<std::uint32_t> last(std::size_t{1} << kHashBits, kNone);  // stream position of a hash's last 4 bytes
    const auto hash4 = [](const std::uint8_t* p) {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return (v * 2654435761u) >> (32 - kHashBits);
    };
    // the pixels above, above-right and above-left are in the previous row (when the window reaches it)
    const bool above_in_window = line + 3 <= kWindow;
    for (std::size_t y = y0; y < y1; ++y) {
        const std::uint8_t* row = row_at(y);
        const std::uint8_t* up = (y > y0 || above) && above_in_window ? row - stride : nullptr;
        syms.push({0, 0});  // filter byte 0
        for (std::size_t i = 0; i < stride;) {
            const std::size_t max = std::min(kMaxMatch, stride - i), pos = y * line + 1 + i;
            std::size_t len = i >= 3 ? common_length(row + i, row + i - 3, max) : 0, dist = 3;
            // a candidate `back` stream bytes earlier, byte j of the row at `from`: at most to that row's end
            const auto try_match = [&](const std::uint8_t* from, std::size_t j, std::size_t back) {
                const std::size_t k = common_length(row + i, from + j, std::min(max, stride - j));
                if (k > len) len = k, dist = back;
            };
            if (up != nullptr && len < kDiagonalTry) {
                try_match(up, i, line);
                if (len < kDiagonalTry && i + 3 < stride) try_match(up, i + 3, line - 3);
                if (len < kDiagonalTry && i >= 3) try_match(up, i - 3, line + 3);
            }
            if (len < kDiagonalTry && i + 4 <= stride) {
                std::uint32_t& slot = last[hash4(row + i)];
                if (slot != kNone && pos - slot <= kWindow) {
                    const std::size_t at = slot, cy = at / line, ci = at % line;  // ci > 0: never a filter byte
                    try_match(row_at(cy), ci - 1, pos - slot);  // cy >= y0: the table is the part's
                }
                slot = static_cast<std::uint32_t>(pos);
            }
            if (len < kMinMatch) {
                syms.push({row[i], 0});
                ++i;
                continue;
            }
            syms.push({static_cast<std::uint16_t>(len), static_cast<std::uint16_t>(dist)});
            i += len;
        }
    }
    return syms;
}

// ---- one part as a dynamic block ---------------------------------------------------------------------

// The code lengths of the literal/length and distance codes, run-length coded with the code-length
// alphabet (16: repeat the previous 3-6 times, 17: 3-10 zeros, 18: 11-138 zeros): (symbol, extra bits).
std::vector<std::pair<int, int>> run_lengths(const std::vector<std::uint8_t>& lens) {
    std::vector<std::pair<int, int>> out;
    for (std::size_t i = 0; i < lens.size();) {
        const std::uint8_t l = lens[i];
        std::size_t run = 1;
        while (i + run < lens.size() && lens[i + run] == l) ++run;
        if (l == 0 && run >= 3) {
            const std::size_t r = std::min<std::size_t>(run, 138);
            out.push_back(r >= 11 ? std::pair<int, int>{18, static_cast<int>(r - 11)} : std::pair<int, int>{17, static_cast<int>(r - 3)});
            i += r;
        } else if (l != 0 && run >= 4) {
            out.push_back({l, 0});
            const std::size_t r = std::min<std::size_t>(run - 1, 6);
            out.push_back({16, static_cast<int>(r - 3)});
            i += 1 + r;
        } else {
            out.push_back({l, 0});
            ++i;
        }
    }
    return out;
}

}  // namespace

namespace attn::render {

std::vector<std::uint8_t> deflate_rows(const std::uint8_t* first, bool above, std::size_t stride, std::size_t y0, std::size_t y1,
                                       bool last) {
    // 1. the symbols and their frequencies
    const SymbolList syms = parse(first, above, stride, y0, y1);
    std::vector<std::uint32_t> lit_freq(kLitLenCodes, 0), dist_freq(kDistCodes, 0);
    for (const Symbol& s : syms) {
        if (s.dist == 0) {
            ++lit_freq[s.len_or_byte];
            continue;
        }
        ++lit_freq[257 + static_cast<std::size_t>(kLengthCodes.code[s.len_or_byte])];
        ++dist_freq[static_cast<std::size_t>(dist_code(s.dist))];
    }
    lit_freq[kEndOfBlock] = 1;
    // 2. the codes
    const std::vector<std::uint8_t> lit_len = code_lengths(lit_freq, 15), dist_len = code_lengths(dist_freq, 15);
    const std::vector<std::uint16_t> lit_code = canonical_codes(lit_len), dist_codes = canonical_codes(dist_len);
    int hlit = kLitLenCodes, hdist = kDistCodes;
    while (hlit > 257 && lit_len[static_cast<std::size_t>(hlit) - 1] == 0) --hlit;
    while (hdist > 1 && dist_len[static_cast<std::size_t>(hdist) - 1] == 0) --hdist;
    std::vector<std::uint8_t> all(lit_len.begin(), lit_len.begin() + hlit);
    all.insert(all.end(), dist_len.begin(), dist_len.begin() + hdist);
    const std::vector<std::pair<int, int>> rl = run_lengths(all);
    std::vector<std::uint32_t> cl_freq(kCodeLenCodes, 0);
    for (const auto& [sym, extra] : rl) ++cl_freq[static_cast<std::size_t>(sym)];
    const std::vector<std::uint8_t> cl_len = code_lengths(cl_freq, 7);
    const std::vector<std::uint16_t> cl_code = canonical_codes(cl_len);
    int hclen = kCodeLenCodes;
    while (hclen > 4 && cl_len[kCodeLenOrder[static_cast<std::size_t>(hclen) - 1]] == 0) --hclen;
    // 3. the block: header, code lengths, symbols, end of block
    // at most 48 bits a symbol (15 + 5 + 15 + 13), the header under 700 bytes, the stored block 5
    BitWriter w(syms.size() * 6 + 1024);
    w.put(last ? 1 : 0, 1);
    w.put(2, 2);  // dynamic Huffman codes
    w.put(static_cast<std::uint32_t>(hlit - 257), 5);
    w.put(static_cast<std::uint32_t>(hdist - 1), 5);
    w.put(static_cast<std::uint32_t>(hclen - 4), 4);
    for (int k = 0; k < hclen; ++k) w.put(cl_len[kCodeLenOrder[static_cast<std::size_t>(k)]], 3);
    for (const auto& [sym, extra] : rl) {
        const auto s = static_cast<std::size_t>(sym);
        w.put(cl_code[s], cl_len[s]);
        if (sym == 16) w.put(static_cast<std::uint32_t>(extra), 2);
        if (sym == 17) w.put(static_cast<std::uint32_t>(extra), 3);
        if (sym == 18) w.put(static_cast<std::uint32_t>(extra), 7);
    }
    const auto dist_symbol = [&](std::size_t dist) {
        const auto c = static_cast<std::size_t>(dist_code(dist));
        w.put(dist_codes[c], dist_len[c]);
        if (kDistExtra[c]) w.put(static_cast<std::uint32_t>(dist - kDistBase[c]), kDistExtra[c]);
    };
    for (const Symbol& s : syms) {
        if (s.dist == 0) {
            w.put(lit_code[s.len_or_byte], lit_len[s.len_or_byte]);
            continue;
        }
        const std::size_t c = kLengthCodes.code[s.len_or_byte];
        w.put(lit_code[257 + c], lit_len[257 + c]);
        if (kLengthExtra[c]) w.put(static_cast<std::uint32_t>(s.len_or_byte - kLengthBase[c]), kLengthExtra[c]);
        dist_symbol(s.dist);
    }
    w.put(lit_code[kEndOfBlock], lit_len[kEndOfBlock]);
    if (!last) {  // an empty stored block: 3 header bits, then to the byte, then LEN 0 and NLEN 0xFFFF
        w.put(0, 3);
        w.align();
        w.put(0xFFFF0000u, 32);
    }
    return w.take();
}

}  // namespace attn::render
