#include "render/view/alignment.h"

#include <algorithm>
#include <string>

#include "data/base/error.h"
#include "render/view/model_title.h"
#include "render/view/set_view.h"

namespace attn::render {
namespace {

const char* const kDot = " \xC2\xB7 ";
const char* const kMarks[] = {"\xE2\x96\x81", "\xC4\xA0", " ", "\xC2\xB7"};  // ▁ Ġ space ·

bool starts_with(const std::string& s, const char* p) { return s.compare(0, std::char_traits<char>::length(p), p) == 0; }

bool word_start_mark(const std::string& s) {
    for (const char* m : kMarks)
        if (starts_with(s, m)) return true;
    return false;
}

// "<s>", "</s>", "<pad>", "<extra_id_0>", "[CLS]": a special token, a word of its own.
bool is_special(const std::string& s) {
    return s.size() >= 3 && ((s.front() == '<' && s.back() == '>') || (s.front() == '[' && s.back() == ']'));
}

std::string plural(std::size_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

}  // namespace

std::optional<AlignAt> parse_align_at(const std::string& word) {
    if (word == "output") return AlignAt::output;
    if (word == "input") return AlignAt::input;
    return std::nullopt;
}

std::vector<std::vector<std::size_t>> word_groups(const std::vector<std::string>& labels) {
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < labels.size(); ++i) {
        const bool starts = i == 0 || word_start_mark(labels[i]) || is_special(labels[i]) || is_special(labels[i - 1]);
        if (starts) groups.emplace_back();
        groups.back().push_back(i);
    }
    return groups;
}

std::vector<std::string> word_labels(const std::vector<std::string>& labels, const std::vector<std::vector<std::size_t>>& groups) {
    std::vector<std::string> out;
    for (const auto& g : groups) {
        std::string word;
        for (std::size_t i : g) {
            std::string piece = labels.at(i);
            for (const char* m : kMarks)
                if (starts_with(piece, m)) piece.erase(0, std::char_traits<char>::length(m));
            word += piece;
        }
        out.push_back(word.empty() ? labels.at(g.front()) : word);  // "▁" alone stays visible
    }
    return out;
}

Mat merge_words(const Mat& m, const std::vector<std::vector<std::size_t>>& rows, const std::vector<std::vector<std::size_t>>& cols) {
    Mat out = Mat::from_shape({rows.size(), cols.size()});
    for (std::size_t a = 0; a < rows.size(); ++a)
        for (std::size_t b = 0; b < cols.size(); ++b) {
            double sum = 0.0;
            for (std::size_t i : rows[a])
                for (std::size_t j : cols[b]) sum += static_cast<double>(m(i, j));
            out(a, b) = static_cast<float>(sum / static_cast<double>(rows[a].size()));
        }
    return out;
}

std::vector<std::string> generated_labels(const Trace& t) {
    const std::size_t T = t.tokens.size();
    std::vector<std::string> out;
    for (std::size_t i = 0; i + 1 < T; ++i) out.push_back(t.tokens[i + 1]);
    if (T == 0) return out;
    std::string last;
    if (t.generated_ids.size() == T) {
        const std::int64_t id = t.generated_ids.back();
        if (t.predictions.size() == T)
            for (const Prediction& p : t.predictions.back())
                if (p.id == id && last.empty()) last = p.token;
        // else the id's label where the run read it (BART's end token is its decoder start; every source ends in it)
        for (const auto& [ids, labels] : {std::pair{&t.token_ids, &t.tokens}, std::pair{&t.source_token_ids, &t.source_tokens}})
            for (std::size_t i = 0; i < ids->size() && i < labels->size() && last.empty(); ++i)
                if ((*ids)[i] == id) last = (*labels)[i];
        if (last.empty()) last = "#" + std::to_string(id);
    } else if (t.predictions.size() == T && !t.predictions.back().empty()) {
        last = t.predictions.back().front().token;
    }
    out.push_back(last.empty() ? std::string("?") : last);
    return out;
}

Alignment alignment(const Trace& t, const AlignChoice& c) {
    const AttentionSet* cross = find_set(t, "cross");
    if (!is_encoder_decoder(t) || cross == nullptr)
        usage_error("--align-at and --words draw an encoder-decoder model's cross-attention; this trace has no \"cross\" set",
                    "leave them out, or use a trace of a translation model (attn show --model DIR TEXT --json F)");
    const std::size_t T = cross->query_tokens.size(), S = cross->key_tokens.size();
    const std::size_t H = t.model->n_head;
    Alignment a;
    // 1. the (T, S) matrix: one head, a layer's mean, or the mean of every layer's mean
    Mat m = Mat::from_shape({T, S});
    std::fill(m.begin(), m.end(), 0.0f);
    if (c.head && !c.layer) usage_error("--head needs --layer: the alignment of which layer's head?", "add --layer L");
    if (c.layer) {
        if (*c.layer >= cross->layer_mean.size())
            usage_error("--layer " + std::to_string(*c.layer) + " is past the decoder's last layer (" + std::to_string(cross->layer_mean.size() - 1) + ")",
                        "layers are numbered from 0");
        if (c.head) {
            const LayerTrace* kept = nullptr;
            for (const LayerTrace& l : cross->layers)
                if (l.layer == *c.layer) kept = &l;
            if (!kept) usage_error("--layer " + std::to_string(*c.layer) + ": the trace does not keep that layer's heads", "pick a kept layer, or leave out --head for its mean");
            if (*c.head >= kept->heads.size())
                usage_error("--head " + std::to_string(*c.head) + " is past the last head (" + std::to_string(kept->heads.size() - 1) + ")",
                            "heads are numbered from 0");
            m = kept->heads[*c.head].weights;
            a.title_word = "layer " + std::to_string(*c.layer) + kDot + "head " + std::to_string(*c.head);
            a.file_word = "align-l" + std::to_string(*c.layer) + "-h" + std::to_string(*c.head);
        } else {
            m = cross->layer_mean[*c.layer];
            a.title_word = "layer " + std::to_string(*c.layer) + kDot + "mean of " + plural(H, "head");
            a.file_word = "align-l" + std::to_string(*c.layer) + "-mean";
        }
    } else {
        for (const Mat& l : cross->layer_mean) m += l;
        if (!cross->layer_mean.empty()) m /= static_cast<float>(cross->layer_mean.size());
        a.title_word = "mean of " + plural(cross->layer_mean.size(), "layer") + " \xC3\x97 " + plural(H, "head");  // of the layers' means
        a.file_word = "align-mean";
    }
    // 2. the rows: generated word i at the step it is output (row i) or input (row i + 1)
    std::vector<std::string> targets = generated_labels(t);
    if (c.at == AlignAt::input) {
        if (T < 2) usage_error("--align-at input: one decoder step has no generated word as its input", "use --align-at output");
        Mat shifted = Mat::from_shape({T - 1, S});
        for (std::size_t i = 0; i + 1 < T; ++i)
            for (std::size_t j = 0; j < S; ++j) shifted(i, j) = m(i + 1, j);
        m = std::move(shifted);
        targets.pop_back();
        a.file_word += "-input";
    }
    // 3. words: a source word's columns summed, a target word's rows averaged
    if (c.words) {
        const auto rg = word_groups(targets), cg = word_groups(cross->key_tokens);
        a.weights = merge_words(m, rg, cg);
        a.rows = word_labels(targets, rg), a.cols = word_labels(cross->key_tokens, cg);
        a.file_word += "-words";
    } else {
        a.weights = std::move(m);
        a.rows = std::move(targets), a.cols = cross->key_tokens;
    }
    // 4. the words that say it
    a.title = model_title(*t.model) + kDot + "cross-attention" + kDot + a.title_word;
    const std::string unit = c.words ? "word" : "token";
    a.caption_lines = {
        "row: generated " + unit + " i, at the step whose " +
            (c.at == AlignAt::output ? std::string("OUTPUT it is (--align-at output)")
                                     : "INPUT it is (--align-at input)" + std::string(kDot) + "the last generated token has no row"),
        "column: the source " + unit + (c.words ? kDot + std::string("words: a source word's pieces summed, a target word's rows averaged") : std::string()),
        std::string("each row sums to 1") + kDot + (t.teacher_forced ? "teacher-forced (--target)" : "greedy translation")};
    for (const std::string& line : a.caption_lines) a.caption += (a.caption.empty() ? "" : kDot) + line;
    return a;
}

}  // namespace attn::render
