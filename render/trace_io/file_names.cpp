#include "render/trace_io/file_names.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "core/analysis/head_patterns.h"
#include "render/view/figure_views.h"

namespace attn::render {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

bool one_of(std::string_view s, std::initializer_list<std::string_view> words) {
    return std::find(words.begin(), words.end(), s) != words.end();
}

// Takes "<word><N>-" off the front of s ("h12-", "layer0-"); false, s unchanged, when s does not start so.
bool take_numbered(std::string_view& s, std::string_view word) {
    if (s.substr(0, word.size()) != word) return false;
    std::size_t end = word.size();
    while (end < s.size() && is_digit(s[end])) ++end;
    const std::size_t digits = end - word.size();
    if (digits == 0 || (digits > 1 && s[word.size()] == '0') || end >= s.size() || s[end] != '-') return false;
    s.remove_prefix(end + 1);
    return true;
}

bool is_trace_figure(std::string_view s) {
    const auto& names = figure_names();
    return std::find(names.begin(), names.end(), s) != names.end();
}

// An encoder-decoder's alignment figure: align-l<N>-h<N>, align-l<N>-mean or align-mean, then -input
// (--align-at input) and -words (--words) when given (render/view/alignment.h).
bool is_alignment_rest(std::string_view s) {
    if (s.substr(0, 6) != "align-") return false;
    s.remove_prefix(6);
    for (std::string_view tail : {"-words", "-input"})
        if (s.size() > tail.size() && s.substr(s.size() - tail.size()) == tail) s.remove_suffix(tail.size());
    if (s == "mean") return true;
    const std::string padded = std::string(s) + "-";  // take_numbered wants a dash after the number
    std::string_view p = padded;
    if (!take_numbered(p, "l")) return false;
    if (p == "mean-") return true;
    return take_numbered(p, "h") && p.empty();
}

bool is_figure_rest(std::string_view rest, FileSet set) {
    using namespace figure_word;
    // an encoder-decoder's sets: <set>-<rest> names set <set>'s figure <rest> (render/view/set_view.h)
    // (the set's own figures only: no alignment, no set within a set)
    const auto set_word = [](std::string_view s) -> std::size_t {
        for (std::string_view name : {"encoder-", "decoder-", "cross-"})
            if (s.size() > name.size() && s.substr(0, name.size()) == name) return name.size();
        return 0;
    };
    if (const std::size_t n = set_word(rest); n && set != FileSet::render && set != FileSet::heads && !is_trace_figure(rest)) {
        const std::string_view of_set = rest.substr(n);
        return !set_word(of_set) && !is_alignment_rest(of_set) && is_figure_rest(of_set, set);
    }
    if (is_alignment_rest(rest)) return set == FileSet::show || set == FileSet::any;
    // render removes, per layer or head prefix it drew ("gpt2-l3", "gpt2-l3-h0"), the trace figures it did not
    if (set == FileSet::render) return is_trace_figure(rest);
    if (one_of(rest, {decode_steps, decode_cache})) return set == FileSet::decode || set == FileSet::any;
    if (set == FileSet::decode) return false;
    const bool pattern_map = rest.substr(0, 6) == "heads-" && (find_head_pattern(std::string(rest.substr(6))) != nullptr || rest == "heads-effect");
    if (set == FileSet::heads) return pattern_map;
    // attn show's: the trace figures, --pos figures, a model's overview and head
    if (is_trace_figure(rest) || one_of(rest, {positions, rope, alibi, overview})) return true;
    std::string_view s = rest;
    const bool layer = take_numbered(s, "l");
    const bool head = take_numbered(s, "h");
    if (layer && head && is_trace_figure(s)) return true;
    if (set == FileSet::show) return false;
    // every command's: a layer's or a head's figures (show --model, render), a layer's mean and rollout,
    // attn heads' maps
    return pattern_map || ((layer || head) && is_trace_figure(s)) || (layer && !head && one_of(s, {"mean", "rollout"}));
}

bool is_array_rest(std::string_view rest) {
    if (one_of(rest, {"x", "source_x", "v", "output", "token_ids"})) return true;
    if (rest.size() > 2 && (rest[0] == 'W' || rest[0] == 'b') && rest[1] == '_' &&
        std::all_of(rest.begin() + 2, rest.end(), is_letter))
        return true;  // a parameter: W_query, b_out
    std::string_view s = rest;
    if (take_numbered(s, "h"))
        return one_of(s, {"queries", "keys", "values", "scores", "mask", "weights", "zeroed", "dropped_weights", "context"});
    s = rest;
    if (!take_numbered(s, "l")) return false;
    if (take_numbered(s, "h")) return one_of(s, {"scores", "mask", "weights"});  // a model's head
    return one_of(s, {"mean", "rollout"});                                       // a model's layer
}

}  // namespace

const char* file_extension(FileType type) {
    switch (type) {
        case FileType::png: return ".png";
        case FileType::svg: return ".svg";
        case FileType::npy: return ".npy";
    }
    return "";
}

bool is_attn_file_name(FileType type, const std::string& prefix, const std::string& name, FileSet set) {
    const std::string_view ext = file_extension(type);
    std::string_view rest = name;
    if (rest.size() < prefix.size() + 1 + ext.size() || rest.substr(0, prefix.size()) != prefix ||
        rest[prefix.size()] != '-' || rest.substr(rest.size() - ext.size()) != ext)
        return false;
    rest = rest.substr(prefix.size() + 1, rest.size() - prefix.size() - 1 - ext.size());
    if (type == FileType::npy) return set != FileSet::decode && is_array_rest(rest);
    return is_figure_rest(rest, set);
}

std::optional<std::string> prefix_clash(const std::string& prefix) {
    using namespace figure_word;
    std::vector<std::string> words = figure_names();
    for (const char* w : {positions, rope, alibi, decode_steps, decode_cache, overview}) words.emplace_back(w);
    for (std::size_t dash = prefix.find('-'); dash != std::string::npos; dash = prefix.find('-', dash + 1))
        for (const auto& w : words) {
            const std::string name = figure_file_name(prefix, w);
            if (is_attn_file_name(FileType::png, prefix.substr(0, dash), name)) return name;
        }
    return std::nullopt;
}

std::string figure_file_name(const std::string& prefix, const std::string& word, FileType type) {
    return prefix + "-" + word + file_extension(type);
}

std::string layer_head_prefix(const std::string& base, std::optional<std::size_t> layer, std::optional<std::size_t> head) {
    return (base.empty() ? std::string("attn") : base) + (layer ? "-l" + std::to_string(*layer) : "") + (head ? "-h" + std::to_string(*head) : "");
}


}  // namespace attn::render
