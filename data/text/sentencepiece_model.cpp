#include "data/text/sentencepiece_model.h"

#include <cstring>
#include <unordered_set>

#include "data/base/error.h"
#include "data/text/pre_tokenizer.h"

namespace attn {
namespace {

// One message's fields, read in order; every read is checked against the end.
class Wire {
public:
    Wire(std::string_view b, const std::string& name, const char* what) : b_(b), name_(name), what_(what) {}
    bool done() const { return at_ >= b_.size(); }

    std::uint64_t varint() {
        std::uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at_ >= b_.size()) fail("ends inside a number");
            const auto c = static_cast<unsigned char>(b_[at_++]);
            v |= static_cast<std::uint64_t>(c & 0x7F) << shift;
            if (c < 0x80) return v;
        }
        fail("has a number longer than 10 bytes");
    }
    // The next field: its number and wire type.
    std::pair<std::uint32_t, int> key() {
        const std::uint64_t k = varint();
        if ((k >> 3) == 0 || (k >> 3) > 0x1FFFFFFF) fail("has a field number 0 or above 2^29");
        return {static_cast<std::uint32_t>(k >> 3), static_cast<int>(k & 7)};
    }
    std::string_view bytes() {
        const std::uint64_t n = varint();
        if (n > b_.size() - at_) fail("has a field longer than what is left of it");
        const std::string_view v = b_.substr(at_, static_cast<std::size_t>(n));
        at_ += static_cast<std::size_t>(n);
        return v;
    }
    float fixed32() {
        if (b_.size() - at_ < 4) fail("ends inside a 4-byte field");
        std::uint32_t u = 0;
        for (int k = 3; k >= 0; --k) u = u << 8 | static_cast<unsigned char>(b_[at_ + static_cast<std::size_t>(k)]);
        at_ += 4;
        float f = 0;
        std::memcpy(&f, &u, 4);
        return f;
    }
    void skip(int wire_type) {
        switch (wire_type) {
            case 0: varint(); return;
            case 1:
                if (b_.size() - at_ < 8) fail("ends inside an 8-byte field");
                at_ += 8;
                return;
            case 2: bytes(); return;
            case 5: fixed32(); return;
            default: fail("has wire type " + std::to_string(wire_type) + " (groups or not protobuf)");
        }
    }
    void expect(int got, int want) {
        if (got != want) fail("has a field of the wrong wire type");
    }
    [[noreturn]] void fail(const std::string& what) const {
        tokenizer_file_error(name_, std::string("not a SentencePiece model: its ") + what_ + " " + what + " (byte " + std::to_string(at_) + ")");
    }

private:
    std::string_view b_;
    const std::string& name_;
    const char* what_;
    std::size_t at_ = 0;
};

std::int64_t as_int32(std::uint64_t v) { return static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(v))); }

}  // namespace

SentencePieceModel SentencePieceModel::parse(std::string_view bytes, const std::string& name) {
    SentencePieceModel m;
    Wire w(bytes, name, "ModelProto");
    while (!w.done()) {
        const auto [field, wt] = w.key();
        if (field == 1) {  // pieces
            w.expect(wt, 2);
            Wire p(w.bytes(), name, "piece");
            Piece piece;
            while (!p.done()) {
                const auto [f, t] = p.key();
                if (f == 1) p.expect(t, 2), piece.piece = std::string(p.bytes());
                else if (f == 2) p.expect(t, 5), piece.score = p.fixed32();
                else if (f == 3) p.expect(t, 0), piece.type = static_cast<int>(as_int32(p.varint()));
                else p.skip(t);
            }
            m.pieces.push_back(std::move(piece));
        } else if (field == 2) {  // trainer_spec
            w.expect(wt, 2);
            Wire s(w.bytes(), name, "trainer_spec");
            while (!s.done()) {
                const auto [f, t] = s.key();
                if (t != 0 || (f != 3 && f != 24 && f != 35 && (f < 40 || f > 43))) {
                    s.skip(t);
                    continue;
                }
                const std::int64_t v = as_int32(s.varint());
                if (f == 3) m.model_type = static_cast<int>(v);
                else if (f == 24) m.treat_whitespace_as_suffix = v != 0;
                else if (f == 35) m.byte_fallback = v != 0;
                else if (f == 40) m.unk_id = v;
                else if (f == 41) m.bos_id = v;
                else if (f == 42) m.eos_id = v;
                else m.pad_id = v;
            }
        } else if (field == 3 || field == 5) {  // normalizer_spec, denormalizer_spec
            w.expect(wt, 2);
            Wire s(w.bytes(), name, field == 3 ? "normalizer_spec" : "denormalizer_spec");
            while (!s.done()) {
                const auto [f, t] = s.key();
                if (field == 5) {
                    if (f == 2) s.expect(t, 2), m.denormalizer_charsmap = std::string(s.bytes());
                    else s.skip(t);
                } else if (f == 1) s.expect(t, 2), m.normalizer_name = std::string(s.bytes());
                else if (f == 2) s.expect(t, 2), m.charsmap = std::string(s.bytes());
                else if (f >= 3 && f <= 5 && t == 0) {
                    const bool v = s.varint() != 0;
                    (f == 3 ? m.add_dummy_prefix : f == 4 ? m.remove_extra_whitespaces : m.escape_whitespaces) = v;
                } else s.skip(t);
            }
        } else {
            w.skip(wt);
        }
    }
    return m;
}

SentencePieceModel SentencePieceModel::load(std::string_view bytes, const std::string& name) {
    SentencePieceModel m = parse(bytes, name);
    static const char* const kTypes[] = {"UNIGRAM", "BPE", "WORD", "CHAR"};
    if (m.model_type != 1)
        tokenizer_unsupported(name, "the SentencePiece model type " +
                                        (m.model_type >= 1 && m.model_type <= 4 ? std::string(kTypes[m.model_type - 1]) : std::to_string(m.model_type)) +
                                        " (not UNIGRAM)");
    if (m.byte_fallback) tokenizer_unsupported(name, "a SentencePiece model with byte_fallback");
    if (m.treat_whitespace_as_suffix) tokenizer_unsupported(name, "a SentencePiece model with treat_whitespace_as_suffix");
    if (!m.denormalizer_charsmap.empty()) tokenizer_unsupported(name, "a SentencePiece model with denormalizer rules");
    if (m.pieces.empty()) tokenizer_file_error(name, "a SentencePiece model without pieces");
    if (m.pieces.size() > (1u << 24)) tokenizer_file_error(name, "a SentencePiece model with more than 2^24 pieces");
    std::unordered_set<std::string> seen;
    int unknowns = 0;
    for (const Piece& p : m.pieces) {
        if (p.type < normal || p.type > byte) tokenizer_file_error(name, "a piece of type " + std::to_string(p.type));
        if (p.type == byte) tokenizer_unsupported(name, "a SentencePiece model with BYTE pieces");
        if (p.piece.empty()) tokenizer_file_error(name, "an empty piece");
        if (!seen.insert(p.piece).second) tokenizer_file_error(name, "the piece '" + excerpt(p.piece, 40) + "' twice");
        unknowns += p.type == unknown;
    }
    if (unknowns != 1) tokenizer_file_error(name, "a SentencePiece model needs exactly one UNKNOWN piece (it has " + std::to_string(unknowns) + ")");
    if (m.unk_id < 0 || m.unk_id >= static_cast<std::int64_t>(m.pieces.size()) || m.pieces[static_cast<std::size_t>(m.unk_id)].type != unknown)
        tokenizer_file_error(name, "trainer_spec.unk_id " + std::to_string(m.unk_id) + " is not the UNKNOWN piece");
    return m;
}

}  // namespace attn
