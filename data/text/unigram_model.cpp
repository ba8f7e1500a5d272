#include "data/text/unigram_model.h"

#include <algorithm>
#include <cfloat>
#include <limits>

namespace attn {
namespace {

constexpr double kUnkPenalty = 10.0;

// The bytes of the character at s[i] by its lead byte (sentencepiece's OneCharLen), within s.
std::size_t char_len(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    return std::min(n, s.size() - i);
}

}  // namespace

UnigramModel::UnigramModel(std::vector<Entry> entries, std::int64_t unk_id, Flavour flavour)
    : entries_(std::move(entries)), unk_(unk_id), flavour_(flavour) {
    node_id_.push_back(-1);
    const bool spm = flavour_ == Flavour::sentencepiece;
    min_score_ = spm ? static_cast<double>(FLT_MAX) : std::numeric_limits<double>::infinity();
    max_score_ = spm ? static_cast<double>(FLT_MIN) : 0.0;
    for (std::size_t id = 0; id < entries_.size(); ++id) {
        const Entry& e = entries_[id];
        if (!spm || e.kind == Kind::normal) {
            min_score_ = std::min(min_score_, e.score);
            max_score_ = std::max(max_score_, e.score);
        }
        if (e.kind == Kind::hidden || e.piece.empty()) continue;
        std::int32_t node = 0;
        for (const char ch : e.piece) {
            const std::uint64_t key = static_cast<std::uint64_t>(node) << 8 | static_cast<unsigned char>(ch);
            const auto it = edges_.find(key);
            if (it != edges_.end()) {
                node = it->second;
            } else {
                node = static_cast<std::int32_t>(node_id_.size());
                edges_.emplace(key, node);
                node_id_.push_back(-1);
            }
        }
        node_id_[static_cast<std::size_t>(node)] = static_cast<std::int64_t>(id);  // a repeated piece: the last id (tokenizers' token_to_ids)
    }
    if (spm) min_score_ = static_cast<float>(min_score_), max_score_ = static_cast<float>(max_score_);
}

std::int32_t UnigramModel::child(std::int32_t node, unsigned char c) const {
    const auto it = edges_.find(static_cast<std::uint64_t>(node) << 8 | c);
    return it == edges_.end() ? -1 : it->second;
}

void UnigramModel::encode(std::string_view text, std::vector<Token>& out) const {
    struct Best {
        std::int64_t id = -1;
        double score = 0;  // float values only in the sentencepiece flavour
        std::int64_t starts_at = -1;
    };
    const std::size_t n = text.size();
    if (n == 0) return;
    const bool spm = flavour_ == Flavour::sentencepiece;
    const double unk_score = spm ? static_cast<double>(static_cast<float>(min_score_) - static_cast<float>(kUnkPenalty)) : min_score_ - kUnkPenalty;
    std::vector<Best> best(n + 1);
    // 1. forward: the best path ending at each byte position
    for (std::size_t s = 0; s < n;) {
        const double here = best[s].score;
        const std::size_t mblen = char_len(text, s);
        bool single = false;
        std::int32_t node = 0;
        for (std::size_t k = s; k < n; ++k) {
            node = child(node, static_cast<unsigned char>(text[k]));
            if (node < 0) break;
            const std::int64_t id = node_id_[static_cast<std::size_t>(node)];
            if (id < 0) continue;
            const std::size_t len = k + 1 - s;
            const Entry& e = entries_[static_cast<std::size_t>(id)];
            double cand = 0;
            if (spm) {  // the ternary is double (0.1), so the sum is the exact double of two floats
                const double score = e.kind == Kind::user_defined ? static_cast<double>(len) * max_score_ - 0.1 : e.score;
                cand = score + here;
            } else {
                cand = e.score + here;
            }
            Best& t = best[k + 1];
            if (t.starts_at < 0 || cand > t.score) {
                t.score = spm ? static_cast<double>(static_cast<float>(cand)) : cand;
                t.starts_at = static_cast<std::int64_t>(s);
                t.id = id;
            }
            if (len == mblen) single = true;
        }
        if (!single) {
            Best& t = best[s + mblen];
            const double cand = spm ? static_cast<double>(static_cast<float>(unk_score) + static_cast<float>(here)) : unk_score + here;
            if (t.starts_at < 0 || cand > t.score) t = Best{unk_, cand, static_cast<std::int64_t>(s)};
        }
        s += mblen;
    }
    // 2. backtrack, fusing runs of unknown characters
    const std::size_t first = out.size();
    for (std::size_t end = n; end > 0;) {
        const Best& b = best[end];
        const auto begin = static_cast<std::size_t>(b.starts_at);
        if (b.id == unk_ && out.size() > first && out.back().id == unk_) out.back().begin = begin;
        else out.push_back({begin, end, b.id});
        end = begin;
    }
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

}  // namespace attn
